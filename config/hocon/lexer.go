package hocon

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/strait-dev/strait/internal/jsonscan"
)

type tokKind uint8

const (
	tEOF tokKind = iota
	tNewline
	tSpace // whitespace inside a line; kept for concatenation and keys
	tComma
	tColon
	tEquals
	tPlusEquals
	tLBrace
	tRBrace
	tLBracket
	tRBracket
	tQuoted   // "..." with escapes decoded
	tTriple   // """...""" raw
	tUnquoted // unquoted text, also true, false and null
	tNumber   // a JSON number, as written
	tSubst    // ${path} or ${?path}
)

type token struct {
	kind     tokKind
	text     string
	path     []string // tSubst
	optional bool     // tSubst
	pos      Pos
}

// describe names a token for error messages.
func describe(t *token) string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tNewline:
		return "end of line"
	case tSpace:
		return "whitespace"
	case tComma:
		return "','"
	case tColon:
		return "':'"
	case tEquals:
		return "'='"
	case tPlusEquals:
		return "'+='"
	case tLBrace:
		return "'{'"
	case tRBrace:
		return "'}'"
	case tLBracket:
		return "'['"
	case tRBracket:
		return "']'"
	case tQuoted, tTriple:
		return fmt.Sprintf("string %q", clip(t.text))
	case tSubst:
		return "substitution ${" + clip(joinPath(t.path)) + "}"
	}
	return fmt.Sprintf("%q", clip(t.text))
}

func clip(s string) string {
	if len(s) > 40 {
		i := 40
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		return s[:i] + "..."
	}
	return s
}

type lexer struct {
	src  string
	file string
	i    int
	line int
	col  int
	toks []token
}

// lex splits src into tokens. Comments are dropped; the token list always
// ends with tEOF.
func lex(src, file string) ([]token, error) {
	l := &lexer{src: src, file: file, line: 1, col: 1}
	if err := l.run(); err != nil {
		return nil, err
	}
	return l.toks, nil
}

func (l *lexer) pos() Pos { return Pos{File: l.file, Line: l.line, Col: l.col} }

// advance moves n bytes forward, keeping line and column up to date.
func (l *lexer) advance(n int) {
	for ; n > 0 && l.i < len(l.src); n-- {
		c := l.src[l.i]
		l.i++
		if c == '\n' {
			l.line++
			l.col = 1
		} else if utf8.RuneStart(c) {
			l.col++
		}
	}
}

func (l *lexer) at(i int) byte {
	if i < len(l.src) {
		return l.src[i]
	}
	return 0
}

func (l *lexer) emit(k tokKind, text string, pos Pos) {
	l.toks = append(l.toks, token{kind: k, text: text, pos: pos})
}

var punct = [256]tokKind{
	',': tComma, ':': tColon, '=': tEquals,
	'{': tLBrace, '}': tRBrace, '[': tLBracket, ']': tRBracket,
}

func (l *lexer) run() error {
	for l.i < len(l.src) {
		c := l.src[l.i]
		start := l.pos()
		switch {
		case c == '\n':
			l.emit(tNewline, "", start)
			l.advance(1)
		case c == '#' || c == '/' && l.at(l.i+1) == '/':
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.advance(1)
			}
		case punct[c] != tEOF:
			l.emit(punct[c], "", start)
			l.advance(1)
		case c == '+':
			if l.at(l.i+1) != '=' {
				return errorf(start, "'+' is only allowed as part of '+='; quote values that contain '+'")
			}
			l.emit(tPlusEquals, "", start)
			l.advance(2)
		case c == '"':
			if strings.HasPrefix(l.src[l.i:], `"""`) {
				if err := l.lexTriple(); err != nil {
					return err
				}
				continue
			}
			s, err := l.readQuoted()
			if err != nil {
				return err
			}
			l.emit(tQuoted, s, start)
		case c == '$':
			if l.at(l.i+1) != '{' {
				return errorf(start, "'$' must start a substitution '${...}'; quote values that contain '$'")
			}
			if err := l.lexSubst(); err != nil {
				return err
			}
		case isReserved(c):
			return errorf(start, "character %q is reserved in HOCON and must be quoted", c)
		default:
			if n := l.spaceLen(l.i); n > 0 {
				j := l.i
				for n > 0 {
					j += n
					n = l.spaceLen(j)
				}
				l.emit(tSpace, l.src[l.i:j], start)
				l.advance(j - l.i)
				continue
			}
			if c == '-' || isDigit(c) {
				if n := numberLen(l.src, l.i); n > 0 && unquotedEnd(l.src, l.i+n) == l.i+n {
					l.emit(tNumber, l.src[l.i:l.i+n], start)
					l.advance(n)
					continue
				}
			}
			end := unquotedEnd(l.src, l.i)
			l.emit(tUnquoted, l.src[l.i:end], start)
			l.advance(end - l.i)
		}
	}
	l.emit(tEOF, "", l.pos())
	return nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isReserved reports the characters HOCON forbids outside quotes that are
// not tokens of their own.
func isReserved(c byte) bool {
	switch c {
	case '`', '^', '?', '!', '@', '*', '&', '\\':
		return true
	}
	return false
}

// isForbidden reports the characters that end an unquoted string.
func isForbidden(c byte) bool {
	switch c {
	case '$', '"', '{', '}', '[', ']', ':', '=', ',', '+', '#':
		return true
	}
	return isReserved(c)
}

func isSpaceRune(r rune) bool {
	return r != '\n' && (unicode.IsSpace(r) || r == '\uFEFF' || unicode.Is(unicode.Zs, r))
}

// spaceLen returns the byte length of the whitespace character at i, or 0.
func (l *lexer) spaceLen(i int) int { return spaceLen(l.src, i) }

func spaceLen(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	c := s[i]
	if c < utf8.RuneSelf {
		switch c {
		case ' ', '\t', '\r', '\f', '\v':
			return 1
		}
		return 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if isSpaceRune(r) {
		return n
	}
	return 0
}

// unquotedEnd returns the end of the unquoted string starting at i (i itself
// when none starts there).
func unquotedEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c == '\n' || isForbidden(c) || c == '/' && i+1 < len(s) && s[i+1] == '/' {
			break
		}
		if n := spaceLen(s, i); n > 0 {
			break
		}
		i++
	}
	return i
}

// numberLen returns the length of the JSON number starting at i, or 0:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func numberLen(s string, i int) int {
	j := i
	if j < len(s) && s[j] == '-' {
		j++
	}
	if j >= len(s) || !isDigit(s[j]) {
		return 0
	}
	if s[j] == '0' {
		j++
	} else {
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
		j += 2
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	return jsonscan.ExponentEnd(s, j) - i
}

// isNumber reports whether s is exactly one JSON number.
func isNumber(s string) bool { return s != "" && numberLen(s, 0) == len(s) }

// readQuoted reads a "..." string at l.i and decodes its escapes.
func (l *lexer) readQuoted() (string, error) {
	start := l.pos()
	l.advance(1)
	var b strings.Builder
	for {
		if l.i >= len(l.src) || l.src[l.i] == '\n' {
			return "", errorf(start, "unterminated string (a quoted string must end on the same line; use \"\"\" for multi-line text)")
		}
		c := l.src[l.i]
		switch c {
		case '"':
			l.advance(1)
			return b.String(), nil
		case '\\':
			esc := l.pos()
			l.advance(1)
			if l.i >= len(l.src) {
				return "", errorf(start, "unterminated string")
			}
			e := l.src[l.i]
			l.advance(1)
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'u':
				r, ok := l.hex4()
				if !ok {
					return "", errorf(esc, "invalid \\u escape: expected four hex digits")
				}
				if utf16.IsSurrogate(r) && strings.HasPrefix(l.src[l.i:], `\u`) {
					save, line, col := l.i, l.line, l.col
					l.advance(2)
					if r2, ok := l.hex4(); ok && utf16.DecodeRune(r, r2) != utf8.RuneError {
						r = utf16.DecodeRune(r, r2)
					} else {
						l.i, l.line, l.col = save, line, col
					}
				}
				b.WriteRune(r) // a lone surrogate becomes U+FFFD
			default:
				r, _ := utf8.DecodeRuneInString(l.src[l.i-1:])
				return "", errorf(esc, "invalid escape sequence \\%c in string", r)
			}
		default:
			b.WriteByte(c)
			l.advance(1)
		}
	}
}

// hex4 reads the four hex digits of a \u escape and steps over them.
func (l *lexer) hex4() (rune, bool) {
	r, ok := jsonscan.Hex4(l.src, l.i)
	if ok {
		l.advance(4)
	}
	return r, ok
}

// lexTriple reads a """...""" string. Its content is raw; quotes just before
// the closing """ belong to the content.
func (l *lexer) lexTriple() error {
	start := l.pos()
	l.advance(3)
	k := strings.Index(l.src[l.i:], `"""`)
	if k < 0 {
		return errorf(start, "unterminated triple-quoted string")
	}
	end := l.i + k
	for end+3 < len(l.src) && l.src[end+3] == '"' {
		end++
	}
	l.emit(tTriple, l.src[l.i:end], start)
	l.advance(end + 3 - l.i)
	return nil
}

// lexSubst reads ${path} or ${?path}. The path may mix unquoted and quoted
// parts like a key.
func (l *lexer) lexSubst() error {
	start := l.pos()
	l.advance(2)
	optional := false
	if l.at(l.i) == '?' {
		optional = true
		l.advance(1)
	}
	var pb pathBuilder
	for {
		if l.i >= len(l.src) || l.src[l.i] == '\n' {
			return errorf(start, "unterminated substitution: missing '}'")
		}
		c := l.src[l.i]
		here := l.pos()
		switch {
		case c == '}':
			l.advance(1)
			path, msg := pb.finish()
			if msg != "" {
				return errorf(start, "invalid substitution: %s", msg)
			}
			l.toks = append(l.toks, token{kind: tSubst, path: path, optional: optional, pos: start})
			return nil
		case c == '"':
			if strings.HasPrefix(l.src[l.i:], `"""`) {
				return errorf(here, "a triple-quoted string cannot be used in a substitution")
			}
			s, err := l.readQuoted()
			if err != nil {
				return err
			}
			pb.addQuoted(s)
		case c == ':':
			return errorf(here, "':' is not allowed in a substitution path; to give a default, quote the placeholder (\"${name:default}\")")
		case c == '/' && l.at(l.i+1) == '/' || isForbidden(c):
			return errorf(here, "character %q is not allowed in a substitution path", c)
		default:
			if n := l.spaceLen(l.i); n > 0 {
				pb.addSpace(l.src[l.i : l.i+n])
				l.advance(n)
				continue
			}
			end := unquotedEnd(l.src, l.i)
			if msg := pb.addUnquoted(l.src[l.i:end]); msg != "" {
				return errorf(here, "invalid substitution: %s", msg)
			}
			l.advance(end - l.i)
		}
	}
}

// pathBuilder turns the pieces of a key or substitution path into its
// elements: unquoted dots separate elements, quoted text is literal and
// whitespace between pieces of one element is kept.
type pathBuilder struct {
	segs    []string
	cur     []byte
	started bool   // the current element has content (maybe an empty quoted string)
	space   string // whitespace waiting for the next piece of the element
}

func (b *pathBuilder) addSpace(s string) {
	if b.started {
		b.space += s
	}
}

func (b *pathBuilder) add(s string) {
	b.cur = append(b.cur, b.space...)
	b.cur = append(b.cur, s...)
	b.space = ""
	b.started = true
}

func (b *pathBuilder) addQuoted(s string) { b.add(s) }

// addUnquoted adds unquoted text; it returns a message for an empty element.
func (b *pathBuilder) addUnquoted(s string) string {
	for {
		k := strings.IndexByte(s, '.')
		if k < 0 {
			if s != "" {
				b.add(s)
			}
			return ""
		}
		if k > 0 {
			b.add(s[:k])
		}
		if !b.started {
			return "empty path element (a '.' with nothing before it; quote keys that contain '.')"
		}
		b.segs = append(b.segs, string(b.cur))
		b.cur, b.started, b.space = b.cur[:0], false, ""
		s = s[k+1:]
	}
}

// finish returns the path, or a message if it is empty or ends with '.'.
func (b *pathBuilder) finish() ([]string, string) {
	if !b.started {
		if len(b.segs) == 0 {
			return nil, "empty path"
		}
		return nil, "path ends with '.'"
	}
	return append(b.segs, string(b.cur)), ""
}

// joinPath renders a path for messages and for looking up variables.
func joinPath(path []string) string { return strings.Join(path, ".") }
