package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
)

// TestDocsMatchSpecs: the committed option tables are what make docs writes, and every
// plugin that declares its options has a table.
func TestDocsMatchSpecs(t *testing.T) {
	documented := map[string]bool{}
	for _, f := range Files {
		text, err := os.ReadFile(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		stale, err := Stale(f, string(text), connector.LookupPlugin)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stale {
			t.Errorf("%s:%d: the options table of %s %s differs from its spec; run make docs", f, s.Line, s.Name, s.Kind)
		}
		sections, _ := Sections(f, string(text))
		for _, s := range sections {
			documented[s.Kind+" "+strings.ToLower(s.Name)] = true
		}
	}
	for _, p := range connector.Plugins() {
		if p.Spec != nil && !documented[p.Kind+" "+strings.ToLower(p.Name)] {
			t.Errorf("%s %s has no options table in %s: add <!-- options: %s %s --> and <!-- end options --> to its section and run make docs",
				p.Name, p.Kind, strings.Join(Files, " or "), p.Name, p.Kind)
		}
	}
}

type sampleOptions struct {
	Path string `opt:"path,required" doc:"where"`
}

var plugins = map[string]connector.Plugin{
	"source Sample": {Kind: "source", Name: "Sample", Spec: config.SpecOf[sampleOptions]()},
}

func lookup(kind, name string) (connector.Plugin, bool) {
	p, ok := plugins[kind+" "+name]
	return p, ok
}

const table = "\n\n| option | type | default | required | description |\n| --- | --- | --- | --- | --- |\n| `path` | string |  | yes | where |\n\n"

func TestGenerate(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, err string
		stale               []string
	}{
		{name: "prose is kept, the table written",
			in:    "# Sample\n\nIt reads.\n<!-- options: Sample source -->\nold table\n<!-- end options -->\nMore prose.\n",
			want:  "# Sample\n\nIt reads.\n<!-- options: Sample source -->" + table + "<!-- end options -->\nMore prose.\n",
			stale: []string{"Sample source at 4"}},
		{name: "an up-to-date table is left",
			in:    "<!-- options: Sample source -->" + table + "<!-- end options -->\n",
			want:  "<!-- options: Sample source -->" + table + "<!-- end options -->\n",
			stale: nil},
		{name: "a table written by hand is replaced",
			in:    "a\n<!-- options: Sample source -->\n| hand | written |\n<!-- end options -->\n<!-- options: Sample source --><!-- end options -->",
			want:  "a\n<!-- options: Sample source -->" + table + "<!-- end options -->\n<!-- options: Sample source -->" + table + "<!-- end options -->",
			stale: []string{"Sample source at 2", "Sample source at 5"}},
		{name: "no markers", in: "nothing here\n", want: "nothing here\n"},
		{name: "unknown plugin", in: "\n\n<!-- options: Nope sink -->\n<!-- end options -->\n", err: `doc.md:3: no sink plugin "Nope" is registered`},
		{name: "no end", in: "<!-- options: Sample source -->\n", err: "doc.md:1: options of Sample source have no <!-- end options -->"},
		{name: "no end before the next", in: "<!-- options: Sample source -->\n<!-- options: Sample source -->\n<!-- end options -->\n", err: "doc.md:1: options of Sample source have no <!-- end options --> before the next options"},
		{name: "end without start", in: "<!-- end options -->\n", err: "doc.md: 1 <!-- end options --> without a start marker"},
	} {
		got, err := Generate("doc.md", tc.in, lookup)
		stale, serr := Stale("doc.md", tc.in, lookup)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err || serr == nil {
				t.Errorf("%s: error %v (stale: %v), want %q", tc.name, err, serr, tc.err)
			}
			continue
		}
		if err != nil || serr != nil {
			t.Errorf("%s: %v %v", tc.name, err, serr)
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
		var names []string
		for _, s := range stale {
			names = append(names, s.Name+" "+s.Kind+" at "+strconv.Itoa(s.Line))
		}
		if strings.Join(names, ", ") != strings.Join(tc.stale, ", ") {
			t.Errorf("%s: stale %q, want %q", tc.name, names, tc.stale)
		}
		if again, _ := Generate("doc.md", got, lookup); again != got {
			t.Errorf("%s: a second run changes %q into %q", tc.name, got, again)
		}
	}
}
