package jdbc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// The sink's MySQL driver: the target's name, the query's placeholders, the save modes'
// table and the committer's XA transactions.

// target reads database.table or table, in the database option's database (default the
// url's): a MySQL sink may write any database of the server.
func (mc *myConn) target(sc *SinkConfig, table string) (pgwire.TableName, error) {
	o := sc.At
	db := strings.TrimSpace(sc.Database)
	if db == "" {
		db = mc.Database
	}
	table = strings.TrimSpace(table)
	if d, t, ok := strings.Cut(table, "."); ok {
		db, table = unquoteMySQL(d), t
	}
	table = unquoteMySQL(table)
	if db == "" {
		return pgwire.TableName{}, o.Errorf("database", "is required: the url names no database")
	}
	return pgwire.TableName{Schema: db, Table: table}, nil
}

// quoteTable is the quoted `database`.`table`.
func (mysqlDialect) quoteTable(t pgwire.TableName) string {
	return mysqlQuote(t.Schema) + "." + mysqlQuote(t.Table)
}

// bindQuery cuts a query at its placeholders: each row's statement is its parts with the
// row's literals between them.
func (mc *myConn) bindQuery(query string) (sinkQuery, int, []string, error) {
	parts, _, err := mysqlQueryParts(query, true)
	if err == nil && len(parts) > 1 {
		return sinkQuery{parts: parts}, len(parts) - 1, nil, nil
	}
	var names []string
	if err == nil {
		// no ? placeholders: SeaTunnel's named ones, :field
		parts, names, err = mysqlQueryParts(query, false)
	}
	return sinkQuery{parts: parts}, 0, names, err
}

// mysqlLexis: MySQL's literals also escape with a backslash, its names are quoted with
// backquotes, and # starts a comment.
var mysqlLexis = sqlLexis{quotes: "'\"`", backslashIn: `'"`, hashComments: true}

// mysqlQueryParts cuts a query at its placeholders (? when positional, else :name), so
// that each row's statement is its parts with the row's literals between them; names are
// the fields of the named placeholders, in order. Placeholders in string literals ('...',
// "..." with MySQL's backslash escapes), quoted names (`...`) and comments (--, #, /* */)
// are left alone, as are casts (::).
func mysqlQueryParts(q string, positional bool) (parts, names []string, err error) {
	q = strings.TrimRight(strings.TrimSpace(q), "; \t\r\n")
	last, err := rewritePlaceholders(q, mysqlLexis, func(b *strings.Builder, rest string) int {
		n := 1
		if !positional {
			var name string
			if name, n = namedPlaceholder(rest); name == "" {
				b.WriteString(rest[:n]) // a cast, or no placeholder
				return n
			}
			names = append(names, name)
		} else if rest[0] != '?' {
			return 0
		}
		parts = append(parts, b.String())
		b.Reset()
		return n
	})
	if err != nil {
		return nil, nil, err
	}
	return append(parts, last), names, nil
}

// openSink opens a connection of the setup or the committer.
func (mc *myConn) openSink(ctx context.Context) (sinkConn, error) {
	db, err := mc.open(ctx, 1)
	if err != nil {
		return nil, err
	}
	return mySinkConn{db}, nil
}

// mySinkConn is a connection of the sink's setup or committer.
type mySinkConn struct{ db *sql.DB }

func (c mySinkConn) close() { c.db.Close() }

func (c mySinkConn) exec(ctx context.Context, q string) error {
	_, err := c.db.ExecContext(ctx, q)
	return err
}

func (c mySinkConn) queryRow(ctx context.Context, q string, args ...any) rowScanner {
	return c.db.QueryRowContext(ctx, q, args...)
}

func (c mySinkConn) commitPrepared(ctx context.Context, xid string) error {
	return xaCommit(ctx, c.db, xid)
}

func (c mySinkConn) rollbackPrepared(ctx context.Context, xid string) error {
	return xaRollback(ctx, c.db, xid)
}

func (c mySinkConn) tableExists(ctx context.Context, sc *sinkConfig) (bool, error) {
	var n int
	if err := c.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", sc.target.Schema, sc.target.Table).Scan(&n); err != nil {
		return false, fmt.Errorf("look it up: %w", err)
	}
	return n > 0, nil
}

// createTable creates the database and the table. A key column of a text or blob kind,
// which MySQL cannot index whole, is created as varchar(255) or varbinary(255).
func (c mySinkConn) createTable(ctx context.Context, sc *sinkConfig) error {
	isPK := map[int]bool{}
	for _, i := range sc.pk {
		isPK[i] = true
	}
	ddl, err := sc.createDDL(func(i int, col catalog.Column) (string, error) {
		t, err := sc.db.columnType(col)
		if err == nil && isPK[i] {
			t = indexableType(t)
		}
		return t, err
	})
	if err != nil {
		return err
	}
	if _, err := c.db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+mysqlQuote(sc.target.Schema)); err != nil {
		return fmt.Errorf("create database %s: %w", sc.target.Schema, err)
	}
	if _, err := c.db.ExecContext(ctx, ddl); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	return nil
}

func indexableType(t string) string {
	switch {
	case strings.HasSuffix(t, "text"), t == "json":
		return "varchar(255)"
	case strings.HasSuffix(t, "blob"):
		return "varbinary(255)"
	}
	return t
}

// ---- XA ----

// errUnknownXID is MySQL's XAER_NOTA: no XA transaction of that id.
const errUnknownXID = 1397

func isUnknownXID(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == errUnknownXID
}

// xaCommit commits a prepared XA transaction; one that is gone was committed already.
func xaCommit(ctx context.Context, conn execer, xid string) error {
	if _, err := conn.ExecContext(ctx, "XA COMMIT "+xidLiteral(xid)); err != nil && !isUnknownXID(err) {
		return fmt.Errorf("XA COMMIT %s: %w", xid, err)
	}
	return nil
}

// xaRollback rolls a prepared XA transaction back; one that is gone is no more.
func xaRollback(ctx context.Context, conn execer, xid string) error {
	if _, err := conn.ExecContext(ctx, "XA ROLLBACK "+xidLiteral(xid)); err != nil && !isUnknownXID(err) {
		return fmt.Errorf("XA ROLLBACK %s: %w", xid, err)
	}
	return nil
}

// xaRecover lists the prepared XA transactions whose id starts with prefix.
func xaRecover(ctx context.Context, conn queryer, prefix string) (map[string]bool, error) {
	rows, err := conn.QueryContext(ctx, "XA RECOVER")
	if err != nil {
		return nil, fmt.Errorf("XA RECOVER: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var format, gl, bl int64
		var data []byte
		if err := rows.Scan(&format, &gl, &bl, &data); err != nil {
			return nil, fmt.Errorf("XA RECOVER: %w", err)
		}
		if bl == 0 && int64(len(data)) == gl && strings.HasPrefix(string(data), prefix) {
			out[string(data)] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("XA RECOVER: %w", err)
	}
	return out, nil
}

// xidLiteral is an XA id (Strait's are ASCII) as a string literal.
func xidLiteral(xid string) string { return "'" + strings.ReplaceAll(xid, "'", "''") + "'" }

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}
