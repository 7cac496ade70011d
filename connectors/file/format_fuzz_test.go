package file

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/row"
)

// drain reads every row of a record reader, as the source does, and returns its error.
func drain(rr format.Reader) error {
	defer rr.Close()
	for i := 0; i < 1000; i++ {
		b := row.NewBatch(64)
		done, err := rr.Next(context.Background(), b)
		b.Release()
		if err != nil || done {
			return err
		}
	}
	return nil
}

// fuzzFormat feeds arbitrary files to a record format's reader: it reads rows or returns an
// error, never panics.
func fuzzFormat(f *testing.F, fileFormat, schema string) {
	tbl, vals := allTypes()
	dir := f.TempDir()
	s := mustSink(f, sinkConf(dir, "file_format_type = "+fileFormat), tbl)
	writeAll(f, s, batchOf(tbl, parquetValues(vals), parquetValues(vals)))
	for _, content := range files(f, filepath.Join(dir, "out")) {
		f.Add([]byte(content))
	}
	src := mustSource(f, srcConf(filepath.Join(dir, "out"), "file_format_type = "+fileFormat+"\n"+schema+schemaOf(tbl)))
	f.Fuzz(func(t *testing.T, data []byte) {
		rr, err := src.cfg.records.Open(bytes.NewReader(data), int64(len(data)), "fuzz", format.Split{})
		if err != nil {
			return
		}
		_ = drain(rr)
	})
}

func FuzzParquetRead(f *testing.F) { fuzzFormat(f, "parquet", "") }

func FuzzExcelRead(f *testing.F) { fuzzFormat(f, "excel", "skip_header_row_number = 1\n") }

// FuzzXML reads arbitrary documents with the xml format, columns as attributes and as
// elements: rows or an error, never a panic.
func FuzzXML(f *testing.F) {
	for _, s := range []string{
		`<RECORDS><RECORD a="1" m="{&quot;k&quot;: 2}" r="1~x" d="2024-01-31" t="16:00:48"/></RECORDS>`,
		"<?xml version=\"1.0\" encoding=\"GBK\"?>\n<R><RECORD><a>1</a><l>[1, null]</l><r>2~<b/>y</r></RECORD></R>",
		`<RECORD a="x"><RECORD a="2"/></RECORD><RECORD`,
		`<a><RECORD><a>&#0;</a></RECORD></a>`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	writeFile(f, filepath.Join(dir, "a.xml"), "<R/>")
	schema := `schema { fields { a = int, m = "map<string, int>", r = { n = int, s = string }, l = "array<bigint>", d = date, t = time, x = "decimal(10, 2)", b = bytes } }`
	var formats []format.Source
	for _, attrs := range []string{"true", "false"} {
		s := mustSource(f, srcConf(dir, "file_format_type = xml\nxml_row_tag = RECORD\nfield_delimiter = \"~\"\nxml_use_attr_format = "+attrs+"\n"+schema))
		formats = append(formats, s.cfg.records)
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, x := range formats {
			rr, err := x.Open(bytes.NewReader(doc), int64(len(doc)), "fuzz.xml", format.Split{})
			if err != nil {
				continue
			}
			_ = drain(rr)
		}
	})
}

// FuzzArchive reads arbitrary bytes as every kind of archive and every codec: files and
// bytes or an error, never a panic.
func FuzzArchive(f *testing.F) {
	text := []byte("a\u0001b\n1\u00012\n")
	for _, kind := range []archiveCodec{archiveZip, archiveTar, archiveTarGz, archiveGz} {
		f.Add(buildArchive(f, kind, []string{"x.txt", "y.txt"}[:map[bool]int{true: 1, false: 2}[kind == archiveGz]], [][]byte{text, text}))
	}
	for _, c := range []compressCodec{codecGzip, codecZstd, codecLZ4} {
		var buf bytes.Buffer
		w, _ := c.compress(&buf)
		w.Write(text)
		w.Close()
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, kind := range []archiveCodec{archiveZip, archiveTar, archiveTarGz, archiveGz} {
			it, err := openArchive(kind, bytes.NewReader(data), int64(len(data)), "fuzz")
			if err != nil {
				continue
			}
			for i := 0; i < 16; i++ {
				_, r, err := it.next()
				if err != nil {
					break
				}
				if _, err := io.Copy(io.Discard, io.LimitReader(r, 64<<10)); err != nil {
					break
				}
			}
			it.close()
		}
		for _, c := range []compressCodec{codecGzip, codecZstd, codecLZ4} {
			r, closer, err := c.decompress(bytes.NewReader(data))
			if err != nil {
				continue
			}
			io.Copy(io.Discard, io.LimitReader(r, 64<<10))
			closer.Close()
		}
	})
}

// FuzzCompressedText reads an arbitrary file through the whole source with an archive, a
// codec and a character set: rows or an error naming the file, never a panic.
func FuzzCompressedText(f *testing.F) {
	text := []byte("1\u0001x\n2\u0001y\n")
	f.Add(buildArchive(f, archiveZip, []string{"a.txt"}, [][]byte{text}))
	var buf bytes.Buffer
	w, _ := codecGzip.compress(&buf)
	w.Write(text)
	w.Close()
	f.Add(buildArchive(f, archiveTar, []string{"a.txt"}, [][]byte{buf.Bytes()}))
	dir := f.TempDir()
	file := filepath.Join(dir, "in", "a.txt.gz")
	writeFile(f, file, "x")
	schema := "schema { fields { n = int, s = string } }"
	var srcs []*Source
	for _, opts := range []string{
		"archive_compress_codec = zip\nencoding = GBK",
		"archive_compress_codec = tar\ncompress_codec = gzip",
		"compress_codec = zstd\nencoding = UTF-16",
		"archive_compress_codec = gz\ncompress_codec = lz4",
	} {
		srcs = append(srcs, mustSource(f, srcConf(filepath.Dir(file), "file_format_type = text\n"+opts+"\n"+schema)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		if err := os.WriteFile(file, data, 0o666); err != nil {
			t.Fatal(err)
		}
		for _, s := range srcs {
			if err := readErr(t, s); err != nil && !bytes.Contains([]byte(err.Error()), []byte(file)) {
				t.Fatalf("the error does not name the file: %v", err)
			}
		}
	})
}

// FuzzBinary reads arbitrary files with the binary format, from any offset a split may
// resume at: the chunks, in order, are the file's bytes from there.
func FuzzBinary(f *testing.F) {
	f.Add([]byte("0123456789"), uint16(0))
	f.Add(bytes.Repeat([]byte{0xff, 0}, 1500), uint16(3))
	dir := f.TempDir()
	writeFile(f, filepath.Join(dir, "a.bin"), "x")
	b := mustSource(f, srcConf(dir, "file_format_type = binary")).cfg.records.(binaryFormat)
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		from := int64(chunk%4) * binaryChunk
		if from > int64(len(data)) {
			from = 0
		}
		rr, err := b.Open(bytes.NewReader(data), int64(len(data)), filepath.Join(dir, "a.bin"), format.Split{Offset: from, Lines: from / binaryChunk})
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		want := from / binaryChunk
		for {
			out := row.NewBatch(3)
			done, err := rr.Next(context.Background(), out)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range out.Rows {
				if r.Fields[2].I != want || r.Fields[1].S != "a.bin" {
					t.Fatalf("chunk %d of %s, want chunk %d of a.bin", r.Fields[2].I, r.Fields[1].S, want)
				}
				want++
				got = append(got, r.Fields[0].S...)
			}
			if done {
				break
			}
		}
		if !bytes.Equal(got, data[from:]) {
			t.Fatalf("%d bytes read, want %d", len(got), len(data)-int(from))
		}
	})
}
