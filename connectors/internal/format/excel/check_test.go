package excel

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// rawPart is a part of a workbook as its zip directory declares it.
type rawPart struct {
	name             string
	method           uint16
	compressed, size uint64 // as declared
	data             []byte // the bytes written
}

// oneColumn is a sheet of one string column a.
var oneColumn = format.Columns{TableID: "default.default", Width: 1,
	Columns: []format.Column{{Name: "a", Type: types.Of(types.String), Out: 0}}}

// readBook reads every row of a workbook with the columns cols.
func readBook(book []byte, name string, cols format.Columns, opts SourceOptions) ([]row.Row, error) {
	src := NewSource(cols, opts)
	rr, err := src.Open(bytes.NewReader(book), int64(len(book)), name, format.Split{})
	if err != nil {
		return nil, err
	}
	defer rr.Close()
	var rows []row.Row
	for done := false; !done; {
		b := row.NewBatch(64)
		done, err = rr.Next(context.Background(), b)
		for i := range b.Rows {
			rows = append(rows, row.Row{Kind: b.Rows[i].Kind, Fields: append([]row.Value(nil), b.Rows[i].Fields...)})
		}
		b.Release()
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// rawWorkbook writes the parts of a real workbook (written by the sink: a header and a row
// of column a), then the parts given, whose declared sizes need not be true.
func rawWorkbook(t *testing.T, extra ...rawPart) []byte {
	t.Helper()
	sink, err := NewSink(config.New(nil, "sink"), format.Written{Fields: []int{0}, Names: []string{"a"},
		Types: []types.DataType{types.Of(types.String)}}, SinkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var written bytes.Buffer
	w, err := sink.Create(&written, "a.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&row.Row{Fields: []row.Value{row.StringValue("x")}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	book := written.Bytes()
	zr, err := zip.NewReader(bytes.NewReader(book), int64(len(book)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range extra {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: p.name, Method: p.method, CompressedSize64: p.compressed, UncompressedSize64: p.size})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(p.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func deflated(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// A workbook whose zip directory declares parts larger than their bytes inflate to, or more
// bytes than the workbook has, is an error naming the file and the part, found before
// excelize allocates by the declared sizes.
func TestExcelZipDirectoryChecked(t *testing.T) {
	small := deflated(t, []byte(strings.Repeat("<x/>", 100)))
	zeros := deflated(t, make([]byte, 1<<20))
	cases := []struct {
		name  string
		parts []rawPart
		want  string
	}{
		{"a part declaring 4 GiB", []rawPart{{"docProps/big.xml", zip.Deflate, uint64(len(small)), 4 << 30, small}},
			`part "docProps/big.xml": it declares 4294967296 bytes, more than its`},
		{"a stored part declaring more than it holds", []rawPart{{"docProps/s.xml", zip.Store, 10, 1 << 30, make([]byte, 10)}},
			`part "docProps/s.xml": stored, it declares 1073741824 bytes in 10`},
		{"parts sharing bytes", []rawPart{{"docProps/a.xml", zip.Deflate, 1 << 20, 1 << 20, small}},
			`part "docProps/a.xml": its 1048576 compressed bytes, with the parts before it, are more than the workbook's`},
		{"a compression method of its own", []rawPart{{"docProps/m.xml", 99, uint64(len(small)), 400, small}},
			`part "docProps/m.xml": compression method 99`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const path = "a.xlsx"
			book := rawWorkbook(t, c.parts...)
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			_, err := readBook(book, path, oneColumn, SourceOptions{})
			runtime.ReadMemStats(&ms)
			if alloc := ms.TotalAlloc - before; alloc > 64<<20 {
				t.Errorf("reading allocated %d MiB", alloc>>20)
			}
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v\ndoes not name the file and say %q", err, c.want)
			}
		})
	}
	// a part that inflates a thousand times is a workbook still
	book := rawWorkbook(t, rawPart{"docProps/zeros.bin", zip.Deflate, uint64(len(zeros)), 1 << 20, zeros})
	if rows, err := readBook(book, "a.xlsx", oneColumn, SourceOptions{SkipHeader: 1}); err != nil || len(rows) != 1 || rows[0].Fields[0].S != "x" {
		t.Errorf("%v rows, %v", rows, err)
	}
}
