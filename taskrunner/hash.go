package taskrunner

import (
	"math"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/planvertex"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// hasher routes rows by the hash of their key fields, so rows with equal keys always reach
// the same consumer subtask.
type hasher struct {
	keys map[string][]int // table id -> key field positions
	buf  []byte
	// the tables and their key fields' names, which schema changes change (schemachange.go)
	tables map[string]*catalog.Table
	names  map[string][]string
}

func newHasher(producer *planvertex.Vertex, fields []string) *hasher {
	h := &hasher{keys: map[string][]int{}, tables: map[string]*catalog.Table{}, names: map[string][]string{}}
	for _, t := range producer.Tables {
		idx := make([]int, 0, len(fields))
		for _, f := range fields {
			idx = append(idx, t.ColumnIndex(f)) // the planner checked every field exists
		}
		h.keys[t.ID()] = idx
		h.tables[t.ID()], h.names[t.ID()] = t, fields
	}
	return h
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func mix(h uint64, b byte) uint64 { return (h ^ uint64(b)) * fnvPrime }

func mixInt(h uint64, v uint64) uint64 {
	for i := 0; i < 8; i++ {
		h = mix(h, byte(v>>(8*i)))
	}
	return h
}

func (h *hasher) rowHash(r *row.Row) uint64 {
	idx, ok := h.keys[r.Table]
	if !ok {
		for _, v := range h.keys { // a table the plan did not name: same field layout
			idx = v
			break
		}
	}
	sum := uint64(fnvOffset)
	for _, i := range idx {
		if i < 0 || i >= len(r.Fields) {
			continue
		}
		v := r.Fields[i]
		sum = mix(sum, byte(v.T))
		switch v.T {
		case types.Null:
		case types.String, types.Bytes:
			for j := 0; j < len(v.S); j++ {
				sum = mix(sum, v.S[j])
			}
		case types.Float:
			sum = mixInt(sum, uint64(math.Float32bits(v.Float32())))
		case types.Decimal, types.Array, types.Map, types.Row:
			h.buf = row.AppendText(h.buf[:0], v)
			for _, c := range h.buf {
				sum = mix(sum, c)
			}
		default:
			sum = mixInt(sum, uint64(v.I))
		}
	}
	return sum
}

// split distributes a batch's rows into one new batch per target (nil where none goes).
// Composite values are copied deeply: the source batch is released after the split.
func (h *hasher) split(b *row.Batch, n int) []*row.Batch {
	parts := make([]*row.Batch, n)
	for i := range b.Rows {
		r := &b.Rows[i]
		t := int(h.rowHash(r) % uint64(n))
		if parts[t] == nil {
			parts[t] = row.NewBatch(b.Cap())
		}
		nr := parts[t].Add(r.Kind, r.Table, len(r.Fields))
		for j, v := range r.Fields {
			nr.Fields[j] = v.Clone()
		}
	}
	return parts
}
