// Package copy is the Copy transform: it copies fields into new fields, as SeaTunnel's Copy
// does. `fields = { new_name = source_field ... }` lists the copies in order; the older form
// `src_field` + `dest_field` copies one field (and is ignored when `fields` is set, as in
// SeaTunnel). A copy whose name is an existing field overwrites that field (which takes the
// source's type); the others are appended after the input fields. Copies are deep: a copied
// array, map or row shares nothing with its source.
package copy

import (
	"context"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
	"github.com/strait-dev/strait/types"
)

// Name is the plugin name.
const Name = "Copy"

func init() { connector.RegisterTransformRaw(Name, New) }

// Transform is a configured Copy.
type Transform struct {
	w       *xform.Widen
	src     [][]int // per table: the source position of each copy
	outputs []*catalog.Table
	scratch []row.Value
}

// New builds a Copy from its options.
func New(ctx *connector.TransformContext) (connector.Transform, error) {
	inputs, err := xform.Inputs(ctx)
	if err != nil {
		return nil, err
	}
	o := ctx.Options
	var dest, src []string
	var key string // the option that names the sources, for errors
	switch {
	case o.Has("fields"):
		key = "fields"
		m, err := o.Object("fields")
		if err != nil {
			return nil, err
		}
		for _, k := range m.Keys() {
			s, err := m.String(k, "")
			if err != nil {
				return nil, err
			}
			if s == "" {
				return nil, m.Errorf(k, "the source field of %q is empty", k)
			}
			dest = append(dest, k)
			src = append(src, s)
		}
	case o.Has("src_field") || o.Has("dest_field"):
		key = "src_field"
		s, err := o.RequiredString("src_field")
		if err != nil {
			return nil, err
		}
		d, err := o.RequiredString("dest_field")
		if err != nil {
			return nil, err
		}
		dest, src = []string{d}, []string{s}
	default:
		return nil, o.Errorf("fields", "option is required (fields = { new_field = source_field }, or src_field and dest_field)")
	}
	t := &Transform{scratch: make([]row.Value, len(dest))}
	cols := make([][]catalog.Column, len(inputs))
	for k, in := range inputs {
		idx := make([]int, len(src))
		for i, s := range src {
			j := in.ColumnIndex(s)
			if j < 0 {
				return nil, xform.FieldNotFound(o, key, s, in)
			}
			idx[i] = j
			c := in.Columns[j]
			c.Name = dest[i]
			cols[k] = append(cols[k], c)
		}
		t.src = append(t.src, idx)
	}
	t.w, t.outputs = xform.NewWiden(o.Where(), inputs, cols)
	return t, nil
}

// Outputs are the tables with the copies.
func (t *Transform) Outputs() []*catalog.Table { return t.outputs }

// Open does nothing.
func (t *Transform) Open(context.Context) error { return nil }

// Close does nothing.
func (t *Transform) Close() error { return nil }

// Process adds the copies to every row.
func (t *Transform) Process(_ context.Context, in *row.Batch) (*row.Batch, error) {
	b := t.w.Begin(in)
	p, src := &t.w.Plans[0], t.src[0]
	multi := len(t.src) > 1
	vals := t.scratch
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
		for j, x := range src {
			v := r.Fields[x]
			if v.T >= types.Array {
				v = v.Clone()
			}
			vals[j] = v
		}
		o := b.Row(r, r.Kind, p)
		for j, x := range p.Idx {
			o.Fields[x] = vals[j]
		}
	}
	return b.Done(), nil
}
