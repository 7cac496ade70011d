package hocon

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var sections = []string{"source", "transform", "sink"}

// noEnv is an empty environment, so tests do not depend on the machine.
func noEnv(string) (string, bool) { return "", false }

func toJSON(t *testing.T, v *Value) string {
	t.Helper()
	b, err := v.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON: %v", err)
	}
	return string(b)
}

func TestParse(t *testing.T) {
	vars := map[string]string{
		"strTemplate": "[abc,def]",
		"rowNum":      "10",
		"word":        "hello",
		"flag":        "true",
		"obj":         "{k = v, n = [1]}",
		"broken":      "[abc",
		"resName":     "a20260101",
		"nameVal":     "abc",
		"empty":       "",
		"pi":          "3.14",
	}
	env := func(k string) (string, bool) {
		switch k {
		case "HOME":
			return "/home/strait", true
		case "rowNum":
			return "from-env", true
		case "ONLY_ENV":
			return "42", true
		}
		return "", false
	}
	tests := []struct {
		name string
		src  string
		want string
	}{
		// Root and basic structure.
		{"root without braces", "a = 1", `{"a":1}`},
		{"root with braces", "\n{ a = 1 }\n", `{"a":1}`},
		{"empty", "", `{}`},
		{"empty braces", "{}", `{}`},
		{"only comments", "# a\n// b\n", `{}`},
		{"json document", `{"a": [1, 2.5, -3e2, true, false, null, "x"], "b": {"c": "d", "e": {}}, "f": []}`,
			`{"a":[1,2.5,-3e2,true,false,null,"x"],"b":{"c":"d","e":{}},"f":[]}`},
		{"separators", "a = 1\nb : 2\nc { d = 3 }\ne:{f:4}", `{"a":1,"b":2,"c":{"d":3},"e":{"f":4}}`},
		{"newline after separator", "a =\n  1\nb :\n\n  x", `{"a":1,"b":"x"}`},
		{"append", "a = [1]\na += 2\nb += x\nb += [y]", `{"a":[1,2],"b":["x",["y"]]}`},
		{"append to substitution", "base = [1]\na = ${base}\na += 2", `{"base":[1],"a":[1,2]}`},
		{"crlf and bom", "\ufeffa = 1\r\nb = x\r\n", `{"a":1,"b":"x"}`},

		// Comments.
		{"comments", "a = 1 # c\nb = 2 // c\n# full line\nc = \"x # y // z\" # t\n// d = 4",
			`{"a":1,"b":2,"c":"x # y // z"}`},
		{"unquoted double slash is a comment", "a = foo//bar", `{"a":"foo"}`},
		{"quoted urls", `url = "jdbc:postgresql://host:5432/db?x=1", f = "file:///tmp/x"`,
			`{"url":"jdbc:postgresql://host:5432/db?x=1","f":"file:///tmp/x"}`},
		{"single slash unquoted", "a = /tmp/dir/file.csv", `{"a":"/tmp/dir/file.csv"}`},

		// Strings.
		{"unquoted words keep inner whitespace", "a = hello world\nb = hello \t world   # x", `{"a":"hello world","b":"hello \t world"}`},
		{"triple quoted", "a = \"\"\"line \"1\"\n  \\n raw\"\"\"", `{"a":"line \"1\"\n  \\n raw"}`},
		{"triple quoted trailing quotes", `a = """x""""`, `{"a":"x\""}`},
		{"triple quoted sql", `sql { query = """select * from t where a = "x" """ }`,
			`{"sql":{"query":"select * from t where a = \"x\" "}}`},
		{"quoted braces", `c_map = "map<string, {c_int = int, c_string = string}>"`,
			`{"c_map":"map<string, {c_int = int, c_string = string}>"}`},
		{"unicode unquoted", "name = 数据 集", `{"name":"数据 集"}`},

		// Numbers, booleans, null.
		{"numbers", "a = 3.10, b = -5, c = 1e3, d = 0.5, e = 1E+3, f = 0, g = -0.25e-2",
			`{"a":3.10,"b":-5,"c":1e3,"d":0.5,"e":1E+3,"f":0,"g":-0.25e-2}`},
		{"number-like strings", "a = 007, b = 1.5.2, c = 1., d = 2024-01-26, e = 10s, f = -x, g = 1e",
			`{"a":"007","b":"1.5.2","c":"1.","d":"2024-01-26","e":"10s","f":"-x","g":"1e"}`},
		{"booleans and null", `a = true, b = false, c = yes, d = on, e = null, f = "true", g = True, h = truex`,
			`{"a":true,"b":false,"c":"yes","d":"on","e":null,"f":"true","g":"True","h":"truex"}`},

		// Keys.
		{"quoted key with dot", `"row.num" = 1`, `{"row.num":1}`},
		{"dotted key is a path", "row.num = 5\nrow { x = 1 }", `{"row":{"num":5,"x":1}}`},
		{"mixed key", `a."b.c".d = 1`, `{"a":{"b.c":{"d":1}}}`},
		{"keys with dashes and digits", "split.read-interval = 10\ntables_configs = []\n2024-01-26 = v0\n10.5 = x",
			`{"split":{"read-interval":10},"tables_configs":[],"2024-01-26":"v0","10":{"5":"x"}}`},
		{"quoted date key", `{ "2024-01-26" = v0 }`, `{"2024-01-26":"v0"}`},
		{"key with spaces", "a b = 1", `{"a b":1}`},
		{"empty quoted key", `"" = 1`, `{"":1}`},
		{"keyword keys", "true = 1\nnull = 2\ninclude = 3", `{"true":1,"null":2,"include":3}`},

		// Separators between fields and elements.
		{"trailing commas", "a = [0, 1, 2],\nb = {x = 1,},", `{"a":[0,1,2],"b":{"x":1}}`},
		{"newline separated elements", "a = [\n  1\n  2\n\n]\nb = [ {x = 1}\n {x = 2} ]", `{"a":[1,2],"b":[{"x":1},{"x":2}]}`},

		// Duplicate keys.
		{"objects merge", "a { x = 1, y { p = 1 } }\na { y { q = 2 }, z = 3 }", `{"a":{"x":1,"y":{"p":1,"q":2},"z":3}}`},
		{"later scalar wins in place", "a = 1\nb = 2\na = 3", `{"a":3,"b":2}`},
		{"scalar replaces object", "c = {x = 1}\nc = 5", `{"c":5}`},
		{"object replaces scalar", "c = 5\nc { x = 1 }", `{"c":{"x":1}}`},
		{"array replaced", "a = [1]\na = [2]", `{"a":[2]}`},

		// Substitutions.
		{"substitutions", "a = 1\nb = ${a}\nc { d = ${a} }\ne = ${c.d}\nf = ${later}\nlater = x\ng = ${c}",
			`{"a":1,"b":1,"c":{"d":1},"e":1,"f":"x","later":"x","g":{"d":1}}`},
		{"substitution with spaces and quotes", `"a.b" { c = 1 }` + "\nx = ${ \"a.b\".c }", `{"a.b":{"c":1},"x":1}`},
		{"optional missing", "a = ${?MISSING}\nb = 1", `{"b":1}`},
		{"optional missing keeps earlier", "a = 1\na = ${?MISSING}", `{"a":1}`},
		{"optional in array and concat", "a = [1, ${?M}, 2]\nb = x${?M}y", `{"a":[1,2],"b":"xy"}`},
		{"optional found", "a = ${?HOME}", `{"a":"/home/strait"}`},
		{"config before vars before env", "rowNum = 1\na = ${rowNum}\nb = ${HOME}\nc = ${ONLY_ENV}", `{"rowNum":1,"a":1,"b":"/home/strait","c":"42"}`},
		{"vars before env", "a = ${rowNum}", `{"a":10}`},
		{"var values", "a = ${strTemplate}\nb = ${rowNum}\nc = ${word}\nd = ${flag}\ne = ${obj}\nf = ${broken}\ng = ${pi}\nh = ${?empty}",
			`{"a":["abc","def"],"b":10,"c":"hello","d":true,"e":{"k":"v","n":[1]},"f":"[abc","g":3.14,"h":""}`},
		{"string template", "string.template = ${strTemplate}", `{"string":{"template":["abc","def"]}}`},
		{"concatenated query", `query = "select * from "${resName}" where name = '"${nameVal}"' "`,
			`{"query":"select * from a20260101 where name = 'abc' "}`},
		{"concatenation keeps whitespace", "x = hello\ny = world\na = ${x}  ${y} end\nb = foo\"bar\"${rowNum} 1 true",
			`{"x":"hello","y":"world","a":"hello  world end","b":"foobar10 1 true"}`},
		{"array concatenation", "a = [1] [2]\nb = ${a} [3]", `{"a":[1,2],"b":[1,2,3]}`},
		{"object concatenation", "d = { x = 1, n { p = 1 } }\na = ${d} { y = 2, n { q = 2 } }",
			`{"d":{"x":1,"n":{"p":1}},"a":{"x":1,"n":{"p":1,"q":2},"y":2}}`},
		{"object merged over substitution", "d = { x = 1 }\na = ${d}\na { y = 2 }\nb = ${d}\nb.z = 3",
			`{"d":{"x":1},"a":{"x":1,"y":2},"b":{"x":1,"z":3}}`},
		{"concatenation over an earlier object", "a { x = 1, y = 1 }\nd { y = 2 }\nb = 0\na = ${d} { z = 3 }",
			`{"a":{"x":1,"y":2,"z":3},"d":{"y":2},"b":0}`},
		{"merged duplicate with substitution", "s = str\na { x { y = 1 } }\na { x = ${s}, x { z = 1 } }", `{"s":"str","a":{"x":{"z":1}}}`},
		{"optional base", "a = ${?NOPE} { z = 3 }", `{"a":{"z":3}}`},
		{"sibling reference", "d = { z = 0 }\na = ${d} { x = 1, y = ${a.x}, w = ${a.z} }",
			`{"d":{"z":0},"a":{"z":0,"x":1,"y":1,"w":0}}`},
		{"substituted objects are copies", "d { s = \"${word}\" }\na = ${d}\nb = ${d}",
			`{"d":{"s":"hello"},"a":{"s":"hello"},"b":{"s":"hello"}}`},

		// Placeholders inside strings.
		{"placeholders", "a = \"${rowNum:50}\"\nb = \"${rowNum}\"\nc = \"${x:}\"\nd = [\"${nope: 7 }\"]\ne = \"${nope}\"\n\"${k:1}\" = \"pre-${word}-${empty:d}\"",
			`{"a":"10","b":"10","c":"","d":["7"],"e":"${nope}","${k:1}":"pre-hello-d"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Parse([]byte(tc.src), Options{File: "t.conf", Vars: vars, LookupEnv: env})
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.src, err)
			}
			if got := toJSON(t, v); got != tc.want {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tc.src, got, tc.want)
			}
		})
	}
}

const jobConf = `env { parallelism = 1
  job.mode = "BATCH" }
source {
  FakeSource { result_table_name = "fake1", row.num = 16, schema = { fields { id = bigint, "c.x" = "decimal(30, 8)" } }
     rows = [ { kind = INSERT, fields = [1, "A", 100] }
              { kind = DELETE
                fields = [2, "B", 1.5e3] } ] }
  FakeSource { result_table_name = "fake2" }
}
transform { }
sink { console { source_table_name = "fake1" }
  console { source_table_name = "fake2" } }
`

func TestJobConfig(t *testing.T) {
	v, err := Parse([]byte(jobConf), Options{File: "job.conf", ListSections: sections, LookupEnv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Lookup("env.parallelism"); got == nil || got.Kind != Number || got.Str != "1" {
		t.Errorf("env.parallelism = %+v", got)
	}
	if got := v.Lookup("env.job.mode"); got == nil || got.Str != "BATCH" {
		t.Errorf("env.job.mode = %+v", got)
	}
	src := v.Get("source")
	if src == nil || src.Kind != Object || len(src.Fields) != 2 {
		t.Fatalf("source = %s", toJSON(t, src))
	}
	for i, want := range []string{"fake1", "fake2"} {
		f := src.Fields[i]
		if f.Key != "FakeSource" || f.Value.Get("result_table_name").Str != want {
			t.Errorf("source entry %d = %s %s", i, f.Key, toJSON(t, f.Value))
		}
	}
	first := src.Fields[0].Value
	if n := first.Lookup("row.num"); n == nil || n.Kind != Number || n.Str != "16" {
		t.Errorf("row.num = %+v", n)
	}
	if n := first.Lookup("row.num"); n != nil && (n.Pos != Pos{File: "job.conf", Line: 4, Col: 55}) {
		t.Errorf("row.num position = %v", n.Pos)
	}
	fields := first.Lookup("schema.fields")
	if fields == nil || len(fields.Fields) != 2 || fields.Fields[0].Key != "id" || fields.Fields[1].Key != "c.x" ||
		fields.Fields[1].Value.Str != "decimal(30, 8)" {
		t.Errorf("schema.fields = %s", toJSON(t, fields))
	}
	rows := first.Get("rows")
	if got := toJSON(t, rows); got != `[{"kind":"INSERT","fields":[1,"A",100]},{"kind":"DELETE","fields":[2,"B",1.5e3]}]` {
		t.Errorf("rows = %s", got)
	}
	if tr := v.Get("transform"); tr == nil || tr.Kind != Object || len(tr.Fields) != 0 {
		t.Errorf("transform = %+v", tr)
	}
	if got := toJSON(t, v.Get("sink")); got != `{"console":{"source_table_name":"fake1"},"console":{"source_table_name":"fake2"}}` {
		t.Errorf("sink = %s", got)
	}
	// Without list sections duplicates merge.
	v, err = Parse([]byte(jobConf), Options{LookupEnv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	if got := toJSON(t, v.Get("sink")); got != `{"console":{"source_table_name":"fake2"}}` {
		t.Errorf("merged sink = %s", got)
	}
}

func TestListSections(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"json array form stays an array", `{"source": [{"plugin_name": "FakeSource"}], "sink": [{"plugin_name": "Console"}]}`,
			`{"source":[{"plugin_name":"FakeSource"}],"sink":[{"plugin_name":"Console"}]}`},
		{"section twice appends", "sink {A{}}\nsink {B{}}\nsink {A{x=1}}", `{"sink":{"A":{},"B":{},"A":{"x":1}}}`},
		{"same name never merges", "sink { A {x=1}\n A {y=2} }", `{"sink":{"A":{"x":1},"A":{"y":2}}}`},
		{"equals form and dotted entries", "source { Jdbc = { url = \"u\" }, Fake.rows = 1, Fake.x = 2 }",
			`{"source":{"Jdbc":{"url":"u"},"Fake":{"rows":1},"Fake":{"x":2}}}`},
		{"dotted key at top level", "source.Fake { a = 1 }\nsource.Fake { b = 2 }", `{"source":{"Fake":{"a":1},"Fake":{"b":2}}}`},
		{"entries merge inside", "source { Fake { a { x = 1 }, a { y = 2 } } }", `{"source":{"Fake":{"a":{"x":1,"y":2}}}}`},
		{"nested key with section name is normal", "a { source { X = 1, X = 2 } }", `{"a":{"source":{"X":2}}}`},
		{"substitution into a section entry", "tbl = t1\nsink { C { table = ${tbl} }\n C { table = ${tbl}2 } }\nlast = ${sink.C.table}",
			`{"tbl":"t1","sink":{"C":{"table":"t1"},"C":{"table":"t12"}},"last":"t12"}`},
		{"optional entry dropped", "sink { A = ${?NOPE}, B {} }", `{"sink":{"B":{}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Parse([]byte(tc.src), Options{ListSections: sections, LookupEnv: noEnv})
			if err != nil {
				t.Fatal(err)
			}
			if got := toJSON(t, v); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestEscapes(t *testing.T) {
	v, err := Parse([]byte(`a = "\n\t\"\\\/\b\f\r\u00e9\ud83d\ude00\ud800x"`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.Get("a").Str, "\n\t\"\\/\b\f\ré😀\uFFFDx"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLookupEnvDefault(t *testing.T) {
	t.Setenv("STRAIT_HOCON_TEST", "from-os")
	v, err := Parse([]byte("a = ${STRAIT_HOCON_TEST}"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Get("a").Str; got != "from-os" {
		t.Errorf("a = %q", got)
	}
}

func TestValueHelpers(t *testing.T) {
	v, err := Parse([]byte(`"a.b" = 1, a { b = 2, c { d = [1, x, true, null] } }, n = 1.50`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Lookup("a.b"); got.Str != "1" {
		t.Errorf("Lookup literal key first: %+v", got)
	}
	if got := v.Lookup("a.c.d"); got == nil || got.Kind != Array {
		t.Errorf("Lookup path: %+v", got)
	}
	for _, p := range []string{"a.x", "x", "a.b.c", "n.x", ""} {
		if got := v.Lookup(p); got != nil {
			t.Errorf("Lookup(%q) = %+v, want nil", p, got)
		}
	}
	var nilValue *Value
	if nilValue.Get("a") != nil || nilValue.Lookup("a.b") != nil || nilValue.Interface() != nil {
		t.Error("nil receiver")
	}
	m, ok := v.Interface().(OrderedMap)
	if !ok || len(m) != 3 || m[0].Key != "a.b" || m[1].Key != "a" {
		t.Fatalf("Interface = %#v", v.Interface())
	}
	if n, _ := m.Get("n"); n != json.Number("1.50") {
		t.Errorf("n = %#v", n)
	}
	a, _ := m.Get("a")
	c, _ := a.(OrderedMap).Get("c")
	d, _ := c.(OrderedMap).Get("d")
	if want := []any{json.Number("1"), "x", true, nil}; !equalAny(d.([]any), want) {
		t.Errorf("d = %#v", d)
	}
	if _, ok := m.Get("zz"); ok {
		t.Error("Get missing key")
	}
	for k, want := range map[Kind]string{Null: "null", Bool: "bool", Number: "number", String: "string", Object: "object", Array: "array", 9: "kind(9)"} {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %q", k, k.String())
		}
	}
	if s := (Pos{Line: 2, Col: 3}).String(); s != "2:3" {
		t.Errorf("Pos without file = %q", s)
	}
}

func equalAny(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLeaves(t *testing.T) {
	v, err := Parse([]byte(`a = 1, b { c = x, d { e = [1], f = null } }, g = true`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := v.Leaves(func(k string, leaf *Value) error {
		got = append(got, k+":"+strconv.Itoa(int(leaf.Kind)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"a:" + strconv.Itoa(int(Number)), "b.c:" + strconv.Itoa(int(String)), "b.d.e:" + strconv.Itoa(int(Array)),
		"b.d.f:" + strconv.Itoa(int(Null)), "g:" + strconv.Itoa(int(Bool))}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("leaves %v, want %v", got, want)
	}
	stop := errors.New("stop")
	n := 0
	if err := v.Leaves(func(string, *Value) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("an error of fn: %v after %d calls, want stop after 1", err, n)
	}
}

func TestMarshalJSON(t *testing.T) {
	v := &Value{Kind: Object, Fields: []Field{
		{"s", &Value{Kind: String, Str: "<&>\u2028\x01\x7f\xff\"\\\n\r\t"}},
		{"bad", &Value{Kind: Number, Str: "0x10"}},
		{"nil", nil},
		{"arr", &Value{Kind: Array}},
		{"obj", &Value{Kind: Object}},
	}}
	got := toJSON(t, v)
	// strings as Jackson writes them (jsontext): U+2028 and DEL as they are, a byte that is
	// not UTF-8 as U+FFFD
	want := "{\"s\":\"<&>\u2028\\u0001\x7f\ufffd\\\"\\\\\\n\\r\\t\",\"bad\":\"0x10\",\"nil\":null,\"arr\":[],\"obj\":{}}"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if !json.Valid([]byte(got)) {
		t.Error("invalid JSON")
	}
	if _, err := (&Value{Kind: 42}).MarshalJSON(); err == nil {
		t.Error("unknown kind encoded")
	}
	cyclic := &Value{Kind: Array}
	cyclic.Elems = []*Value{cyclic}
	if _, err := cyclic.MarshalJSON(); err == nil {
		t.Error("cyclic value encoded")
	}
}

// equalValues compares two trees, ignoring positions.
func equalValues(a, b *Value) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Str != b.Str || a.Bool != b.Bool || len(a.Fields) != len(b.Fields) || len(a.Elems) != len(b.Elems) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i].Key != b.Fields[i].Key || !equalValues(a.Fields[i].Value, b.Fields[i].Value) {
			return false
		}
	}
	for i := range a.Elems {
		if !equalValues(a.Elems[i], b.Elems[i]) {
			return false
		}
	}
	return true
}

// roundTrip checks that MarshalJSON then Parse gives an equal tree.
func roundTrip(t testing.TB, v *Value) {
	t.Helper()
	b, err := v.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON: %v", err)
	}
	if !json.Valid(b) {
		t.Fatalf("MarshalJSON gave invalid JSON: %s", b)
	}
	w, err := Parse(b, Options{ListSections: sections, LookupEnv: noEnv, noPlaceholders: true})
	if err != nil {
		t.Fatalf("Parse(MarshalJSON) = %v\njson: %s", err, b)
	}
	if !equalValues(v, w) {
		c, _ := w.MarshalJSON()
		t.Fatalf("round trip changed the tree\nfirst:  %s\nsecond: %s", b, c)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, src := range append(seeds(), jobConf) {
		v, err := Parse([]byte(src), Options{ListSections: sections, LookupEnv: noEnv, Vars: map[string]string{"strTemplate": "[abc,def]"}})
		if err != nil {
			continue
		}
		roundTrip(t, v)
	}
}

func TestParseFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "job.conf")
	if err := os.WriteFile(path, []byte("a = 1\nb = ${c}"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ParseFile(path, Options{LookupEnv: noEnv})
	if err == nil || err.Error() != path+":2:5: unresolved substitution ${c}: not defined in the configuration, the variables or the environment" {
		t.Errorf("err = %v", err)
	}
	if _, err := ParseFile(filepath.Join(dir, "missing.conf"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if err := os.WriteFile(path, []byte("a = 1"), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := ParseFile(path, Options{})
	if err != nil || v.Get("a").Pos.File != path {
		t.Errorf("ParseFile = %v, %v", v, err)
	}
}

func TestErrors(t *testing.T) {
	deep := strings.Repeat("[", 1200) + strings.Repeat("]", 1200)
	tests := []struct {
		src  string
		want string // "line:col: message prefix"
	}{
		{`a = "abc`, `1:5: unterminated string`},
		{"a = \"abc\nb = 1", `1:5: unterminated string`},
		{"a {\n b = 1\n", `3:1: unclosed '{' opened at 1:3`},
		{"{ a = 1", `1:8: unclosed '{' opened at 1:1`},
		{"foo 1\n", `1:6: expected '=' or ':' after key "foo 1", got end of line`},
		{"foo [1]", `1:5: expected '=' or ':' after key "foo", got '['`},
		{"foo\n= 1", `1:4: expected '=' or ':' after key "foo", got end of line`},
		{"a = [1, 2", `1:10: unclosed '[' opened at 1:5`},
		{"a = [1 2", `1:9: unclosed '[' opened at 1:5`},
		{"a = [1, 2}", `1:10: expected ',' or ']' after an array element, got '}'`},
		{"a = [1,,2]", `1:8: expected a value or ']', got ','`},
		{"a = ", `1:5: expected a value for key "a", got end of input`},
		{"a = ,", `1:5: expected a value for key "a", got ','`},
		{"a = 1,,", `1:7: expected a key, got ','`},
		{"a = 1 }", `1:7: unexpected '}' without a matching '{'`},
		{"{a = 1} b = 2", `1:9: unexpected "b" after the end of the root object`},
		{"a = b = c", `1:7: unexpected '=' in a value`},
		{"a = x*y", `1:6: character '*' is reserved`},
		{"a = ?", `1:5: character '?' is reserved`},
		{"a = price$", `1:10: '$' must start a substitution`},
		{"a = 1+2", `1:6: '+' is only allowed as part of '+='`},
		{"a = jdbc:mysql://h", `1:9: unexpected ':' in a value`},
		{"a = \"\\q\"", `1:6: invalid escape sequence \q in string`},
		{"a = \"\\u12\"", `1:6: invalid \u escape`},
		{`a = """abc`, `1:5: unterminated triple-quoted string`},
		{"a = ${missing}", `1:5: unresolved substitution ${missing}`},
		{"x {\n  a = ${b.c}\n}", `2:7: unresolved substitution ${b.c}`},
		{"a = ${b}\nb = ${a}", `2:5: substitution ${a} refers back to itself (cycle)`},
		{"a = ${a}", `1:5: substitution ${a} refers back to itself (cycle)`},
		{"a { b = ${a} }", `1:9: substitution ${a} refers back to itself (cycle)`},
		{"a = ${a}x", `1:5: substitution ${a} refers back to itself (cycle)`},
		{"a = ${rowNum:50}", `1:13: ':' is not allowed in a substitution path`},
		{"a = ${x", `1:5: unterminated substitution`},
		{"a = ${}", `1:5: invalid substitution: empty path`},
		{"a = ${x.}", `1:5: invalid substitution: path ends with '.'`},
		{"a = ${x$}", `1:8: character '$' is not allowed in a substitution path`},
		{"a = [1] \"x\"", `1:9: cannot concatenate array with string`},
		{"a = {x = 1} [1]", `1:13: cannot concatenate object with array`},
		{"b = [1]\na = ${b} x", `2:10: cannot concatenate array with string`},
		{"a = x { y = 1 }", `1:5: cannot concatenate string with object`},
		{"b = [1]\na = ${b} { y = 1 }", `2:5: cannot concatenate array with object`},
		{"[1]", `1:1: the root of a configuration must be an object, not an array`},
		{"a..b = 1", `1:1: invalid key: empty path element`},
		{".a = 1", `1:1: invalid key: empty path element`},
		{"a. = 1", `1:1: invalid key: path ends with '.'`},
		{`"""a""" = 1`, `1:1: a triple-quoted string cannot be used as a key`},
		{"${a} = 1", `1:1: substitutions are not allowed in keys`},
		{`include "other.conf"`, `1:1: include is not supported`},
		{"a {\n  include required(file(\"x\"))\n}", `2:3: include is not supported`},
		{"a = " + deep, `1:1005: values nested more than 1000 levels deep`},
		{strings.Repeat("a.", 1000) + "a = 1", `1:2005: values nested more than 1000 levels deep`},
		{"sink { A += 1 }", `1:8: '+=' cannot be used for an entry of a list section`},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.src), Options{File: "job.conf", LookupEnv: noEnv, ListSections: sections})
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%.60q) = %v, want an *Error", tc.src, err)
			continue
		}
		if got := e.Error(); !strings.HasPrefix(got, "job.conf:"+tc.want) {
			t.Errorf("Parse(%.60q)\n got %s\nwant job.conf:%s...", tc.src, got, tc.want)
		}
	}
}

func TestDepthLimitsAfterSubstitution(t *testing.T) {
	// Each level copies the previous one into a deeper position.
	var b strings.Builder
	b.WriteString("a0 = 1\n")
	for i := 1; i <= 1100; i++ {
		b.WriteString("a" + itoa(i) + " = [${a" + itoa(i-1) + "}]\n")
	}
	_, err := Parse([]byte(b.String()), Options{LookupEnv: noEnv})
	if err == nil || !strings.Contains(err.Error(), "nested more than 1000 levels deep after substitution") {
		t.Errorf("err = %v", err)
	}
	// A long backward chain exceeds the resolution depth.
	b.Reset()
	for i := 0; i < maxResolveDepth+10; i++ {
		b.WriteString("a" + itoa(i) + " = ${a" + itoa(i+1) + "}\n")
	}
	b.WriteString("a" + itoa(maxResolveDepth+10) + " = 1\n")
	_, err = Parse([]byte(b.String()), Options{LookupEnv: noEnv})
	if err == nil || !strings.Contains(err.Error(), "substitutions nested more than") {
		t.Errorf("err = %v", err)
	}
}

func TestExpansionLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0 = \"xxxxxxxxxxxxxxxx\"\nb0 = [1, 2]\n")
	for i := 1; i <= 40; i++ {
		b.WriteString("a" + itoa(i) + " = ${a" + itoa(i-1) + "}${a" + itoa(i-1) + "}\n")
		b.WriteString("b" + itoa(i) + " = ${b" + itoa(i-1) + "}${b" + itoa(i-1) + "}\n")
	}
	_, err := Parse([]byte(b.String()), Options{LookupEnv: noEnv})
	if err == nil || !strings.Contains(err.Error(), "grows beyond") {
		t.Errorf("err = %v", err)
	}
	b.Reset()
	b.WriteString("o0 = {x = 1}\n")
	for i := 1; i <= 40; i++ {
		b.WriteString("o" + itoa(i) + " = {a = ${o" + itoa(i-1) + "}, b = ${o" + itoa(i-1) + "}}\n")
	}
	_, err = Parse([]byte(b.String()), Options{LookupEnv: noEnv})
	if err == nil || !strings.Contains(err.Error(), "grows beyond") {
		t.Errorf("err = %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
