package http

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/internal/jsonscan"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/jsonpath"
	"github.com/strait-dev/strait/types"
)

// decoder turns a response body into rows' fields.
type decoder struct {
	raw        bool // no schema: the text is the content column
	multiLines bool
	rt         *types.RowType
	conv       literal.Converter
	content    *jsonpath.Path
	fieldNames []string // json_field's fields, sorted
	fieldPaths []*jsonpath.Path
}

// decode appends the rows of body to out.
func (d *decoder) decode(body []byte, out [][]row.Value) ([][]row.Value, error) {
	if len(body) == 0 {
		return out, nil // SeaTunnel reads nothing from an empty answer
	}
	if !d.multiLines {
		return d.record(string(body), out)
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, len(body)+1)
	for sc.Scan() {
		var err error
		if out, err = d.record(sc.Text(), out); err != nil {
			return out, err
		}
	}
	return out, sc.Err()
}

// record reads one record: the whole answer, or one of its lines.
func (d *decoder) record(text string, out [][]row.Value) ([][]row.Value, error) {
	if d.raw {
		return append(out, []row.Value{row.StringValue(text)}), nil
	}
	switch {
	case d.content != nil:
		parts, err := d.content.Select(text)
		if err != nil {
			return out, fmt.Errorf("content_field %s: %v", d.content, err)
		}
		for _, p := range parts {
			if out, err = d.rows(p, out); err != nil {
				return out, err
			}
		}
		return out, nil
	case d.fieldPaths != nil:
		return d.jsonFields(text, out)
	}
	return d.rows(text, out)
}

// rows reads a JSON object as a row, or an array of objects as rows.
func (d *decoder) rows(text string, out [][]row.Value) ([][]row.Value, error) {
	v, err := parseJSON(text)
	if err != nil {
		return out, err
	}
	if v == nil || v.Kind == hocon.Null {
		return out, nil
	}
	elems := []*hocon.Value{v}
	if v.Kind == hocon.Array {
		elems = v.Elems
	}
	start := len(out)
	for _, e := range elems {
		if e.Kind != hocon.Object {
			return out[:start], fmt.Errorf("expected a JSON object, found %s", e.Kind)
		}
		fields, err := d.conv.ConvertFields(e, d.rt)
		if err != nil {
			return out[:start], err
		}
		out = append(out, fields)
	}
	return out, nil
}

// jsonFields reads json_field: the i-th row takes the i-th value of every path. Scalars are
// read as their text, as SeaTunnel hands them on, and converted to the field's type.
func (d *decoder) jsonFields(text string, out [][]row.Value) ([][]row.Value, error) {
	cols := make([][]string, len(d.fieldPaths))
	for i, p := range d.fieldPaths {
		vals, err := p.Select(text)
		if err != nil {
			return out, fmt.Errorf("json_field %s = %s: %v", d.fieldNames[i], p, err)
		}
		if i > 0 && len(vals) != len(cols[0]) {
			return out, fmt.Errorf("json_field: %s selects %d values and %s %d; every path must select as many",
				d.fieldNames[0], len(cols[0]), d.fieldNames[i], len(vals))
		}
		cols[i] = vals
	}
	if len(cols) == 0 {
		return out, nil
	}
	start := len(out)
	for r := range cols[0] {
		obj := &hocon.Value{Kind: hocon.Object}
		for i, name := range d.fieldNames {
			v, err := scalarText(cols[i][r])
			if err != nil {
				return out[:start], err
			}
			obj.Fields = append(obj.Fields, hocon.Field{Key: name, Value: v})
		}
		fields, err := d.conv.ConvertFields(obj, d.rt)
		if err != nil {
			return out[:start], err
		}
		out = append(out, fields)
	}
	return out, nil
}

// scalarText is a selected value as SeaTunnel passes it on: a string's text, a number's or
// boolean's as written, null as null; objects and arrays stay JSON values.
func scalarText(s string) (*hocon.Value, error) {
	switch {
	case s == "null":
		return &hocon.Value{Kind: hocon.Null}, nil
	case strings.HasPrefix(s, "\""):
		return &hocon.Value{Kind: hocon.String, Str: jsonscan.Unescape(s[1 : len(s)-1])}, nil
	case strings.HasPrefix(s, "{") || strings.HasPrefix(s, "["):
		return parseJSON(s)
	}
	return &hocon.Value{Kind: hocon.String, Str: s}, nil
}

func newFieldPaths(fields map[string]string) ([]string, []*jsonpath.Path, error) {
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sort.Strings(names)
	paths := make([]*jsonpath.Path, len(names))
	for i, n := range names {
		p, err := jsonpath.Compile(fields[n])
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", n, err)
		}
		paths[i] = p
	}
	return names, paths, nil
}

// parseJSON reads one JSON text into a value tree (hocon.ParseJSON).
func parseJSON(s string) (*hocon.Value, error) { return hocon.ParseJSON([]byte(s)) }
