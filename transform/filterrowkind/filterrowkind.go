// Package filterrowkind is the FilterRowKind transform: it keeps or drops rows by their kind
// (INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE), as SeaTunnel's FilterRowKind does. Exactly one
// of include_kinds and exclude_kinds is set, to a non-empty list. The table is unchanged and
// batches are filtered in place. A change of an input table's columns passes through.
package filterrowkind

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
const Name = "FilterRowKind"

func init() {
	xform.Register(Name, "Keeps or drops rows by their kind (INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE).", New)
}

// Config is FilterRowKind's options; exactly one of the two is set.
type Config struct {
	Include []string `opt:"include_kinds" doc:"the row kinds to keep: INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE, in any case or as +I, -U, +U, -D; set this or exclude_kinds"`
	Exclude []string `opt:"exclude_kinds" doc:"the row kinds to drop, written as for include_kinds; set this or include_kinds"`
}

// Transform is a configured FilterRowKind.
type Transform struct {
	xform.Base
	keep [4]bool // by row.Kind
}

// New builds a FilterRowKind from its options and its input tables.
func New(o *config.Options, inputs []*catalog.Table, c *Config) (*Transform, error) {
	key, names, include, err := xform.OneOf(o, "include_kinds", c.Include, "exclude_kinds", c.Exclude)
	if err != nil {
		return nil, err
	}
	kinds, err := readKinds(o, key, names)
	if err != nil {
		return nil, err
	}
	t := &Transform{}
	for k := range t.keep {
		t.keep[k] = kinds[k] == include
	}
	for _, in := range inputs {
		t.Tables = append(t.Tables, in.Copy())
	}
	return t, nil
}

func readKinds(o *config.Options, key string, names []string) ([4]bool, error) {
	var set [4]bool
	if len(names) == 0 {
		return set, o.Errorf(key, "list at least one row kind (INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE)")
	}
	for i, n := range names {
		k, ok := row.ParseKind(n)
		if !ok {
			return set, o.Errorf(fmt.Sprintf("%s[%d]", key, i), "unknown row kind %q; expected INSERT, UPDATE_BEFORE, UPDATE_AFTER or DELETE", n)
		}
		set[k] = true
	}
	return set, nil
}

// ApplySchemaChange passes a change of an input table's columns on as it is: the transform
// keeps every column and looks at none.
func (t *Transform) ApplySchemaChange(_ context.Context, c *connector.SchemaChange) (*connector.SchemaChange, error) {
	return c, nil
}

// Keeps reports whether rows of kind k pass.
func (t *Transform) Keeps(k row.Kind) bool { return int(k) < len(t.keep) && t.keep[k] }

// Process drops the filtered rows from the batch in place.
func (t *Transform) Process(_ context.Context, in *row.Batch) (*row.Batch, error) {
	rows := in.Rows
	n := 0
	for i := range rows {
		if k := rows[i].Kind; int(k) < len(t.keep) && t.keep[k] {
			if n != i {
				rows[n] = rows[i]
			}
			n++
		}
	}
	for i := n; i < len(rows); i++ {
		rows[i] = row.Row{}
	}
	in.Rows = rows[:n]
	return in, nil
}
