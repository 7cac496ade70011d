package jdbc

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// PostgreSQL type OIDs that pgtype does not name.
const (
	srcMoneyOID      = 790
	srcMoneyArrayOID = 791
)

// Wire formats of result columns.
const (
	srcTextFormat   int16 = pgtype.TextFormatCode
	srcBinaryFormat int16 = pgtype.BinaryFormatCode
)

// decKind says how the wire bytes of a column, or of an array element, become a value.
type decKind uint8

const (
	decText        decKind = iota // text form, or a binary form equal to it: the bytes as a string
	decBytea                      // bytea → bytes
	decBool                       // bool → boolean
	decInt2                       // int2 → smallint
	decInt4                       // int4 → int
	decInt8                       // int8 → bigint
	decFloat4                     // float4 → float
	decFloat8                     // float8 → double
	decNumeric                    // numeric → decimal at the column's scale
	decNumericInt                 // numeric(p,0), p ≤ 9, narrowed to int
	decNumericLong                // numeric(p,0), p ≤ 18, narrowed to bigint
	decMoney                      // money → decimal(30,2)
	decDate                       // date → date
	decTime                       // time → time
	decTimetz                     // timetz → time, in UTC
	decTimestamp                  // timestamp and timestamptz → timestamp (timestamptz in UTC)
	decUUID                       // binary uuid (array elements) → string
	decJSONB                      // binary jsonb (array elements): a version byte, then the text
	decArray                      // one-dimensional array of one of the kinds above
)

// srcColumn is one result column: what it becomes in the catalog table and how its values
// are read.
type srcColumn struct {
	name    string
	oid     uint32
	typmod  int32
	typ     types.DataType
	length  int64 // catalog length: 4 bytes per character of char(n) and varchar(n), as SeaTunnel counts
	scale   int   // catalog scale: the fractional digits of time and timestamp columns
	format  int16 // the wire format asked for
	kind    decKind
	elem    decKind // element kind of arrays
	elemOID uint32
	dscale  int // scale of decimal values (of the column, or of its elements)
}

// srcTypeOptions are the choices the mapping of PostgreSQL types depends on.
type srcTypeOptions struct {
	// narrow maps numeric(p,0) to int (p ≤ 9) or bigint (p ≤ 18): decimal_type_narrowing.
	narrow bool
	// unboundedScale is the scale of numeric columns without a declared precision: SeaTunnel
	// reads them as decimal(38,18) from a query and as decimal(38,10) from a table's catalog.
	unboundedScale int
}

// srcColumnOf maps one result column to a SeaTunnel type and a way to read it, as SeaTunnel's
// PostgresTypeConverter does. Types SeaTunnel has no mapping for are read in their text form
// as strings. Domains arrive as their base types.
func srcColumnOf(f pgconn.FieldDescription, opts srcTypeOptions) srcColumn {
	c := srcColumn{name: f.Name, oid: f.DataTypeOID, typmod: f.TypeModifier}
	if elem, ok := srcArrayElemOID[f.DataTypeOID]; ok {
		e := srcScalarOf(elem, f.TypeModifier, srcTypeOptions{unboundedScale: opts.unboundedScale})
		c.typ = types.ArrayOf(e.typ)
		c.format, c.kind, c.elemOID, c.dscale = srcBinaryFormat, decArray, elem, e.dscale
		c.elem = e.kind
		switch elem {
		case pgtype.UUIDOID:
			c.elem = decUUID
		case pgtype.JSONBOID:
			c.elem = decJSONB
		}
		return c
	}
	s := srcScalarOf(f.DataTypeOID, f.TypeModifier, opts)
	s.name, s.typmod = f.Name, f.TypeModifier
	return s
}

// srcScalarOf maps a non-array type with its type modifier.
func srcScalarOf(oid uint32, typmod int32, opts srcTypeOptions) srcColumn {
	c := srcColumn{oid: oid, format: srcBinaryFormat}
	switch oid {
	case pgtype.BoolOID:
		c.typ, c.kind = types.Of(types.Boolean), decBool
	case pgtype.Int2OID:
		c.typ, c.kind = types.Of(types.SmallInt), decInt2
	case pgtype.Int4OID:
		c.typ, c.kind = types.Of(types.Int), decInt4
	case pgtype.Int8OID:
		c.typ, c.kind = types.Of(types.BigInt), decInt8
	case pgtype.Float4OID:
		c.typ, c.kind = types.Of(types.Float), decFloat4
	case pgtype.Float8OID:
		c.typ, c.kind = types.Of(types.Double), decFloat8
	case pgtype.NumericOID:
		p, s, ok := srcNumericTypmod(typmod)
		switch {
		case !ok:
			c.typ, c.kind, c.dscale = types.DecimalOf(38, opts.unboundedScale), decNumeric, opts.unboundedScale
		case opts.narrow && s == 0 && p <= 9:
			c.typ, c.kind = types.Of(types.Int), decNumericInt
		case opts.narrow && s == 0 && p <= 18:
			c.typ, c.kind = types.Of(types.BigInt), decNumericLong
		default:
			c.typ, c.kind, c.dscale = types.DecimalOf(p, s), decNumeric, s
		}
	case srcMoneyOID:
		c.typ, c.kind, c.dscale, c.length = types.DecimalOf(30, 2), decMoney, 2, 30
	case pgtype.ByteaOID:
		c.typ, c.kind = types.Of(types.Bytes), decBytea
	case pgtype.DateOID:
		c.typ, c.kind = types.Of(types.Date), decDate
	case pgtype.TimeOID, pgtype.TimetzOID:
		c.typ, c.kind = types.Of(types.Time), decTime
		if oid == pgtype.TimetzOID {
			c.kind = decTimetz
		}
		if typmod >= 0 {
			c.scale = int(typmod)
		}
	case pgtype.TimestampOID, pgtype.TimestamptzOID:
		c.typ, c.kind = types.Of(types.Timestamp), decTimestamp
		if typmod >= 0 {
			c.scale = int(typmod)
		}
	default:
		// Character types, uuid, json, jsonb, xml, inet, interval and everything else:
		// strings in their text form.
		c.typ, c.kind, c.format = types.Of(types.String), decText, srcTextFormat
		switch oid {
		case pgtype.BPCharOID:
			c.length = 4
			if typmod >= 4 {
				c.length = 4 * int64(typmod-4)
			}
		case pgtype.VarcharOID:
			if typmod >= 4 {
				c.length = 4 * int64(typmod-4)
			}
		case pgtype.UUIDOID:
			c.length = 128
		}
	}
	return c
}

// srcNumericTypmod reads numeric(p,s) from a type modifier; ok is false for an unbounded
// numeric. A negative scale (PostgreSQL 15) rounds to tens, hundreds...: such values are
// integers of up to p-s digits.
func srcNumericTypmod(typmod int32) (p, s int, ok bool) {
	if typmod < 4 {
		return 0, 0, false
	}
	m := typmod - 4
	p = int(m>>16) & 0xffff
	s = int(m & 0x7ff)
	if s&0x400 != 0 {
		s -= 0x800
	}
	if s < 0 {
		p, s = p-s, 0
	}
	return p, s, true
}

// srcArrayElemOID maps the array types read as SeaTunnel arrays to their element types. Other
// arrays are read as strings in their text form.
var srcArrayElemOID = map[uint32]uint32{
	pgtype.BoolArrayOID:        pgtype.BoolOID,
	pgtype.Int2ArrayOID:        pgtype.Int2OID,
	pgtype.Int4ArrayOID:        pgtype.Int4OID,
	pgtype.Int8ArrayOID:        pgtype.Int8OID,
	pgtype.Float4ArrayOID:      pgtype.Float4OID,
	pgtype.Float8ArrayOID:      pgtype.Float8OID,
	pgtype.NumericArrayOID:     pgtype.NumericOID,
	srcMoneyArrayOID:           srcMoneyOID,
	pgtype.TextArrayOID:        pgtype.TextOID,
	pgtype.VarcharArrayOID:     pgtype.VarcharOID,
	pgtype.BPCharArrayOID:      pgtype.BPCharOID,
	pgtype.NameArrayOID:        pgtype.NameOID,
	pgtype.QCharArrayOID:       pgtype.QCharOID,
	pgtype.JSONArrayOID:        pgtype.JSONOID,
	pgtype.JSONBArrayOID:       pgtype.JSONBOID,
	pgtype.XMLArrayOID:         pgtype.XMLOID,
	pgtype.UUIDArrayOID:        pgtype.UUIDOID,
	pgtype.ByteaArrayOID:       pgtype.ByteaOID,
	pgtype.DateArrayOID:        pgtype.DateOID,
	pgtype.TimeArrayOID:        pgtype.TimeOID,
	pgtype.TimetzArrayOID:      pgtype.TimetzOID,
	pgtype.TimestampArrayOID:   pgtype.TimestampOID,
	pgtype.TimestamptzArrayOID: pgtype.TimestamptzOID,
}

// ---- decoding ----

// srcDecoder turns the wire values of result rows into row values. Scalars are decoded
// straight into the row's fields; strings and bytes are copied into shared blocks, and the
// elements of short arrays take their values from the batch's arena, so a row costs no
// allocation per value except for decimals (whose big.Int the value owns).
type srcDecoder struct {
	batch *row.Batch // the batch being filled, for array elements
	arena strings.Builder
}

// srcArenaBlock is the size of the blocks short strings are copied into: one allocation
// serves many values, and a string a consumer keeps holds at most this much memory.
const srcArenaBlock = 16 << 10

// keep returns a string with the content of b that stays valid after the connection reuses
// its buffer. A strings.Builder never changes bytes it has handed out, so earlier strings
// stay intact when the next block starts.
func (d *srcDecoder) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > srcArenaBlock/8 {
		return string(b)
	}
	if d.arena.Cap()-d.arena.Len() < len(b) {
		d.arena = strings.Builder{}
		d.arena.Grow(srcArenaBlock)
	}
	start := d.arena.Len()
	d.arena.Write(b)
	return d.arena.String()[start:]
}

// decode reads one non-null column value into v.
func (d *srcDecoder) decode(c *srcColumn, b []byte, v *row.Value) error {
	if c.kind == decArray {
		return d.decodeArray(c, b, v)
	}
	return d.scalar(c.kind, c.dscale, b, v)
}

// Days and microseconds between 1970-01-01 and PostgreSQL's epoch, 2000-01-01.
const (
	srcEpochDays   = 10957
	srcEpochMicros = 946684800 * 1000000
	srcDayMicros   = 86400 * 1000000
)

func srcLengthError(what string, n int) error {
	return fmt.Errorf("malformed %s value of %d bytes", what, n)
}

// scalar reads one non-null value of kind k into v; scale is the scale of decimals.
func (d *srcDecoder) scalar(k decKind, scale int, b []byte, v *row.Value) error {
	switch k {
	case decText:
		*v = row.Value{T: types.String, S: d.keep(b)}
	case decBytea:
		*v = row.Value{T: types.Bytes, S: d.keep(b)}
	case decBool:
		if len(b) != 1 {
			return srcLengthError("bool", len(b))
		}
		*v = row.BoolValue(b[0] != 0)
	case decInt2:
		if len(b) != 2 {
			return srcLengthError("int2", len(b))
		}
		*v = row.Value{T: types.SmallInt, I: int64(int16(binary.BigEndian.Uint16(b)))}
	case decInt4:
		if len(b) != 4 {
			return srcLengthError("int4", len(b))
		}
		*v = row.Value{T: types.Int, I: int64(int32(binary.BigEndian.Uint32(b)))}
	case decInt8:
		if len(b) != 8 {
			return srcLengthError("int8", len(b))
		}
		*v = row.Value{T: types.BigInt, I: int64(binary.BigEndian.Uint64(b))}
	case decFloat4:
		if len(b) != 4 {
			return srcLengthError("float4", len(b))
		}
		*v = row.Value{T: types.Float, I: int64(binary.BigEndian.Uint32(b))}
	case decFloat8:
		if len(b) != 8 {
			return srcLengthError("float8", len(b))
		}
		*v = row.Value{T: types.Double, I: int64(binary.BigEndian.Uint64(b))}
	case decNumeric:
		n, err := parseWireNumeric(b)
		if err != nil {
			return err
		}
		*v = row.DecimalValue(n.unscaled(scale), scale)
	case decNumericInt, decNumericLong:
		n, err := parseWireNumeric(b)
		if err != nil {
			return err
		}
		t := types.BigInt
		if k == decNumericInt {
			t = types.Int
		}
		i, ok := n.int64()
		if !ok || (t == types.Int && (i < math.MinInt32 || i > math.MaxInt32)) {
			return fmt.Errorf("numeric %s does not fit %s", n.String(), t)
		}
		*v = row.Value{T: t, I: i}
	case decMoney:
		if len(b) != 8 {
			return srcLengthError("money", len(b))
		}
		*v = row.DecimalValue(big.NewInt(int64(binary.BigEndian.Uint64(b))), 2)
	case decDate:
		if len(b) != 4 {
			return srcLengthError("date", len(b))
		}
		days := int32(binary.BigEndian.Uint32(b))
		if days == math.MaxInt32 || days == math.MinInt32 {
			return fmt.Errorf("date %s cannot be represented", srcInfinity(days > 0))
		}
		*v = row.DateValue(int64(days) + srcEpochDays)
	case decTime:
		if len(b) != 8 {
			return srcLengthError("time", len(b))
		}
		*v = row.TimeValue(srcTimeOfDay(int64(binary.BigEndian.Uint64(b))))
	case decTimetz:
		if len(b) != 12 {
			return srcLengthError("timetz", len(b))
		}
		// the zone is in seconds west of UTC
		us := int64(binary.BigEndian.Uint64(b)) + int64(int32(binary.BigEndian.Uint32(b[8:])))*1000000
		us %= srcDayMicros
		if us < 0 {
			us += srcDayMicros
		}
		*v = row.TimeValue(us * 1000)
	case decTimestamp:
		if len(b) != 8 {
			return srcLengthError("timestamp", len(b))
		}
		us := int64(binary.BigEndian.Uint64(b))
		if us == math.MaxInt64 || us == math.MinInt64 {
			return fmt.Errorf("timestamp %s cannot be represented", srcInfinity(us > 0))
		}
		ns, ok := srcTimestampNanos(us)
		if !ok {
			return fmt.Errorf("timestamp %s is outside the range of timestamps Strait holds (1677-09-21 to 2262-04-11)",
				time.Unix(us/1000000+srcEpochMicros/1000000, 0).UTC().Format("2006-01-02 15:04:05"))
		}
		*v = row.TimestampValue(ns)
	case decUUID:
		if len(b) != 16 {
			return srcLengthError("uuid", len(b))
		}
		var buf [36]byte
		srcFormatUUID(buf[:], b)
		*v = row.Value{T: types.String, S: d.keep(buf[:])}
	case decJSONB:
		if len(b) == 0 || b[0] != 1 {
			return fmt.Errorf("jsonb value in an unknown binary format")
		}
		*v = row.Value{T: types.String, S: d.keep(b[1:])}
	default:
		return fmt.Errorf("no decoder for kind %d", k)
	}
	return nil
}

func srcInfinity(positive bool) string {
	if positive {
		return "infinity"
	}
	return "-infinity"
}

// srcTimeOfDay converts microseconds since midnight to nanoseconds; 24:00:00, which
// PostgreSQL allows, becomes the last nanosecond of the day.
func srcTimeOfDay(us int64) int64 {
	if us >= srcDayMicros {
		return srcDayMicros*1000 - 1
	}
	return us * 1000
}

// srcTimestampNanos converts microseconds since 2000-01-01 to nanoseconds since 1970-01-01;
// ok is false outside the range int64 nanoseconds hold.
func srcTimestampNanos(us int64) (int64, bool) {
	const limit = math.MaxInt64 / 1000
	if us > limit-srcEpochMicros || us < -limit-srcEpochMicros {
		return 0, false
	}
	return (us + srcEpochMicros) * 1000, true
}

func srcFormatUUID(dst, u []byte) {
	const hexDigits = "0123456789abcdef"
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst[j] = '-'
			j++
		}
		dst[j], dst[j+1] = hexDigits[c>>4], hexDigits[c&15]
		j += 2
	}
}

// srcArenaElems is the most elements of an array taken from the batch's arena, which sizes
// its blocks for rows of that many values; longer arrays get their own slice.
const srcArenaElems = 32

// decodeArray reads a one-dimensional array in binary format.
func (d *srcDecoder) decodeArray(c *srcColumn, b []byte, v *row.Value) error {
	if len(b) < 12 {
		return srcLengthError("array", len(b))
	}
	ndim := int32(binary.BigEndian.Uint32(b))
	if ndim == 0 {
		*v = row.ArrayValue(d.batch.Values(0))
		return nil
	}
	if ndim != 1 {
		return fmt.Errorf("a %d-dimensional array cannot be read as array<%s>; only one-dimensional arrays can", ndim, c.typ.Elem)
	}
	if len(b) < 20 {
		return srcLengthError("array", len(b))
	}
	if oid := binary.BigEndian.Uint32(b[8:]); oid != c.elemOID {
		return fmt.Errorf("array of type %d where type %d was expected", oid, c.elemOID)
	}
	n := int(int32(binary.BigEndian.Uint32(b[12:])))
	if n < 0 || n > (len(b)-20)/4 {
		return fmt.Errorf("malformed array of %d elements in %d bytes", n, len(b))
	}
	var elems []row.Value
	if n <= srcArenaElems {
		elems = d.batch.Values(n)
	} else {
		elems = make([]row.Value, n)
	}
	p := 20
	for i := range elems {
		if p+4 > len(b) {
			return srcLengthError("array", len(b))
		}
		l := int(int32(binary.BigEndian.Uint32(b[p:])))
		p += 4
		if l < 0 {
			continue // null: the arena's values are zeroed
		}
		if p+l > len(b) {
			return srcLengthError("array", len(b))
		}
		if err := d.scalar(c.elem, c.dscale, b[p:p+l], &elems[i]); err != nil {
			return fmt.Errorf("element %d: %w", i+1, err)
		}
		p += l
	}
	*v = row.ArrayValue(elems)
	return nil
}

// ---- numeric ----

// wireNumeric is a finite numeric in PostgreSQL's binary form: base-10000 digits, the first
// worth 10000^weight.
type wireNumeric struct {
	neg    bool
	weight int
	digits []byte // 2 bytes per base-10000 digit
}

func parseWireNumeric(b []byte) (wireNumeric, error) {
	if len(b) < 8 {
		return wireNumeric{}, srcLengthError("numeric", len(b))
	}
	ndigits := int(int16(binary.BigEndian.Uint16(b)))
	weight := int(int16(binary.BigEndian.Uint16(b[2:])))
	sign := binary.BigEndian.Uint16(b[4:])
	if ndigits < 0 || len(b) != 8+2*ndigits {
		return wireNumeric{}, srcLengthError("numeric", len(b))
	}
	switch sign {
	case 0x0000, 0x4000:
	case 0xC000:
		return wireNumeric{}, fmt.Errorf("numeric NaN cannot be read as a decimal")
	case 0xD000, 0xF000:
		return wireNumeric{}, fmt.Errorf("numeric %s cannot be read as a decimal", srcInfinity(sign == 0xD000))
	default:
		return wireNumeric{}, fmt.Errorf("numeric with unknown sign %#x", sign)
	}
	return wireNumeric{neg: sign == 0x4000, weight: weight, digits: b[8:]}, nil
}

func (n wireNumeric) ndigits() int { return len(n.digits) / 2 }

func (n wireNumeric) digit(i int) uint64 { return uint64(binary.BigEndian.Uint16(n.digits[2*i:])) }

var srcPow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// unscaled returns the value times 10^scale, rounded half away from zero.
func (n wireNumeric) unscaled(scale int) *big.Int {
	nd := n.ndigits()
	if nd == 0 {
		return new(big.Int)
	}
	// value = digits * 10^exp, digits read as one base-10000 integer
	exp := 4*(n.weight-nd+1) + scale
	if nd <= 4 { // at most 16 decimal digits: fits a uint64
		var acc uint64
		for i := 0; i < nd; i++ {
			acc = acc*10000 + n.digit(i)
		}
		switch {
		case exp >= 0 && exp < len(srcPow10):
			hi, lo := bits.Mul64(acc, srcPow10[exp])
			if hi == 0 && lo <= math.MaxInt64 {
				return n.signed(new(big.Int).SetUint64(lo))
			}
		case exp < 0:
			if -exp >= len(srcPow10) {
				return new(big.Int) // below half a unit: acc < 10^16
			}
			d := srcPow10[-exp]
			q, r := acc/d, acc%d
			if 2*r >= d {
				q++
			}
			return n.signed(new(big.Int).SetUint64(q))
		}
	}
	acc := new(big.Int)
	tenK := big.NewInt(10000)
	var dg big.Int
	for i := 0; i < nd; i++ {
		acc.Mul(acc, tenK)
		acc.Add(acc, dg.SetUint64(n.digit(i)))
	}
	if exp >= 0 {
		acc.Mul(acc, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp)), nil))
	} else {
		d := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-exp)), nil)
		r := new(big.Int)
		acc.QuoRem(acc, d, r)
		if r.Lsh(r, 1).Cmp(d) >= 0 {
			acc.Add(acc, big.NewInt(1))
		}
	}
	return n.signed(acc)
}

func (n wireNumeric) signed(x *big.Int) *big.Int {
	if n.neg {
		x.Neg(x)
	}
	return x
}

// int64 returns the value when it is an integer within int64.
func (n wireNumeric) int64() (int64, bool) {
	nd := n.ndigits()
	var acc uint64
	for i := 0; i < nd; i++ {
		pos := n.weight - i // the power of 10000 of digit i
		dg := n.digit(i)
		if pos < 0 {
			if dg != 0 {
				return 0, false
			}
			continue
		}
		hi, lo := bits.Mul64(acc, 10000)
		if hi != 0 {
			return 0, false
		}
		acc, hi = bits.Add64(lo, dg, 0)
		if hi != 0 {
			return 0, false
		}
	}
	// trailing zero digits PostgreSQL leaves out
	for pos := n.weight - nd; pos >= 0; pos-- {
		hi, lo := bits.Mul64(acc, 10000)
		if hi != 0 {
			return 0, false
		}
		acc = lo
	}
	switch {
	case !n.neg && acc <= math.MaxInt64:
		return int64(acc), true
	case n.neg && acc <= 1<<63:
		return int64(-acc), true
	}
	return 0, false
}

// String renders the value for messages.
func (n wireNumeric) String() string {
	scale := 0
	if f := 4 * (n.ndigits() - 1 - n.weight); f > 0 {
		scale = f
	}
	return row.DecimalRat(row.DecimalValue(n.unscaled(scale), scale)).FloatString(scale)
}
