// Package copy is the Copy transform: it copies fields into new fields, as SeaTunnel's Copy
// does. `fields = { new_name = source_field ... }` lists the copies in order; the older form
// `src_field` + `dest_field` copies one field (and is ignored when `fields` is set, as in
// SeaTunnel). A copy whose name is an existing field overwrites that field (which takes the
// source's type); the others are appended after the input fields. Copies are deep: a copied
// array, map or row shares nothing with its source.
package copy

import (
	"context"
	"log/slog"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
	"github.com/strait-dev/strait/types"
)

// Name is the plugin name.
const Name = "Copy"

func init() {
	xform.Register(Name, "Copies fields into new fields; a copy named like an input field overwrites it.", New)
}

// Config is Copy's options.
type Config struct {
	Fields    *config.Options `opt:"fields" doc:"the copies as new_field = source_field, in the order written; required unless src_field and dest_field are set"`
	SrcField  *string         `opt:"src_field" doc:"the field to copy, with dest_field: SeaTunnel's older form of one copy, ignored when fields is set"`
	DestField *string         `opt:"dest_field" doc:"the name of the copy of src_field"`
}

// Transform is a configured Copy.
type Transform struct {
	xform.Base
	w       *xform.Widen
	src     [][]int // per table: the source position of each copy
	scratch []row.Value
}

// New builds a Copy from its options and its input tables.
func New(o *config.Options, inputs []*catalog.Table, c *Config) (*Transform, error) {
	dest, src, key, err := copies(o, c)
	if err != nil {
		return nil, err
	}
	t := &Transform{scratch: make([]row.Value, len(dest))}
	cols := make([][]catalog.Column, len(inputs))
	for k, in := range inputs {
		idx := make([]int, len(src))
		for i, s := range src {
			j, err := xform.FieldIndex(o, key, s, in)
			if err != nil {
				return nil, err
			}
			idx[i] = j
			col := in.Columns[j]
			col.Name = dest[i]
			cols[k] = append(cols[k], col)
		}
		t.src = append(t.src, idx)
	}
	t.w, t.Tables = xform.NewWiden(o.Where(), inputs, cols)
	return t, nil
}

// copies lists the copies' names and sources, and the option that names the sources.
func copies(o *config.Options, c *Config) (dest, src []string, key string, err error) {
	switch {
	case c.Fields != nil:
		if c.SrcField != nil || c.DestField != nil {
			slog.Warn("Copy transform: src_field and dest_field are ignored when fields is set", "transform", o.Where())
		}
		for _, k := range c.Fields.Keys() {
			s, err := c.Fields.String(k, "")
			if err != nil {
				return nil, nil, "", err
			}
			if s == "" {
				return nil, nil, "", c.Fields.Errorf(k, "the source field of %q is empty", k)
			}
			dest = append(dest, k)
			src = append(src, s)
		}
		return dest, src, "fields", nil
	case c.SrcField != nil || c.DestField != nil:
		if c.SrcField == nil {
			return nil, nil, "", o.Errorf("src_field", "option is required")
		}
		if c.DestField == nil {
			return nil, nil, "", o.Errorf("dest_field", "option is required")
		}
		return []string{*c.DestField}, []string{*c.SrcField}, "src_field", nil
	}
	return nil, nil, "", o.Errorf("fields", "option is required (fields = { new_field = source_field }, or src_field and dest_field)")
}

// Process adds the copies to every row.
func (t *Transform) Process(_ context.Context, in *row.Batch) (*row.Batch, error) {
	b := t.w.Begin(in)
	vals := t.scratch
	for i := range in.Rows {
		r := &in.Rows[i]
		p, k, err := b.Route(r)
		if err != nil {
			return nil, err
		}
		for j, x := range t.src[k] {
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
