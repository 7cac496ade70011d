package row

import "github.com/strait-dev/strait/types"

// Size estimates the bytes a value takes as data, the way SeaTunnel's
// SeaTunnelRow.getBytesSize counts them for read_limit.bytes_per_second: the text or bytes
// of strings, the width of numbers, fixed sizes for decimals and times, and the sum of the
// parts of arrays, maps and rows.
func (v *Value) Size() int {
	if n := fixedSize[v.T]; n >= 0 {
		return int(n)
	}
	switch v.T {
	case types.String, types.Bytes:
		return len(v.S)
	case types.Array, types.Row:
		n := 0
		for i, e := 0, v.Elems(); i < len(e); i++ {
			n += e[i].Size()
		}
		return n
	case types.Map:
		n := 0
		if m := v.Map(); m != nil {
			for i := range m.Keys {
				n += m.Keys[i].Size() + m.Vals[i].Size()
			}
		}
		return n
	}
	return 8
}

// fixedSize is the size of a value of each kind of fixed size, -1 for the others: one
// look-up per value on the data path, where the meters count every row.
var fixedSize = func() (t [256]int8) {
	for i := range t {
		t[i] = 8
	}
	for k, n := range map[types.Kind]int8{
		types.Null: 0, types.Boolean: 1, types.TinyInt: 1, types.SmallInt: 2, types.Int: 4, types.Float: 4,
		types.BigInt: 8, types.Double: 8, types.Decimal: 36, types.Date: 24, types.Time: 12, types.Timestamp: 48,
		types.String: -1, types.Bytes: -1, types.Array: -1, types.Row: -1, types.Map: -1,
	} {
		t[k] = n
	}
	return t
}()

// Size is the sum of the row's field sizes (see Value.Size).
func (r *Row) Size() int {
	n := 0
	for i := range r.Fields {
		n += r.Fields[i].Size()
	}
	return n
}
