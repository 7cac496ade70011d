package sql

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is a problem with the query, at a place in it. Line and Col are 1-based; Col counts
// characters, not bytes.
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%s at %d:%d", e.Msg, e.Line, e.Col) }

// errAt builds an *Error at byte offset off of src.
func errAt(src string, off int, format string, args ...any) *Error {
	line, col := lineCol(src, off)
	return &Error{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func lineCol(src string, off int) (int, int) {
	if off > len(src) {
		off = len(src)
	}
	if off < 0 {
		off = 0
	}
	line, col := 1, 1
	for i := 0; i < off; {
		r, n := utf8.DecodeRuneInString(src[i:])
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
		i += n
	}
	return line, col
}

type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // an unquoted word: keyword or name
	tQIdent         // `name` or "name"
	tNumber         // 12, 1.5, .5, 1e3
	tString         // 'text' (the value, quotes removed, '' unescaped)
	tOp             // punctuation and operators
	tParam          // ? or :name, which the dialect does not have
)

type token struct {
	kind tokKind
	text string // the value for strings and quoted names, the source text otherwise
	off  int    // byte offset in the query
	end  int    // byte offset just past the token
}

// lex splits the query into tokens. Comments (-- to the end of the line, /* */) and white
// space are skipped. A string literal keeps backslashes as they are: '\d{4}' is four
// characters and a backslash.
func lex(src string) ([]token, *Error) {
	var toks []token
	i := 0
	for {
		// skip space and comments
		for i < len(src) {
			c := src[i]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
				i++
				continue
			}
			if c == '-' && i+1 < len(src) && src[i+1] == '-' {
				for i < len(src) && src[i] != '\n' {
					i++
				}
				continue
			}
			if c == '/' && i+1 < len(src) && src[i+1] == '*' {
				end := strings.Index(src[i+2:], "*/")
				if end < 0 {
					return nil, errAt(src, i, "unterminated comment")
				}
				i += end + 4
				continue
			}
			if c >= utf8.RuneSelf {
				r, n := utf8.DecodeRuneInString(src[i:])
				if r == '\u00a0' || r == '\u3000' || r == '\ufeff' {
					i += n
					continue
				}
			}
			break
		}
		if i >= len(src) {
			toks = append(toks, token{kind: tEOF, off: len(src), end: len(src)})
			return toks, nil
		}
		start := i
		c := src[i]
		switch {
		case isIdentStart(c) || c >= utf8.RuneSelf && isIdentRune(src[i:]):
			for i < len(src) && (isIdentPart(src[i]) || src[i] >= utf8.RuneSelf && isIdentRune(src[i:])) {
				if src[i] >= utf8.RuneSelf {
					_, n := utf8.DecodeRuneInString(src[i:])
					i += n
				} else {
					i++
				}
			}
			toks = append(toks, token{kind: tIdent, text: src[start:i], off: start, end: i})
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			for i < len(src) && isDigit(src[i]) {
				i++
			}
			if i < len(src) && src[i] == '.' && !(i+1 < len(src) && src[i+1] == '.') {
				i++
				for i < len(src) && isDigit(src[i]) {
					i++
				}
			}
			if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
				j := i + 1
				if j < len(src) && (src[j] == '+' || src[j] == '-') {
					j++
				}
				if j < len(src) && isDigit(src[j]) {
					for j < len(src) && isDigit(src[j]) {
						j++
					}
					i = j
				}
			}
			if i < len(src) && (isIdentStart(src[i])) {
				return nil, errAt(src, start, "malformed number %q", src[start:i+1])
			}
			toks = append(toks, token{kind: tNumber, text: src[start:i], off: start, end: i})
		case c == '\'':
			text, end, closed := quoted(src, i)
			if !closed {
				return nil, errAt(src, start, "unterminated string literal")
			}
			i = end
			toks = append(toks, token{kind: tString, text: text, off: start, end: i})
		case c == '`' || c == '"':
			text, end, closed := quoted(src, i)
			if !closed {
				return nil, errAt(src, start, "unterminated quoted name")
			}
			i = end
			if text == "" {
				return nil, errAt(src, start, "empty quoted name")
			}
			toks = append(toks, token{kind: tQIdent, text: text, off: start, end: i})
		case c == '?':
			i++
			toks = append(toks, token{kind: tParam, text: "?", off: start, end: i})
		default:
			op := ""
			if i+1 < len(src) {
				switch src[i : i+2] {
				case "<>", "!=", "<=", ">=", "||", "==", "::", ":=", "=>", "&&":
					op = src[i : i+2]
				}
			}
			if op == "" {
				switch c {
				case '(', ')', ',', '.', '*', '+', '-', '/', '%', '=', '<', '>', ';', '[', ']', '{', '}', '&', '|', '^', '~', '!', ':', '@', '#', '$':
					op = src[i : i+1]
				default:
					r, _ := utf8.DecodeRuneInString(src[i:])
					return nil, errAt(src, start, "unexpected character %q", r)
				}
			}
			i += len(op)
			toks = append(toks, token{kind: tOp, text: op, off: start, end: i})
		}
		if len(toks) > maxTokens {
			return nil, errAt(src, start, "query is too long")
		}
	}
}

// maxTokens bounds the work the parser can be asked to do.
const maxTokens = 1 << 20

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isIdentPart(c byte) bool  { return isIdentStart(c) || isDigit(c) || c == '$' }

// isIdentRune reports whether the non-ASCII character at the start of s is a letter, which
// may appear in a name (column names in other scripts).
func isIdentRune(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || r == '\u00a0' || r == '\u3000' || r == '\ufeff' {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// quoted reads the quoted text that starts at src[i] with its quote character (a string
// literal in '...', a name in "..." or `...`), where a doubled quote stands for one. It
// returns the text, the offset past the closing quote, and false when there is none.
func quoted(src string, i int) (string, int, bool) {
	q := src[i]
	var b strings.Builder
	i++
	for i < len(src) {
		if src[i] == q {
			if i+1 < len(src) && src[i+1] == q {
				b.WriteByte(q)
				i += 2
				continue
			}
			return b.String(), i + 1, true
		}
		b.WriteByte(src[i])
		i++
	}
	return b.String(), i, false
}
