package row

import "github.com/strait-dev/strait/types"

// Equal compares two values deeply: same type tag and same content. Decimals compare by
// numeric value whatever their scale; floats by bits (NaN equals NaN).
func Equal(a, b Value) bool {
	if a.T != b.T {
		return false
	}
	switch a.T {
	case types.Null:
		return true
	case types.String, types.Bytes:
		return a.S == b.S
	case types.Decimal:
		return CompareDecimal(a, b) == 0
	case types.Array, types.Row:
		return equalValues(a.Fields(), b.Fields())
	case types.Map:
		ma, mb := a.Map(), b.Map()
		if len(ma.Keys) != len(mb.Keys) {
			return false
		}
		for i := range ma.Keys {
			j := indexOfKey(mb, ma.Keys[i])
			if j < 0 || !Equal(ma.Vals[i], mb.Vals[j]) {
				return false
			}
		}
		return true
	}
	return a.I == b.I
}

// Put sets the value of key k: it replaces the value of a key Equal to k, or appends the
// pair.
func (m *MapValue) Put(k, val Value) {
	if i := indexOfKey(m, k); i >= 0 {
		m.Vals[i] = val
		return
	}
	m.Keys = append(m.Keys, k)
	m.Vals = append(m.Vals, val)
}

func indexOfKey(m *MapValue, k Value) int {
	for i := range m.Keys {
		if Equal(m.Keys[i], k) {
			return i
		}
	}
	return -1
}

func equalValues(a, b []Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
