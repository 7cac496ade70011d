package xform

import (
	"github.com/strait-dev/strait/row"
)

// Projection picks input fields by position, per input table. Filter and FieldMapper use it.
type Projection struct {
	Where  string
	Router *Router
	Idx    [][]int // per table: the input position of each output field
	widths []int
	same   bool // every table keeps all its fields in order: nothing to do
}

// NewProjection prepares a projection; widths are the input tables' field counts.
func NewProjection(where string, router *Router, idx [][]int, widths []int) *Projection {
	p := &Projection{Where: where, Router: router, Idx: idx, widths: widths, same: true}
	for k := range idx {
		if !Identity(idx[k], widths[k]) {
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
	idx := p.Idx[0]
	width := p.widths[0]
	for i := range in.Rows {
		r := &in.Rows[i]
		if len(p.Idx) > 1 {
			k := p.Router.Route(r.Table)
			if k < 0 {
				out.Release()
				return nil, UnknownTable(p.Where, r.Table)
			}
			idx, width = p.Idx[k], p.widths[k]
		}
		if len(r.Fields) != width {
			out.Release()
			return nil, WidthError(p.Where, r, width)
		}
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
