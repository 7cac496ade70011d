package jdbc

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/connectors/internal/keyrange"
)

// maxSplits bounds the splits of one table.
const maxSplits = 1 << 20

// splitPlanner cuts one table into splits, on a connection of the enumerator. What it
// reads of the table are the queries of the connection's driver, which writes their SQL;
// the arithmetic of the boundaries is its own.
type splitPlanner struct {
	s    *Source
	conn sourceConn
	t    *srcTable
}

// planSplits cuts one table into splits, as the Source documentation describes.
func (s *Source) planSplits(ctx context.Context, conn sourceConn, t *srcTable) ([]srcSplit, error) {
	if t.key == "" {
		return []srcSplit{{Table: t.id}}, nil
	}
	p := &splitPlanner{s: s, conn: conn, t: t}
	if t.fixed {
		return p.fixed(ctx)
	}
	return p.dynamic(ctx)
}

func (p *splitPlanner) whole() []srcSplit { return []srcSplit{{Table: p.t.id}} }

func (p *splitPlanner) fail(what string, err error) error {
	return fmt.Errorf("%s: table %s: %s of split column %s: %w", p.s.where, p.t.id, what, p.t.key, p.conn.explain(err))
}

// from is the rows split, as a subquery.
func (p *splitPlanner) from() string { return "(" + p.t.sql + "\n) st_jdbc_split" }

// minMax reads the smallest and largest value of the split column as text; nil when the
// column holds no value.
func (p *splitPlanner) minMax(ctx context.Context) (lo, hi *string, err error) {
	e, k := p.t.split.expr, p.t.split.kind
	err = p.conn.queryRow(ctx, "SELECT "+p.s.db.text("min("+e+")", k)+", "+p.s.db.text("max("+e+")", k)+" FROM "+p.from()).Scan(&lo, &hi)
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
		return p.whole(), nil // no rows, and a bound to take from them
	}
	splits := rangeSplits(t.id, t.key, keyrange.Even(*lo, *hi, t.parts))
	if t.lower == nil {
		splits[0].Lo, splits[0].Nulls = nil, t.split.nullable
	}
	if t.upper == nil {
		splits[len(splits)-1].Hi = nil
	}
	return splits, nil
}

// parseIntBound reads a bound that resolveSplit checked is an integer, or an integer
// column's minimum or maximum; nil when unset.
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
	out, err := p.conn.evenBounds(ctx, p.t, lo, hi, n)
	if err != nil {
		return nil, p.fail("cut the range", err)
	}
	return out, nil
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
	rows, err := p.rowCount(ctx)
	if err != nil {
		return nil, err
	}
	size, tune := p.s.splitSize, p.s.tuning
	if rows <= size && p.conn.fewRowsOneSplit() {
		return p.whole(), nil
	}
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
		if splits, ok, err := p.sampledSplits(ctx, shards); ok || err != nil {
			return splits, err
		}
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
	days, err := p.conn.days(ctx, lo, hi)
	if err != nil {
		return nil, p.fail("count the days", err)
	}
	step := dateStep(days, rows, p.s.splitSize)
	if days <= step {
		return p.whole(), nil
	}
	bounds, err := p.conn.dayBounds(ctx, lo, step, (days-1)/step)
	if err != nil {
		return nil, p.fail("cut the days", err)
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
// efficient sharding through sampling); ok is false when the driver does not sample.
func (p *splitPlanner) sampledSplits(ctx context.Context, shards int64) (splits []srcSplit, ok bool, err error) {
	rate := min(p.s.tuning.inverseRate, p.s.splitSize)
	sample, ok, err := p.conn.sample(ctx, p.t, rate)
	if err != nil {
		return nil, true, p.fail("sample the values", err)
	}
	if !ok {
		return nil, false, nil
	}
	if len(sample) == 0 {
		return p.whole(), true, nil
	}
	return p.ranges(sampleBounds(sample, shards)), true, nil
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
	e, k, from := p.t.split.expr, p.t.split.kind, p.from()
	prevLit, hiLit := p.s.db.literal(k, prev), p.s.db.literal(k, hi)
	q := fmt.Sprintf("SELECT %s, v >= %s FROM (SELECT max(s) AS v FROM (SELECT %s AS s FROM %s WHERE %s >= %s ORDER BY s LIMIT %d) x) y",
		p.s.db.text("v", k), hiLit, e, from, e, prevLit, p.s.splitSize)
	var v *string
	var last *bool
	if err := p.conn.queryRow(ctx, q).Scan(&v, &last); err != nil {
		return nil, p.fail("find a split boundary", err)
	}
	if v != nil && *v == prev {
		q = fmt.Sprintf("SELECT %s, min(%s) >= %s FROM %s WHERE %s > %s", p.s.db.text("min("+e+")", k), e, hiLit, from, e, prevLit)
		if err := p.conn.queryRow(ctx, q).Scan(&v, &last); err != nil {
			return nil, p.fail("find a split boundary", err)
		}
	}
	if v == nil || last == nil || *last {
		return nil, nil
	}
	return v, nil
}

// rowCount estimates the rows of a table: from the statistics of a table read whole
// (counting when they say nothing), else by counting.
func (p *splitPlanner) rowCount(ctx context.Context) (int64, error) {
	t := p.t
	if t.rel != "" {
		n, err := p.conn.estimate(ctx, t)
		if err != nil {
			return 0, fmt.Errorf("%s: table %s: read its statistics: %w", p.s.where, t.id, p.conn.explain(err))
		}
		if n > 0 {
			return n, nil
		}
	}
	var n int64
	if err := p.conn.queryRow(ctx, "SELECT count(*) FROM ("+t.sql+"\n) st_jdbc_count").Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: table %s: count its rows: %w", p.s.where, t.id, p.conn.explain(err))
	}
	return n, nil
}
