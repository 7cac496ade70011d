package assert

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// SeaTunnel's Assert reads an equals_to literal with its JSON converter, which makes a decimal
// a BigDecimal of the literal's own digits (an unquoted number becomes a Java double first,
// so it is read as Double.toString prints it), and compares with BigDecimal.equals: the same
// value written with the same scale. A literal with more digits than the value, or with fewer
// ("12.4" against decimal(10, 2)'s 12.40), is not equal to it. The literal converter rounds
// decimals to the column's scale, which would let 99999.999999993 equal 99999.99999999; the
// functions here keep the literal's own decimals and compare their scales.

// hasDecimal reports whether a type holds a decimal anywhere.
func hasDecimal(t types.DataType) bool {
	switch t.Kind {
	case types.Decimal:
		return true
	case types.Array:
		return hasDecimal(*t.Elem)
	case types.Map:
		return hasDecimal(*t.Key) || hasDecimal(*t.Elem)
	case types.Row:
		for _, ft := range t.Row.Types {
			if hasDecimal(ft) {
				return true
			}
		}
	}
	return false
}

// exactDecimals replaces the decimals of eq, converted from lit for type t, by the literal's
// own decimals. It walks the literal as the converter does (lists for arrays and rows, objects
// or their text for maps, objects by field name for rows); ok is false where a decimal is no
// number Java reads.
func exactDecimals(lit *hocon.Value, t types.DataType, eq row.Value) (row.Value, bool) {
	if lit == nil || lit.Kind == hocon.Null || eq.IsNull() || !hasDecimal(t) {
		return eq, true
	}
	switch t.Kind {
	case types.Decimal:
		return javaDecimal(lit)
	case types.Array:
		elems := eq.Elems()
		for i := range elems {
			if i >= len(lit.Elems) {
				break
			}
			var ok bool
			if elems[i], ok = exactDecimals(lit.Elems[i], *t.Elem, elems[i]); !ok {
				return eq, false
			}
		}
	case types.Row:
		return eq, exactRowDecimals(lit, t.Row, eq.Fields())
	case types.Map:
		return eq, exactMapDecimals(lit, t, eq.Map())
	}
	return eq, true
}

func exactRowDecimals(lit *hocon.Value, rt *types.RowType, fields []row.Value) bool {
	for i := range fields {
		var fl *hocon.Value
		switch {
		case lit.Kind == hocon.Array && i < len(lit.Elems):
			fl = lit.Elems[i]
		case lit.Kind == hocon.Object:
			fl = lit.Get(rt.Names[i])
		}
		var ok bool
		if fields[i], ok = exactDecimals(fl, rt.Types[i], fields[i]); !ok {
			return false
		}
	}
	return true
}

func exactMapDecimals(lit *hocon.Value, t types.DataType, m *row.MapValue) bool {
	obj := lit
	if lit.Kind == hocon.String {
		parsed, err := hocon.Parse([]byte(lit.Str), hocon.Options{LookupEnv: func(string) (string, bool) { return "", false }})
		if err != nil {
			return false
		}
		obj = parsed
	}
	if m == nil {
		return false
	}
	for _, f := range obj.Fields {
		kl := &hocon.Value{Kind: hocon.String, Str: f.Key, Pos: f.Value.Pos}
		k, err := literal.Convert(kl, *t.Key)
		if err != nil {
			return false
		}
		i := indexOfKey(m, k)
		if i < 0 {
			return false
		}
		var ok bool
		if m.Keys[i], ok = exactDecimals(kl, *t.Key, m.Keys[i]); !ok {
			return false
		}
		if m.Vals[i], ok = exactDecimals(f.Value, *t.Elem, m.Vals[i]); !ok {
			return false
		}
	}
	return true
}

func indexOfKey(m *row.MapValue, k row.Value) int {
	for i := range m.Keys {
		if row.Equal(m.Keys[i], k) {
			return i
		}
	}
	return -1
}

// javaDecimal reads a decimal literal as SeaTunnel does: a string as new BigDecimal(text), an
// unquoted number with a point or an exponent through Double.toString. The scale may be
// negative ("1E+3" has scale -3), as a BigDecimal's may.
func javaDecimal(v *hocon.Value) (row.Value, bool) {
	text := strings.TrimSpace(v.Str)
	switch v.Kind {
	case hocon.String:
	case hocon.Number:
		if strings.ContainsAny(text, ".eE") {
			f, err := strconv.ParseFloat(text, 64)
			if err != nil {
				return row.Value{}, false
			}
			text = string(row.AppendJavaFloat(nil, f, 64))
		}
	default:
		return row.Value{}, false
	}
	return parseBigDecimal(text)
}

// parseBigDecimal reads Java's BigDecimal text: an optional sign, digits with an optional
// point, an optional exponent. The value keeps every digit written, and the scale is the
// number of digits after the point less the exponent.
func parseBigDecimal(s string) (row.Value, bool) {
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 400 || e < -400 {
			return row.Value{}, false
		}
		mant, exp = s[:i], e
	}
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(strings.TrimPrefix(mant, "-"), "+")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return row.Value{}, false
	}
	u, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return row.Value{}, false
	}
	if neg {
		u.Neg(u)
	}
	return row.DecimalValue(u, len(frac)-exp), true
}

// sameScales reports whether the decimals of a value and an equals_to literal, equal as
// numbers, also have the same scales, position by position (map entries by key).
func sameScales(v, eq row.Value) bool {
	if v.T != eq.T {
		return true // row.Equal has told them apart already
	}
	switch v.T {
	case types.Decimal:
		return v.DecimalScale() == eq.DecimalScale()
	case types.Array, types.Row:
		a, b := v.Fields(), eq.Fields()
		for i := range min(len(a), len(b)) {
			if !sameScales(a[i], b[i]) {
				return false
			}
		}
	case types.Map:
		mv, me := v.Map(), eq.Map()
		if mv == nil || me == nil {
			return true
		}
		for i := range me.Keys {
			j := indexOfKey(mv, me.Keys[i])
			if j >= 0 && (!sameScales(mv.Keys[j], me.Keys[i]) || !sameScales(mv.Vals[j], me.Vals[i])) {
				return false
			}
		}
	}
	return true
}
