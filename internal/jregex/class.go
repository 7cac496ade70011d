package jregex

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// The character classes of Java regular expressions, as sets of code points: the rewrite
// into RE2 writes every class as its explicit ranges, so that it means what it meant in
// Java whatever the two syntaxes make of nested classes, intersections and class names.

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

// tableSet is the set of a Unicode table.
func tableSet(t *unicode.RangeTable) runeSet {
	var out runeSet
	add := func(lo, hi, stride rune) {
		if stride == 1 {
			out = append(out, runeRange{lo, hi})
			return
		}
		for c := lo; c <= hi; c += stride {
			out = append(out, runeRange{c, c})
		}
	}
	for _, r := range t.R16 {
		add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	for _, r := range t.R32 {
		add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
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
		return tableSet(unicode.L).union(tableSet(unicode.Nl)).union(tableSet(unicode.Other_Alphabetic))
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
