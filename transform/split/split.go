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
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/internal/jregex"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
	"github.com/strait-dev/strait/types"
)

// Name is the plugin name.
const Name = "Split"

func init() {
	connector.RegisterTransform(Name, "Splits the text of one field around a regular expression into several string fields.", New)
}

// Config is Split's options.
type Config struct {
	Separator string   `opt:"separator,required" doc:"where to split: a regular expression, as Java's String.split reads it"`
	Field     string   `opt:"split_field,required" doc:"the field whose text is split"`
	Outputs   []string `opt:"output_fields,required" doc:"the string fields the pieces go to, at least one; with n fields the text is split into at most n pieces, the last holding the rest, and missing pieces are null"`
}

// Transform is a configured Split.
type Transform struct {
	w       *xform.Widen
	re      *jregex.Regexp
	n       int   // the number of output fields
	src     []int // per table: the split field's position
	outputs []*catalog.Table
	pieces  []string
	buf     []byte
}

// New builds a Split from its options.
func New(ctx *connector.TransformContext, c *Config) (connector.Transform, error) {
	inputs, err := xform.Inputs(ctx)
	if err != nil {
		return nil, err
	}
	o := ctx.Options
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
	if t.re, err = jregex.Compile(sep); err != nil {
		return nil, o.Errorf("separator", "%v", err)
	}
	cols := make([]catalog.Column, len(names))
	for i, n := range names {
		cols[i] = catalog.Column{Name: n, Type: types.Of(types.String), Nullable: true, Length: 200, DefaultValue: ""}
	}
	all := make([][]catalog.Column, len(inputs))
	for k, in := range inputs {
		j := in.ColumnIndex(field)
		if j < 0 {
			return nil, xform.FieldNotFound(o, "split_field", field, in)
		}
		t.src = append(t.src, j)
		all[k] = cols
	}
	t.w, t.outputs = xform.NewWiden(o.Where(), inputs, all)
	return t, nil
}

// Outputs are the tables with the split fields.
func (t *Transform) Outputs() []*catalog.Table { return t.outputs }

// Open does nothing.
func (t *Transform) Open(context.Context) error { return nil }

// Close does nothing.
func (t *Transform) Close() error { return nil }

// Split returns the pieces of s as the transform cuts them (at most n).
func (t *Transform) Split(s string) []string {
	t.pieces = t.re.Split(s, t.n, t.pieces)
	return t.pieces
}

// Process adds the split fields to every row.
func (t *Transform) Process(_ context.Context, in *row.Batch) (*row.Batch, error) {
	b := t.w.Begin(in)
	p, src := &t.w.Plans[0], t.src[0]
	multi := len(t.src) > 1
	for i := range in.Rows {
		r := &in.Rows[i]
		if multi {
			var k int
			if p, k = t.w.Plan(r.Table); p == nil {
				b.Fail()
				return nil, xform.UnknownTable(t.w.Where, r.Table)
			}
			src = t.src[k]
		}
		if len(r.Fields) != p.InWidth {
			b.Fail()
			return nil, xform.WidthError(t.w.Where, r, p.InWidth)
		}
		v := r.Fields[src]
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
