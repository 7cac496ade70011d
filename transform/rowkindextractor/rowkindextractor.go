// Package rowkindextractor is the RowKindExtractor transform: it turns a changelog into an
// append-only stream, as SeaTunnel's RowKindExtractor does. Every row leaves as an INSERT
// with its original kind in a new last field, custom_field_name (default row_kind), written
// as +I, -U, +U, -D (transform_type = SHORT, the default) or INSERT, UPDATE_BEFORE,
// UPDATE_AFTER, DELETE (FULL). The field must not exist yet. Like SeaTunnel, the new column is
// a non-null string of length 13 whose default is +I, and the table keeps its keys.
package rowkindextractor

import (
	"context"
	"fmt"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
	"github.com/strait-dev/strait/types"
)

// Name is the plugin name.
const Name = "RowKindExtractor"

func init() {
	xform.Register(Name, "Turns a changelog into INSERT rows that carry their original kind in a new field.", New)
}

// Config is RowKindExtractor's options.
type Config struct {
	FieldName string `opt:"custom_field_name" default:"row_kind" doc:"the name of the new field holding the kind; it must not be an input field"`
	Form      string `opt:"transform_type" default:"SHORT" enum:"SHORT,FULL" doc:"how the kind is written: SHORT as +I, -U, +U, -D; FULL as INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE"`
}

// Transform is a configured RowKindExtractor.
type Transform struct {
	xform.Base
	w    *xform.Widen
	text [4]row.Value // the value written for each kind
}

// New builds a RowKindExtractor from its options and its input tables.
func New(o *config.Options, inputs []*catalog.Table, c *Config) (*Transform, error) {
	name, form := c.FieldName, c.Form
	if name == "" {
		return nil, o.Errorf("custom_field_name", "the field name is empty")
	}
	t := &Transform{}
	for k := range t.text {
		if form == "FULL" {
			t.text[k] = row.StringValue(row.Kind(k).String())
		} else {
			t.text[k] = row.StringValue(row.Kind(k).Short())
		}
	}
	col := catalog.Column{Name: name, Type: types.Of(types.String), Nullable: false, Length: 13,
		DefaultValue: row.Insert.Short(), Comment: "Output column of RowKind"}
	cols := make([][]catalog.Column, len(inputs))
	for k, in := range inputs {
		if in.ColumnIndex(name) >= 0 {
			return nil, o.Errorf("custom_field_name", "field %q already exists in the input table %s", name, in.ID())
		}
		cols[k] = []catalog.Column{col}
	}
	t.w, t.Tables = xform.NewWiden(o.Where(), inputs, cols)
	return t, nil
}

// Process turns every row into an INSERT that carries its kind.
func (t *Transform) Process(_ context.Context, in *row.Batch) (*row.Batch, error) {
	b := t.w.Begin(in)
	for i := range in.Rows {
		r := &in.Rows[i]
		p, _, err := b.Route(r)
		if err != nil {
			return nil, err
		}
		if int(r.Kind) >= len(t.text) {
			b.Fail()
			return nil, fmt.Errorf("%s: a row of table %q has the unknown kind %d", t.w.Where, r.Table, r.Kind)
		}
		kind := r.Kind
		o := b.Row(r, row.Insert, p)
		o.Fields[p.Idx[0]] = t.text[kind]
	}
	return b.Done(), nil
}
