package jregex

import (
	"reflect"
	"strings"
	"testing"
)

// The expected values are what Java 8+ gives for the same calls.

// TestReplace replaces every match (replaceAll), or with first only the first one
// (replaceFirst).
func TestReplace(t *testing.T) {
	for _, c := range []struct {
		first                   bool
		pattern, repl, in, want string
	}{
		{false, "o*", "X", "foo", "XfXX"},
		{false, "x*", "-", "abc", "-a-b-c-"},
		{false, "a*", "x", "baaac", "xbxxcx"},
		{false, " ", "_", "Joy Ding", "Joy_Ding"},
		{false, ".+", "b", "hello", "b"},
		{false, "(\\w+)@(\\w+)", "$2 at $1", "me@home you@work", "home at me work at you"},
		{false, "(a)", "$1b", "aa", "abab"},
		{false, "(a)", "$10", "a", "a0"},
		{false, "(a)", "\\$1", "a", "$1"},
		{false, "(?<first>\\w)(\\w*)", "${first}.", "ab cd", "a. c."},
		{false, "\\d", "#", "a1b22", "a#b##"},
		{false, "^", "> ", "line", "> line"},
		{false, "\\b", "|", "ab cd", "|ab| |cd|"},
		{false, "", "-", "ab", "-a-b-"},
		{false, "é", "e", "café", "cafe"},
		{false, "a|", "X", "bab", "XbXXbX"},
		{true, ".+", "b", "hello", "b"},
		{true, "o", "0", "foo", "f0o"},
		{true, "(o+)", "[$1]", "foo boo", "f[oo] boo"},
		{true, "x*", "-", "abc", "-abc"},
		{true, "z", "-", "abc", "abc"},
	} {
		re, err := Compile(c.pattern)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		rep, err := re.ParseReplacement(c.repl)
		if err != nil {
			t.Fatalf("%q / %q: %v", c.pattern, c.repl, err)
		}
		got, call := re.ReplaceAll(c.in, rep), "replaceAll"
		if c.first {
			got, call = re.ReplaceFirst(c.in, rep), "replaceFirst"
		}
		if got != c.want {
			t.Errorf("%q.%s(%q, %q) = %q, want %q", c.in, call, c.pattern, c.repl, got, c.want)
		}
	}
}

func TestReplacementErrors(t *testing.T) {
	re := MustCompile("(a)(?<n>b)")
	for _, c := range []struct{ repl, msg string }{
		{"$", "group index is missing"},
		{"x\\", "character to be escaped is missing"},
		{"$x", "illegal group reference"},
		{"$3", "no group 3"},
		{"${}", "0 length name"},
		{"${n", "missing trailing '}'"},
		{"${1a}", "starts with digit"},
		{"${zz}", "no group with name {zz}"},
	} {
		_, err := re.ParseReplacement(c.repl)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: error %v, want one mentioning %q", c.repl, err, c.msg)
		}
	}
	if _, err := re.ParseReplacement("${n}$2$1\\\\"); err != nil {
		t.Errorf("valid replacement rejected: %v", err)
	}
}

func TestCompileErrors(t *testing.T) {
	for p, want := range map[string]string{
		"a(?=b)":  "error parsing regexp: lookahead (?= is not supported in `a(?=b)`",
		`(a)\1`:   `backreferences (\1) are not supported`,
		"a*+":     "possessive quantifiers (*+) are not supported",
		"(?>a)":   "atomic groups (?> are not supported",
		"[a":      "error parsing regexp: unclosed character class in `[a`",
		"(":       "unclosed group",
		"a{1001}": "error parsing regexp `a{1001}`: invalid repeat count",
	} {
		if _, err := Compile(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", p, err, want)
		}
	}
}

// String is the pattern as written, not its rewrite.
func TestString(t *testing.T) {
	if got := MustCompile(`\p{Lower}+`).String(); got != `\p{Lower}+` {
		t.Errorf("String() = %q", got)
	}
}

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		sep, in string
		limit   int
		want    []string
	}{
		{" ", "Joy Ding", 2, []string{"Joy", "Ding"}},
		{" ", "Joy Ding Dong", 2, []string{"Joy", "Ding Dong"}},
		{" ", "Joy", 2, []string{"Joy"}},
		{",", "a,b,,c,,", 10, []string{"a", "b", "", "c", "", ""}},
		{",", ",a", 5, []string{"", "a"}},
		{"1", "1234", 2, []string{"", "234"}},
		{"1", "2311", 3, []string{"23", "", ""}},
		{"", "abc", 2, []string{"a", "bc"}},
		{"", "abc", 5, []string{"a", "b", "c", ""}},
		{"x*", "axb", 5, []string{"a", "", "b", ""}},
		{"\\s+", "  a b", 3, []string{"", "a", "b"}},
		{"[,;]", "a;b,c", 3, []string{"a", "b", "c"}},
		{"a", "", 2, []string{""}},
		{"\\|", "a|b", 1, []string{"a|b"}},
	} {
		re := MustCompile(c.sep)
		got := re.Split(c.in, c.limit, nil)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q.split(%q, %d) = %q, want %q", c.in, c.sep, c.limit, got, c.want)
		}
	}
}

// FuzzRegexp: compiled patterns and parsed replacements never panic on any input.
func FuzzRegexp(f *testing.F) {
	f.Add("o*", "X$0", "foo")
	f.Add("(a)|b", "${1}\\$", "abba")
	f.Add("\\b", "|", "ab cd")
	f.Add("", "-", "héllo")
	f.Fuzz(func(t *testing.T, pattern, repl, in string) {
		re, err := Compile(pattern)
		if err != nil {
			return
		}
		for n := 1; n < 4; n++ {
			parts := re.Split(in, n, nil)
			if len(parts) == 0 || len(parts) > n {
				t.Fatalf("split %q by %q into %d: %q", in, pattern, n, parts)
			}
		}
		rep, err := re.ParseReplacement(repl)
		if err != nil {
			return
		}
		_ = re.ReplaceAll(in, rep)
		_ = re.ReplaceFirst(in, rep)
	})
}
