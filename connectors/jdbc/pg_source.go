package jdbc

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// The source's PostgreSQL driver: the catalog through pgx, a query's columns as the server
// describes them, and each split's rows streamed in the binary format (pgwire.Rows).

func (c *connConfig) dbName() string                { return c.Database }
func (c *connConfig) connectTimeout() time.Duration { return c.Timeout }

// collated compares a string split column in a collation of PostgreSQL.
func (c *connConfig) collated(expr, collation string) string {
	return expr + " COLLATE " + pgwire.QuoteIdent(collation)
}

// openSource opens a connection of the source.
func (c *connConfig) openSource(ctx context.Context) (sourceConn, error) {
	pg, err := c.connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pgSourceConn{cfg: c, pg: pg}, nil
}

// pgSourceConn is a connection the source describes tables and plans splits on.
type pgSourceConn struct {
	cfg *connConfig
	pg  *pgx.Conn
}

func (c *pgSourceConn) close() { c.pg.Close(context.Background()) }

// pgColumns are the columns of a table read from PostgreSQL.
type pgColumns []pgwire.Column

// resolve learns one table's columns, keys and statement from PostgreSQL's catalog: a
// query's columns are described by the server.
func (c *pgSourceConn) resolve(ctx context.Context, where string, e srcEntry, narrow bool) (*srcTable, error) {
	pg, database := c.pg, c.cfg.Database
	t := &srcTable{}
	var rel *pgwire.Relation
	var path catalog.TablePath
	if e.tablePath != "" {
		name, err := pgwire.ParseTableName(e.tablePath, database)
		if err != nil {
			return nil, e.o.Errorf("table_path", "%v", err)
		}
		if path, err = catalog.ParsePath(e.tablePath, true); err != nil {
			return nil, e.o.Errorf("table_path", "%v", err)
		}
		if rel, err = pgwire.LookupRelation(ctx, pg, name); err != nil {
			return nil, fmt.Errorf("%s: look up table %s: %w", where, name, err)
		}
		if rel == nil && e.query == "" {
			return nil, e.o.Errorf("table_path", "table %s does not exist in database %s", name, database)
		}
	}

	// the statement, checked by PostgreSQL
	fromTable := e.query == ""
	var base string
	if fromTable {
		base = "SELECT * FROM " + pgwire.QuoteIdent(rel.Schema) + "." + pgwire.QuoteIdent(rel.Name)
		if _, err := pgwire.DescribeSQL(ctx, pg, base); err != nil {
			return nil, e.o.Errorf("table_path", "cannot read table %s.%s: %s", rel.Schema, rel.Name, pgwire.ErrorText(err))
		}
	} else {
		if _, err := pgwire.DescribeSQL(ctx, pg, e.query); err != nil {
			return nil, e.o.Errorf("query", "PostgreSQL rejects the query: %s", pgwire.ErrorText(err))
		}
		base = e.fromQuery()
		if _, err := pgwire.DescribeSQL(ctx, pg, base); err != nil {
			return nil, e.o.Errorf("query", "must be a SELECT whose rows can be read as a subquery: %s", pgwire.ErrorText(err))
		}
	}
	t.sql = e.filtered(base)
	fields, err := pgwire.DescribeSQL(ctx, pg, t.sql)
	if err != nil {
		return nil, e.o.Errorf("where_condition", "PostgreSQL rejects %q: %s", e.where, pgwire.ErrorText(err))
	}
	if len(fields) == 0 {
		return nil, e.o.Errorf("query", "the query returns no columns")
	}

	// columns
	opts := pgwire.TypeOptions{Narrow: narrow, UnboundedScale: 18, OwnScale: true}
	if fromTable {
		opts.UnboundedScale = 10 // as SeaTunnel's PostgreSQL catalog reads an unbounded numeric
	}
	cols := make(pgColumns, len(fields))
	for i, f := range fields {
		cols[i] = pgwire.ColumnOf(f, opts)
	}
	t.cols = cols
	attrs, err := pgwire.ColumnAttributes(ctx, pg, fields)
	if err != nil {
		return nil, fmt.Errorf("%s: read the catalog: %w", where, err)
	}
	typeNames, err := pgwire.TypeNames(ctx, pg, fields)
	if err != nil {
		return nil, fmt.Errorf("%s: name the column types: %w", where, err)
	}
	tbl := &catalog.Table{Path: path}
	for i, c := range cols {
		col := catalog.Column{Name: c.Name, Type: c.Type, Nullable: true, Length: c.Length, Scale: c.Scale, SourceType: typeNames[i]}
		if a, ok := attrs[pgwire.AttrKey{Rel: fields[i].TableOID, Num: fields[i].TableAttributeNumber}]; ok {
			col.Nullable = !a.NotNull
			if fromTable {
				col.Comment = a.Comment
			}
		}
		tbl.Columns = append(tbl.Columns, col)
	}
	if e.tablePath == "" {
		// as PostgreSQL's JDBC driver names a query's table: by its first column's table
		tbl.Path = catalog.TablePath{Database: "default", Schema: "default", Table: "default"}
		if oid := fields[0].TableOID; oid != 0 {
			var name string
			if err := pg.QueryRow(ctx, "SELECT relname FROM pg_catalog.pg_class WHERE oid = $1", oid).Scan(&name); err == nil {
				tbl.Path = catalog.TablePath{Table: name}
			}
		}
	}
	if rel != nil {
		if err := pgwire.ReadTableKeys(ctx, pg, rel.OID, tbl); err != nil {
			return nil, fmt.Errorf("%s: read the keys of %s.%s: %w", where, rel.Schema, rel.Name, err)
		}
	}
	t.table = tbl
	if rel != nil && fromTable && e.where == "" {
		t.rel = strconv.FormatUint(uint64(rel.OID), 10)
	}
	return t, nil
}

// textOIDs are the string types compared as they are; other types read as strings are
// compared by their text.
var textOIDs = map[uint32]bool{pgtype.TextOID: true, pgtype.VarcharOID: true, pgtype.BPCharOID: true, pgtype.NameOID: true}

// splitKeyOf says how column c splits; ok is false for a type that does not split. The
// types are SeaTunnel's split types (integers, decimals, floats, strings, dates), and
// timestamps when explicit (a partition_column: SeaTunnel picks no timestamp column
// itself).
func (cols pgColumns) splitKey(i int, explicit bool) (splitKey, bool) {
	c := &cols[i]
	k := splitKey{expr: pgwire.QuoteIdent(c.Name)}
	switch c.Type.Kind {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		k.kind = keyInt
	case types.Decimal:
		switch {
		case c.OID == pgwire.MoneyOID:
			k.kind, k.expr = keyNumber, k.expr+"::numeric"
		case c.Type.Scale == 0 && c.Type.Precision > 0 && c.Type.Precision <= 18:
			k.kind = keyInt
		default:
			k.kind = keyNumber
		}
	case types.Float, types.Double:
		k.kind = keyNumber
	case types.String:
		k.kind = keyString
		if !textOIDs[c.OID] {
			k.expr += "::text"
		}
	case types.Date:
		k.kind, k.sqlType = keyDate, "date"
	case types.Timestamp:
		if !explicit {
			return k, false
		}
		k.kind, k.sqlType = keyTime, "timestamp"
		if c.OID == pgtype.TimestamptzOID {
			k.sqlType = "timestamptz"
		}
	default:
		return k, false
	}
	return k, true
}

// pgCursor reads splits through pgwire: a split's rows stream from the server in the
// binary format as they are read.
type pgCursor struct {
	cfg  *connConfig
	pg   *pgx.Conn
	rows *pgwire.Rows
	dec  pgwire.Decoder
}

func (c *connConfig) newCursor() splitCursor { return &pgCursor{cfg: c} }

func (c *pgCursor) start(ctx context.Context, sql string, t *srcTable) error {
	if c.pg == nil {
		pg, err := c.cfg.connect(ctx)
		if err != nil {
			return err
		}
		c.pg = pg
	}
	rows, err := pgwire.Query(ctx, c.pg.PgConn(), sql, t.cols.(pgColumns))
	if err != nil {
		return err
	}
	c.rows = rows
	return nil
}

func (c *pgCursor) read(out *row.Batch, t *srcTable) (bool, error) {
	c.dec.Batch = out
	done, err := c.rows.Read(out, t.id, &c.dec)
	c.dec.Batch = nil
	if done || err != nil {
		c.rows = nil
	}
	return done, err
}

func (c *pgCursor) close() {
	c.rows = nil
	if c.pg != nil {
		pgwire.Close(c.pg)
		c.pg = nil
	}
}
