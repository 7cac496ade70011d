package json

import (
	"encoding/base64"
	"math"
	"strconv"

	"github.com/strait-dev/strait/internal/javatime"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

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

// AppendValue writes v as SeaTunnel's JsonSerializationSchema (Jackson) does. t is the
// declared type, used for the field names of nested rows; without it a nested row is
// written as an array.
func AppendValue(b []byte, v *row.Value, t *types.DataType) []byte {
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
			b = AppendValue(b, &els[i], et)
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
				b = AppendValue(b, &m.Vals[i], vt)
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
				b = AppendValue(b, &fields[i], nil)
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
			b = AppendValue(b, &fields[i], &t.Row.Types[i])
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
		return AppendValue(b, k, t)
	}
	var tmp [64]byte
	return row.AppendJSONString(b, string(AppendValue(tmp[:0], k, t)))
}

// Keys are the beginnings of the members of an object of the columns names, in order:
// `{"a":`, then `,"b":`..., so that writing an object is a key and a value per column and a
// closing brace.
func Keys(names []string) [][]byte {
	keys := make([][]byte, len(names))
	for i, n := range names {
		sep := byte(',')
		if i == 0 {
			sep = '{'
		}
		keys[i] = row.AppendJSONString(append([]byte(nil), sep), n)
		keys[i] = append(keys[i], ':')
	}
	return keys
}
