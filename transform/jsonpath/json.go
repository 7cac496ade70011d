package jsonpath

import (
	"encoding/base64"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/internal/jsonscan"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
	"github.com/strait-dev/strait/types"
)

// JSON is handled as text: a document is checked once (Check), and from then on values are
// spans of it that are skipped, searched and converted without building a tree
// (internal/jsonscan). Every function but Check assumes its input was checked.

// maxDepth bounds the nesting of a document, so a hostile one cannot exhaust the stack.
const maxDepth = 10000

// rules are RFC 8259's: JsonPath's own liberties are Permissive's.
var rules = jsonscan.Rules{MaxDepth: maxDepth}

// Check reports whether s is one JSON value (RFC 8259), surrounded by optional whitespace.
func Check(s string) error { return jsonscan.Check(s, &rules) }

// nameIs compares a raw member name with a name.
func nameIs(raw, name string) bool {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw == name
	}
	return jsonscan.Unescape(raw) == name
}

// member returns the start of the value of the member named name in the object at s[i], or
// -1. A repeated name gives its last value, as the reader SeaTunnel uses does.
func member(s string, i int, name string) int {
	at := -1
	jsonscan.EachMember(s, i, func(raw string, v int) bool {
		if nameIs(raw, name) {
			at = v
		}
		return true
	})
	return at
}

// arrayLen counts the elements of the array at s[i].
func arrayLen(s string, i int) int {
	n := 0
	jsonscan.EachElem(s, i, func(int) bool { n++; return true })
	return n
}

// elemAt returns the start of element k of the array at s[i], or -1.
func elemAt(s string, i, k int) int {
	at := -1
	jsonscan.EachElem(s, i, func(v int) bool {
		if k == 0 {
			at = v
			return false
		}
		k--
		return true
	})
	return at
}

// Numbers. SeaTunnel's JSON reader keeps an integer as int, long or BigInteger, a number with
// a fraction or exponent of up to 18 characters as a double and a longer one as a BigDecimal;
// what they print as, and how they convert, follows from that.

type numKind uint8

const (
	numInt     numKind = iota // an integer of any size
	numDouble                 // parsed as float64
	numDecimal                // kept exactly
)

func classify(lit string) numKind {
	if strings.ContainsAny(lit, ".eE") {
		if len(lit) > 18 {
			return numDecimal
		}
		return numDouble
	}
	return numInt
}

// numberText is a number's text as Java prints the value the reader made of it.
func numberText(buf []byte, lit string) []byte {
	switch classify(lit) {
	case numInt:
		if lit == "-0" {
			return append(buf, '0')
		}
		return append(buf, lit...)
	case numDouble:
		f, _ := strconv.ParseFloat(lit, 64)
		return row.AppendJavaFloat(buf, f, 64)
	}
	return appendBigDecimal(buf, lit)
}

// appendBigDecimal writes a decimal literal as Java's BigDecimal.toString writes it.
func appendBigDecimal(buf []byte, lit string) []byte {
	neg := false
	if lit[0] == '-' {
		neg, lit = true, lit[1:]
	}
	mant, exp := lit, 0
	if e := strings.IndexAny(lit, "eE"); e >= 0 {
		mant = lit[:e]
		exp, _ = strconv.Atoi(strings.TrimPrefix(lit[e+1:], "+"))
	}
	digits, scale := mant, 0
	if d := strings.IndexByte(mant, '.'); d >= 0 {
		digits = mant[:d] + mant[d+1:]
		scale = len(mant) - d - 1
	}
	scale -= exp
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		digits = "0"
		neg = false
	}
	if neg {
		buf = append(buf, '-')
	}
	adjusted := -scale + len(digits) - 1
	switch {
	case scale == 0:
		return append(buf, digits...)
	case scale > 0 && adjusted >= -6:
		if point := len(digits) - scale; point > 0 {
			buf = append(buf, digits[:point]...)
			buf = append(buf, '.')
			return append(buf, digits[point:]...)
		} else {
			buf = append(buf, "0."...)
			for ; point < 0; point++ {
				buf = append(buf, '0')
			}
			return append(buf, digits...)
		}
	}
	buf = append(buf, digits[0])
	if len(digits) > 1 {
		buf = append(buf, '.')
		buf = append(buf, digits[1:]...)
	}
	buf = append(buf, 'E')
	if adjusted > 0 {
		buf = append(buf, '+')
	}
	return strconv.AppendInt(buf, int64(adjusted), 10)
}

// numberRat is the exact value of a number literal.
func numberRat(lit string) *big.Rat {
	r, _ := new(big.Rat).SetString(lit)
	return r
}

// numberInt converts a number to an integer of the given bits as SeaTunnel's converters do:
// integers when in range, other numbers truncated toward zero when in range. ok is false when out of range.
func numberInt(lit string, bits int) (int64, bool) {
	lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
	if bits == 64 {
		lo, hi = math.MinInt64, math.MaxInt64
	}
	switch classify(lit) {
	case numInt:
		n, err := strconv.ParseInt(lit, 10, 64)
		if err != nil || n < lo || n > hi {
			return 0, false
		}
		return n, true
	case numDouble:
		f, _ := strconv.ParseFloat(lit, 64)
		if math.IsNaN(f) || f < float64(lo) || f > float64(hi) {
			return 0, false
		}
		if bits == 64 && f >= 9223372036854775807 {
			return math.MaxInt64, true // Java's (long) cast saturates
		}
		return int64(f), true
	}
	if !xform.ExponentOK(lit) {
		return 0, false
	}
	r := numberRat(lit)
	if r.Cmp(new(big.Rat).SetInt64(lo)) < 0 || r.Cmp(new(big.Rat).SetInt64(hi)) > 0 {
		return 0, false
	}
	return new(big.Int).Quo(r.Num(), r.Denom()).Int64(), true
}

// Compact JSON as SeaTunnel writes a selected object or array: no whitespace, strings escaped with \" \\ \b \f \n
// \r \t and \u00XX for other control characters, numbers as Java prints them.

func appendCompact(buf []byte, s string, i int) []byte {
	switch c := s[i]; {
	case c == '{':
		buf = append(buf, '{')
		first := true
		jsonscan.EachMember(s, i, func(name string, v int) bool {
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = row.AppendJSONString(buf, jsonscan.Unescape(name))
			buf = append(buf, ':')
			buf = appendCompact(buf, s, v)
			return true
		})
		return append(buf, '}')
	case c == '[':
		buf = append(buf, '[')
		first := true
		jsonscan.EachElem(s, i, func(v int) bool {
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = appendCompact(buf, s, v)
			return true
		})
		return append(buf, ']')
	case c == '"':
		end := jsonscan.SkipString(s, i)
		return row.AppendJSONString(buf, jsonscan.Unescape(s[i+1:end-1]))
	case c == '-' || c >= '0' && c <= '9':
		return numberText(buf, s[i:jsonscan.Skip(s, i)])
	}
	return append(buf, s[i:jsonscan.Skip(s, i)]...)
}

// appendValue writes a field value as JSON, the way SeaTunnel hands array, map and row fields
// to JsonPath: arrays and rows as arrays, maps as objects keyed by the keys' text, bytes as
// base64, numbers as Java prints them (NaN and infinities as strings), and dates, times and
// timestamps as ISO text (SeaTunnel's writer makes arrays of their parts).
func appendValue(buf []byte, v row.Value) []byte {
	switch v.T {
	case types.Null:
		return append(buf, "null"...)
	case types.String:
		return row.AppendJSONString(buf, v.S)
	case types.Boolean:
		return strconv.AppendBool(buf, v.Bool())
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return strconv.AppendInt(buf, v.I, 10)
	case types.Float, types.Double:
		f, _ := v.AsFloat64()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			buf = append(buf, '"')
			buf = row.AppendText(buf, v)
			return append(buf, '"')
		}
		return row.AppendText(buf, v)
	case types.Decimal:
		return row.AppendDecimal(buf, v)
	case types.Bytes:
		buf = append(buf, '"')
		buf = base64.StdEncoding.AppendEncode(buf, []byte(v.S))
		return append(buf, '"')
	case types.Date, types.Time, types.Timestamp:
		buf = append(buf, '"')
		buf = row.AppendText(buf, v)
		return append(buf, '"')
	case types.Array, types.Row:
		buf = append(buf, '[')
		for i, e := range v.Fields() {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendValue(buf, e)
		}
		return append(buf, ']')
	case types.Map:
		buf = append(buf, '{')
		if m := v.Map(); m != nil {
			for i := range m.Keys {
				if i > 0 {
					buf = append(buf, ',')
				}
				if k := m.Keys[i]; k.T == types.String {
					buf = row.AppendJSONString(buf, k.S)
				} else {
					buf = row.AppendJSONString(buf, k.String())
				}
				buf = append(buf, ':')
				buf = appendValue(buf, m.Vals[i])
			}
		}
		return append(buf, '}')
	}
	return append(buf, "null"...)
}
