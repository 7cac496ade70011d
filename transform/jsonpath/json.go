package jsonpath

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/internal/jsonscan"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
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
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		digits, neg = "0", false
	}
	return row.AppendJavaDecimalDigits(buf, neg, digits, int64(scale-exp))
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
// base64, numbers as Java prints them, NaN and infinities as strings, and dates, times and
// timestamps as ISO text (SeaTunnel's writer makes arrays of their parts).
func appendValue(buf []byte, v row.Value) []byte { return row.AppendJSONNonFiniteStrings(buf, v) }
