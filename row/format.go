package row

import (
	"encoding/base64"
	"math"
	"strconv"

	"github.com/strait-dev/strait/internal/javatime"
	"github.com/strait-dev/strait/internal/jsontext"
	"github.com/strait-dev/strait/types"
)

// AppendText appends the value as SeaTunnel prints it (Console, text files): dates as
// 2012-12-21, timestamps as 2012-12-21T12:34:56, decimals with exactly their scale's
// digits, arrays and rows as [a, b], maps as JSON, bytes as [1, 2], null as null; the other
// scalars as AppendScalar. It allocates nothing for scalars.
func AppendText(buf []byte, v Value) []byte {
	switch v.T {
	case types.Decimal:
		return AppendDecimal(buf, v)
	case types.Array, types.Row:
		return AppendJavaList(buf, v.Fields(), AppendText)
	case types.Map:
		return AppendJSON(buf, v)
	}
	return appendScalar(buf, v)
}

// AppendScalar appends a scalar as Java's toString prints the object SeaTunnel holds for it,
// the rule every text form of values shares (AppendText, the Sql transform's text of a
// value, the Assert sink's messages): null as null, strings as they are, booleans,
// integers, floating-point numbers as AppendJavaFloat writes them, decimals as
// AppendJavaDecimal (BigDecimal.toString), dates, times and timestamps as java.time prints
// them, bytes as Arrays.toString does ([1, -1]). Arrays, maps and rows, whose text differs
// from one form to another, are written as AppendText writes them, in a buffer of their own:
// buf never reaches the element writers, so a caller's buffer on the stack stays there.
func AppendScalar(buf []byte, v Value) []byte {
	if v.T == types.Array || v.T == types.Row || v.T == types.Map {
		return append(buf, AppendText(nil, v)...)
	}
	return appendScalar(buf, v)
}

// appendScalar is AppendScalar of a value that is not an array, map or row (it writes
// nothing for those). AppendText calls it rather than AppendScalar: the two do not call
// each other, so neither one's buffer escapes through the other.
func appendScalar(buf []byte, v Value) []byte {
	switch v.T {
	case types.Null:
		return append(buf, "null"...)
	case types.String:
		return append(buf, v.S...)
	case types.Boolean:
		return strconv.AppendBool(buf, v.I != 0)
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return strconv.AppendInt(buf, v.I, 10)
	case types.Float:
		return AppendJavaFloat(buf, float64(v.Float32()), 32)
	case types.Double:
		return AppendJavaFloat(buf, v.Float64(), 64)
	case types.Decimal:
		return AppendJavaDecimal(buf, v)
	case types.Date:
		return AppendDate(buf, v.I)
	case types.Time:
		return AppendTime(buf, v.I)
	case types.Timestamp:
		return AppendTimestamp(buf, v.I)
	case types.Bytes:
		buf = append(buf, '[')
		for i := 0; i < len(v.S); i++ {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = strconv.AppendInt(buf, int64(int8(v.S[i])), 10)
		}
		return append(buf, ']')
	}
	return buf
}

// AppendJavaList appends values as Java's List.toString (and Arrays.toString) does: [a, b],
// each written by elem.
func AppendJavaList(buf []byte, elems []Value, elem func([]byte, Value) []byte) []byte {
	buf = append(buf, '[')
	for i, e := range elems {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = elem(buf, e)
	}
	return append(buf, ']')
}

// AppendJavaMap appends a map as Java's Map.toString does: {k=v, k2=v2}, keys and values
// written by elem; a nil map is written as {}.
func AppendJavaMap(buf []byte, m *MapValue, elem func([]byte, Value) []byte) []byte {
	buf = append(buf, '{')
	if m != nil {
		for i := range m.Keys[:min(len(m.Keys), len(m.Vals))] {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = elem(buf, m.Keys[i])
			buf = append(buf, '=')
			buf = elem(buf, m.Vals[i])
		}
	}
	return append(buf, '}')
}

// AppendJSON appends the value as JSON: strings quoted, dates and times as strings, bytes as
// base64, maps as objects with their keys as strings, arrays and rows as arrays; NaN and
// infinities, which JSON has no number for, as null.
func AppendJSON(buf []byte, v Value) []byte { return appendJSON(buf, v, false) }

// AppendJSONNonFiniteStrings is AppendJSON but for NaN and infinities, which it writes as
// the strings "NaN", "Infinity" and "-Infinity", as Jackson does by default (SeaTunnel hands
// values to JsonPath so).
func AppendJSONNonFiniteStrings(buf []byte, v Value) []byte { return appendJSON(buf, v, true) }

func appendJSON(buf []byte, v Value, nonFiniteStrings bool) []byte {
	switch v.T {
	case types.Null:
		return append(buf, "null"...)
	case types.String:
		return AppendJSONString(buf, v.S)
	case types.Bytes:
		buf = append(buf, '"')
		buf = base64.StdEncoding.AppendEncode(buf, []byte(v.S))
		return append(buf, '"')
	case types.Float, types.Double:
		f, _ := v.AsFloat64()
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			return appendScalar(buf, v)
		}
		if !nonFiniteStrings {
			return append(buf, "null"...)
		}
		buf = append(buf, '"')
		buf = AppendText(buf, v)
		return append(buf, '"')
	case types.Date, types.Time, types.Timestamp:
		buf = append(buf, '"')
		buf = appendScalar(buf, v)
		return append(buf, '"')
	case types.Decimal:
		return AppendDecimal(buf, v)
	case types.Array, types.Row:
		buf = append(buf, '[')
		for i, e := range v.Fields() {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSON(buf, e, nonFiniteStrings)
		}
		return append(buf, ']')
	case types.Map:
		buf = append(buf, '{')
		if m := v.Map(); m != nil {
			for i := range m.Keys {
				if i > 0 {
					buf = append(buf, ',')
				}
				if m.Keys[i].T == types.String {
					buf = AppendJSONString(buf, m.Keys[i].S)
				} else {
					buf = AppendJSONString(buf, string(AppendText(nil, m.Keys[i])))
				}
				buf = append(buf, ':')
				buf = appendJSON(buf, m.Vals[i], nonFiniteStrings)
			}
		}
		return append(buf, '}')
	}
	// booleans and integers, as AppendText writes them (without its own switch: this is the
	// writers' hot path)
	return appendScalar(buf, v)
}

// AppendJavaFloat formats a float the way Java's Float/Double.toString does for the common
// range: always with a fraction ("1.0"), exponent form outside [1e-3, 1e7).
func AppendJavaFloat(buf []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, "NaN"...)
	case math.IsInf(f, 1):
		return append(buf, "Infinity"...)
	case math.IsInf(f, -1):
		return append(buf, "-Infinity"...)
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-3 || abs >= 1e7) {
		start := len(buf)
		buf = strconv.AppendFloat(buf, f, 'E', -1, bits)
		// Java writes 1.0E10, Go 1E+10: insert ".0" when there is no fraction and drop '+'.
		out := buf[start:]
		e := 0
		for e < len(out) && out[e] != 'E' {
			e++
		}
		mant, exp := string(out[:e]), string(out[e+1:])
		buf = buf[:start]
		buf = append(buf, mant...)
		hasDot := false
		for i := 0; i < len(mant); i++ {
			if mant[i] == '.' {
				hasDot = true
			}
		}
		if !hasDot {
			buf = append(buf, ".0"...)
		}
		buf = append(buf, 'E')
		if len(exp) > 0 && exp[0] == '+' {
			exp = exp[1:]
		}
		if len(exp) > 0 && exp[0] == '-' {
			buf = append(buf, '-')
			exp = exp[1:]
		}
		// Go pads the exponent to two digits (1E-07), Java does not (1E-7).
		for len(exp) > 1 && exp[0] == '0' {
			exp = exp[1:]
		}
		return append(buf, exp...)
	}
	start := len(buf)
	buf = strconv.AppendFloat(buf, f, 'f', -1, bits)
	for i := start; i < len(buf); i++ {
		if buf[i] == '.' {
			return buf
		}
	}
	return append(buf, ".0"...)
}

// AppendDecimal writes a decimal with exactly its scale's digits after the point.
func AppendDecimal(buf []byte, v Value) []byte {
	u := v.Unscaled()
	scale := int(v.I)
	if u == nil {
		return append(buf, "null"...)
	}
	digits := u.String()
	neg := false
	if digits[0] == '-' {
		neg = true
		digits = digits[1:]
	}
	if neg {
		buf = append(buf, '-')
	}
	if scale <= 0 {
		buf = append(buf, digits...)
		for i := 0; i < -scale; i++ {
			buf = append(buf, '0')
		}
		return buf
	}
	if len(digits) <= scale {
		buf = append(buf, "0."...)
		for i := len(digits); i < scale; i++ {
			buf = append(buf, '0')
		}
		return append(buf, digits...)
	}
	buf = append(buf, digits[:len(digits)-scale]...)
	buf = append(buf, '.')
	return append(buf, digits[len(digits)-scale:]...)
}

// AppendJavaDecimal writes a decimal as Java's BigDecimal.toString does, as SeaTunnel prints
// and writes decimals as text: plain notation unless the scale is negative or the value is
// smaller than 1E-6, then scientific notation with an explicit exponent sign (1.23E-8, 1E+3).
// A null decimal is written as null.
func AppendJavaDecimal(b []byte, v Value) []byte {
	u := v.Unscaled()
	if u == nil {
		return append(b, "null"...)
	}
	var tmp [40]byte
	digits := u.Append(tmp[:0], 10)
	neg := digits[0] == '-'
	if neg {
		digits = digits[1:]
	}
	return AppendJavaDecimalDigits(b, neg, digits, int64(v.DecimalScale()))
}

// AppendJavaDecimalDigits writes the decimal whose unscaled value has the given decimal
// digits (no leading zeros, "0" for zero) and sign, at the given scale, as Java's
// BigDecimal.toString does (see AppendJavaDecimal).
func AppendJavaDecimalDigits[S string | []byte](b []byte, neg bool, digits S, scale int64) []byte {
	if neg {
		b = append(b, '-')
	}
	n := int64(len(digits))
	adjusted := -scale + n - 1
	switch {
	case scale == 0:
		return append(b, digits...)
	case scale > 0 && adjusted >= -6:
		if point := n - scale; point > 0 {
			b = append(b, digits[:point]...)
			b = append(b, '.')
			return append(b, digits[point:]...)
		}
		b = append(b, "0."...)
		for i := n; i < scale; i++ {
			b = append(b, '0')
		}
		return append(b, digits...)
	}
	// d.dddE±x
	b = append(b, digits[0])
	if n > 1 {
		b = append(b, '.')
		b = append(b, digits[1:]...)
	}
	b = append(b, 'E')
	if adjusted >= 0 {
		b = append(b, '+')
	}
	return strconv.AppendInt(b, adjusted, 10)
}

// AppendDate writes days since the epoch as LocalDate.toString does: yyyy-MM-dd.
func AppendDate(buf []byte, days int64) []byte { return javatime.AppendLocalDate(buf, days) }

// AppendTime writes nanoseconds of the day as Java's LocalTime.toString does: HH:mm when
// seconds and fraction are zero, else HH:mm:ss and the fraction (when non-zero) in milli,
// micro or nano precision.
func AppendTime(buf []byte, nanos int64) []byte { return javatime.AppendLocalTime(buf, nanos) }

// AppendTimestamp writes nanoseconds since the epoch as LocalDateTime.toString does:
// yyyy-MM-ddTHH:mm[:ss[.fraction]].
func AppendTimestamp(buf []byte, nanos int64) []byte {
	return javatime.AppendLocalDateTime(buf, nanos)
}

// String renders the value as AppendText does.
func (v Value) String() string { return string(AppendText(nil, v)) }

// AppendJSONString appends s as a JSON string the way Jackson (SeaTunnel's JSON library)
// writes it (jsontext.Append): every JSON writer of the sinks and formats goes through it.
func AppendJSONString(buf []byte, s string) []byte { return jsontext.Append(buf, s) }

// AppendJSONObject appends a row as a JSON object of its fields by name, in SeaTunnel's
// json format: nested rows as objects, arrays of rows as arrays of objects, every other
// value as AppendJSON writes it. The sinks that write documents (Kafka's json, Http,
// Redis, Elasticsearch) share it.
func AppendJSONObject(buf []byte, fields []Value, rt *types.RowType) []byte {
	buf = append(buf, '{')
	for i := range fields {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = AppendJSONString(buf, rt.Names[i])
		buf = append(buf, ':')
		buf = AppendJSONAs(buf, fields[i], rt.Types[i])
	}
	return append(buf, '}')
}

// AppendJSONAs appends a value of type t as AppendJSONObject writes a field: a row that has
// its type's fields as an object, an array of rows as objects, the rest as AppendJSON.
func AppendJSONAs(buf []byte, v Value, t types.DataType) []byte {
	switch {
	case v.T == types.Row && t.Kind == types.Row && t.Row != nil && len(v.Fields()) == t.Row.Len():
		return AppendJSONObject(buf, v.Fields(), t.Row)
	case v.T == types.Array && t.Kind == types.Array && t.Elem != nil && t.Elem.Kind == types.Row:
		buf = append(buf, '[')
		for i, e := range v.Elems() {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = AppendJSONAs(buf, e, *t.Elem)
		}
		return append(buf, ']')
	}
	return AppendJSON(buf, v)
}
