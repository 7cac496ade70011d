package jdbc

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/types"
)

// The sink's PostgreSQL driver: the target's name, the query's placeholders, the
// statements a writer prepares, the save modes' table and the committer's prepared
// transactions.

// target reads schema.table or table in the url's database, which on PostgreSQL is the
// only one the sink may name; the schema option wins over the table's.
func (cc *connConfig) target(sc *SinkConfig, table string) (pgwire.TableName, error) {
	o := sc.At
	// SeaTunnel's default database is the source's, which for PostgreSQL must be the url's
	db := sc.Database
	if strings.TrimSpace(db) == "" {
		db = cc.Database
	}
	if db != cc.Database {
		return pgwire.TableName{}, o.Errorf("database", "is %q, the url connects to database %q", db, cc.Database)
	}
	t, err := pgwire.ParseTableName(table, db)
	if err != nil {
		return t, o.Errorf("table", "%v", err)
	}
	if strings.TrimSpace(sc.Schema) != "" {
		t.Schema = sc.Schema
	}
	return t, nil
}

// bindQuery turns the query's placeholders into PostgreSQL's ($1, $2, ...).
func (cc *connConfig) bindQuery(query string) (sinkQuery, int, []string, error) {
	q, n, err := positionalParams(query)
	if err != nil || n > 0 {
		return sinkQuery{sql: q}, n, nil, err
	}
	q, names, err := namedParams(query)
	return sinkQuery{sql: q}, 0, names, err
}

// positionalParams turns the JDBC placeholders (?) of a statement into PostgreSQL's ($1,
// $2, ...), leaving those in string literals, quoted identifiers and comments alone.
func positionalParams(q string) (string, int, error) {
	n := 0
	out, err := rewritePlaceholders(q, pgLexis, func(b *strings.Builder, rest string) int {
		if rest[0] != '?' {
			return 0
		}
		n++
		fmt.Fprintf(b, "$%d", n)
		if len(rest) > 1 && rest[1] >= '0' && rest[1] <= '9' {
			b.WriteByte(' ') // ?0 is a parameter and a number, not $10
		}
		return 1
	})
	return out, n, err
}

// pgLexis: PostgreSQL's literals and quoted names double their quote to escape it.
var pgLexis = sqlLexis{quotes: `'"`}

// namedParams turns SeaTunnel's named placeholders (:field) of a statement into
// PostgreSQL's ($1, $2, ...), one per occurrence, and returns the field each binds; casts
// (::) and the placeholders in string literals, quoted identifiers and comments are left
// alone.
func namedParams(q string) (string, []string, error) {
	var names []string
	out, err := rewritePlaceholders(q, pgLexis, func(b *strings.Builder, rest string) int {
		name, n := namedPlaceholder(rest)
		if name == "" {
			b.WriteString(rest[:n]) // a cast, or no placeholder
			return n
		}
		names = append(names, name)
		fmt.Fprintf(b, "$%d", len(names))
		return n
	})
	return out, names, err
}

// openSink opens a connection of the setup or the committer.
func (cc *connConfig) openSink(ctx context.Context) (sinkConn, error) {
	pg, err := cc.connect(ctx)
	if err != nil {
		return nil, err
	}
	return pgSinkConn{pg}, nil
}

// pgSinkConn is a connection of the sink's setup or committer.
type pgSinkConn struct{ conn *pgx.Conn }

func (c pgSinkConn) close() { c.conn.Close(context.Background()) }

func (c pgSinkConn) exec(ctx context.Context, q string) error {
	_, err := c.conn.Exec(ctx, q)
	return err
}

func (c pgSinkConn) queryRow(ctx context.Context, q string, args ...any) rowScanner {
	return c.conn.QueryRow(ctx, q, args...)
}

func (c pgSinkConn) commitPrepared(ctx context.Context, gid string) error {
	return commitPrepared(ctx, c.conn, gid)
}

func (c pgSinkConn) rollbackPrepared(ctx context.Context, gid string) error {
	return rollbackPrepared(ctx, c.conn, gid)
}

func (c pgSinkConn) tableExists(ctx context.Context, sc *sinkConfig) (bool, error) {
	var oid *uint32
	if err := c.conn.QueryRow(ctx, "SELECT to_regclass($1)::oid", sc.target.Quoted()).Scan(&oid); err != nil {
		return false, fmt.Errorf("look it up: %w", err)
	}
	return oid != nil, nil
}

// createTable creates the schema and the table, each column of its source type when that
// is PostgreSQL's (columnType).
func (c pgSinkConn) createTable(ctx context.Context, sc *sinkConfig) error {
	if sc.target.Schema != "" {
		if _, err := c.conn.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgwire.QuoteIdent(sc.target.Schema)); err != nil {
			return fmt.Errorf("create schema %s: %w", sc.target.Schema, err)
		}
	}
	ddl, err := sc.createDDL(func(_ int, col catalog.Column) (string, error) { return columnType(ctx, c.conn, col) })
	if err != nil {
		return err
	}
	if _, err := c.conn.Exec(ctx, ddl); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	return nil
}

// columnType is the type a column is created as: its source type when it comes from
// PostgreSQL and that type still reads back as the column's type (SeaTunnel creates the
// columns of a PostgreSQL source with their source types: json stays json, numeric stays
// numeric), else the mapping of its SeaTunnel type.
func columnType(ctx context.Context, conn *pgx.Conn, col catalog.Column) (string, error) {
	if col.SourceType != "" && sourceTypeFits(ctx, conn, col) {
		return col.SourceType, nil
	}
	return ddlType(col.Type, col.Length)
}

// sourceTypeFits reports whether the column's source type names a type of this database
// that is read as the column's type (a transform may have changed the type since).
func sourceTypeFits(ctx context.Context, conn *pgx.Conn, col catalog.Column) bool {
	fields, err := pgwire.DescribeSQL(ctx, conn, "SELECT NULL::"+col.SourceType)
	if err != nil || len(fields) != 1 {
		return false
	}
	opts := pgwire.TypeOptions{UnboundedScale: 18}
	switch t := col.Type; {
	case t.Kind == types.Decimal:
		opts.UnboundedScale = t.Scale
	case t.Kind == types.Array && t.Elem != nil && t.Elem.Kind == types.Decimal:
		opts.UnboundedScale = t.Elem.Scale
	}
	return pgwire.ColumnOf(fields[0], opts).Type.String() == col.Type.String()
}

// statements are the generated statements of a table.
type statements struct {
	insert, upsert, update, delete string
	copy                           string
	// bulkUpsert and bulkDelete take one array per column (key column) and apply a whole
	// buffer in one statement each
	bulkUpsert, bulkDelete string
	// bulkInsert takes one array per column and inserts a whole buffer in one statement
	bulkInsert string
}

func (c *sinkConfig) statements() statements {
	t := c.target.Quoted()
	cols := make([]string, len(c.columns))
	params := make([]string, len(c.columns))
	unnests := make([]string, len(c.columns))
	for i, name := range c.columns {
		cols[i] = pgwire.QuoteIdent(name)
		params[i] = fmt.Sprintf("$%d", i+1)
		unnests[i] = fmt.Sprintf("unnest($%d)", i+1)
	}
	var st statements
	st.insert = fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", t, strings.Join(cols, ", "), strings.Join(params, ", "))
	st.copy = fmt.Sprintf("COPY %s (%s) FROM STDIN BINARY", t, strings.Join(cols, ", "))
	// The bulk statements unnest their arrays in the select list, where the server takes
	// an element of each per row as it inserts it; unnest(...) in FROM would first copy
	// every row into a tuple store: 600–670 against 830–840 k rows/s for 1,000-row flushes
	// of bigint, text, double, timestamptz.
	st.bulkInsert = fmt.Sprintf("INSERT INTO %s (%s) SELECT %s", t, strings.Join(cols, ", "), strings.Join(unnests, ", "))
	if len(c.pk) == 0 {
		return st
	}
	isPK := map[int]bool{}
	var pkCols, where, delWhere []string
	for j, i := range c.pk {
		isPK[i] = true
		pkCols = append(pkCols, cols[i])
		where = append(where, fmt.Sprintf("%s = $%d", cols[i], i+1))
		delWhere = append(delWhere, fmt.Sprintf("%s = $%d", cols[i], j+1))
	}
	var set []string
	for i := range cols {
		if !isPK[i] || c.pkUpdated {
			set = append(set, fmt.Sprintf("%s = $%d", cols[i], i+1))
		}
	}
	conflict := pgDialect{}.upsertClause(cols, c.pk)
	st.upsert = st.insert + " " + conflict
	st.bulkUpsert = st.bulkInsert + " " + conflict
	st.bulkDelete = fmt.Sprintf("DELETE FROM %s WHERE (%s) IN (SELECT %s)", t, strings.Join(pkCols, ", "), strings.Join(unnests[:len(c.pk)], ", "))
	st.update = fmt.Sprintf("UPDATE %s SET %s WHERE %s", t, strings.Join(set, ", "), strings.Join(where, " AND "))
	st.delete = fmt.Sprintf("DELETE FROM %s WHERE %s", t, strings.Join(delWhere, " AND "))
	return st
}
