package text

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// splitText decodes line with a text source whose schema has n string columns and the
// given field_delimiter.
func splitText(delim Delimiter, line string, n int) ([]row.Value, error) {
	d := &Lines{Delim: delim}
	for i := 0; i < n; i++ {
		d.Columns = append(d.Columns, format.Column{Name: fmt.Sprint("c", i), Type: types.Of(types.String), Out: i})
	}
	fields := make([]row.Value, n)
	err := d.Decode([]byte(line), fields)
	return fields, err
}

// TestJavaSplit splits lines as Java's String.split(delimiter, -1) does, through the text
// decoder (the rewrite of Java patterns itself is internal/jregex's, tested there). The
// expected pieces were produced by Java 17 from the same delimiters and lines.
func TestJavaSplit(t *testing.T) {
	cases := []struct {
		delim, line string
		want        []string
	}{
		{"\\|", "a|b||c|", []string{"a", "b", "", "c", ""}},
		{",", "a,b,,c,,", []string{"a", "b", "", "c", "", ""}},
		{"\\s+", "a  b\u0009c\u000bd", []string{"a", "b", "c", "d"}},
		{"[a-z&&[^aeiou]]", "1b2e3", []string{"1", "2e3"}},
		{"\\p{Lower}+", "AbcDeF", []string{"A", "D", "F"}},
		{".", "a\u000db", []string{"", "\u000d", ""}},
		{"\\s+", " a b ", []string{"", "a", "b", ""}},
		{";", "", []string{""}},
	}
	for _, c := range cases {
		t.Run(c.delim, func(t *testing.T) {
			fd, err := CompileDelimiter(c.delim)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			fields, err := splitText(fd, c.line, len(c.want))
			if err != nil {
				t.Fatalf("%q: %v", c.line, err)
			}
			for i, w := range c.want {
				got := fields[i]
				if IsBlank([]byte(w)) {
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
		fd, err := CompileDelimiter(delim)
		if err != nil {
			t.Errorf("%q: %v", delim, err)
			continue
		}
		if fd.re != nil || string(fd.literal) != want {
			t.Errorf("%q: literal %q, pattern %v; want the literal %q", delim, fd.literal, fd.re, want)
		}
	}
	for _, delim := range []string{`\s+`, `[,;]`, `(?i)x`, `a|b`, `.`} {
		if fd, err := CompileDelimiter(delim); err != nil || fd.re == nil {
			t.Errorf("%q: %v, literal %q; want a pattern", delim, err, fd.literal)
		}
	}
}

// A delimiter that can match the empty string is refused, and so is what Java's syntax or
// RE2 refuses, naming the construct.
func TestDelimiterRefused(t *testing.T) {
	for delim, want := range map[string]string{
		`|`:        "matches the empty string",
		`a*`:       "matches the empty string",
		`\b`:       "matches the empty string",
		`^`:        "matches the empty string",
		`(?<=a),`:  "lookbehind (?<= is not supported",
		`[,`:       "unclosed character class",
		"\xff":     "not valid UTF-8",
		`,{1001}`:  "not a regular expression Strait can read",
		`\p{Nope}`: `\p{Nope}: unknown character property`,
	} {
		_, err := CompileDelimiter(delim)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", delim, err, want)
		}
	}
}

// FuzzJavaDelimiter compiles arbitrary text delimiters as Java regular expressions and
// splits a line with those that compile: a delimiter compiles or is refused, never panics,
// and a compiled one never matches the empty string.
func FuzzJavaDelimiter(f *testing.F) {
	for _, s := range []string{
		`\|`, `\s*[;,]\s*`, `[a-z&&[^aeiou]]`, `\p{IsLatin}`, `(?x) \| # c`, `(?i:a)b`, `\Q|\E`,
		`[[a][^b]]`, `\uD83D\uDE00`, `\0101`, `(?<n>;)`, `;{1,}?`, `\R`, `[]a]`, `(?s).`,
	} {
		f.Add(s, "a|b;c, d\u00e9\r\n")
	}
	f.Fuzz(func(t *testing.T, delim, line string) {
		fd, err := CompileDelimiter(delim)
		if err != nil {
			return
		}
		if fd.re != nil && fd.re.MatchString("") {
			t.Fatalf("%q compiled to %s, which matches the empty string", delim, fd.re)
		}
		if _, err := splitText(fd, line, 4); err != nil && !strings.Contains(err.Error(), "fields, the schema has 4 columns") {
			t.Fatalf("%q on %q: %v", delim, line, err)
		}
	})
}
