// Package jsonscan reads JSON text in place, without building a tree: it checks a value
// (RFC 8259, with the few liberties a caller's JSON library takes), finds where strings,
// numbers and whole values end, decodes a string's escapes, and walks the members and
// elements of checked text. Positions are byte offsets into the text, which may be a
// string or a byte slice; nothing allocates but decoding an escaped string and an error.
package jsonscan

import (
	"strconv"
	"unicode/utf8"
)

// Text is what the scanner reads.
type Text interface{ ~string | ~[]byte }

// Rules are what a check accepts beyond RFC 8259, and how deep it lets values nest.
type Rules struct {
	// MaxDepth is how many objects and arrays may nest inside each other.
	MaxDepth int
	// ControlChars lets strings hold control characters unescaped, as Jackson's
	// ALLOW_UNESCAPED_CONTROL_CHARS does.
	ControlChars bool
}

// SyntaxError says where a text is not JSON and why.
type SyntaxError struct {
	Offset int    // of the byte where the text goes wrong
	Msg    string // what is wrong there: "expected ':', found 'x'"
}

func (e *SyntaxError) Error() string {
	return "invalid JSON: " + e.Msg + " at offset " + strconv.Itoa(e.Offset)
}

func errAt(i int, msg string) error { return &SyntaxError{Offset: i, Msg: msg} }

// expected is the error of a text that has something else than what at i.
func expected[T Text](s T, i int, what string) error {
	return errAt(i, "expected "+what+", found "+Describe(s, i))
}

// IsSpace reports whether c is JSON white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the position of the first byte at or after i that is not white space.
func SkipSpace[T Text](s T, i int) int {
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	return i
}

// Describe names what stands at s[i] for an error: the character, quoted, or the end of
// the text.
func Describe[T Text](s T, i int) string {
	if i >= len(s) {
		return "end of text"
	}
	end := min(i+utf8.UTFMax, len(s))
	r, _ := utf8.DecodeRuneInString(string(s[i:end]))
	return strconv.QuoteRune(r)
}

// Check reports whether s is one JSON value surrounded by optional white space.
func Check[T Text](s T, r *Rules) error {
	i := SkipSpace(s, 0)
	if i == len(s) {
		return errAt(i, "no value")
	}
	end, err := Value(s, i, 0, r)
	if err != nil {
		return err
	}
	if end = SkipSpace(s, end); end != len(s) {
		return errAt(end, "unexpected "+Describe(s, end)+" after the value")
	}
	return nil
}

// Value checks the value starting at s[i], which is nested in depth objects and arrays, and
// returns its end.
func Value[T Text](s T, i, depth int, r *Rules) (int, error) {
	if i >= len(s) {
		return i, expected(s, i, "a value")
	}
	switch c := s[i]; {
	case c == '{' || c == '[':
		if depth >= r.MaxDepth {
			return i, errAt(i, "nested deeper than "+strconv.Itoa(r.MaxDepth)+" levels")
		}
		if c == '{' {
			return object(s, i, depth+1, r)
		}
		return array(s, i, depth+1, r)
	case c == '"':
		end, _, err := String(s, i, r)
		return end, err
	case c == 't':
		return word(s, i, "true")
	case c == 'f':
		return word(s, i, "false")
	case c == 'n':
		return word(s, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return Number(s, i)
	}
	return i, expected(s, i, "a value")
}

func object[T Text](s T, i, depth int, r *Rules) (int, error) {
	i = SkipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return i, expected(s, i, "a key")
		}
		end, _, err := String(s, i, r)
		if err != nil {
			return end, err
		}
		if i = SkipSpace(s, end); i >= len(s) || s[i] != ':' {
			return i, expected(s, i, "':'")
		}
		if i, err = Value(s, SkipSpace(s, i+1), depth, r); err != nil {
			return i, err
		}
		switch i = SkipSpace(s, i); {
		case i < len(s) && s[i] == '}':
			return i + 1, nil
		case i >= len(s) || s[i] != ',':
			return i, expected(s, i, "',' or '}'")
		}
		i = SkipSpace(s, i+1)
	}
}

func array[T Text](s T, i, depth int, r *Rules) (int, error) {
	i = SkipSpace(s, i+1)
	if i < len(s) && s[i] == ']' {
		return i + 1, nil
	}
	for {
		var err error
		if i, err = Value(s, i, depth, r); err != nil {
			return i, err
		}
		switch i = SkipSpace(s, i); {
		case i < len(s) && s[i] == ']':
			return i + 1, nil
		case i >= len(s) || s[i] != ',':
			return i, expected(s, i, "',' or ']'")
		}
		i = SkipSpace(s, i+1)
	}
}

func word[T Text](s T, i int, w string) (int, error) {
	if len(s)-i < len(w) || string(s[i:i+len(w)]) != w {
		return i, expected(s, i, "a value")
	}
	return i + len(w), nil
}

// plain marks the bytes a string holds as they are; control marks the control characters.
var plain, control = func() (p, c [256]bool) {
	for b := 0; b < 256; b++ {
		p[b] = b >= 0x20 && b != '"' && b != '\\'
		c[b] = b < 0x20
	}
	return p, c
}()

// String checks the string whose opening quote is s[i] and returns its end (after the
// closing quote) and whether it has escapes.
func String[T Text](s T, i int, r *Rules) (end int, escaped bool, err error) {
	start := i
	for i++; i < len(s); {
		for i < len(s) && plain[s[i]] {
			i++
		}
		if i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, escaped, nil
		case c == '\\':
			n, err := escapeLen(s, i)
			if err != nil {
				return i, false, err
			}
			i += n
			escaped = true
		case control[c] && r.ControlChars:
			i++
		default:
			return i, false, errAt(i, "control character "+strconv.QuoteRune(rune(c))+" in a string")
		}
	}
	return start, false, errAt(start, "unterminated string")
}

// escapeLen checks the escape whose backslash is s[i] and returns its length.
func escapeLen[T Text](s T, i int) (int, error) {
	if i+1 >= len(s) {
		return 0, errAt(i, "unterminated string")
	}
	switch s[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, nil
	case 'u':
		if _, ok := Hex4(s, i+2); !ok {
			return 0, errAt(i, `bad \u escape`)
		}
		return 6, nil
	}
	end := min(i+1+utf8.UTFMax, len(s))
	c, _ := utf8.DecodeRuneInString(string(s[i+1 : end]))
	return 0, errAt(i, `bad escape \`+string(c))
}

// Number checks the number starting at s[i] and returns its end.
func Number[T Text](s T, i int) (int, error) {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = digitsEnd(s, i)
	default:
		return i, expected(s, i, "a digit")
	}
	if i < len(s) && s[i] == '.' {
		d := i + 1
		if i = digitsEnd(s, d); i == d {
			return i, expected(s, i, "a digit")
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		if i = digitsEnd(s, d); i == d {
			return i, expected(s, i, "a digit")
		}
	}
	return i, nil
}

// ExponentEnd is the end of the exponent of a number (e or E, a sign maybe, digits) at s[i],
// or i when there is none there: an e without digits is not one.
func ExponentEnd[T Text](s T, i int) int {
	if i >= len(s) || (s[i] != 'e' && s[i] != 'E') {
		return i
	}
	k := i + 1
	if k < len(s) && (s[k] == '+' || s[k] == '-') {
		k++
	}
	if end := digitsEnd(s, k); end > k {
		return end
	}
	return i
}

func digitsEnd[T Text](s T, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// Hex4 reads the four hex digits at s[i] (a \u escape's), as JSON and HOCON write them.
func Hex4[T Text](s T, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for k := i; k < i+4; k++ {
		c := s[k]
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
