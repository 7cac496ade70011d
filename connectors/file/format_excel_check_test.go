package file

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// rawPart is a part of a workbook as its zip directory declares it.
type rawPart struct {
	name             string
	method           uint16
	compressed, size uint64 // as declared
	data             []byte // the bytes written
}

// rawWorkbook writes the parts of a real workbook, then the parts given, whose declared
// sizes need not be true.
func rawWorkbook(t *testing.T, extra ...rawPart) []byte {
	t.Helper()
	tbl, vals := allTypes()
	dir := t.TempDir()
	writeAll(t, mustSink(t, sinkConf(dir, "file_format_type = excel"), tbl), batchOf(tbl, excelValues(vals)))
	var book []byte
	for _, content := range files(t, filepath.Join(dir, "out")) {
		book = []byte(content)
	}
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
			dir := t.TempDir()
			path := filepath.Join(dir, "a.xlsx")
			if err := os.WriteFile(path, rawWorkbook(t, c.parts...), 0o666); err != nil {
				t.Fatal(err)
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			err := readErr(t, mustSource(t, srcConf(dir, "file_format_type = excel\nschema { fields { a = string } }")))
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
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.xlsx"), string(rawWorkbook(t, rawPart{"docProps/zeros.bin", zip.Deflate, uint64(len(zeros)), 1 << 20, zeros})))
	if rows := readRows(t, mustSource(t, srcConf(dir, "file_format_type = excel\nskip_header_row_number = 1\nschema { fields { a = string } }")), 1); len(rows) != 1 {
		t.Errorf("%d rows", len(rows))
	}
}
