package text

import (
	"strconv"

	"github.com/strait-dev/strait/internal/javatime"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// DefaultSeparators are SeaTunnel's text-format separators by nesting level: the field delimiter
// (\u0001 unless configured), then \u0002 for array elements and map entries, \u0003 between
// a map key and its value, and so on, each nested level one further.
var DefaultSeparators = [7]string{"\u0001", "\u0002", "\u0003", "\u0004", "\u0005", "\u0006", "\u0007"}

// MaxLevel is the deepest level a text value may use a separator of.
const MaxLevel = len(DefaultSeparators) - 1

// Encoder writes values as SeaTunnel's TextSerializationSchema does: nulls as nothing,
// numbers as Java prints them, dates, times and timestamps in the configured layouts,
// bytes as their raw content, and composite values joined with the nested separators.
type Encoder struct {
	// Seps are the separators by nesting level (DefaultSeparators, the first the field
	// delimiter).
	Seps [7]string
	// Date, DateTime and Time are the layouts of dates, timestamps and times.
	Date, DateTime, Time *javatime.Pattern
}

func (e *Encoder) sep(level int) string {
	if level > MaxLevel {
		level = MaxLevel
	}
	return e.Seps[level]
}

// AppendValue appends v, written at nesting level level (0 for a field), to b.
func (e *Encoder) AppendValue(b []byte, v *row.Value, level int) []byte {
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
		return e.Date.Append(b, javatime.Date(v.I))
	case types.Time:
		return e.Time.Append(b, javatime.Time(v.I))
	case types.Timestamp:
		return e.DateTime.Append(b, javatime.DateTime(v.I))
	case types.Array, types.Row:
		els := v.Fields()
		for i := range els {
			if i > 0 {
				b = append(b, e.sep(level+1)...)
			}
			b = e.AppendValue(b, &els[i], level+1)
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
			b = e.AppendValue(b, &m.Keys[i], level+1)
			b = append(b, e.sep(level+2)...)
			b = e.AppendValue(b, &m.Vals[i], level+1)
		}
		return b
	}
	return b
}

// Depth is the deepest separator index values of type t use when written at level.
func Depth(t types.DataType, level int) int {
	switch t.Kind {
	case types.Array:
		return max(level+1, Depth(*t.Elem, level+1))
	case types.Map:
		return max(level+2, Depth(*t.Key, level+1), Depth(*t.Elem, level+1))
	case types.Row:
		d := level + 1
		for _, ft := range t.Row.Types {
			d = max(d, Depth(ft, level+1))
		}
		return d
	}
	return level
}
