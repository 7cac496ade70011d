package xform

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// ParseText reads the text form of a scalar value (as AppendText writes it) back into a value
// of type t. It accepts what Java's parsers for the type accept in the common cases: ints with
// a sign, floats including NaN and Infinity, decimals rounded to the type's scale, dates as
// yyyy-MM-dd, times as HH:mm[:ss[.fraction]], timestamps as a date and a time joined by T or a
// space.
func ParseText(s string, t types.DataType) (row.Value, error) {
	switch t.Kind {
	case types.String:
		return row.StringValue(s), nil
	case types.Null:
		return row.NullValue(), nil
	case types.Boolean:
		switch {
		case strings.EqualFold(s, "true"):
			return row.BoolValue(true), nil
		case strings.EqualFold(s, "false"):
			return row.BoolValue(false), nil
		}
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		bits := 64
		switch t.Kind {
		case types.TinyInt:
			bits = 8
		case types.SmallInt:
			bits = 16
		case types.Int:
			bits = 32
		}
		n, err := strconv.ParseInt(s, 10, bits)
		if err == nil {
			return row.Value{T: t.Kind, I: n}, nil
		}
	case types.Float, types.Double:
		bits := 64
		if t.Kind == types.Float {
			bits = 32
		}
		f, ok := ParseJavaFloat(s, bits)
		if ok {
			if bits == 32 {
				return row.FloatValue(float32(f)), nil
			}
			return row.DoubleValue(f), nil
		}
	case types.Decimal:
		if !ExponentOK(s) {
			return row.Value{}, fmt.Errorf("%q is out of the range of %s", Clip(s), t)
		}
		if v, err := row.ParseDecimal(s, t.Precision, t.Scale); err == nil {
			return v, nil
		} else if strings.Contains(err.Error(), "does not fit") {
			return row.Value{}, err
		}
	case types.Date:
		if d, ok := ParseISODate(s); ok {
			return row.DateValue(d), nil
		}
	case types.Time:
		if n, ok := ParseClock(s, true); ok {
			return row.TimeValue(n), nil
		}
	case types.Timestamp:
		if len(s) > 10 && (s[10] == 'T' || s[10] == ' ') {
			d, ok1 := ParseISODate(s[:10])
			n, ok2 := ParseClock(s[11:], true)
			if ok1 && ok2 {
				return row.TimestampValue(d*86400*int64(time.Second) + n), nil
			}
		}
	default:
		return row.Value{}, fmt.Errorf("values of type %s have no text form to read", t)
	}
	return row.Value{}, fmt.Errorf("%q is not a valid %s", Clip(s), t)
}

// ParseJavaFloat reads a floating-point number as Java's Double.parseDouble does: surrounding
// control characters and spaces are ignored, NaN and Infinity are spelled as in Java, and a
// trailing f, F, d or D is allowed.
func ParseJavaFloat(s string, bits int) (float64, bool) {
	s = TrimJava(s)
	body := s
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	switch body {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		if s[0] == '-' {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	if n := len(s); n > 1 {
		switch s[n-1] {
		case 'f', 'F', 'd', 'D':
			if c := s[n-2]; c >= '0' && c <= '9' || c == '.' {
				s = s[:n-1]
			}
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' ||
			c == 'x' || c == 'X' || c == 'p' || c == 'P' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true // Java overflows to Infinity and underflows to 0 without complaint
		}
		return 0, false
	}
	return f, true
}

// TrimJava removes leading and trailing characters up to U+0020, as Java's String.trim does.
func TrimJava(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	return s[i:j]
}

// Days returns the days since 1970-01-01 of a valid calendar date.
func Days(y, m, d int) int64 {
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// MonthLen is the number of days of the month.
func MonthLen(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// Digits reads s as an unsigned decimal number of exactly len(s) digits.
func Digits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// ParseISODate reads yyyy-MM-dd, rejecting dates that do not exist.
func ParseISODate(s string) (int64, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	return YMD(s[0:4], s[5:7], s[8:10], true)
}

// YMD checks and converts a date given as digit strings. A strict date must exist; otherwise
// a day past the end of the month is moved to its last day, as Java's default (smart)
// resolver does for pattern-built formats.
func YMD(ys, ms, ds string, strict bool) (int64, bool) {
	y, ok1 := Digits(ys)
	m, ok2 := Digits(ms)
	d, ok3 := Digits(ds)
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > 31 {
		return 0, false
	}
	if n := MonthLen(y, m); d > n {
		if strict {
			return 0, false
		}
		d = n
	}
	return Days(y, m, d), true
}

// ParseClock reads HH:mm:ss with an optional fraction of up to nine digits; with
// optionalSeconds, HH:mm alone is accepted too (Java's ISO_LOCAL_TIME).
func ParseClock(s string, optionalSeconds bool) (int64, bool) {
	if len(s) < 5 || s[2] != ':' {
		return 0, false
	}
	h, ok1 := Digits(s[0:2])
	mi, ok2 := Digits(s[3:5])
	if !ok1 || !ok2 || h > 23 || mi > 59 {
		return 0, false
	}
	n := int64(h)*int64(time.Hour) + int64(mi)*int64(time.Minute)
	rest := s[5:]
	if rest == "" {
		return n, optionalSeconds
	}
	if len(rest) < 3 || rest[0] != ':' {
		return 0, false
	}
	sec, ok := Digits(rest[1:3])
	if !ok || sec > 59 {
		return 0, false
	}
	n += int64(sec) * int64(time.Second)
	rest = rest[3:]
	if rest == "" {
		return n, true
	}
	if rest[0] != '.' || len(rest) > 10 {
		return 0, false
	}
	frac := rest[1:]
	if frac == "" {
		return n, true
	}
	f, ok := Digits(frac)
	if !ok {
		return 0, false
	}
	for i := len(frac); i < 9; i++ {
		f *= 10
	}
	return n + int64(f), true
}

// maxExponent bounds the exponent of decimal text read exactly: 10^maxExponent is still
// cheap to compute, and far beyond any decimal type's precision.
const maxExponent = 10000

// ExponentOK reports whether a number's text has no exponent or one of at most maxExponent
// in size, so reading it exactly cannot take unbounded time and memory.
func ExponentOK(s string) bool {
	e := strings.IndexAny(s, "eE")
	if e < 0 {
		return true
	}
	exp := strings.TrimLeft(strings.TrimLeft(s[e+1:], "+-"), "0")
	if len(exp) > 5 {
		return false
	}
	n, err := strconv.Atoi(exp)
	return err == nil && n <= maxExponent || exp == ""
}
