package jregex

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Java regular expression (java.util.regex.Pattern, as String.split reads its argument)
// is rewritten into Go's RE2 syntax with the same matches. The two agree on most syntax;
// the rewrite spells out what differs:
//
//   - character classes are computed into explicit ranges, so Java's nested classes
//     ([a[bc]]), intersections ([a-z&&[^aeiou]]), \p{Lower} and the other POSIX names,
//     \p{IsLatin}, \p{gc=Lu}, \h, \v and \s (which in Java includes \x0B) mean what Java
//     means;
//   - . stops at every Java line terminator (\n, \r, \u0085, \u2028, \u2029), or at \n only
//     under (?d), or nowhere under (?s);
//   - \uhhhh, \0ooo octal, \cX, \e, \Q...\E and escaped non-ASCII letters become literals;
//     (?x) comments and white space are dropped.
//
// What RE2 cannot express is refused with the construct named: lookahead and lookbehind,
// atomic groups, possessive quantifiers, backreferences, \G, \Z, \X, \N{...}, \b{g},
// Unicode blocks (\p{InGreek}), java.lang.Character classes (\p{javaLowerCase}) and the
// flag U. Two differences remain, both about characters a line being read cannot hold or
// delimiters do not use: ^ and $ see only \n as a line break, and (?i) folds the case of
// non-ASCII letters too (Java does only with (?u)).

// javaFlags are the flags that change how the rewrite reads or writes the pattern.
type javaFlags struct {
	dotAll, unixLines, comments bool
}

// javaRegex rewrites one pattern.
type javaRegex struct {
	src   []rune
	pos   int
	out   strings.Builder
	flags []javaFlags // innermost group last
}

func (j *javaRegex) cur() *javaFlags { return &j.flags[len(j.flags)-1] }

func (j *javaRegex) more() bool { return j.pos < len(j.src) }

func (j *javaRegex) peek() rune {
	if j.pos < len(j.src) {
		return j.src[j.pos]
	}
	return -1
}

func (j *javaRegex) peekAt(n int) rune {
	if j.pos+n < len(j.src) {
		return j.src[j.pos+n]
	}
	return -1
}

// skipComments drops white space and # comments under (?x), as Java does everywhere in
// the pattern, classes included.
func (j *javaRegex) skipComments() {
	if !j.cur().comments {
		return
	}
	for j.more() {
		switch c := j.peek(); {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			j.pos++
		case c == '#':
			for j.more() && j.peek() != '\n' && j.peek() != '\r' {
				j.pos++
			}
		default:
			return
		}
	}
}

// Translate rewrites a Java regular expression into an RE2 one with the same matches, or
// says which construct it cannot express.
func Translate(p string) (string, error) {
	if !utf8.ValidString(p) {
		return "", fmt.Errorf("the pattern is not valid UTF-8")
	}
	j := &javaRegex{src: []rune(p), flags: []javaFlags{{}}}
	if err := j.sequence(); err != nil {
		return "", err
	}
	if len(j.flags) != 1 {
		return "", fmt.Errorf("unclosed group")
	}
	return j.out.String(), nil
}

func (j *javaRegex) sequence() error {
	for {
		j.skipComments()
		if !j.more() {
			return nil
		}
		c := j.src[j.pos]
		j.pos++
		var err error
		switch c {
		case '\\':
			err = j.escape()
		case '[':
			var set runeSet
			var negate bool
			if set, negate, err = j.class(); err == nil {
				set.appendClass(&j.out, negate)
			}
		case '.':
			j.dot()
		case '(':
			err = j.group()
		case ')':
			if len(j.flags) == 1 {
				return fmt.Errorf("unmatched )")
			}
			j.flags = j.flags[:len(j.flags)-1]
			j.out.WriteByte(')')
		case '*', '+', '?':
			j.out.WriteRune(c)
			err = j.quantifierSuffix()
		case '{':
			err = j.repetition()
		case '^', '$', '|':
			j.out.WriteRune(c)
		default:
			j.out.WriteString(regexp.QuoteMeta(string(c)))
		}
		if err != nil {
			return err
		}
	}
}

func (j *javaRegex) dot() {
	switch f := j.cur(); {
	case f.dotAll:
		j.out.WriteString(`(?s:.)`)
	case f.unixLines:
		j.out.WriteString(`[^\n]`)
	default:
		javaLineTerminators.appendClass(&j.out, true)
	}
}

// quantifierSuffix reads what may follow a quantifier: ? (lazy, as in RE2) or + (possessive,
// which RE2 lacks).
func (j *javaRegex) quantifierSuffix() error {
	switch j.peek() {
	case '?':
		j.pos++
		j.out.WriteByte('?')
	case '+':
		return fmt.Errorf("possessive quantifiers (%s+) are not supported", string(j.src[max(0, j.pos-1)]))
	}
	return nil
}

// repetition reads {n}, {n,} or {n,m}; Java refuses any other {.
func (j *javaRegex) repetition() error {
	end := j.pos
	for end < len(j.src) && j.src[end] != '}' {
		end++
	}
	if end == len(j.src) {
		return fmt.Errorf("illegal repetition at %q", string(j.src[j.pos-1:]))
	}
	body := string(j.src[j.pos:end])
	lo, hi, hasComma := strings.Cut(body, ",")
	if !isDigits(lo) || hasComma && hi != "" && !isDigits(hi) {
		return fmt.Errorf("illegal repetition {%s}", body)
	}
	j.pos = end + 1
	j.out.WriteString("{" + body + "}")
	return j.quantifierSuffix()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// group reads what follows an opening parenthesis.
func (j *javaRegex) group() error {
	j.flags = append(j.flags, *j.cur())
	if j.peek() != '?' {
		j.out.WriteByte('(')
		return nil
	}
	j.pos++
	switch c := j.peek(); c {
	case ':':
		j.pos++
		j.out.WriteString("(?:")
		return nil
	case '=', '!':
		return fmt.Errorf("lookahead (?%c is not supported", c)
	case '>':
		return fmt.Errorf("atomic groups (?> are not supported")
	case '<':
		switch j.peekAt(1) {
		case '=', '!':
			return fmt.Errorf("lookbehind (?<%c is not supported", j.peekAt(1))
		}
		j.pos++
		start := j.pos
		for j.more() && j.peek() != '>' {
			j.pos++
		}
		if !j.more() {
			return fmt.Errorf("unclosed group name")
		}
		name := string(j.src[start:j.pos])
		j.pos++
		j.out.WriteString("(?P<" + name + ">")
		return nil
	}
	return j.flagGroup()
}

// flagGroup reads (?idmsuxU-idmsuxU) or (?idmsuxU-idmsuxU:X). i and m are RE2's own; d, s
// and x change the rewrite; u only widens case folding, which RE2 always does; U is refused.
func (j *javaRegex) flagGroup() error {
	f := j.cur()
	on := true
	var goFlags strings.Builder
	for {
		c := j.peek()
		j.pos++
		switch c {
		case '-':
			if !on {
				return fmt.Errorf("bad flags")
			}
			on = false
			continue
		case 'i', 'm':
			if !on && !strings.Contains(goFlags.String(), "-") {
				goFlags.WriteByte('-')
			}
			goFlags.WriteRune(c)
			continue
		case 's':
			f.dotAll = on
			continue
		case 'd':
			f.unixLines = on
			continue
		case 'x':
			f.comments = on
			continue
		case 'u':
			continue
		case 'U':
			return fmt.Errorf("the flag U (UNICODE_CHARACTER_CLASS) is not supported")
		case ')', ':':
		default:
			return fmt.Errorf("unknown inline flag %q", c)
		}
		fl := strings.TrimSuffix(goFlags.String(), "-")
		if c == ')' {
			// the flags hold until the end of the enclosing group
			j.flags = j.flags[:len(j.flags)-1]
			*j.cur() = *f
			if fl != "" {
				j.out.WriteString("(?" + fl + ")")
			}
			return nil
		}
		j.out.WriteString("(?" + fl + ":")
		return nil
	}
}

// escape reads an escape outside a class.
func (j *javaRegex) escape() error {
	if !j.more() {
		return fmt.Errorf("trailing backslash")
	}
	c := j.peek()
	switch c {
	case 'b':
		if j.peekAt(1) == '{' {
			return fmt.Errorf(`\b{g} is not supported`)
		}
		j.pos++
		j.out.WriteString(`\b`)
		return nil
	case 'B', 'A', 'z':
		j.pos++
		j.out.WriteString(`\` + string(c))
		return nil
	case 'G', 'Z', 'X':
		return fmt.Errorf(`\%c is not supported`, c)
	case 'R':
		j.pos++
		j.out.WriteString(`(?:\r\n|[\n\x0B\f\r\x{85}\x{2028}\x{2029}])`)
		return nil
	case 'k':
		return fmt.Errorf(`backreferences (\k<name>) are not supported`)
	case 'Q':
		j.pos++
		j.out.WriteString(regexp.QuoteMeta(j.quoted()))
		return nil
	}
	if c >= '1' && c <= '9' {
		return fmt.Errorf(`backreferences (\%c) are not supported`, c)
	}
	set, lit, err := j.escapeValue()
	if err != nil {
		return err
	}
	if set != nil {
		set.appendClass(&j.out, false)
		return nil
	}
	j.out.WriteString(regexp.QuoteMeta(string(lit)))
	return nil
}

// quoted reads the text after \Q up to \E or the end of the pattern.
func (j *javaRegex) quoted() string {
	start := j.pos
	for j.pos < len(j.src) {
		if j.src[j.pos] == '\\' && j.peekAt(1) == 'E' {
			s := string(j.src[start:j.pos])
			j.pos += 2
			return s
		}
		j.pos++
	}
	return string(j.src[start:])
}

// classEscapes are the escapes that stand for a class; the letter in upper case stands for
// its complement.
var classEscapes = map[rune]runeSet{'d': javaDigit, 'w': javaWord, 's': javaSpace, 'h': javaHoriz, 'v': javaVert}

// controlEscapes are the escapes that stand for a control character.
var controlEscapes = map[rune]rune{'t': '\t', 'n': '\n', 'r': '\r', 'f': '\f', 'a': '\a', 'e': 0x1b}

// escapeValue reads the escape after a backslash that stands for a class (set) or one
// character (lit), inside or outside a class.
func (j *javaRegex) escapeValue() (set runeSet, lit rune, err error) {
	c := j.src[j.pos]
	j.pos++
	if c < utf8.RuneSelf {
		if set, ok := classEscapes[unicode.ToLower(c)]; ok {
			if unicode.IsUpper(c) {
				set = set.complement()
			}
			return set, 0, nil
		}
		if r, ok := controlEscapes[c]; ok {
			return nil, r, nil
		}
	}
	switch c {
	case 'p', 'P':
		s, err := j.property()
		if err != nil {
			return nil, 0, err
		}
		if c == 'P' {
			s = s.complement()
		}
		return s, 0, nil
	case '0':
		return nil, j.octal(), nil
	case 'c':
		if !j.more() {
			return nil, 0, fmt.Errorf(`\c needs a control letter`)
		}
		x := j.src[j.pos]
		j.pos++
		return nil, x ^ 64, nil
	case 'x':
		r, err := j.hexEscape()
		return nil, r, err
	case 'u':
		r, err := j.unicodeEscape()
		return nil, r, err
	case 'N':
		return nil, 0, fmt.Errorf(`\N{name} is not supported`)
	}
	switch {
	case c >= '0' && c <= '9':
		return nil, 0, fmt.Errorf(`backreferences (\%c) are not supported`, c)
	case c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
		return nil, 0, fmt.Errorf(`unknown escape \%c`, c)
	}
	return nil, c, nil // an escaped punctuation mark, space or non-ASCII character
}

func (j *javaRegex) property() (runeSet, error) {
	if !j.more() {
		return nil, fmt.Errorf(`\p needs a property name`)
	}
	if j.peek() != '{' {
		name := string(j.src[j.pos])
		j.pos++
		return javaProperty(name)
	}
	end := j.pos
	for end < len(j.src) && j.src[end] != '}' {
		end++
	}
	if end == len(j.src) {
		return nil, fmt.Errorf(`unclosed \p{`)
	}
	name := string(j.src[j.pos+1 : end])
	j.pos = end + 1
	return javaProperty(name)
}

// octal reads the digits of \0n, \0nn or \0mnn (m at most 3).
func (j *javaRegex) octal() rune {
	var v rune
	for n := 0; n < 3 && j.more(); n++ {
		d := j.peek()
		if d < '0' || d > '7' || n == 2 && v > 037 {
			break
		}
		v = v*8 + d - '0'
		j.pos++
	}
	return v
}

func (j *javaRegex) hexEscape() (rune, error) {
	if j.peek() == '{' {
		end := j.pos
		for end < len(j.src) && j.src[end] != '}' {
			end++
		}
		if end == len(j.src) {
			return 0, fmt.Errorf(`unclosed \x{`)
		}
		v, err := strconv.ParseUint(string(j.src[j.pos+1:end]), 16, 32)
		if err != nil || v > maxRune {
			return 0, fmt.Errorf(`bad \x{%s}`, string(j.src[j.pos+1:end]))
		}
		j.pos = end + 1
		return rune(v), nil
	}
	return j.hexDigits(2, `\x`)
}

func (j *javaRegex) hexDigits(n int, what string) (rune, error) {
	if j.pos+n > len(j.src) {
		return 0, fmt.Errorf(`%s needs %d hex digits`, what, n)
	}
	v, err := strconv.ParseUint(string(j.src[j.pos:j.pos+n]), 16, 32)
	if err != nil {
		return 0, fmt.Errorf(`%s needs %d hex digits, got %q`, what, n, string(j.src[j.pos:j.pos+n]))
	}
	j.pos += n
	return rune(v), nil
}

// unicodeEscape reads \uhhhh, joining a surrogate pair written as two escapes.
func (j *javaRegex) unicodeEscape() (rune, error) {
	r, err := j.hexDigits(4, `\u`)
	if err != nil {
		return 0, err
	}
	if r >= 0xd800 && r < 0xdc00 && j.peek() == '\\' && j.peekAt(1) == 'u' {
		save := j.pos
		j.pos += 2
		if lo, err := j.hexDigits(4, `\u`); err == nil && lo >= 0xdc00 && lo < 0xe000 {
			return (r-0xd800)<<10 + (lo - 0xdc00) + 0x10000, nil
		}
		j.pos = save
	}
	return r, nil
}

// class reads a class after its [, with Java's nesting ([a[bc]] is a union) and
// intersections (&&), and returns its characters and whether it is negated.
func (j *javaRegex) class() (set runeSet, negate bool, err error) {
	j.skipComments()
	if j.peek() == '^' {
		j.pos++
		negate = true
	}
	// acc is the operand being read (hasAcc: it has at least one item, possibly empty, as
	// [a&&b] is); inter is what the intersections before it leave. An operand with no item
	// at all ([&&a], [a&&]) is left out, as Java does.
	var acc, inter runeSet
	hasAcc, intersecting := false, false
	first := true
	for {
		j.skipComments()
		if !j.more() {
			return nil, false, fmt.Errorf("unclosed character class")
		}
		c := j.peek()
		switch {
		case c == ']' && !first:
			j.pos++
			switch {
			case intersecting && hasAcc:
				acc = inter.intersect(acc)
			case intersecting:
				acc = inter
			}
			return acc, negate, nil
		case c == '[':
			j.pos++
			nested, neg, err := j.class()
			if err != nil {
				return nil, false, err
			}
			if neg {
				nested = nested.complement()
			}
			acc, hasAcc = acc.union(nested), true
		case c == '&' && j.peekAt(1) == '&':
			j.pos += 2
			switch {
			case hasAcc && intersecting:
				inter = inter.intersect(acc)
			case hasAcc:
				inter, intersecting = acc, true
			}
			acc, hasAcc = nil, false
		default:
			r, err := j.classRange()
			if err != nil {
				return nil, false, err
			}
			acc, hasAcc = acc.union(r), true
		}
		first = false
	}
}

// classRange reads one character, escape or range a-z inside a class.
func (j *javaRegex) classRange() (runeSet, error) {
	lo, set, err := j.classAtom()
	if err != nil || set != nil {
		return set, err
	}
	if j.peek() == '-' && j.peekAt(1) != ']' && j.peekAt(1) != -1 && j.peekAt(1) != '[' {
		j.pos++
		hi, hset, err := j.classAtom()
		if err != nil {
			return nil, err
		}
		if hset != nil {
			return nil, fmt.Errorf("a class cannot end a range")
		}
		if hi < lo {
			return nil, fmt.Errorf("illegal character range %c-%c", lo, hi)
		}
		return setOf(runeRange{lo, hi}), nil
	}
	return setOf(runeRange{lo, lo}), nil
}

// classAtom reads one character or escape inside a class.
func (j *javaRegex) classAtom() (rune, runeSet, error) {
	c := j.src[j.pos]
	j.pos++
	if c != '\\' {
		return c, nil, nil
	}
	if !j.more() {
		return 0, nil, fmt.Errorf("trailing backslash")
	}
	if j.peek() == 'Q' {
		j.pos++
		var s runeSet
		for _, r := range j.quoted() {
			s = s.union(setOf(runeRange{r, r}))
		}
		return 0, s, nil
	}
	set, lit, err := j.escapeValue()
	if err != nil {
		return 0, nil, err
	}
	return lit, set, nil
}
