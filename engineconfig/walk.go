package engineconfig

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// walker reads a YAML document node by node, so every error names the file, the line and
// the full key.
type walker struct {
	file string
	// ignored collects the keys read and not used, each with its place.
	ignored []string
}

func (w *walker) errf(n *yaml.Node, key, format string, args ...any) error {
	return fmt.Errorf("engine config %s:%d: %s: %s", w.file, n.Line, key, fmt.Sprintf(format, args...))
}

func (w *walker) ignore(n *yaml.Node, key, why string) {
	w.ignored = append(w.ignored, fmt.Sprintf("%s:%d: %s: %s", w.file, n.Line, key, why))
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// field reads one key's value; key is the full dotted path.
type field func(key string, v *yaml.Node) error

// mapping walks a mapping node: each key must be one of fields, else other (when set)
// takes it; a key given twice is an error.
func (w *walker) mapping(path string, n *yaml.Node, fields map[string]field, other field) error {
	n = deref(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // an empty section
	}
	if n.Kind != yaml.MappingNode {
		return w.errf(n, path, "expected a mapping of keys, got %s", kindName(n))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := join(path, k.Value)
		if seen[k.Value] {
			return w.errf(k, key, "given twice")
		}
		seen[k.Value] = true
		f, ok := fields[k.Value]
		if !ok {
			if other == nil {
				return w.errf(k, key, "unknown key (known: %s)", known(fields))
			}
			f = other
		}
		if err := f(key, v); err != nil {
			return err
		}
	}
	return nil
}

func known(fields map[string]field) string {
	ks := make([]string, 0, len(fields))
	for k := range fields {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return fmt.Sprintf("%q", n.Value)
}

// scalar is a value's text; SeaTunnel reads numbers and booleans from text, so "10000" and
// 10000 are the same.
func (w *walker) scalar(key string, n *yaml.Node) (string, error) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", w.errf(n, key, "expected a value, got %s", kindName(n))
	}
	return n.Value, nil
}

func (w *walker) str(dst *string) field {
	return func(key string, n *yaml.Node) error {
		s, err := w.scalar(key, n)
		*dst = s
		return err
	}
}

// positive reads a whole number of at least least.
func (w *walker) positive(dst *int64, least int64, unit string) field {
	return func(key string, n *yaml.Node) error {
		s, err := w.scalar(key, n)
		if err != nil {
			return err
		}
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return w.errf(n, key, "%q is not a whole number%s", s, unit)
		}
		if v < least {
			return w.errf(n, key, "must be at least %d%s, got %d", least, unit, v)
		}
		*dst = v
		return nil
	}
}

func (w *walker) count(dst *int, least int64) field {
	var v int64
	read := w.positive(&v, least, "")
	return func(key string, n *yaml.Node) error {
		if err := read(key, n); err != nil {
			return err
		}
		*dst = int(v)
		return nil
	}
}

func (w *walker) boolean(dst *bool) field {
	return func(key string, n *yaml.Node) error {
		s, err := w.scalar(key, n)
		if err != nil {
			return err
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			*dst = true
		case "false":
			*dst = false
		default:
			return w.errf(n, key, "%q is not true or false", s)
		}
		return nil
	}
}

// list reads a list of values, or one value, or a comma-separated one.
func (w *walker) list(dst *[]string) field {
	return func(key string, n *yaml.Node) error {
		n = deref(n)
		var items []*yaml.Node
		if n.Kind == yaml.SequenceNode {
			items = n.Content
		} else {
			items = []*yaml.Node{n}
		}
		*dst = nil
		for _, it := range items {
			s, err := w.scalar(key, it)
			if err != nil {
				return err
			}
			for _, p := range strings.Split(s, ",") {
				if p = strings.TrimSpace(p); p != "" {
					*dst = append(*dst, p)
				}
			}
		}
		if len(*dst) == 0 {
			return w.errf(n, key, "empty")
		}
		return nil
	}
}
