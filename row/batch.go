package row

import (
	"sync"

	"github.com/strait-dev/strait/types"
)

// Kind is the change a row carries.
type Kind uint8

// The four row kinds, numbered as SeaTunnel serialises them.
const (
	Insert Kind = iota
	UpdateBefore
	UpdateAfter
	Delete
)

var kindNames = [...]string{"INSERT", "UPDATE_BEFORE", "UPDATE_AFTER", "DELETE"}
var kindShort = [...]string{"+I", "-U", "+U", "-D"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "UNKNOWN"
}

// Short is the changelog short form: +I, -U, +U, -D.
func (k Kind) Short() string {
	if int(k) < len(kindShort) {
		return kindShort[k]
	}
	return "?"
}

// ParseKind reads a kind name in any case (INSERT, update_after) or its short form (+I).
func ParseKind(s string) (Kind, bool) {
	for i, n := range kindNames {
		if equalFold(s, n) || s == kindShort[i] {
			return Kind(i), true
		}
	}
	return 0, false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		ca, cb := a[i], b[i]
		if 'a' <= ca && ca <= 'z' {
			ca -= 'a' - 'A'
		}
		if 'a' <= cb && cb <= 'z' {
			cb -= 'a' - 'A'
		}
		if ca != cb {
			return false
		}
	}
	return true
}

// Row is one record: its kind, the full name of the table it belongs to, and its fields in
// the order of that table's row type.
type Row struct {
	Kind   Kind
	Table  string
	Fields []Value
}

// Clone returns a deep copy of the row that shares nothing with its batch.
func (r *Row) Clone() Row {
	return Row{Kind: r.Kind, Table: r.Table, Fields: cloneValues(r.Fields)}
}

// DefaultBatchSize is the number of rows operators put in one batch.
const DefaultBatchSize = 1024

// Batch is a run of rows passed between operators. Field values of all rows live in a few
// large chunks owned by the batch, so filling a batch allocates nothing once it is warm.
// A batch and its values belong to whoever holds it; an operator that keeps rows past the
// call that handed it the batch must Clone them.
type Batch struct {
	Rows []Row
	// Encoded holds, for a row a reader added with AddEncoded, the record it was read from,
	// when that record is already byte for byte what the sink downstream would write for
	// the row (EncodedReader, EncodedWriter): such a row has no Fields, and only that sink
	// sees it. Entries past its length, and nil entries, are rows known by their fields.
	Encoded [][]byte
	chunk   []Value   // current arena chunk; rows take Fields from its free tail
	extra   [][]Value // chunks filled before the current one, kept until Reset
	target  int
}

var pool = sync.Pool{New: func() any { return &Batch{} }}

// NewBatch returns an empty batch from the pool, sized for capacity rows.
func NewBatch(capacity int) *Batch {
	b := pool.Get().(*Batch)
	if capacity <= 0 {
		capacity = DefaultBatchSize
	}
	b.target = capacity
	if cap(b.Rows) < capacity {
		b.Rows = make([]Row, 0, capacity)
	}
	return b
}

// Release clears the batch and returns it to the pool. The caller must not touch it again.
func (b *Batch) Release() {
	if b == nil {
		return
	}
	b.Reset()
	pool.Put(b)
}

// Len is the number of rows.
func (b *Batch) Len() int { return len(b.Rows) }

// Cap is the number of rows the batch is meant to hold; Full reports reaching it.
func (b *Batch) Cap() int { return b.target }

// Full reports whether the batch holds Cap rows or more.
func (b *Batch) Full() bool { return len(b.Rows) >= b.target }

// Reset empties the batch, keeping its memory.
func (b *Batch) Reset() {
	for i := range b.Rows {
		b.Rows[i] = Row{}
	}
	b.Rows = b.Rows[:0]
	if b.Encoded != nil {
		clear(b.Encoded)
		b.Encoded = b.Encoded[:0]
	}
	if len(b.extra) > 0 {
		// keep the largest chunk for the next fill
		for _, c := range b.extra {
			if cap(c) > cap(b.chunk) {
				b.chunk = c
			}
		}
		clear(b.extra)
		b.extra = b.extra[:0]
	}
	clear(b.chunk[:len(b.chunk)])
	b.chunk = b.chunk[:0]
}

// Values returns n zeroed values from the batch's arena, valid until Reset.
func (b *Batch) Values(n int) []Value {
	if len(b.chunk)+n > cap(b.chunk) {
		if cap(b.chunk) > 0 {
			b.extra = append(b.extra, b.chunk)
		}
		size := b.target * n
		if size < n {
			size = n
		}
		if size < 64 {
			size = 64
		}
		b.chunk = make([]Value, 0, size)
	}
	start := len(b.chunk)
	b.chunk = b.chunk[:start+n]
	return b.chunk[start : start+n : start+n]
}

// Add appends a row of width fields and returns it for the caller to fill.
func (b *Batch) Add(kind Kind, table string, width int) *Row {
	n := len(b.Rows)
	if n < cap(b.Rows) {
		b.Rows = b.Rows[:n+1] // fill the row in place: no Row built and copied
	} else {
		b.Rows = append(b.Rows, Row{})
	}
	r := &b.Rows[n]
	r.Kind, r.Table, r.Fields = kind, table, b.Values(width)
	return r
}

// AddEncoded appends a row known only by its encoded form enc, which the batch keeps (it
// is not copied): a row without fields, for the sink that writes rows in that form.
func (b *Batch) AddEncoded(kind Kind, table string, enc []byte) {
	n := len(b.Rows)
	if len(b.Encoded) > n {
		b.Encoded = b.Encoded[:n] // rows were cut off after encoded ones
	}
	if b.Encoded == nil {
		b.Encoded = make([][]byte, 0, max(b.target, n+1))
	}
	for len(b.Encoded) < n {
		b.Encoded = append(b.Encoded, nil)
	}
	b.Rows = append(b.Rows, Row{Kind: kind, Table: table})
	b.Encoded = append(b.Encoded, enc)
}

// EncodedOf is row i's encoded form when it has one (AddEncoded), else nil.
func (b *Batch) EncodedOf(i int) []byte {
	if i < len(b.Encoded) && i < len(b.Rows) {
		return b.Encoded[i]
	}
	return nil
}

// RowSize is row i's size as Row.Size counts it, or the length of its encoded form when it
// has no fields.
func (b *Batch) RowSize(i int) int {
	if r := &b.Rows[i]; r.Fields != nil || i >= len(b.Encoded) {
		return r.Size()
	}
	return len(b.Encoded[i])
}

// AddRow appends a copy of r's header and fields (values are copied shallowly).
func (b *Batch) AddRow(r *Row) *Row {
	n := b.Add(r.Kind, r.Table, len(r.Fields))
	copy(n.Fields, r.Fields)
	return n
}

// Clone returns a new batch holding deep copies of b's rows.
func (b *Batch) Clone() *Batch {
	c := NewBatch(b.target)
	for i := range b.Rows {
		r := &b.Rows[i]
		if enc := b.EncodedOf(i); enc != nil {
			c.AddEncoded(r.Kind, r.Table, append([]byte(nil), enc...))
			continue
		}
		n := c.Add(r.Kind, r.Table, len(r.Fields))
		for j := range r.Fields {
			n.Fields[j] = r.Fields[j].Clone()
		}
	}
	return c
}

// Filter keeps the rows for which keep returns true, in order, in place.
func (b *Batch) Filter(keep func(*Row) bool) {
	n := 0
	for i := range b.Rows {
		if keep(&b.Rows[i]) {
			if n != i {
				b.Rows[n] = b.Rows[i]
				if n < len(b.Encoded) {
					b.Encoded[n] = b.EncodedOf(i)
				}
			}
			n++
		}
	}
	for i := n; i < len(b.Rows); i++ {
		b.Rows[i] = Row{}
	}
	b.Rows = b.Rows[:n]
	if len(b.Encoded) > n {
		clear(b.Encoded[n:])
		b.Encoded = b.Encoded[:n]
	}
}

// TypeOf returns the runtime type kind of a value; a helper for type checks.
func TypeOf(v Value) types.Kind { return v.T }
