package ddl

import (
	"fmt"
	"strings"

	"github.com/strait-dev/strait/internal/jsonscan"
)

// tokKind is a token's kind.
type tokKind uint8

const (
	tokEOF    tokKind = iota
	tokWord           // a keyword or a plain name
	tokQuoted         // a `quoted` name
	tokString         // a 'string' or "string" literal (text unescaped)
	tokNumber         // 12, 1.5, -3 is tokPunct '-' then a number
	tokPunct          // ( ) , = . ; and any other single character
)

// token is one lexeme: its kind, its text (unquoted for names and strings) and the source
// text it was read from.
type token struct {
	kind tokKind
	text string
	raw  string
	pos  int
}

// is reports whether t is the keyword kw (any case).
func (t token) is(kw string) bool { return t.kind == tokWord && strings.EqualFold(t.text, kw) }

// punct reports whether t is the character c.
func (t token) punct(c byte) bool { return t.kind == tokPunct && len(t.text) == 1 && t.text[0] == c }

// lex cuts a statement into tokens. Comments are skipped, except MySQL's executable ones
// (/*! ... */ and /*!50100 ... */), whose text is read as part of the statement, as the
// server reads it.
func lex(s string) ([]token, error) {
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '#' || (c == '-' && strings.HasPrefix(s[i:], "--") && (i+2 == len(s) || isSpace(s[i+2]))):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return out, nil
			}
			i += j + 1
		case c == '/' && strings.HasPrefix(s[i:], "/*!"):
			// an executable comment: its version digits go, its text stays
			i += 3
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return nil, fmt.Errorf("unterminated comment at offset %d", i)
			}
			i += j + 4
		case c == '*' && strings.HasPrefix(s[i:], "*/"):
			i += 2 // the end of an executable comment
		case c == '`':
			text, n, err := quoted(s[i:], '`', false)
			if err != nil {
				return nil, fmt.Errorf("%v at offset %d", err, i)
			}
			out = append(out, token{kind: tokQuoted, text: text, raw: s[i : i+n], pos: i})
			i += n
		case c == '\'' || c == '"':
			text, n, err := quoted(s[i:], c, true)
			if err != nil {
				return nil, fmt.Errorf("%v at offset %d", err, i)
			}
			out = append(out, token{kind: tokString, text: text, raw: s[i : i+n], pos: i})
			i += n
		case isDigit(c) || (c == '.' && i+1 < len(s) && isDigit(s[i+1])):
			j := i
			for j < len(s) && (isDigit(s[j]) || s[j] == '.') {
				j++
			}
			j = jsonscan.ExponentEnd(s, j)
			if j < len(s) && isWordChar(s[j]) {
				// a name that starts with digits (1col), as MySQL allows
				for j < len(s) && isWordChar(s[j]) {
					j++
				}
				out = append(out, token{kind: tokWord, text: s[i:j], raw: s[i:j], pos: i})
			} else {
				out = append(out, token{kind: tokNumber, text: s[i:j], raw: s[i:j], pos: i})
			}
			i = j
		case isWordChar(c):
			j := i
			for j < len(s) && isWordChar(s[j]) {
				j++
			}
			out = append(out, token{kind: tokWord, text: s[i:j], raw: s[i:j], pos: i})
			i = j
		default:
			out = append(out, token{kind: tokPunct, text: s[i : i+1], raw: s[i : i+1], pos: i})
			i++
		}
	}
	return out, nil
}

// quoted reads a quoted name or string at the start of s: a doubled quote stands for one,
// and in strings a backslash escapes the character after it. It returns the text and the
// bytes read.
func quoted(s string, q byte, backslash bool) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q && i+1 < len(s) && s[i+1] == q:
			b.WriteByte(q)
			i++
		case c == q:
			return b.String(), i + 1, nil
		case c == '\\' && backslash && i+1 < len(s):
			i++
			b.WriteByte(unescape(s[i]))
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("unterminated %c", q)
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case '0':
		return 0
	case 'b':
		return '\b'
	case 'Z':
		return 26
	}
	return c
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWordChar is a character of an unquoted name: letters, digits, _ and $, and any byte of
// a multi-byte UTF-8 character.
func isWordChar(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c >= 0x80
}
