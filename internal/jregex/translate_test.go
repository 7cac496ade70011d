package jregex

import (
	"reflect"
	"strings"
	"testing"
)

// TestTranslateSplit splits lines as Java's String.split(regex, -1) does with patterns that
// only mean what Java means once rewritten. The expected pieces were produced by Java 17 from
// the same patterns and lines.
func TestTranslateSplit(t *testing.T) {
	cases := []struct {
		pattern, line string
		want          []string
	}{
		{"\\|", "a|b||c|", []string{"a", "b", "", "c", ""}},
		{",", "a,b,,c,,", []string{"a", "b", "", "c", "", ""}},
		{"\\s+", "a  b\u0009c\u000bd", []string{"a", "b", "c", "d"}},
		{"[,;]", "a,b;c", []string{"a", "b", "c"}},
		{"\\|\\|", "a||b|c||", []string{"a", "b|c", ""}},
		{"\\Q|\\E", "a|b", []string{"a", "b"}},
		{"\\Q||", "a||b", []string{"a", "b"}},
		{"\\u0001", "a\u0001b", []string{"a", "b"}},
		{"\\x01", "a\u0001b", []string{"a", "b"}},
		{"\\x{1F600}", "a\U0001f600b", []string{"a", "b"}},
		{"\\uD83D\\uDE00", "a\U0001f600b", []string{"a", "b"}},
		{"[a-z&&[^aeiou]]", "1b2e3", []string{"1", "2e3"}},
		{"[a-z&&[^aeiou]&&[a-c]]", "1b2d3a4", []string{"1", "2d3a4"}},
		{"[&&,]", "a,b", []string{"a", "b"}},
		{"[,&&]", "a,b", []string{"a", "b"}},
		{"[\\w&&\\D]", "1a2_3", []string{"1", "2", "3"}},
		{"\\p{Punct}", "a!b#c", []string{"a", "b", "c"}},
		{"\\p{Lower}+", "AbcDeF", []string{"A", "D", "F"}},
		{"\\p{IsLatin}", "1a2\u00e93\u03b14", []string{"1", "2", "3\u03b14"}},
		{"\\p{IsGreek}", "1a2\u00e93\u03b14", []string{"1a2\u00e93", "4"}},
		{"\\p{L}", "1a2\u00e93", []string{"1", "2", "3"}},
		{"\\pN", "a1b\u0663c", []string{"a", "b", "c"}},
		{"\\P{Alnum}", "a-b c", []string{"a", "b", "c"}},
		{"\\p{gc=Lu}", "aBc", []string{"a", "c"}},
		{"\\p{IsWhite_Space}", "a\u2003b", []string{"a", "b"}},
		{"\\p{IsAlphabetic}", "1a2", []string{"1", "2"}},
		{"(?i)x", "aXbxc", []string{"a", "b", "c"}},
		{".", "a\u000db", []string{"", "\u000d", ""}},
		{"(?s).", "a\u000db", []string{"", "", "", ""}},
		{"(?d).", "a\u000db", []string{"", "", "", ""}},
		{"a*b", "1b2aab3", []string{"1", "2", "3"}},
		{"\\h", "a\u00a0b c", []string{"a", "b", "c"}},
		{"\\v", "a\u000bb\u2028c", []string{"a", "b", "c"}},
		{"[[a][b]]", "1a2b3", []string{"1", "2", "3"}},
		{"[^[a][b]]", "ab1ab", []string{"ab", "ab"}},
		{"\\0101", "xAy", []string{"x", "y"}},
		{"\\cA", "a\u0001b", []string{"a", "b"}},
		{"\\e", "a\u001bb", []string{"a", "b"}},
		{"(?x) \\| # bar", "a|b", []string{"a", "b"}},
		{"(?x)[ , ]", "a,b c", []string{"a", "b c"}},
		{"[^\\d]", "1a2", []string{"1", "2"}},
		{"\\t", "a\u0009b", []string{"a", "b"}},
		{"(?<n>;)", "a;b", []string{"a", "b"}},
		{";{2}", "a;;b;c", []string{"a", "b;c"}},
		{";{1,}?", "a;;b", []string{"a", "", "b"}},
		{"\\R", "a\u000d\u000ab\u000dc", []string{"a", "b", "c"}},
		{"\\\\", "a\\b", []string{"a", "b"}},
		{"\\.", "a.b", []string{"a", "b"}},
		{"a|b", "1a2b3", []string{"1", "2", "3"}},
		{"[]a]", "x]yaz", []string{"x", "y", "z"}},
		{"[a-]", "1-2a3", []string{"1", "2", "3"}},
		{"\u00e9", "a\u00e9b", []string{"a", "b"}},
		{"\\\u00e9", "a\u00e9b", []string{"a", "b"}},
		{"\U0001f600", "a\U0001f600b", []string{"a", "b"}},
		{"(?i:a)b", "1Ab2aB3", []string{"1", "2aB3"}},
		{"(?i)a(?-i)b", "1Ab2aB3", []string{"1", "2aB3"}},
		{"(a)(?i)b", "1aB2", []string{"1", "2"}},
		{"((?i)a)b", "1Ab2AB3", []string{"1", "2AB3"}},
		{"\\s", "a\u000bb", []string{"a", "b"}},
		{"\\bx", "ax x", []string{"ax ", ""}},
		{"x$", "axbx", []string{"axb", ""}},
		{"^x", "xaxb", []string{"", "axb"}},
		{"[\\Q]\\E]", "a]b", []string{"a", "b"}},
		{"\\p{XDigit}", "gAh1", []string{"g", "h", ""}},
		{"\\p{LD}", "-a-1-", []string{"-", "-", "-"}},
		{"[\\p{L}&&[^a]]", "1a2b3", []string{"1a2", "3"}},
		{"(?m)x$", "axbx", []string{"axb", ""}},
		{";", "", []string{""}},
		{"\\s+", " a b ", []string{"", "a", "b", ""}},
	}
	for _, c := range cases {
		re, err := Compile(c.pattern)
		if err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		if got := re.Split(c.line, -1, nil); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q.split(%q, -1) = %q, want %q", c.line, c.pattern, got, c.want)
		}
	}
}

// What RE2 cannot express is refused, naming the construct.
func TestTranslateRefused(t *testing.T) {
	for pattern, want := range map[string]string{
		`,(?=a)`:            "lookahead (?= is not supported",
		`,(?!a)`:            "lookahead (?! is not supported",
		`(?<=a),`:           "lookbehind (?<= is not supported",
		`(?<!a),`:           "lookbehind (?<! is not supported",
		`(?>,)`:             "atomic groups (?> are not supported",
		`,*+`:               "possessive quantifiers (*+) are not supported",
		`,++`:               "possessive quantifiers (++) are not supported",
		`,{2}+`:             "possessive quantifiers",
		`(,)\1`:             `backreferences (\1) are not supported`,
		`(?<x>,)\k<x>`:      `backreferences (\k<name>) are not supported`,
		`\G,`:               `\G is not supported`,
		`,\Z`:               `\Z is not supported`,
		`\X`:                `\X is not supported`,
		`\N{COMMA}`:         `\N{name} is not supported`,
		`\b{g}`:             `\b{g} is not supported`,
		`\p{InGreek}`:       `\p{InGreek}: Unicode blocks are not supported`,
		`\p{javaLowerCase}`: `\p{javaLowerCase}: java.lang.Character classes are not supported`,
		`\p{Nope}`:          `\p{Nope}: unknown character property`,
		`(?U),`:             "the flag U (UNICODE_CHARACTER_CLASS) is not supported",
		`[,`:                "unclosed character class",
		`,{`:                "illegal repetition",
		`,{x}`:              "illegal repetition {x}",
		`\q`:                `unknown escape \q`,
		`(,`:                "unclosed group",
		`,)`:                "unmatched )",
		`[z-a]`:             "illegal character range z-a",
		`\`:                 "trailing backslash",
		`\u00`:              `\u needs 4 hex digits`,
		`\x{110000}`:        `bad \x{110000}`,
		"\xff":              "not valid UTF-8",
		`(?q),`:             `unknown inline flag 'q'`,
	} {
		_, err := Translate(pattern)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", pattern, err, want)
		}
	}
}

// Rewritten patterns compile in RE2 and keep what was literal literal.
func TestTranslateOutput(t *testing.T) {
	for pattern, want := range map[string]string{
		`,`:          `,`,
		`\|`:         `\|`,
		`\Q.*\E`:     `\.\*`,
		`a+?b{2,3}`:  `a+?b{2,3}`,
		`(?<n>x)|^$`: `(?P<n>x)|^$`,
		`(?i:a)`:     `(?i:a)`,
		`\d`:         `[\x{30}-\x{39}]`,
		`[^a]`:       `[^\x{61}]`,
		`(?s).`:      `(?s:.)`,
		`(?d).`:      `[^\n]`,
	} {
		got, err := Translate(pattern)
		if err != nil || got != want {
			t.Errorf("Translate(%q) = %q (%v), want %q", pattern, got, err, want)
		}
	}
}

// FuzzTranslate rewrites arbitrary patterns: a pattern is rewritten or refused, never a
// panic; one Translate refuses Compile refuses too, and what compiles splits any line.
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{
		`\|`, `\s*[;,]\s*`, `[a-z&&[^aeiou]]`, `\p{IsLatin}`, `(?x) \| # c`, `(?i:a)b`, `\Q|\E`,
		`[[a][^b]]`, `\uD83D\uDE00`, `\0101`, `(?<n>;)`, `;{1,}?`, `\R`, `[]a]`, `(?s).`, `*0`,
	} {
		f.Add(s, "a|b;c, d\u00e9\r\n")
	}
	f.Fuzz(func(t *testing.T, pattern, line string) {
		_, terr := Translate(pattern)
		re, err := Compile(pattern)
		if terr != nil {
			if err == nil {
				t.Fatalf("%q: Translate refuses it (%v), Compile does not", pattern, terr)
			}
			return
		}
		if err != nil {
			return // RE2's own limits: a repeat count past 1000, a dangling *
		}
		if parts := re.Split(line, -1, nil); len(parts) == 0 {
			t.Fatalf("%q split %q into nothing", pattern, line)
		}
	})
}
