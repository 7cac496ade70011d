package text

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/strait-dev/strait/internal/jregex"
)

// Delimiter is the text source's field delimiter: SeaTunnel splits a line with
// String.split(delimiter, -1), so the delimiter is a Java regular expression and every
// field is kept, trailing empty ones too. A delimiter that only matches itself is split
// at without a regular expression.
type Delimiter struct {
	literal []byte         // the delimiter's text when it matches only itself
	re      *regexp.Regexp // else the pattern
}

// CompileDelimiter reads a delimiter as String.split does.
func CompileDelimiter(s string) (Delimiter, error) {
	if !utf8.ValidString(s) {
		return Delimiter{}, fmt.Errorf("the pattern is not valid UTF-8")
	}
	if lit, ok := javaSplitFastPath(s); ok {
		return Delimiter{literal: []byte(lit)}, nil
	}
	p, err := jregex.Translate(s)
	if err != nil {
		return Delimiter{}, err
	}
	parsed, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return Delimiter{}, fmt.Errorf("not a regular expression Strait can read: %v", err)
	}
	if jregex.Nullable(parsed) {
		return Delimiter{}, fmt.Errorf(`the pattern matches the empty string, so String.split would cut the line between every character (escape the metacharacters: "\\|" for |)`)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return Delimiter{}, fmt.Errorf("not a regular expression Strait can read: %v", err)
	}
	if prefix, complete := re.LiteralPrefix(); complete && prefix != "" {
		return Delimiter{literal: []byte(prefix)}, nil
	}
	return Delimiter{re: re}, nil
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

// Literal is the delimiter's text when it matches only itself, else nil.
func (d Delimiter) Literal() []byte { return d.literal }

// SplitJava splits s at the delimiter as Java's String.split does without a limit: at
// every match, trailing empty pieces dropped (a nested row's fields in an xml value).
func (d Delimiter) SplitJava(s []byte) [][]byte {
	if d.re == nil {
		return SplitJava(s, string(d.literal))
	}
	var parts [][]byte
	pos := 0
	for _, m := range d.re.FindAllIndex(s, -1) {
		parts = append(parts, s[pos:m[0]])
		pos = m[1]
	}
	parts = append(parts, s[pos:])
	for len(parts) > 0 && len(parts[len(parts)-1]) == 0 {
		parts = parts[:len(parts)-1]
	}
	return parts
}
