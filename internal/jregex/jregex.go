// Package jregex runs the regular expressions of SeaTunnel job configs, written for Java's
// java.util.regex, with Go's RE2 engine. A pattern is first rewritten into RE2's syntax with
// the same matches (Translate: Java's classes, line terminators, escapes and flags), then run
// with Java's observable rules where the two engines differ in ways job configs meet:
//
//   - the scan for successive matches: Java accepts an empty match right after a non-empty
//     one ("foo" with o* and X gives XfXX), RE2 skips it;
//   - replacement strings: $n takes the longest group number that exists, ${name} a named
//     group, a backslash escapes the next character, a bare $ is an error;
//   - String.split with a positive limit: at most limit pieces, a zero-width match at the
//     start gives no empty first piece, trailing empty pieces are kept.
//
// What RE2 cannot express (lookaround, backreferences, atomic groups, possessive quantifiers
// and the rest Translate names) is rejected when the pattern is compiled. Remaining
// differences: ^ and $ see only \n as a line break ($ without (?m) matches only at the very
// end, Java also before a final line break), (?i) folds the case of non-ASCII letters too
// (Java only with (?u)), and the Java empty-match rule is not applied to patterns that can
// match empty and use ^, \A, \b or \B.
package jregex

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// Regexp is a compiled pattern.
type Regexp struct {
	src       string // the Java pattern
	re        *regexp.Regexp
	lit       string // the whole pattern when it is a plain non-empty literal
	isLiteral bool
	canEmpty  bool // may match the empty string somewhere
	leftCtx   bool // has assertions that look at the text before the match
}

// Compile compiles a Java pattern. Its errors name the construct RE2 cannot express, or
// what is wrong with the pattern.
func Compile(pattern string) (*Regexp, error) {
	rewritten, err := Translate(pattern)
	if err != nil {
		return nil, fmt.Errorf("error parsing regexp: %v in `%s`", err, pattern)
	}
	re, err := regexp.Compile(rewritten)
	if err != nil {
		return nil, fmt.Errorf("error parsing regexp `%s`: %v", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	tree, err := syntax.Parse(rewritten, syntax.Perl)
	if err != nil {
		return nil, err
	}
	r := &Regexp{src: pattern, re: re, canEmpty: Nullable(tree), leftCtx: looksLeft(tree)}
	if lit, complete := re.LiteralPrefix(); complete && lit != "" {
		r.lit, r.isLiteral = lit, true
	}
	return r, nil
}

// MustCompile is Compile for patterns known to be valid; it panics otherwise.
func MustCompile(pattern string) *Regexp {
	r, err := Compile(pattern)
	if err != nil {
		panic(err)
	}
	return r
}

// String returns the Java pattern.
func (r *Regexp) String() string { return r.src }

// NumGroups is the number of capturing groups.
func (r *Regexp) NumGroups() int { return r.re.NumSubexp() }

// Nullable reports whether a parsed RE2 pattern can match the empty string somewhere.
func Nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCapture, syntax.OpPlus:
		return Nullable(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpRepeat:
		return re.Min == 0 || Nullable(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !Nullable(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if Nullable(s) {
				return true
			}
		}
		return false
	}
	return true // empty match and the assertions
}

func looksLeft(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, s := range re.Sub {
		if looksLeft(s) {
			return true
		}
	}
	return false
}

// matches returns the matches Java's Matcher.find loop would report: RE2's, plus the empty
// matches RE2 drops right after a non-empty match. With sub, the group positions too.
func (r *Regexp) matches(s string, sub bool) [][]int {
	var ms [][]int
	if sub {
		ms = r.re.FindAllStringSubmatchIndex(s, -1)
	} else {
		ms = r.re.FindAllStringIndex(s, -1)
	}
	if !r.canEmpty || r.leftCtx || len(ms) == 0 {
		return ms
	}
	var out [][]int
	for i, m := range ms {
		if out != nil {
			out = append(out, m)
		}
		e := m[1]
		if e == m[0] || (i+1 < len(ms) && ms[i+1][0] == e) {
			continue
		}
		var x []int
		if sub {
			x = r.re.FindStringSubmatchIndex(s[e:])
		} else {
			x = r.re.FindStringIndex(s[e:])
		}
		if x == nil || x[0] != 0 || x[1] != 0 {
			continue
		}
		for k := range x {
			if x[k] >= 0 {
				x[k] += e
			}
		}
		if out == nil {
			out = append(make([][]int, 0, len(ms)+1), ms[:i+1]...)
		}
		out = append(out, x)
	}
	if out == nil {
		return ms
	}
	return out
}

// Replacement is a parsed Java replacement string.
type Replacement struct {
	tmpl    string // Go Expand template
	lit     string // the text, when it refers to no group
	literal bool
}

// ParseReplacement reads a replacement string with Java's rules for this pattern.
func (r *Regexp) ParseReplacement(repl string) (*Replacement, error) {
	var tmpl, lit strings.Builder
	groups := r.re.NumSubexp()
	refs := false
	for i := 0; i < len(repl); {
		c := repl[i]
		switch c {
		case '\\':
			i++
			if i == len(repl) {
				return nil, fmt.Errorf("character to be escaped is missing at the end of %q", repl)
			}
			c = repl[i]
			if c == '$' {
				tmpl.WriteString("$$")
			} else {
				tmpl.WriteByte(c)
			}
			lit.WriteByte(c)
			i++
		case '$':
			i++
			if i == len(repl) {
				return nil, fmt.Errorf("illegal group reference: group index is missing at the end of %q", repl)
			}
			refs = true
			if repl[i] == '{' {
				j := i + 1
				for j < len(repl) && isAlnum(repl[j]) {
					j++
				}
				name := repl[i+1 : j]
				switch {
				case name == "":
					return nil, fmt.Errorf("named capturing group has 0 length name in %q", repl)
				case j == len(repl) || repl[j] != '}':
					return nil, fmt.Errorf("named capturing group is missing trailing '}' in %q", repl)
				case name[0] >= '0' && name[0] <= '9':
					return nil, fmt.Errorf("capturing group name {%s} starts with digit character in %q", name, repl)
				}
				n := r.re.SubexpIndex(name)
				if n < 0 {
					return nil, fmt.Errorf("no group with name {%s} in the pattern", name)
				}
				tmpl.WriteString("${" + strconv.Itoa(n) + "}")
				i = j + 1
				continue
			}
			c = repl[i]
			if c < '0' || c > '9' {
				return nil, fmt.Errorf("illegal group reference $%c in %q (write \\$ for a dollar sign)", c, repl)
			}
			n := int(c - '0')
			i++
			for i < len(repl) && repl[i] >= '0' && repl[i] <= '9' {
				next := n*10 + int(repl[i]-'0')
				if next > groups {
					break
				}
				n = next
				i++
			}
			if n > groups {
				return nil, fmt.Errorf("no group %d in the pattern (it has %d)", n, groups)
			}
			tmpl.WriteString("${" + strconv.Itoa(n) + "}")
		default:
			tmpl.WriteByte(c)
			lit.WriteByte(c)
			i++
		}
	}
	return &Replacement{tmpl: tmpl.String(), lit: lit.String(), literal: !refs}, nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// ReplaceAll replaces every match as Java's Matcher.replaceAll does.
func (r *Regexp) ReplaceAll(s string, rep *Replacement) string {
	if !r.canEmpty || r.leftCtx {
		if rep.literal {
			if r.isLiteral {
				return strings.ReplaceAll(s, r.lit, rep.lit)
			}
			return r.re.ReplaceAllLiteralString(s, rep.lit)
		}
		return r.re.ReplaceAllString(s, rep.tmpl)
	}
	ms := r.matches(s, !rep.literal)
	if len(ms) == 0 {
		return s
	}
	buf := make([]byte, 0, len(s)+len(rep.lit)*len(ms))
	last := 0
	for _, m := range ms {
		buf = append(buf, s[last:m[0]]...)
		buf = rep.expand(buf, r.re, s, m)
		last = m[1]
	}
	buf = append(buf, s[last:]...)
	return string(buf)
}

// ReplaceFirst replaces the first match as Java's Matcher.replaceFirst does.
func (r *Regexp) ReplaceFirst(s string, rep *Replacement) string {
	var m []int
	if rep.literal {
		m = r.re.FindStringIndex(s)
	} else {
		m = r.re.FindStringSubmatchIndex(s)
	}
	if m == nil {
		return s
	}
	buf := make([]byte, 0, len(s)-(m[1]-m[0])+len(rep.lit)+16)
	buf = append(buf, s[:m[0]]...)
	buf = rep.expand(buf, r.re, s, m)
	buf = append(buf, s[m[1]:]...)
	return string(buf)
}

func (rep *Replacement) expand(dst []byte, re *regexp.Regexp, s string, m []int) []byte {
	if rep.literal {
		return append(dst, rep.lit...)
	}
	return re.ExpandString(dst, rep.tmpl, s, m)
}

// Split divides s around the matches as Java's String.split(regex, limit) does for a
// positive limit, appending the pieces to dst[:0]. The pieces share s's memory.
func (r *Regexp) Split(s string, limit int, dst []string) []string {
	dst = dst[:0]
	if limit <= 0 {
		limit = int(^uint(0) >> 1)
	}
	if r.isLiteral {
		for len(dst) < limit-1 {
			i := strings.Index(s, r.lit)
			if i < 0 {
				break
			}
			dst = append(dst, s[:i])
			s = s[i+len(r.lit):]
		}
		return append(dst, s)
	}
	index := 0
	for _, m := range r.matches(s, false) {
		if len(dst) >= limit-1 {
			break
		}
		if index == 0 && m[0] == 0 && m[1] == 0 {
			continue
		}
		dst = append(dst, s[index:m[0]])
		index = m[1]
	}
	return append(dst, s[index:])
}
