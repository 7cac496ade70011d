package s3file

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	_ "github.com/strait-dev/strait/connectors/fake"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/planner"
	"github.com/strait-dev/strait/row"
)

func sinkConf(t testing.TB, dir, extra string) string {
	return bucketConf(t) + fmt.Sprintf("path = %q\ntmp_path = %q\n", dir+"/out", dir+"/tmp") + extra
}

func srcConf(t testing.TB, path, extra string) string {
	return bucketConf(t) + fmt.Sprintf("path = %q\n", path) + extra
}

// TestFormatsRoundTrip writes rows of every scalar type in each format through the S3File
// sink, commits, and reads them back through the S3File source.
func TestFormatsRoundTrip(t *testing.T) {
	tbl := table("db.all", "s", "string", "i", "int", "b", "bigint", "d", "double", "ok", "boolean",
		"m", "decimal(10, 2)", "day", "date", "at", "timestamp")
	day := row.DateOf(time.Date(2024, 1, 26, 0, 0, 0, 0, time.UTC))
	at := row.TimestampOf(time.Date(2024, 1, 26, 12, 34, 56, 0, time.UTC))
	rows := [][]row.Value{
		{row.StringValue("some text"), row.IntValue(-7), row.BigIntValue(1 << 40), row.DoubleValue(1.5), row.BoolValue(true), dec(12345, 2), day, at},
		{row.StringValue("second"), row.IntValue(0), row.BigIntValue(-1), row.DoubleValue(-0.25), row.BoolValue(false), dec(-1, 2), day, at},
	}
	schema := `schema { table = "db.all", fields { s = string, i = int, b = bigint, d = double, ok = boolean, m = "decimal(10, 2)", day = date, at = timestamp } }`
	for _, c := range []struct{ format, extra, read string }{
		{"text", "", ""}, {"csv", "", ""}, {"json", "", ""}, {"parquet", "", ""},
		{"excel", "", "skip_header_row_number = 1\n"}, // the sink writes a header row
		{"xml", "xml_use_attr_format = false\nxml_row_tag = RECORD\n", ""},
	} {
		t.Run(c.format, func(t *testing.T) {
			dir := testDir(t)
			s := mustSink(t, sinkConf(t, dir, "file_format_type = "+c.format+"\n"+c.extra), 7, tbl)
			writeAll(t, s, batchOf(tbl, rows...))
			got := readRows(t, srcConf(t, dir+"/out", "file_format_type = "+c.format+"\n"+c.extra+c.read+schema))
			if len(got) != len(rows) {
				t.Fatalf("read %d rows, wrote %d", len(got), len(rows))
			}
			for i, r := range got {
				for j := range r.Fields {
					if !row.Equal(r.Fields[j], rows[i][j]) {
						t.Errorf("row %d %s: read %v, wrote %v", i, tbl.Columns[j].Name, r.Fields[j], rows[i][j])
					}
				}
			}
			if staged := testServer(t).files(t, dir+"/tmp"); len(staged) != 0 {
				t.Errorf("staged files left after the commit: %v", staged)
			}
		})
	}
}

// TestMultipartWhileWritten writes a file of several parts: its parts are in the bucket
// before the file is closed, the writer never holds more than two parts, and the object
// is whole once it is.
func TestMultipartWhileWritten(t *testing.T) {
	srv := testServer(t)
	dir := testDir(t)
	fsys := testFS(t, "hadoop_s3_properties { \"fs.s3a.multipart.size\" = \"5M\" }\n")
	if fsys.partSize != 5<<20 {
		t.Fatalf("part size %d", fsys.partSize)
	}
	data := make([]byte, 12<<20+12345)
	fill(data, 1)
	w, err := fsys.Create(dir + "/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(data); off += 100_000 {
		if _, err := w.Write(data[off:min(off+100_000, len(data))]); err != nil {
			t.Fatal(err)
		}
		u := w.(*upload)
		if cap(u.buf)+cap(u.spare) > 2*int(fsys.partSize) {
			t.Fatalf("the upload holds %d bytes", cap(u.buf)+cap(u.spare))
		}
	}
	u := w.(*upload)
	if u.id == nil {
		t.Fatal("no multipart upload started while writing")
	}
	if err := u.wait(); err != nil {
		t.Fatal(err)
	}
	parts, err := srv.Client.ListParts(context.Background(), &s3.ListPartsInput{Bucket: aws.String(testBucket), Key: aws.String(u.key), UploadId: u.id})
	if err != nil {
		t.Fatal(err)
	}
	if len(parts.Parts) != 2 {
		t.Errorf("%d parts in the bucket before close, want 2", len(parts.Parts))
	}
	if _, err := fsys.Stat(dir + "/big.bin"); err == nil {
		t.Error("the object is visible before the upload completes")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := srv.get(t, u.key); got != string(data) {
		t.Fatalf("object of %d bytes differs from the %d written", len(got), len(data))
	}
}

// TestSinkMultipart writes a text file larger than the part size through the sink and
// reads every line back.
func TestSinkMultipart(t *testing.T) {
	dir := testDir(t)
	tbl := table("t", "id", "bigint", "pad", "string")
	s := mustSink(t, sinkConf(t, dir, "file_format_type = text\nhadoop_s3_properties { \"fs.s3a.multipart.size\" = \"5M\" }\n"), 7, tbl)
	pad := strings.Repeat("x", 1000)
	const n = 12_000 // 12 MB
	var batches []*row.Batch
	for i := 0; i < n; i += 1000 {
		b := row.NewBatch(1000)
		for j := i; j < i+1000; j++ {
			r := b.Add(row.Insert, tbl.ID(), 2)
			r.Fields[0], r.Fields[1] = row.BigIntValue(int64(j)), row.StringValue(pad)
		}
		batches = append(batches, b)
	}
	writeAll(t, s, batches...)
	got := readRows(t, srcConf(t, dir+"/out", "file_format_type = text\nschema { fields { id = bigint, pad = string } }"))
	if len(got) != n {
		t.Fatalf("read %d rows, wrote %d", len(got), n)
	}
	for i, r := range got {
		if r.Fields[0].Int() != int64(i) || r.Fields[1].Str() != pad {
			t.Fatalf("row %d: %v", i, r.Fields[0])
		}
	}
}

// TestUploadFailsHalfWay loses the upload on the server after its first part: the close
// fails, no object appears and no upload is left in progress.
func TestUploadFailsHalfWay(t *testing.T) {
	srv := testServer(t)
	dir := testDir(t)
	fsys := testFS(t, "hadoop_s3_properties { \"fs.s3a.multipart.size\" = \"5M\" }\n")
	u := created(t, fsys, dir+"/half.bin", make([]byte, 6<<20))
	if err := u.wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Client.AbortMultipartUpload(context.Background(), &s3.AbortMultipartUploadInput{Bucket: aws.String(testBucket), Key: aws.String(u.key), UploadId: u.id}); err != nil {
		t.Fatal(err)
	}
	_, werr := u.Write(make([]byte, 6<<20))
	cerr := u.Close()
	if werr == nil && cerr == nil {
		t.Fatal("an upload lost half way closed without an error")
	}
	if _, err := fsys.Stat(dir + "/half.bin"); err == nil {
		t.Error("a failed upload left an object")
	}
	ups, err := srv.Client.ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String(testBucket), Prefix: aws.String(u.key)})
	if err != nil {
		t.Fatal(err)
	}
	if len(ups.Uploads) != 0 {
		t.Errorf("%d uploads left in progress", len(ups.Uploads))
	}
}

// TestRangedReads reads an object at random offsets and lengths, across the read-ahead
// window, as parquet reads a file.
func TestRangedReads(t *testing.T) {
	srv := testServer(t)
	dir := testDir(t)
	data := make([]byte, readAhead+3<<20)
	rnd := rand.New(rand.NewPCG(3, 4))
	fill(data, 3)
	srv.put(t, dir+"/r.bin", data)
	fsys := testFS(t, "")
	f, err := fsys.Open(dir + "/r.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != int64(len(data)) {
		t.Fatalf("size %d", f.Size())
	}
	for i := 0; i < 40; i++ {
		off := rnd.Int64N(int64(len(data)))
		buf := make([]byte, rnd.IntN(2<<20))
		n, err := f.ReadAt(buf, off)
		want := min(len(buf), len(data)-int(off))
		if n != want || (n < len(buf) && err != io.EOF) || (n == len(buf) && err != nil) {
			t.Fatalf("ReadAt(%d bytes, %d) = %d, %v", len(buf), off, n, err)
		}
		if !bytes.Equal(buf[:n], data[off:off+int64(n)]) {
			t.Fatalf("ReadAt(%d bytes, %d): other bytes", len(buf), off)
		}
	}
	// a response that breaks off is reopened where it stopped
	o := f.(*object)
	head := make([]byte, 1000)
	if _, err := f.ReadAt(head, 0); err != nil {
		t.Fatal(err)
	}
	o.body.Close() // the connection drops; the reader still holds the response
	rest := make([]byte, 5000)
	if n, err := f.ReadAt(rest, 1000); err != nil || n != len(rest) || !bytes.Equal(rest, data[1000:6000]) {
		t.Fatalf("read after a broken response: %d bytes, %v", n, err)
	}
	// sequentially, through a section reader as text formats read
	all, err := io.ReadAll(io.NewSectionReader(f, 0, f.Size()))
	if err != nil || !bytes.Equal(all, data) {
		t.Fatalf("sequential read: %d bytes, %v", len(all), err)
	}
}

// TestCommitIdempotent commits the same transaction twice, and again once its staging
// folder is gone: each file is published once and the later commits change nothing.
func TestCommitIdempotent(t *testing.T) {
	srv, dir, tbl, s := jsonSink(t)
	ctx := context.Background()
	w := writer(t, s, 3, nil)
	info := conntest.WritePrepare(ctx, t, w, 1, batchOf(tbl, []row.Value{row.IntValue(1)}, []row.Value{row.IntValue(2)}))
	if len(srv.files(t, dir+"/out")) != 0 {
		t.Fatal("files published before the commit")
	}
	for i := 0; i < 3; i++ {
		if err := commit(t, s, 1, info); err != nil {
			t.Fatalf("commit %d: %v", i+1, err)
		}
		out := srv.files(t, dir+"/out")
		if len(out) != 1 {
			t.Fatalf("after commit %d: %v", i+1, out)
		}
		for name, content := range out {
			if content != "{\"id\":1}\n{\"id\":2}" || !strings.HasPrefix(name, "T_3_") {
				t.Errorf("after commit %d: %s = %q", i+1, name, content)
			}
		}
		if staged := srv.files(t, dir+"/tmp"); len(staged) != 0 {
			t.Errorf("after commit %d staged %v", i+1, staged)
		}
	}
	// a transaction whose staged files and targets are both gone was aborted: an error
	for name := range srv.files(t, dir+"/out") {
		srv.Client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(testBucket), Key: aws.String(strings.TrimPrefix(dir, "/") + "/out/" + name)})
	}
	if err := commit(t, s, 1, info); err == nil || !connector.IsPermanent(err) {
		t.Errorf("commit of a transaction whose files are gone: %v", err)
	}
	w.Close(ctx)
}

// TestWriterRestore restores a writer from a checkpoint listing one prepared transaction,
// after rows staged past the checkpoint: the listed one is published, the other removed.
func TestWriterRestore(t *testing.T) {
	srv, dir, tbl, s := jsonSink(t)
	ctx := context.Background()
	a := writer(t, s, 3, nil)
	info1, state1 := conntest.Barrier(ctx, t, a, 1, batchOf(tbl, []row.Value{row.IntValue(1)}))
	// rows after the checkpoint, prepared but never in a checkpoint; then the writer dies
	conntest.WritePrepare(ctx, t, a, 2, batchOf(tbl, []row.Value{row.IntValue(2)}))
	if n := len(srv.files(t, dir+"/tmp")); n != 2 {
		t.Fatalf("%d staged files", n)
	}

	b := writer(t, s, 3, [][]byte{state1})
	out := srv.files(t, dir+"/out")
	if len(out) != 1 {
		t.Fatalf("after restore published %v", out)
	}
	for name, content := range out {
		if content != `{"id":1}` || !strings.Contains(name, "_0_1_") {
			t.Errorf("after restore %s = %q", name, content)
		}
	}
	if left := srv.files(t, dir+"/tmp"); len(left) != 0 {
		t.Errorf("after restore staged %v", left)
	}
	// the control plane's own commit of checkpoint 1 still succeeds, and changes nothing
	if err := commit(t, s, 1, info1); err != nil {
		t.Fatal(err)
	}
	info2 := conntest.WritePrepare(ctx, t, b, 2, batchOf(tbl, []row.Value{row.IntValue(2)}))
	if err := commit(t, s, 2, info2); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range srv.files(t, dir+"/out") {
		ids = append(ids, c)
	}
	if strings.Join(sorted(ids), ",") != `{"id":1},{"id":2}` {
		t.Errorf("published %v", ids)
	}
	st, _ := b.SnapshotState(2)
	var ws struct {
		Pending []json.RawMessage `json:"pending"`
	}
	json.Unmarshal(st, &ws)
	if len(ws.Pending) != 0 {
		t.Errorf("state after commit %s", st)
	}
	b.Close(ctx)
}

// TestSourceReadsBucketLayout reads SeaTunnel's layout of a folder: partition folders,
// hidden files, _SUCCESS markers and empty directory markers.
func TestSourceReadsBucketLayout(t *testing.T) {
	srv := testServer(t)
	dir := testDir(t)
	srv.put(t, dir+"/in/name=ann/a.json", []byte(`{"id":1}`+"\n"+`{"id":2}`))
	srv.put(t, dir+"/in/name=bob/b.json", []byte(`{"id":3}`))
	srv.put(t, dir+"/in/name=bob/_SUCCESS", nil)
	srv.put(t, dir+"/in/.hidden.json", []byte(`{"id":9}`))
	srv.put(t, dir+"/in/empty/", nil)
	got := readRows(t, srcConf(t, "s3a://"+testBucket+dir+"/in", "file_format_type = json\nschema { fields { id = int } }"))
	var out []string
	for _, r := range got {
		out = append(out, fmt.Sprintf("%v|%v", r.Fields[0], r.Fields[1]))
	}
	if strings.Join(out, ",") != "1|ann,2|ann,3|bob" {
		t.Errorf("read %v", out)
	}
	if _, err := buildSource(t, srcConf(t, dir+"/missing", "file_format_type = json\nschema { fields { id = int } }")); err == nil ||
		!strings.Contains(err.Error(), "source[0] S3File: path:") {
		t.Errorf("a missing path: %v", err)
	}
}

// TestSaveModes applies the save modes to a folder of the bucket.
func TestSaveModes(t *testing.T) {
	srv := testServer(t)
	dir := testDir(t)
	tbl := table("t", "id", "int")
	srv.put(t, dir+"/out/old.txt", []byte("old"))
	s := mustSink(t, sinkConf(t, dir, "data_save_mode = ERROR_WHEN_DATA_EXISTS\n"), 7, tbl)
	if err := s.(connector.SinkSetup).Setup(context.Background()); err == nil || !strings.Contains(err.Error(), "already holds files") {
		t.Errorf("ERROR_WHEN_DATA_EXISTS on a path with files: %v", err)
	}
	s = mustSink(t, sinkConf(t, dir, "data_save_mode = DROP_DATA\n"), 7, tbl)
	if err := s.(connector.SinkSetup).Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	if left := srv.files(t, dir+"/out"); len(left) != 0 {
		t.Errorf("DROP_DATA left %v", left)
	}
	s = mustSink(t, sinkConf(t, dir, "schema_save_mode = ERROR_WHEN_SCHEMA_NOT_EXIST\n"), 7, tbl)
	if err := s.(connector.SinkSetup).Setup(context.Background()); err != nil {
		t.Errorf("ERROR_WHEN_SCHEMA_NOT_EXIST after DROP_DATA recreated the path: %v", err)
	}
}

// TestOptionErrors: missing and bad S3 options fail naming the plugin and the option.
func TestOptionErrors(t *testing.T) {
	tbl := table("t", "id", "int")
	for _, c := range []struct{ name, conf, want string }{
		{"no bucket", "path = \"/a\"\nfs.s3a.endpoint = \"http://127.0.0.1:1\"\n", "sink[0] S3File: bucket: option is required"},
		{"no endpoint", "path = \"/a\"\nbucket = \"s3a://b\"\n", "sink[0] S3File: fs.s3a.endpoint: option is required"},
		// present but empty is S3A's default endpoint, as SeaTunnel takes it: the next check
		// is what fails
		{"empty endpoint", "path = \"/a\"\nbucket = b\nfs.s3a.endpoint = \"\"\nhadoop_s3_properties { \"fs.s3a.multipart.size\" = \"1M\" }\n", "fs.s3a.multipart.size"},
		{"bad provider", "path = \"/a\"\nbucket = b\nfs.s3a.endpoint = h\nfs.s3a.aws.credentials.provider = Nope\n", `fs.s3a.aws.credentials.provider: "Nope" is not served`},
		{"simple without keys", "path = \"/a\"\nbucket = b\nfs.s3a.endpoint = h\nfs.s3a.aws.credentials.provider = \"org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider\"\n", "set both"},
		{"bad part size", "path = \"/a\"\nbucket = b\nfs.s3a.endpoint = h\nhadoop_s3_properties { \"fs.s3a.multipart.size\" = \"1M\" }\n", "fs.s3a.multipart.size"},
		{"bad path style", "path = \"/a\"\nbucket = b\nfs.s3a.endpoint = h\nhadoop_s3_properties { \"fs.s3a.path.style.access\" = \"maybe\" }\n", "fs.s3a.path.style.access"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := buildSink(t, c.conf, 7, tbl)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

// TestUnknownOptionsWarned plans a job with misspelled S3File options: the planner names
// them with the nearest known one.
func TestUnknownOptionsWarned(t *testing.T) {
	plan, err := planner.Plan(contract.ConfigSource{File: "job.conf", Text: "env { job.mode = BATCH }\n" +
		"source { FakeSource { schema { fields { id = int } } } }\n" +
		"sink { S3File { path = \"/a\", bucket = b, fs.s3a.endpoint = h, hadoop_s3_propertes { a = b }, acess_key = k } }"}, connector.Job{ID: 1})
	if err != nil {
		t.Fatal(err)
	}
	warnings := strings.Join(plan.Warnings, "\n")
	for _, want := range []string{`unknown option "hadoop_s3_propertes.a"`, `unknown option "acess_key" (did you mean "access_key"?)`} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings %q lack %q", warnings, want)
		}
	}
}

func TestEndpointRules(t *testing.T) {
	for _, c := range []struct {
		endpoint, region string
		aws              bool
	}{
		{"https://s3.cn-north-1.amazonaws.com.cn", "cn-north-1", true},
		{"https://s3.eu-west-1.amazonaws.com", "eu-west-1", true},
		{"https://s3-us-west-2.amazonaws.com", "us-west-2", true},
		{"http://127.0.0.1:8333", "", false},
		{"https://minio.example.com", "", false},
	} {
		if got := regionOf(c.endpoint); got != c.region {
			t.Errorf("regionOf(%s) = %q, want %q", c.endpoint, got, c.region)
		}
		if got := isAWS(c.endpoint); got != c.aws {
			t.Errorf("isAWS(%s) = %v", c.endpoint, got)
		}
	}
}

// testFS is the file system of the test bucket with extra options.
func testFS(t testing.TB, extra string) *FS {
	t.Helper()
	o := conntest.Options(t, bucketConf(t)+extra, "sink[0] S3File")
	c, err := config.Decode[S3Options](o)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := c.fileSystem(o)
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// jsonSink is a sink of job 3 writing the table t (id int) as JSON into a test folder of its
// own on the test server, with the server and the folder.
func jsonSink(t *testing.T) (server, string, *catalog.Table, connector.Sink) {
	t.Helper()
	srv, dir := testServer(t), testDir(t)
	tbl := table("t", "id", "int")
	return srv, dir, tbl, mustSink(t, sinkConf(t, dir, "file_format_type = json\n"), 3, tbl)
}

// created is the upload of a file created at path in fsys with data written to it.
func created(t testing.TB, fsys *FS, path string, data []byte) *upload {
	t.Helper()
	w, err := fsys.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	return w.(*upload)
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// fill fills b with random bytes of the seed.
func fill(b []byte, seed byte) {
	var key [32]byte
	key[0] = seed
	rand.NewChaCha8(key).Read(b)
}

// TestSmallFileOnePut: a file smaller than a part holds a small buffer, not a part's, and
// goes up in one PUT when it closes.
func TestSmallFileOnePut(t *testing.T) {
	srv := testServer(t)
	dir := testDir(t)
	fsys := testFS(t, "")
	u := created(t, fsys, dir+"/small.txt", []byte("hello"))
	if cap(u.buf) > firstBuffer || u.id != nil {
		t.Errorf("a 5-byte file holds a buffer of %d bytes (multipart %v)", cap(u.buf), u.id != nil)
	}
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
	if got := srv.get(t, u.key); got != "hello" {
		t.Errorf("object %q", got)
	}
}

// TestBinaryCopy copies files as they are, S3File binary source to S3File binary sink, a
// file of many chunks and its folder kept; the copy is byte for byte.
func TestBinaryCopy(t *testing.T) {
	srv := testServer(t)
	dir := testDir(t)
	data := make([]byte, 300_000)
	fill(data, 5)
	srv.put(t, dir+"/in/sub/blob.bin", data)
	srv.put(t, dir+"/in/small.bin", []byte("tiny"))
	s, err := buildSource(t, srcConf(t, dir+"/in", "file_format_type = binary\n"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := conntest.Rows(context.Background(), s, 1)
	if err != nil {
		t.Fatal(err)
	}
	sink := mustSink(t, sinkConf(t, dir, "file_format_type = binary\n"), 7, s.Tables()[0])
	b := row.NewBatch(len(rs[0]))
	for _, r := range rs[0] {
		n := b.Add(r.Kind, r.Table, len(r.Fields))
		copy(n.Fields, r.Fields)
	}
	writeAll(t, sink, b)
	out := srv.files(t, dir+"/out")
	if len(out) != 2 || out["sub/blob.bin"] != string(data) || out["small.bin"] != "tiny" {
		t.Errorf("copied %d files: %v", len(out), keysOf(out))
	}
}

func keysOf(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s (%d bytes)", k, len(v)))
	}
	return sorted(out)
}

// TestRenameCopiesLargeObjectsInParts: an object larger than one copy takes (5 GiB on S3;
// fs.s3a.multipart.threshold lowers it, as here) is renamed by a copy in parts of
// fs.s3a.multipart.size, byte for byte, and the staged object is gone afterwards.
func TestRenameCopiesLargeObjectsInParts(t *testing.T) {
	srv := testServer(t)
	dir := testDir(t)
	fsys := testFS(t, `hadoop_s3_properties { "fs.s3a.multipart.threshold" = "6M", "fs.s3a.multipart.size" = "5M" }`+"\n")
	if fsys.copyAtOnce != 6<<20 || fsys.copyPart != 5<<20 {
		t.Fatalf("copy at once up to %d in parts of %d", fsys.copyAtOnce, fsys.copyPart)
	}
	data := make([]byte, 13<<20+17) // three parts, the last one short
	fill(data, 11)
	srv.put(t, dir+"/staged.bin", data)
	if err := fsys.Rename(dir+"/staged.bin", dir+"/final.bin"); err != nil {
		t.Fatal(err)
	}
	if got := srv.get(t, key(dir+"/final.bin")); got != string(data) {
		t.Fatalf("the copy differs: %d bytes, want %d", len(got), len(data))
	}
	if keys := srv.keys(t, dir); len(keys) != 1 {
		t.Errorf("objects after the rename: %v", keys)
	}
	// an object put together from parts carries the count of its parts in its ETag
	head, err := srv.Client.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(testBucket), Key: aws.String(key(dir + "/final.bin"))})
	if err != nil {
		t.Fatal(err)
	}
	if etag := aws.ToString(head.ETag); !strings.HasSuffix(strings.Trim(etag, `"`), "-3") {
		t.Errorf("ETag %s: the object was not copied in three parts", etag)
	}
	small := make([]byte, 1<<20)
	srv.put(t, dir+"/small.bin", small)
	if err := fsys.Rename(dir+"/small.bin", dir+"/small-final.bin"); err != nil {
		t.Fatal(err)
	}
	if got := srv.get(t, key(dir+"/small-final.bin")); len(got) != len(small) {
		t.Errorf("a small object copied at once: %d bytes", len(got))
	}
}

func TestMultipartThresholdRange(t *testing.T) {
	for _, v := range []string{"1M", "6G", "lots"} {
		o := conntest.Options(t, bucketConf(t)+`hadoop_s3_properties { "fs.s3a.multipart.threshold" = "`+v+`" }`+"\n", "sink[0] S3File")
		c, err := config.Decode[S3Options](o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.fileSystem(o); err == nil || !strings.Contains(err.Error(), "fs.s3a.multipart.threshold") {
			t.Errorf("%s: error %v, want one naming fs.s3a.multipart.threshold", v, err)
		}
	}
}
