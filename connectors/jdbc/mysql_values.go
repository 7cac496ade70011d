package jdbc

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// ---- reading: the text protocol's values ----

// decode sets v to the value the server sent as text (nil for NULL). Zero dates
// (0000-00-00), which no SeaTunnel type holds, are read as NULL, as Connector/J's
// zeroDateTimeBehavior=convertToNull does.
func (c *mysqlColumn) decode(v *row.Value, b []byte) error {
	if b == nil {
		v.SetNull()
		return nil
	}
	switch c.dec {
	case myInt:
		n, err := atoiBytes(b)
		if err != nil {
			return err
		}
		v.SetScalar(c.Type.Kind, n)
	case myBool:
		n, err := atoiBytes(b)
		if err != nil {
			return err
		}
		v.SetScalar(types.Boolean, boolInt(n != 0))
	case myBitBool:
		on := false
		for _, x := range b {
			on = on || x != 0
		}
		v.SetScalar(types.Boolean, boolInt(on))
	case myDecimal:
		d, err := parseMySQLDecimal(b, c.Type.Precision, c.Type.Scale)
		if err != nil {
			return err
		}
		*v = d
	case myFloat:
		f, err := strconv.ParseFloat(string(b), 32)
		if err != nil {
			return err
		}
		v.SetScalar(types.Float, int64(math.Float32bits(float32(f))))
	case myDouble:
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return err
		}
		v.SetScalar(types.Double, int64(math.Float64bits(f)))
	case myString:
		v.SetString(string(b))
	case myBytes:
		*v = row.BytesValue(b)
	case myDate:
		days, ok := parseDate(b)
		if !ok {
			return fmt.Errorf("%q is not a date", b)
		}
		if days == zeroDate {
			v.SetNull()
			return nil
		}
		v.SetScalar(types.Date, days)
	case myTime:
		n, err := parseTimeOfDay(b)
		if err != nil {
			return err
		}
		v.SetScalar(types.Time, n)
	case myDatetime:
		if len(b) < 19 || b[10] != ' ' {
			return fmt.Errorf("%q is not a datetime", b)
		}
		days, ok := parseDate(b[:10])
		if !ok {
			return fmt.Errorf("%q is not a datetime", b)
		}
		if days == zeroDate {
			v.SetNull()
			return nil
		}
		n, err := parseTimeOfDay(b[11:])
		if err != nil || n >= int64(24*time.Hour) || n < 0 {
			return fmt.Errorf("%q is not a datetime", b)
		}
		v.SetScalar(types.Timestamp, days*int64(24*time.Hour)+n)
	}
	return nil
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// zeroDate marks 0000-00-00 among parsed days.
const zeroDate = math.MinInt64

func atoiBytes(b []byte) (int64, error) {
	neg := len(b) > 0 && b[0] == '-'
	d := b
	if neg {
		d = b[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return strconv.ParseInt(string(b), 10, 64)
	}
	var n int64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not an integer", b)
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, len(b) > 0
}

// parseDate reads yyyy-mm-dd as days since the epoch; zeroDate for 0000-00-00.
func parseDate(b []byte) (int64, bool) {
	if len(b) != 10 || b[4] != '-' || b[7] != '-' {
		return 0, false
	}
	y, ok1 := digits(b[:4])
	m, ok2 := digits(b[5:7])
	d, ok3 := digits(b[8:10])
	if !ok1 || !ok2 || !ok3 {
		return 0, false
	}
	if m == 0 || d == 0 {
		return zeroDate, true
	}
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400, true
}

// parseTimeOfDay reads [-]h:mm:ss[.ffffff] as nanoseconds; a time SeaTunnel's LocalTime
// cannot hold (negative, or 24 hours and more) is an error.
func parseTimeOfDay(b []byte) (int64, error) {
	s := b
	frac := []byte(nil)
	for i, c := range b {
		if c == '.' {
			s, frac = b[:i], b[i+1:]
			break
		}
	}
	if len(s) < 8 || s[len(s)-3] != ':' || s[len(s)-6] != ':' || s[0] == '-' {
		return 0, fmt.Errorf("%q is not a time of day (SeaTunnel's times are 00:00:00 to 23:59:59.999999)", b)
	}
	h, ok1 := digits(s[:len(s)-6])
	m, ok2 := digits(s[len(s)-5 : len(s)-3])
	sec, ok3 := digits(s[len(s)-2:])
	if !ok1 || !ok2 || !ok3 || h > 23 {
		return 0, fmt.Errorf("%q is not a time of day (SeaTunnel's times are 00:00:00 to 23:59:59.999999)", b)
	}
	n := (int64(h)*3600 + int64(m)*60 + int64(sec)) * int64(time.Second)
	if len(frac) > 0 {
		f, ok := digits(frac)
		if !ok || len(frac) > 9 {
			return 0, fmt.Errorf("%q is not a time", b)
		}
		for i := len(frac); i < 9; i++ {
			f *= 10
		}
		n += int64(f)
	}
	return n, nil
}

// parseMySQLDecimal reads a decimal the server wrote at the column's scale; other forms
// are rescaled.
func parseMySQLDecimal(b []byte, precision, scale int) (row.Value, error) {
	dot := -1
	for i, c := range b {
		if c == '.' {
			dot = i
			break
		}
	}
	s := string(b)
	if (dot < 0 && scale == 0) || (dot >= 0 && len(b)-dot-1 == scale) {
		digitsOnly := s
		if dot >= 0 {
			digitsOnly = s[:dot] + s[dot+1:]
		}
		if u, ok := new(big.Int).SetString(digitsOnly, 10); ok {
			return row.DecimalValue(u, scale), nil
		}
	}
	return row.ParseDecimal(s, precision, scale)
}

// ---- writing: values as SQL literals ----

// appendLiteral writes a value as a MySQL literal: numbers as they are, text as a UTF-8
// hex string (_utf8mb4 X'...', which needs no escaping under any sql_mode and converts to
// the column's character set), bytes as a hex string, temporal values quoted in MySQL's
// formats, composite values as their JSON text.
func appendLiteral(buf []byte, v *row.Value) ([]byte, error) {
	switch v.T {
	case types.Null:
		return append(buf, "NULL"...), nil
	case types.Boolean:
		if v.I != 0 {
			return append(buf, '1'), nil
		}
		return append(buf, '0'), nil
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return strconv.AppendInt(buf, v.I, 10), nil
	case types.Float, types.Double:
		f, bits := v.Float64(), 64
		if v.T == types.Float {
			f, bits = float64(v.Float32()), 32
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return buf, fmt.Errorf("%v has no MySQL value", f)
		}
		return strconv.AppendFloat(buf, f, 'g', -1, bits), nil
	case types.Decimal:
		if v.Unscaled() == nil {
			return append(buf, "NULL"...), nil
		}
		return row.AppendDecimal(buf, *v), nil
	case types.String:
		return mysqlStringLiteral(buf, v.S), nil
	case types.Bytes:
		return appendHex(append(buf, 'X'), v.S), nil
	case types.Date:
		buf = append(buf, '\'')
		buf = appendDate(buf, v.I)
		return append(buf, '\''), nil
	case types.Time:
		buf = append(buf, '\'')
		buf = appendClock(buf, v.I)
		return append(buf, '\''), nil
	case types.Timestamp:
		days := floorDiv(v.I, int64(24*time.Hour))
		buf = append(buf, '\'')
		buf = appendDate(buf, days)
		buf = append(buf, ' ')
		buf = appendClock(buf, v.I-days*int64(24*time.Hour))
		return append(buf, '\''), nil
	case types.Array, types.Map, types.Row:
		return mysqlStringLiteral(buf, string(row.AppendJSON(nil, *v))), nil
	}
	return buf, fmt.Errorf("a value of type %s has no MySQL literal", v.T)
}

// mysqlStringLiteral writes s as _utf8mb4 X'...'.
func mysqlStringLiteral(buf []byte, s string) []byte {
	if buf == nil {
		buf = make([]byte, 0, 12+2*len(s))
	}
	return appendHex(append(buf, "_utf8mb4 X"...), s)
}

func appendHex(buf []byte, s string) []byte {
	const digits = "0123456789abcdef"
	buf = append(buf, '\'')
	for i := 0; i < len(s); i++ {
		buf = append(buf, digits[s[i]>>4], digits[s[i]&15])
	}
	return append(buf, '\'')
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func appendDate(buf []byte, days int64) []byte {
	t := time.Unix(days*86400, 0).UTC()
	y, m, d := t.Date()
	buf = appendPadded(buf, y, 4)
	buf = append(buf, '-')
	buf = appendPadded(buf, int(m), 2)
	buf = append(buf, '-')
	return appendPadded(buf, d, 2)
}

// appendClock writes nanoseconds of the day as hh:mm:ss.ffffff (MySQL keeps microseconds).
func appendClock(buf []byte, nanos int64) []byte {
	sec := nanos / int64(time.Second)
	buf = appendPadded(buf, int(sec/3600), 2)
	buf = append(buf, ':')
	buf = appendPadded(buf, int(sec/60%60), 2)
	buf = append(buf, ':')
	buf = appendPadded(buf, int(sec%60), 2)
	if f := nanos % int64(time.Second); f != 0 {
		buf = append(buf, '.')
		buf = appendPadded(buf, int(f/1000), 6)
	}
	return buf
}

func appendPadded(buf []byte, n, width int) []byte {
	if n < 0 {
		buf = append(buf, '-')
		n = -n
	}
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], int64(n), 10)
	for i := len(s); i < width; i++ {
		buf = append(buf, '0')
	}
	return append(buf, s...)
}
