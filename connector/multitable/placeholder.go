package multitable

import (
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config/hocon"
)

// Table placeholders, as SeaTunnel replaces them in a sink's options for each table it
// writes: ${database_name}, ${schema_name}, ${table_name}, ${schema_full_name} (database.
// schema), ${table_full_name} (database.schema.table, the parts the table has),
// ${primary_key}, ${unique_key} (the first unique key) and ${field_names} (comma-separated).
// ${name:default} takes the default when the table has no such part. An identifier
// placeholder without a value or a default becomes empty; a key placeholder of a table
// without that key stays as written. A list option holding only "${primary_key}",
// "${unique_key}" or "${field_names}" becomes the list of names.

const fieldDelimiter = ","

// ReplaceTable replaces the table placeholders of s for table t.
func ReplaceTable(s string, t *catalog.Table) string {
	if !strings.Contains(s, "${") {
		return s
	}
	p := t.Path
	empty := ""
	s = replace(s, "database_name", p.Database, &empty)
	s = replace(s, "schema_name", p.Schema, &empty)
	s = replace(s, "table_name", p.Table, &empty)
	var full []string
	for _, part := range []string{p.Database, p.Schema} {
		if part != "" {
			full = append(full, part)
		}
	}
	if len(full) > 0 {
		s = replace(s, "schema_full_name", strings.Join(full, "."), &empty)
	}
	if p.Table != "" {
		full = append(full, p.Table)
	}
	if len(full) > 0 {
		s = replace(s, "table_full_name", strings.Join(full, "."), &empty)
	}
	if pk := primaryKey(t); pk != "" {
		s = replace(s, "primary_key", pk, nil)
	}
	if uk := uniqueKey(t); uk != "" {
		s = replace(s, "unique_key", uk, nil)
	}
	return replace(s, "field_names", fieldNames(t), nil)
}

func primaryKey(t *catalog.Table) string {
	if t.PrimaryKey == nil {
		return ""
	}
	return strings.Join(t.PrimaryKey.Columns, fieldDelimiter)
}

func uniqueKey(t *catalog.Table) string {
	for _, k := range t.ConstraintKeys {
		if strings.EqualFold(k.Type, "UNIQUE_KEY") {
			names := make([]string, len(k.Columns))
			for i, c := range k.Columns {
				names[i] = c.Name
			}
			return strings.Join(names, fieldDelimiter)
		}
	}
	return ""
}

func fieldNames(t *catalog.Table) string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, fieldDelimiter)
}

// replace substitutes ${name} and ${name:default} in s: by value when it is not empty,
// else by the default written in the placeholder, else by *fallback; with no fallback the
// placeholder stays.
func replace(s, name, value string, fallback *string) string {
	open := "${" + name
	var b strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		rest := s[i+len(open):]
		var def *string
		var end int
		switch {
		case strings.HasPrefix(rest, "}"):
			end = i + len(open) + 1
		case strings.HasPrefix(rest, ":"):
			j := strings.IndexByte(rest, '}')
			if j < 0 {
				b.WriteString(s[:i+len(open)])
				s = rest
				continue
			}
			d := strings.TrimSpace(rest[1:j])
			def = &d
			end = i + len(open) + j + 1
		default: // another placeholder that starts the same way (${table_name_x})
			b.WriteString(s[:i+len(open)])
			s = rest
			continue
		}
		b.WriteString(s[:i])
		switch {
		case value != "":
			b.WriteString(value)
		case def != nil:
			b.WriteString(*def)
		case fallback != nil:
			b.WriteString(*fallback)
		default:
			b.WriteString(s[i:end])
		}
		s = s[end:]
	}
	b.WriteString(s)
	return b.String()
}

// replaceValue is ReplaceTable over one top-level option value: strings, and lists that
// hold one key placeholder alone.
func replaceValue(v *hocon.Value, t *catalog.Table) *hocon.Value {
	switch v.Kind {
	case hocon.String:
		if r := ReplaceTable(v.Str, t); r != v.Str {
			c := *v
			c.Str = r
			return &c
		}
	case hocon.Array:
		if len(v.Elems) != 1 || v.Elems[0].Kind != hocon.String {
			return v
		}
		var names string
		switch v.Elems[0].Str {
		case "${primary_key}":
			names = primaryKey(t)
		case "${unique_key}":
			names = uniqueKey(t)
		case "${field_names}":
			names = fieldNames(t)
		}
		if names == "" {
			return v
		}
		c := *v
		c.Elems = nil
		for _, n := range strings.Split(names, fieldDelimiter) {
			e := *v.Elems[0]
			e.Str = n
			c.Elems = append(c.Elems, &e)
		}
		return &c
	}
	return v
}
