package xform

import (
	"github.com/strait-dev/strait/row"
)

// Projection picks input fields by position, per input table. Filter and FieldMapper use it.
type Projection struct {
	Where  string
	Router *Router
	Idx    [][]int // per table: the input position of each output field
	same   bool    // every table keeps all its fields in order: nothing to do
}

// NewProjection prepares a projection of the tables the router routes to.
func NewProjection(where string, router *Router, idx [][]int) *Projection {
	p := &Projection{Where: where, Router: router, Idx: idx, same: true}
	for k := range idx {
		if !Identity(idx[k], router.widths[k]) {
			p.same = false
		}
	}
	return p
}

// Process returns in itself when nothing changes, else a new pooled batch of the picked
// fields, releasing in.
func (p *Projection) Process(in *row.Batch) (*row.Batch, error) {
	if p.same {
		return in, nil
	}
	out := row.NewBatch(in.Cap())
	for i := range in.Rows {
		r := &in.Rows[i]
		k, ok := p.Router.Row(r)
		if !ok {
			out.Release()
			return nil, p.Router.RowError(p.Where, r)
		}
		idx := p.Idx[k]
		o := out.Add(r.Kind, r.Table, len(idx))
		for j, x := range idx {
			v := r.Fields[x]
			if v.T >= firstComposite {
				v = Move(v)
			}
			o.Fields[j] = v
		}
	}
	in.Release()
	return out, nil
}
