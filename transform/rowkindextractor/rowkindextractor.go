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
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
	"github.com/strait-dev/strait/types"
)

// Name is the plugin name.
const Name = "RowKindExtractor"

func init() {
	connector.RegisterTransform(Name, "Turns a changelog into INSERT rows that carry their original kind in a new field.", New)
}

// Config is RowKindExtractor's options.
type Config struct {
	FieldName string `opt:"custom_field_name" default:"row_kind" doc:"the name of the new field holding the kind; it must not be an input field"`
	Form      string `opt:"transform_type" default:"SHORT" enum:"SHORT,FULL" doc:"how the kind is written: SHORT as +I, -U, +U, -D; FULL as INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE"`
}

// Transform is a configured RowKindExtractor.
type Transform struct {
	w       *xform.Widen
	text    [4]row.Value // the value written for each kind
	outputs []*catalog.Table
}

// New builds a RowKindExtractor from its options.
func New(ctx *connector.TransformContext, c *Config) (connector.Transform, error) {
	inputs, err := xform.Inputs(ctx)
	if err != nil {
		return nil, err
	}
	o := ctx.Options
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
	t.w, t.outputs = xform.NewWiden(o.Where(), inputs, cols)
	return t, nil
}

// Outputs are the tables with the kind field.
func (t *Transform) Outputs() []*catalog.Table { return t.outputs }

// Open does nothing.
func (t *Transform) Open(context.Context) error { return nil }

// Close does nothing.
func (t *Transform) Close() error { return nil }

// Process turns every row into an INSERT that carries its kind.
func (t *Transform) Process(_ context.Context, in *row.Batch) (*row.Batch, error) {
	b := t.w.Begin(in)
	p := &t.w.Plans[0]
	multi := len(t.w.Plans) > 1
	for i := range in.Rows {
		r := &in.Rows[i]
		if multi {
			if p, _ = t.w.Plan(r.Table); p == nil {
				b.Fail()
				return nil, xform.UnknownTable(t.w.Where, r.Table)
			}
		}
		if len(r.Fields) != p.InWidth {
			b.Fail()
			return nil, xform.WidthError(t.w.Where, r, p.InWidth)
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
