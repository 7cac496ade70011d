// Package filter is the Filter transform: it keeps some fields of each row and drops the
// others, as SeaTunnel's Filter does. Exactly one of include_fields (the fields to keep, in the
// order given; `fields` is its older name) and exclude_fields (the fields to drop; the others
// keep their order) is set. The primary key and constraint keys survive when all their
// columns do.
package filter

import (
	"context"
	"fmt"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
)

// Name is the plugin name.
const Name = "Filter"

func init() {
	connector.RegisterTransform(Name, "Keeps some fields of each row and drops the others: include_fields or exclude_fields.", New)
}

// Config is Filter's options; exactly one of the two is set.
type Config struct {
	Include []string `opt:"include_fields" fallback:"fields" doc:"the fields to keep, in the output's order; set this or exclude_fields"`
	Exclude []string `opt:"exclude_fields" doc:"the fields to drop, the others keeping their order; set this or include_fields"`
}

// Transform is a configured Filter.
type Transform struct {
	proj    *xform.Projection
	outputs []*catalog.Table
}

// New builds a Filter from its options.
func New(ctx *connector.TransformContext, c *Config) (connector.Transform, error) {
	inputs, err := xform.Inputs(ctx)
	if err != nil {
		return nil, err
	}
	o := ctx.Options
	inKey := "include_fields"
	if !o.Has(inKey) && o.Has("fields") {
		inKey = "fields"
	}
	hasIn, hasEx := o.Has(inKey), o.Has("exclude_fields")
	switch {
	case hasIn && hasEx:
		return nil, o.Errorf("exclude_fields", "%s and exclude_fields are mutually exclusive; set only one", inKey)
	case !hasIn && !hasEx:
		return nil, o.Errorf("", "set one of include_fields and exclude_fields")
	}
	key, list := inKey, c.Include
	if hasEx {
		key, list = "exclude_fields", c.Exclude
	}
	if err := listedOnce(o, key, list); err != nil {
		return nil, err
	}
	t := &Transform{}
	var idx [][]int
	var widths []int
	for _, in := range inputs {
		var missing []string
		for _, f := range list {
			if in.ColumnIndex(f) < 0 {
				missing = append(missing, f)
			}
		}
		switch len(missing) {
		case 0:
		case 1:
			return nil, xform.FieldNotFound(o, key, missing[0], in)
		default:
			return nil, xform.FieldsNotFound(o, key, missing, in)
		}
		var pick []int
		if hasIn {
			for _, f := range list {
				pick = append(pick, in.ColumnIndex(f))
			}
		} else {
			drop := make(map[string]bool, len(list))
			for _, f := range list {
				drop[f] = true
			}
			for i, c := range in.Columns {
				if !drop[c.Name] {
					pick = append(pick, i)
				}
			}
		}
		names := make([]string, len(pick))
		for i, j := range pick {
			names[i] = in.Columns[j].Name
		}
		idx = append(idx, pick)
		widths = append(widths, len(in.Columns))
		t.outputs = append(t.outputs, xform.Project(in, pick, names))
	}
	t.proj = xform.NewProjection(o.Where(), xform.NewRouter(inputs), idx, widths)
	return t, nil
}

// listedOnce fails on a field listed twice.
func listedOnce(o *config.Options, key string, list []string) error {
	seen := make(map[string]bool, len(list))
	for i, f := range list {
		if seen[f] {
			return o.Errorf(fmt.Sprintf("%s[%d]", key, i), "field %q is listed twice", f)
		}
		seen[f] = true
	}
	return nil
}

// Outputs are the tables of the kept fields.
func (t *Transform) Outputs() []*catalog.Table { return t.outputs }

// Open does nothing.
func (t *Transform) Open(context.Context) error { return nil }

// Close does nothing.
func (t *Transform) Close() error { return nil }

// Process keeps the chosen fields: the batch itself when that is all of them in order, else
// a new batch.
func (t *Transform) Process(_ context.Context, in *row.Batch) (*row.Batch, error) {
	return t.proj.Process(in)
}
