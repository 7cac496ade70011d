package file

import (
	"encoding/base64"
	"math"
	"strconv"

	"github.com/strait-dev/strait/internal/javatime"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// separators are SeaTunnel's text-format separators by nesting level: the field delimiter
// (\u0001 unless configured), then \u0002 for array elements and map entries, \u0003 between
// a map key and its value, and so on, each nested level one further.
var defaultSeparators = [7]string{"\u0001", "\u0002", "\u0003", "\u0004", "\u0005", "\u0006", "\u0007"}

// maxTextLevel is the deepest level a text value may use a separator of.
const maxTextLevel = len(defaultSeparators) - 1

// textEncoder writes values as SeaTunnel's TextSerializationSchema does: nulls as nothing,
// numbers as Java prints them, dates, times and timestamps in the configured layouts,
// bytes as their raw content, and composite values joined with the nested separators.
type textEncoder struct {
	seps [7]string
	date *javatime.Pattern
	dt   *javatime.Pattern
	tm   *javatime.Pattern
}

func (e *textEncoder) sep(level int) string {
	if level > maxTextLevel {
		level = maxTextLevel
	}
	return e.seps[level]
}

func (e *textEncoder) appendValue(b []byte, v *row.Value, level int) []byte {
	switch v.T {
	case types.Null:
		return b
	case types.String, types.Bytes:
		return append(b, v.S...)
	case types.Boolean:
		return strconv.AppendBool(b, v.I != 0)
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return strconv.AppendInt(b, v.I, 10)
	case types.Float:
		return row.AppendJavaFloat(b, float64(v.Float32()), 32)
	case types.Double:
		return row.AppendJavaFloat(b, v.Float64(), 64)
	case types.Decimal:
		return row.AppendJavaDecimal(b, *v)
	case types.Date:
		return e.date.Append(b, javatime.Date(v.I))
	case types.Time:
		return e.tm.Append(b, javatime.Time(v.I))
	case types.Timestamp:
		return e.dt.Append(b, javatime.DateTime(v.I))
	case types.Array, types.Row:
		els := v.Fields()
		for i := range els {
			if i > 0 {
				b = append(b, e.sep(level+1)...)
			}
			b = e.appendValue(b, &els[i], level+1)
		}
		return b
	case types.Map:
		m := v.Map()
		if m == nil {
			return b
		}
		for i := range m.Keys {
			if i > 0 {
				b = append(b, e.sep(level+1)...)
			}
			b = e.appendValue(b, &m.Keys[i], level+1)
			b = append(b, e.sep(level+2)...)
			b = e.appendValue(b, &m.Vals[i], level+1)
		}
		return b
	}
	return b
}

// textDepth is the deepest separator index values of type t use when written at level.
func textDepth(t types.DataType, level int) int {
	switch t.Kind {
	case types.Array:
		return max(level+1, textDepth(*t.Elem, level+1))
	case types.Map:
		return max(level+2, textDepth(*t.Key, level+1), textDepth(*t.Elem, level+1))
	case types.Row:
		d := level + 1
		for _, ft := range t.Row.Types {
			d = max(d, textDepth(ft, level+1))
		}
		return d
	}
	return level
}

// appendJSONFloat writes a float as Jackson does: Java's toString, and NaN and the
// infinities as quoted strings.
func appendJSONFloat(b []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		b = append(b, '"')
		b = row.AppendJavaFloat(b, f, bits)
		return append(b, '"')
	}
	return row.AppendJavaFloat(b, f, bits)
}

// appendJSONValue writes v as SeaTunnel's JsonSerializationSchema (Jackson) does. t is the
// declared type, used for the field names of nested rows; without it a nested row is
// written as an array.
func appendJSONValue(b []byte, v *row.Value, t *types.DataType) []byte {
	switch v.T {
	case types.Null:
		return append(b, "null"...)
	case types.String:
		return row.AppendJSONString(b, v.S)
	case types.Boolean:
		return strconv.AppendBool(b, v.I != 0)
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return strconv.AppendInt(b, v.I, 10)
	case types.Float:
		return appendJSONFloat(b, float64(v.Float32()), 32)
	case types.Double:
		return appendJSONFloat(b, v.Float64(), 64)
	case types.Decimal:
		if v.Unscaled() == nil {
			return append(b, "null"...)
		}
		return row.AppendJavaDecimal(b, *v)
	case types.Bytes:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, []byte(v.S))
		return append(b, '"')
	case types.Date:
		b = append(b, '"')
		b = javatime.AppendLocalDate(b, v.I)
		return append(b, '"')
	case types.Time:
		b = append(b, '"')
		b = javatime.AppendISOLocalTime(b, v.I)
		return append(b, '"')
	case types.Timestamp:
		b = append(b, '"')
		b = javatime.AppendISOLocalDateTime(b, v.I)
		return append(b, '"')
	case types.Array:
		var et *types.DataType
		if t != nil && t.Kind == types.Array {
			et = t.Elem
		}
		b = append(b, '[')
		els := v.Elems()
		for i := range els {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONValue(b, &els[i], et)
		}
		return append(b, ']')
	case types.Map:
		var kt, vt *types.DataType
		if t != nil && t.Kind == types.Map {
			kt, vt = t.Key, t.Elem
		}
		m := v.Map()
		b = append(b, '{')
		if m != nil {
			for i := range m.Keys {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendJSONKey(b, &m.Keys[i], kt)
				b = append(b, ':')
				b = appendJSONValue(b, &m.Vals[i], vt)
			}
		}
		return append(b, '}')
	case types.Row:
		fields := v.Fields()
		if t == nil || t.Kind != types.Row || t.Row == nil || t.Row.Len() != len(fields) {
			b = append(b, '[')
			for i := range fields {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendJSONValue(b, &fields[i], nil)
			}
			return append(b, ']')
		}
		b = append(b, '{')
		for i := range fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = row.AppendJSONString(b, t.Row.Names[i])
			b = append(b, ':')
			b = appendJSONValue(b, &fields[i], &t.Row.Types[i])
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

// appendJSONKey writes a map key as Jackson does: textual values (strings, dates, times,
// timestamps) as their text, anything else as its JSON text, quoted as a string.
func appendJSONKey(b []byte, k *row.Value, t *types.DataType) []byte {
	switch k.T {
	case types.String:
		return row.AppendJSONString(b, k.S)
	case types.Date, types.Time, types.Timestamp:
		return appendJSONValue(b, k, t)
	}
	var tmp [64]byte
	return row.AppendJSONString(b, string(appendJSONValue(tmp[:0], k, t)))
}
