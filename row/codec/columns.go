package codec

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// The column layout; see the package comment.

// slotSize is the size in bytes of one slot of a fixed-width column of each kind, 0 for the
// kinds of variable width.
var slotSize = [types.Row + 1]int{
	types.Boolean:   1,
	types.TinyInt:   1,
	types.SmallInt:  2,
	types.Int:       4,
	types.Float:     4,
	types.BigInt:    8,
	types.Double:    8,
	types.Date:      8,
	types.Time:      8,
	types.Timestamp: 8,
}

// kindsPerRow is the kinds byte announcing one kind byte per row.
const kindsPerRow = 4

// ---- encoding ----

// appendColumns writes rows in the column layout, or returns dst unchanged and false when the
// rows do not fit it: no rows, rows without fields, several tables or widths, a column with
// values of two types, an integer out of its type's range or an unknown type tag (the row
// layout then writes them as they are, and the decoder reports what it rejects).
func (e *encoder) appendColumns(dst []byte, rows []row.Row) ([]byte, bool) {
	n := len(rows)
	if n == 0 {
		return dst, false
	}
	table, w := rows[0].Table, len(rows[0].Fields)
	if w == 0 {
		return dst, false
	}
	kind := rows[0].Kind & 3
	var diff row.Kind
	tp := unsafe.StringData(table)
	for i := range rows {
		r := &rows[i]
		// Rows of one table nearly always share the name's bytes: compare pointers first.
		if len(r.Fields) != w || len(r.Table) != len(table) || unsafe.StringData(r.Table) != tp && r.Table != table {
			return dst, false
		}
		diff |= r.Kind ^ kind
	}
	mixed := diff&3 != 0

	// Room for the header, the slots and the area, guessed from the first row, so that dst
	// grows once.
	need := 3*binary.MaxVarintLen64 + 10 + len(table)
	if mixed {
		need += n
	}
	for j := range rows[0].Fields {
		v := &rows[0].Fields[j]
		if v.T <= types.Row && slotSize[v.T] > 0 {
			need += 2 + n*slotSize[v.T]
		} else {
			need += 2 + n*(2+len(v.S))
		}
	}
	start := len(dst)
	dst = slices.Grow(dst, need)

	dst = append(dst, FormatColumns)
	dst = appendUvarint(dst, uint64(n))
	dst = appendUvarint(dst, uint64(w))
	lenAt := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
	if mixed {
		dst = append(dst, kindsPerRow)
		for i := range rows {
			dst = append(dst, byte(rows[i].Kind&3))
		}
	} else {
		dst = append(dst, byte(kind))
	}
	e.area = append(e.area, table...)
	for j := 0; j < w; j++ {
		var ok bool
		if dst, ok = e.appendColumn(dst, rows, j); !ok {
			e.area = e.area[:0]
			return dst[:start], false
		}
	}
	binary.LittleEndian.PutUint64(dst[lenAt:], uint64(len(dst)-lenAt-8))
	dst = appendUvarint(dst, uint64(len(table)))
	return append(dst, e.area...), true
}

// appendColumn writes the j-th field of every row as one column; false if those values do not
// make a column.
func (e *encoder) appendColumn(dst []byte, rows []row.Row, j int) ([]byte, bool) {
	start, areaLen := len(dst), len(e.area)
	// The common case first: no nulls, so every value has the first one's type.
	if tag := rows[0].Fields[j].T; tag != types.Null {
		dst = append(dst, byte(tag), 0)
		if out, ok := e.appendSlots(dst, rows, j, tag, false); ok {
			return out, true
		}
		dst, e.area = dst[:start], e.area[:areaLen]
	}
	// Nulls, or a second type: find the column's one type, if it has one.
	tag, nulls := types.Null, false
	for i := range rows {
		switch t := rows[i].Fields[j].T; {
		case t == types.Null:
			nulls = true
		case tag == types.Null:
			tag = t
		case t != tag:
			return dst, false
		}
	}
	if tag == types.Null {
		dst = append(dst, byte(types.Null))
		return append(dst, make([]byte, len(rows))...), true // not an allocation: appended in place
	}
	if !nulls {
		// all of one type, yet the fast path refused: a value it cannot write
		return dst, false
	}
	dst = append(dst, byte(tag), 1)
	at := len(dst)
	dst = append(dst, make([]byte, (len(rows)+7)/8)...)
	bitmap := dst[at:]
	for i := range rows {
		if rows[i].Fields[j].T == types.Null {
			bitmap[i>>3] |= 1 << (i & 7)
		}
	}
	return e.appendSlots(dst, rows, j, tag, true)
}

// appendSlots writes one slot per row for a column of type tag. A value of another type fails
// unless nulls is set, when it is a null (the caller has checked) and gets a zero slot.
func (e *encoder) appendSlots(dst []byte, rows []row.Row, j int, tag types.Kind, nulls bool) ([]byte, bool) {
	n := len(rows)
	if tag <= types.Row {
		if size := slotSize[tag]; size > 0 {
			at := len(dst)
			dst = slices.Grow(dst, n*size)[:at+n*size]
			return dst, fixedSlots(dst[at:], rows, j, tag, nulls)
		}
	}
	switch tag {
	case types.String, types.Bytes:
		// Four rows at a time, as fixedSlots; area stays in a register.
		dst = slices.Grow(dst, n)
		area := e.area
		i := 0
		for ; i+4 <= n; i += 4 {
			r := rows[i : i+4 : i+4]
			v0, v1, v2, v3 := &r[0].Fields[j], &r[1].Fields[j], &r[2].Fields[j], &r[3].Fields[j]
			if v0.T == tag && v1.T == tag && v2.T == tag && v3.T == tag {
				s0, s1, s2, s3 := v0.S, v1.S, v2.S, v3.S
				if len(s0)|len(s1)|len(s2)|len(s3) < 0x80 {
					dst = append(dst, byte(len(s0)), byte(len(s1)), byte(len(s2)), byte(len(s3)))
				} else {
					dst = appendUvarint(dst, uint64(len(s0)))
					dst = appendUvarint(dst, uint64(len(s1)))
					dst = appendUvarint(dst, uint64(len(s2)))
					dst = appendUvarint(dst, uint64(len(s3)))
				}
				area = append(area, s0...)
				area = append(area, s1...)
				area = append(area, s2...)
				area = append(area, s3...)
				continue
			}
			var ok bool
			if dst, area, ok = stringSlots(dst, area, r, j, tag, nulls); !ok {
				e.area = area
				return dst, false
			}
		}
		dst, area, ok := stringSlots(dst, area, rows[i:], j, tag, nulls)
		e.area = area
		return dst, ok
	case types.Decimal, types.Array, types.Map, types.Row:
		for i := range rows {
			v := &rows[i].Fields[j]
			if v.T != tag && !nulls {
				return dst, false
			}
			dst = e.appendValue(dst, v) // a null writes the null tag
		}
		return dst, true
	}
	return dst, false
}

// stringSlots writes the string slots of rows one by one, for appendSlots.
func stringSlots(dst, area []byte, rows []row.Row, j int, tag types.Kind, nulls bool) ([]byte, []byte, bool) {
	for i := range rows {
		v := &rows[i].Fields[j]
		if v.T != tag {
			if !nulls {
				return dst, area, false
			}
			dst = append(dst, 0)
			continue
		}
		dst = appendUvarint(dst, uint64(len(v.S)))
		area = append(area, v.S...)
	}
	return dst, area, true
}

// fixedSlots fills out, len(rows) slots of slotSize[tag] bytes each. The widest slots are
// written four rows at a time, which roughly halves the loop's cost per value.
func fixedSlots(out []byte, rows []row.Row, j int, tag types.Kind, nulls bool) bool {
	n := len(rows)
	switch slotSize[tag] {
	case 8:
		out = out[:8*n]
		i := 0
		for ; i+4 <= n; i += 4 {
			r := rows[i : i+4 : i+4]
			v0, v1, v2, v3 := &r[0].Fields[j], &r[1].Fields[j], &r[2].Fields[j], &r[3].Fields[j]
			o := out[8*i : 8*i+32 : 8*i+32]
			if v0.T == tag && v1.T == tag && v2.T == tag && v3.T == tag {
				binary.LittleEndian.PutUint64(o[0:], uint64(v0.I))
				binary.LittleEndian.PutUint64(o[8:], uint64(v1.I))
				binary.LittleEndian.PutUint64(o[16:], uint64(v2.I))
				binary.LittleEndian.PutUint64(o[24:], uint64(v3.I))
				continue
			}
			for k, v := range [4]*row.Value{v0, v1, v2, v3} {
				x, ok := slot(v, tag, nulls)
				if !ok {
					return false
				}
				binary.LittleEndian.PutUint64(o[8*k:], uint64(x))
			}
		}
		for ; i < n; i++ {
			x, ok := slot(&rows[i].Fields[j], tag, nulls)
			if !ok {
				return false
			}
			binary.LittleEndian.PutUint64(out[8*i:], uint64(x))
		}
	case 4:
		out = out[:4*n]
		i := 0
		for ; i+4 <= n; i += 4 {
			r := rows[i : i+4 : i+4]
			v0, v1, v2, v3 := &r[0].Fields[j], &r[1].Fields[j], &r[2].Fields[j], &r[3].Fields[j]
			o := out[4*i : 4*i+16 : 4*i+16]
			x0, x1, x2, x3 := v0.I, v1.I, v2.I, v3.I
			// An int out of range would wrap; the row layout carries it for the decoder to
			// reject. Floats keep their low 32 bits, as in the row layout.
			if v0.T == tag && v1.T == tag && v2.T == tag && v3.T == tag &&
				(tag != types.Int || x0 == int64(int32(x0)) && x1 == int64(int32(x1)) && x2 == int64(int32(x2)) && x3 == int64(int32(x3))) {
				binary.LittleEndian.PutUint32(o[0:], uint32(x0))
				binary.LittleEndian.PutUint32(o[4:], uint32(x1))
				binary.LittleEndian.PutUint32(o[8:], uint32(x2))
				binary.LittleEndian.PutUint32(o[12:], uint32(x3))
				continue
			}
			for k, v := range [4]*row.Value{v0, v1, v2, v3} {
				x, ok := slot(v, tag, nulls)
				if !ok || tag == types.Int && x != int64(int32(x)) {
					return false
				}
				binary.LittleEndian.PutUint32(o[4*k:], uint32(x))
			}
		}
		for ; i < n; i++ {
			x, ok := slot(&rows[i].Fields[j], tag, nulls)
			if !ok || tag == types.Int && x != int64(int32(x)) {
				return false
			}
			binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
		}
	case 2:
		out = out[:2*n]
		for i := range rows {
			x, ok := slot(&rows[i].Fields[j], tag, nulls)
			if !ok || x != int64(int16(x)) {
				return false
			}
			binary.LittleEndian.PutUint16(out[2*i:], uint16(x))
		}
	case 1:
		out = out[:n]
		for i := range rows {
			x, ok := slot(&rows[i].Fields[j], tag, nulls)
			if !ok {
				return false
			}
			if tag == types.Boolean && x != 0 {
				x = 1
			}
			out[i] = byte(x) // a tinyint keeps its low 8 bits, as in the row layout
		}
	}
	return true
}

// slot is what the slot of v holds in a column of type tag: v's integer, or 0 for a null when
// the column has nulls; false for any other value.
func slot(v *row.Value, tag types.Kind, nulls bool) (int64, bool) {
	switch {
	case v.T == tag:
		return v.I, true
	case nulls && v.T == types.Null:
		return 0, true
	}
	return 0, false
}

// ---- decoding ----

// columnBatch decodes a batch in the column layout.
func (d *decoder) columnBatch(src []byte, into *row.Batch) error {
	d.src, d.pos = src, 1
	nrows, err := d.length("row count", 1)
	if err != nil {
		return err
	}
	widthAt := d.pos
	w, err := d.length("column count", 1)
	if err != nil {
		return err
	}
	colsAt, colsEnd, err := d.section("columns")
	if err != nil {
		return err
	}
	colsLen := uint64(colsEnd - colsAt)
	// Every slot takes a byte: this bounds what the rows below allocate by the input.
	if w == 0 && nrows > 0 {
		return errorf(widthAt, "%d rows without columns", nrows)
	}
	if w > 0 && uint64(nrows) > colsLen/uint64(w) {
		return errorf(1, "%d rows of %d columns exceed the columns length %d", nrows, w, colsLen)
	}

	// The table and the string area, after the columns.
	d.pos = colsEnd
	tableLen, err := d.uvarint("table name length")
	if err != nil {
		return err
	}
	areaAt := d.pos
	if tableLen > uint64(len(src)-areaAt) {
		return errorf(areaAt, "table name (%d bytes) exceeds the string area (%d bytes)", tableLen, len(src)-areaAt)
	}
	if areaAt < len(src) {
		d.strs = string(src[areaAt:])
	}
	table := d.strs[:tableLen]
	d.spos = int(tableLen)

	// The row kinds.
	d.src, d.pos = src[:colsEnd], colsAt
	if d.pos >= colsEnd {
		return errorf(d.pos, "input ends before the row kinds")
	}
	mode := src[d.pos]
	d.pos++
	var kinds []byte
	switch {
	case mode < kindsPerRow:
	case mode == kindsPerRow:
		if nrows > colsEnd-d.pos {
			return errorf(d.pos, "input ends inside the row kinds")
		}
		kinds = src[d.pos : d.pos+nrows]
		for i, k := range kinds {
			if k > 3 {
				return errorf(d.pos+i, "row kind %d out of range", k)
			}
		}
		d.pos += nrows
	default:
		return errorf(d.pos-1, "row kinds byte %d out of range", mode)
	}

	// The rows, their fields zeroed, then the columns filled in. The rows are set field by
	// field: building each Row whole and copying it in costs a store-forwarding stall a row.
	orig := len(into.Rows)
	if need := orig + nrows; cap(into.Rows) < need {
		grown := make([]row.Row, orig, need)
		copy(grown, into.Rows)
		into.Rows = grown
	}
	into.Rows = into.Rows[:orig+nrows]
	rows := into.Rows[orig:]
	kind := row.Kind(mode)
	// The batch's arena allocates room for Cap rows of this width at once: take it only when
	// the input could fill it, so a corrupt width cannot inflate memory.
	if n := uint64(into.Cap()) * uint64(w); n <= colsLen || n <= 8192 {
		for i := range rows {
			r := &rows[i]
			if kinds != nil {
				kind = row.Kind(kinds[i])
			}
			r.Kind, r.Table, r.Fields = kind, table, into.Values(w)
		}
	} else {
		vals := make([]row.Value, nrows*w)
		for i := range rows {
			r := &rows[i]
			if kinds != nil {
				kind = row.Kind(kinds[i])
			}
			r.Kind, r.Table, r.Fields = kind, table, vals[i*w:(i+1)*w:(i+1)*w]
		}
	}
	for j := 0; j < w; j++ {
		if err := d.column(rows, j); err != nil {
			return err
		}
	}
	return d.consumed(colsEnd, "column", areaAt)
}

// column decodes the j-th column into the j-th field of rows, whose values are zeroed: the
// scalar types set only their non-pointer fields, which spares the garbage collector's write
// barriers.
func (d *decoder) column(rows []row.Row, j int) error {
	src, at, n := d.src, d.pos, len(rows)
	if at >= len(src) {
		return errorf(at, "input ends before column %d", j)
	}
	tag := types.Kind(src[at])
	pos := at + 1
	if tag == types.Null {
		if n > len(src)-pos {
			return errorf(pos, "input ends inside column %d", j)
		}
		for i, c := range src[pos : pos+n] {
			if c != byte(types.Null) {
				return errorf(pos+i, "column %d of nulls holds tag %d", j, c)
			}
		}
		d.pos = pos + n
		return nil
	}
	if tag > types.Row {
		return errorf(at, "unknown value type tag %d", tag)
	}
	if pos >= len(src) {
		return errorf(pos, "input ends before the nulls of column %d", j)
	}
	var bitmap []byte
	bitmapAt := pos + 1
	switch src[pos] {
	case 0:
	case 1:
		nb := (n + 7) / 8
		if nb > len(src)-bitmapAt {
			return errorf(bitmapAt, "input ends inside the null bitmap of column %d", j)
		}
		bitmap = src[bitmapAt : bitmapAt+nb]
		if n%8 != 0 && bitmap[nb-1]>>(n%8) != 0 {
			return errorf(bitmapAt+nb-1, "null bitmap of column %d marks rows past the last", j)
		}
	default:
		return errorf(pos, "nulls byte %d of column %d is neither 0 nor 1", src[pos], j)
	}
	pos = bitmapAt + len(bitmap)

	switch size := slotSize[tag]; {
	case size > 0:
		if n > (len(src)-pos)/size {
			return errorf(pos, "input ends inside column %d", j)
		}
		if off := fixedColumn(src[pos:pos+n*size], rows, j, tag); off >= 0 {
			return errorf(pos+off, "boolean byte %d is neither 0 nor 1", src[pos+off])
		}
		pos += n * size
	case tag == types.String || tag == types.Bytes:
		strs, spos := d.strs, d.spos
		for i := range rows {
			lenAt := pos
			var l uint64
			if pos < len(src) && src[pos] < 0x80 {
				l = uint64(src[pos])
				pos++
			} else {
				d.pos = pos
				var err error
				if l, err = d.uvarint("string length"); err != nil {
					return err
				}
				pos = d.pos
			}
			if l > uint64(len(strs)-spos) {
				return errorf(lenAt, "string of %d bytes exceeds the string area", l)
			}
			v := &rows[i].Fields[j]
			v.T, v.S = tag, strs[spos:spos+int(l)]
			spos += int(l)
		}
		d.spos = spos
	default: // decimal, array, map, row
		d.pos = pos
		for i := range rows {
			v := &rows[i].Fields[j]
			valueAt := d.pos
			if err := d.value(v); err != nil {
				return err
			}
			null := bitmap != nil && bitmap[i>>3]>>(i&7)&1 != 0
			switch {
			case null && v.T != types.Null:
				return errorf(valueAt, "null row %d of column %d has a value", i, j)
			case !null && v.T != tag:
				return errorf(valueAt, "%s value in %s column %d", v.T, tag, j)
			}
		}
		return nil // d.pos is past the column
	}

	// Null rows: their slots must be zero.
	for b, m := range bitmap {
		for m != 0 {
			i := b<<3 | bits.TrailingZeros8(m)
			m &= m - 1
			v := &rows[i].Fields[j]
			if v.I != 0 || len(v.S) != 0 {
				return errorf(bitmapAt+b, "null row %d of column %d has a value", i, j)
			}
			*v = row.Value{}
		}
	}
	d.pos = pos
	return nil
}

// fixedColumn fills the j-th field of rows from the fixed-width slots in data, the widest
// four rows at a time. It returns -1, or the offset in data of a boolean byte that is neither
// 0 nor 1.
func fixedColumn(data []byte, rows []row.Row, j int, tag types.Kind) int {
	n := len(rows)
	switch tag {
	case types.BigInt, types.Double, types.Date, types.Time, types.Timestamp:
		data = data[:8*n]
		i := 0
		for ; i+4 <= n; i += 4 {
			r := rows[i : i+4 : i+4]
			d := data[8*i : 8*i+32 : 8*i+32]
			v0, v1, v2, v3 := &r[0].Fields[j], &r[1].Fields[j], &r[2].Fields[j], &r[3].Fields[j]
			v0.T, v0.I = tag, int64(binary.LittleEndian.Uint64(d[0:]))
			v1.T, v1.I = tag, int64(binary.LittleEndian.Uint64(d[8:]))
			v2.T, v2.I = tag, int64(binary.LittleEndian.Uint64(d[16:]))
			v3.T, v3.I = tag, int64(binary.LittleEndian.Uint64(d[24:]))
		}
		for ; i < n; i++ {
			v := &rows[i].Fields[j]
			v.T, v.I = tag, int64(binary.LittleEndian.Uint64(data[8*i:]))
		}
	case types.Int:
		data = data[:4*n]
		i := 0
		for ; i+4 <= n; i += 4 {
			r := rows[i : i+4 : i+4]
			d := data[4*i : 4*i+16 : 4*i+16]
			v0, v1, v2, v3 := &r[0].Fields[j], &r[1].Fields[j], &r[2].Fields[j], &r[3].Fields[j]
			v0.T, v0.I = tag, int64(int32(binary.LittleEndian.Uint32(d[0:])))
			v1.T, v1.I = tag, int64(int32(binary.LittleEndian.Uint32(d[4:])))
			v2.T, v2.I = tag, int64(int32(binary.LittleEndian.Uint32(d[8:])))
			v3.T, v3.I = tag, int64(int32(binary.LittleEndian.Uint32(d[12:])))
		}
		for ; i < n; i++ {
			v := &rows[i].Fields[j]
			v.T, v.I = tag, int64(int32(binary.LittleEndian.Uint32(data[4*i:])))
		}
	case types.Float:
		data = data[:4*n]
		for i := range rows {
			v := &rows[i].Fields[j]
			v.T, v.I = tag, int64(binary.LittleEndian.Uint32(data[4*i:]))
		}
	case types.SmallInt:
		data = data[:2*n]
		for i := range rows {
			v := &rows[i].Fields[j]
			v.T, v.I = tag, int64(int16(binary.LittleEndian.Uint16(data[2*i:])))
		}
	case types.TinyInt:
		data = data[:n]
		for i := range rows {
			v := &rows[i].Fields[j]
			v.T, v.I = tag, int64(int8(data[i]))
		}
	case types.Boolean:
		data = data[:n]
		for i := range rows {
			b := data[i]
			if b > 1 {
				return i
			}
			v := &rows[i].Fields[j]
			v.T, v.I = tag, int64(b)
		}
	}
	return -1
}
