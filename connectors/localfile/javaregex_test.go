package localfile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// splitText decodes line with a text source whose schema has n string columns and the
// given field_delimiter.
func splitText(delim fieldDelimiter, line string, n int) ([]row.Value, error) {
	cfg := &sourceConfig{where: "source[0] LocalFile", format: formatText, delim: delim}
	for i := 0; i < n; i++ {
		cfg.cols = append(cfg.cols, colSpec{name: fmt.Sprint("c", i), t: types.Of(types.String), out: i})
	}
	d := &decoder{cfg: cfg, file: "a.txt", line: 1}
	fields := make([]row.Value, n)
	err := d.decodeText([]byte(line), fields)
	return fields, err
}

// TestJavaSplit splits lines as Java's String.split(delimiter, -1) does. The expected
// pieces were produced by Java 17 from the same delimiters and lines.
func TestJavaSplit(t *testing.T) {
	cases := []struct {
		delim, line string
		want        []string
		_           string
	}{
		{"\\|", "a|b||c|", []string{"a", "b", "", "c", ""}, ""},
		{",", "a,b,,c,,", []string{"a", "b", "", "c", "", ""}, ""},
		{"\\s+", "a  b\u0009c\u000bd", []string{"a", "b", "c", "d"}, ""},
		{"[,;]", "a,b;c", []string{"a", "b", "c"}, ""},
		{"\\|\\|", "a||b|c||", []string{"a", "b|c", ""}, ""},
		{"\\Q|\\E", "a|b", []string{"a", "b"}, ""},
		{"\\Q||", "a||b", []string{"a", "b"}, ""},
		{"\\u0001", "a\u0001b", []string{"a", "b"}, ""},
		{"\\x01", "a\u0001b", []string{"a", "b"}, ""},
		{"\\x{1F600}", "a\U0001f600b", []string{"a", "b"}, ""},
		{"\\uD83D\\uDE00", "a\U0001f600b", []string{"a", "b"}, ""},
		{"[a-z&&[^aeiou]]", "1b2e3", []string{"1", "2e3"}, ""},
		{"[a-z&&[^aeiou]&&[a-c]]", "1b2d3a4", []string{"1", "2d3a4"}, ""},
		{"[&&,]", "a,b", []string{"a", "b"}, ""},
		{"[,&&]", "a,b", []string{"a", "b"}, ""},
		{"[\\w&&\\D]", "1a2_3", []string{"1", "2", "3"}, ""},
		{"\\p{Punct}", "a!b#c", []string{"a", "b", "c"}, ""},
		{"\\p{Lower}+", "AbcDeF", []string{"A", "D", "F"}, ""},
		{"\\p{IsLatin}", "1a2\u00e93\u03b14", []string{"1", "2", "3\u03b14"}, ""},
		{"\\p{IsGreek}", "1a2\u00e93\u03b14", []string{"1a2\u00e93", "4"}, ""},
		{"\\p{L}", "1a2\u00e93", []string{"1", "2", "3"}, ""},
		{"\\pN", "a1b\u0663c", []string{"a", "b", "c"}, ""},
		{"\\P{Alnum}", "a-b c", []string{"a", "b", "c"}, ""},
		{"\\p{gc=Lu}", "aBc", []string{"a", "c"}, ""},
		{"\\p{IsWhite_Space}", "a\u2003b", []string{"a", "b"}, ""},
		{"\\p{IsAlphabetic}", "1a2", []string{"1", "2"}, ""},
		{"(?i)x", "aXbxc", []string{"a", "b", "c"}, ""},
		{".", "a\u000db", []string{"", "\u000d", ""}, ""},
		{"(?s).", "a\u000db", []string{"", "", "", ""}, ""},
		{"(?d).", "a\u000db", []string{"", "", "", ""}, ""},
		{"a*b", "1b2aab3", []string{"1", "2", "3"}, ""},
		{"\\h", "a\u00a0b c", []string{"a", "b", "c"}, ""},
		{"\\v", "a\u000bb\u2028c", []string{"a", "b", "c"}, ""},
		{"[[a][b]]", "1a2b3", []string{"1", "2", "3"}, ""},
		{"[^[a][b]]", "ab1ab", []string{"ab", "ab"}, ""},
		{"\\0101", "xAy", []string{"x", "y"}, ""},
		{"\\cA", "a\u0001b", []string{"a", "b"}, ""},
		{"\\e", "a\u001bb", []string{"a", "b"}, ""},
		{"(?x) \\| # bar", "a|b", []string{"a", "b"}, ""},
		{"(?x)[ , ]", "a,b c", []string{"a", "b c"}, ""},
		{"[^\\d]", "1a2", []string{"1", "2"}, ""},
		{"\\t", "a\u0009b", []string{"a", "b"}, ""},
		{"(?<n>;)", "a;b", []string{"a", "b"}, ""},
		{";{2}", "a;;b;c", []string{"a", "b;c"}, ""},
		{";{1,}?", "a;;b", []string{"a", "", "b"}, ""},
		{"\\R", "a\u000d\u000ab\u000dc", []string{"a", "b", "c"}, ""},
		{"\\\\", "a\\b", []string{"a", "b"}, ""},
		{"\\.", "a.b", []string{"a", "b"}, ""},
		{"a|b", "1a2b3", []string{"1", "2", "3"}, ""},
		{"[]a]", "x]yaz", []string{"x", "y", "z"}, ""},
		{"[a-]", "1-2a3", []string{"1", "2", "3"}, ""},
		{"\u00e9", "a\u00e9b", []string{"a", "b"}, ""},
		{"\\\u00e9", "a\u00e9b", []string{"a", "b"}, ""},
		{"\U0001f600", "a\U0001f600b", []string{"a", "b"}, ""},
		{"(?i:a)b", "1Ab2aB3", []string{"1", "2aB3"}, ""},
		{"(?i)a(?-i)b", "1Ab2aB3", []string{"1", "2aB3"}, ""},
		{"(a)(?i)b", "1aB2", []string{"1", "2"}, ""},
		{"((?i)a)b", "1Ab2AB3", []string{"1", "2AB3"}, ""},
		{"\\s", "a\u000bb", []string{"a", "b"}, ""},
		{"\\bx", "ax x", []string{"ax ", ""}, ""},
		{"x$", "axbx", []string{"axb", ""}, ""},
		{"^x", "xaxb", []string{"", "axb"}, ""},
		{"[\\Q]\\E]", "a]b", []string{"a", "b"}, ""},
		{"\\p{XDigit}", "gAh1", []string{"g", "h", ""}, ""},
		{"\\p{LD}", "-a-1-", []string{"-", "-", "-"}, ""},
		{"[\\p{L}&&[^a]]", "1a2b3", []string{"1a2", "3"}, ""},
		{"(?m)x$", "axbx", []string{"axb", ""}, ""},
		{";", "", []string{""}, ""},
		{"\\s+", " a b ", []string{"", "a", "b", ""}, ""},
	}
	for _, c := range cases {
		t.Run(c.delim, func(t *testing.T) {
			fd, err := compileDelimiter(c.delim)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			fields, err := splitText(fd, c.line, len(c.want))
			if err != nil {
				t.Fatalf("%q: %v", c.line, err)
			}
			for i, w := range c.want {
				got := fields[i]
				if isBlank([]byte(w)) {
					if !got.IsNull() {
						t.Errorf("%q: field %d = %q, want null (blank %q)", c.line, i, got.S, w)
					}
				} else if got.IsNull() || got.S != w {
					t.Errorf("%q: field %d = %v, want %q", c.line, i, got, w)
				}
			}
			// the pieces are exactly these: one more column is missing from the line
			if _, err := splitText(fd, c.line, len(c.want)+1); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d fields, the schema has %d columns", len(c.want), len(c.want)+1)) {
				t.Errorf("%q with one more column: %v", c.line, err)
			}
		})
	}
}

// A delimiter that matches only itself is split at without a regular expression.
func TestDelimiterLiteralPath(t *testing.T) {
	for delim, want := range map[string]string{
		"\u0001": "\u0001", ",": ",", `\|`: "|", `\\`: `\`, `\|\|`: "||", `\Q||`: "||", `::`: "::",
		"é": "é", `\.`: ".", `\t`: "\t", `\u0001`: "\u0001", `(?:ab)`: "ab",
	} {
		fd, err := compileDelimiter(delim)
		if err != nil {
			t.Errorf("%q: %v", delim, err)
			continue
		}
		if fd.re != nil || string(fd.literal) != want {
			t.Errorf("%q: literal %q, pattern %v; want the literal %q", delim, fd.literal, fd.re, want)
		}
	}
	for _, delim := range []string{`\s+`, `[,;]`, `(?i)x`, `a|b`, `.`} {
		if fd, err := compileDelimiter(delim); err != nil || fd.re == nil {
			t.Errorf("%q: %v, literal %q; want a pattern", delim, err, fd.literal)
		}
	}
}

// What RE2 cannot express is refused, naming the construct.
func TestDelimiterRefused(t *testing.T) {
	for delim, want := range map[string]string{
		`|`:                 "matches the empty string",
		`a*`:                "matches the empty string",
		`\b`:                "matches the empty string",
		`^`:                 "matches the empty string",
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
		`,{1001}`:           "not a regular expression Strait can read",
	} {
		_, err := compileDelimiter(delim)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", delim, err, want)
		}
	}
}
