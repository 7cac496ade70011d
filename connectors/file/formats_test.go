package file

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

// pollRendered polls r once for up to n rows, and returns them rendered and whether r has
// reached its end.
func pollRendered(ctx context.Context, t *testing.T, r connector.Reader, n int) ([]string, bool) {
	t.Helper()
	b := row.NewBatch(n)
	done := conntest.Poll(ctx, t, r, b)
	var out []string
	for _, rw := range b.Rows {
		out = append(out, render(rw))
	}
	return out, done
}

// readResumed reads the source with one reader in batches of n rows, and at every batch
// snapshots the reader, restores a new one from the snapshot and reads the rest with it:
// each restored reader must give exactly the rows the first one still had to give.
func readResumed(t *testing.T, s *Source, n int) []string {
	t.Helper()
	ctx := context.Background()
	ec := conntest.NewEnumContext(1)
	e, _ := s.CreateEnumerator(ec, nil)
	if err := e.Run(ctx); err != nil {
		t.Fatal(err)
	}
	drainAll := func(r connector.Reader) []string {
		var got []string
		for {
			rows, done := pollRendered(ctx, t, r, n)
			if got = append(got, rows...); done {
				return got
			}
		}
	}
	r := conntest.OpenReader(t, s, connector.ReaderContext{}, ec.Assigned[0])
	var all []string
	var snapshots [][]connector.Split
	var at []int
	for {
		rows, done := pollRendered(ctx, t, r, n)
		if all = append(all, rows...); done {
			break
		}
		st, err := r.SnapshotState(1)
		if err != nil {
			t.Fatal(err)
		}
		snapshots = append(snapshots, st)
		at = append(at, len(all))
	}
	r.Close()
	for i, st := range snapshots {
		r2 := conntest.OpenReader(t, s, connector.ReaderContext{}, st)
		rest := drainAll(r2)
		r2.Close()
		if strings.Join(rest, "\n") != strings.Join(all[at[i]:], "\n") {
			t.Fatalf("restored after %d rows: got %v, want %v", at[i], rest, all[at[i]:])
		}
	}
	return all
}

func gz(t *testing.T, s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func TestResumeInArchivesAndCodecs(t *testing.T) {
	gbk, _ := lookupCharset("GBK")
	cases := []struct {
		name, opts string
		files      map[string][]byte
		want       int
	}{
		{"zip of text with headers", "file_format_type = text\narchive_compress_codec = zip\nskip_header_row_number = 1\nschema { fields { id = int, s = string } }",
			map[string][]byte{"a.zip": buildArchive(t, archiveZip, []string{"x.txt", "skip.csv", "y.txt"}, [][]byte{[]byte("h\n1\u0001a\n2\u0001b\n3\u0001c"), []byte("no"), []byte("h\n4\u0001d\n5\u0001e\n")})}, 5},
		{"tar.gz of gzip json", "file_format_type = json\narchive_compress_codec = tar_gz\ncompress_codec = gzip\nschema { fields { id = int } }",
			map[string][]byte{"a.tar.gz": buildArchive(t, archiveTarGz, []string{"x.json", "y.json"}, [][]byte{gz(t, `{"id":1}`+"\n"+`{"id":2}`+"\n"+`{"id":3}`), gz(t, `{"id":4}`)})}, 4},
		{"GBK text", "file_format_type = text\nencoding = GBK\nschema { fields { s = string } }",
			map[string][]byte{"a.txt": gbk.encodeString("你好\n世界\n测试\n好")}, 4},
		{"xml in a zip", "file_format_type = xml\narchive_compress_codec = zip\nxml_row_tag = R\nxml_use_attr_format = true\nschema { fields { id = int } }",
			map[string][]byte{"a.zip": buildArchive(t, archiveZip, []string{"a.xml", "b.xml"}, [][]byte{[]byte(`<X><R id="1"/><R id="2"/><R id="3"/></X>`), []byte(`<X><R id="4"/><R/><R id="5"/></X>`)})}, 5},
		{"binary", "file_format_type = binary",
			map[string][]byte{"a.bin": bytes.Repeat([]byte("0123456789"), 500), "sub/b.bin": []byte("tail")}, 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, b := range c.files {
				writeFile(t, filepath.Join(dir, name), string(b))
			}
			got := readResumed(t, mustSource(t, srcConf(dir, c.opts)), 2)
			if len(got) != c.want {
				t.Errorf("%d rows, want %d: %v", len(got), c.want, got)
			}
		})
	}
}

// truncatedGzip is a gzip stream of many lines cut in its middle.
func truncatedGzip(t *testing.T) []byte {
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		b.WriteString(strconv.Itoa(i * 7919))
		b.WriteByte('\n')
	}
	z := gz(t, b.String())
	return z[:len(z)/2]
}

func TestBadFilesNameThePlace(t *testing.T) {
	cases := []struct {
		name, opts, file string
		content          []byte
		want             string
	}{
		{"corrupt gzip", "file_format_type = text\ncompress_codec = gzip", "a.txt", truncatedGzip(t), "a.txt at byte "},
		{"not gzip", "file_format_type = text\ncompress_codec = gzip", "a.txt", []byte("plain text, not gzip"), "a.txt: gzip: invalid header"},
		{"not a zip", "file_format_type = text\narchive_compress_codec = zip", "a.zip", []byte("PK nothing"), "a.zip: zip: not a valid zip file"},
		{"bad row in the second file of a zip", "file_format_type = text\narchive_compress_codec = zip\nschema { fields { id = int } }", "a.zip",
			buildArchive(t, archiveZip, []string{"x.txt", "y.txt"}, [][]byte{[]byte("1\n2"), []byte("3\nfour\n")}), `a.zip!y.txt:2: column "id": "four" is not a int`},
		{"bad xml", "file_format_type = xml\nxml_row_tag = R\nxml_use_attr_format = true\nschema { fields { id = int } }", "a.xml", []byte("<X>\n<R id=\"1\"/>\n<R id=\"2\">\n</X>"), "a.xml: line 4: bad XML: element <R> closed by </X>"},
		{"bad xml value", "file_format_type = xml\nxml_row_tag = R\nxml_use_attr_format = false\nschema { fields { id = int, m = \"map<string, int>\" } }", "a.xml", []byte("<X><R><id>1</id></R><R><m>{\"a\": x}</m></R></X>"), `a.xml: row 2: column "m"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, c.file), string(c.content))
			err := readErr(t, mustSource(t, srcConf(dir, c.opts)))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("error %v, want one naming %s and %q", err, dir, c.want)
			}
		})
	}
}

func TestCompressedAndEncodedFilesAreNamedAndWritten(t *testing.T) {
	tbl := table("db.t", "id", "int", "name", "string")
	rows := batchOf(tbl, []row.Value{row.IntValue(1), row.StringValue("你好")}, []row.Value{row.IntValue(2), row.StringValue("x")})
	for _, c := range []struct{ opts, suffix, prefix string }{
		{"file_format_type = json\ncompress_codec = gzip", ".gz.json", "\x1f\x8b"},
		{"file_format_type = text\ncompress_codec = zstd\nencoding = GBK", ".zstd.txt", "\x28\xb5\x2f\xfd"},
		{"file_format_type = csv\ncompress_codec = lz4\nenable_header_write = true", ".lz4.csv", "\x04\x22\x4d\x18"},
		{"file_format_type = xml\nxml_use_attr_format = false\nencoding = GB18030", ".xml", "<?xml version=\"1.0\" encoding=\"GB18030\"?>"},
	} {
		t.Run(c.suffix, func(t *testing.T) {
			dir := t.TempDir()
			writeTo(t, dir, c.opts, tbl, rows)
			got := files(t, filepath.Join(dir, "out"))
			if len(got) != 1 {
				t.Fatalf("files %v", names(got))
			}
			for name, content := range got {
				if !strings.HasSuffix(name, "_0"+c.suffix) {
					t.Errorf("file %s, want the suffix %s", name, c.suffix)
				}
				// (lz4 stores a block it cannot shrink as it is)
				if strings.Contains(content, "你好") && c.suffix != ".lz4.csv" || !strings.HasPrefix(content, c.prefix) {
					t.Errorf("%s holds plain UTF-8, or does not start with %q: %q", name, c.prefix, content)
				}
			}
			// and the source reads them back
			src := mustSource(t, srcConf(filepath.Join(dir, "out"), strings.Replace(c.opts, "enable_header_write = true", "skip_header_row_number = 1", 1)+"\nxml_row_tag = RECORD\nschema { fields { id = int, name = string } }"))
			var out []string
			for _, r := range readRows(t, src, 1) {
				out = append(out, render(r))
			}
			if strings.Join(out, ",") != "1|你好,2|x" {
				t.Errorf("read back %v", out)
			}
		})
	}
	// what XML writes
	dir := t.TempDir()
	writeTo(t, dir, "file_format_type = xml\nxml_use_attr_format = true\nxml_root_tag = ROWS\nxml_row_tag = ROW", tbl, batchOf(tbl, []row.Value{row.IntValue(1), row.StringValue("a<\"&\n")}, []row.Value{row.IntValue(2), row.NullValue()}))
	for _, content := range files(t, filepath.Join(dir, "out")) {
		want := "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<ROWS>\n\t<ROW id=\"1\" name=\"a&lt;&quot;&amp;&#10;\"/>\n\t<ROW id=\"2\" name=\"\"/>\n</ROWS>\n"
		if content != want {
			t.Errorf("xml\n got %q\nwant %q", content, want)
		}
	}
}

func TestTransactionOffLiftsTheNameRule(t *testing.T) {
	dir := t.TempDir()
	tbl := table("db.t", "id", "int")
	writeTo(t, dir, "is_enable_transaction = false\nfile_name_expression = \"data\"", tbl, batchOf(tbl, []row.Value{row.IntValue(1)}))
	got := files(t, filepath.Join(dir, "out"))
	if got["data_0.txt"] != "1" {
		t.Errorf("files %v", got)
	}
	if _, err := newTestSink(t, sinkConf(dir, "file_name_expression = \"data\""), tbl); err == nil || !strings.Contains(err.Error(), "must contain ${transactionId}") {
		t.Errorf("with transactions: %v", err)
	}
}

// binaryRows are the chunk rows of a file as a binary source reads them.
func binaryRows(t *testing.T, rel string, data []byte, from int) [][]row.Value {
	var out [][]row.Value
	for i := 0; i*binaryChunk < len(data); i++ {
		end := min((i+1)*binaryChunk, len(data))
		if i >= from {
			out = append(out, []row.Value{row.BytesValue(data[i*binaryChunk : end]), row.StringValue(rel), row.BigIntValue(int64(i))})
		}
	}
	return out
}

func TestBinarySink(t *testing.T) {
	tbl := table("default.default", "data", "bytes", "relativePath", "string", "partIndex", "bigint")
	data := bytes.Repeat([]byte("abcdefghij"), 350) // four chunks
	ctx := context.Background()

	t.Run("a file across two checkpoints", func(t *testing.T) {
		dir := t.TempDir()
		s := mustSink(t, sinkConf(dir, "file_format_type = binary"), tbl)
		w, err := s.CreateWriter(connector.WriterContext{Parallelism: 1, Job: connector.Job{ID: 7}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := s.CreateCommitter()
		all := binaryRows(t, "d/a.bin", data, 0)
		for cp, part := range [][][]row.Value{all[:2], all[2:]} {
			if err := w.Write(ctx, batchOf(tbl, part...)); err != nil {
				t.Fatal(err)
			}
			info, err := w.PrepareCommit(ctx, int64(cp+1))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Commit(ctx, connector.CommitRequest{CheckpointID: int64(cp + 1), Infos: [][]byte{info}}); err != nil {
				t.Fatal(err)
			}
		}
		w.Close(ctx)
		got, err := os.ReadFile(filepath.Join(dir, "out", "d", "a.bin"))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%d bytes, %v; want %d", len(got), err, len(data))
		}
	})
	for _, tc := range []struct {
		name string
		rows func(t *testing.T) [][]row.Value
		want string
	}{
		{"chunks out of order", func(t *testing.T) [][]row.Value {
			all := binaryRows(t, "a.bin", data, 0)
			return [][]row.Value{all[0], all[2]}
		}, "file a.bin: chunk 2 follows chunk 0"},
		{"a first chunk that continues nothing", func(t *testing.T) [][]row.Value { return binaryRows(t, "a.bin", data, 1) },
			"file a.bin: chunk 1 comes first, but no earlier chunk was written"},
		{"a path outside", func(t *testing.T) [][]row.Value { return binaryRows(t, "../x.bin", data, 0)[:1] },
			`relativePath "../x.bin" is not a path below`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSink(t, sinkConf(t.TempDir(), "file_format_type = binary"), tbl)
			w, _ := s.CreateWriter(connector.WriterContext{Parallelism: 1, Job: connector.Job{ID: 7}}, nil)
			defer w.Close(ctx)
			err := w.Write(ctx, batchOf(tbl, tc.rows(t)...))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v", err)
			}
		})
	}
}

func TestMultiTableSource(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a", "x.txt"), "1\n2\n")
	writeFile(t, filepath.Join(dir, "b", "y.json"), `{"n":"z"}`)
	s := mustSource(t, "tables_configs = [\n{"+srcConf(filepath.Join(dir, "a"), "file_format_type = text\nschema { table = t1, fields { id = int } }")+"},\n{"+srcConf(filepath.Join(dir, "b"), "file_format_type = json\nschema { table = t2, fields { n = string } }")+"}]")
	if tabs := s.Tables(); len(tabs) != 2 || tabs[0].ID() != "t1" || tabs[1].ID() != "t2" {
		t.Fatalf("tables %v", s.Tables())
	}
	var got []string
	for _, r := range readRows(t, s, 2) {
		got = append(got, r.Table+":"+render(r))
	}
	if strings.Join(got, ",") != "t1:1,t1:2,t2:z" && strings.Join(got, ",") != "t2:z,t1:1,t1:2" {
		t.Errorf("rows %v", got)
	}
}
