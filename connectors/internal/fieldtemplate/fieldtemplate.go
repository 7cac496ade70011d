// Package fieldtemplate reads the options whose text names a row's fields in placeholders
// (an index seatunnel_${age}, a key user:${id}) and writes that text per row, each
// placeholder replaced by its field's value.
package fieldtemplate

import (
	"strings"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// Template is a text of literal parts with a field's value after each but the last.
type Template struct {
	parts  []string
	fields []int    // the fields' indexes in the row
	names  []string // and their names
}

// Parse reads s, whose placeholders ${name} (and with bare also {name}) of rt's fields
// are replaced per row; a placeholder of a name rt does not have stays as written.
func Parse(s string, rt *types.RowType, bare bool) Template {
	var t Template
	lit := ""
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			break
		}
		dollar := i > 0 && s[i-1] == '$'
		if !dollar && !bare {
			lit += s[:i+1]
			s = s[i+1:]
			continue
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		name := s[i+1 : i+j]
		f := rt.Index(name)
		if f < 0 {
			lit += s[:i+j+1] // not a field: kept as written
			s = s[i+j+1:]
			continue
		}
		start := i
		if dollar {
			start = i - 1
		}
		t.parts = append(t.parts, lit+s[:start])
		t.fields = append(t.fields, f)
		t.names = append(t.names, name)
		lit, s = "", s[i+j+1:]
	}
	t.parts = append(t.parts, lit+s)
	return t
}

// Field is the template whose text is the value of field i, named name.
func Field(i int, name string) Template {
	return Template{parts: []string{"", ""}, fields: []int{i}, names: []string{name}}
}

// Literal is the template of the text s, which names no field.
func Literal(s string) Template { return Template{parts: []string{s}} }

// Static is the text when the template names no field.
func (t Template) Static() (string, bool) {
	if len(t.fields) == 0 {
		return t.parts[0], true
	}
	return "", false
}

// Append appends the text for a row's fields; null names the first field of the text
// that is null ("" when none is), whose value is written as row.AppendText writes a null.
func (t Template) Append(buf []byte, fields []row.Value) (out []byte, null string) {
	for i, p := range t.parts {
		buf = append(buf, p...)
		if i < len(t.fields) {
			v := fields[t.fields[i]]
			if null == "" && v.IsNull() {
				null = t.names[i]
			}
			buf = row.AppendText(buf, v)
		}
	}
	return buf, null
}
