package pgwire

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/strait-dev/strait/catalog"
)

// Relation is a table (or view) found in the catalog.
type Relation struct {
	OID    uint32
	Schema string
	Name   string
}

// LookupRelation finds a table (or view) by name; nil when there is none.
func LookupRelation(ctx context.Context, pg *pgx.Conn, t TableName) (*Relation, error) {
	var r Relation
	err := pg.QueryRow(ctx, `SELECT c.oid, n.nspname, c.relname
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE c.oid = pg_catalog.to_regclass($1)`, t.Quoted()).Scan(&r.OID, &r.Schema, &r.Name)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// DescribeSQL returns the result columns of a statement without running it.
func DescribeSQL(ctx context.Context, pg *pgx.Conn, sql string) ([]pgconn.FieldDescription, error) {
	d, err := pg.PgConn().Prepare(ctx, "", sql, nil)
	if err != nil {
		return nil, err
	}
	return d.Fields, nil
}

// AttrKey names a table column: its table and its attribute number.
type AttrKey struct {
	Rel uint32
	Num uint16
}

// Attr is what ColumnAttributes reads of a table column.
type Attr struct {
	NotNull bool
	Comment string
}

// ColumnAttributes reads the NOT NULL flag and the comment of the table columns that result
// columns come straight from.
func ColumnAttributes(ctx context.Context, pg *pgx.Conn, fields []pgconn.FieldDescription) (map[AttrKey]Attr, error) {
	var rels []uint32
	var nums []int16
	for _, f := range fields {
		if f.TableOID != 0 && f.TableAttributeNumber > 0 {
			rels = append(rels, f.TableOID)
			nums = append(nums, int16(f.TableAttributeNumber))
		}
	}
	out := map[AttrKey]Attr{}
	if len(rels) == 0 {
		return out, nil
	}
	rows, err := pg.Query(ctx, `SELECT a.attrelid, a.attnum, a.attnotnull,
			coalesce(pg_catalog.col_description(a.attrelid, a.attnum), '')
		FROM unnest($1::oid[], $2::int2[]) AS k(rel, num)
		JOIN pg_catalog.pg_attribute a ON a.attrelid = k.rel AND a.attnum = k.num`, rels, nums)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k AttrKey
		var num int16
		var a Attr
		if err := rows.Scan(&k.Rel, &num, &a.NotNull, &a.Comment); err != nil {
			return nil, err
		}
		k.Num = uint16(num)
		out[k] = a
	}
	return out, rows.Err()
}

// keyNameRe matches the characters SeaTunnel drops from key names.
var keyNameRe = regexp.MustCompile(`[^a-zA-Z0-9_]`)

// CleanKeyName spells a key name as SeaTunnel's catalog does: letters, digits and
// underscores, without leading underscores.
func CleanKeyName(s string) string {
	return strings.TrimLeft(keyNameRe.ReplaceAllString(s, ""), "_")
}

// ReadTableKeys reads a table's primary key and its indexes on plain columns (as SeaTunnel's
// catalog lists them: the primary key's index too) into t.
func ReadTableKeys(ctx context.Context, pg *pgx.Conn, rel uint32, t *catalog.Table) error {
	rows, err := pg.Query(ctx, `SELECT i.relname, x.indisprimary, x.indisunique,
			array_agg(a.attname::text ORDER BY k.ord),
			array_agg((x.indoption[k.ord - 1] & 1) = 1 ORDER BY k.ord)
		FROM pg_catalog.pg_index x
		JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid
		CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
		LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
		WHERE x.indrelid = $1 AND k.ord <= x.indnkeyatts
		GROUP BY i.relname, x.indisprimary, x.indisunique
		HAVING bool_and(k.attnum > 0)
		ORDER BY x.indisprimary DESC, i.relname`, rel)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var primary, unique bool
		var cols []string
		var desc []bool
		if err := rows.Scan(&name, &primary, &unique, &cols, &desc); err != nil {
			return err
		}
		if primary {
			t.PrimaryKey = &catalog.PrimaryKey{Name: CleanKeyName(name), Columns: cols}
		}
		k := catalog.ConstraintKey{Name: CleanKeyName(name), Type: "INDEX_KEY"}
		if unique {
			k.Type = "UNIQUE_KEY"
		}
		for j, c := range cols {
			sort := "ASC"
			if j < len(desc) && desc[j] {
				sort = "DESC"
			}
			k.Columns = append(k.Columns, catalog.ConstraintCol{Name: c, Sort: sort})
		}
		t.ConstraintKeys = append(t.ConstraintKeys, k)
	}
	return rows.Err()
}

// TypeNames names the types of result columns as PostgreSQL writes them (format_type:
// "numeric(10,2)", "character varying(255)", "geometry(Point,4326)", "integer[]").
func TypeNames(ctx context.Context, pg *pgx.Conn, fields []pgconn.FieldDescription) ([]string, error) {
	oids := make([]uint32, len(fields))
	mods := make([]int32, len(fields))
	for i, f := range fields {
		oids[i], mods[i] = f.DataTypeOID, f.TypeModifier
	}
	rows, err := pg.Query(ctx, `SELECT coalesce(pg_catalog.format_type(k.o, nullif(k.m, -1)), '')
		FROM unnest($1::oid[], $2::int4[]) WITH ORDINALITY AS k(o, m, n) ORDER BY k.n`, oids, mods)
	if err != nil {
		return nil, err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	if len(names) != len(fields) {
		return nil, fmt.Errorf("%d type names for %d columns", len(names), len(fields))
	}
	return names, nil
}
