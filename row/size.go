package row

import "github.com/strait-dev/strait/types"

// Size estimates the bytes a value takes as data, the way SeaTunnel's
// SeaTunnelRow.getBytesSize counts them for read_limit.bytes_per_second: the text or bytes
// of strings, the width of numbers, fixed sizes for decimals and times, and the sum of the
// parts of arrays, maps and rows.
func (v *Value) Size() int {
	switch v.T {
	case types.Null:
		return 0
	case types.String, types.Bytes:
		return len(v.S)
	case types.Boolean, types.TinyInt:
		return 1
	case types.SmallInt:
		return 2
	case types.Int, types.Float:
		return 4
	case types.BigInt, types.Double:
		return 8
	case types.Decimal:
		return 36
	case types.Date:
		return 24
	case types.Time:
		return 12
	case types.Timestamp:
		return 48
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

// Size is the sum of the row's field sizes (see Value.Size).
func (r *Row) Size() int {
	n := 0
	for i := range r.Fields {
		n += r.Fields[i].Size()
	}
	return n
}
