package javatime

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Pattern is a compiled DateTimeFormatter pattern (DateTimeFormatter.ofPattern), with the
// letters and counts java.time accepts and the text of Locale.US (English month and day
// names, AM/PM, weeks starting on Sunday).
type Pattern struct {
	src      string
	items    []item
	usesDate bool // the pattern has date fields
	usesTime bool // the pattern has time-of-day fields
	hasZone  bool // the pattern has zone fields
}

type itemKind uint8

const (
	itemLiteral itemKind = iota
	itemField
	itemOptional
)

// item is one element of a compiled pattern: literal text, a field (a letter repeated
// count times) or an optional section.
type item struct {
	kind   itemKind
	letter byte
	count  int
	lit    string
	sub    []item
}

// maxCount is the largest count java.time accepts for each letter.
var maxCount = [128]int8{
	'G': 5, 'u': 19, 'y': 19, 'Y': 19, 'Q': 5, 'q': 5, 'M': 5, 'L': 5, 'w': 2, 'W': 1,
	'd': 2, 'D': 3, 'F': 1, 'E': 5, 'e': 5, 'c': 5, 'a': 1, 'h': 2, 'K': 2, 'k': 2, 'H': 2,
	'm': 2, 's': 2, 'S': 9, 'A': 19, 'n': 19, 'N': 19,
	'V': 2, 'z': 4, 'O': 4, 'X': 5, 'x': 5, 'Z': 5, 'v': 4,
}

const (
	dateLetters = "GuyYQqMLwWdDFEec"
	timeLetters = "ahKkHmsSAnN"
	zoneLetters = "VzOXxZv"
)

// maxNesting bounds the nesting of optional sections.
const maxNesting = 20

// Compile reads a DateTimeFormatter pattern. Its errors name the pattern and what is wrong
// with it, as DateTimeFormatter.ofPattern refuses it.
func Compile(src string) (*Pattern, error) {
	p := &Pattern{src: src}
	items, rest, err := p.compile(src, 0)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		return nil, fmt.Errorf("pattern %q has an unbalanced ']'", src)
	}
	p.items = items
	return p, nil
}

// MustCompile is Compile for patterns known to be valid; it panics otherwise.
func MustCompile(src string) *Pattern {
	p, err := Compile(src)
	if err != nil {
		panic(err)
	}
	return p
}

// String returns the pattern's text.
func (p *Pattern) String() string { return p.src }

// HasZone reports whether the pattern has time-zone fields, which only a value with a zone
// can give.
func (p *Pattern) HasZone() bool { return p.hasZone }

// compile reads items up to the end of s or the ']' that closes the section at depth; rest
// starts at that ']'.
func (p *Pattern) compile(s string, depth int) (items []item, rest string, err error) {
	for len(s) > 0 {
		c := s[0]
		switch {
		case c == '\'':
			var lit string
			if lit, s, err = p.quoted(s); err != nil {
				return nil, "", err
			}
			items = append(items, item{kind: itemLiteral, lit: lit})
		case c == '[':
			if depth > maxNesting {
				return nil, "", fmt.Errorf("pattern %q nests optional sections too deeply", p.src)
			}
			sub, after, err := p.compile(s[1:], depth+1)
			if err != nil {
				return nil, "", err
			}
			items = append(items, item{kind: itemOptional, sub: sub})
			if after == "" {
				// an unclosed optional section runs to the end, as in java.time
				return items, "", nil
			}
			s = after[1:]
		case c == ']':
			if depth == 0 {
				return nil, "", fmt.Errorf("pattern %q has an unbalanced ']'", p.src)
			}
			return items, s, nil
		case c == '{' || c == '}' || c == '#':
			return nil, "", fmt.Errorf("pattern %q uses the reserved character %q: quote it", p.src, c)
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			var it item
			if it, s, err = p.field(s); err != nil {
				return nil, "", err
			}
			items = append(items, it)
		default:
			_, size := utf8.DecodeRuneInString(s)
			items = append(items, item{kind: itemLiteral, lit: s[:size]})
			s = s[size:]
		}
	}
	return items, "", nil
}

// quoted reads 'text' (in which ” is a quote) or ” (a quote) at the start of s.
func (p *Pattern) quoted(s string) (lit, rest string, err error) {
	if len(s) > 1 && s[1] == '\'' {
		return "'", s[2:], nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), s[i+1:], nil
	}
	return "", "", fmt.Errorf("pattern %q has an unterminated quote", p.src)
}

// field reads a run of one letter at the start of s.
func (p *Pattern) field(s string) (item, string, error) {
	c := s[0]
	n := 1
	for n < len(s) && s[n] == c {
		n++
	}
	max := int(maxCount[c])
	switch {
	case max == 0:
		return item{}, "", fmt.Errorf("pattern %q: unknown pattern letter %q", p.src, c)
	case n > max:
		return item{}, "", fmt.Errorf("pattern %q: too many pattern letters %q", p.src, s[:n])
	case c == 'V' && n != 2:
		return item{}, "", fmt.Errorf("pattern %q: the pattern letter count of V must be 2, not %d", p.src, n)
	case (c == 'O' || c == 'v') && n != 1 && n != 4:
		return item{}, "", fmt.Errorf("pattern %q: the pattern letter count of %c must be 1 or 4, not %d", p.src, c, n)
	}
	switch {
	case strings.IndexByte(zoneLetters, c) >= 0:
		p.hasZone = true
	case strings.IndexByte(dateLetters, c) >= 0:
		p.usesDate = true
	case strings.IndexByte(timeLetters, c) >= 0:
		p.usesTime = true
	}
	return item{kind: itemField, letter: c, count: n}, s[n:], nil
}
