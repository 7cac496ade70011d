package binlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Column types, as the table map names them.
const (
	TypeDecimal    = 0
	TypeTiny       = 1
	TypeShort      = 2
	TypeLong       = 3
	TypeFloat      = 4
	TypeDouble     = 5
	TypeNull       = 6
	TypeTimestamp  = 7
	TypeLongLong   = 8
	TypeInt24      = 9
	TypeDate       = 10
	TypeTime       = 11
	TypeDatetime   = 12
	TypeYear       = 13
	TypeNewDate    = 14
	TypeVarchar    = 15
	TypeBit        = 16
	TypeTimestamp2 = 17
	TypeDatetime2  = 18
	TypeTime2      = 19
	TypeJSON       = 245
	TypeNewDecimal = 246
	TypeEnum       = 247
	TypeSet        = 248
	TypeTinyBlob   = 249
	TypeMediumBlob = 250
	TypeLongBlob   = 251
	TypeBlob       = 252
	TypeVarString  = 253
	TypeString     = 254
	TypeGeometry   = 255
)

// TypeName is the name of a column type.
func TypeName(t byte) string {
	switch t {
	case TypeDecimal:
		return "DECIMAL (pre-5.0)"
	case TypeTiny:
		return "TINYINT"
	case TypeShort:
		return "SMALLINT"
	case TypeLong:
		return "INT"
	case TypeFloat:
		return "FLOAT"
	case TypeDouble:
		return "DOUBLE"
	case TypeNull:
		return "NULL"
	case TypeTimestamp, TypeTimestamp2:
		return "TIMESTAMP"
	case TypeLongLong:
		return "BIGINT"
	case TypeInt24:
		return "MEDIUMINT"
	case TypeDate, TypeNewDate:
		return "DATE"
	case TypeTime, TypeTime2:
		return "TIME"
	case TypeDatetime, TypeDatetime2:
		return "DATETIME"
	case TypeYear:
		return "YEAR"
	case TypeVarchar, TypeVarString:
		return "VARCHAR"
	case TypeBit:
		return "BIT"
	case TypeJSON:
		return "JSON"
	case TypeNewDecimal:
		return "DECIMAL"
	case TypeEnum:
		return "ENUM"
	case TypeSet:
		return "SET"
	case TypeTinyBlob, TypeMediumBlob, TypeLongBlob, TypeBlob:
		return "BLOB"
	case TypeString:
		return "CHAR"
	case TypeGeometry:
		return "GEOMETRY"
	}
	return "type " + strconv.Itoa(int(t))
}

// Value is one column's value in a row image. Which field holds it depends on Type:
//
//   - TINYINT, SMALLINT, MEDIUMINT, INT, BIGINT: Int, sign-extended from the column's width
//     (Uint gives the unsigned reading of an UNSIGNED column);
//   - FLOAT, DOUBLE: Float;
//   - DECIMAL: Bytes, its decimal text (-12.340);
//   - YEAR: Int (0 for the zero year);
//   - BIT: Int, the bits; ENUM: Int, the 1-based index (0 for the empty value); SET: Int,
//     the bit set of its members;
//   - DATE, DATETIME, TIME: Time (TIME may be negative and longer than a day);
//   - TIMESTAMP: Int, microseconds since 1970-01-01 UTC;
//   - CHAR, VARCHAR, BLOB, TEXT, GEOMETRY: Bytes (GEOMETRY in MySQL's internal form: a
//     4-byte SRID, then WKB);
//   - JSON: Bytes, JSON text.
type Value struct {
	Type   byte // the column's type; ENUM and SET as themselves, not as CHAR
	Null   bool
	Absent bool // the image does not hold the column (binlog_row_image is not FULL)
	Int    int64
	Float  float64
	Bytes  []byte
	Time   Temporal
}

// Temporal is a DATE, DATETIME or TIME value, as its fields.
type Temporal struct {
	Year, Month, Day             int
	Hour, Minute, Second, Micros int // Hour can exceed 23 for TIME
	Negative                     bool
}

// Uint is the value of an UNSIGNED integer column.
func (v *Value) Uint() uint64 {
	switch v.Type {
	case TypeTiny:
		return uint64(uint8(v.Int))
	case TypeShort:
		return uint64(uint16(v.Int))
	case TypeInt24:
		return uint64(uint32(v.Int) & 0xFFFFFF)
	case TypeLong:
		return uint64(uint32(v.Int))
	}
	return uint64(v.Int)
}

var errBadValue = errors.New("bad value")

// decodeValue decodes one value of type t with metadata meta from the start of b into v,
// and returns how many bytes it took. Text made from the value (DECIMAL, JSON) is appended
// to *scratch.
func decodeValue(v *Value, t byte, meta uint16, b []byte, scratch *[]byte) (int, error) {
	r := &reader{b: b}
	switch t {
	case TypeTiny:
		v.Int = int64(int8(r.u8()))
	case TypeShort:
		v.Int = int64(int16(r.u16()))
	case TypeInt24:
		u := r.u24()
		v.Int = int64(int32(u<<8) >> 8)
	case TypeLong:
		v.Int = int64(int32(r.u32()))
	case TypeLongLong:
		v.Int = int64(r.u64())
	case TypeFloat:
		v.Float = float64(math.Float32frombits(r.u32()))
	case TypeDouble:
		v.Float = math.Float64frombits(r.u64())
	case TypeNull:
		v.Null = true
	case TypeYear:
		if y := int64(r.u8()); y != 0 {
			v.Int = 1900 + y
		}
	case TypeNewDecimal:
		start := len(*scratch)
		n, err := appendDecimal(scratch, b, int(meta>>8), int(meta&0xFF))
		if err != nil {
			return 0, err
		}
		v.Bytes = (*scratch)[start:len(*scratch):len(*scratch)]
		return n, nil
	case TypeDate:
		u := r.u24()
		v.Time = Temporal{Year: int(u >> 9), Month: int(u>>5) & 15, Day: int(u & 31)}
	case TypeTime:
		u := r.u24()
		n := int64(int32(u<<8) >> 8)
		if n < 0 {
			v.Time.Negative, n = true, -n
		}
		v.Time.Hour, v.Time.Minute, v.Time.Second = int(n/10000), int(n/100%100), int(n%100)
	case TypeDatetime:
		n := r.u64()
		d, t := n/1000000, n%1000000
		v.Time = Temporal{Year: int(d / 10000), Month: int(d / 100 % 100), Day: int(d % 100),
			Hour: int(t / 10000), Minute: int(t / 100 % 100), Second: int(t % 100)}
	case TypeTimestamp:
		v.Int = int64(r.u32()) * 1e6
	case TypeTimestamp2:
		sec := int64(binary.BigEndian.Uint32(r.bytes(4)))
		v.Int = sec*1e6 + fraction(r, int(meta))
	case TypeDatetime2:
		decodeDatetime2(v, r, int(meta))
	case TypeTime2:
		decodeTime2(v, r, int(meta))
	case TypeBit:
		nbits := int(meta>>8)*8 + int(meta&0xFF)
		for _, c := range r.bytes((nbits + 7) / 8) {
			v.Int = v.Int<<8 | int64(c)
		}
	case TypeEnum, TypeSet:
		v.Int = int64(r.uintN(int(meta & 0xFF)))
	case TypeVarchar, TypeVarString:
		if meta < 256 {
			v.Bytes = r.bytes(int(r.u8()))
		} else {
			v.Bytes = r.bytes(int(r.u16()))
		}
	case TypeString:
		return decodeString(v, meta, r)
	case TypeBlob, TypeTinyBlob, TypeMediumBlob, TypeLongBlob, TypeGeometry:
		v.Bytes = r.bytes(int(r.uintN(int(meta))))
	case TypeJSON:
		raw := r.bytes(int(r.uintN(int(meta))))
		if r.err != nil {
			return 0, r.err
		}
		start := len(*scratch)
		if err := appendJSON(scratch, raw); err != nil {
			return 0, fmt.Errorf("binary JSON: %w", err)
		}
		v.Bytes = (*scratch)[start:len(*scratch):len(*scratch)]
	default:
		return 0, fmt.Errorf("column type %d is not supported", t)
	}
	if r.err != nil {
		return 0, r.err
	}
	return r.pos, nil
}

// decodeString reads a CHAR column, or an ENUM or SET that the table map calls a string.
func decodeString(v *Value, meta uint16, r *reader) (int, error) {
	real, length := byte(TypeString), int(meta)
	if meta >= 256 {
		b0, b1 := byte(meta>>8), byte(meta)
		if b0&0x30 != 0x30 {
			// lengths above 255 keep two of their bits in the type byte
			length = int(b1) | int((b0&0x30)^0x30)<<4
			real = b0 | 0x30
		} else {
			real, length = b0, int(b1)
		}
	}
	switch real {
	case TypeEnum, TypeSet:
		v.Type = real
		v.Int = int64(r.uintN(length))
	case TypeString:
		if length < 256 {
			v.Bytes = r.bytes(int(r.u8()))
		} else {
			v.Bytes = r.bytes(int(r.u16()))
		}
	default:
		return 0, fmt.Errorf("CHAR column of real type %d", real)
	}
	if r.err != nil {
		return 0, r.err
	}
	return r.pos, nil
}

// fraction reads the fractional seconds of a temporal value with fsp digits, in
// microseconds.
func fraction(r *reader, fsp int) int64 {
	switch fsp {
	case 1, 2:
		return int64(r.u8()) * 10000
	case 3, 4:
		return int64(binary.BigEndian.Uint16(r.bytes(2))) * 100
	case 5, 6:
		b := r.bytes(3)
		if b == nil {
			return 0
		}
		return int64(b[0])<<16 | int64(b[1])<<8 | int64(b[2])
	}
	return 0
}

func bigEndian(b []byte) int64 {
	var n int64
	for _, c := range b {
		n = n<<8 | int64(c)
	}
	return n
}

// decodeDatetime2 reads MySQL 5.6's DATETIME: 40 bits of sign, year*13+month, day, hour,
// minute and second, then the fraction.
func decodeDatetime2(v *Value, r *reader, fsp int) {
	n := bigEndian(r.bytes(5)) - 0x8000000000
	micros := fraction(r, fsp)
	if n < 0 {
		n = -n
		v.Time.Negative = true
	}
	ymd, hms := n>>17, n&(1<<17-1)
	ym := ymd >> 5
	v.Time.Year, v.Time.Month, v.Time.Day = int(ym/13), int(ym%13), int(ymd&31)
	v.Time.Hour, v.Time.Minute, v.Time.Second = int(hms>>12), int(hms>>6&63), int(hms&63)
	v.Time.Micros = int(micros)
}

// decodeTime2 reads MySQL 5.6's TIME: 24 bits of sign, hours, minutes and seconds, then
// the fraction, as one signed number.
func decodeTime2(v *Value, r *reader, fsp int) {
	var packed int64 // (seconds part << 24) + microseconds
	switch fsp {
	case 1, 2, 3, 4:
		ip := bigEndian(r.bytes(3)) - 0x800000
		var frac int64
		unit, width := int64(10000), int64(0x100)
		if fsp > 2 {
			unit, width = 100, 0x10000
			frac = bigEndian(r.bytes(2))
		} else {
			frac = int64(r.u8())
		}
		if ip < 0 && frac != 0 {
			ip++
			frac -= width
		}
		packed = ip<<24 + frac*unit
	case 5, 6:
		packed = bigEndian(r.bytes(6)) - 0x800000000000
	default:
		packed = (bigEndian(r.bytes(3)) - 0x800000) << 24
	}
	if packed < 0 {
		v.Time.Negative, packed = true, -packed
	}
	ip := packed >> 24
	v.Time.Hour, v.Time.Minute, v.Time.Second = int(ip>>12&0x3FF), int(ip>>6&63), int(ip&63)
	v.Time.Micros = int(packed % (1 << 24))
}

// dig2bytes is how many bytes a group of n decimal digits takes in a binary DECIMAL.
var dig2bytes = [10]int{0, 1, 1, 2, 2, 3, 3, 4, 4, 4}

// decimalSize is the length of a binary DECIMAL(prec, scale).
func decimalSize(prec, scale int) int {
	intg := prec - scale
	return intg/9*4 + dig2bytes[intg%9] + scale/9*4 + dig2bytes[scale%9]
}

// appendDecimal appends the text of the binary DECIMAL(prec, scale) at the start of b and
// returns its length: groups of nine digits in four big-endian bytes (fewer for a partial
// group), the sign in the first bit, negative numbers with every bit inverted.
func appendDecimal(dst *[]byte, b []byte, prec, scale int) (int, error) {
	if prec < 1 || prec > 65 || scale > 30 || scale > prec {
		return 0, fmt.Errorf("DECIMAL(%d,%d): %w", prec, scale, errBadValue)
	}
	size := decimalSize(prec, scale)
	if len(b) < size {
		return 0, errShort
	}
	var buf [40]byte
	d := buf[:size]
	copy(d, b)
	neg := d[0]&0x80 == 0
	d[0] ^= 0x80
	if neg {
		for i := range d {
			d[i] ^= 0xFF
		}
	}
	out := *dst
	if neg {
		out = append(out, '-')
	}
	intg := prec - scale
	pos := 0
	started := false
	group := func(nbytes, digits int, pad bool) error {
		n := bigEndian(d[pos : pos+nbytes])
		pos += nbytes
		if n >= pow10[digits] {
			return fmt.Errorf("DECIMAL(%d,%d): a group of %d digits holds %d: %w", prec, scale, digits, n, errBadValue)
		}
		switch {
		case pad:
			out = appendPadded(out, n, digits)
		case started:
			out = appendPadded(out, n, digits)
		case n != 0:
			out = strconv.AppendInt(out, n, 10)
			started = true
		}
		return nil
	}
	if x := intg % 9; x > 0 {
		if err := group(dig2bytes[x], x, false); err != nil {
			return 0, err
		}
	}
	for range intg / 9 {
		if err := group(4, 9, false); err != nil {
			return 0, err
		}
	}
	if !started {
		out = append(out, '0')
	}
	if scale > 0 {
		out = append(out, '.')
		for range scale / 9 {
			if err := group(4, 9, true); err != nil {
				return 0, err
			}
		}
		if x := scale % 9; x > 0 {
			if err := group(dig2bytes[x], x, true); err != nil {
				return 0, err
			}
		}
	}
	*dst = out
	return size, nil
}

var pow10 = [10]int64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000}

func appendPadded(b []byte, n int64, digits int) []byte {
	var tmp [9]byte
	for i := digits - 1; i >= 0; i-- {
		tmp[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, tmp[:digits]...)
}
