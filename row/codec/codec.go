// Package codec is Strait's binary encoding of row batches, used where batches leave the
// process (the exchange between runners).
//
// The encoding is self-describing: every value's type travels with it, so a decoder needs no
// schema, and every SeaTunnel type round-trips exactly (a tinyint stays a tinyint). The bytes
// of all strings, byte strings and table names of a batch are gathered in one string area at
// the end, so decoding a batch converts that area to a string once and slices every string
// out of it: a batch costs O(1) string allocations however many strings it holds. The other
// side of that choice: a decoded string keeps its batch's whole string area alive while it is
// referenced.
//
// A batch has one of two layouts, named by its first byte; the decoder accepts both and the
// encoder picks one per batch:
//
//   - the column layout (FormatColumns) when every row has the same table and the same width
//     and every column holds values of one type (and nulls): a header, then each column's
//     values one after the other, fixed-width ones as raw little-endian numbers. Encoding and
//     decoding it are tight loops over one column at a time.
//   - the row layout (FormatRows) otherwise (several tables, rows of different widths, a
//     column of mixed types, empty batches, rows without fields, and values the decoder
//     rejects: an int or smallint beyond its range, an unknown type tag): each row with its
//     kind, table and tagged values.
//
// Row layout:
//
//	batch  = 1 nrows:uvarint rowslen:uint64(LE) row*nrows
//	         ntables:uvarint tablelen:uvarint*ntables area
//	row    = (table<<2 | kind):uvarint width:uvarint value*width
//	value  = tag:byte payload
//
// where rowslen is the size in bytes of the rows, the area (the rest of the input) holds the
// table names, then every string and byte string in the order the values appear, and the
// payload depends on the tag (the tags are the types.Kind numbers):
//
//	null                  -
//	string, bytes         length:uvarint (the bytes are in the area)
//	boolean               0 or 1
//	tinyint               1 byte
//	smallint, int, bigint zig-zag varint
//	date, time            zig-zag varint (days; nanoseconds of the day)
//	timestamp             8 bytes LE (nanoseconds since the epoch)
//	float, double         4 or 8 bytes LE (IEEE 754 bits)
//	decimal               scale:zig-zag varint (len<<1 | negative):uvarint magnitude:byte*len (big-endian)
//	array, row            n:uvarint value*n
//	map                   n:uvarint (key value)*n, in the map's order
//
// Column layout:
//
//	batch  = 2 nrows:uvarint width:uvarint colslen:uint64(LE) kinds column*width
//	         tablelen:uvarint area
//	kinds  = k:byte                  every row has kind k (0 to 3)
//	       | 4 kind:byte*nrows       one kind per row
//	column = tag:byte nulls slot*nrows   tag is the column's type, never null
//	       | 0 0:byte*nrows          a column of nulls only (one null tag per row)
//	nulls  = 0                       no null in the column
//	       | 1 bitmap:byte*⌈nrows/8⌉ bit i%8 of byte i/8 set: row i is null
//
// where colslen is the size in bytes of the kinds and the columns, all rows have the one
// table whose name opens the area, and the area then holds every string and byte string,
// column after column. A column's tag is the one type of its non-null values, and a bitmap
// marks its nulls, if it has any: a column with nulls keeps its fixed-width slots (the loops
// stay free of branches), and a column without them pays one byte. A column holds one slot
// per row, null rows included; the slot of a null row is zero (all bytes zero, an empty
// string, the null tag), and the decoder rejects any other:
//
//	boolean, tinyint                      1 byte
//	smallint                              2 bytes LE
//	int, float                            4 bytes LE
//	bigint, double, date, time, timestamp 8 bytes LE
//	string, bytes                         length:uvarint (the bytes are in the area)
//	decimal, array, map, row              value (tag and payload as in the row layout)
//
// Every column slot takes at least one byte, so a decoder can bound the rows and values a
// batch claims by the bytes it holds.
//
// Decoding is strict: truncated or corrupt input yields an *Error naming the byte offset, never
// a panic, and no length read from the input allocates more than the rest of the input can
// justify.
package codec

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"sync"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// The first byte of an encoded batch names its layout.
const (
	FormatRows    = 1 // the row layout
	FormatColumns = 2 // the column layout
)

// Version is the first byte of the row layout, the only layout of earlier encoders.
const Version = FormatRows

// MaxDepth is how deeply composite values (arrays, maps, rows) may nest.
const MaxDepth = 64

// MaxDecimalScale bounds the scale of a decoded decimal (either sign).
const MaxDecimalScale = 1 << 14

// Error is a decoding failure at a byte offset of the input.
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("row codec: %s at offset %d", e.Msg, e.Offset)
}

// ---- encoding ----

// encoder keeps the scratch state of one AppendBatch call; it is pooled so encoding allocates
// nothing once warm.
type encoder struct {
	tables []string
	index  map[string]uint64 // used once the dictionary outgrows a linear scan
	area   []byte            // the strings, in the order the values appear
}

var encoders = sync.Pool{New: func() any { return &encoder{} }}

const linearTables = 8

// maxPooledArea keeps one huge batch from pinning its scratch memory in the pool.
const maxPooledArea = 4 << 20

func (e *encoder) tableIndex(name string) uint64 {
	if e.index != nil {
		if i, ok := e.index[name]; ok {
			return i
		}
	} else {
		for i, t := range e.tables {
			if t == name {
				return uint64(i)
			}
		}
	}
	i := uint64(len(e.tables))
	e.tables = append(e.tables, name)
	switch {
	case e.index != nil:
		e.index[name] = i
	case len(e.tables) > linearTables:
		e.index = make(map[string]uint64, 2*linearTables)
		for j, t := range e.tables {
			e.index[t] = uint64(j)
		}
	}
	return i
}

func (e *encoder) reset() {
	clear(e.tables)
	e.tables = e.tables[:0]
	e.index = nil // rare (more than a few tables in a batch); keeps the common path linear
	if cap(e.area) > maxPooledArea {
		e.area = nil
	}
	e.area = e.area[:0]
}

// AppendBatch appends the encoding of b's rows to dst and returns the extended slice. It does
// not modify b and, once its pooled scratch state is warm, allocates only to grow dst.
func AppendBatch(dst []byte, b *row.Batch) []byte {
	e := encoders.Get().(*encoder)
	dst = e.appendBatch(dst, b)
	e.reset()
	encoders.Put(e)
	return dst
}

func (e *encoder) appendBatch(dst []byte, b *row.Batch) []byte {
	if out, ok := e.appendColumns(dst, b.Rows); ok {
		return out
	}
	return e.appendRows(dst, b.Rows)
}

// appendRows writes rows in the row layout.
func (e *encoder) appendRows(dst []byte, rows []row.Row) []byte {
	if len(rows) > 0 {
		// a guess that avoids regrowing dst for typical rows
		need := 2*binary.MaxVarintLen64 + 9 + len(rows)*(4+7*len(rows[0].Fields))
		if cap(dst)-len(dst) < need {
			grown := make([]byte, len(dst), len(dst)+need)
			copy(grown, dst)
			dst = grown
		}
	}
	dst = append(dst, FormatRows)
	dst = appendUvarint(dst, uint64(len(rows)))
	lenAt := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
	last, lastIdx := "", uint64(0)
	for i := range rows {
		r := &rows[i]
		if i == 0 || r.Table != last {
			last, lastIdx = r.Table, e.tableIndex(r.Table)
		}
		dst = appendUvarint(dst, lastIdx<<2|uint64(r.Kind&3))
		dst = appendUvarint(dst, uint64(len(r.Fields)))
		for j := range r.Fields {
			v := &r.Fields[j]
			switch v.T {
			case types.String, types.Bytes:
				dst = append(dst, byte(v.T))
				dst = appendUvarint(dst, uint64(len(v.S)))
				e.area = append(e.area, v.S...)
			case types.SmallInt, types.Int, types.BigInt, types.Date, types.Time:
				dst = append(dst, byte(v.T))
				dst = appendUvarint(dst, uint64(v.I<<1)^uint64(v.I>>63))
			case types.Double, types.Timestamp:
				dst = append(dst, byte(v.T))
				dst = binary.LittleEndian.AppendUint64(dst, uint64(v.I))
			default:
				dst = e.appendValue(dst, v)
			}
		}
	}
	binary.LittleEndian.PutUint64(dst[lenAt:], uint64(len(dst)-lenAt-8))
	dst = appendUvarint(dst, uint64(len(e.tables)))
	for _, t := range e.tables {
		dst = appendUvarint(dst, uint64(len(t)))
	}
	for _, t := range e.tables {
		dst = append(dst, t...)
	}
	return append(dst, e.area...)
}

func appendUvarint(dst []byte, x uint64) []byte {
	if x < 0x80 {
		return append(dst, byte(x))
	}
	return binary.AppendUvarint(dst, x)
}

func appendVarint(dst []byte, x int64) []byte {
	return appendUvarint(dst, uint64(x<<1)^uint64(x>>63))
}

// appendValue writes one value of any type.
func (e *encoder) appendValue(dst []byte, v *row.Value) []byte {
	switch v.T {
	case types.Null:
		return append(dst, byte(types.Null))
	case types.String, types.Bytes:
		dst = append(dst, byte(v.T))
		dst = appendUvarint(dst, uint64(len(v.S)))
		e.area = append(e.area, v.S...)
		return dst
	case types.Boolean:
		var b byte
		if v.I != 0 {
			b = 1
		}
		return append(dst, byte(types.Boolean), b)
	case types.TinyInt:
		return append(dst, byte(types.TinyInt), byte(v.I))
	case types.SmallInt, types.Int, types.BigInt, types.Date, types.Time:
		dst = append(dst, byte(v.T))
		return appendVarint(dst, v.I)
	case types.Float:
		dst = append(dst, byte(types.Float))
		return binary.LittleEndian.AppendUint32(dst, uint32(v.I))
	case types.Double, types.Timestamp:
		dst = append(dst, byte(v.T))
		return binary.LittleEndian.AppendUint64(dst, uint64(v.I))
	case types.Decimal:
		return appendDecimal(dst, v)
	case types.Array, types.Row:
		elems := v.Fields()
		dst = append(dst, byte(v.T))
		dst = appendUvarint(dst, uint64(len(elems)))
		for i := range elems {
			dst = e.appendValue(dst, &elems[i])
		}
		return dst
	case types.Map:
		dst = append(dst, byte(types.Map))
		m := v.Map()
		if m == nil {
			return append(dst, 0)
		}
		n := min(len(m.Keys), len(m.Vals))
		dst = appendUvarint(dst, uint64(n))
		for i := 0; i < n; i++ {
			dst = e.appendValue(dst, &m.Keys[i])
			dst = e.appendValue(dst, &m.Vals[i])
		}
		return dst
	}
	// A tag this codec does not know: written as is, so the decoder reports it rather than
	// the encoder dropping the value silently.
	return append(dst, byte(v.T))
}

func appendDecimal(dst []byte, v *row.Value) []byte {
	dst = append(dst, byte(types.Decimal))
	dst = appendVarint(dst, v.I)
	u := v.Unscaled()
	if u == nil || u.Sign() == 0 {
		return append(dst, 0)
	}
	n := (u.BitLen() + 7) / 8
	head := uint64(n) << 1
	if u.Sign() < 0 {
		head |= 1
	}
	dst = appendUvarint(dst, head)
	start := len(dst)
	if cap(dst)-start < n {
		dst = append(dst, make([]byte, n)...)
	} else {
		dst = dst[:start+n]
	}
	u.FillBytes(dst[start : start+n]) // FillBytes writes the absolute value
	return dst
}

// ---- decoding ----

type decoder struct {
	src   []byte // up to the end of the rows
	pos   int
	strs  string // the string area
	spos  int
	depth int
}

func errorf(off int, format string, args ...any) error {
	return &Error{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// uvarint reads a varint at d.pos; what names it in errors.
func (d *decoder) uvarint(what string) (uint64, error) {
	if d.pos < len(d.src) {
		if c := d.src[d.pos]; c < 0x80 {
			d.pos++
			return uint64(c), nil
		}
	}
	return d.uvarintSlow(what)
}

func (d *decoder) uvarintSlow(what string) (uint64, error) {
	x, n := binary.Uvarint(d.src[d.pos:])
	if n <= 0 {
		if n == 0 {
			return 0, errorf(d.pos, "input ends inside %s", what)
		}
		return 0, errorf(d.pos, "%s overflows 64 bits", what)
	}
	d.pos += n
	return x, nil
}

// length reads a count and checks that the rest of the input can hold that many items of at
// least unit bytes each, so no corrupt length can make the decoder allocate.
func (d *decoder) length(what string, unit int) (int, error) {
	at := d.pos
	n, err := d.uvarint(what)
	if err != nil {
		return 0, err
	}
	if n > uint64(len(d.src)-d.pos)/uint64(unit) {
		return 0, errorf(at, "%s %d exceeds the remaining input", what, n)
	}
	return int(n), nil
}

// section reads the 8-byte length of the section that follows it and returns where the
// section starts and ends; what names it in errors.
func (d *decoder) section(what string) (start, end int, err error) {
	if len(d.src)-d.pos < 8 {
		return 0, 0, errorf(d.pos, "input ends inside the %s length", what)
	}
	n := binary.LittleEndian.Uint64(d.src[d.pos:])
	if n > uint64(len(d.src)-d.pos-8) {
		return 0, 0, errorf(d.pos, "%s length %d exceeds the remaining input", what, n)
	}
	start = d.pos + 8
	return start, start + int(n), nil
}

func (d *decoder) str(at int, n uint64) (string, error) {
	if n > uint64(len(d.strs)-d.spos) {
		return "", errorf(at, "string of %d bytes exceeds the string area", n)
	}
	s := d.strs[d.spos : d.spos+int(n)]
	d.spos += int(n)
	return s, nil
}

// DecodeBatch decodes one encoded batch (the whole of src) and appends its rows to into.
// Decoded values do not refer to src, which the caller may reuse at once. On error into is
// left as it was.
func DecodeBatch(src []byte, into *row.Batch) error {
	orig := len(into.Rows)
	var d decoder
	if err := d.batch(src, into); err != nil {
		clear(into.Rows[orig:])
		into.Rows = into.Rows[:orig]
		return err
	}
	return nil
}

func (d *decoder) batch(src []byte, into *row.Batch) error {
	if len(src) == 0 {
		return errorf(0, "empty input")
	}
	switch src[0] {
	case FormatRows:
		return d.rowBatch(src, into)
	case FormatColumns:
		return d.columnBatch(src, into)
	}
	return errorf(0, "unknown format %d", src[0])
}

// rowBatch decodes a batch in the row layout.
func (d *decoder) rowBatch(src []byte, into *row.Batch) error {
	d.src, d.pos = src, 1
	nrows, err := d.length("row count", 2)
	if err != nil {
		return err
	}
	rowsAt, rowsEnd, err := d.section("rows")
	if err != nil {
		return err
	}

	// The dictionary and the string area, after the rows.
	d.pos = rowsEnd
	ntables, err := d.length("table count", 1)
	if err != nil {
		return err
	}
	var lens [linearTables]uint64
	var tableLens []uint64
	if ntables <= linearTables {
		tableLens = lens[:ntables]
	} else {
		tableLens = make([]uint64, ntables)
	}
	var tableBytes uint64
	for i := range tableLens {
		n, err := d.uvarint("table name length")
		if err != nil {
			return err
		}
		// tableBytes <= len(src) holds, so the sum cannot wrap around
		if n > uint64(len(src))-tableBytes {
			return errorf(d.pos, "table names exceed the input")
		}
		tableLens[i] = n
		tableBytes += n
	}
	areaAt := d.pos
	if tableBytes > uint64(len(src)-areaAt) {
		return errorf(areaAt, "table names (%d bytes) exceed the string area (%d bytes)", tableBytes, len(src)-areaAt)
	}
	if areaAt < len(src) {
		d.strs = string(src[areaAt:])
	}
	var tabBuf [linearTables]string
	tables := tabBuf[:0]
	if ntables > linearTables {
		tables = make([]string, 0, ntables)
	}
	for _, n := range tableLens {
		tables = append(tables, d.strs[d.spos:d.spos+int(n)]) // fits: checked above
		d.spos += int(n)
	}

	// The rows.
	d.src, d.pos = src[:rowsEnd], rowsAt
	if nrows > (rowsEnd-rowsAt)/2 {
		return errorf(1, "row count %d exceeds the rows length", nrows)
	}
	if need := len(into.Rows) + nrows; cap(into.Rows) < need {
		grown := make([]row.Row, len(into.Rows), need)
		copy(grown, into.Rows)
		into.Rows = grown
	}
	if err := d.rows(into, nrows, tables); err != nil {
		return err
	}
	return d.consumed(rowsEnd, "row", areaAt)
}

// consumed checks that decoding has read the input up to end, where the last item (last)
// should end, and every byte of the string area, which starts at areaAt.
func (d *decoder) consumed(end int, last string, areaAt int) error {
	if d.pos != end {
		return errorf(d.pos, "%d bytes after the last %s", end-d.pos, last)
	}
	if d.spos != len(d.strs) {
		return errorf(areaAt, "string area holds %d bytes no value uses", len(d.strs)-d.spos)
	}
	return nil
}

func (d *decoder) rows(into *row.Batch, nrows int, tables []string) error {
	target := uint64(into.Cap())
	for i := 0; i < nrows; i++ {
		at := d.pos
		var head uint64
		var w int
		if at+1 < len(d.src) && d.src[at] < 0x80 && d.src[at+1] < 0x80 && int(d.src[at+1]) <= len(d.src)-at-2 {
			head, w = uint64(d.src[at]), int(d.src[at+1])
			d.pos += 2
		} else {
			var err error
			if head, err = d.uvarint("row header"); err != nil {
				return err
			}
			if w, err = d.length("row width", 1); err != nil {
				return err
			}
		}
		kind := row.Kind(head & 3)
		ti := head >> 2
		if ti >= uint64(len(tables)) {
			return errorf(at, "row %d names table %d of %d", i, ti, len(tables))
		}
		var fields []row.Value
		// The batch's arena allocates room for Cap rows of this width at once: take it only
		// when the rest of the input could fill it, so a corrupt width cannot inflate memory.
		if n := target * uint64(w); n <= uint64(len(d.src)-d.pos) || n <= 8192 {
			fields = into.Add(kind, tables[ti], w).Fields
		} else {
			fields = make([]row.Value, w)
			into.Rows = append(into.Rows, row.Row{Kind: kind, Table: tables[ti], Fields: fields})
		}
		if err := d.fields(fields); err != nil {
			return err
		}
	}
	return nil
}

// fields decodes len(vs) values into zeroed values; the common scalar types are decoded
// inline and, as vs is zeroed, set only their non-pointer fields, which spares the garbage
// collector's write barriers.
func (d *decoder) fields(vs []row.Value) error {
	src, pos := d.src, d.pos
	for j := range vs {
		if pos >= len(src) {
			return errorf(pos, "input ends before a value")
		}
		tag := types.Kind(src[pos])
		switch tag {
		case types.SmallInt, types.Int, types.BigInt, types.Date, types.Time:
			if pos+1 < len(src) && src[pos+1] < 0x80 {
				u := uint64(src[pos+1]) // one byte: in range for every integer type
				vs[j].T, vs[j].I = tag, int64(u>>1)^-int64(u&1)
				pos += 2
				continue
			}
			if tag == types.SmallInt || tag == types.Int {
				break // range-checked on the general path
			}
			x, n := binary.Uvarint(src[pos+1:])
			if n <= 0 {
				break // the general path reports it
			}
			vs[j].T, vs[j].I = tag, int64(x>>1)^-int64(x&1)
			pos += 1 + n
			continue
		case types.Double, types.Timestamp:
			if len(src)-pos < 9 {
				break
			}
			vs[j].T, vs[j].I = tag, int64(binary.LittleEndian.Uint64(src[pos+1:]))
			pos += 9
			continue
		case types.String, types.Bytes:
			if pos+1 < len(src) {
				if n := int(src[pos+1]); n < 0x80 && n <= len(d.strs)-d.spos {
					vs[j].T, vs[j].S = tag, d.strs[d.spos:d.spos+n]
					d.spos += n
					pos += 2
					continue
				}
			}
		}
		d.pos = pos
		if err := d.value(&vs[j]); err != nil {
			return err
		}
		pos = d.pos
	}
	d.pos = pos
	return nil
}

func (d *decoder) value(v *row.Value) error {
	at := d.pos
	if at >= len(d.src) {
		return errorf(at, "input ends before a value")
	}
	tag := types.Kind(d.src[at])
	d.pos++
	switch tag {
	case types.Null:
		*v = row.Value{}
	case types.String, types.Bytes:
		n, err := d.uvarint("string length")
		if err != nil {
			return err
		}
		s, err := d.str(at, n)
		if err != nil {
			return err
		}
		*v = row.Value{T: tag, S: s}
	case types.Boolean:
		if d.pos >= len(d.src) {
			return errorf(d.pos, "input ends inside a boolean")
		}
		b := d.src[d.pos]
		if b > 1 {
			return errorf(d.pos, "boolean byte %d is neither 0 nor 1", b)
		}
		d.pos++
		*v = row.Value{T: tag, I: int64(b)}
	case types.TinyInt:
		if d.pos >= len(d.src) {
			return errorf(d.pos, "input ends inside a tinyint")
		}
		*v = row.Value{T: tag, I: int64(int8(d.src[d.pos]))}
		d.pos++
	case types.SmallInt, types.Int, types.BigInt, types.Date, types.Time:
		u, err := d.uvarint("an integer")
		if err != nil {
			return err
		}
		x := int64(u>>1) ^ -int64(u&1)
		if tag == types.SmallInt && x != int64(int16(x)) || tag == types.Int && x != int64(int32(x)) {
			return errorf(at, "%s value %d out of range", tag, x)
		}
		*v = row.Value{T: tag, I: x}
	case types.Float:
		if len(d.src)-d.pos < 4 {
			return errorf(d.pos, "input ends inside a float")
		}
		*v = row.Value{T: tag, I: int64(binary.LittleEndian.Uint32(d.src[d.pos:]))}
		d.pos += 4
	case types.Double, types.Timestamp:
		if len(d.src)-d.pos < 8 {
			return errorf(d.pos, "input ends inside a %s", tag)
		}
		*v = row.Value{T: tag, I: int64(binary.LittleEndian.Uint64(d.src[d.pos:]))}
		d.pos += 8
	case types.Decimal:
		return d.decimal(at, v)
	case types.Array, types.Row:
		if d.depth >= MaxDepth {
			return errorf(at, "values nest deeper than %d", MaxDepth)
		}
		what := "array length"
		if tag == types.Row {
			what = "row length"
		}
		n, err := d.length(what, 1)
		if err != nil {
			return err
		}
		elems := make([]row.Value, n)
		d.depth++
		for i := range elems {
			if err := d.value(&elems[i]); err != nil {
				return err
			}
		}
		d.depth--
		*v = row.Value{T: tag, X: elems}
	case types.Map:
		if d.depth >= MaxDepth {
			return errorf(at, "values nest deeper than %d", MaxDepth)
		}
		n, err := d.length("map size", 2)
		if err != nil {
			return err
		}
		kv := make([]row.Value, 2*n)
		m := &row.MapValue{Keys: kv[:n:n], Vals: kv[n:]}
		d.depth++
		for i := 0; i < n; i++ {
			if err := d.value(&m.Keys[i]); err != nil {
				return err
			}
			if err := d.value(&m.Vals[i]); err != nil {
				return err
			}
		}
		d.depth--
		*v = row.Value{T: tag, X: m}
	default:
		return errorf(at, "unknown value type tag %d", tag)
	}
	return nil
}

func (d *decoder) decimal(at int, v *row.Value) error {
	u, err := d.uvarint("a decimal scale")
	if err != nil {
		return err
	}
	scale := int64(u>>1) ^ -int64(u&1)
	if scale > MaxDecimalScale || scale < -MaxDecimalScale {
		return errorf(at, "decimal scale %d out of range", scale)
	}
	headAt := d.pos
	head, err := d.uvarint("a decimal length")
	if err != nil {
		return err
	}
	n, neg := head>>1, head&1 == 1
	if n > uint64(len(d.src)-d.pos) {
		return errorf(headAt, "decimal of %d bytes exceeds the remaining input", n)
	}
	x := new(big.Int).SetBytes(d.src[d.pos : d.pos+int(n)])
	d.pos += int(n)
	if neg {
		if x.Sign() == 0 {
			return errorf(headAt, "negative zero decimal")
		}
		x.Neg(x)
	}
	*v = row.Value{T: types.Decimal, I: scale, X: x}
	return nil
}
