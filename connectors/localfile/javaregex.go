package localfile

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
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

// maxRune is the largest code point.
const maxRune = unicode.MaxRune

// runeRange is an inclusive range of code points.
type runeRange struct{ lo, hi rune }

// runeSet is a sorted list of disjoint ranges.
type runeSet []runeRange

func setOf(ranges ...runeRange) runeSet { return runeSet(ranges).normalize() }

func (s runeSet) normalize() runeSet {
	if len(s) == 0 {
		return nil
	}
	out := append(runeSet(nil), s...)
	sort.Slice(out, func(i, j int) bool { return out[i].lo < out[j].lo })
	merged := out[:1]
	for _, r := range out[1:] {
		last := &merged[len(merged)-1]
		if r.lo <= last.hi+1 {
			last.hi = max(last.hi, r.hi)
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

func (s runeSet) union(t runeSet) runeSet {
	return append(append(runeSet(nil), s...), t...).normalize()
}

func (s runeSet) complement() runeSet {
	var out runeSet
	next := rune(0)
	for _, r := range s {
		if r.lo > next {
			out = append(out, runeRange{next, r.lo - 1})
		}
		next = r.hi + 1
	}
	if next <= maxRune {
		out = append(out, runeRange{next, maxRune})
	}
	return out
}

func (s runeSet) intersect(t runeSet) runeSet {
	return s.complement().union(t.complement()).complement()
}

func tableSet(t *unicode.RangeTable) runeSet {
	var out runeSet
	for _, r := range t.R16 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			if r.Stride == 1 {
				out = append(out, runeRange{rune(r.Lo), rune(r.Hi)})
				break
			}
			out = append(out, runeRange{c, c})
		}
	}
	for _, r := range t.R32 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			if r.Stride == 1 {
				out = append(out, runeRange{rune(r.Lo), rune(r.Hi)})
				break
			}
			out = append(out, runeRange{c, c})
		}
	}
	return out.normalize()
}

// appendClass writes the set as an RE2 class of explicit ranges.
func (s runeSet) appendClass(b *strings.Builder, negate bool) {
	if len(s) == 0 {
		negate = !negate
		s = runeSet{{0, maxRune}}
	}
	b.WriteByte('[')
	if negate {
		b.WriteByte('^')
	}
	for _, r := range s {
		fmt.Fprintf(b, `\x{%x}`, r.lo)
		if r.hi != r.lo {
			fmt.Fprintf(b, `-\x{%x}`, r.hi)
		}
	}
	b.WriteByte(']')
}

// Java's predefined classes.
var (
	javaDigit = setOf(runeRange{'0', '9'})
	javaWord  = setOf(runeRange{'a', 'z'}, runeRange{'A', 'Z'}, runeRange{'_', '_'}, runeRange{'0', '9'})
	javaSpace = setOf(runeRange{'\t', '\r'}, runeRange{' ', ' '})
	javaHoriz = setOf(runeRange{' ', ' '}, runeRange{'\t', '\t'}, runeRange{0xa0, 0xa0}, runeRange{0x1680, 0x1680},
		runeRange{0x180e, 0x180e}, runeRange{0x2000, 0x200a}, runeRange{0x202f, 0x202f}, runeRange{0x205f, 0x205f}, runeRange{0x3000, 0x3000})
	javaVert = setOf(runeRange{'\n', '\r'}, runeRange{0x85, 0x85}, runeRange{0x2028, 0x2029})
	// what . does not match, unless (?s) or (?d)
	javaLineTerminators = setOf(runeRange{'\n', '\n'}, runeRange{'\r', '\r'}, runeRange{0x85, 0x85}, runeRange{0x2028, 0x2029})
)

// javaPOSIX are Java's \p{Lower} and friends: US-ASCII only.
var javaPOSIX = map[string]runeSet{
	"Lower":  setOf(runeRange{'a', 'z'}),
	"Upper":  setOf(runeRange{'A', 'Z'}),
	"ASCII":  setOf(runeRange{0, 0x7f}),
	"Alpha":  setOf(runeRange{'a', 'z'}, runeRange{'A', 'Z'}),
	"Digit":  setOf(runeRange{'0', '9'}),
	"Alnum":  setOf(runeRange{'a', 'z'}, runeRange{'A', 'Z'}, runeRange{'0', '9'}),
	"Punct":  setOf(runeRange{'!', '/'}, runeRange{':', '@'}, runeRange{'[', '`'}, runeRange{'{', '~'}),
	"Graph":  setOf(runeRange{'!', '~'}),
	"Print":  setOf(runeRange{' ', '~'}),
	"Blank":  setOf(runeRange{' ', ' '}, runeRange{'\t', '\t'}),
	"Cntrl":  setOf(runeRange{0, 0x1f}, runeRange{0x7f, 0x7f}),
	"XDigit": setOf(runeRange{'0', '9'}, runeRange{'a', 'f'}, runeRange{'A', 'F'}),
	"Space":  setOf(runeRange{'\t', '\r'}, runeRange{' ', ' '}),
}

// javaBinaryProperties are the \p{IsXxx} binary properties Strait can express.
var javaBinaryProperties = map[string]func() runeSet{
	"whitespace":  func() runeSet { return tableSet(unicode.White_Space) },
	"letter":      func() runeSet { return tableSet(unicode.L) },
	"digit":       func() runeSet { return tableSet(unicode.Nd) },
	"punctuation": func() runeSet { return tableSet(unicode.P) },
	"control":     func() runeSet { return tableSet(unicode.Cc) },
	"titlecase":   func() runeSet { return tableSet(unicode.Lt) },
	"hexdigit":    func() runeSet { return tableSet(unicode.Hex_Digit) },
	"ideographic": func() runeSet { return tableSet(unicode.Ideographic) },
	"joincontrol": func() runeSet { return tableSet(unicode.Join_Control) },
	"lowercase":   func() runeSet { return tableSet(unicode.Ll).union(tableSet(unicode.Other_Lowercase)) },
	"uppercase":   func() runeSet { return tableSet(unicode.Lu).union(tableSet(unicode.Other_Uppercase)) },
	"alphabetic": func() runeSet {
		s := tableSet(unicode.L).union(tableSet(unicode.Nl)).union(tableSet(unicode.Other_Alphabetic))
		return s
	},
}

// javaProperty resolves the name of \p{name} as Java does.
func javaProperty(name string) (runeSet, error) {
	if s, ok := javaPOSIX[name]; ok {
		return s, nil
	}
	key, value, hasKey := strings.Cut(name, "=")
	switch {
	case hasKey && (key == "gc" || key == "general_category"):
		return category(value, name)
	case hasKey && (key == "sc" || key == "script"):
		return script(value, name)
	case hasKey && (key == "blk" || key == "block"), strings.HasPrefix(name, "In"):
		return nil, fmt.Errorf(`\p{%s}: Unicode blocks are not supported`, name)
	case hasKey:
		return nil, fmt.Errorf(`\p{%s}: unknown property %q`, name, key)
	case strings.HasPrefix(name, "java"):
		return nil, fmt.Errorf(`\p{%s}: java.lang.Character classes are not supported`, name)
	case strings.HasPrefix(name, "Is"):
		rest := name[2:]
		if s, err := category(rest, name); err == nil {
			return s, nil
		}
		if s, err := script(rest, name); err == nil {
			return s, nil
		}
		norm := strings.ToLower(strings.NewReplacer("_", "", " ", "", "-", "").Replace(rest))
		if f, ok := javaBinaryProperties[norm]; ok {
			return f(), nil
		}
		return nil, fmt.Errorf(`\p{%s}: unknown or unsupported property`, name)
	}
	return category(name, name)
}

func category(name, full string) (runeSet, error) {
	switch name {
	case "LC": // a cased letter
		return tableSet(unicode.Lu).union(tableSet(unicode.Ll)).union(tableSet(unicode.Lt)), nil
	case "LD": // a letter or digit
		return tableSet(unicode.L).union(tableSet(unicode.Nd)), nil
	}
	if t, ok := unicode.Categories[name]; ok {
		return tableSet(t), nil
	}
	return nil, fmt.Errorf(`\p{%s}: unknown character property`, full)
}

func script(name, full string) (runeSet, error) {
	for k, t := range unicode.Scripts {
		if strings.EqualFold(k, name) {
			return tableSet(t), nil
		}
	}
	return nil, fmt.Errorf(`\p{%s}: unknown script`, full)
}

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

// translateJavaRegex rewrites a Java regular expression into an RE2 one with the same
// matches, or says which construct it cannot express.
func translateJavaRegex(p string) (string, error) {
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

// escapeValue reads the escape after a backslash that stands for a class (set) or one
// character (lit), inside or outside a class.
func (j *javaRegex) escapeValue() (set runeSet, lit rune, err error) {
	c := j.src[j.pos]
	j.pos++
	switch c {
	case 'd':
		return javaDigit, 0, nil
	case 'D':
		return javaDigit.complement(), 0, nil
	case 'w':
		return javaWord, 0, nil
	case 'W':
		return javaWord.complement(), 0, nil
	case 's':
		return javaSpace, 0, nil
	case 'S':
		return javaSpace.complement(), 0, nil
	case 'h':
		return javaHoriz, 0, nil
	case 'H':
		return javaHoriz.complement(), 0, nil
	case 'v':
		return javaVert, 0, nil
	case 'V':
		return javaVert.complement(), 0, nil
	case 'p', 'P':
		s, err := j.property()
		if err != nil {
			return nil, 0, err
		}
		if c == 'P' {
			s = s.complement()
		}
		return s, 0, nil
	case 't':
		return nil, '\t', nil
	case 'n':
		return nil, '\n', nil
	case 'r':
		return nil, '\r', nil
	case 'f':
		return nil, '\f', nil
	case 'a':
		return nil, '\a', nil
	case 'e':
		return nil, 0x1b, nil
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

// canMatchEmpty reports whether a parsed RE2 pattern can match the empty string somewhere.
func canMatchEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCapture, syntax.OpPlus:
		return canMatchEmpty(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || canMatchEmpty(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !canMatchEmpty(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if canMatchEmpty(s) {
				return true
			}
		}
		return false
	}
	return true // empty matches, assertions, star and quest
}

// fieldDelimiter is the text source's field delimiter: SeaTunnel splits a line with
// String.split(delimiter, -1), so the delimiter is a Java regular expression and every
// field is kept, trailing empty ones too. A delimiter that only matches itself is split
// at without a regular expression.
type fieldDelimiter struct {
	literal []byte         // the delimiter's text when it matches only itself
	re      *regexp.Regexp // else the pattern
}

// compileDelimiter reads a delimiter as String.split does.
func compileDelimiter(s string) (fieldDelimiter, error) {
	if !utf8.ValidString(s) {
		return fieldDelimiter{}, fmt.Errorf("the pattern is not valid UTF-8")
	}
	if lit, ok := javaSplitFastPath(s); ok {
		return fieldDelimiter{literal: []byte(lit)}, nil
	}
	p, err := translateJavaRegex(s)
	if err != nil {
		return fieldDelimiter{}, err
	}
	parsed, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return fieldDelimiter{}, fmt.Errorf("not a regular expression Strait can read: %v", err)
	}
	if canMatchEmpty(parsed) {
		return fieldDelimiter{}, fmt.Errorf(`the pattern matches the empty string, so String.split would cut the line between every character (escape the metacharacters: "\\|" for |)`)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return fieldDelimiter{}, fmt.Errorf("not a regular expression Strait can read: %v", err)
	}
	if prefix, complete := re.LiteralPrefix(); complete && prefix != "" {
		return fieldDelimiter{literal: []byte(prefix)}, nil
	}
	return fieldDelimiter{re: re}, nil
}

// javaSplitFastPath is String.split's own shortcut: a single character that is not a
// regular expression metacharacter, or a backslash and a character that is not a letter or
// digit, is that character.
func javaSplitFastPath(s string) (string, bool) {
	r, n := utf8.DecodeRuneInString(s)
	switch {
	case n == len(s) && n > 0 && r <= 0xffff && !strings.ContainsRune(".$|()[{^?*+\\", r):
		return s, true
	case len(s) > 1 && s[0] == '\\':
		r, n := utf8.DecodeRuneInString(s[1:])
		if 1+n == len(s) && r <= 0xffff && !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return s[1:], true
		}
	}
	return "", false
}
