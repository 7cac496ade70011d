package pgwire

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// Decoder turns the wire values of result rows into row values. Scalars are decoded
// straight into the row's fields; strings and bytes are copied into shared blocks, and the
// elements of short arrays take their values from the batch's arena, so a row costs no
// allocation per value except for decimals (whose big.Int the value owns).
type Decoder struct {
	// Batch is the batch being filled: the elements of short arrays take their values from
	// its arena. Set it before decoding rows of a batch.
	Batch *row.Batch
	arena strings.Builder
	types *pgtype.Map // for values of types read through pgx (UseBinary)
}

// arenaBlock is the size of the blocks short strings are copied into: one allocation
// serves many values, and a string a consumer keeps holds at most this much memory.
const arenaBlock = 16 << 10

// keep returns a string with the content of b that stays valid after the connection reuses
// its buffer. A strings.Builder never changes bytes it has handed out, so earlier strings
// stay intact when the next block starts.
func (d *Decoder) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > arenaBlock/8 {
		return string(b)
	}
	if d.arena.Cap()-d.arena.Len() < len(b) {
		d.arena = strings.Builder{}
		d.arena.Grow(arenaBlock)
	}
	start := d.arena.Len()
	d.arena.Write(b)
	return d.arena.String()[start:]
}

// Decode reads one non-null value of column c, in c's wire format, into v.
func (d *Decoder) Decode(c *Column, b []byte, v *row.Value) error {
	switch c.kind {
	case decArray:
		return d.decodeArray(c, b, v)
	case decBinText:
		return d.binText(c, b, v)
	}
	return d.scalar(c.kind, c.dscale, b, v)
}

// Days and microseconds between 1970-01-01 and PostgreSQL's epoch, 2000-01-01.
const (
	epochDays   = 10957
	epochMicros = 946684800 * 1000000
	dayMicros   = 86400 * 1000000
)

func lengthError(what string, n int) error {
	return fmt.Errorf("malformed %s value of %d bytes", what, n)
}

// scalar reads one non-null value of kind k into v; scale is the scale of decimals.
func (d *Decoder) scalar(k decKind, scale int, b []byte, v *row.Value) error {
	switch k {
	case decText:
		*v = row.Value{T: types.String, S: d.keep(b)}
	case decBytea:
		*v = row.Value{T: types.Bytes, S: d.keep(b)}
	case decBool:
		if len(b) != 1 {
			return lengthError("bool", len(b))
		}
		*v = row.BoolValue(b[0] != 0)
	case decInt2:
		if len(b) != 2 {
			return lengthError("int2", len(b))
		}
		*v = row.Value{T: types.SmallInt, I: int64(int16(binary.BigEndian.Uint16(b)))}
	case decInt4:
		if len(b) != 4 {
			return lengthError("int4", len(b))
		}
		*v = row.Value{T: types.Int, I: int64(int32(binary.BigEndian.Uint32(b)))}
	case decInt8:
		if len(b) != 8 {
			return lengthError("int8", len(b))
		}
		*v = row.Value{T: types.BigInt, I: int64(binary.BigEndian.Uint64(b))}
	case decFloat4:
		if len(b) != 4 {
			return lengthError("float4", len(b))
		}
		*v = row.Value{T: types.Float, I: int64(binary.BigEndian.Uint32(b))}
	case decFloat8:
		if len(b) != 8 {
			return lengthError("float8", len(b))
		}
		*v = row.Value{T: types.Double, I: int64(binary.BigEndian.Uint64(b))}
	case decNumeric:
		n, err := parseWireNumeric(b)
		if err != nil {
			return err
		}
		if scale == ownScale {
			scale = n.dscale
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
			return lengthError("money", len(b))
		}
		*v = row.DecimalValue(big.NewInt(int64(binary.BigEndian.Uint64(b))), 2)
	case decDate:
		if len(b) != 4 {
			return lengthError("date", len(b))
		}
		days := int32(binary.BigEndian.Uint32(b))
		if days == math.MaxInt32 || days == math.MinInt32 {
			return fmt.Errorf("date %s cannot be represented", infinity(days > 0))
		}
		*v = row.DateValue(int64(days) + epochDays)
	case decTime:
		if len(b) != 8 {
			return lengthError("time", len(b))
		}
		*v = row.TimeValue(timeOfDay(int64(binary.BigEndian.Uint64(b))))
	case decTimetz:
		if len(b) != 12 {
			return lengthError("timetz", len(b))
		}
		// the zone is in seconds west of UTC
		us := int64(binary.BigEndian.Uint64(b)) + int64(int32(binary.BigEndian.Uint32(b[8:])))*1000000
		us %= dayMicros
		if us < 0 {
			us += dayMicros
		}
		*v = row.TimeValue(us * 1000)
	case decTimestamp:
		if len(b) != 8 {
			return lengthError("timestamp", len(b))
		}
		us := int64(binary.BigEndian.Uint64(b))
		if us == math.MaxInt64 || us == math.MinInt64 {
			return fmt.Errorf("timestamp %s cannot be represented", infinity(us > 0))
		}
		ns, ok := timestampNanos(us)
		if !ok {
			return fmt.Errorf("timestamp %s is outside the range of timestamps Strait holds (1677-09-21 to 2262-04-11)",
				time.Unix(us/1000000+epochMicros/1000000, 0).UTC().Format("2006-01-02 15:04:05"))
		}
		*v = row.TimestampValue(ns)
	case decUUID:
		if len(b) != 16 {
			return lengthError("uuid", len(b))
		}
		var buf [36]byte
		formatUUID(buf[:], b)
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

func infinity(positive bool) string {
	if positive {
		return "infinity"
	}
	return "-infinity"
}

// timeOfDay converts microseconds since midnight to nanoseconds; 24:00:00, which
// PostgreSQL allows, becomes the last nanosecond of the day.
func timeOfDay(us int64) int64 {
	if us >= dayMicros {
		return dayMicros*1000 - 1
	}
	return us * 1000
}

// timestampNanos converts microseconds since 2000-01-01 to nanoseconds since 1970-01-01;
// ok is false outside the range int64 nanoseconds hold.
func timestampNanos(us int64) (int64, bool) {
	const limit = math.MaxInt64 / 1000
	if us > limit-epochMicros || us < -limit-epochMicros {
		return 0, false
	}
	return (us + epochMicros) * 1000, true
}

func formatUUID(dst, u []byte) {
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

// arenaElems is the most elements of an array taken from the batch's arena, which sizes
// its blocks for rows of that many values; longer arrays get their own slice.
const arenaElems = 32

// decodeArray reads a one-dimensional array in binary format.
func (d *Decoder) decodeArray(c *Column, b []byte, v *row.Value) error {
	if len(b) < 12 {
		return lengthError("array", len(b))
	}
	ndim := int32(binary.BigEndian.Uint32(b))
	if ndim == 0 {
		*v = row.ArrayValue(d.Batch.Values(0))
		return nil
	}
	if ndim != 1 {
		return fmt.Errorf("a %d-dimensional array cannot be read as array<%s>; only one-dimensional arrays can", ndim, c.Type.Elem)
	}
	if len(b) < 20 {
		return lengthError("array", len(b))
	}
	if oid := binary.BigEndian.Uint32(b[8:]); oid != c.elemOID {
		return fmt.Errorf("array of type %d where type %d was expected", oid, c.elemOID)
	}
	n := int(int32(binary.BigEndian.Uint32(b[12:])))
	if n < 0 || n > (len(b)-20)/4 {
		return fmt.Errorf("malformed array of %d elements in %d bytes", n, len(b))
	}
	var elems []row.Value
	if n <= arenaElems {
		elems = d.Batch.Values(n)
	} else {
		elems = make([]row.Value, n)
	}
	p := 20
	for i := range elems {
		if p+4 > len(b) {
			return lengthError("array", len(b))
		}
		l := int(int32(binary.BigEndian.Uint32(b[p:])))
		p += 4
		if l < 0 {
			continue // null: the arena's values are zeroed
		}
		if p+l > len(b) {
			return lengthError("array", len(b))
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
	dscale int    // the decimal digits after the point that the value shows
	digits []byte // 2 bytes per base-10000 digit
}

func parseWireNumeric(b []byte) (wireNumeric, error) {
	if len(b) < 8 {
		return wireNumeric{}, lengthError("numeric", len(b))
	}
	ndigits := int(int16(binary.BigEndian.Uint16(b)))
	weight := int(int16(binary.BigEndian.Uint16(b[2:])))
	sign := binary.BigEndian.Uint16(b[4:])
	if ndigits < 0 || len(b) != 8+2*ndigits {
		return wireNumeric{}, lengthError("numeric", len(b))
	}
	switch sign {
	case 0x0000, 0x4000:
	case 0xC000:
		return wireNumeric{}, fmt.Errorf("numeric NaN cannot be read as a decimal")
	case 0xD000, 0xF000:
		return wireNumeric{}, fmt.Errorf("numeric %s cannot be read as a decimal", infinity(sign == 0xD000))
	default:
		return wireNumeric{}, fmt.Errorf("numeric with unknown sign %#x", sign)
	}
	dscale := int(binary.BigEndian.Uint16(b[6:]) & 0x3FFF)
	return wireNumeric{neg: sign == 0x4000, weight: weight, dscale: dscale, digits: b[8:]}, nil
}

func (n wireNumeric) ndigits() int { return len(n.digits) / 2 }

func (n wireNumeric) digit(i int) uint64 { return uint64(binary.BigEndian.Uint16(n.digits[2*i:])) }

var pow10 = func() (p [20]uint64) {
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
		case exp >= 0 && exp < len(pow10):
			hi, lo := bits.Mul64(acc, pow10[exp])
			if hi == 0 && lo <= math.MaxInt64 {
				return n.signed(new(big.Int).SetUint64(lo))
			}
		case exp < 0:
			if -exp >= len(pow10) {
				return new(big.Int) // below half a unit: acc < 10^16
			}
			d := pow10[-exp]
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
