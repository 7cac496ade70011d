package fake

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/internal/civil"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// rng is a reader's random source: a PCG generator plus a pool of random letters from
// which strings are cut, so a random string costs no allocation of its own.
type rng struct {
	pcg  rand.PCG
	pool string
	off  int
	buf  []byte
	err  error // the first value that could not be made (a date that does not exist)
}

func newRNG(seed1, seed2 uint64) *rng {
	r := &rng{}
	r.pcg.Seed(seed1, seed2)
	return r
}

func (r *rng) next() uint64 { return r.pcg.Uint64() }

// below returns a uniform integer in [0, n); n must be positive.
func (r *rng) below(n uint64) uint64 {
	hi, lo := bits.Mul64(r.pcg.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.pcg.Uint64(), n)
		}
	}
	return hi
}

// float32Unit is Java's Random.nextFloat: 24 random bits over 2^24.
func (r *rng) float32Unit() float32 { return float32(r.pcg.Uint64()>>40) / (1 << 24) }

// float64Unit is Java's Random.nextDouble: 53 random bits over 2^53.
func (r *rng) float64Unit() float64 { return float64(r.pcg.Uint64()>>11) / (1 << 53) }

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

const poolSize = 16 << 10

// letters returns n random ASCII letters, as RandomStringUtils.randomAlphabetic does.
func (r *rng) letters(n int) string {
	if n == 0 {
		return ""
	}
	if len(r.pool)-r.off < n {
		r.refill(n)
	}
	s := r.pool[r.off : r.off+n]
	r.off += n
	return s
}

func (r *rng) refill(n int) {
	size := poolSize
	if n > size {
		size = n
	}
	if cap(r.buf) < size {
		r.buf = make([]byte, size)
	}
	b := r.buf[:size]
	i := 0
	for ; i+4 <= len(b); i += 4 {
		x := r.pcg.Uint64()
		b[i] = letters[(x&0xffff*52)>>16]
		b[i+1] = letters[((x>>16)&0xffff*52)>>16]
		b[i+2] = letters[((x>>32)&0xffff*52)>>16]
		b[i+3] = letters[((x>>48)*52)>>16]
	}
	for ; i < len(b); i++ {
		b[i] = letters[r.below(52)]
	}
	r.pool = string(b)
	r.off = 0
}

// digits returns a uniform integer with n decimal digits at most, as a big.Int.
func (r *rng) digits(n int) *big.Int {
	if n <= 0 {
		return new(big.Int)
	}
	if n <= 18 {
		return new(big.Int).SetUint64(r.below(pow10u(n)))
	}
	v := new(big.Int).SetUint64(r.below(pow10u(18)))
	rest := n - 18
	for rest > 0 {
		k := rest
		if k > 18 {
			k = 18
		}
		v.Mul(v, new(big.Int).SetUint64(pow10u(k)))
		v.Add(v, new(big.Int).SetUint64(r.below(pow10u(k))))
		rest -= k
	}
	return v
}

func pow10u(n int) uint64 {
	p := uint64(1)
	for i := 0; i < n; i++ {
		p *= 10
	}
	return p
}

// genFunc makes one value. Generators are built once per reader per column, so the row loop
// does no lookups.
type genFunc func(r *rng) row.Value

// genBuilder builds the generators of one table for one reader.
type genBuilder struct {
	g    *genConfig
	year int64 // the current year, SeaTunnel's default for random dates
	now  func() time.Time
}

// intOptions returns the template and the range an integer of kind k is generated from
// (tinyint, smallint, int, or bigint for any other kind).
func (g *genConfig) intOptions(k types.Kind) (tmpl []int64, lo, hi int64) {
	switch k {
	case types.TinyInt:
		return g.tinyintTemplate, g.tinyintMin, g.tinyintMax
	case types.SmallInt:
		return g.smallintTemplate, g.smallintMin, g.smallintMax
	case types.Int:
		return g.intTemplate, g.intMin, g.intMax
	default:
		return g.bigintTemplate, g.bigintMin, g.bigintMax
	}
}

func pickInt(tmpl []int64) func(r *rng) int64 {
	n := uint64(len(tmpl))
	return func(r *rng) int64 { return tmpl[r.below(n)] }
}

// rangeInt draws from [lo, hi), or lo when they are equal (commons-lang RandomUtils.nextInt).
func rangeInt(lo, hi int64) func(r *rng) int64 {
	span := uint64(hi - lo)
	if span == 0 {
		return func(*rng) int64 { return lo }
	}
	return func(r *rng) int64 { return lo + int64(r.below(span)) }
}

func roundScale(f float64, scale int) float64 {
	p := math.Pow(10, float64(scale))
	if math.IsInf(f*p, 0) {
		return f
	}
	if f < 0 {
		return -math.Floor(-f*p+0.5) / p
	}
	return math.Floor(f*p+0.5) / p
}

// build returns the generator for a value of type t in a column described by spec.
func (b *genBuilder) build(t types.DataType, spec *columnSpec) genFunc {
	if spec.def != nil {
		if g := b.defaultGen(t, spec.def); g != nil {
			return g
		}
	}
	g := b.g
	switch t.Kind {
	case types.Null:
		return func(*rng) row.Value { return row.Value{} }
	case types.String:
		if len(g.stringTemplate) > 0 {
			tmpl := g.stringTemplate
			n := uint64(len(tmpl))
			return func(r *rng) row.Value { return row.Value{T: types.String, S: tmpl[r.below(n)]} }
		}
		n := g.stringLength
		if spec.length > 0 {
			n = int(spec.length)
		}
		return func(r *rng) row.Value { return row.Value{T: types.String, S: r.letters(n)} }
	case types.Boolean:
		return func(r *rng) row.Value { return row.Value{T: types.Boolean, I: int64(r.next() >> 63)} }
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		var draw func(r *rng) int64
		tmpl, lo, hi := g.intOptions(t.Kind)
		if len(tmpl) > 0 {
			draw = pickInt(tmpl)
		} else {
			draw = rangeInt(lo, hi)
		}
		k := t.Kind
		return func(r *rng) row.Value { return row.Value{T: k, I: draw(r)} }
	case types.Float:
		if len(g.floatTemplate) > 0 {
			tmpl := g.floatTemplate
			n := uint64(len(tmpl))
			return func(r *rng) row.Value { return row.FloatValue(float32(tmpl[r.below(n)])) }
		}
		lo, hi := float32(g.floatMin), float32(g.floatMax)
		if spec.hasScale {
			scale := spec.scale
			return func(r *rng) row.Value {
				return row.FloatValue(float32(roundScale(float64(lo+(hi-lo)*r.float32Unit()), scale)))
			}
		}
		return func(r *rng) row.Value { return row.FloatValue(lo + (hi-lo)*r.float32Unit()) }
	case types.Double:
		if len(g.doubleTemplate) > 0 {
			tmpl := g.doubleTemplate
			n := uint64(len(tmpl))
			return func(r *rng) row.Value { return row.DoubleValue(tmpl[r.below(n)]) }
		}
		lo, hi := g.doubleMin, g.doubleMax
		if spec.hasScale {
			scale := spec.scale
			return func(r *rng) row.Value { return row.DoubleValue(roundScale(lo+(hi-lo)*r.float64Unit(), scale)) }
		}
		return func(r *rng) row.Value { return row.DoubleValue(lo + (hi-lo)*r.float64Unit()) }
	case types.Decimal:
		// SeaTunnel writes precision-scale random digits, a point and scale random digits.
		p, s := t.Precision, t.Scale
		return func(r *rng) row.Value { return row.DecimalValue(r.digits(p), s) }
	case types.Bytes:
		n := g.bytesLength
		return func(r *rng) row.Value { return row.Value{T: types.Bytes, S: r.letters(n)} }
	case types.Date:
		dt := b.dateTime()
		return func(r *rng) row.Value {
			days, _ := dt(r)
			return row.DateValue(days)
		}
	case types.Time:
		dt := b.dateTime()
		return func(r *rng) row.Value {
			_, tod := dt(r)
			return row.TimeValue(tod)
		}
	case types.Timestamp:
		dt := b.dateTime()
		return func(r *rng) row.Value {
			days, tod := dt(r)
			return row.TimestampValue(days*int64(24*time.Hour) + tod)
		}
	case types.Array:
		elem := b.build(*t.Elem, spec)
		n := g.arraySize
		return func(r *rng) row.Value {
			elems := make([]row.Value, n)
			for i := range elems {
				elems[i] = elem(r)
			}
			return row.ArrayValue(elems)
		}
	case types.Map:
		key := b.build(*t.Key, spec)
		val := b.build(*t.Elem, spec)
		n := g.mapSize
		return func(r *rng) row.Value {
			m := &row.MapValue{Keys: make([]row.Value, 0, n), Vals: make([]row.Value, 0, n)}
			for i := 0; i < n; i++ {
				k := key(r)
				m.Put(k, val(r))
			}
			return row.MapOfValues(m)
		}
	case types.Row:
		fields := make([]genFunc, t.Row.Len())
		for i, ft := range t.Row.Types {
			fields[i] = b.build(ft, spec)
		}
		return func(r *rng) row.Value {
			vals := make([]row.Value, len(fields))
			for i, f := range fields {
				vals[i] = f(r)
			}
			return row.RowValue(vals)
		}
	}
	return func(*rng) row.Value { return row.Value{} }
}

// dateTime draws a random date and time of day as SeaTunnel does: the year from
// date.year.template or the current year, month 1..12, day 1..28, hour, minute and second
// uniformly, each from its template when one is set; no fraction of a second.
func (b *genBuilder) dateTime() func(r *rng) (days, tod int64) {
	g := b.g
	if len(g.yearTemplate)+len(g.monthTemplate)+len(g.dayTemplate) == 0 &&
		len(g.hourTemplate)+len(g.minuteTemplate)+len(g.secondTemplate) == 0 {
		dt := newDateTimeGen(b.year)
		return dt.draw
	}
	part := func(tmpl []int64, lo, hi int64) func(r *rng) int64 {
		if len(tmpl) > 0 {
			return pickInt(tmpl)
		}
		return rangeInt(lo, hi)
	}
	year := part(g.yearTemplate, b.year, b.year)
	month := part(g.monthTemplate, 1, 13)
	day := part(g.dayTemplate, 1, 29)
	hour := part(g.hourTemplate, 0, 24)
	minute := part(g.minuteTemplate, 0, 60)
	second := part(g.secondTemplate, 0, 60)
	return func(r *rng) (int64, int64) {
		y, m, d := year(r), month(r), day(r)
		if d > int64(civil.MonthLength(y, int(m))) && r.err == nil {
			// SeaTunnel's LocalDate.of fails the same way
			r.err = fmt.Errorf("date.day.template: day %d does not exist in %04d-%02d", d, y, m)
		}
		days := civil.EpochDay(y, int(m), int(d))
		tod := (hour(r)*3600 + minute(r)*60 + second(r)) * int64(time.Second)
		return days, tod
	}
}

// dateTimeGen is the template-free date and time generator: a uniform (month, day) pair
// among the 12 x 28 SeaTunnel draws from, and a uniform second of the day (which is a
// uniform hour, minute and second), two draws in all.
type dateTimeGen struct {
	monthStart [12]int64 // days since the epoch of the 1st of each month of the year
}

func newDateTimeGen(year int64) *dateTimeGen {
	g := &dateTimeGen{}
	for m := range g.monthStart {
		g.monthStart[m] = civil.EpochDay(year, m+1, 1)
	}
	return g
}

func (g *dateTimeGen) date(r *rng) int64 {
	md := r.below(12 * 28)
	return g.monthStart[md/28] + int64(md%28)
}

func (g *dateTimeGen) timeOfDay(r *rng) int64 { return int64(r.below(86400)) * int64(time.Second) }

func (g *dateTimeGen) draw(r *rng) (int64, int64) { return g.date(r), g.timeOfDay(r) }

// defaultGen returns a generator for a column with a defaultValue (the `columns` schema
// form): every row gets that value; CURRENT_DATE, CURRENT_TIME and CURRENT_TIMESTAMP read
// the clock for every row. It returns nil for types SeaTunnel generates regardless.
func (b *genBuilder) defaultGen(t types.DataType, def *hocon.Value) genFunc {
	text, _ := defaultText(def)
	now := b.now
	switch t.Kind {
	case types.Date:
		if strings.EqualFold(text, "CURRENT_DATE") {
			return func(*rng) row.Value { return row.DateOf(now()) }
		}
	case types.Time:
		if strings.EqualFold(text, "CURRENT_TIME") {
			return func(*rng) row.Value { return row.TimeOf(now()) }
		}
	case types.Timestamp:
		if strings.EqualFold(text, "CURRENT_TIMESTAMP") {
			return func(*rng) row.Value { return row.TimestampOf(now()) }
		}
	case types.Array, types.Map, types.Row, types.Null:
		return nil
	}
	v, err := defaultValue(def, t)
	if err != nil {
		return nil // checked when the source was configured
	}
	if v.T == types.Decimal {
		return func(*rng) row.Value { return v.Clone() }
	}
	return func(*rng) row.Value { return v }
}

func defaultText(def *hocon.Value) (string, bool) {
	switch def.Kind {
	case hocon.String, hocon.Number:
		return def.Str, true
	case hocon.Bool:
		if def.Bool {
			return "true", true
		}
		return "false", true
	}
	return "", false
}

// defaultValue converts a column's defaultValue to the column type as SeaTunnel does: from
// its text, bytes being the text's own bytes (not base64).
func defaultValue(def *hocon.Value, t types.DataType) (row.Value, error) {
	switch t.Kind {
	case types.Array, types.Map, types.Row, types.Null:
		return row.Value{}, nil
	}
	text, ok := defaultText(def)
	if !ok {
		return literal.Convert(def, t) // reports what was expected
	}
	if t.Kind == types.Bytes {
		return row.Value{T: types.Bytes, S: text}, nil
	}
	switch {
	case t.Kind == types.Date && strings.EqualFold(text, "CURRENT_DATE"),
		t.Kind == types.Time && strings.EqualFold(text, "CURRENT_TIME"),
		t.Kind == types.Timestamp && strings.EqualFold(text, "CURRENT_TIMESTAMP"):
		return row.Value{}, nil
	}
	return literal.Convert(&hocon.Value{Kind: hocon.String, Str: text, Pos: def.Pos}, t)
}

// Column operations: the row loop runs the common generators inline and calls a genFunc
// only for the rest.
const (
	opFunc uint8 = iota
	opNull
	opBool
	opIntRange
	opIntTemplate
	opString
	opStringTemplate
	opBytes
	opFloat
	opDouble
	opDate
	opTime
	opTimestamp
)

type colOp struct {
	code         uint8
	kind         types.Kind
	n            int
	lo           int64
	span         uint64
	ints         []int64
	strs         []string
	flo, fspan   float64
	f32lo, f32sp float32
	dt           *dateTimeGen
	gen          genFunc
}

// op returns the operation generating a column of type t.
func (b *genBuilder) op(t types.DataType, spec *columnSpec) colOp {
	g := b.g
	generic := colOp{code: opFunc, gen: b.build(t, spec)}
	if spec.def != nil {
		return generic
	}
	dtFree := len(g.yearTemplate)+len(g.monthTemplate)+len(g.dayTemplate)+
		len(g.hourTemplate)+len(g.minuteTemplate)+len(g.secondTemplate) == 0
	switch t.Kind {
	case types.Null:
		return colOp{code: opNull}
	case types.Boolean:
		return colOp{code: opBool}
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		tmpl, lo, hi := g.intOptions(t.Kind)
		if len(tmpl) > 0 {
			return colOp{code: opIntTemplate, kind: t.Kind, ints: tmpl, span: uint64(len(tmpl))}
		}
		return colOp{code: opIntRange, kind: t.Kind, lo: lo, span: uint64(hi - lo)}
	case types.String:
		if len(g.stringTemplate) > 0 {
			return colOp{code: opStringTemplate, strs: g.stringTemplate, span: uint64(len(g.stringTemplate))}
		}
		n := g.stringLength
		if spec.length > 0 {
			n = int(spec.length)
		}
		return colOp{code: opString, n: n}
	case types.Bytes:
		return colOp{code: opBytes, n: g.bytesLength}
	case types.Float:
		if len(g.floatTemplate) > 0 || spec.hasScale {
			return generic
		}
		lo, hi := float32(g.floatMin), float32(g.floatMax)
		return colOp{code: opFloat, f32lo: lo, f32sp: hi - lo}
	case types.Double:
		if len(g.doubleTemplate) > 0 || spec.hasScale {
			return generic
		}
		return colOp{code: opDouble, flo: g.doubleMin, fspan: g.doubleMax - g.doubleMin}
	case types.Date, types.Time, types.Timestamp:
		if !dtFree {
			return generic
		}
		code := map[types.Kind]uint8{types.Date: opDate, types.Time: opTime, types.Timestamp: opTimestamp}[t.Kind]
		return colOp{code: code, dt: newDateTimeGen(b.year)}
	}
	return generic
}

// fillRow generates one row's fields. f holds zeroed values (a fresh batch row).
func fillRow(f []row.Value, ops []colOp, r *rng) {
	f = f[:len(ops)]
	for j := range ops {
		op := &ops[j]
		v := &f[j]
		switch op.code {
		case opNull:
		case opBool:
			v.T, v.I = types.Boolean, int64(r.next()>>63)
		case opIntRange:
			v.T, v.I = op.kind, op.lo+int64(r.below(op.span))
		case opIntTemplate:
			v.T, v.I = op.kind, op.ints[r.below(op.span)]
		case opString:
			v.T, v.S = types.String, r.letters(op.n)
		case opStringTemplate:
			v.T, v.S = types.String, op.strs[r.below(op.span)]
		case opBytes:
			v.T, v.S = types.Bytes, r.letters(op.n)
		case opFloat:
			v.T, v.I = types.Float, int64(math.Float32bits(op.f32lo+op.f32sp*r.float32Unit()))
		case opDouble:
			v.T, v.I = types.Double, int64(math.Float64bits(op.flo+op.fspan*r.float64Unit()))
		case opDate:
			v.T, v.I = types.Date, op.dt.date(r)
		case opTime:
			v.T, v.I = types.Time, op.dt.timeOfDay(r)
		case opTimestamp:
			v.T, v.I = types.Timestamp, op.dt.date(r)*int64(24*time.Hour)+op.dt.timeOfDay(r)
		default:
			*v = op.gen(r)
		}
	}
}
