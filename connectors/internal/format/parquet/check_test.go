package parquet

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	pqformat "github.com/parquet-go/parquet-go/format"

	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// pqCheckRow is a row of the files the checks are tried on: a column of each encoding
// parquet-go writes, required, optional and repeated. Its leaves are id 0, n 1, name 2,
// city 3, score 4, note 5, tags 6.
type pqCheckRow struct {
	ID    int64    `parquet:"id,delta"`
	N     *int32   `parquet:"n,optional,dict"`
	Name  string   `parquet:"name,delta"`
	City  *string  `parquet:"city,optional,dict"`
	Score float64  `parquet:"score,split"`
	Note  *string  `parquet:"note,optional"`
	Tags  []string `parquet:"tags,list"`
}

// pqCheckColumns are the columns the files are read with.
var pqCheckColumns = func() format.Columns {
	cols := format.Columns{TableID: "default.default"}
	for _, c := range []struct{ name, typ string }{{"id", "bigint"}, {"n", "int"}, {"name", "string"},
		{"city", "string"}, {"score", "double"}, {"note", "string"}, {"tags", "array<string>"}} {
		t, err := types.Parse(c.typ)
		if err != nil {
			panic(err)
		}
		cols.Columns = append(cols.Columns, format.Column{Name: c.name, Type: t, Out: len(cols.Columns)})
	}
	cols.Width = len(cols.Columns)
	return cols
}()

// readFile reads every split of the parquet file data, named name, with pqCheckColumns.
func readFile(ctx context.Context, data []byte, name string) ([]row.Row, error) {
	src := NewSource(pqCheckColumns)
	r := bytes.NewReader(data)
	splits, err := src.Splits(ctx, r, int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var rows []row.Row
	for _, s := range splits {
		rr, err := src.Open(r, int64(len(data)), name, s)
		if err != nil {
			return rows, err
		}
		for done := false; !done; {
			b := row.NewBatch(256)
			done, err = rr.Next(ctx, b)
			for i := range b.Rows {
				rows = append(rows, row.Row{Kind: b.Rows[i].Kind, Fields: append([]row.Value(nil), b.Rows[i].Fields...)})
			}
			b.Release()
			if err != nil {
				rr.Close()
				return rows, err
			}
		}
		if err := rr.Close(); err != nil {
			return rows, err
		}
	}
	return rows, nil
}

func pqCheckRows(n int) []pqCheckRow {
	out := make([]pqCheckRow, n)
	cities := []string{"Amsterdam", "Berlin", "Lisbon"}
	for i := range out {
		r := &out[i]
		r.ID, r.Name, r.Score = int64(i)*7, fmt.Sprintf("name-%05d", i), float64(i)/4
		if i%3 != 0 {
			v := int32(i % 5)
			r.N = &v
		}
		if i%4 != 0 {
			r.City = &cities[i%3]
		}
		if i%2 == 0 {
			s := strings.Repeat("x", i%17)
			r.Note = &s
		}
		for k := 0; k < i%4; k++ {
			r.Tags = append(r.Tags, fmt.Sprintf("t%d", k))
		}
	}
	return out
}

// writePQCheck writes rows in row groups of 1000 and pages of about 1 KiB.
func writePQCheck(t testing.TB, rows []pqCheckRow, codec compress.Codec, pageVersion int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pq.NewGenericWriter[pqCheckRow](&buf, pq.Compression(codec), pq.DataPageVersion(pageVersion),
		pq.PageBufferSize(1<<10), pq.MaxRowsPerRowGroup(1000))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkPQRows compares rows read with pqCheckSchema to what was written.
func checkPQRows(t *testing.T, got []row.Row, want []pqCheckRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	str := func(s *string) string {
		if s == nil {
			return "<null>"
		}
		return *s
	}
	for i, w := range want {
		f := got[i].Fields
		n := "<null>"
		if w.N != nil {
			n = fmt.Sprint(*w.N)
		}
		exp := fmt.Sprintf("%d|%s|%s|%s|%g|%s|%d", w.ID, n, w.Name, str(w.City), w.Score, str(w.Note), len(w.Tags))
		gotN := "<null>"
		if !f[1].IsNull() {
			gotN = fmt.Sprint(f[1].I)
		}
		score, _ := f[4].AsFloat64()
		act := fmt.Sprintf("%d|%s|%s|%s|%g|%s|%d", f[0].I, gotN, f[2].Str(), nullStr(f[3]), score, nullStr(f[5]), len(f[6].Elems()))
		if act != exp {
			t.Fatalf("row %d: %s, want %s", i, act, exp)
		}
	}
}

func nullStr(v row.Value) string {
	if v.IsNull() {
		return "<null>"
	}
	return v.Str()
}

var pqCheckCodecs = []struct {
	name  string
	codec compress.Codec
}{
	{"none", &pq.Uncompressed},
	{"snappy", &pq.Snappy},
	{"gzip", &pq.Gzip},
	{"zstd", &pq.Zstd},
	{"lz4", &pq.Lz4Raw},
	{"brotli", &pq.Brotli},
}

// The checks refuse no file parquet-go writes: every codec, both page versions, plain,
// dictionary, delta and byte-stream-split encodings, nulls and lists, many pages and row
// groups.
func TestParquetChecksPassWrittenFiles(t *testing.T) {
	want := pqCheckRows(2500)
	for _, c := range pqCheckCodecs {
		for _, version := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s-v%d", c.name, version), func(t *testing.T) {
				got, err := readFile(context.Background(), writePQCheck(t, want, c.codec, version), "a.parquet")
				if err != nil {
					t.Fatal(err)
				}
				checkPQRows(t, got, want)
			})
		}
	}
}

// ---- surgery on parquet files

// pqFooter splits a parquet file into its data and its decoded footer.
func pqFooter(t testing.TB, data []byte) ([]byte, *pqformat.FileMetaData) {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	start := len(data) - 8 - n
	md := &pqformat.FileMetaData{}
	if err := thrift.Unmarshal(&thrift.CompactProtocol{}, data[start:len(data)-8], md); err != nil {
		t.Fatal(err)
	}
	return data[:start], md
}

// withFooter appends footer, as its thrift, to the data of a parquet file.
func withFooter(data, footer []byte) []byte {
	out := append(append([]byte(nil), data...), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// encodeThrift is v in compact thrift.
func encodeThrift(t testing.TB, v any) []byte {
	t.Helper()
	b, err := thrift.Marshal(&thrift.CompactProtocol{}, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// editFooter rewrites the footer of a parquet file.
func editFooter(t testing.TB, file []byte, edit func(*pqformat.FileMetaData)) []byte {
	data, md := pqFooter(t, file)
	edit(md)
	return withFooter(data, encodeThrift(t, md))
}

// editPage rewrites page k (counting a dictionary page) of column chunk col of row group g:
// edit may change its header and returns its new data. The offsets after it move with it.
// It returns the file and where the page starts.
func editPage(t testing.TB, file []byte, g, col, k int, edit func(h *pqformat.PageHeader, data []byte) []byte) ([]byte, int64) {
	t.Helper()
	data, md := pqFooter(t, file)
	m := &md.RowGroups[g].Columns[col].MetaData
	pos := m.DataPageOffset
	if m.DictionaryPageOffset != 0 {
		pos = m.DictionaryPageOffset
	}
	for i := 0; ; i++ {
		h := &pqformat.PageHeader{}
		r := (&thrift.CompactProtocol{}).NewReaderFromBytes(data[pos:])
		if err := thrift.NewDecoder(r).Decode(h); err != nil {
			t.Fatal(err)
		}
		hlen, size := int64(r.BytesRead()), int64(h.CompressedPageSize)
		if i < k {
			pos += hlen + size
			continue
		}
		body := edit(h, append([]byte(nil), data[pos+hlen:pos+hlen+size]...))
		page := append(encodeThrift(t, h), body...)
		moved := int64(len(page)) - hlen - size
		out := append(append(append([]byte(nil), data[:pos]...), page...), data[pos+hlen+size:]...)
		shift := func(off *int64) {
			if *off > pos {
				*off += moved
			}
		}
		for gi := range md.RowGroups {
			for ci := range md.RowGroups[gi].Columns {
				c := &md.RowGroups[gi].Columns[ci]
				shift(&c.FileOffset)
				shift(&c.MetaData.DataPageOffset)
				shift(&c.MetaData.DictionaryPageOffset)
				shift(&c.ColumnIndexOffset)
				shift(&c.OffsetIndexOffset)
			}
		}
		m.TotalCompressedSize += moved
		m.TotalUncompressedSize += moved
		return withFooter(out, encodeThrift(t, md)), pos
	}
}

// resize makes a page's sizes say its data is n bytes longer.
func resize(h *pqformat.PageHeader, n int) {
	h.CompressedPageSize += int32(n)
	h.UncompressedPageSize += int32(n)
}

// thriftBytes builds compact thrift by hand, for footers parquet-go would not write.
type thriftBytes []byte

func (b thriftBytes) field(delta, typ byte) thriftBytes { return append(b, delta<<4|typ) }
func (b thriftBytes) uvarint(v uint64) thriftBytes      { return binary.AppendUvarint(b, v) }
func (b thriftBytes) list(n uint64, elem byte) thriftBytes {
	return append(b, 0xf0|elem).uvarint(n)
}

// readBounded reads a file and returns its error, failing the test if reading takes more
// than a few seconds or allocates more than 128 MiB.
func readBounded(t *testing.T, data []byte, name string) error {
	t.Helper()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before, start := ms.TotalAlloc, time.Now()
	_, err := readFile(context.Background(), data, name)
	runtime.ReadMemStats(&ms)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("reading took %s", d)
	}
	if alloc := ms.TotalAlloc - before; alloc > 128<<20 {
		t.Errorf("reading allocated %d MiB", alloc>>20)
	}
	return err
}

// A broken footer, column chunk or page is an error naming the file and where it broke,
// found before parquet-go allocates by what is broken: no hang, no panic, no exhausted
// memory.
func TestParquetBrokenFiles(t *testing.T) {
	rows := pqCheckRows(2500)
	plain := writePQCheck(t, rows, &pq.Uncompressed, 2)
	plainV1 := writePQCheck(t, rows, &pq.Uncompressed, 1)
	codecs := map[string][]byte{}
	for _, c := range pqCheckCodecs {
		codecs[c.name] = writePQCheck(t, rows, c.codec, 2)
	}
	data, _ := pqFooter(t, plain)
	size := int64(len(plain))

	type result struct {
		file []byte
		want []string
	}
	footer := func(edit func(*pqformat.FileMetaData), want ...string) func(*testing.T) result {
		return func(t *testing.T) result { return result{editFooter(t, plain, edit), want} }
	}
	raw := func(footer thriftBytes, want ...string) func(*testing.T) result {
		return func(t *testing.T) result { return result{withFooter(data, footer), want} }
	}
	// page edits page k of column col of row group g of base; the error names the page
	page := func(base []byte, g, col, k int, edit func(h *pqformat.PageHeader, data []byte) []byte, want ...string) func(*testing.T) result {
		return func(t *testing.T) result {
			file, pos := editPage(t, base, g, col, k, edit)
			return result{file, append(want, fmt.Sprintf("row group %d, column %q: page at byte %d", g, []string{"id", "n", "name", "city", "score", "note", "tags.list.element"}[col], pos))}
		}
	}
	header := func(edit func(h *pqformat.PageHeader)) func(*pqformat.PageHeader, []byte) []byte {
		return func(h *pqformat.PageHeader, data []byte) []byte { edit(h); return data }
	}
	// levels replaces the definition levels of a v2 page with one run of n values
	levels := func(n uint64) func(*pqformat.PageHeader, []byte) []byte {
		return func(h *pqformat.PageHeader, data []byte) []byte {
			v := &h.DataPageHeaderV2.V
			run := binary.AppendUvarint(nil, n<<1)
			run = append(run, 1)
			rep := data[:v.RepetitionLevelsByteLength]
			rest := data[v.RepetitionLevelsByteLength+v.DefinitionLevelsByteLength:]
			resize(h, len(run)-int(v.DefinitionLevelsByteLength))
			v.DefinitionLevelsByteLength = int32(len(run))
			return append(append(append([]byte(nil), rep...), run...), rest...)
		}
	}
	// values replaces the values of an uncompressed v2 page
	values := func(edit func(old []byte) []byte) func(*pqformat.PageHeader, []byte) []byte {
		return func(h *pqformat.PageHeader, data []byte) []byte {
			v := &h.DataPageHeaderV2.V
			lv := int(v.RepetitionLevelsByteLength + v.DefinitionLevelsByteLength)
			vals := edit(data[lv:])
			resize(h, len(vals)-(len(data)-lv))
			return append(append([]byte(nil), data[:lv]...), vals...)
		}
	}
	// garbage replaces the compressed values of a v2 page with bytes no codec reads
	garbage := func(h *pqformat.PageHeader, data []byte) []byte {
		lv := int(h.DataPageHeaderV2.V.RepetitionLevelsByteLength + h.DataPageHeaderV2.V.DefinitionLevelsByteLength)
		for i := lv; i < len(data); i++ {
			data[i] = 0xff
		}
		return data
	}
	deltaInts := func(v ...int32) []byte {
		b, err := (&delta.BinaryPackedEncoding{}).EncodeInt32(nil, v)
		if err != nil {
			panic(err)
		}
		return b
	}
	nName := h0values(t, plain, 0, 2) // values of the first page of column name
	smaller := header(func(h *pqformat.PageHeader) { h.UncompressedPageSize-- })

	cases := []struct {
		name string
		make func(*testing.T) result
	}{
		// the footer's thrift
		{"a list of two billion schema elements", raw(thriftBytes{0x15, 0x02}.field(1, thList).list(1<<31-1, thStruct), "footer at byte", "the metadata runs past the footer's")},
		{"a million empty row groups", raw(append(thriftBytes{0x15, 0x02}.field(3, thList).list(1<<20, thStruct), make([]byte, 1<<20+1)...), "would take more memory than thrift of")},
		{"structs nested a thousand deep", raw(append(append(thriftBytes{0x15, 0x02}, bytes.Repeat([]byte{0x1c}, 1000)...), make([]byte, 1001)...), "thrift nested more than 32 deep at byte")},
		{"a string past the footer", raw(thriftBytes{0x15, 0x02, 0x28}.uvarint(1<<30), "the metadata runs past the footer's")},
		// the schema and the row groups
		{"a schema nested 300 deep", footer(func(md *pqformat.FileMetaData) {
			md.Schema = nil
			for i := 0; i < 300; i++ {
				md.Schema = append(md.Schema, pqformat.SchemaElement{Name: fmt.Sprint("g", i), NumChildren: thrift.New[int32](1)})
			}
			md.Schema = append(md.Schema, pqformat.SchemaElement{Name: "leaf", Type: thrift.New(pqformat.Int32)})
		}, "schema: element 256 (\"g256\") is nested 256 deep, deeper than 255")},
		{"more children than elements", footer(func(md *pqformat.FileMetaData) { md.Schema[0].NumChildren.V += 3 }, "schema: its groups declare 3 more children than its")},
		{"a column with children", footer(func(md *pqformat.FileMetaData) { md.Schema[1].NumChildren = thrift.New[int32](2) }, `element 1 ("id") declares 2 children`)},
		{"a fixed array of a gigabyte", footer(func(md *pqformat.FileMetaData) {
			md.Schema[1].Type, md.Schema[1].TypeLength = thrift.New(pqformat.FixedLenByteArray), thrift.New[int32](1<<30)
		}, `column "id": FIXED_LEN_BYTE_ARRAY of length 1073741824`)},
		{"a column annotated as a list", footer(func(md *pqformat.FileMetaData) {
			md.Schema[1].LogicalType = pqformat.LogicalType{Value: &pqformat.ListType{}}
		},
			`column "id": a INT64 annotated LIST, which only a group can be`)},
		{"a column converted to a map", footer(func(md *pqformat.FileMetaData) { md.Schema[1].ConvertedType = thrift.New(deprecated.Map) },
			`column "id": a INT64 annotated MAP, which only a group can be`)},
		{"rows that do not add up", footer(func(md *pqformat.FileMetaData) { md.NumRows = 99 }, "the file counts 99 rows, its row groups 2500")},
		{"negative rows", footer(func(md *pqformat.FileMetaData) { md.RowGroups[1].NumRows = -1 }, "row group 1: -1 rows")},
		{"a column chunk missing", footer(func(md *pqformat.FileMetaData) { md.RowGroups[2].Columns = md.RowGroups[2].Columns[:6] }, "row group 2: 6 column chunks for the schema's 7 columns")},
		// column chunks
		{"a chunk past the file", footer(func(md *pqformat.FileMetaData) { md.RowGroups[1].Columns[2].MetaData.DataPageOffset = 2 * size },
			fmt.Sprintf(`row group 1, column "name": it starts at byte %d, outside the file's data`, 2*size))},
		{"a chunk longer than the file", footer(func(md *pqformat.FileMetaData) { md.RowGroups[1].Columns[4].MetaData.TotalCompressedSize = 1 << 40 },
			`row group 1, column "score": its 1099511627776 bytes from byte`, "run past the file's data")},
		{"codec LZO", footer(func(md *pqformat.FileMetaData) {
			for g := range md.RowGroups {
				md.RowGroups[g].Columns[0].MetaData.Codec = pqformat.LZO
			}
		}, `row group 0, column "id": codec LZO cannot be read`)},
		{"a codec of its own", footer(func(md *pqformat.FileMetaData) { md.RowGroups[1].Columns[0].MetaData.Codec = pqformat.Snappy },
			`row group 1, column "id": codec SNAPPY differs from the UNCOMPRESSED of row group 0`)},
		{"fewer values than rows", footer(func(md *pqformat.FileMetaData) { md.RowGroups[0].Columns[3].MetaData.NumValues = 10 }, `row group 0, column "city": 10 values for 1000 rows`)},
		{"more values than its pages", footer(func(md *pqformat.FileMetaData) { md.RowGroups[0].Columns[3].MetaData.NumValues += 5 },
			`row group 0, column "city": its pages hold 1000 values, its metadata says 1005`)},
		{"data in another file", footer(func(md *pqformat.FileMetaData) { md.RowGroups[0].Columns[5].FilePath = "other.parquet" }, `column "note": its data is in another file, "other.parquet"`)},
		// page headers
		{"a page longer than its chunk", page(plain, 0, 2, 0, header(func(h *pqformat.PageHeader) { h.CompressedPageSize = 1<<31 - 1 }), "its 2147483647 bytes run past the column chunk's end")},
		{"a page of two gigabytes", page(plain, 1, 1, 1, header(func(h *pqformat.PageHeader) { h.UncompressedPageSize = 1<<31 - 1 }), "it decompresses to 2147483647 bytes, more than the 1073741824 a page may")},
		{"a page of a billion values", page(plain, 0, 4, 0, header(func(h *pqformat.PageHeader) { h.DataPageHeaderV2.V.NumValues = 1 << 30 }), "it holds 1073741824 values (at most 33554432)")},
		{"more values than the chunk", page(plain, 0, 4, 0, header(func(h *pqformat.PageHeader) {
			h.DataPageHeaderV2.V.NumValues, h.DataPageHeaderV2.V.NumRows = 1001, 1001
		}), "its 1001 values are more than the 1000 the column chunk has left")},
		{"an index page", page(plain, 0, 0, 0, header(func(h *pqformat.PageHeader) { h.Type = pqformat.IndexPage }), "a page of type INDEX_PAGE, which Strait does not read")},
		{"levels longer than the page", page(plain, 0, 5, 0, header(func(h *pqformat.PageHeader) { h.DataPageHeaderV2.V.DefinitionLevelsByteLength = 1 << 20 }), "levels of 0 and 1048576 bytes")},
		// page data
		{"a run of two billion levels", page(plain, 0, 5, 1, levels(1<<31-1), "definition levels: runs of more than the page's")},
		{"a run of two billion dictionary indices", page(plain, 0, 3, 1, values(func(old []byte) []byte {
			return append(binary.AppendUvarint([]byte{old[0]}, (1<<31-1)<<1), 0)
		}), "values (RLE_DICTIONARY): runs of more than the page's")},
		{"delta of two billion values", page(plain, 0, 0, 0, values(func(old []byte) []byte {
			return append(binary.AppendUvarint([]byte{0x80, 0x01, 0x04}, 1<<31-1), 0)
		}), "values (DELTA_BINARY_PACKED): DELTA_BINARY_PACKED of 2147483647 values in a page of")},
		{"a prefix longer than the value before", page(plain, 0, 2, 0, values(func(old []byte) []byte {
			_, suffixes, err := deltaRun(old, 1<<20)
			if err != nil {
				panic(err)
			}
			p := make([]int32, nName)
			p[1] = 1 << 30
			return append(deltaInts(p...), suffixes...)
		}), "values (DELTA_BYTE_ARRAY): value 1 shares 1073741824 bytes with one of")},
		{"suffixes past the page", page(plain, 0, 2, 0, values(func(old []byte) []byte {
			s := make([]int32, nName)
			s[0] = 1 << 30
			return append(deltaInts(make([]int32, nName)...), deltaInts(s...)...)
		}), "values (DELTA_BYTE_ARRAY): suffixes: lengths past the")},
		{"v1 levels past the page", page(plainV1, 0, 5, 0, func(h *pqformat.PageHeader, data []byte) []byte {
			binary.LittleEndian.PutUint32(data, 1<<20)
			return data
		}, "its definition levels run past its")},
		// compressed pages
		{"lz4 that does not decompress", page(codecs["lz4"], 0, 4, 0, garbage, "LZ4_RAW: broken, or it decompresses to more than")},
		{"gzip that does not decompress", page(codecs["gzip"], 0, 4, 0, garbage, "GZIP: gzip: invalid header")},
		{"snappy of more than its header says", page(codecs["snappy"], 0, 4, 0, smaller, "SNAPPY: it decompresses to")},
		{"gzip of more than its header says", page(codecs["gzip"], 0, 4, 0, smaller, "GZIP: it decompresses to more than")},
		{"zstd of more than its header says", page(codecs["zstd"], 0, 4, 0, smaller, "ZSTD: ")},
		{"brotli of more than its header says", page(codecs["brotli"], 0, 4, 0, smaller, "BROTLI: it decompresses to more than")},
		{"lz4 of more than its header says", page(codecs["lz4"], 0, 4, 0, smaller, "LZ4_RAW: broken, or it decompresses to more than")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := c.make(t)
			const path = "a.parquet"
			err := readBounded(t, res.file, path)
			if err == nil {
				t.Fatal("read the broken file without an error")
			}
			for _, w := range append(res.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\ndoes not say %q", err, w)
				}
			}
		})
	}
}

// h0values is the value count of the first data page of column col of row group g.
func h0values(t testing.TB, file []byte, g, col int) int {
	t.Helper()
	var n int
	editPage(t, file, g, col, 0, func(h *pqformat.PageHeader, data []byte) []byte {
		n = int(pageValues(h))
		return data
	})
	return n
}

// The lists and maps of one row assemble a bounded number of values.
func TestParquetRowValuesBounded(t *testing.T) {
	defer func(n int) { MaxRowValues = n }(MaxRowValues)
	MaxRowValues = 5
	rows := pqCheckRows(8)
	rows[6].Tags = []string{"a", "b", "c", "d", "e", "f"}
	const path = "a.parquet"
	_, err := readFile(context.Background(), writePQCheck(t, rows, &pq.Uncompressed, 2), path)
	if err == nil || !strings.Contains(err.Error(), path+": row group 0, row 7: column \"tags\": the row's lists and maps hold more than 5 values") {
		t.Errorf("a row of 6 tags: %v", err)
	}
}

// FuzzParquetPages reads arbitrary changes of files of every codec, page version and
// encoding: rows, or an error naming the file, never a panic, a hang or exhausted memory.
func FuzzParquetPages(f *testing.F) {
	rows := pqCheckRows(300)
	for _, c := range pqCheckCodecs {
		for _, version := range []int{1, 2} {
			f.Add(writePQCheck(f, rows, c.codec, version))
		}
	}
	src := NewSource(pqCheckColumns)
	const name = "fuzz.parquet"
	f.Fuzz(func(t *testing.T, data []byte) {
		named := func(err error) {
			if err != nil && !strings.Contains(err.Error(), name) {
				t.Fatalf("the error does not name the file: %v", err)
			}
		}
		rr, err := src.Open(bytes.NewReader(data), int64(len(data)), name, format.Split{})
		if err != nil {
			named(err)
			return
		}
		defer rr.Close()
		for i := 0; i < 50; i++ {
			b := row.NewBatch(64)
			done, err := rr.Next(context.Background(), b)
			b.Release()
			named(err)
			if err != nil || done {
				return
			}
		}
	})
}
