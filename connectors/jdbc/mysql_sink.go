package jdbc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// parseMySQLTarget reads the table a MySQL sink writes: database (default the url's) and
// table (default the input table's name; database.table names its database too), with
// tablePrefix, tableSuffix and field_ide applied to the table's name.
func (c *sinkConfig) parseMySQLTarget(sc *SinkConfig) error {
	o := sc.At
	db := strings.TrimSpace(sc.Database)
	if db == "" {
		db = c.my.Database
	}
	table := strings.TrimSpace(sc.Table)
	if table == "" {
		table = c.input.Path.Table
	}
	if table == "" {
		return o.Errorf("table", "is required when generate_sink_sql is true and the input table has no name")
	}
	if d, t, ok := strings.Cut(table, "."); ok {
		db, table = unquoteMySQL(d), t
	}
	table = unquoteMySQL(table)
	if db == "" {
		return o.Errorf("database", "is required: the url names no database")
	}
	c.target = pgwire.TableName{Schema: db, Table: applyIde(sc.TablePrefix+table+sc.TableSuffix, sc.FieldIde)}
	c.tag = tagOf(c.target.String())
	return nil
}

// mysqlTarget is the quoted `database`.`table` the sink writes.
func (c *sinkConfig) mysqlTarget() string {
	return mysqlQuote(c.target.Schema) + "." + mysqlQuote(c.target.Table)
}

// mysqlQueryParts cuts a query at its placeholders (? when positional, else :name), so
// that each row's statement is its parts with the row's literals between them; names are
// the fields of the named placeholders, in order. Placeholders in string literals ('...',
// "..." with MySQL's backslash escapes), quoted names (`...`) and comments (--, #, /* */)
// are left alone, as are casts (::).
func mysqlQueryParts(q string, positional bool) (parts, names []string, err error) {
	q = strings.TrimRight(strings.TrimSpace(q), "; \t\r\n")
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for ; j < len(q); j++ {
				if q[j] == '\\' && c != '`' {
					j++
					continue
				}
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c {
						j++
						continue
					}
					break
				}
			}
			if j >= len(q) {
				return nil, nil, fmt.Errorf("unterminated %c at offset %d", c, i)
			}
			b.WriteString(q[i : j+1])
			i = j
		case c == '#' || (c == '-' && strings.HasPrefix(q[i:], "-- ")):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j - 1
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return nil, nil, fmt.Errorf("unterminated comment at offset %d", i)
			}
			b.WriteString(q[i : i+j+4])
			i += j + 3
		case positional && c == '?':
			parts = append(parts, b.String())
			b.Reset()
		case !positional && c == ':' && strings.HasPrefix(q[i:], "::"):
			b.WriteString("::")
			i++
		case !positional && c == ':' && i+1 < len(q) && (q[i+1] == '_' || isLetter(q[i+1])):
			j := i + 1
			for j < len(q) && (q[j] == '_' || q[j] == '.' || isLetter(q[j]) || (q[j] >= '0' && q[j] <= '9')) {
				j++
			}
			names = append(names, q[i+1:j])
			parts = append(parts, b.String())
			b.Reset()
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return append(parts, b.String()), names, nil
}

// mysqlSetup applies the save modes to a MySQL table (see Sink.Setup).
func (c *sinkConfig) mysqlSetup(ctx context.Context) error {
	db, err := c.my.open(ctx, 1)
	if err != nil {
		return fmt.Errorf("%s: %w", c.where, err)
	}
	defer db.Close()
	if err := c.mysqlPrepareTable(ctx, db); err != nil {
		return fmt.Errorf("%s: table %s: %w", c.where, c.target, err)
	}
	return nil
}

func (c *sinkConfig) mysqlPrepareTable(ctx context.Context, db *sql.DB) error {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", c.target.Schema, c.target.Table).Scan(&n); err != nil {
		return fmt.Errorf("look it up: %w", err)
	}
	return c.applySaveModes(ctx, n > 0, saveTarget{
		quoted: c.mysqlTarget(),
		exec: func(ctx context.Context, q string) error {
			_, err := db.ExecContext(ctx, q)
			return err
		},
		hasRows: func(ctx context.Context, q string) (bool, error) {
			var any bool
			err := db.QueryRowContext(ctx, q).Scan(&any)
			return any, err
		},
		create: func(ctx context.Context) error { return c.mysqlCreateTable(ctx, db) },
	})
}

// mysqlCreateDDL is the CREATE TABLE of the input's columns, their nullability and the
// primary key. A key column of a text or blob kind, which MySQL cannot index whole, is
// created as varchar(255) or varbinary(255).
func (c *sinkConfig) mysqlCreateDDL() (string, error) {
	isPK := map[int]bool{}
	for _, i := range c.pk {
		isPK[i] = true
	}
	var defs []string
	for i, col := range c.input.Columns {
		t, err := c.db.columnType(col)
		if err != nil {
			return "", fmt.Errorf("column %s: %w", col.Name, err)
		}
		if isPK[i] {
			t = indexableType(t)
		}
		d := mysqlQuote(c.columns[i]) + " " + t
		if !col.Nullable || isPK[i] {
			d += " NOT NULL"
		}
		defs = append(defs, d)
	}
	if len(c.pk) > 0 {
		var pk []string
		for _, i := range c.pk {
			pk = append(pk, mysqlQuote(c.columns[i]))
		}
		defs = append(defs, "PRIMARY KEY ("+strings.Join(pk, ", ")+")")
	}
	return "CREATE TABLE IF NOT EXISTS " + c.mysqlTarget() + " (\n  " + strings.Join(defs, ",\n  ") + "\n)", nil
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

func (c *sinkConfig) mysqlCreateTable(ctx context.Context, db *sql.DB) error {
	ddl, err := c.mysqlCreateDDL()
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+mysqlQuote(c.target.Schema)); err != nil {
		return fmt.Errorf("create database %s: %w", c.target.Schema, err)
	}
	if _, err := db.ExecContext(ctx, ddl); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	return nil
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

// mysqlEach opens a connection and runs do for every XA id of the commit infos.
func (c *Committer) mysqlEach(ctx context.Context, infos [][]byte, do func(ctx context.Context, conn execer, xid string) error) error {
	db, err := c.cfg.my.open(ctx, 1)
	if err != nil {
		return fmt.Errorf("%s: %w", c.cfg.where, err)
	}
	defer db.Close()
	return c.each(ctx, infos, func(xid string) error { return do(ctx, db, xid) })
}
