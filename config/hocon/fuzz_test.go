package hocon

import (
	"errors"
	"testing"
	"unicode/utf8"
)

// seeds are the fuzzing corpus: job config snippets and tricky syntax.
func seeds() []string {
	return []string{
		jobConf,
		`sql { query = """select * from t where a = "x" """ }`,
		`c_map = "map<string, {c_int = int, c_string = string}>"`,
		`{ "2024-01-26" = v0 }`,
		`field_type = { c_int = int }`,
		`rule_type = MAX_ROW`,
		`a = [0, 1, 2],`,
		`string.template = ${strTemplate}`,
		`query = "select * from "${resName}" where name = '"${nameVal}"' "`,
		`a = ${?MISSING}`,
		`row.num = "${rowNum:50}"`,
		`{"source": [{"plugin_name": "FakeSource", "row.num": 5}], "sink": [{"plugin_name": "Console"}]}`,
		"sink {A{}} sink {B{}}",
		"a = 1\nb = ${a}\nc = ${b} ${a} text\nd = [${a}] [2]\ne = {x = ${a}} {y = 2}",
		"a += 1\na += [2]\nb = ${a}",
		"d = {x = 1}\na = ${d}\na { y = ${a.x} }",
		"url = \"jdbc:postgresql://host:5432/db\" // comment\n# comment\nx = a b  c",
		"a = \"\\u00e9\\ud83d\\ude00\\t\"\nb = 1e+3\nc = -0.5\nd = 007",
		"env {\n  parallelism = 2\n  job.mode = \"STREAMING\"\n  checkpoint.interval = 10000\n}\nsource {\n  Jdbc {\n    url = \"jdbc:mysql://localhost:3306/test\"\n    driver = \"com.mysql.cj.jdbc.Driver\"\n    query = \"select * from t\"\n  }\n}\nsink {\n  Console {}\n}",
		"a = ${b}\nb = ${a}",
		"a { b { c { d = [[[{}]]] } } }",
		"\ufeff{\r\n\"a\" : true,\r\n}",
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range seeds() {
		f.Add([]byte(s))
	}
	// A smaller expansion budget keeps inputs that blow up through
	// substitutions fast; the limit itself is tested in TestExpansionLimit.
	saved := maxExpansion
	maxExpansion = 1 << 20
	f.Cleanup(func() { maxExpansion = saved })
	vars := map[string]string{"strTemplate": "[abc,def]", "rowNum": "10", "resName": "a20260101", "nameVal": "abc"}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<13 {
			return // keep every iteration fast
		}
		v, err := Parse(data, Options{File: "fuzz.conf", Vars: vars, LookupEnv: noEnv, ListSections: sections})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error is not an *Error: %T %v", err, err)
			}
			if e.Pos.File != "fuzz.conf" || e.Pos.Line < 1 || e.Pos.Col < 1 || e.Msg == "" {
				t.Fatalf("bad error position or message: %q", e.Error())
			}
			return
		}
		if v == nil || v.Kind != Object {
			t.Fatalf("root is not an object: %+v", v)
		}
		checkPositions(t, v)
		if utf8.Valid(data) {
			roundTrip(t, v)
		} else if _, err := v.MarshalJSON(); err != nil {
			t.Fatal(err)
		}
	})
}

func checkPositions(t *testing.T, v *Value) {
	t.Helper()
	if v.Pos.Line < 1 || v.Pos.Col < 1 {
		t.Fatalf("value without position: %+v", v)
	}
	for _, f := range v.Fields {
		if f.Value == nil {
			t.Fatalf("nil field value %q", f.Key)
		}
		checkPositions(t, f.Value)
	}
	for _, e := range v.Elems {
		if e == nil {
			t.Fatal("nil element")
		}
		checkPositions(t, e)
	}
}
