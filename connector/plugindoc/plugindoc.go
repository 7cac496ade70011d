// Package plugindoc shows the registered plugins and their declared options: the list that
// `strait plugins` prints (each plugin by kind, with the first sentence of its doc), one
// plugin's options as a text table or JSON, the Markdown tables of the docs, and the names
// nearest to one that is not registered.
package plugindoc

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
)

// Kinds are the plugin kinds in the order they are listed, with their headings.
var Kinds = []struct{ Kind, Heading string }{
	{"source", "Sources"},
	{"sink", "Sinks"},
	{"transform", "Transforms"},
}

// Row is one option as the tables show it. A nested option is named by its path:
// rules.checks[].name for the name of each entry of the list rules.checks.
type Row struct {
	Name        string
	Type        string
	Default     string
	Required    bool
	Description string // the doc, with the allowed values, older names and marks added
}

// Rows lists a spec's options as table rows: required ones first, then by name, each
// object's or list's own options right after it.
func Rows(spec *config.Spec) []Row {
	if spec == nil {
		return nil
	}
	return appendRows(nil, spec.Fields, "")
}

func appendRows(out []Row, fields []config.Field, prefix string) []Row {
	for _, f := range sorted(fields) {
		out = append(out, Row{Name: prefix + f.Name, Type: f.Type, Default: printable(f.Default), Required: f.Required, Description: describe(f)})
		switch f.Type {
		case "object":
			out = appendRows(out, f.Fields, prefix+f.Name+".")
		case "list of objects":
			out = appendRows(out, f.Fields, prefix+f.Name+"[].")
		}
	}
	return out
}

// printable writes the control characters of a default as escapes (\n, \t, \u0001), so
// that a delimiter's default shows in a table and does not break its row.
func printable(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func sorted(fields []config.Field) []config.Field {
	out := append([]config.Field(nil), fields...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Required != out[j].Required {
			return out[i].Required
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// describe is the option's doc with what the other columns do not say: that it is a
// secret or has no effect, the values it allows and the older names it is read under.
func describe(f config.Field) string {
	var parts []string
	if f.Secret {
		parts = append(parts, "[secret]")
	}
	if f.NoEffect {
		parts = append(parts, "[no effect]")
	}
	if d := oneLine(f.Doc); d != "" {
		parts = append(parts, d)
	}
	if len(f.Enum) > 0 {
		parts = append(parts, "(one of "+strings.Join(f.Enum, ", ")+")")
	}
	if len(f.Fallbacks) > 0 {
		parts = append(parts, "(older name "+strings.Join(f.Fallbacks, ", ")+")")
	}
	return strings.Join(parts, " ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// FirstSentence is the first sentence of a plugin's doc, on one line: what the list shows.
// An ellipsis (SELECT ... FROM) does not end it.
func FirstSentence(doc string) string {
	doc = oneLine(doc)
	for i := 0; i < len(doc); i++ {
		if doc[i] == '.' && (i == 0 || doc[i-1] != '.') && (i+1 == len(doc) || doc[i+1] == ' ') {
			return doc[:i+1]
		}
	}
	return doc
}

// Summary is a plugin as the list shows it.
type Summary struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Doc  string `json:"doc,omitempty"`
}

// WriteList prints the plugins by kind, each name with the first sentence of its doc, the
// docs of all kinds aligned in one column.
func WriteList(w io.Writer, plugins []connector.Plugin) error {
	width := 0
	for _, p := range plugins {
		width = max(width, len(p.Name))
	}
	var b strings.Builder
	for i, k := range Kinds {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(k.Heading + ":\n")
		for _, p := range plugins {
			if p.Kind == k.Kind {
				line := fmt.Sprintf("  %-*s  %s", width, p.Name, FirstSentence(p.Doc))
				b.WriteString(strings.TrimRight(line, " ") + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteListJSON writes the plugins as a JSON array of kind, name and doc.
func WriteListJSON(w io.Writer, plugins []connector.Plugin) error {
	out := make([]Summary, 0, len(plugins))
	for _, p := range plugins {
		out = append(out, Summary{Kind: p.Kind, Name: p.Name, Doc: oneLine(p.Doc)})
	}
	return writeJSON(w, out)
}

// Find returns the plugins of every kind registered under name, in any case.
func Find(plugins []connector.Plugin, name string) []connector.Plugin {
	var out []connector.Plugin
	for _, p := range plugins {
		if strings.EqualFold(p.Name, name) {
			out = append(out, p)
		}
	}
	return out
}

// WriteOptions prints a plugin's doc and its options as a table of name, type, default,
// whether it is required and what it does.
func WriteOptions(w io.Writer, p connector.Plugin) error {
	fmt.Fprintf(w, "%s (%s)\n", p.Name, p.Kind)
	if d := oneLine(p.Doc); d != "" {
		fmt.Fprintln(w, d)
	}
	fmt.Fprintln(w)
	if !hasOptions(p) {
		_, err := fmt.Fprintln(w, "It has no options of its own.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tDEFAULT\tREQUIRED\tDESCRIPTION")
	for _, r := range Rows(p.Spec) {
		def := r.Default
		if def == "" {
			def = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.Type, def, yesNo(r.Required), r.Description)
	}
	return tw.Flush()
}

func hasOptions(p connector.Plugin) bool { return p.Spec != nil && len(p.Spec.Fields) > 0 }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Options is a plugin and its options as JSON shows them.
type Options struct {
	Summary
	Options []config.Field `json:"options"`
}

// WriteOptionsJSON writes the plugins with their options as a JSON array.
func WriteOptionsJSON(w io.Writer, plugins []connector.Plugin) error {
	out := make([]Options, 0, len(plugins))
	for _, p := range plugins {
		o := Options{Summary: Summary{Kind: p.Kind, Name: p.Name, Doc: oneLine(p.Doc)}, Options: []config.Field{}}
		if p.Spec != nil {
			o.Options = append(o.Options, p.Spec.Fields...)
		}
		out = append(out, o)
	}
	return writeJSON(w, out)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Markdown is a plugin's options as a Markdown table, for the docs.
func Markdown(p connector.Plugin) string {
	if !hasOptions(p) {
		return "The plugin has no options of its own.\n"
	}
	var b strings.Builder
	b.WriteString("| option | type | default | required | description |\n")
	b.WriteString("| --- | --- | --- | --- | --- |\n")
	for _, r := range Rows(p.Spec) {
		def := ""
		if r.Default != "" {
			def = code(r.Default)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", code(r.Name), cell(r.Type), def, yesNo(r.Required), cell(r.Description))
	}
	return b.String()
}

// cell escapes what would end a Markdown table cell, and the < that would start an HTML
// tag (array<string>).
func cell(s string) string { return strings.ReplaceAll(pipes(s), "<", "&lt;") }

// pipes escapes the | that would end a table cell, in code spans too.
func pipes(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// code writes s as inline code, with a fence longer than any run of backticks in it.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + pipes(s) + fence
}

// Suggest returns up to three registered names nearest to name: those a few edits away
// (a third of the name's length, at least two) and those that contain it or that it
// contains, in any case, nearest first.
func Suggest(plugins []connector.Plugin, name string) []string {
	type cand struct {
		name string
		d    int
	}
	want := strings.ToLower(name)
	seen := map[string]bool{}
	var cands []cand
	for _, p := range plugins {
		if seen[p.Name] {
			continue
		}
		seen[p.Name] = true
		have := strings.ToLower(p.Name)
		d := distance(want, have)
		if d <= max(2, len(want)/3) || (want != "" && (strings.Contains(have, want) || strings.Contains(want, have))) {
			cands = append(cands, cand{p.Name, d})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].d != cands[j].d {
			return cands[i].d < cands[j].d
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i := 0; i < len(cands) && i < 3; i++ {
		out = append(out, cands[i].name)
	}
	return out
}

// distance is the Levenshtein distance of a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
