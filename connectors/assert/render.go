package assert

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// The renderers here write values, types and rules the way SeaTunnel's messages show them
// (Java's toString of the row's objects), so failures read the same in both engines.

// appendJava appends a value as Java's String.valueOf renders the object SeaTunnel holds:
// scalars as row.AppendScalar writes them, arrays and maps as Java's collections print
// ({k=v} where the printed form writes JSON), a null map as null, and rows as
// SeaTunnelRow.toString.
func appendJava(buf []byte, v row.Value) []byte {
	switch v.T {
	case types.Array:
		return row.AppendJavaList(buf, v.Elems(), appendJava)
	case types.Map:
		if m := v.Map(); m != nil {
			return row.AppendJavaMap(buf, m, appendJava)
		}
		return append(buf, "null"...)
	case types.Row:
		return appendRow(buf, "", "+I", v.Fields())
	}
	return row.AppendScalar(buf, v)
}

// appendRow renders SeaTunnelRow.toString: SeaTunnelRow{tableId=t, kind=+I, fields=[...]}.
func appendRow(buf []byte, table, kind string, fields []row.Value) []byte {
	buf = append(buf, "SeaTunnelRow{tableId="...)
	buf = append(buf, table...)
	buf = append(buf, ", kind="...)
	buf = append(buf, kind...)
	buf = append(buf, ", fields=["...)
	for i, f := range fields {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = appendJava(buf, f)
	}
	return append(buf, "]}"...)
}

// javaLength is String.valueOf(value).length(): UTF-16 code units; null counts as "".
func javaLength(v row.Value) int {
	var s string
	switch v.T {
	case types.Null:
		return 0
	case types.String:
		s = v.S
	default:
		s = string(appendJava(nil, v))
	}
	n := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

// javaType renders a type as SeaTunnel's SeaTunnelDataType.toString does.
func javaType(t types.DataType) string {
	switch t.Kind {
	case types.Decimal:
		return "Decimal(" + strconv.Itoa(t.Precision) + ", " + strconv.Itoa(t.Scale) + ")"
	case types.Array:
		return "ARRAY<" + javaType(*t.Elem) + ">"
	case types.Map:
		return "Map<" + javaType(*t.Key) + ", " + javaType(*t.Elem) + ">"
	case types.Row:
		var b strings.Builder
		b.WriteString("ROW<")
		for i, n := range t.Row.Names {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(n)
			b.WriteByte(' ')
			b.WriteString(javaType(t.Row.Types[i]))
		}
		b.WriteByte('>')
		return b.String()
	}
	return strings.ToUpper(t.Kind.String())
}

// javaConfig renders a config value as Java's toString of its unwrapped form.
func javaConfig(v *hocon.Value) string {
	if v == nil {
		return "null"
	}
	switch v.Kind {
	case hocon.String, hocon.Number:
		return v.Str
	case hocon.Bool:
		return strconv.FormatBool(v.Bool)
	case hocon.Array:
		parts := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			parts[i] = javaConfig(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case hocon.Object:
		parts := make([]string, len(v.Fields))
		for i, f := range v.Fields {
			parts[i] = f.Key + "=" + javaConfig(f.Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "null"
}

func javaDouble(f float64) string { return string(row.AppendJavaFloat(nil, f, 64)) }
