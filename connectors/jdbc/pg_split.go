package jdbc

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// The splitting of a PostgreSQL table: the SQL of its queries, and of a split's condition.

func (c *pgSourceConn) queryRow(ctx context.Context, q string, args ...any) rowScanner {
	return c.pg.QueryRow(ctx, q, args...)
}

func (c *pgSourceConn) queryStrings(ctx context.Context, q string) ([]string, error) {
	rows, err := c.pg.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func (c *connConfig) text(expr string, _ keyKind) string { return expr + "::text" }

func (c *connConfig) literal(_ keyKind, v string) string { return quoteLiteral(v) }

// explain is PostgreSQL's error with its detail and hint.
func (c *pgSourceConn) explain(err error) error { return errors.New(pgwire.ErrorText(err)) }

func (c *pgSourceConn) fewRowsOneSplit() bool { return false }

// estimate is the row count of the table's statistics (reltuples; 0 before it was
// analyzed).
func (c *pgSourceConn) estimate(ctx context.Context, t *srcTable) (int64, error) {
	oid, err := strconv.ParseUint(t.rel, 10, 32)
	if err != nil {
		return 0, err
	}
	var n float64
	if err := c.pg.QueryRow(ctx, "SELECT reltuples FROM pg_catalog.pg_class WHERE oid = $1", uint32(oid)).Scan(&n); err != nil {
		return 0, err
	}
	return max(int64(n), 0), nil
}

func (c *pgSourceConn) days(ctx context.Context, lo, hi string) (int64, error) {
	var days int64
	err := c.pg.QueryRow(ctx, "SELECT "+quoteLiteral(hi)+"::date - "+quoteLiteral(lo)+"::date + 1").Scan(&days)
	return days, err
}

func (c *pgSourceConn) dayBounds(ctx context.Context, lo string, step, n int64) ([]string, error) {
	return c.queryStrings(ctx, fmt.Sprintf("SELECT (%s::date + g * %d)::text FROM generate_series(1, %d) g ORDER BY g", quoteLiteral(lo), step, n))
}

// evenBounds cuts dates and timestamps in PostgreSQL's arithmetic, in the column's type.
func (c *pgSourceConn) evenBounds(ctx context.Context, t *srcTable, lo, hi string, n int) ([]string, error) {
	typ := t.split.sqlType
	return c.queryStrings(ctx, fmt.Sprintf("SELECT (lo + (hi - lo) * g / %d)::text FROM (SELECT %s::%s AS lo, %s::%s AS hi) b, generate_series(1, %d) g ORDER BY g",
		n, quoteLiteral(lo), typ, quoteLiteral(hi), typ, n-1))
}

// sample numbers the column's values with row_number.
func (c *pgSourceConn) sample(ctx context.Context, t *srcTable, rate int64) ([]string, bool, error) {
	e := t.split.expr
	q := fmt.Sprintf("SELECT x.s::text AS b FROM (SELECT %s AS s, row_number() OVER () AS rn FROM (%s\n) st_jdbc_split WHERE %s IS NOT NULL) x WHERE x.rn %% %d = 0 ORDER BY x.s",
		e, t.sql, e, rate)
	out, err := c.queryStrings(ctx, q)
	return out, true, err
}

// boundExpr is the split column's expression: cast to text, collated for charset_based
// splits.
func (c *connConfig) boundExpr(t *srcTable) string { return t.split.expr }

// hashCondition buckets a string column by hashtext, as SeaTunnel's fixed splitter does.
func (c *connConfig) hashCondition(col string, mod, h int) string {
	return fmt.Sprintf("abs(hashtext(%s::text)::int8) %% %d = %d", col, mod, h)
}
