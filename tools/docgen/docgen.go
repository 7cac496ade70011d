// Command docgen writes the option tables of the docs from the plugins' specs. In each file
// it rewrites the text between a marker naming a plugin and its kind,
//
//	<!-- options: LocalFile source -->
//	...
//	<!-- end options -->
//
// with the plugin's table, and leaves the prose around the markers as it is. `make docs` runs it on docs/connectors.md
// and docs/transforms.md; its test fails when a committed table differs from its spec.
package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connector/plugindoc"
	_ "github.com/strait-dev/strait/connectors/all"
	_ "github.com/strait-dev/strait/transform/all"
)

// Files are the docs whose tables are generated, relative to the repository.
var Files = []string{"docs/connectors.md", "docs/transforms.md"}

const endMarker = "<!-- end options -->"

var startMarker = regexp.MustCompile(`<!-- options: (\S+) (source|sink|transform) -->`)

// A Section is one marked table in a file: the plugin and the text between the markers.
type Section struct {
	Kind, Name string
	Line       int // of the start marker, from 1
	Body       string
	start, end int // byte offsets of Body
}

// Sections finds the marked tables of a file; name is the file's, for errors.
func Sections(name, text string) ([]Section, error) {
	var out []Section
	for _, m := range startMarker.FindAllStringSubmatchIndex(text, -1) {
		s := Section{Name: text[m[2]:m[3]], Kind: text[m[4]:m[5]], Line: 1 + strings.Count(text[:m[0]], "\n")}
		s.start = m[1]
		e := strings.Index(text[s.start:], endMarker)
		if e < 0 {
			return nil, fmt.Errorf("%s:%d: options of %s %s have no %s", name, s.Line, s.Name, s.Kind, endMarker)
		}
		s.end = s.start + e
		s.Body = text[s.start:s.end]
		if strings.Contains(s.Body, "<!-- options:") {
			return nil, fmt.Errorf("%s:%d: options of %s %s have no %s before the next options", name, s.Line, s.Name, s.Kind, endMarker)
		}
		out = append(out, s)
	}
	if extra := strings.Count(text, endMarker) - len(out); extra > 0 {
		return nil, fmt.Errorf("%s: %d %s without a start marker", name, extra, endMarker)
	}
	return out, nil
}

// Lookup finds a registered plugin by kind and name.
type Lookup func(kind, name string) (connector.Plugin, bool)

// Body is what follows the start marker of the plugin's section up to its end marker: its
// table between blank lines.
func Body(p connector.Plugin) string {
	return "\n\n" + plugindoc.Markdown(p) + "\n"
}

// Stale lists the sections whose text differs from what the plugin's spec gives.
func Stale(name, text string, lookup Lookup) ([]Section, error) {
	sections, err := Sections(name, text)
	if err != nil {
		return nil, err
	}
	var out []Section
	for _, s := range sections {
		p, ok := lookup(s.Kind, s.Name)
		if !ok {
			return nil, fmt.Errorf("%s:%d: no %s plugin %q is registered", name, s.Line, s.Kind, s.Name)
		}
		if s.Body != Body(p) {
			out = append(out, s)
		}
	}
	return out, nil
}

// Generate rewrites every section of the file's text from the plugins' specs.
func Generate(name, text string, lookup Lookup) (string, error) {
	sections, err := Sections(name, text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	last := 0
	for _, s := range sections {
		p, ok := lookup(s.Kind, s.Name)
		if !ok {
			return "", fmt.Errorf("%s:%d: no %s plugin %q is registered", name, s.Line, s.Kind, s.Name)
		}
		b.WriteString(text[last:s.start])
		b.WriteString(Body(p))
		last = s.end
	}
	b.WriteString(text[last:])
	return b.String(), nil
}

func main() {
	files := os.Args[1:]
	if len(files) == 0 {
		files = Files
	}
	for _, f := range files {
		if err := rewrite(f); err != nil {
			fmt.Fprintf(os.Stderr, "docgen: %v\n", err)
			os.Exit(1)
		}
	}
}

func rewrite(file string) error {
	old, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	stale, err := Stale(file, string(old), connector.LookupPlugin)
	if err != nil {
		return err
	}
	if len(stale) == 0 {
		fmt.Printf("%s: up to date\n", file)
		return nil
	}
	text, err := Generate(file, string(old), connector.LookupPlugin)
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		return err
	}
	for _, s := range stale {
		fmt.Printf("%s:%d: rewrote the options of %s %s\n", file, s.Line, s.Name, s.Kind)
	}
	return nil
}
