package jdbc

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// maxSplits bounds the splits of one table.
const maxSplits = 1 << 20

// splitPlanner cuts one table into splits, on a connection of the enumerator.
type splitPlanner struct {
	s  *Source
	pg *pgx.Conn
	t  *srcTable
}

// planSplits cuts one table into splits, as the Source documentation describes.
func (s *Source) planSplits(ctx context.Context, pg *pgx.Conn, t *srcTable) ([]srcSplit, error) {
	if t.key == "" {
		return []srcSplit{{Table: t.id}}, nil
	}
	p := &splitPlanner{s: s, pg: pg, t: t}
	if t.fixed {
		return p.fixed(ctx)
	}
	return p.dynamic(ctx)
}

func (p *splitPlanner) whole() []srcSplit { return []srcSplit{{Table: p.t.id}} }

func (p *splitPlanner) fail(what string, err error) error {
	return fmt.Errorf("%s: table %s: %s of split column %s: %s", p.s.where, p.t.id, what, p.t.key, pgwire.ErrorText(err))
}

// from is the rows split, as a subquery.
func (p *splitPlanner) from() string { return "(" + p.t.sql + "\n) st_jdbc_split" }

// minMax reads the smallest and largest value of the split column as text; nil when the
// column holds no value.
func (p *splitPlanner) minMax(ctx context.Context) (lo, hi *string, err error) {
	e := p.t.split.expr
	err = p.pg.QueryRow(ctx, "SELECT min("+e+")::text, max("+e+")::text FROM "+p.from()).Scan(&lo, &hi)
	if err != nil {
		return nil, nil, p.fail("read the range", err)
	}
	return lo, hi, nil
}

// ranges turns ascending boundaries into splits: up to the first, between each two, from
// the last; the first also holds the NULLs of a nullable column.
func (p *splitPlanner) ranges(bounds []string) []srcSplit {
	out := make([]srcSplit, 0, len(bounds)+1)
	var from *string
	for i := range bounds {
		if from != nil && *from == bounds[i] {
			continue
		}
		out = append(out, srcSplit{Table: p.t.id, Key: p.t.key, From: from, To: &bounds[i]})
		from = &bounds[i]
	}
	out = append(out, srcSplit{Table: p.t.id, Key: p.t.key, From: from})
	out[0].Nulls = p.t.split.nullable
	return out
}

// ---- fixed partitioning: a query with partition_column ----

// fixed cuts the table into partition_num splits: integer ranges of even width, hash
// buckets of a string column, ranges of even width of any other column.
func (p *splitPlanner) fixed(ctx context.Context) ([]srcSplit, error) {
	switch p.t.split.kind {
	case keyInt:
		return p.fixedInt(ctx)
	case keyString:
		return p.hashSplits(), nil
	}
	return p.fixedRanges(ctx)
}

// fixedInt cuts lo..hi (the bounds set, else the column's minimum and maximum) into
// partition_num ranges; a bound taken from the data leaves that side open.
func (p *splitPlanner) fixedInt(ctx context.Context) ([]srcSplit, error) {
	t := p.t
	lo, hi := parseIntBound(t.lower), parseIntBound(t.upper)
	if lo == nil || hi == nil {
		k := t.split.expr
		var minK, maxK *int64
		if err := p.pg.QueryRow(ctx, "SELECT min("+k+")::int8, max("+k+")::int8 FROM "+p.from()).Scan(&minK, &maxK); err != nil {
			return nil, p.fail("read the range", err)
		}
		if lo == nil {
			lo = minK
		}
		if hi == nil {
			hi = maxK
		}
	}
	if lo == nil || hi == nil {
		return p.whole(), nil // no rows, and a bound to take from them
	}
	splits := rangeSplits(t.id, t.key, pgwire.EvenRanges(*lo, *hi, t.parts))
	if t.lower == nil {
		splits[0].Lo, splits[0].Nulls = nil, t.split.nullable
	}
	if t.upper == nil {
		splits[len(splits)-1].Hi = nil
	}
	return splits, nil
}

// parseIntBound reads a bound that resolveSplit checked is an integer; nil when unset.
func parseIntBound(v *string) *int64 {
	if v == nil {
		return nil
	}
	n, err := strconv.ParseInt(*v, 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// hashSplits reads a string column in partition_num buckets of its hashed text, as
// SeaTunnel's fixed splitter does; the first bucket also holds the NULLs.
func (p *splitPlanner) hashSplits() []srcSplit {
	out := make([]srcSplit, p.t.parts)
	for i := range out {
		h := i
		out[i] = srcSplit{Table: p.t.id, Key: p.t.key, Hash: &h, Mod: p.t.parts}
	}
	out[0].Nulls = p.t.split.nullable
	return out
}

// fixedRanges cuts lo..hi of a decimal, float, date or timestamp column into partition_num
// ranges of even width. Bounds that are set are kept to (the upper one inclusive); a bound
// taken from the data leaves that side open.
func (p *splitPlanner) fixedRanges(ctx context.Context) ([]srcSplit, error) {
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
		return p.whole(), nil
	}
	bounds, err := p.evenBounds(ctx, *lo, *hi, t.parts)
	if err != nil {
		return nil, err
	}
	splits := p.ranges(bounds)
	if t.lower != nil {
		splits[0].From, splits[0].Nulls = t.lower, false
	}
	if t.upper != nil {
		last := &splits[len(splits)-1]
		last.To, last.ToIncl = t.upper, true
	}
	return splits, nil
}

// evenBounds are the n-1 boundaries that cut lo..hi into n ranges of even width.
func (p *splitPlanner) evenBounds(ctx context.Context, lo, hi string, n int) ([]string, error) {
	if n < 2 {
		return nil, nil
	}
	if p.t.split.kind == keyNumber {
		l, okL := new(big.Rat).SetString(lo)
		h, okH := new(big.Rat).SetString(hi)
		if !okL || !okH {
			return nil, nil // NaN or infinity: one range
		}
		digits := max(fracDigits(lo), fracDigits(hi))
		width := new(big.Rat).Sub(h, l)
		out := make([]string, 0, n-1)
		for g := 1; g < n; g++ {
			b := new(big.Rat).Mul(width, big.NewRat(int64(g), int64(n)))
			out = append(out, b.Add(b, l).FloatString(digits))
		}
		return out, nil
	}
	typ := p.t.split.sqlType
	q := fmt.Sprintf("SELECT (lo + (hi - lo) * g / %d)::text FROM (SELECT %s::%s AS lo, %s::%s AS hi) b, generate_series(1, %d) g ORDER BY g",
		n, quoteLiteral(lo), typ, quoteLiteral(hi), typ, n-1)
	return p.strings(ctx, q, "cut the range")
}

// fracDigits counts the digits after the point of a number's text (20 for one in
// scientific notation, whose boundaries need not be short).
func fracDigits(s string) int {
	if strings.ContainsAny(s, "eE") {
		return 20
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

func (p *splitPlanner) strings(ctx context.Context, q, what string) ([]string, error) {
	rows, err := p.pg.Query(ctx, q)
	if err != nil {
		return nil, p.fail(what, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, p.fail(what, err)
	}
	return out, nil
}

// ---- dynamic splitting: SeaTunnel's DynamicChunkSplitter ----

// dynamic cuts the table into splits of about split.size rows, as SeaTunnel does: a
// numeric column whose distribution factor is within its bounds into ranges of even
// width, a date column by days, any other column (and a numeric one outside the bounds)
// at boundaries sampled from its values when many splits are expected, else at boundaries
// read split by split.
func (p *splitPlanner) dynamic(ctx context.Context) ([]srcSplit, error) {
	lo, hi, err := p.minMax(ctx)
	if err != nil {
		return nil, err
	}
	if lo == nil || hi == nil || *lo == *hi {
		return p.whole(), nil
	}
	rows, err := p.s.rowCount(ctx, p.pg, p.t)
	if err != nil {
		return nil, err
	}
	size, tune := p.s.splitSize, p.s.tuning
	switch p.t.split.kind {
	case keyDate:
		return p.dateSplits(ctx, *lo, *hi, rows)
	case keyString:
		if p.t.split.charset {
			return p.charsetSplits(*lo, *hi, rows), nil
		}
	case keyInt, keyNumber:
		if f, ok := distributionFactor(*lo, *hi, rows); ok && f >= tune.factorLower && f <= tune.factorUpper {
			if rows <= size {
				return p.whole(), nil
			}
			return p.evenSplits(*lo, *hi, max(int64(f*float64(size)), 1)), nil
		}
	}
	if shards := rows / size; tune.sampleThreshold < shards {
		return p.sampledSplits(ctx, shards)
	}
	return p.queriedSplits(ctx, *lo, *hi)
}

// distributionFactor is (max - min + 1) / rows, rounded up to four decimals; ok is false
// when a bound is not a finite number. With no rows the factor is the largest float.
func distributionFactor(lo, hi string, rows int64) (float64, bool) {
	l, okL := new(big.Rat).SetString(lo)
	h, okH := new(big.Rat).SetString(hi)
	if !okL || !okH {
		return 0, false
	}
	if rows <= 0 {
		return math.MaxFloat64, true
	}
	span := new(big.Rat).Sub(h, l)
	span.Add(span, big.NewRat(1, 1))
	f, _ := span.Quo(span, big.NewRat(rows, 1)).Float64()
	return math.Ceil(f*10000) / 10000, true
}

// evenSplits cuts lo..hi at lo + step, lo + 2 step, ... (SeaTunnel's evenly sized chunks).
func (p *splitPlanner) evenSplits(lo, hi string, step int64) []srcSplit {
	l, _ := new(big.Rat).SetString(lo)
	h, _ := new(big.Rat).SetString(hi)
	digits := fracDigits(lo)
	d := big.NewRat(step, 1)
	var bounds []string
	for end := new(big.Rat).Add(l, d); end.Cmp(h) <= 0 && len(bounds) < maxSplits; end.Add(end, d) {
		bounds = append(bounds, end.FloatString(digits))
	}
	return p.ranges(bounds)
}

// dateSplits cuts a date column by days: a split per day when the days hold split.size
// rows each, else about rows / split.size splits of even length.
func (p *splitPlanner) dateSplits(ctx context.Context, lo, hi string, rows int64) ([]srcSplit, error) {
	var days int64
	q := "SELECT " + quoteLiteral(hi) + "::date - " + quoteLiteral(lo) + "::date + 1"
	if err := p.pg.QueryRow(ctx, q).Scan(&days); err != nil {
		return nil, p.fail("count the days", err)
	}
	step := dateStep(days, rows, p.s.splitSize)
	if days <= step {
		return p.whole(), nil
	}
	q = fmt.Sprintf("SELECT (%s::date + g * %d)::text FROM generate_series(1, %d) g ORDER BY g", quoteLiteral(lo), step, (days-1)/step)
	bounds, err := p.strings(ctx, q, "cut the days")
	if err != nil {
		return nil, err
	}
	return p.ranges(bounds), nil
}

// dateStep is the days of a date split: one when the days hold split.size rows each, else
// enough for about rows / split.size splits of even length.
func dateStep(days, rows, size int64) int64 {
	step := int64(1)
	if days > 0 && rows/days < size {
		step = days / (rows/size + 1)
	}
	return max(step, 1, (days-1)/maxSplits+1)
}

// charsetWidth bounds the characters of a string the charset splitting reads.
const charsetWidth = 32

// charsetSplits cuts a string column into about rows / split.size ranges of even width,
// reading strings as numbers in base 95 whose digits are the characters 32 to 126 (others
// count as the nearest of them): SeaTunnel's charset-based string splitting.
func (p *splitPlanner) charsetSplits(lo, hi string, rows int64) []srcSplit {
	size := p.s.splitSize
	n := (rows + size - 1) / size
	width := min(max(len(lo), len(hi)), charsetWidth)
	a, b := base95(lo, width), base95(hi, width)
	if n <= 1 || a.Cmp(b) >= 0 {
		return p.whole()
	}
	n = min(n, maxSplits)
	span := new(big.Int).Sub(b, a)
	bounds := make([]string, 0, n-1)
	for k := int64(1); k < n; k++ {
		v := new(big.Int).Mul(span, big.NewInt(k))
		v.Quo(v, big.NewInt(n))
		bounds = append(bounds, fromBase95(v.Add(v, a), width))
	}
	return p.ranges(bounds)
}

// base95 reads the first width bytes of s (padded with spaces) as a base-95 number.
func base95(s string, width int) *big.Int {
	v, base := new(big.Int), big.NewInt(95)
	for i := 0; i < width; i++ {
		d := int64(0)
		if i < len(s) {
			d = int64(min(max(s[i], 32), 126)) - 32
		}
		v.Mul(v, base).Add(v, big.NewInt(d))
	}
	return v
}

// fromBase95 writes v as width characters 32 to 126.
func fromBase95(v *big.Int, width int) string {
	out := make([]byte, width)
	base, d := big.NewInt(95), new(big.Int)
	v = new(big.Int).Set(v)
	for i := width - 1; i >= 0; i-- {
		v.QuoRem(v, base, d)
		out[i] = byte(32 + d.Int64())
	}
	return string(out)
}

// sampledSplits cuts at boundaries sampled from the column: every inverse-rate-th value
// (the rate at most split.size), in order, spread over shards splits (SeaTunnel's
// efficient sharding through sampling).
func (p *splitPlanner) sampledSplits(ctx context.Context, shards int64) ([]srcSplit, error) {
	rate := min(p.s.tuning.inverseRate, p.s.splitSize)
	e := p.t.split.expr
	q := fmt.Sprintf("SELECT x.s::text AS b FROM (SELECT %s AS s, row_number() OVER () AS rn FROM %s WHERE %s IS NOT NULL) x WHERE x.rn %% %d = 0 ORDER BY x.s",
		e, p.from(), e, rate)
	sample, err := p.strings(ctx, q, "sample the values")
	if err != nil {
		return nil, err
	}
	if len(sample) == 0 {
		return p.whole(), nil
	}
	return p.ranges(sampleBounds(sample, shards)), nil
}

// sampleBounds spreads the boundaries of shards splits over an ordered sample: the sample
// itself when it has no more values than shards.
func sampleBounds(sample []string, shards int64) []string {
	per := float64(len(sample)) / float64(shards)
	if per <= 1 {
		return sample
	}
	bounds := make([]string, 0, shards-1)
	for i := int64(1); i < shards && len(bounds) < maxSplits; i++ {
		bounds = append(bounds, sample[min(int(float64(i)*per), len(sample)-1)])
	}
	return bounds
}

// queriedSplits cuts at boundaries read one after the other: each the largest of the next
// split.size values (or the next larger value when that is the boundary before), until
// the maximum.
func (p *splitPlanner) queriedSplits(ctx context.Context, lo, hi string) ([]srcSplit, error) {
	var bounds []string
	end, err := p.nextBound(ctx, lo, hi)
	for ; err == nil && end != nil && len(bounds) < maxSplits; end, err = p.nextBound(ctx, *end, hi) {
		bounds = append(bounds, *end)
	}
	if err != nil {
		return nil, err
	}
	return p.ranges(bounds), nil
}

// nextBound is the boundary after prev; nil once it would reach hi.
func (p *splitPlanner) nextBound(ctx context.Context, prev, hi string) (*string, error) {
	e, from := p.t.split.expr, p.from()
	q := fmt.Sprintf("SELECT v::text, v >= %s FROM (SELECT max(s) AS v FROM (SELECT %s AS s FROM %s WHERE %s >= %s ORDER BY s LIMIT %d) x) y",
		quoteLiteral(hi), e, from, e, quoteLiteral(prev), p.s.splitSize)
	var v *string
	var last *bool
	if err := p.pg.QueryRow(ctx, q).Scan(&v, &last); err != nil {
		return nil, p.fail("find a split boundary", err)
	}
	if v != nil && *v == prev {
		q = fmt.Sprintf("SELECT min(%s)::text, min(%s) >= %s FROM %s WHERE %s > %s", e, e, quoteLiteral(hi), from, e, quoteLiteral(prev))
		if err := p.pg.QueryRow(ctx, q).Scan(&v, &last); err != nil {
			return nil, p.fail("find a split boundary", err)
		}
	}
	if v == nil || last == nil || *last {
		return nil, nil
	}
	return v, nil
}

// rowCount estimates the rows of a table: from the statistics of a table read whole
// (counting when it was never analyzed), else by counting.
func (s *Source) rowCount(ctx context.Context, pg *pgx.Conn, t *srcTable) (int64, error) {
	if t.rel != 0 {
		var n float64
		err := pg.QueryRow(ctx, "SELECT reltuples FROM pg_catalog.pg_class WHERE oid = $1", t.rel).Scan(&n)
		if err != nil {
			return 0, fmt.Errorf("%s: table %s: read its statistics: %s", s.where, t.id, pgwire.ErrorText(err))
		}
		if n > 0 {
			return int64(n), nil
		}
	}
	var n int64
	if err := pg.QueryRow(ctx, "SELECT count(*) FROM ("+t.sql+"\n) st_jdbc_count").Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: table %s: count its rows: %s", s.where, t.id, pgwire.ErrorText(err))
	}
	return n, nil
}
