package jdbc

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// plan plans the splits of every table, in the order of the options, on one connection.
func (s *mySource) plan(ctx context.Context) ([]connector.Split, error) {
	var db *sql.DB
	var conn *sql.Conn
	defer func() {
		if conn != nil {
			conn.Close()
		}
		if db != nil {
			db.Close()
		}
	}()
	var out []connector.Split
	for _, t := range s.tables {
		if t.key != "" && conn == nil {
			var err error
			if db, err = s.conn.open(ctx, 1); err != nil {
				return nil, fmt.Errorf("%s: %w", s.where, err)
			}
			if conn, err = db.Conn(ctx); err != nil {
				return nil, fmt.Errorf("%s: %w", s.where, err)
			}
		}
		p := s.planner(conn, t)
		splits, err := p.plan(ctx)
		if err != nil {
			return nil, err
		}
		for i := range splits {
			out = append(out, splits[i].split(i))
		}
	}
	return out, nil
}

// myPlanner cuts one MySQL table into splits: the queries are MySQL's, the arithmetic of
// the boundaries is the PostgreSQL planner's (its methods that query nothing).
type myPlanner struct {
	s    *mySource
	conn *sql.Conn
	t    *myTable
	cut  *splitPlanner // ranges, hash buckets, even and charset-based splits
}

func (s *mySource) planner(conn *sql.Conn, t *myTable) *myPlanner {
	st := &srcTable{id: t.id, key: t.key, fixed: t.fixed, parts: t.parts, lower: t.lower, upper: t.upper,
		split: splitKey{kind: t.kind, nullable: t.null, charset: t.kind == keyString && s.tuning.charset && !t.fixed}}
	src := &Source{where: s.where, splitSize: s.splitSize, tuning: s.tuning}
	return &myPlanner{s: s, conn: conn, t: t, cut: &splitPlanner{s: src, t: st}}
}

func (p *myPlanner) plan(ctx context.Context) ([]srcSplit, error) {
	switch {
	case p.t.key == "":
		return p.cut.whole(), nil
	case p.t.fixed && p.t.kind == keyInt:
		return p.fixedInt(ctx)
	case p.t.fixed && p.t.kind == keyString:
		return p.cut.hashSplits(), nil
	case p.t.fixed:
		return p.fixedRanges(ctx)
	}
	return p.dynamic(ctx)
}

func (p *myPlanner) fail(what string, err error) error {
	return fmt.Errorf("%s: table %s: %s of split column %s: %w", p.s.where, p.t.id, what, p.t.key, err)
}

func (p *myPlanner) col() string  { return mysqlQuote(p.t.key) }
func (p *myPlanner) from() string { return "(" + p.t.sql + "\n) st_jdbc_split" }

// text is the SQL that reads the split column's values as text.
func (p *myPlanner) text(e string) string {
	if p.t.kind == keyTime {
		return "DATE_FORMAT(" + e + ", '%Y-%m-%d %H:%i:%s.%f')"
	}
	return "CAST(" + e + " AS CHAR)"
}

// minMax reads the column's smallest and largest value as text; nil without values.
func (p *myPlanner) minMax(ctx context.Context) (lo, hi *string, err error) {
	c := p.col()
	q := "SELECT " + p.text("MIN("+c+")") + ", " + p.text("MAX("+c+")") + " FROM " + p.from()
	if err := p.conn.QueryRowContext(ctx, q).Scan(&lo, &hi); err != nil {
		return nil, nil, p.fail("read the range", err)
	}
	return lo, hi, nil
}

// fixedInt cuts lo..hi into partition_num integer ranges; a bound taken from the data
// leaves that side open.
func (p *myPlanner) fixedInt(ctx context.Context) ([]srcSplit, error) {
	t := p.t
	lo, hi := parseIntBound(t.lower), parseIntBound(t.upper)
	if lo == nil || hi == nil {
		minV, maxV, err := p.minMax(ctx)
		if err != nil {
			return nil, err
		}
		if lo == nil {
			lo = parseIntBound(minV)
		}
		if hi == nil {
			hi = parseIntBound(maxV)
		}
	}
	if lo == nil || hi == nil {
		return p.cut.whole(), nil
	}
	splits := rangeSplits(t.id, t.key, pgwire.EvenRanges(*lo, *hi, t.parts))
	if t.lower == nil {
		splits[0].Lo, splits[0].Nulls = nil, t.null
	}
	if t.upper == nil {
		splits[len(splits)-1].Hi = nil
	}
	return splits, nil
}

// fixedRanges cuts lo..hi of a decimal, float, date or timestamp column into partition_num
// ranges of even width; bounds that are set are kept to (the upper one inclusive).
func (p *myPlanner) fixedRanges(ctx context.Context) ([]srcSplit, error) {
	t := p.t
	lo, hi := t.lower, t.upper
	if lo == nil || hi == nil {
		minV, maxV, err := p.minMax(ctx)
		if err != nil {
			return nil, err
		}
		if lo == nil {
			lo = minV
		}
		if hi == nil {
			hi = maxV
		}
	}
	if lo == nil || hi == nil {
		return p.cut.whole(), nil
	}
	bounds, err := evenTextBounds(t.kind, *lo, *hi, t.parts)
	if err != nil {
		return nil, p.fail("cut the range", err)
	}
	splits := p.cut.ranges(bounds)
	if t.lower != nil {
		splits[0].From, splits[0].Nulls = t.lower, false
	}
	if t.upper != nil {
		last := &splits[len(splits)-1]
		last.To, last.ToIncl = t.upper, true
	}
	return splits, nil
}

// evenTextBounds are the n-1 boundaries that cut lo..hi into n ranges of even width, for
// numbers, dates (by days) and timestamps (by microseconds).
func evenTextBounds(kind keyKind, lo, hi string, n int) ([]string, error) {
	if n < 2 {
		return nil, nil
	}
	out := make([]string, 0, n-1)
	switch kind {
	case keyDate, keyTime:
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
	l, okL := new(big.Rat).SetString(lo)
	h, okH := new(big.Rat).SetString(hi)
	if !okL || !okH {
		return nil, nil
	}
	digits := max(fracDigits(lo), fracDigits(hi))
	width := new(big.Rat).Sub(h, l)
	for g := 1; g < n; g++ {
		b := new(big.Rat).Mul(width, big.NewRat(int64(g), int64(n)))
		out = append(out, b.Add(b, l).FloatString(digits))
	}
	return out, nil
}

// dynamic cuts the table into splits of about split.size rows as SeaTunnel's dynamic
// splitter does: an evenly distributed numeric column into ranges of even width, a string
// column charset_based when asked, anything else at boundaries read split by split.
func (p *myPlanner) dynamic(ctx context.Context) ([]srcSplit, error) {
	lo, hi, err := p.minMax(ctx)
	if err != nil {
		return nil, err
	}
	if lo == nil || hi == nil || *lo == *hi {
		return p.cut.whole(), nil
	}
	rows, err := p.rowCount(ctx)
	if err != nil {
		return nil, err
	}
	size, tune := p.s.splitSize, p.s.tuning
	if rows <= size {
		return p.cut.whole(), nil
	}
	switch p.t.kind {
	case keyDate:
		return p.dateSplits(*lo, *hi, rows)
	case keyString:
		if p.cut.t.split.charset {
			return p.cut.charsetSplits(*lo, *hi, rows), nil
		}
	case keyInt, keyNumber:
		if f, ok := distributionFactor(*lo, *hi, rows); ok && f >= tune.factorLower && f <= tune.factorUpper {
			return p.cut.evenSplits(*lo, *hi, max(int64(f*float64(size)), 1)), nil
		}
	}
	return p.queriedSplits(ctx, *lo, *hi)
}

// dateSplits cuts a date column by days, as the PostgreSQL planner does.
func (p *myPlanner) dateSplits(lo, hi string, rows int64) ([]srcSplit, error) {
	l, err := time.Parse(time.DateOnly, lo)
	if err != nil {
		return nil, p.fail("read the range", err)
	}
	h, err := time.Parse(time.DateOnly, hi)
	if err != nil {
		return nil, p.fail("read the range", err)
	}
	days := int64(h.Sub(l)/(24*time.Hour)) + 1
	step := dateStep(days, rows, p.s.splitSize)
	if days <= step {
		return p.cut.whole(), nil
	}
	bounds := make([]string, 0, (days-1)/step)
	for g := int64(1); g <= (days-1)/step; g++ {
		bounds = append(bounds, l.AddDate(0, 0, int(g*step)).Format(time.DateOnly))
	}
	return p.cut.ranges(bounds), nil
}

// rowCount is the row estimate of a table read whole (its statistics, counting when they
// say nothing), else the count of the rows.
func (p *myPlanner) rowCount(ctx context.Context) (int64, error) {
	if p.t.whole != "" {
		var n sql.NullInt64
		db, table := p.t.table.Path.Database, p.t.table.Path.Table
		err := p.conn.QueryRowContext(ctx, "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", db, table).Scan(&n)
		if err != nil {
			return 0, fmt.Errorf("%s: table %s: read its statistics: %w", p.s.where, p.t.id, err)
		}
		if n.Valid && n.Int64 > 0 {
			return n.Int64, nil
		}
	}
	var n int64
	if err := p.conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM ("+p.t.sql+"\n) st_jdbc_count").Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: table %s: count its rows: %w", p.s.where, p.t.id, err)
	}
	return n, nil
}

// queriedSplits cuts at boundaries read one after the other: each the largest of the next
// split.size values (or the next larger value when that is the boundary before), until
// the maximum.
func (p *myPlanner) queriedSplits(ctx context.Context, lo, hi string) ([]srcSplit, error) {
	var bounds []string
	end, err := p.nextBound(ctx, lo, hi)
	for ; err == nil && end != nil && len(bounds) < maxSplits; end, err = p.nextBound(ctx, *end, hi) {
		bounds = append(bounds, *end)
	}
	if err != nil {
		return nil, err
	}
	return p.cut.ranges(bounds), nil
}

// nextBound is the boundary after prev; nil once it would reach hi.
func (p *myPlanner) nextBound(ctx context.Context, prev, hi string) (*string, error) {
	c := p.col()
	prevLit, hiLit := p.literal(prev), p.literal(hi)
	q := fmt.Sprintf("SELECT %s, v >= %s FROM (SELECT MAX(s) AS v FROM (SELECT %s AS s FROM %s WHERE %s >= %s ORDER BY %s LIMIT %d) x) y",
		p.text("v"), hiLit, c, p.from(), c, prevLit, c, p.s.splitSize)
	var v *string
	var last *bool
	if err := p.conn.QueryRowContext(ctx, q).Scan(&v, &last); err != nil {
		return nil, p.fail("find a split boundary", err)
	}
	if v != nil && *v == prev {
		q = fmt.Sprintf("SELECT %s, MIN(%s) >= %s FROM %s WHERE %s > %s", p.text("MIN("+c+")"), c, hiLit, p.from(), c, prevLit)
		if err := p.conn.QueryRowContext(ctx, q).Scan(&v, &last); err != nil {
			return nil, p.fail("find a split boundary", err)
		}
	}
	if v == nil || last == nil || *last {
		return nil, nil
	}
	return v, nil
}

// literal is a boundary as SQL: a number as it is, anything else as a UTF-8 string.
func (p *myPlanner) literal(v string) string { return mysqlBoundLiteral(p.t.kind, v) }

func mysqlBoundLiteral(kind keyKind, v string) string {
	if kind == keyInt || kind == keyNumber {
		if _, ok := new(big.Rat).SetString(v); ok && !strings.ContainsAny(v, "/") {
			return v
		}
	}
	return string(mysqlStringLiteral(nil, v))
}

// mysqlCondition is the WHERE condition of a split's rows of table t, "" for all of them.
func mysqlCondition(d *srcSplit, t *myTable) string {
	if d.Key == "" {
		return ""
	}
	col := mysqlQuote(d.Key)
	kind := keyString
	if t != nil && t.key == d.Key {
		kind = t.kind
	}
	var conds []string
	switch {
	case d.Lo != nil || d.Hi != nil:
		if d.Lo != nil {
			conds = append(conds, col+" >= "+strconv.FormatInt(*d.Lo, 10))
		}
		if d.Hi != nil {
			conds = append(conds, col+" <= "+strconv.FormatInt(*d.Hi, 10))
		}
	case d.Hash != nil:
		conds = append(conds, fmt.Sprintf("MOD(CRC32(%s), %d) = %d", col, d.Mod, *d.Hash))
	default:
		expr := col
		if t != nil && t.charset && t.key == d.Key {
			expr = "BINARY " + col // charset_based bounds compare byte by byte
		}
		if d.From != nil {
			conds = append(conds, expr+" >= "+mysqlBoundLiteral(kind, *d.From))
		}
		if d.To != nil {
			op := " < "
			if d.ToIncl {
				op = " <= "
			}
			conds = append(conds, expr+op+mysqlBoundLiteral(kind, *d.To))
		}
	}
	if len(conds) == 0 {
		return ""
	}
	cond := strings.Join(conds, " AND ")
	if d.Nulls {
		cond = "(" + cond + ") OR " + col + " IS NULL"
	}
	return cond
}

// mysqlStatement is the SQL that reads a split's rows of table t.
func mysqlStatement(d *srcSplit, t *myTable) string {
	cond := mysqlCondition(d, t)
	if cond == "" {
		return t.sql
	}
	return "SELECT * FROM (" + t.sql + "\n) st_jdbc_splitter WHERE " + cond
}
