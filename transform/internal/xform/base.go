package xform

import (
	"context"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// Base is what the row transforms share besides Process: their output tables, and Open and
// Close, which have nothing to do since the transforms hold no outside resources.
type Base struct {
	Tables []*catalog.Table
}

// Outputs are the tables of the rows the transform emits, one per input table.
func (b *Base) Outputs() []*catalog.Table { return b.Tables }

// Open does nothing.
func (*Base) Open(context.Context) error { return nil }

// Close does nothing.
func (*Base) Close() error { return nil }

// Register registers a transform under its plugin name, as connector.RegisterTransform
// does; build receives the transform's options, its checked input tables (Inputs) and its
// decoded options. A failed build gives a nil Transform, never a typed nil.
func Register[C any, T connector.Transform](name, doc string, build func(o *config.Options, inputs []*catalog.Table, c *C) (T, error)) {
	connector.RegisterTransform(name, doc, func(ctx *connector.TransformContext, c *C) (connector.Transform, error) {
		inputs, err := Inputs(ctx)
		if err != nil {
			return nil, err
		}
		t, err := build(ctx.Options, inputs, c)
		if err != nil {
			return nil, err
		}
		return t, nil
	})
}

// FieldIndex returns the position of the field named by option key in the input table in;
// a missing field is FieldNotFound's error, which names the option, the field and the
// table's fields.
func FieldIndex(opts *config.Options, key, field string, in *catalog.Table) (int, error) {
	j := in.ColumnIndex(field)
	if j < 0 {
		return -1, FieldNotFound(opts, key, field, in)
	}
	return j, nil
}

// FieldIndexes returns the positions in the input table in of the fields option key lists,
// in order. Every missing field is named in the error (FieldNotFound or FieldsNotFound).
func FieldIndexes(opts *config.Options, key string, fields []string, in *catalog.Table) ([]int, error) {
	idx := make([]int, len(fields))
	var missing []string
	for i, f := range fields {
		if idx[i] = in.ColumnIndex(f); idx[i] < 0 {
			missing = append(missing, f)
		}
	}
	switch len(missing) {
	case 0:
		return idx, nil
	case 1:
		return nil, FieldNotFound(opts, key, missing[0], in)
	}
	return nil, FieldsNotFound(opts, key, missing, in)
}

// OneOf reads a pair of mutually exclusive list options (include and exclude) of which
// exactly one must be set: it returns the key that is set, its list, and whether it is the
// include one. Setting both, or neither, is an error naming the options.
func OneOf(opts *config.Options, inKey string, in []string, exKey string, ex []string) (key string, list []string, include bool, err error) {
	hasIn, hasEx := opts.Has(inKey), opts.Has(exKey)
	switch {
	case hasIn && hasEx:
		return "", nil, false, opts.Errorf(exKey, "%s and %s are mutually exclusive; set only one", inKey, exKey)
	case hasIn:
		return inKey, in, true, nil
	case hasEx:
		return exKey, ex, false, nil
	}
	return "", nil, false, opts.Errorf("", "set one of %s and %s", inKey, exKey)
}

// RowError is the error for a row that Router.Row refused: one of a table the transform
// was not built for, or one whose field count does not match its table.
func (r *Router) RowError(where string, rw *row.Row) error {
	k := r.Route(rw.Table)
	if k < 0 {
		return UnknownTable(where, rw.Table)
	}
	return WidthError(where, rw, r.widths[k])
}
