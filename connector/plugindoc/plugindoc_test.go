package plugindoc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
)

type check struct {
	Name  string `opt:"name,required" doc:"the field checked"`
	Limit *int64 `opt:"limit" doc:"at most this many"`
}

type sampleOptions struct {
	Path     string   `opt:"path,required" doc:"the folder\n  to read"`
	Format   string   `opt:"file_format_type" default:"csv" enum:"text,csv,json" doc:"how the files are written"`
	Password string   `opt:"password,secret" doc:"the user's password"`
	Attempts int      `opt:"max_commit_attempts,noeffect" default:"3" doc:"commits are retried by the engine"`
	Include  []string `opt:"include_fields" fallback:"fields" doc:"the fields kept"`
	Pattern  string   `opt:"pattern" default:"a|b" doc:"a choice: a|b, or array<a>"`
	Checks   []check  `opt:"checks" doc:"the checks"`
	Nested   struct {
		N int `opt:"n" default:"1" doc:"a count"`
	} `opt:"nested" doc:"an object"`
	Props map[string]string `opt:"properties" doc:"passed on as they are"`
}

type noOptions struct{}

var (
	sample = connector.Plugin{Kind: "source", Name: "Sample", Doc: "Reads samples. It has many options.", Spec: config.SpecOf[sampleOptions]()}
	bare   = connector.Plugin{Kind: "transform", Name: "Bare", Doc: "Passes rows on.", Spec: config.SpecOf[noOptions]()}
	raw    = connector.Plugin{Kind: "sink", Name: "Raw"} // built by hand, without a spec
	all    = []connector.Plugin{sample, {Kind: "sink", Name: "Sample", Doc: "Writes samples."}, raw, bare}
)

func TestRows(t *testing.T) {
	var got []string
	for _, r := range Rows(sample.Spec) {
		got = append(got, strings.Join([]string{r.Name, r.Type, r.Default, yesNo(r.Required), r.Description}, " | "))
	}
	want := []string{
		"path | string |  | yes | the folder to read",
		"checks | list of objects |  | no | the checks",
		"checks[].name | string |  | yes | the field checked",
		"checks[].limit | int |  | no | at most this many",
		"file_format_type | enum | csv | no | how the files are written (one of text, csv, json)",
		"include_fields | list |  | no | the fields kept (older name fields)",
		"max_commit_attempts | int | 3 | no | [no effect] commits are retried by the engine",
		"nested | object |  | no | an object",
		"nested.n | int | 1 | no | a count",
		"password | string |  | no | [secret] the user's password",
		"pattern | string | a|b | no | a choice: a|b, or array<a>",
		"properties | map |  | no | passed on as they are",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if Rows(nil) != nil {
		t.Error("rows of a plugin without a spec")
	}
}

func TestFirstSentence(t *testing.T) {
	for doc, want := range map[string]string{
		"Reads samples. It has many options.": "Reads samples.",
		"Reads v1.2 files.\nAnd more.":        "Reads v1.2 files.",
		"No full stop":                        "No full stop",
		"":                                    "",
		"Ends here.":                          "Ends here.",
		"One SELECT ... FROM query. More.":    "One SELECT ... FROM query.",
	} {
		if got := FirstSentence(doc); got != want {
			t.Errorf("%q: %q, want %q", doc, got, want)
		}
	}
}

func TestWriteList(t *testing.T) {
	var b bytes.Buffer
	if err := WriteList(&b, all); err != nil {
		t.Fatal(err)
	}
	want := `Sources:
  Sample  Reads samples.

Sinks:
  Sample  Writes samples.
  Raw

Transforms:
  Bare    Passes rows on.
`
	if b.String() != want {
		t.Errorf("list:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteListJSON(&b, all[:1]); err != nil {
		t.Fatal(err)
	}
	var got []Summary
	if err := json.Unmarshal(b.Bytes(), &got); err != nil || len(got) != 1 || got[0] != (Summary{Kind: "source", Name: "Sample", Doc: sample.Doc}) {
		t.Errorf("json %s: %v %+v", b.String(), err, got)
	}
}

func TestWriteOptions(t *testing.T) {
	for _, tc := range []struct {
		p    connector.Plugin
		want []string
	}{
		{sample, []string{
			"Sample (source)\nReads samples. It has many options.\n\nNAME  ",
			"\npath                 string           -        yes       the folder to read\n",
			"\nfile_format_type     enum             csv      no        how the files are written (one of text, csv, json)\n",
			"\npassword             string           -        no        [secret] the user's password\n",
			"[no effect] commits are retried by the engine",
			"\nchecks[].name        string           -        yes       the field checked\n",
		}},
		{bare, []string{"Bare (transform)\nPasses rows on.\n\nIt has no options of its own.\n"}},
		{raw, []string{"Raw (sink)\n\nIt has no options of its own.\n"}},
	} {
		var b bytes.Buffer
		if err := WriteOptions(&b, tc.p); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: output\n%s\nlacks %q", tc.p.Name, b.String(), w)
			}
		}
	}
}

func TestWriteOptionsJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteOptionsJSON(&b, []connector.Plugin{sample, raw}); err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Kind, Name string
		Options    []struct {
			Name, Type, Default string
			Required, Secret    bool
			NoEffect            bool
			Values, Fallbacks   []string
			Fields              []struct{ Name string }
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Name != "Raw" || got[1].Options == nil || len(got[1].Options) != 0 || len(got[0].Options) != len(sample.Spec.Fields) {
		t.Fatalf("json %s", b.String())
	}
	byName := map[string]int{}
	for i, o := range got[0].Options {
		byName[o.Name] = i
	}
	o := got[0].Options
	if f := o[byName["file_format_type"]]; f.Type != "enum" || f.Default != "csv" || strings.Join(f.Values, ",") != "text,csv,json" {
		t.Errorf("file_format_type %+v", f)
	}
	if !o[byName["path"]].Required || !o[byName["password"]].Secret || !o[byName["max_commit_attempts"]].NoEffect ||
		o[byName["include_fields"]].Fallbacks[0] != "fields" || len(o[byName["checks"]].Fields) != 2 {
		t.Errorf("options %s", b.String())
	}
}

func TestMarkdown(t *testing.T) {
	got := Markdown(sample)
	for _, w := range []string{
		"| option | type | default | required | description |\n| --- | --- | --- | --- | --- |\n| `path` | string |  | yes | the folder to read |\n",
		"| `checks[].name` | string |  | yes | the field checked |\n",
		"| `file_format_type` | enum | `csv` | no | how the files are written (one of text, csv, json) |\n",
		"| `pattern` | string | `a\\|b` | no | a choice: a\\|b, or array&lt;a> |\n",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("markdown\n%s\nlacks %q", got, w)
		}
	}
	if n := strings.Count(got, "\n"); n != 2+len(Rows(sample.Spec)) {
		t.Errorf("%d lines:\n%s", n, got)
	}
	if !strings.Contains(Markdown(raw), "no options") || !strings.Contains(Markdown(bare), "no options") {
		t.Errorf("raw %q, bare %q", Markdown(raw), Markdown(bare))
	}
	if got := code("a`b"); got != "``a`b``" {
		t.Errorf("code %q", got)
	}
}

func TestFindAndSuggest(t *testing.T) {
	if got := Find(all, "sample"); len(got) != 2 || got[0].Kind != "source" || got[1].Kind != "sink" {
		t.Errorf("find %+v", got)
	}
	if got := Find(all, "nothing"); got != nil {
		t.Errorf("find %+v", got)
	}
	plugins := []connector.Plugin{{Name: "LocalFile"}, {Name: "LocalFile"}, {Name: "S3File"}, {Name: "FakeSource"}, {Name: "Console"}, {Name: "Copy"}}
	for name, want := range map[string]string{
		"localfil":   "LocalFile",
		"Consol":     "Console",
		"fake":       "FakeSource",
		"file":       "S3File LocalFile",
		"cpy":        "Copy",
		"zzzzzzzzzz": "",
	} {
		if got := strings.Join(Suggest(plugins, name), " "); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
