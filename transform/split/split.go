// Package split is the Split transform: it splits the text of one field around a separator
// (a regular expression, as in Java's String.split) into several string fields, as SeaTunnel's
// Split does. Options: separator, split_field, output_fields. With n output fields the text
// is split into at most n pieces, the last holding the rest; missing pieces are null, and a
// null field gives nulls. Output fields are strings; one named like an input field overwrites
// it, the others are appended.
package split

import (
	"context"
	"fmt"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/internal/jregex"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
	"github.com/strait-dev/strait/types"
)

// Name is the plugin name.
const Name = "Split"

func init() {
	xform.Register(Name, "Splits the text of one field around a regular expression into several string fields.", New)
}

// Config is Split's options.
type Config struct {
	Separator string   `opt:"separator,required" doc:"where to split: a regular expression, as Java's String.split reads it"`
	Field     string   `opt:"split_field,required" doc:"the field whose text is split"`
	Outputs   []string `opt:"output_fields,required" doc:"the string fields the pieces go to, at least one; with n fields the text is split into at most n pieces, the last holding the rest, and missing pieces are null"`
}

// Transform is a configured Split.
type Transform struct {
	xform.Base
	w      *xform.Widen
	re     *jregex.Regexp
	n      int   // the number of output fields
	src    []int // per table: the split field's position
	pieces []string
	buf    []byte
}

// New builds a Split from its options and its input tables.
func New(o *config.Options, inputs []*catalog.Table, c *Config) (*Transform, error) {
	sep, field, names := c.Separator, c.Field, c.Outputs
	if len(names) == 0 {
		return nil, o.Errorf("output_fields", "list at least one output field")
	}
	seen := map[string]bool{}
	for i, n := range names {
		if seen[n] {
			return nil, o.Errorf(fmt.Sprintf("output_fields[%d]", i), "field %q is listed twice", n)
		}
		seen[n] = true
	}
	t := &Transform{n: len(names), pieces: make([]string, 0, len(names))}
	var err error
	if t.re, err = jregex.Compile(sep); err != nil {
		return nil, o.Errorf("separator", "%v", err)
	}
	cols := make([]catalog.Column, len(names))
	for i, n := range names {
		cols[i] = catalog.Column{Name: n, Type: types.Of(types.String), Nullable: true, Length: 200, DefaultValue: ""}
	}
	all := make([][]catalog.Column, len(inputs))
	for k, in := range inputs {
		j, err := xform.FieldIndex(o, "split_field", field, in)
		if err != nil {
			return nil, err
		}
		t.src = append(t.src, j)
		all[k] = cols
	}
	t.w, t.Tables = xform.NewWiden(o.Where(), inputs, all)
	return t, nil
}

// Split returns the pieces of s as the transform cuts them (at most n).
func (t *Transform) Split(s string) []string {
	t.pieces = t.re.Split(s, t.n, t.pieces)
	return t.pieces
}

// Process adds the split fields to every row.
func (t *Transform) Process(_ context.Context, in *row.Batch) (*row.Batch, error) {
	b := t.w.Begin(in)
	for i := range in.Rows {
		r := &in.Rows[i]
		p, k, err := b.Route(r)
		if err != nil {
			return nil, err
		}
		v := r.Fields[t.src[k]]
		pieces := t.pieces[:0]
		switch v.T {
		case types.Null:
		case types.String:
			pieces = t.Split(v.S)
		default:
			t.buf = xform.AppendText(t.buf[:0], v)
			pieces = t.Split(string(t.buf))
		}
		o := b.Row(r, r.Kind, p)
		for j, x := range p.Idx {
			if j < len(pieces) {
				o.Fields[x] = row.StringValue(pieces[j])
			} else {
				o.Fields[x] = row.Value{}
			}
		}
	}
	return b.Done(), nil
}
