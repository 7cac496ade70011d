package hocon

import (
	"strings"
	"testing"
)

func TestParseJSON(t *testing.T) {
	v, err := ParseJSON([]byte(`{"b": 1.50, "a": [true, null, "x"], "c": {"d": 12345678901234567890}}`))
	if err != nil {
		t.Fatal(err)
	}
	if v.Fields[0].Key != "b" || v.Get("b").Str != "1.50" || v.Get("a").Elems[1].Kind != Null ||
		v.Get("c").Get("d").Str != "12345678901234567890" {
		t.Errorf("tree %+v", v)
	}
	if v, err := ParseJSON([]byte("  ")); v != nil || err != nil {
		t.Errorf("empty: %v %v", v, err)
	}
	for src, want := range map[string]string{
		`{"a": 1} {"b": 2}`:      "more than one value",
		`{"a": `:                 "unexpected EOF",
		strings.Repeat("[", 300): "nested too deeply",
		`{a: 1}`:                 "bad JSON",
	} {
		if _, err := ParseJSON([]byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.20q: %v, want %q", src, err, want)
		}
	}
}
