package parquet

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/big"
	"strings"
	"time"
	"unsafe"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/internal/civil"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// RowGroupBytes is about the data a row group holds before it is flushed:
// parquet-mr's default block size, which SeaTunnel keeps. A variable so that tests make
// files of many row groups.
var RowGroupBytes int64 = 128 << 20

const (
	// parquetWriteBatch rows are shredded before they go to the parquet writer at once.
	parquetWriteBatch = 256
	julianUnixEpoch   = 2440588
)

// parquetSink writes the sink's parquet files.
type parquetSink struct {
	cols   format.Written
	codec  parquetCodec
	schema *pq.Schema
	root   []*pqShred // per sink column
	leaves int
}

// leafKind says how a leaf's values are written.
type leafKind uint8

const (
	leafNull leafKind = iota
	leafBool
	leafInt32
	leafInt64
	leafFloat
	leafDouble
	leafBytes
	leafDecimal
	leafTime
	leafTimestampMillis
	leafInt96
	leafFixed96 // bytes written as INT96
)

// pqShred is the plan that turns one value of a column into the values of its parquet
// leaf columns (the record shredding of the Dremel paper).
type pqShred struct {
	kind     types.Kind
	leaf     leafKind
	col      int  // leaf column index (leaves)
	def      byte // definition level of a present value
	rep      byte // repetition level of a list's or map's repeated group
	scale    int  // decimal
	width    int  // decimal: bytes of the fixed array
	kids     []*pqShred
	optional bool
	cols     []int // the leaf columns below, for nulls
}

// SinkOptions are the sink options of the parquet format.
type SinkOptions struct {
	// Codec is compress_codec: how pages are compressed, which also names the files.
	Codec string
	// TimestampsAsInt96 is parquet_avro_write_timestamp_as_int96: every timestamp as INT96.
	TimestampsAsInt96 bool
	// FixedAsInt96 is parquet_avro_write_fixed_as_int96: the columns (any case) written as
	// INT96, timestamps or bytes of 12 bytes.
	FixedAsInt96 []string
}

// NewSink writes the columns cols of each row into parquet files; o names the options in
// errors.
func NewSink(o *config.Options, cols format.Written, opts SinkOptions) (format.Sink, error) {
	codec, err := parquetCodecOf(o, opts.Codec)
	if err != nil {
		return nil, err
	}
	asInt96 := opts.TimestampsAsInt96
	int96 := map[string]bool{}
	for _, n := range opts.FixedAsInt96 {
		int96[strings.ToLower(n)] = true
	}
	s := &parquetSink{cols: cols, codec: codec}
	b := &pqBuilder{}
	var fields pqGroup
	for i, name := range cols.Names {
		lower := strings.ToLower(name)
		t := cols.Types[i]
		wide := int96[lower] || asInt96 && t.Kind == types.Timestamp
		if wide && t.Kind != types.Timestamp && t.Kind != types.Bytes {
			return nil, o.Errorf("parquet_avro_write_fixed_as_int96", "column %q is %s: only timestamp and bytes columns can be written as INT96", name, t)
		}
		node, sh, err := b.node(t, 0, 0, true, wide)
		if err != nil {
			return nil, o.Errorf("file_format_type", "column %q: %v", name, err)
		}
		fields = append(fields, pqField{Node: node, name: lower})
		s.root = append(s.root, sh)
	}
	s.leaves = b.next
	s.schema = pq.NewSchema(parquetMessageName, fields)
	return s, nil
}

// pqBuilder numbers the leaf columns in the order parquet does: depth first, fields in order.
type pqBuilder struct{ next int }

// node builds the parquet node of a value of type t below a parent whose present values
// have definition level def and whose repeated ancestors make repetition level rep.
func (b *pqBuilder) node(t types.DataType, def, rep byte, optional, int96 bool) (pq.Node, *pqShred, error) {
	sh := &pqShred{kind: t.Kind, def: def, optional: optional}
	if optional {
		sh.def++
	}
	wrap := func(n pq.Node) pq.Node {
		if optional {
			return pq.Optional(n)
		}
		return pq.Required(n)
	}
	switch t.Kind {
	case types.Row:
		var g pqGroup
		for i, name := range t.Row.Names {
			n, k, err := b.node(t.Row.Types[i], sh.def, rep, true, false)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			g = append(g, pqField{Node: n, name: name})
			sh.kids = append(sh.kids, k)
			sh.cols = append(sh.cols, k.cols...)
		}
		if len(g) == 0 {
			return nil, nil, fmt.Errorf("a row without fields cannot be written to parquet")
		}
		return wrap(g), sh, nil
	case types.Array:
		sh.rep = rep + 1
		n, k, err := b.node(*t.Elem, sh.def+1, sh.rep, true, false)
		if err != nil {
			return nil, nil, fmt.Errorf("element: %w", err)
		}
		sh.kids = []*pqShred{k}
		sh.cols = k.cols
		return wrap(pq.List(n)), sh, nil
	case types.Map:
		sh.rep = rep + 1
		kn, k, err := b.node(*t.Key, sh.def+1, sh.rep, false, false)
		if err != nil {
			return nil, nil, fmt.Errorf("key: %w", err)
		}
		vn, v, err := b.node(*t.Elem, sh.def+1, sh.rep, true, false)
		if err != nil {
			return nil, nil, fmt.Errorf("value: %w", err)
		}
		sh.kids = []*pqShred{k, v}
		sh.cols = append(append([]int(nil), k.cols...), v.cols...)
		return wrap(pq.Map(kn, vn)), sh, nil
	}
	leaf, kind, err := parquetLeafNode(t, int96)
	if err != nil {
		return nil, nil, err
	}
	sh.leaf = kind
	sh.col = b.next
	sh.cols = []int{b.next}
	b.next++
	if t.Kind == types.Decimal {
		sh.scale, sh.width = t.Scale, decimalBytes(t.Precision)
	}
	return wrap(leaf), sh, nil
}

// parquetLeafNode is the node and the write kind of a primitive type.
func parquetLeafNode(t types.DataType, int96 bool) (pq.Node, leafKind, error) {
	switch t.Kind {
	case types.Null:
		return pq.Leaf(pq.NullType), leafNull, nil
	case types.String:
		return pq.String(), leafBytes, nil
	case types.Boolean:
		return pq.Leaf(pq.BooleanType), leafBool, nil
	case types.TinyInt:
		return pq.Int(8), leafInt32, nil
	case types.SmallInt:
		return pq.Int(16), leafInt32, nil
	case types.Int:
		return pq.Leaf(pq.Int32Type), leafInt32, nil
	case types.BigInt:
		return pq.Leaf(pq.Int64Type), leafInt64, nil
	case types.Float:
		return pq.Leaf(pq.FloatType), leafFloat, nil
	case types.Double:
		return pq.Leaf(pq.DoubleType), leafDouble, nil
	case types.Decimal:
		return pq.Decimal(t.Scale, t.Precision, pq.FixedLenByteArrayType(decimalBytes(t.Precision))), leafDecimal, nil
	case types.Bytes:
		if int96 {
			return pq.Leaf(pq.Int96Type), leafFixed96, nil
		}
		return pq.Leaf(pq.ByteArrayType), leafBytes, nil
	case types.Date:
		return pq.Date(), leafInt32, nil
	case types.Time:
		return pq.TimeAdjusted(pq.Microsecond, false), leafTime, nil
	case types.Timestamp:
		if int96 {
			return pq.Leaf(pq.Int96Type), leafInt96, nil
		}
		return pq.TimestampAdjusted(pq.Millisecond, true), leafTimestampMillis, nil
	}
	return nil, 0, fmt.Errorf("type %s cannot be written to parquet", t)
}

// Suffix is SeaTunnel's file name ending for parquet: the codec's part and .parquet.
func (s *parquetSink) Suffix() string { return s.codec.suffix + ".parquet" }

func (s *parquetSink) Create(w io.Writer, name string) (format.Writer, error) {
	pw := pq.NewWriter(w, s.schema, pq.Compression(s.codec.codec),
		pq.CreatedBy("strait", "", ""), pq.DataPageStatistics(true))
	return &parquetWriter{sink: s, w: pw, name: name, cols: make([][]pq.Value, s.leaves)}, nil
}

// parquetWriter shreds rows into leaf values, buffers parquetWriteBatch rows and hands them
// to parquet-go's writer, which keeps one row group in memory until it is flushed.
type parquetWriter struct {
	sink  *parquetSink
	w     *pq.Writer
	name  string
	cols  [][]pq.Value // per leaf, the values of the row being shredded
	vals  []pq.Value   // the buffered rows' values, back to back
	ends  []int        // where each buffered row ends in vals
	rows  []pq.Row
	bytes bytesArena // decimals' bytes, valid until the buffered rows are written
	size  int64      // estimated bytes in the current row group
	rowNo int64
}

func (p *parquetWriter) Write(r *row.Row) error {
	for i := range p.cols {
		p.cols[i] = p.cols[i][:0]
	}
	for j, col := range p.sink.cols.Fields {
		if err := p.shred(p.sink.root[j], &r.Fields[col], 0); err != nil {
			return fmt.Errorf("row %d: column %q: %w", p.rowNo+1, p.sink.cols.Names[j], err)
		}
	}
	p.rowNo++
	for _, c := range p.cols {
		p.vals = append(p.vals, c...)
	}
	p.ends = append(p.ends, len(p.vals))
	if len(p.ends) >= parquetWriteBatch {
		return p.flushRows()
	}
	return nil
}

// endBatch writes the buffered rows: their strings belong to the batch.
func (p *parquetWriter) EndBatch() error { return p.flushRows() }

// flushRows hands the buffered rows to the parquet writer; a row group that has grown past
// RowGroupBytes is flushed to the file.
func (p *parquetWriter) flushRows() error {
	if len(p.ends) == 0 {
		return nil
	}
	p.rows = p.rows[:0]
	start := 0
	for _, end := range p.ends {
		p.rows = append(p.rows, p.vals[start:end:end])
		start = end
	}
	if _, err := p.w.WriteRows(p.rows); err != nil {
		return err
	}
	clear(p.rows)
	clear(p.vals) // drop the pointers into row strings
	p.vals, p.ends = p.vals[:0], p.ends[:0]
	p.bytes.reset()
	if p.size >= RowGroupBytes {
		p.size = 0
		return p.w.Flush()
	}
	return nil
}

func (p *parquetWriter) Close() error {
	if err := p.flushRows(); err != nil {
		return err
	}
	return p.w.Close()
}

// null writes a null (or an empty list or map) at definition level def into every leaf
// below sh.
func (p *parquetWriter) null(sh *pqShred, rep, def byte) {
	for _, c := range sh.cols {
		p.cols[c] = append(p.cols[c], pq.Value{}.Level(int(rep), int(def), c))
	}
}

func (p *parquetWriter) shred(sh *pqShred, v *row.Value, rep byte) error {
	if v.T == types.Null {
		if !sh.optional {
			return fmt.Errorf("a map key is null: parquet map keys are required")
		}
		p.null(sh, rep, sh.def-1)
		return nil
	}
	switch sh.kind {
	case types.Row:
		fields := v.Fields()
		if len(fields) != len(sh.kids) {
			return fmt.Errorf("nested row has %d fields, its type %d", len(fields), len(sh.kids))
		}
		for i, k := range sh.kids {
			if err := p.shred(k, &fields[i], rep); err != nil {
				return err
			}
		}
		return nil
	case types.Array:
		elems := v.Elems()
		if len(elems) == 0 {
			p.null(sh, rep, sh.def)
			return nil
		}
		for i := range elems {
			r := rep
			if i > 0 {
				r = sh.rep
			}
			if err := p.shred(sh.kids[0], &elems[i], r); err != nil {
				return err
			}
		}
		return nil
	case types.Map:
		m := v.Map()
		if m == nil || len(m.Keys) == 0 {
			p.null(sh, rep, sh.def)
			return nil
		}
		for i := range m.Keys {
			r := rep
			if i > 0 {
				r = sh.rep
			}
			if err := p.shred(sh.kids[0], &m.Keys[i], r); err != nil {
				return err
			}
			if err := p.shred(sh.kids[1], &m.Vals[i], r); err != nil {
				return err
			}
		}
		return nil
	}
	pv, err := p.leafValue(sh, v)
	if err != nil {
		return err
	}
	p.cols[sh.col] = append(p.cols[sh.col], pv.Level(int(rep), int(sh.def), sh.col))
	return nil
}

// leafValue converts a primitive value; strings and bytes point into the row's memory,
// which the row keeps until the buffered rows are written.
func (p *parquetWriter) leafValue(sh *pqShred, v *row.Value) (pq.Value, error) {
	switch sh.leaf {
	case leafBool:
		p.size++
		return pq.BooleanValue(v.I != 0), nil
	case leafInt32:
		p.size += 4
		return pq.Int32Value(int32(v.I)), nil
	case leafInt64:
		p.size += 8
		return pq.Int64Value(v.I), nil
	case leafFloat:
		p.size += 4
		return pq.FloatValue(v.Float32()), nil
	case leafDouble:
		p.size += 8
		return pq.DoubleValue(v.Float64()), nil
	case leafBytes:
		p.size += int64(len(v.S)) + 4
		return pq.ByteArrayValue(unsafe.Slice(unsafe.StringData(v.S), len(v.S))), nil
	case leafTime:
		p.size += 8
		return pq.Int64Value(civil.FloorDiv(v.I, 1000)), nil
	case leafTimestampMillis:
		p.size += 8
		return pq.Int64Value(civil.FloorDiv(localInstantNanos(v.I), int64(time.Millisecond))), nil
	case leafInt96:
		p.size += 12
		return pq.Int96Value(int96Of(localInstantNanos(v.I))), nil
	case leafFixed96:
		if len(v.S) != 12 {
			return pq.Value{}, fmt.Errorf("%d bytes cannot be written as INT96, which takes 12", len(v.S))
		}
		p.size += 12
		b := []byte(v.S)
		return pq.Int96Value(deprecated.Int96{binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:])}), nil
	case leafDecimal:
		p.size += int64(sh.width)
		b, err := p.decimal(sh, v)
		if err != nil {
			return pq.Value{}, err
		}
		return pq.FixedLenByteArrayValue(b), nil
	}
	return pq.Value{}, nil // null type: only nulls
}

// decimal writes the unscaled value, at the column's scale, as a big-endian two's
// complement number of sh.width bytes.
func (p *parquetWriter) decimal(sh *pqShred, v *row.Value) ([]byte, error) {
	u := v.Unscaled()
	if u == nil {
		return nil, fmt.Errorf("decimal without a value")
	}
	if s := v.DecimalScale(); s != sh.scale {
		r, err := row.DecimalFromRat(row.DecimalRat(*v), 0, sh.scale)
		if err != nil {
			return nil, err
		}
		u = r.Unscaled()
	}
	out := p.bytes.alloc(sh.width)
	if u.IsInt64() {
		n := u.Int64()
		for i := sh.width - 1; i >= 0; i-- {
			out[i] = byte(n)
			n >>= 8
		}
		if !fitsBytes(u, sh.width) {
			return nil, fmt.Errorf("%s does not fit %d bytes", u, sh.width)
		}
		return out, nil
	}
	if !fitsBytes(u, sh.width) {
		return nil, fmt.Errorf("unscaled value %s does not fit %d bytes", u, sh.width)
	}
	if u.Sign() >= 0 {
		u.FillBytes(out)
		return out, nil
	}
	// two's complement of a negative number: 2^(8*width) + u
	m := new(big.Int).Lsh(big.NewInt(1), uint(8*sh.width))
	m.Add(m, u)
	m.FillBytes(out)
	return out, nil
}

// fitsBytes reports whether u is in the range of a signed integer of n bytes.
func fitsBytes(u *big.Int, n int) bool {
	bits := u.BitLen()
	if u.Sign() < 0 {
		// -2^(k-1) needs k bits; others need BitLen+1
		m := new(big.Int).Neg(u)
		m.Sub(m, big.NewInt(1))
		bits = m.BitLen()
	}
	return bits < 8*n
}

// Zone is the zone a zone-less timestamp is taken in when it is written as an
// instant (and read back from one): the process's, as SeaTunnel uses the JVM's. A
// variable so that tests fix it.
var Zone = time.Local

// localInstantNanos is the instant, in nanoseconds since the epoch, of the wall clock time
// nanos (nanoseconds since 1970-01-01T00:00) in Zone.
func localInstantNanos(nanos int64) int64 {
	if Zone == time.UTC {
		return nanos
	}
	t := time.Unix(0, nanos).UTC()
	y, m, d := t.Date()
	h, mi, s := t.Clock()
	return time.Date(y, m, d, h, mi, s, t.Nanosecond(), Zone).UnixNano()
}

// wallNanos is the inverse of localInstantNanos: the wall clock time of an instant in
// Zone.
func wallNanos(instant int64) int64 {
	if Zone == time.UTC {
		return instant
	}
	t := time.Unix(0, instant).In(Zone)
	y, m, d := t.Date()
	h, mi, s := t.Clock()
	return time.Date(y, m, d, h, mi, s, t.Nanosecond(), time.UTC).UnixNano()
}

// int96Of encodes an instant as parquet's INT96 timestamp: nanoseconds of the day, then
// the Julian day, little endian.
func int96Of(nanos int64) deprecated.Int96 {
	day := civil.FloorDiv(nanos, civil.NanosPerDay)
	tod := nanos - day*civil.NanosPerDay
	return deprecated.Int96{uint32(tod), uint32(tod >> 32), uint32(day + julianUnixEpoch)}
}

// bytesArena hands out byte slices that stay valid until reset; growing never moves the
// bytes already handed out.
type bytesArena struct {
	cur  []byte
	used [][]byte
}

func (a *bytesArena) alloc(n int) []byte {
	if cap(a.cur)-len(a.cur) < n {
		if cap(a.cur) > 0 {
			a.used = append(a.used, a.cur)
		}
		a.cur = make([]byte, 0, max(4096, n))
	}
	start := len(a.cur)
	a.cur = a.cur[:start+n]
	return a.cur[start : start+n : start+n]
}

func (a *bytesArena) reset() {
	a.cur = a.cur[:0]
	clear(a.used)
	a.used = a.used[:0]
}
