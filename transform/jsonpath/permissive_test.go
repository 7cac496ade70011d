package jsonpath

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestPermissive(t *testing.T) {
	cases := []struct{ in, want, err string }{
		// SeaTunnel's own test feeds this (HOCON strips the inner quotes)
		{`{data:{c_string: this is a string,c_boolean: true,c_integer: 42,c_float: 3.14,c_decimal: 10.55,c_date:'2023-10-29',c_datetime:"16:12:43.459"}}`,
			`{"data":{"c_string":"this is a string","c_boolean":true,"c_integer":42,"c_float":3.14,"c_decimal":10.55,"c_date":"2023-10-29","c_datetime":"16:12:43.459"}}`, ""},
		{`{'a': 'it''s'}`, "", "expected ',' or '}'"},
		{`{'a': 'say "hi"'}`, `{"a":"say \"hi\""}`, ""},
		{`{a b : c d }`, `{"a b":"c d"}`, ""},
		{`[1, 2,, 3,]`, `[1,2,3]`, ""},
		{`{,a:1,,b:2,}`, `{"a":1,"b":2}`, ""},
		{`[007, -0012.50, 1., -.5, 1e3, 2E+2, -]`, `[7,-12.50,1.0,-0.5,1e3,2E+2,-0]`, ""},
		{`[12abc, 1.2.3, 1e, 3 4, -x]`, `["12abc","1.2.3","1e","3 4","-x"]`, ""},
		{`{a: [x, y z], b: {c: null}, d: NaN, e: falsey}`, `{"a":["x","y z"],"b":{"c":null},"d":"NaN","e":"falsey"}`, ""},
		{`{"a": 1} trailing text`, `{"a":1}`, ""},
		{`hello world`, `"hello world"`, ""},
		{`'\x41\u00e9\q\n'`, `"Aé\n"`, ""},
		{"{a:\"tab\there\"}", `{"a":"tab\there"}`, ""},
		{`{a: b: c}`, `{"a":"b: c"}`, ""},
		{`{a:1 b:2}`, `{"a":"1 b:2"}`, ""}, // a number followed by more text is a string
		{`{a}`, "", "expected ':'"},
		{`{a:}`, "", "expected a value"},
		{`[1, }`, "", "expected a value"},
		{`{a: 'open`, "", "expected a closed string"},
		{`[1, 2`, "", "expected a value or ']'"},
		{`   `, "", "no value"},
		{`{a: [}`, "", "expected a value"},
	}
	for _, c := range cases {
		got, err := Permissive(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Permissive(%q) = %q, %v; want error containing %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Permissive(%q) = %q, %v; want %q", c.in, got, err, c.want)
			continue
		}
		if err := Check(got); err != nil {
			t.Errorf("Permissive(%q) = %q, not JSON: %v", c.in, got, err)
		}
	}
}

func decode(t *testing.T, s string) any {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return v
}

// FuzzPermissive: whatever the text, Permissive returns JSON or an error, and JSON that is
// already valid comes back with the same meaning.
func FuzzPermissive(f *testing.F) {
	for _, s := range []string{`{a: b}`, `[1,,2]`, `'x'`, `{"a": [1, 2.5e3, "s", null]}`, `-0.5`, `{a:'\u0041'}`, "[\x00]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := Permissive(s)
		if err != nil {
			return
		}
		if err := Check(out); err != nil {
			t.Fatalf("Permissive(%q) = %q: not JSON: %v", s, out, err)
		}
		if Check(s) == nil {
			a, b := decode(t, s), decode(t, out)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("valid JSON %q changed meaning: %q", s, out)
			}
		}
	})
}
