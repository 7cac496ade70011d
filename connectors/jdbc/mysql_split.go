package jdbc

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// The splitting of a MySQL table: the SQL of its queries, and of a split's condition.
// Dates and timestamps are cut in Go; boundaries are not sampled, and a table of at most
// split.size rows (by its statistics) is read whole.

func (c *mySourceConn) queryRow(ctx context.Context, q string, args ...any) rowScanner {
	return c.conn.QueryRowContext(ctx, q, args...)
}

// text reads timestamps with their microseconds, anything else cast to text.
func (c *myConn) text(e string, kind keyKind) string {
	if kind == keyTime {
		return "DATE_FORMAT(" + e + ", '%Y-%m-%d %H:%i:%s.%f')"
	}
	return "CAST(" + e + " AS CHAR)"
}

// literal is a boundary as SQL: a number as it is, anything else as a UTF-8 string.
func (c *myConn) literal(kind keyKind, v string) string { return mysqlBoundLiteral(kind, v) }

func (c *mySourceConn) explain(err error) error { return err }

func (c *mySourceConn) fewRowsOneSplit() bool { return true }

func (c *mySourceConn) sample(context.Context, *srcTable, int64) ([]string, bool, error) {
	return nil, false, nil
}

// estimate is the table's TABLE_ROWS.
func (c *mySourceConn) estimate(ctx context.Context, t *srcTable) (int64, error) {
	var n sql.NullInt64
	db, table := t.table.Path.Database, t.table.Path.Table
	if err := c.conn.QueryRowContext(ctx, "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", db, table).Scan(&n); err != nil {
		return 0, err
	}
	return max(n.Int64, 0), nil
}

func (c *mySourceConn) days(_ context.Context, lo, hi string) (int64, error) {
	l, err := time.Parse(time.DateOnly, lo)
	if err != nil {
		return 0, err
	}
	h, err := time.Parse(time.DateOnly, hi)
	if err != nil {
		return 0, err
	}
	return int64(h.Sub(l)/(24*time.Hour)) + 1, nil
}

func (c *mySourceConn) dayBounds(_ context.Context, lo string, step, n int64) ([]string, error) {
	l, err := time.Parse(time.DateOnly, lo)
	if err != nil {
		return nil, err
	}
	bounds := make([]string, 0, n)
	for g := int64(1); g <= n; g++ {
		bounds = append(bounds, l.AddDate(0, 0, int(g*step)).Format(time.DateOnly))
	}
	return bounds, nil
}

// evenBounds cuts dates by days and timestamps by microseconds.
func (c *mySourceConn) evenBounds(_ context.Context, t *srcTable, lo, hi string, n int) ([]string, error) {
	return evenTimeBounds(t.split.kind, lo, hi, n)
}

// evenTimeBounds are the n-1 boundaries that cut lo..hi into n ranges of even width, for
// dates (by days) and timestamps (by microseconds).
func evenTimeBounds(kind keyKind, lo, hi string, n int) ([]string, error) {
	if n < 2 {
		return nil, nil
	}
	out := make([]string, 0, n-1)
	layout := "2006-01-02"
	if kind == keyTime {
		layout = "2006-01-02 15:04:05.999999"
	}
	l, err := time.Parse(layout, strings.TrimSpace(lo))
	if err != nil {
		return nil, fmt.Errorf("bound %q: %v", lo, err)
	}
	h, err := time.Parse(layout, strings.TrimSpace(hi))
	if err != nil {
		return nil, fmt.Errorf("bound %q: %v", hi, err)
	}
	span := h.Sub(l)
	if kind == keyDate {
		days := int64(span / (24 * time.Hour))
		for g := 1; g < n; g++ {
			out = append(out, l.AddDate(0, 0, int(days*int64(g)/int64(n))).Format(layout))
		}
		return out, nil
	}
	for g := 1; g < n; g++ {
		out = append(out, l.Add(span/time.Duration(n)*time.Duration(g)).Format("2006-01-02 15:04:05.000000"))
	}
	return out, nil
}

func mysqlBoundLiteral(kind keyKind, v string) string {
	if kind == keyInt || kind == keyNumber {
		if _, ok := new(big.Rat).SetString(v); ok && !strings.ContainsAny(v, "/") {
			return v
		}
	}
	return string(mysqlStringLiteral(nil, v))
}

// boundExpr is the split column, compared byte by byte for charset_based splits.
func (c *myConn) boundExpr(t *srcTable) string {
	if t.split.charset {
		return "BINARY " + t.split.expr
	}
	return t.split.expr
}

// hashCondition buckets a string column by CRC32.
func (c *myConn) hashCondition(col string, mod, h int) string {
	return fmt.Sprintf("MOD(CRC32(%s), %d) = %d", col, mod, h)
}
