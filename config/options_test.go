package config

import (
	"strings"
	"testing"

	"github.com/strait-dev/strait/config/hocon"
)

func opts(t *testing.T, text string) *Options {
	t.Helper()
	v, err := hocon.Parse([]byte(text), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatal(err)
	}
	return New(v, "source[0] FakeSource")
}

func TestLookupRules(t *testing.T) {
	o := opts(t, `
"row.num" = "50"
split { num = 3 }
mode = batch
flag = "TRUE"
list = "a, b,c"
list2 = [x, 1, true]
nested { inner { deep = 2.5 } }
`)
	if n, err := o.Int("row.num", 0); err != nil || n != 50 {
		t.Errorf("literal key with a numeric string: %d %v", n, err)
	}
	if n, err := o.Int("split.num", 0); err != nil || n != 3 {
		t.Errorf("dotted path: %d %v", n, err)
	}
	if f, err := o.String("nested.inner.deep", ""); err != nil || f != "2.5" {
		t.Errorf("deep path: %v %v", f, err)
	}
	if m, err := o.Enum("mode", "", "BATCH", "STREAMING"); err != nil || m != "BATCH" {
		t.Errorf("enum in any case: %q %v", m, err)
	}
	if b, err := o.Bool("flag", false); err != nil || !b {
		t.Errorf("boolean string: %v %v", b, err)
	}
	if l, err := o.StringList("list"); err != nil || strings.Join(l, "|") != "a|b|c" {
		t.Errorf("comma-separated list: %q %v", l, err)
	}
	if l, err := o.StringList("list2"); err != nil || strings.Join(l, "|") != "x|1|true" {
		t.Errorf("list of scalars: %q %v", l, err)
	}
	if n, err := o.Int("absent", 7); err != nil || n != 7 {
		t.Errorf("default: %d %v", n, err)
	}
	sub, err := o.Object("nested")
	if err != nil || sub == nil {
		t.Fatal(err)
	}
	if _, err := sub.Int("inner", 0); err == nil || !strings.Contains(err.Error(), "source[0] FakeSource: nested.inner: expected an integer") {
		t.Errorf("nested error names the path: %v", err)
	}
}

func TestErrorsNameOptionAndPlace(t *testing.T) {
	o := opts(t, "rules {\n  field_rules = [ {a = 1}, {field_type = strng} ]\n}\nn = abc\n")
	if _, err := o.Int("n", 0); err == nil || err.Error() != `source[0] FakeSource: n: "abc" is not an integer (at job.conf:4:5)` {
		t.Errorf("%v", err)
	}
	rules, _ := o.Object("rules")
	list, err := rules.ObjectList("field_rules")
	if err != nil || len(list) != 2 {
		t.Fatal(err)
	}
	err = list[1].Errorf("field_type", "unknown type %q", "strng")
	if err.Error() != `source[0] FakeSource: rules.field_rules[1].field_type: unknown type "strng" (at job.conf:2:42)` {
		t.Errorf("%v", err)
	}
	if _, err := o.RequiredString("path"); err == nil || !strings.Contains(err.Error(), "path: option is required") {
		t.Errorf("%v", err)
	}
}

func TestUnusedOptions(t *testing.T) {
	o := opts(t, "a = 1\nb { c = 2, d = 3 }\ne = 4\n")
	_, _ = o.Int("a", 0)
	_, _ = o.Int("b.c", 0)
	o.MarkUsed("e")
	u := o.Unused()
	if len(u) != 1 || !strings.HasPrefix(u[0], "b.d (at job.conf:2:") {
		t.Errorf("%q", u)
	}
}

// A list of objects that a spec decoded is read option by option: Unused names what its
// entries hold besides, and not the list.
func TestUnusedLooksIntoSpecLists(t *testing.T) {
	type entry struct {
		Name string `opt:"name"`
	}
	type list struct {
		Entries []entry `opt:"entries"`
	}
	o := opts(t, "entries = [{ name = a }, { name = b, nmae = c }]\nother = 1\n")
	if _, err := Decode[list](o); err != nil {
		t.Fatal(err)
	}
	u := o.Unused()
	if len(u) != 2 || !strings.HasPrefix(u[0], "entries[1].nmae (at job.conf:1:") || !strings.HasPrefix(u[1], "other (at job.conf:2:") {
		t.Errorf("%q", u)
	}
}
