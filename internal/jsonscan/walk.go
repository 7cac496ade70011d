package jsonscan

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The functions below walk text that Check accepted: they do not check it again, and on
// text that is not JSON their results mean nothing (they stay within the text).

// structural marks the bytes Skip stops at inside a container.
var structural = func() (t [256]bool) {
	for _, c := range `"{}[]` {
		t[c] = true
	}
	return t
}()

// Skip returns the end of the checked value starting at s[i].
func Skip(s string, i int) int {
	switch s[i] {
	case '"':
		return SkipString(s, i)
	case '{', '[':
		return skipContainer(s, i)
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

func skipContainer(s string, i int) int {
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
			i = SkipString(s, i)
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

// SkipString returns the end (after the closing quote) of the checked string whose
// opening quote is s[i].
func SkipString(s string, i int) int {
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

// EachMember calls fn with the raw name (between the quotes, escapes undecoded) and the
// position of the value of every member of the checked object at s[i], until fn returns
// false.
func EachMember(s string, i int, fn func(name string, v int) bool) {
	i = SkipSpace(s, i+1)
	if s[i] == '}' {
		return
	}
	for {
		end := SkipString(s, i)
		name := s[i+1 : end-1]
		i = SkipSpace(s, SkipSpace(s, end)+1)
		if !fn(name, i) {
			return
		}
		if i = SkipSpace(s, Skip(s, i)); s[i] == '}' {
			return
		}
		i = SkipSpace(s, i+1)
	}
}

// EachElem calls fn with the position of every element of the checked array at s[i],
// until fn returns false.
func EachElem(s string, i int, fn func(v int) bool) {
	i = SkipSpace(s, i+1)
	if s[i] == ']' {
		return
	}
	for {
		if !fn(i) {
			return
		}
		if i = SkipSpace(s, Skip(s, i)); s[i] == ']' {
			return
		}
		i = SkipSpace(s, i+1)
	}
}

// Unescape decodes the raw text of a checked string (between the quotes).
func Unescape(raw string) string {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw
	}
	return string(AppendUnescaped(make([]byte, 0, len(raw)), raw))
}

// AppendUnescaped appends the decoded raw text of a checked string (between the quotes) to
// dst: escapes become the characters they stand for, a surrogate pair written as two \u
// escapes one character, and a lone surrogate U+FFFD.
func AppendUnescaped[T Text](dst []byte, raw T) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		if i >= len(raw) {
			break
		}
		if e := raw[i]; e != 'u' {
			dst = append(dst, Escaped(e))
			continue
		}
		var r rune
		r, i = unicodeEscape(raw, i)
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// escaped maps the character after a backslash to the one the escape stands for.
var escaped = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
	}
	t['b'], t['f'], t['n'], t['r'], t['t'] = '\b', '\f', '\n', '\r', '\t'
	return t
}()

// Escaped returns the character a backslash and c stand for: a control character for b, f,
// n, r and t, c itself otherwise (\u escapes are not single characters).
func Escaped(c byte) byte { return escaped[c] }

// unicodeEscape decodes the \u escape whose u is raw[i], joined with a second one that
// completes a surrogate pair, and returns the position of its last digit.
func unicodeEscape[T Text](raw T, i int) (rune, int) {
	r, ok := Hex4(raw, i+1)
	if !ok {
		return utf8.RuneError, i
	}
	i += 4
	if !utf16.IsSurrogate(r) {
		return r, i
	}
	if i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
		if r2, ok := Hex4(raw, i+3); ok {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, i + 6
			}
		}
	}
	return utf8.RuneError, i
}
