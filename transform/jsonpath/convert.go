package jsonpath

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/strait-dev/strait/internal/jsonscan"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
	"github.com/strait-dev/strait/types"
)

// Conversion of a selected JSON value to the column type, with the rules of SeaTunnel's JSON
// converters: JSON null is null; a string column takes a string's text, a number's or
// boolean's text, or the compact JSON of an object or array; numbers and booleans
// are read from the value or from its text; dates, times and timestamps from text in the
// formats SeaTunnel recognises; bytes from base64 text (other values give null); an array
// column from the elements of an array (an object gives as many nulls as it has members, other
// values an empty array); a map column from an object's members (other values an empty map);
// a row column from an array by position or an object by name. A value that does not convert
// is an error that fails the job whatever the error handling options say, as in SeaTunnel.

// conversionError is a value that does not convert to the column type.
type conversionError struct{ msg string }

func (e *conversionError) Error() string { return e.msg }

func convErr(format string, args ...any) error {
	return &conversionError{fmt.Sprintf(format, args...)}
}

// converter converts JSON values; it owns a scratch buffer.
type converter struct {
	buf []byte
}

// text is the text SeaTunnel's converters read from the value at s[i]: a string's content, a number or boolean as
// Java prints it, "null" for null and "" for objects and arrays.
func (c *converter) text(s string, i int) string {
	switch ch := s[i]; {
	case ch == '"':
		return jsonscan.Unescape(s[i+1 : jsonscan.SkipString(s, i)-1])
	case ch == '{' || ch == '[':
		return ""
	case ch == '-' || ch >= '0' && ch <= '9':
		lit := s[i:jsonscan.Skip(s, i)]
		if classify(lit) == numInt && lit != "-0" {
			return lit
		}
		c.buf = numberText(c.buf[:0], lit)
		return string(c.buf)
	}
	return s[i:jsonscan.Skip(s, i)]
}

func isNumber(ch byte) bool { return ch == '-' || ch >= '0' && ch <= '9' }

// convert converts the value at s[i] to type t.
func (c *converter) convert(s string, i int, t types.DataType) (row.Value, error) {
	ch := s[i]
	if ch == 'n' {
		return row.NullValue(), nil
	}
	switch t.Kind {
	case types.Null:
		return row.NullValue(), nil
	case types.String:
		if ch == '{' || ch == '[' {
			c.buf = appendCompact(c.buf[:0], s, i)
			return row.StringValue(string(c.buf)), nil
		}
		return row.StringValue(c.text(s, i)), nil
	case types.Boolean:
		switch ch {
		case 't':
			return row.BoolValue(true), nil
		case 'f':
			return row.BoolValue(false), nil
		}
		// Java's Boolean.parseBoolean: "true" in any case, anything else is false
		return row.BoolValue(equalFoldASCII(xform.TrimJava(c.text(s, i)), "true")), nil
	case types.TinyInt, types.SmallInt:
		bits := 8
		if t.Kind == types.SmallInt {
			bits = 16
		}
		txt := xform.TrimJava(c.text(s, i))
		n, err := strconv.ParseInt(txt, 10, bits)
		if err != nil {
			return row.Value{}, convErr("%q is not a %s", xform.Clip(txt), t)
		}
		return row.Value{T: t.Kind, I: n}, nil
	case types.Int, types.BigInt:
		bits := 32
		if t.Kind == types.BigInt {
			bits = 64
		}
		if isNumber(ch) {
			if n, ok := numberInt(s[i:jsonscan.Skip(s, i)], bits); ok {
				return row.Value{T: t.Kind, I: n}, nil
			}
		}
		txt := xform.TrimJava(c.text(s, i))
		n, err := strconv.ParseInt(txt, 10, bits)
		if err != nil {
			return row.Value{}, convErr("%q is not an %s", xform.Clip(txt), t)
		}
		return row.Value{T: t.Kind, I: n}, nil
	case types.Float, types.Double:
		var f float64
		if isNumber(ch) && classify(s[i:jsonscan.Skip(s, i)]) == numDouble {
			f, _ = strconv.ParseFloat(s[i:jsonscan.Skip(s, i)], 64)
		} else {
			bits := 64
			if t.Kind == types.Float {
				bits = 32
			}
			txt := c.text(s, i)
			var ok bool
			if f, ok = xform.ParseJavaFloat(txt, bits); !ok {
				return row.Value{}, convErr("%q is not a %s", xform.Clip(txt), t)
			}
		}
		if t.Kind == types.Float {
			return row.FloatValue(float32(f)), nil
		}
		return row.DoubleValue(f), nil
	case types.Decimal:
		txt := c.text(s, i)
		if !isDecimalText(txt) {
			return row.Value{}, convErr("%q is not a decimal number", xform.Clip(txt))
		}
		if !xform.ExponentOK(txt) {
			return row.Value{}, convErr("%q is out of the range of %s", xform.Clip(txt), t)
		}
		v, err := row.DecimalFromRat(numberRat(txt), t.Precision, t.Scale)
		if err != nil {
			return row.Value{}, convErr("%v", err)
		}
		return v, nil
	case types.Date, types.Time, types.Timestamp:
		txt := c.text(s, i)
		n, ok := parseClock(t.Kind, txt)
		if !ok {
			return row.Value{}, convErr("%q is not %s", xform.Clip(txt), clockForms[t.Kind])
		}
		return row.Value{T: t.Kind, I: n}, nil
	case types.Bytes:
		if ch != '"' {
			return row.NullValue(), nil
		}
		txt := c.text(s, i)
		b, err := base64.StdEncoding.DecodeString(txt)
		if err != nil {
			return row.Value{}, convErr("%q is not base64 text: %v", xform.Clip(txt), err)
		}
		return row.BytesValue(b), nil
	case types.Array:
		var elems []row.Value
		var err error
		switch ch {
		case '[':
			elems = make([]row.Value, 0, 8)
			jsonscan.EachElem(s, i, func(v int) bool {
				var e row.Value
				e, err = c.convert(s, v, *t.Elem)
				elems = append(elems, e)
				return err == nil
			})
		case '{':
			n := 0
			jsonscan.EachMember(s, i, func(string, int) bool { n++; return true })
			elems = make([]row.Value, n)
		default:
			elems = []row.Value{}
		}
		if err != nil {
			return row.Value{}, err
		}
		return row.ArrayValue(elems), nil
	case types.Map:
		m := &row.MapValue{}
		if ch != '{' {
			return row.MapOfValues(m), nil
		}
		var err error
		jsonscan.EachMember(s, i, func(name string, v int) bool {
			var k, val row.Value
			// the key is read as a JSON string holding the name
			c.buf = row.AppendJSONString(c.buf[:0], jsonscan.Unescape(name))
			key := string(c.buf)
			if k, err = c.convert(key, 0, *t.Key); err != nil {
				return false
			}
			if val, err = c.convert(s, v, *t.Elem); err != nil {
				return false
			}
			m.Put(k, val)
			return true
		})
		if err != nil {
			return row.Value{}, err
		}
		return row.MapOfValues(m), nil
	case types.Row:
		rt := t.Row
		fields := make([]row.Value, rt.Len())
		var err error
		switch ch {
		case '[':
			k := 0
			jsonscan.EachElem(s, i, func(v int) bool {
				if k >= len(fields) {
					return false
				}
				if fields[k], err = c.convert(s, v, rt.Types[k]); err != nil {
					err = convErr("field %s: %v", rt.Names[k], err)
					return false
				}
				k++
				return true
			})
		case '{':
			for k, name := range rt.Names {
				if v := member(s, i, name); v >= 0 {
					if fields[k], err = c.convert(s, v, rt.Types[k]); err != nil {
						err = convErr("field %s: %v", name, err)
						break
					}
				}
			}
		}
		if err != nil {
			return row.Value{}, err
		}
		return row.RowValue(fields), nil
	}
	return row.Value{}, convErr("JsonPath cannot produce values of type %s", t)
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// isDecimalText reports whether s is a number Java's BigDecimal(String) reads: a sign, digits
// with an optional point (at least one digit) and an optional exponent.
func isDecimalText(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(s)
}

// clockForms say what the text of a date, a time and a timestamp should be.
var clockForms = map[types.Kind]string{
	types.Date:      "a date in a format SeaTunnel reads (yyyy-MM-dd, yyyy/MM/dd, yyyy.MM.dd, yyyyMMdd, yyyy年MM月dd日)",
	types.Time:      "a time HH:mm:ss[.fraction]",
	types.Timestamp: "a timestamp in a format SeaTunnel reads (such as yyyy-MM-dd HH:mm:ss[.fraction] or yyyy-MM-ddTHH:mm:ss)",
}

// parseClock reads the text of a date (as days since the epoch), a time (nanoseconds of the
// day) or a timestamp (nanoseconds since the epoch), as k says.
func parseClock(k types.Kind, s string) (int64, bool) {
	switch k {
	case types.Date:
		return parseDate(s)
	case types.Time:
		return xform.ParseClock(s, false)
	}
	return parseTimestamp(s)
}

// parseDate reads the date formats of SeaTunnel's DateUtils: yyyy-MM-dd (the date must exist)
// and yyyy年MM月dd日, yyyy/MM/dd, yyyy.MM.dd, yyyyMMdd (a day past the month's end becomes its
// last day, as Java's smart resolver does).
func parseDate(s string) (int64, bool) {
	switch {
	case len(s) == 10 && s[4] == '-' && s[7] == '-':
		return xform.YMD(s[0:4], s[5:7], s[8:10], true)
	case len(s) == 10 && (s[4] == '/' && s[7] == '/' || s[4] == '.' && s[7] == '.'):
		return xform.YMD(s[0:4], s[5:7], s[8:10], false)
	case len(s) == 8:
		return xform.YMD(s[0:4], s[4:6], s[6:8], false)
	}
	const y, m, d = "年", "月", "日"
	if len(s) == 4+len(y)+2+len(m)+2+len(d) && s[4:4+len(y)] == y && s[9:9+len(m)] == m && s[14:] == d {
		return xform.YMD(s[0:4], s[7:9], s[12:14], false)
	}
	return 0, false
}

// parseTimestamp reads the timestamp formats of SeaTunnel's DateTimeUtils, chosen by length:
// 19 characters: yyyy-MM-dd HH:mm:ss, yyyy-MM-ddTHH:mm:ss, yyyy/MM/dd HH:mm:ss,
// yyyy.MM.dd HH:mm:ss; longer: the same date forms followed by HH:mm[:ss[.fraction]], and
// yyyy年MM月dd日 HH时mm分ss秒; 14 characters: yyyyMMddHHmmss.
func parseTimestamp(s string) (int64, bool) {
	n := utf8.RuneCountInString(s)
	const day = int64(86400) * int64(time.Second)
	switch {
	case n == 14 && len(s) == 14:
		d, ok := xform.YMD(s[0:4], s[4:6], s[6:8], false)
		if !ok {
			return 0, false
		}
		t, ok := xform.ParseClock(s[8:10]+":"+s[10:12]+":"+s[12:14], false)
		return d*day + t, ok
	case n >= 19 && len(s) == n:
		sep, dsep := s[10], s[4]
		if s[7] != dsep || !(dsep == '-' || dsep == '/' || dsep == '.') {
			return 0, false
		}
		if !(sep == ' ' || sep == 'T' && dsep == '-') {
			return 0, false
		}
		// yyyy-MM-ddTHH:mm... beyond 19 characters is ISO_LOCAL_DATE_TIME, strict about the
		// day; the other forms resolve smartly.
		strict := n > 19 && sep == 'T'
		d, ok := xform.YMD(s[0:4], s[5:7], s[8:10], strict)
		if !ok {
			return 0, false
		}
		t, ok := xform.ParseClock(s[11:], n > 19)
		return d*day + t, ok
	case n > 19:
		const y, m, d, h, mi, sec = "年", "月", "日", "时", "分", "秒"
		want := "0000" + y + "00" + m + "00" + d + " 00" + h + "00" + mi + "00" + sec
		if len(s) != len(want) {
			return 0, false
		}
		for i := 0; i < len(s); i++ {
			if want[i] == '0' {
				if s[i] < '0' || s[i] > '9' {
					return 0, false
				}
			} else if s[i] != want[i] {
				return 0, false
			}
		}
		o := 4 + len(y)
		dd, ok := xform.YMD(s[0:4], s[o:o+2], s[o+2+len(m):o+4+len(m)], false)
		if !ok {
			return 0, false
		}
		o = o + 4 + len(m) + len(d) + 1
		hh, _ := xform.Digits(s[o : o+2])
		o += 2 + len(h)
		mm, _ := xform.Digits(s[o : o+2])
		o += 2 + len(mi)
		ss, _ := xform.Digits(s[o : o+2])
		if hh > 23 || mm > 59 || ss > 59 {
			return 0, false
		}
		return dd*day + int64(hh)*int64(time.Hour) + int64(mm)*int64(time.Minute) + int64(ss)*int64(time.Second), true
	}
	return 0, false
}
