package jsonpath

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
	"github.com/strait-dev/strait/types"
)

// JSON is handled as text: a document is checked once (Check), and from then on values are
// spans of it that are skipped, searched and converted without building a tree. Every function
// but Check assumes its input was checked.

// maxDepth bounds the nesting of a document, so a hostile one cannot exhaust the stack.
const maxDepth = 10000

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func ws(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// Check reports whether s is one JSON value (RFC 8259), surrounded by optional whitespace.
func Check(s string) error {
	i := ws(s, 0)
	if i == len(s) {
		return fmt.Errorf("invalid JSON: no value")
	}
	end, err := checkValue(s, i, 0)
	if err != nil {
		return err
	}
	if end = ws(s, end); end != len(s) {
		return fmt.Errorf("invalid JSON: unexpected %s after the value at offset %d", quoteChar(s, end), end)
	}
	return nil
}

func quoteChar(s string, i int) string {
	if i >= len(s) {
		return "end of text"
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return strconv.QuoteRune(r)
}

func badJSON(s string, i int, what string) error {
	if i >= len(s) {
		return fmt.Errorf("invalid JSON: unexpected end of text, expected %s", what)
	}
	return fmt.Errorf("invalid JSON: unexpected %s at offset %d, expected %s", quoteChar(s, i), i, what)
}

func checkValue(s string, i, depth int) (int, error) {
	if i >= len(s) {
		return i, badJSON(s, i, "a value")
	}
	switch c := s[i]; {
	case c == '{':
		if depth >= maxDepth {
			return i, fmt.Errorf("invalid JSON: nested deeper than %d levels", maxDepth)
		}
		i = ws(s, i+1)
		if i < len(s) && s[i] == '}' {
			return i + 1, nil
		}
		for {
			if i >= len(s) || s[i] != '"' {
				return i, badJSON(s, i, "a member name")
			}
			end, err := checkString(s, i)
			if err != nil {
				return end, err
			}
			i = ws(s, end)
			if i >= len(s) || s[i] != ':' {
				return i, badJSON(s, i, "':'")
			}
			if i, err = checkValue(s, ws(s, i+1), depth+1); err != nil {
				return i, err
			}
			i = ws(s, i)
			if i < len(s) && s[i] == '}' {
				return i + 1, nil
			}
			if i >= len(s) || s[i] != ',' {
				return i, badJSON(s, i, "',' or '}'")
			}
			i = ws(s, i+1)
		}
	case c == '[':
		if depth >= maxDepth {
			return i, fmt.Errorf("invalid JSON: nested deeper than %d levels", maxDepth)
		}
		i = ws(s, i+1)
		if i < len(s) && s[i] == ']' {
			return i + 1, nil
		}
		for {
			var err error
			if i, err = checkValue(s, i, depth+1); err != nil {
				return i, err
			}
			i = ws(s, i)
			if i < len(s) && s[i] == ']' {
				return i + 1, nil
			}
			if i >= len(s) || s[i] != ',' {
				return i, badJSON(s, i, "',' or ']'")
			}
			i = ws(s, i+1)
		}
	case c == '"':
		return checkString(s, i)
	case c == 't':
		return checkWord(s, i, "true")
	case c == 'f':
		return checkWord(s, i, "false")
	case c == 'n':
		return checkWord(s, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return checkNumber(s, i)
	}
	return i, badJSON(s, i, "a value")
}

func checkWord(s string, i int, w string) (int, error) {
	if strings.HasPrefix(s[i:], w) {
		return i + len(w), nil
	}
	return i, badJSON(s, i, "a value")
}

// plain marks the bytes a string may hold as they are: not '"', '\' or a control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func checkString(s string, i int) (int, error) {
	start := i
	i++
	for i < len(s) {
		for i < len(s) && plain[s[i]] {
			i++
		}
		if i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(s) {
				return i, fmt.Errorf("invalid JSON: unterminated string starting at offset %d", start)
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s) || !isHex4(s[i+2:i+6]) {
					return i, fmt.Errorf("invalid JSON: bad \\u escape at offset %d", i)
				}
				i += 6
			default:
				return i, fmt.Errorf("invalid JSON: bad escape %s at offset %d", quoteChar(s, i+1), i)
			}
		default:
			return i, fmt.Errorf("invalid JSON: control character %#x in a string at offset %d", c, i)
		}
	}
	return i, fmt.Errorf("invalid JSON: unterminated string starting at offset %d", start)
}

func isHex4(s string) bool {
	for i := 0; i < 4; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func checkNumber(s string, i int) (int, error) {
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return i, badJSON(s, i, "a digit")
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return i, badJSON(s, i, "a digit")
		}
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
			return i, badJSON(s, i, "a digit")
		}
	}
	return i, nil
}

// structural marks the bytes skip stops at inside a container.
var structural = func() (t [256]bool) {
	for _, c := range `"{}[]` {
		t[c] = true
	}
	return t
}()

// skip returns the end of the (checked) value starting at s[i].
func skip(s string, i int) int {
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for i < len(s) {
			for i < len(s) && !structural[s[i]] {
				i++
			}
			if i >= len(s) {
				break
			}
			switch s[i] {
			case '"':
				i = skipString(s, i)
				continue
			case '{', '[':
				depth++
			default:
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(s) {
		switch s[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipString returns the end of the (checked) string starting at s[i].
func skipString(s string, i int) int {
	i++
	for {
		j := strings.IndexByte(s[i:], '"')
		if j < 0 {
			return len(s)
		}
		i += j
		// the quote ends the string unless an odd number of backslashes precede it
		n := 0
		for s[i-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return i + 1
		}
		i++
	}
}

// eachMember calls fn with the raw name (between the quotes) and the value's start of every
// member of the object at s[i], until fn returns false.
func eachMember(s string, i int, fn func(name string, v int) bool) {
	i = ws(s, i+1)
	if s[i] == '}' {
		return
	}
	for {
		end := skipString(s, i)
		name := s[i+1 : end-1]
		i = ws(s, ws(s, end)+1)
		if !fn(name, i) {
			return
		}
		i = ws(s, skip(s, i))
		if s[i] == '}' {
			return
		}
		i = ws(s, i+1)
	}
}

// eachElem calls fn with the start of every element of the array at s[i], until fn returns
// false.
func eachElem(s string, i int, fn func(v int) bool) {
	i = ws(s, i+1)
	if s[i] == ']' {
		return
	}
	for {
		if !fn(i) {
			return
		}
		i = ws(s, skip(s, i))
		if s[i] == ']' {
			return
		}
		i = ws(s, i+1)
	}
}

// nameIs compares a raw member name with a name.
func nameIs(raw, name string) bool {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw == name
	}
	return unescape(raw) == name
}

// member returns the start of the value of the member named name in the object at s[i], or
// -1. A repeated name gives its last value, as the reader SeaTunnel uses does.
func member(s string, i int, name string) int {
	at := -1
	eachMember(s, i, func(raw string, v int) bool {
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
	eachElem(s, i, func(int) bool { n++; return true })
	return n
}

// elemAt returns the start of element k of the array at s[i], or -1.
func elemAt(s string, i, k int) int {
	at := -1
	eachElem(s, i, func(v int) bool {
		if k == 0 {
			at = v
			return false
		}
		k--
		return true
	})
	return at
}

// unescape decodes the raw text of a string (between the quotes).
func unescape(raw string) string {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw
	}
	b := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := rune(hex4(raw[i+1 : i+5]))
			i += 4
			if utf16.IsSurrogate(r) {
				if i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					if r2 := rune(hex4(raw[i+3 : i+7])); utf16.DecodeRune(r, r2) != utf8.RuneError {
						r = utf16.DecodeRune(r, r2)
						i += 6
					}
				}
				if utf16.IsSurrogate(r) {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			b = append(b, raw[i])
		}
	}
	return string(b)
}

func hex4(s string) int {
	n := 0
	for i := 0; i < 4; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | int(c-'a'+10)
		default:
			n = n<<4 | int(c-'A'+10)
		}
	}
	return n
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
		eachMember(s, i, func(name string, v int) bool {
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = row.AppendJSONString(buf, unescape(name))
			buf = append(buf, ':')
			buf = appendCompact(buf, s, v)
			return true
		})
		return append(buf, '}')
	case c == '[':
		buf = append(buf, '[')
		first := true
		eachElem(s, i, func(v int) bool {
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = appendCompact(buf, s, v)
			return true
		})
		return append(buf, ']')
	case c == '"':
		end := skipString(s, i)
		return row.AppendJSONString(buf, unescape(s[i+1:end-1]))
	case c == '-' || c >= '0' && c <= '9':
		return numberText(buf, s[i:skip(s, i)])
	}
	return append(buf, s[i:skip(s, i)]...)
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
