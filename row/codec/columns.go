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
		dst = slices.Grow(dst, n)
		area := e.area
		for i := range rows {
			v := &rows[i].Fields[j]
			if v.T != tag {
				if !nulls {
					e.area = area
					return dst, false
				}
				dst = append(dst, 0)
				continue
			}
			s := v.S
			if len(s) < 0x80 {
				dst = append(dst, byte(len(s)))
			} else {
				dst = binary.AppendUvarint(dst, uint64(len(s)))
			}
			area = append(area, s...)
		}
		e.area = area
		return dst, true
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

// fixedSlots fills out, len(rows) slots of slotSize[tag] bytes each.
func fixedSlots(out []byte, rows []row.Row, j int, tag types.Kind, nulls bool) bool {
	switch slotSize[tag] {
	case 8:
		out = out[:8*len(rows)]
		for i := range rows {
			v := &rows[i].Fields[j]
			x := v.I
			if v.T != tag {
				if !nulls {
					return false
				}
				x = 0
			}
			binary.LittleEndian.PutUint64(out[8*i:], uint64(x))
		}
	case 4:
		out = out[:4*len(rows)]
		for i := range rows {
			v := &rows[i].Fields[j]
			x := v.I
			if v.T != tag {
				if !nulls {
					return false
				}
				x = 0
			}
			// An int out of range would wrap; the row layout carries it for the decoder to
			// reject. Floats keep their low 32 bits, as in the row layout.
			if tag == types.Int && x != int64(int32(x)) {
				return false
			}
			binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
		}
	case 2:
		out = out[:2*len(rows)]
		for i := range rows {
			v := &rows[i].Fields[j]
			x := v.I
			if v.T != tag {
				if !nulls {
					return false
				}
				x = 0
			}
			if x != int64(int16(x)) {
				return false
			}
			binary.LittleEndian.PutUint16(out[2*i:], uint16(x))
		}
	case 1:
		out = out[:len(rows)]
		for i := range rows {
			v := &rows[i].Fields[j]
			x := v.I
			if v.T != tag {
				if !nulls {
					return false
				}
				x = 0
			}
			if tag == types.Boolean && x != 0 {
				x = 1
			}
			out[i] = byte(x) // a tinyint keeps its low 8 bits, as in the row layout
		}
	}
	return true
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
	if len(src)-d.pos < 8 {
		return errorf(d.pos, "input ends inside the columns length")
	}
	colsLen := binary.LittleEndian.Uint64(src[d.pos:])
	if colsLen > uint64(len(src)-d.pos-8) {
		return errorf(d.pos, "columns length %d exceeds the remaining input", colsLen)
	}
	colsAt := d.pos + 8
	colsEnd := colsAt + int(colsLen)
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
	if d.pos != colsEnd {
		return errorf(d.pos, "%d bytes after the last column", colsEnd-d.pos)
	}
	if d.spos != len(d.strs) {
		return errorf(areaAt, "string area holds %d bytes no value uses", len(d.strs)-d.spos)
	}
	return nil
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

// fixedColumn fills the j-th field of rows from the fixed-width slots in data. It returns -1,
// or the offset in data of a boolean byte that is neither 0 nor 1.
func fixedColumn(data []byte, rows []row.Row, j int, tag types.Kind) int {
	switch tag {
	case types.BigInt, types.Double, types.Date, types.Time, types.Timestamp:
		data = data[:8*len(rows)]
		for i := range rows {
			v := &rows[i].Fields[j]
			v.T, v.I = tag, int64(binary.LittleEndian.Uint64(data[8*i:]))
		}
	case types.Int:
		data = data[:4*len(rows)]
		for i := range rows {
			v := &rows[i].Fields[j]
			v.T, v.I = tag, int64(int32(binary.LittleEndian.Uint32(data[4*i:])))
		}
	case types.Float:
		data = data[:4*len(rows)]
		for i := range rows {
			v := &rows[i].Fields[j]
			v.T, v.I = tag, int64(binary.LittleEndian.Uint32(data[4*i:]))
		}
	case types.SmallInt:
		data = data[:2*len(rows)]
		for i := range rows {
			v := &rows[i].Fields[j]
			v.T, v.I = tag, int64(int16(binary.LittleEndian.Uint16(data[2*i:])))
		}
	case types.TinyInt:
		data = data[:len(rows)]
		for i := range rows {
			v := &rows[i].Fields[j]
			v.T, v.I = tag, int64(int8(data[i]))
		}
	case types.Boolean:
		data = data[:len(rows)]
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
