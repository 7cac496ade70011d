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
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
)

// Name is the plugin name.
const Name = "Filter"

func init() {
	xform.Register(Name, "Keeps some fields of each row and drops the others: include_fields or exclude_fields.", New)
}

// Config is Filter's options; exactly one of the two is set.
type Config struct {
	Include []string `opt:"include_fields" fallback:"fields" doc:"the fields to keep, in the output's order; set this or exclude_fields"`
	Exclude []string `opt:"exclude_fields" doc:"the fields to drop, the others keeping their order; set this or include_fields"`
}

// Transform is a configured Filter.
type Transform struct {
	xform.Base
	proj *xform.Projection
}

// New builds a Filter from its options and its input tables.
func New(o *config.Options, inputs []*catalog.Table, c *Config) (*Transform, error) {
	inKey := "include_fields"
	if !o.Has(inKey) && o.Has("fields") {
		inKey = "fields"
	}
	key, list, include, err := xform.OneOf(o, inKey, c.Include, "exclude_fields", c.Exclude)
	if err != nil {
		return nil, err
	}
	if err := listedOnce(o, key, list); err != nil {
		return nil, err
	}
	t := &Transform{}
	var idx [][]int
	for _, in := range inputs {
		pick, err := xform.FieldIndexes(o, key, list, in)
		if err != nil {
			return nil, err
		}
		if !include {
			pick = others(pick, len(in.Columns))
		}
		names := make([]string, len(pick))
		for i, j := range pick {
			names[i] = in.Columns[j].Name
		}
		idx = append(idx, pick)
		t.Tables = append(t.Tables, xform.Project(in, pick, names))
	}
	t.proj = xform.NewProjection(o.Where(), xform.NewRouter(inputs), idx)
	return t, nil
}

// others returns the positions below width that are not in drop, in order.
func others(drop []int, width int) []int {
	dropped := make([]bool, width)
	for _, j := range drop {
		dropped[j] = true
	}
	var keep []int
	for j := range width {
		if !dropped[j] {
			keep = append(keep, j)
		}
	}
	return keep
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

// Process keeps the chosen fields: the batch itself when that is all of them in order, else
// a new batch.
func (t *Transform) Process(_ context.Context, in *row.Batch) (*row.Batch, error) {
	return t.proj.Process(in)
}
