package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

type rule struct {
	Type  string `opt:"rule_type,required" enum:"MIN,MAX,NOT_NULL" doc:"the rule"`
	Value *int64 `opt:"rule_value" doc:"its bound"`
}

type sample struct {
	Path     string   `opt:"path,required" doc:"where"`
	Format   string   `opt:"file_format_type" default:"csv" enum:"text,csv,json" doc:"the format"`
	Password string   `opt:"password,secret"`
	Output   string   `opt:"plugin_output" fallback:"result_table_name"`
	Attempts int      `opt:"max_commit_attempts,noeffect" default:"3"`
	Columns  []string `opt:"read_columns"`
	Limit    *int64   `opt:"limit"`
	Ratio    float64  `opt:"ratio" default:"0.5"`
	Header   bool     `opt:"header" default:"true"`
	Small    int8     `opt:"small"`
	Dotted   int      `opt:"log.print.delay.ms" default:"0"`
	Rules    []rule   `opt:"rules"`
	Nested   struct {
		N int `opt:"n"`
	} `opt:"nested"`
	Props    map[string]string `opt:"properties"`
	Schema   *Options          `opt:"schema"`
	NotAnOpt string
}

func TestSpecDecode(t *testing.T) {
	spec := SpecOf[sample]()
	o := opts(t, `
path = /data
file_format_type = JSON
result_table_name = fake
read_columns = "a, b"
limit = "10"
log { print { delay { ms = 5 } } }
rules = [{ rule_type = min, rule_value = 1 }, { rule_type = NOT_NULL }]
nested { n = 4 }
properties { a = 1, b { c = x } }
schema { fields { id = int } }
`)
	var c sample
	if err := spec.Decode(o, &c); err != nil {
		t.Fatal(err)
	}
	one := int64(1)
	want := sample{Path: "/data", Format: "json", Output: "fake", Attempts: 3, Columns: []string{"a", "b"}, Ratio: 0.5, Header: true,
		Dotted: 5, Rules: []rule{{Type: "MIN", Value: &one}, {Type: "NOT_NULL"}}, Props: map[string]string{"a": "1", "b.c": "x"}}
	want.Nested.N = 4
	want.Limit = new(int64)
	*want.Limit = 10
	c.Schema = nil // checked below
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", c, want)
	}
	if u := spec.Unknown(o); len(u) != 0 {
		t.Fatalf("unknown: %v", u)
	}
}

func TestSpecErrors(t *testing.T) {
	spec := SpecOf[sample]()
	for _, tc := range []struct{ conf, want string }{
		{`file_format_type = csv`, `source[0] FakeSource: path: option is required (at job.conf:1:1)`},
		{"path = x\nfile_format_type = orcx", `file_format_type: unknown value "orcx"; expected one of text, csv, json (at job.conf:2:20)`},
		{"path = x\nlimit = ten", `limit: "ten" is not an integer (at job.conf:2:9)`},
		{"path = x\nsmall = 300", `small: 300 is out of range`},
		{"path = x\nheader = yes", `header: expected true or false, found "yes"`},
		{"path = x\nrules = [{ rule_value = 1 }]", `rules[0].rule_type: option is required (at job.conf:2:10)`},
		{"path = x\nrules = [3]", `rules[0]: expected an object, found number`},
		{"path = x\nnested = 3", `nested: expected an object, found number`},
		{"path = x\nread_columns = [[1]]", `read_columns[0]: expected a string, found array`},
		{"path = x\nproperties { a = [1] }", `properties.a: expected a value, found array`},
	} {
		var c sample
		err := spec.Decode(opts(t, tc.conf), &c)
		var ce *Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.conf, err, tc.want)
		}
	}
}

func TestSpecUnknown(t *testing.T) {
	spec := SpecOf[sample]()
	o := opts(t, "path = x\nfeild_delimiter = 1\nfile_fromat_type = csv\nrules = [{ rule_typ = MIN }]\nwholly_other = 1\nplugin_input = a")
	var c sample
	err := spec.Decode(o, &c)
	if err == nil || !strings.Contains(err.Error(), "rules[0].rule_type: option is required") {
		t.Fatalf("decode: %v", err)
	}
	got := strings.Join(spec.Unknown(o, "plugin_input"), "\n")
	want := strings.Join([]string{
		`unknown option "feild_delimiter" at job.conf:2:19`,
		`unknown option "file_fromat_type" (did you mean "file_format_type"?) at job.conf:3:20`,
		`unknown option "wholly_other" at job.conf:5:16`,
	}, "\n")
	if got != want {
		t.Fatalf("unknown:\n%s\nwant\n%s", got, want)
	}
}

func TestSpecFields(t *testing.T) {
	spec := SpecOf[sample]()
	f := spec.Field("file_format_type")
	if f == nil || f.Type != "enum" || f.Default != "csv" || !reflect.DeepEqual(f.Enum, []string{"text", "csv", "json"}) || f.Doc != "the format" {
		t.Fatalf("file_format_type: %+v", f)
	}
	if f := spec.Field("password"); !f.Secret {
		t.Fatal("password not secret")
	}
	if f := spec.Field("max_commit_attempts"); !f.NoEffect {
		t.Fatal("max_commit_attempts has an effect")
	}
	if f := spec.Field("rules"); f.Type != "list of objects" || len(f.Fields) != 2 || !f.Fields[0].Required {
		t.Fatalf("rules: %+v", f)
	}
	if spec.Field("NotAnOpt") != nil || len(spec.Fields) != 15 {
		t.Fatalf("%d fields", len(spec.Fields))
	}
	if s := spec.Sorted(); s[0].Name != "path" {
		t.Fatalf("sorted: %v", s[0].Name)
	}
}

func TestSpecOfRefusesBadTags(t *testing.T) {
	for name, f := range map[string]func(){
		"flag": func() {
			SpecOf[struct {
				A string `opt:"a,requird"`
			}]()
		},
		"repeat": func() {
			SpecOf[struct {
				A, B string `opt:"a"`
			}]()
		},
		"type": func() {
			SpecOf[struct {
				A chan int `opt:"a"`
			}]()
		},
		"enum": func() {
			SpecOf[struct {
				A int `opt:"a" enum:"1,2"`
			}]()
		},
		"default": func() {
			SpecOf[struct {
				A int `opt:"a" default:"x"`
			}]()
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestNearest(t *testing.T) {
	names := []string{"field_delimiter", "path", "file_format_type", "rules[].rule_type"}
	for in, want := range map[string]string{
		"feild_delimiter":   "field_delimiter",
		"field_delimter":    "field_delimiter",
		"FIELD_DELIMITER":   "field_delimiter",
		"pth":               "path",
		"xyz":               "",
		"rules[2].rule_typ": "rules[].rule_type",
	} {
		if got := nearest(in, names); got != want {
			t.Errorf("nearest(%q) = %q, want %q", in, got, want)
		}
	}
}

// shared is embedded in specs below: its options become those of the struct embedding it.
type shared struct {
	Schema *Options `opt:"schema,required"`
	Rows   int      `opt:"row.num" default:"5"`
	At     *Options `opt:"."`
}

type entry struct {
	Output string `opt:"plugin_output" fallback:"result_table_name"`
	shared
	Checks []check `opt:"checks"`
}

type check struct {
	Name string   `opt:"name,required"`
	At   *Options `opt:"."`
}

type outer struct {
	Tables []entry `opt:"tables_configs"`
	Rules  struct {
		Checks []check `opt:"checks"`
		Limit  int     `opt:"limit"`
	} `opt:"rules"`
}

func TestSpecEmbeddedAndSelf(t *testing.T) {
	spec := SpecOf[outer]()
	if f := spec.Field("tables_configs"); f == nil || len(f.Fields) != 4 || f.Fields[1].Name != "schema" || f.Fields[2].Name != "row.num" {
		t.Fatalf("tables_configs: %+v", f)
	}
	o := opts(t, `tables_configs = [
  { result_table_name = a, schema { x = 1 } },
  { row.num = 2, schema { y = 2 }, checks = [{ name = c }] }
]`)
	var c outer
	if err := spec.Decode(o, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Tables) != 2 || c.Tables[0].Output != "a" || c.Tables[0].Rows != 5 || c.Tables[1].Rows != 2 || c.Tables[1].Checks[0].Name != "c" {
		t.Fatalf("decoded %+v", c)
	}
	// each struct holds the options it was decoded from, so later checks name their place
	for _, tc := range []struct {
		at   *Options
		key  string
		want string
	}{
		{c.Tables[1].At, "row.num", "source[0] FakeSource: tables_configs[1].row.num: bad (at job.conf:3:15)"},
		{c.Tables[1].Checks[0].At, "name", "source[0] FakeSource: tables_configs[1].checks[0].name: bad (at job.conf:3:55)"},
		{c.Tables[0].At, "row.num", "source[0] FakeSource: tables_configs[0].row.num: bad (at job.conf:2:3)"},
	} {
		if got := tc.at.Errorf(tc.key, "bad").Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
	if _, err := Decode[outer](opts(t, `tables_configs = [{ row.num = 1 }]`)); err == nil || !strings.Contains(err.Error(), "tables_configs[0].schema: option is required") {
		t.Fatalf("missing schema: %v", err)
	}
}

// Unknown looks into objects and lists of objects that have a spec: a misspelt option
// there is named with its path and the option meant.
func TestSpecUnknownNested(t *testing.T) {
	spec := SpecOf[outer]()
	for _, tc := range []struct {
		conf string
		want []string
	}{
		{`rules { checks = [{ name = a }, { name = b, nmae = c }], limt = 3 }`, []string{
			`unknown option "rules.checks[1].nmae" (did you mean "rules.checks[1].name"?) at job.conf:1:52`,
			`unknown option "rules.limt" (did you mean "rules.limit"?) at job.conf:1:65`,
		}},
		{"tables_configs = [{ schema { a = 1 }, row.nun = 3, checks = [{ name = x, colour = red }] }]", []string{
			`unknown option "tables_configs[0].row.nun" (did you mean "tables_configs[0].row.num"?) at job.conf:1:49`,
			`unknown option "tables_configs[0].checks[0].colour" at job.conf:1:83`,
		}},
		// empty objects and lists are known; what is inside a schema is the plugin's
		{`rules {}, tables_configs = [{ schema { anything = 1 } }]`, nil},
		{`rules { checks = [] }`, nil},
		// an option that fails to decode is not warned about as well
		{`rules = 3`, nil},
		{`rules { checks = [{ nmae = a }] }`, nil},
	} {
		o := opts(t, tc.conf)
		var c outer
		_ = spec.Decode(o, &c)
		if got := spec.Unknown(o); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.conf, got, tc.want)
		}
	}
}

func TestSpecOfRefusesBadSelf(t *testing.T) {
	for name, f := range map[string]func(){
		"type": func() {
			SpecOf[struct {
				A string `opt:"."`
			}]()
		},
		"twice": func() {
			SpecOf[struct {
				A, B *Options `opt:"."`
			}]()
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
