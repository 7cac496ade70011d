package parquet

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
	"time"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	pqformat "github.com/parquet-go/parquet-go/format"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/internal/civil"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

const (
	// maxParquetFooter bounds the footer Strait reads: a larger one is a broken file.
	maxParquetFooter   = 256 << 20
	parquetValueBuffer = 1024
)

// source reads parquet files: the columns of the schema it emits (the projection
// read_columns makes), matched by name in each file, each row group a split of its own.
type source struct {
	cols format.Columns
}

// NewSource reads the columns cols of parquet files.
func NewSource(cols format.Columns) format.Source { return &source{cols: cols} }

// TableOf reads the columns of the parquet file r (size bytes), as SeaTunnel takes them
// from the first file when the config declares none.
func TableOf(r io.ReaderAt, size int64) (_ *catalog.Table, err error) {
	defer recoverParquet(&err)
	pf, err := openParquet(r, size)
	if err != nil {
		return nil, err
	}
	t := &catalog.Table{Path: catalog.TablePath{Database: "default", Table: "default"}}
	var bad []string
	for _, col := range pf.Root().Columns() {
		dt, err := parquetColumnType(col)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s (%v)", col.Name(), err))
			continue
		}
		t.Columns = append(t.Columns, catalog.Column{Name: col.Name(), Type: dt, Nullable: true})
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("columns with no SeaTunnel type: %s", strings.Join(bad, ", "))
	}
	if len(t.Columns) == 0 {
		return nil, fmt.Errorf("the file has no columns")
	}
	return t, nil
}

// RowGroups is the number of row groups of the parquet file r (size bytes).
func RowGroups(r io.ReaderAt, size int64) (int, error) {
	pf, err := openParquet(r, size)
	if err != nil {
		return 0, err
	}
	return len(pf.RowGroups()), nil
}

// Splits makes one split per row group, or one for a file with at most one.
func (p *source) Splits(_ context.Context, r io.ReaderAt, size int64) ([]format.Split, error) {
	n, err := RowGroups(r, size)
	if err != nil {
		return nil, err
	}
	if n <= 1 {
		return format.Whole(), nil
	}
	out := make([]format.Split, n)
	for i := range out {
		out[i] = format.Split{FirstGroup: i, EndGroup: i + 1, Group: i}
	}
	return out, nil
}

// pqColumn is one emitted column of the file: its reading plan and where it goes in a row.
type pqColumn struct {
	node *pqRead
	out  int
	flat bool // a top-level leaf: one value per row
}

// parquetReader reads the row groups of one split.
type parquetReader struct {
	file    *pqFile
	r       io.ReaderAt
	name    string
	tableID string
	width   int
	cols    []pqColumn
	cursors []*pqCursor
	group   int   // current row group
	end     int   // row group where the split ends
	rows    int64 // rows of the current group read
	total   int64 // rows in the current group; -1 before the group is opened
	arena   row.Arena
	left    int // values the nested columns of the current row may still assemble
}

func (p *source) Open(r io.ReaderAt, size int64, name string, s format.Split) (_ format.Reader, err error) {
	defer func() {
		if err2 := recoverParquetErr(recover()); err2 != nil {
			err = fmt.Errorf("%s: %w", name, err2)
		}
	}()
	pf, err := openParquet(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	pr := &parquetReader{file: pf, r: r, name: name, tableID: p.cols.TableID, width: p.cols.Width, total: -1}
	root := pf.Root()
	for _, cs := range p.cols.Columns {
		if cs.Out < 0 {
			continue
		}
		col := fieldByName(root, cs.Name)
		if col == nil {
			return nil, fmt.Errorf("%s: column %q is not in the file", name, cs.Name)
		}
		b := &pqReadBuilder{r: pr}
		node, err := b.build(col, cs.Type, false)
		if err != nil {
			return nil, fmt.Errorf("%s: column %q: %w", name, cs.Name, err)
		}
		pr.cols = append(pr.cols, pqColumn{node: node, out: cs.Out, flat: node.shape == shapeLeaf && col.MaxRepetitionLevel() == 0})
	}
	pr.end = len(pf.RowGroups())
	if s.EndGroup > 0 && s.EndGroup < pr.end {
		pr.end = s.EndGroup
	}
	pr.group = max(s.Group, s.FirstGroup)
	pr.rows = s.GroupRows
	return pr, nil
}

// fieldByName finds a top-level column by its exact name, or else in any case (SeaTunnel
// writes the names in lower case).
func fieldByName(root *pq.Column, name string) *pq.Column {
	var fold *pq.Column
	for _, c := range root.Columns() {
		if c.Name() == name {
			return c
		}
		if fold == nil && strings.EqualFold(c.Name(), name) {
			fold = c
		}
	}
	return fold
}

// openGroup starts reading row group g at row p.rows, once the pages of every column chunk
// it reads are checked.
func (p *parquetReader) openGroup() error {
	rg := p.file.RowGroups()[p.group]
	p.total = rg.NumRows()
	for _, c := range p.cursors {
		c.reset(nil)
	}
	if p.total == 0 {
		return nil
	}
	chunks := rg.ColumnChunks()
	scan := pqScan{r: p.r}
	for _, c := range p.cursors {
		offsets, err := p.checkChunk(&scan, c)
		if err != nil {
			return fmt.Errorf("%s: row group %d, column %q: %w", p.name, p.group, c.leaf.path, err)
		}
		pages := chunks[c.col].Pages()
		if p.rows > 0 {
			if err := pages.SeekToRow(p.rows); err != nil {
				pages.Close()
				return fmt.Errorf("%s: row group %d: resume at row %d: %w", p.name, p.group, p.rows, err)
			}
		}
		c.reset(pages)
		c.offsets, c.resumed = offsets, p.rows > 0
	}
	return nil
}

// checkChunk checks the column chunk of cursor c in the current row group and its pages;
// it returns where its data pages start.
func (p *parquetReader) checkChunk(scan *pqScan, c *pqCursor) ([]int64, error) {
	md := p.file.Metadata()
	start, end, err := checkParquetChunk(md, p.group, c.col, p.file.dataEnd)
	if err != nil {
		return nil, err
	}
	m := &md.RowGroups[p.group].Columns[c.col].MetaData
	scan.leaf, scan.codec = c.leaf, m.Codec
	return scan.chunk(start, end, m.NumValues)
}

func (p *parquetReader) Next(ctx context.Context, out *row.Batch) (done bool, err error) {
	defer func() {
		if err2 := recoverParquetErr(recover()); err2 != nil {
			done, err = false, fmt.Errorf("%s: row group %d: %w", p.name, p.group, err2)
		}
	}()
	for !out.Full() {
		if p.total < 0 {
			if p.group >= p.end {
				return true, nil
			}
			if err := ctx.Err(); err != nil {
				return false, err
			}
			if err := p.openGroup(); err != nil {
				return false, err
			}
		}
		if p.rows >= p.total {
			p.group++
			p.rows, p.total = 0, -1
			continue
		}
		n := int(min(int64(out.Cap()-out.Len()), p.total-p.rows))
		if err := p.fill(out, n); err != nil {
			return false, err
		}
	}
	return false, nil
}

// fill appends n rows, reading column by column.
func (p *parquetReader) fill(out *row.Batch, n int) error {
	start := out.Len()
	for i := 0; i < n; i++ {
		out.Add(row.Insert, p.tableID, p.width)
	}
	rows := out.Rows[start:]
	for ci := range p.cols {
		c := &p.cols[ci]
		for i := range rows {
			var err error
			if c.flat {
				err = c.node.readLeaf(&rows[i].Fields[c.out], &p.arena)
			} else {
				p.left = MaxRowValues
				err = c.node.read(&rows[i].Fields[c.out], &p.arena)
			}
			if err != nil {
				out.Rows = out.Rows[:start+i]
				return fmt.Errorf("%s: row group %d, row %d: column %q: %w", p.name, p.group, p.rows+int64(i)+1, c.node.name, err)
			}
		}
	}
	p.rows += int64(n)
	return nil
}

func (p *parquetReader) Progress(s *format.Split) {
	if p.total >= 0 && p.rows >= p.total {
		s.Group, s.GroupRows = p.group+1, 0
		return
	}
	s.Group, s.GroupRows = p.group, p.rows
}

func (p *parquetReader) Close() error {
	for _, c := range p.cursors {
		c.reset(nil)
	}
	return nil
}

// ---- leaf cursors

// pqCursor reads the values of one leaf column of the current row group, page by page.
type pqCursor struct {
	col     int
	leaf    pqLeaf
	pages   pq.Pages
	page    pq.Page
	vals    pq.ValueReader
	eof     bool // vals has no more values
	buf     []pq.Value
	i, n    int
	offsets []int64 // where the chunk's data pages start
	read    int     // pages read of the chunk
	resumed bool    // read from a row past the chunk's start: read does not count from its first page
}

func (c *pqCursor) reset(pages pq.Pages) {
	c.release()
	if c.pages != nil {
		c.pages.Close()
	}
	c.pages = pages
	c.i, c.n = 0, 0
	c.offsets, c.read, c.resumed = nil, 0, false
}

// at names the page the cursor reads, the one ReadPage returned last, or the next.
func (c *pqCursor) at(next bool) string {
	k := c.read - 1
	if next {
		k = c.read
	}
	if c.resumed || k < 0 || k >= len(c.offsets) {
		return fmt.Sprintf("column %q", c.leaf.path)
	}
	return fmt.Sprintf("column %q, page at byte %d", c.leaf.path, c.offsets[k])
}

func (c *pqCursor) release() {
	if c.page != nil {
		pq.Release(c.page)
		c.page, c.vals = nil, nil
	}
}

var errColumnEnded = errors.New("the column has fewer values than the row group has rows")

// fill makes c.buf[c.i] the next value, reading pages as needed.
func (c *pqCursor) fill() error {
	for c.i >= c.n {
		if c.vals != nil && !c.eof {
			n, err := c.vals.ReadValues(c.buf)
			c.i, c.n = 0, n
			if err == io.EOF || n == 0 && err == nil {
				c.eof = true // a page that yields nothing more is done
			} else if err != nil {
				return fmt.Errorf("%s: %w", c.at(false), err)
			}
			continue
		}
		c.release()
		if c.pages == nil {
			return errColumnEnded
		}
		page, err := c.pages.ReadPage()
		if err == io.EOF {
			return errColumnEnded
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c.at(true), err)
		}
		c.read++
		c.page, c.vals, c.eof = page, page.Values(), false
	}
	return nil
}

func (c *pqCursor) peek() (*pq.Value, error) {
	if c.i >= c.n {
		if err := c.fill(); err != nil {
			return nil, err
		}
	}
	return &c.buf[c.i], nil
}

// peekRep is the repetition level of the next value, or -1 at the end of the column.
func (c *pqCursor) peekRep() int {
	v, err := c.peek()
	if err != nil {
		return -1
	}
	return v.RepetitionLevel()
}

func (c *pqCursor) next() (*pq.Value, error) {
	if c.i >= c.n {
		if err := c.fill(); err != nil {
			return nil, err
		}
	}
	v := &c.buf[c.i]
	c.i++
	return v, nil
}

// ---- assembly: the values of the leaves back into nested values

const (
	shapeLeaf uint8 = iota
	shapeRow
	shapeList
	shapeMap
)

// pqRead is the reading plan of one node: it assembles a value from its leaves' cursors.
type pqRead struct {
	name  string
	shape uint8
	def   int // definition level of a present value
	rep   int // list, map: the repetition level of their repeated group
	kids  []*pqRead
	kidAt []int // row: the file field each declared field reads (-1: none, null)
	left  *int  // list, map: the values the row may still assemble
	cur   *pqCursor
	first *pqCursor   // the first leaf below: its levels tell presence
	below []*pqCursor // every leaf below, to skip a null
	conv  pqConv
	want  types.DataType
	cast  bool // the file's type differs from want: cast after converting
	from  types.DataType
	scale int
	fixed bool // decimal in a byte array
}

type pqReadBuilder struct{ r *parquetReader }

func (b *pqReadBuilder) cursor(col *pq.Column) *pqCursor {
	c := &pqCursor{col: col.Index(), leaf: newPQLeaf(col), buf: make([]pq.Value, parquetValueBuffer)}
	b.r.cursors = append(b.r.cursors, c)
	return c
}

// build plans the reading of column col as the type want; asElem builds a repeated field
// as its element, not as a list.
func (b *pqReadBuilder) build(col *pq.Column, want types.DataType, asElem bool) (*pqRead, error) {
	n := &pqRead{name: col.Name(), def: col.MaxDefinitionLevel(), want: want, left: &b.r.left}
	if col.Repeated() && !asElem {
		// a bare repeated field: a list whose every value is present
		if want.Kind != types.Array {
			return nil, fmt.Errorf("the file holds a list (repeated %s), the schema wants %s", col.Name(), want)
		}
		elem, err := b.build(col, *want.Elem, true)
		if err != nil {
			return nil, err
		}
		n.shape, n.def, n.rep, n.kids = shapeList, col.MaxDefinitionLevel()-1, col.MaxRepetitionLevel(), []*pqRead{elem}
		n.first, n.below = elem.first, elem.below
		return n, nil
	}
	if col.Leaf() {
		return b.leaf(n, col)
	}
	ft, err := parquetNodeType(col)
	if err != nil {
		return nil, err
	}
	switch ft.Kind {
	case types.Array:
		if want.Kind != types.Array {
			return nil, fmt.Errorf("the file holds %s, the schema wants %s", ft, want)
		}
		ec, _ := listElement(col)
		rep := col.Columns()[0]
		elem, err := b.build(ec, *want.Elem, ec == rep)
		if err != nil {
			return nil, fmt.Errorf("element: %w", err)
		}
		n.shape, n.rep, n.kids = shapeList, rep.MaxRepetitionLevel(), []*pqRead{elem}
		n.first, n.below = elem.first, elem.below
		return n, nil
	case types.Map:
		if want.Kind != types.Map {
			return nil, fmt.Errorf("the file holds %s, the schema wants %s", ft, want)
		}
		kc, vc, _ := mapKeyValue(col)
		key, err := b.build(kc, *want.Key, false)
		if err != nil {
			return nil, fmt.Errorf("key: %w", err)
		}
		n.shape, n.rep = shapeMap, col.Columns()[0].MaxRepetitionLevel()
		n.kids = []*pqRead{key, nil}
		n.first, n.below = key.first, append([]*pqCursor(nil), key.below...)
		if vc != nil {
			val, err := b.build(vc, *want.Elem, false)
			if err != nil {
				return nil, fmt.Errorf("value: %w", err)
			}
			n.kids[1] = val
			n.below = append(n.below, val.below...)
		}
		return n, nil
	}
	if want.Kind != types.Row {
		return nil, fmt.Errorf("the file holds a group %s, the schema wants %s", ft, want)
	}
	n.shape = shapeRow
	fields := col.Columns()
	for _, name := range want.Row.Names {
		idx := -1
		for i, f := range fields {
			if f.Name() == name || idx < 0 && strings.EqualFold(f.Name(), name) {
				idx = i
			}
		}
		n.kidAt = append(n.kidAt, idx)
	}
	for i, idx := range n.kidAt {
		if idx < 0 {
			return nil, fmt.Errorf("field %q is not in the file's group", want.Row.Names[i])
		}
		k, err := b.build(fields[idx], want.Row.Types[i], false)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", want.Row.Names[i], err)
		}
		n.kids = append(n.kids, k)
		n.below = append(n.below, k.below...)
	}
	if len(n.kids) == 0 {
		// no field read: presence still needs a leaf of the group
		return nil, fmt.Errorf("the nested row reads no field")
	}
	n.first = n.kids[0].first
	// every leaf below a null row has one entry to skip, read or not
	return n, nil
}

// pqConv says how a leaf's parquet values become values of its file type.
type pqConv uint8

const (
	cvNull pqConv = iota
	cvBool
	cvInt32
	cvInt64
	cvUint32
	cvFloat
	cvDouble
	cvString
	cvBytes
	cvDecimal
	cvDate
	cvTimeMillis
	cvTimeMicros
	cvTimeNanos
	cvTsMillis
	cvTsMicros
	cvTsNanos
	cvTsMillisUTC // adjusted to UTC: an instant, shown in the process's zone
	cvTsMicrosUTC
	cvTsNanosUTC
	cvInt96
)

func (b *pqReadBuilder) leaf(n *pqRead, col *pq.Column) (*pqRead, error) {
	t := col.Type()
	ft, err := parquetLeafType(t)
	if err != nil {
		return nil, err
	}
	n.shape = shapeLeaf
	n.cur = b.cursor(col)
	n.first, n.below = n.cur, []*pqCursor{n.cur}
	n.from = ft
	n.conv = leafConv(t, ft)
	if ft.Kind == types.Decimal {
		n.scale = ft.Scale
		n.fixed = t.Kind() == pq.FixedLenByteArray || t.Kind() == pq.ByteArray
	}
	if !ft.Equal(n.want) {
		if !canCast(ft, n.want) {
			return nil, fmt.Errorf("the file holds %s (%s), which cannot be read as %s", ft, t, n.want)
		}
		n.cast = true
	}
	return n, nil
}

func leafConv(t pq.Type, ft types.DataType) pqConv {
	unsigned := false
	if lt := t.LogicalType(); lt != nil {
		switch v := lt.Value.(type) {
		case *pqformat.TimeType:
			return unitConv(v.Unit, cvTimeMillis, cvTimeMicros, cvTimeNanos)
		case *pqformat.TimestampType:
			c := unitConv(v.Unit, cvTsMillis, cvTsMicros, cvTsNanos)
			if v.IsAdjustedToUTC {
				c += cvTsMillisUTC - cvTsMillis
			}
			return c
		case *pqformat.IntType:
			unsigned = !v.IsSigned
		}
	}
	if ct := t.ConvertedType(); ct != nil && (t.LogicalType() == nil || t.LogicalType().Value == nil) {
		switch *ct {
		case deprecated.TimeMillis:
			return cvTimeMillis
		case deprecated.TimeMicros:
			return cvTimeMicros
		case deprecated.TimestampMillis:
			return cvTsMillisUTC
		case deprecated.TimestampMicros:
			return cvTsMicrosUTC
		case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32:
			unsigned = true
		}
	}
	switch ft.Kind {
	case types.Null:
		return cvNull
	case types.Boolean:
		return cvBool
	case types.Decimal:
		return cvDecimal
	case types.Date:
		return cvDate
	case types.Float:
		return cvFloat
	case types.Double:
		return cvDouble
	case types.String:
		return cvString
	case types.Bytes:
		return cvBytes
	case types.Timestamp:
		return cvInt96 // INT96, or a 12-byte fixed array holding one
	}
	if t.Kind() == pq.Int64 {
		return cvInt64
	}
	if unsigned {
		return cvUint32
	}
	return cvInt32
}

// unitConv picks the conversion of a time unit: micros, nanos, or millis for any other.
func unitConv(u pqformat.TimeUnit, millis, micros, nanos pqConv) pqConv {
	switch u.Value.(type) {
	case *pqformat.MicroSeconds:
		return micros
	case *pqformat.NanoSeconds:
		return nanos
	}
	return millis
}

// skip consumes the entry of a null (or empty) value in every leaf below n.
func (n *pqRead) skip() error {
	for _, c := range n.below {
		if _, err := c.next(); err != nil {
			return err
		}
	}
	return nil
}

// readLeaf reads the next value of a leaf.
func (n *pqRead) readLeaf(dst *row.Value, a *row.Arena) error {
	v, err := n.cur.next()
	if err != nil {
		return err
	}
	if v.IsNull() || v.DefinitionLevel() < n.def {
		dst.SetNull()
		return nil
	}
	if err := n.convert(v, dst, a); err != nil {
		return err
	}
	if n.cast {
		return castValue(dst, n.from, n.want)
	}
	return nil
}

// read assembles the next value of n from its leaves.
func (n *pqRead) read(dst *row.Value, a *row.Arena) error {
	if n.shape == shapeLeaf {
		return n.readLeaf(dst, a)
	}
	v, err := n.first.peek()
	if err != nil {
		return err
	}
	d := v.DefinitionLevel()
	if d < n.def {
		dst.SetNull()
		return n.skip()
	}
	switch n.shape {
	case shapeRow:
		fields := make([]row.Value, len(n.kids))
		for i, k := range n.kids {
			if err := k.read(&fields[i], a); err != nil {
				return err
			}
		}
		*dst = row.RowValue(fields)
		return nil
	case shapeList:
		if d == n.def {
			*dst = row.ArrayValue([]row.Value{})
			return n.skip()
		}
		var elems []row.Value
		for {
			if err := n.assemble(); err != nil {
				return err
			}
			var e row.Value
			if err := n.kids[0].read(&e, a); err != nil {
				return err
			}
			elems = append(elems, e)
			if n.first.peekRep() != n.rep {
				break
			}
		}
		*dst = row.ArrayValue(elems)
		return nil
	}
	m := &row.MapValue{}
	if d > n.def {
		for {
			if err := n.assemble(); err != nil {
				return err
			}
			var k, v row.Value
			if err := n.kids[0].read(&k, a); err != nil {
				return err
			}
			if n.kids[1] != nil {
				if err := n.kids[1].read(&v, a); err != nil {
					return err
				}
			}
			m.Keys, m.Vals = append(m.Keys, k), append(m.Vals, v)
			if n.first.peekRep() != n.rep {
				break
			}
		}
	} else if err := n.skip(); err != nil {
		return err
	}
	*dst = row.MapOfValues(m)
	return nil
}

// assemble counts one more element of a list or map against the row's values.
func (n *pqRead) assemble() error {
	if *n.left--; *n.left < 0 {
		return fmt.Errorf("the row's lists and maps hold more than %d values", MaxRowValues)
	}
	return nil
}

// convert turns a present parquet value into a value of the leaf's file type.
func (n *pqRead) convert(v *pq.Value, dst *row.Value, a *row.Arena) error {
	k := n.from.Kind
	switch n.conv {
	case cvBool:
		b := int64(0)
		if v.Boolean() {
			b = 1
		}
		dst.SetScalar(types.Boolean, b)
	case cvInt32:
		dst.SetScalar(k, int64(v.Int32()))
	case cvUint32:
		dst.SetScalar(k, int64(v.Uint32()))
	case cvInt64:
		dst.SetScalar(k, v.Int64())
	case cvFloat:
		dst.SetScalar(types.Float, int64(math.Float32bits(v.Float())))
	case cvDouble:
		dst.SetScalar(types.Double, int64(math.Float64bits(v.Double())))
	case cvString:
		dst.SetString(a.Keep(v.ByteArray()))
	case cvBytes:
		dst.SetString(a.Keep(v.ByteArray()))
		dst.T = types.Bytes
	case cvDate:
		dst.SetScalar(types.Date, int64(v.Int32()))
	case cvTimeMillis:
		dst.SetScalar(types.Time, int64(v.Int32())*int64(time.Millisecond))
	case cvTimeMicros:
		dst.SetScalar(types.Time, v.Int64()*int64(time.Microsecond))
	case cvTimeNanos:
		dst.SetScalar(types.Time, v.Int64())
	case cvTsMillis, cvTsMillisUTC:
		ns := v.Int64() * int64(time.Millisecond)
		if n.conv == cvTsMillisUTC {
			ns = wallNanos(ns)
		}
		dst.SetScalar(types.Timestamp, ns)
	case cvTsMicros, cvTsMicrosUTC:
		ns := v.Int64() * int64(time.Microsecond)
		if n.conv == cvTsMicrosUTC {
			ns = wallNanos(ns)
		}
		dst.SetScalar(types.Timestamp, ns)
	case cvTsNanos, cvTsNanosUTC:
		ns := v.Int64()
		if n.conv == cvTsNanosUTC {
			ns = wallNanos(ns)
		}
		dst.SetScalar(types.Timestamp, ns)
	case cvInt96:
		b := v.ByteArray()
		if len(b) != 12 {
			return fmt.Errorf("an INT96 timestamp of %d bytes", len(b))
		}
		tod := int64(binary.LittleEndian.Uint64(b))
		day := int64(binary.LittleEndian.Uint32(b[8:])) - julianUnixEpoch
		dst.SetScalar(types.Timestamp, wallNanos(day*civil.NanosPerDay+tod))
	case cvDecimal:
		var u *big.Int
		switch {
		case n.fixed:
			u = signedBig(v.ByteArray())
		case v.Kind() == pq.Int32:
			u = big.NewInt(int64(v.Int32()))
		default:
			u = big.NewInt(v.Int64())
		}
		*dst = row.DecimalValue(u, n.scale)
	default:
		dst.SetNull()
	}
	return nil
}

// signedBig reads a big-endian two's complement integer.
func signedBig(b []byte) *big.Int {
	if len(b) <= 8 {
		var n int64
		if len(b) > 0 && b[0]&0x80 != 0 {
			n = -1
		}
		for _, c := range b {
			n = n<<8 | int64(c)
		}
		return big.NewInt(n)
	}
	u := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

// appendText appends v as text as SeaTunnel casts a value to a string: a decimal as Java's
// BigDecimal.toString (1E-8), anything else as row.AppendText writes it.
func appendText(b []byte, v row.Value) []byte {
	if v.T == types.Decimal {
		return row.AppendJavaDecimal(b, v)
	}
	return row.AppendText(b, v)
}

// canCast reports whether a value of the file's type from can be read as the declared type
// to: an integer as a wider (or any, in range) integer, a float or a decimal; a float as a
// double; a decimal at another scale or as a double; a date as a timestamp; a timestamp as
// its date or time of day; bytes and strings as each other; any primitive as its text.
func canCast(from, to types.DataType) bool {
	if from.Equal(to) {
		return true
	}
	f, t := from.Kind, to.Kind
	switch {
	case t == types.String:
		return f < types.Array
	case f.IsInteger():
		return t.IsInteger() || t == types.Float || t == types.Double || t == types.Decimal
	case f == types.Float:
		return t == types.Double
	case f == types.Decimal:
		return t == types.Decimal || t == types.Double
	case f == types.Date:
		return t == types.Timestamp
	case f == types.Timestamp:
		return t == types.Date || t == types.Time
	case f == types.String:
		return t == types.Bytes
	case f == types.Null:
		return true
	}
	return false
}

// castValue converts v, of type from, to the type to (canCast says it can).
func castValue(v *row.Value, from, to types.DataType) error {
	if v.T == types.Null {
		return nil
	}
	f, t := from.Kind, to.Kind
	switch {
	case t == types.String:
		v.SetString(string(appendText(nil, *v)))
	case t == types.Bytes:
		v.T = types.Bytes
	case f.IsInteger() && t.IsInteger():
		if !t.Fits(v.I) {
			return fmt.Errorf("%d does not fit %s", v.I, t)
		}
		v.T = t
	case f.IsInteger() && t == types.Float:
		v.SetScalar(types.Float, int64(math.Float32bits(float32(v.I))))
	case f.IsInteger() && t == types.Double:
		v.SetScalar(types.Double, int64(math.Float64bits(float64(v.I))))
	case f.IsInteger() && t == types.Decimal:
		d, err := row.DecimalFromRat(new(big.Rat).SetInt64(v.I), to.Precision, to.Scale)
		if err != nil {
			return err
		}
		*v = d
	case f == types.Float:
		v.SetScalar(types.Double, int64(math.Float64bits(float64(v.Float32()))))
	case f == types.Decimal && t == types.Decimal:
		d, err := row.DecimalFromRat(row.DecimalRat(*v), to.Precision, to.Scale)
		if err != nil {
			return err
		}
		*v = d
	case f == types.Decimal:
		x, _ := v.AsFloat64()
		v.SetScalar(types.Double, int64(math.Float64bits(x)))
	case f == types.Date:
		v.SetScalar(types.Timestamp, v.I*civil.NanosPerDay)
	case f == types.Timestamp && t == types.Date:
		v.SetScalar(types.Date, civil.FloorDiv(v.I, civil.NanosPerDay))
	case f == types.Timestamp && t == types.Time:
		v.SetScalar(types.Time, v.I-civil.FloorDiv(v.I, civil.NanosPerDay)*civil.NanosPerDay)
	default:
		return fmt.Errorf("%s cannot be read as %s", from, to)
	}
	return nil
}
