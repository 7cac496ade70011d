package types

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct{ in, want string }{
		{"int", "int"},
		{"INT", "int"},
		{"integer", "int"},
		{"long", "bigint"},
		{"byte", "tinyint"},
		{"short", "smallint"},
		{"string", "string"},
		{"null", "null"},
		{"decimal(30, 8)", "decimal(30, 8)"},
		{"Decimal(38,18)", "decimal(38, 18)"},
		{"array<int>", "array<int>"},
		{"array< string >", "array<string>"},
		{"map<date, string>", "map<date, string>"},
		{"map<string, {c_int = int, c_string = string}>", "map<string, {c_int = int, c_string = string}>"},
		{"map<decimal(10, 2), array<bigint>>", "map<decimal(10, 2), array<bigint>>"},
		{`{"a": "int", "b": "map<string, string>"}`, "{a = int, b = map<string, string>}"},
		{"{a = int\n b = {c = boolean}}", "{a = int, b = {c = boolean}}"},
		{"varchar(255)", "string"},
		{`{"a b": int, "c.d": string}`, `{"a b" = int, "c.d" = string}`},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got.String() != c.want {
			t.Errorf("Parse(%q) = %s, want %s", c.in, got, c.want)
		}
		again, err := Parse(got.String())
		if err != nil || !again.Equal(got) {
			t.Errorf("round trip of %s: %v %v", got, again, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"strng", `unknown type "strng"`},
		{"decimal", "decimal needs a precision"},
		{"decimal(10)", `expected ','`},
		{"decimal(50, 2)", "out of range"},
		{"array<int", `expected '>'`},
		{"map<int>", `expected ','`},
		{"{a = int", "unclosed"},
		{"{a int}", "expected '=' or ':'"},
		{"{a = int, a = string}", "duplicate field"},
		{`{"" = int}`, "empty field name"},
		{"int int", "after the type"},
		{"", "expected a type"},
		{strings.Repeat("array<", 100) + "int" + strings.Repeat(">", 100), "nested too deeply"},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) error = %v, want it to contain %q", c.in, err, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"int", "decimal(30, 8)", "map<string, {c_int = int}>", `{"a":"int"}`, "array<array<int>>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(got.String())
		if err != nil || !again.Equal(got) {
			t.Fatalf("round trip of %q -> %s failed: %v", s, got, err)
		}
	})
}
