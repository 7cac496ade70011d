// Package xform holds what Strait's row transforms share: routing rows of several input
// tables to their per-table plan, deriving output tables the way SeaTunnel's transforms do,
// moving values between batches and reading the text form of a value.
package xform

import (
	"fmt"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// Inputs returns the transform's input tables, failing when there are none.
func Inputs(ctx *connector.TransformContext) ([]*catalog.Table, error) {
	if ctx == nil || ctx.Options == nil {
		return nil, fmt.Errorf("transform: no options given")
	}
	if len(ctx.Inputs) == 0 {
		return nil, &config.Error{Where: ctx.Options.Where(), Msg: "the transform has no input table"}
	}
	for i, t := range ctx.Inputs {
		if t == nil {
			return nil, &config.Error{Where: ctx.Options.Where(), Msg: fmt.Sprintf("input table %d is missing", i)}
		}
	}
	return ctx.Inputs, nil
}

// FieldNotFound is the error for an option naming a field the input table lacks.
func FieldNotFound(opts *config.Options, key, field string, t *catalog.Table) error {
	return opts.Errorf(key, "field %q is not in the input table %s (its fields: %s)", field, tableName(t), columnNames(t))
}

// FieldsNotFound is the error for an option naming several fields the input table lacks.
func FieldsNotFound(opts *config.Options, key string, fields []string, t *catalog.Table) error {
	q := make([]string, len(fields))
	for i, f := range fields {
		q[i] = fmt.Sprintf("%q", f)
	}
	return opts.Errorf(key, "fields %s are not in the input table %s (its fields: %s)", strings.Join(q, ", "), tableName(t), columnNames(t))
}

func tableName(t *catalog.Table) string {
	if id := t.ID(); id != "" {
		return id
	}
	return "(unnamed)"
}

func columnNames(t *catalog.Table) string {
	if len(t.Columns) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name)
	}
	return b.String()
}

// Router finds the plan of a row's table. With one input every row takes plan 0, whatever
// its table id, as SeaTunnel's single-table transforms do; with several the table id picks
// the plan, the last hit being tried first so a run of rows of one table costs one compare.
type Router struct {
	ids    []string
	widths []int // the tables' field counts
	last   int
}

// NewRouter routes rows of the given tables, in order.
func NewRouter(tables []*catalog.Table) *Router {
	r := &Router{ids: make([]string, len(tables)), widths: make([]int, len(tables))}
	for i, t := range tables {
		r.ids[i] = t.ID()
		r.widths[i] = len(t.Columns)
	}
	return r
}

// Row returns the index of the row's table, and false when the row belongs to none of the
// tables or its field count is not its table's (RowError says which). It is small enough to
// be inlined into the transforms' row loops.
func (r *Router) Row(rw *row.Row) (int, bool) {
	k := 0
	if len(r.ids) > 1 {
		k = r.Route(rw.Table)
	}
	return k, k >= 0 && len(rw.Fields) == r.widths[k]
}

// Route returns the index of the table, or -1 when the row belongs to none of them.
func (r *Router) Route(table string) int {
	if len(r.ids) == 1 {
		return 0
	}
	if r.ids[r.last] == table {
		return r.last
	}
	for i, id := range r.ids {
		if id == table {
			r.last = i
			return i
		}
	}
	return -1
}

// UnknownTable is the error for a row of a table the transform was not built for.
func UnknownTable(where, table string) error {
	return fmt.Errorf("%s: received a row of table %q, which is not one of its input tables", where, table)
}

// WithColumns derives an output table the way SeaTunnel's field-adding transforms do: each
// column replaces the input column of the same name in place (taking the new column's type
// when it differs, and keeping the rest of the old column) or is appended. The primary key and
// constraint keys are kept. idx gives each column's position in the output.
func WithColumns(in *catalog.Table, cols []catalog.Column) (out *catalog.Table, idx []int) {
	out = in.Copy()
	idx = make([]int, len(cols))
	for i, c := range cols {
		j := out.ColumnIndex(c.Name)
		if j < 0 {
			out.Columns = append(out.Columns, c)
			idx[i] = len(out.Columns) - 1
			continue
		}
		if !out.Columns[j].Type.Equal(c.Type) {
			out.Columns[j].Type = c.Type
		}
		idx[i] = j
	}
	return out, idx
}

// Project derives the output table of a projection: the input columns at idx, named names,
// in that order. The primary key and each constraint key survive when every column they name
// is among the output names, as in SeaTunnel.
func Project(in *catalog.Table, idx []int, names []string) *catalog.Table {
	out := in.Copy()
	out.Columns = make([]catalog.Column, len(idx))
	for i, j := range idx {
		c := in.Columns[j]
		c.Name = names[i]
		out.Columns[i] = c
	}
	out.KeepPresentKeys()
	return out
}

// Identity reports whether idx picks every one of width fields in order.
func Identity(idx []int, width int) bool {
	if len(idx) != width {
		return false
	}
	for i, j := range idx {
		if i != j {
			return false
		}
	}
	return true
}

// Move returns v made independent of the batch it came from: nested arrays, maps and rows
// may live in that batch's arena, which is reused once the batch is released, so their
// element slices are copied. Scalars, strings and decimals are returned as they are (Strait
// never changes them in place).
func Move(v row.Value) row.Value {
	switch v.T {
	case types.Array, types.Row:
		src, ok := v.X.([]row.Value)
		if !ok || src == nil {
			return v
		}
		dst := make([]row.Value, len(src))
		MoveAll(dst, src)
		v.X = dst
	case types.Map:
		m, ok := v.X.(*row.MapValue)
		if !ok || m == nil {
			return v
		}
		nm := &row.MapValue{Keys: make([]row.Value, len(m.Keys)), Vals: make([]row.Value, len(m.Vals))}
		MoveAll(nm.Keys, m.Keys)
		MoveAll(nm.Vals, m.Vals)
		v.X = nm
	}
	return v
}

// firstComposite is the first of the kinds whose values hold nested slices (array, map,
// row come last among the kinds).
const firstComposite = types.Array

// MoveAll copies src into dst with Move applied to composite values.
func MoveAll(dst, src []row.Value) {
	for i := range src {
		v := src[i]
		if v.T >= firstComposite {
			v = Move(v)
		}
		dst[i] = v
	}
}

// AppendText appends the text of a value as SeaTunnel's transforms see it (Java's
// toString of the value): the text form Strait prints everywhere.
func AppendText(buf []byte, v row.Value) []byte { return row.AppendText(buf, v) }

// Clip shortens a value shown in an error message.
func Clip(s string) string {
	const max = 256
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("... (%d bytes)", len(s))
}

// A note on errors: when Process fails it returns the error and drops the batch without
// releasing it. The batch is then garbage, not pooled memory that two owners could share:
// the caller may release it or not, and neither does harm.

// WidthError is the error for a row whose field count does not match its table.
func WidthError(where string, r *row.Row, want int) error {
	return fmt.Errorf("%s: a row of table %q has %d fields, but its table has %d", where, r.Table, len(r.Fields), want)
}
