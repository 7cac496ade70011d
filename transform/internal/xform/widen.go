package xform

import (
	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/row"
)

// WidenPlan is how rows of one input table become output rows that keep the input fields
// and set some more: Idx[i] is where the i-th new value goes (past InWidth when appended,
// over an input field otherwise).
type WidenPlan struct {
	InWidth  int
	OutWidth int
	Idx      []int
}

// Widen builds the output rows of transforms that add (or overwrite) fields: Copy, Split,
// JsonPath, RowKindExtractor. When no table grows, rows are rewritten in place; otherwise
// they go to a new pooled batch and the input batch is released.
type Widen struct {
	Where   string
	Router  *Router
	Plans   []WidenPlan
	inPlace bool
}

// NewWiden derives each output table with WithColumns and prepares the plans.
func NewWiden(where string, inputs []*catalog.Table, cols [][]catalog.Column) (*Widen, []*catalog.Table) {
	w := &Widen{Where: where, Router: NewRouter(inputs), inPlace: true}
	outs := make([]*catalog.Table, len(inputs))
	for k, in := range inputs {
		out, idx := WithColumns(in, cols[k])
		outs[k] = out
		p := WidenPlan{InWidth: len(in.Columns), OutWidth: len(out.Columns), Idx: idx}
		if p.OutWidth != p.InWidth {
			w.inPlace = false
		}
		w.Plans = append(w.Plans, p)
	}
	return w, outs
}

// Builder collects the output rows of one batch.
type Builder struct {
	w       *Widen
	in, out *row.Batch
	inPlace bool
	n       int
}

// Begin starts the output of the batch in.
func (w *Widen) Begin(in *row.Batch) Builder {
	if w.inPlace {
		return Builder{w: w, in: in, out: in, inPlace: true}
	}
	return Builder{w: w, in: in, out: row.NewBatch(in.Cap())}
}

// Route returns the plan of the input row r and the index of its table. A row of a table
// the transform was not built for, or of the wrong width, drops the output batch and
// returns the error.
func (b *Builder) Route(r *row.Row) (*WidenPlan, int, error) {
	k, ok := b.w.Router.Row(r)
	if !ok {
		b.Fail()
		return nil, -1, b.w.Router.RowError(b.w.Where, r)
	}
	return &b.w.Plans[k], k, nil
}

// Row emits the input row r (which must be in.Rows[i] for increasing i; rows not passed are
// dropped) with the given kind and returns the output row, whose first p.InWidth fields hold
// r's fields; the caller sets the new ones.
func (b *Builder) Row(r *row.Row, kind row.Kind, p *WidenPlan) *row.Row {
	if b.inPlace {
		o := &b.in.Rows[b.n]
		if o != r {
			*o = *r
		}
		o.Kind = kind
		b.n++
		return o
	}
	o := b.out.Add(kind, r.Table, p.OutWidth)
	MoveAll(o.Fields[:p.InWidth], r.Fields[:p.InWidth])
	return o
}

// Done returns the output batch, releasing the input when it is not the output.
func (b *Builder) Done() *row.Batch {
	if b.inPlace {
		rows := b.in.Rows
		for i := b.n; i < len(rows); i++ {
			rows[i] = row.Row{}
		}
		b.in.Rows = rows[:b.n]
		return b.in
	}
	b.in.Release()
	return b.out
}

// Fail drops the output batch after an error (the input is left to the garbage collector).
func (b *Builder) Fail() {
	if !b.inPlace {
		b.out.Release()
	}
}
