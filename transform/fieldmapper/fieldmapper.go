// Package fieldmapper is the FieldMapper transform: `field_mapper = { input = output ... }`
// picks input fields, renames them and orders them as the mapping is written, dropping the
// rest, as SeaTunnel's FieldMapper does. The primary key and constraint keys survive when all
// the column names they list are among the output names. A mapping that keeps every field in
// order (renaming only) leaves batches untouched.
package fieldmapper

import (
	"context"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
)

// Name is the plugin name.
const Name = "FieldMapper"

func init() {
	xform.Register(Name, "Keeps, renames and reorders fields as a mapping of input names to output names lists them.", New)
}

// Config is FieldMapper's options.
type Config struct {
	Mapping *config.Options `opt:"field_mapper,required" doc:"input_field = output_name for each field kept, in the output's order; fields not listed are dropped"`
}

// Transform is a configured FieldMapper.
type Transform struct {
	xform.Base
	proj *xform.Projection
}

// New builds a FieldMapper from its options and its input tables.
func New(o *config.Options, inputs []*catalog.Table, c *Config) (*Transform, error) {
	from, to, err := mapping(c.Mapping)
	if err != nil {
		return nil, err
	}
	t := &Transform{}
	var idx [][]int
	for _, in := range inputs {
		pick, err := xform.FieldIndexes(o, "field_mapper", from, in)
		if err != nil {
			return nil, err
		}
		idx = append(idx, pick)
		t.Tables = append(t.Tables, xform.Project(in, pick, to))
	}
	t.proj = xform.NewProjection(o.Where(), xform.NewRouter(inputs), idx)
	return t, nil
}

// mapping reads the input names and their output names, in the mapping's order.
func mapping(m *config.Options) (from, to []string, err error) {
	keys := m.Keys()
	from = make([]string, 0, len(keys))
	to = make([]string, 0, len(keys))
	seen := map[string]string{}
	for _, k := range keys {
		name, err := m.String(k, "")
		if err != nil {
			return nil, nil, err
		}
		if name == "" {
			return nil, nil, m.Errorf(k, "the output name of field %q is empty", k)
		}
		if prev, dup := seen[name]; dup {
			return nil, nil, m.Errorf(k, "output field %q is already the name of %q", name, prev)
		}
		seen[name] = k
		from = append(from, k)
		to = append(to, name)
	}
	return from, to, nil
}

// Process maps the fields of every row.
func (t *Transform) Process(_ context.Context, in *row.Batch) (*row.Batch, error) {
	return t.proj.Process(in)
}
