package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// SeaTunnel's S3File end-to-end suite (connector-file-s3-e2e: S3FileIT and
// S3FileWithMultipleTableIT), its configs and data files kept unchanged in
// connectors/s3file/testdata/seatunnel, run by strait run against the S3 server of the tests:
// the data files uploaded where the Java tests upload them, into the bucket the configs name,
// and, in memory only, the configs' endpoint and credentials replaced by the server's.

// s3FileBucket is the bucket every config of the suite names.
const s3FileBucket = "ws-package"

func s3FileSuite(parts ...string) string { return connectorSuite("s3file", parts...) }

// s3FileFixtures says where S3FileIT uploads each data file (its lzo files are the ones it
// builds, kept in the suite).
var s3FileFixtures = map[string]string{
	"test/seatunnel/read/json/name=tyrantlucifer/hobby=coding/e2e.json":                "json/e2e.json",
	"test/seatunnel/read/lzo_json/e2e.json":                                            "json/e2e.json.lzo",
	"test/seatunnel/read/text/name=tyrantlucifer/hobby=coding/e2e.txt":                 "text/e2e.txt",
	"test/seatunnel/read/text_delimiter/e2e.txt":                                       "text/e2e_delimiter.txt",
	"test/seatunnel/read/text_time_format/e2e.txt":                                     "text/e2e_time_format.txt",
	"test/seatunnel/read/lzo_text/e2e.txt":                                             "text/e2e.txt.lzo",
	"test/seatunnel/read/excel/name=tyrantlucifer/hobby=coding/e2e.xlsx":               "excel/e2e.xlsx",
	"test/seatunnel/read/orc/name=tyrantlucifer/hobby=coding/e2e.orc":                  "orc/e2e.orc",
	"test/seatunnel/read/parquet/name=tyrantlucifer/hobby=coding/e2e.parquet":          "parquet/e2e.parquet",
	"test/seatunnel/read/excel_filter/name=tyrantlucifer/hobby=coding/e2e_filter.xlsx": "excel/e2e.xlsx",
	"test/seatunnel/read/text_zip/e2e-text.zip":                                        "text/e2e-text.zip",
}

// The reasons a config of the suite cannot pass, as strait run prints them.
const (
	s3FileNoLZO = `compress_codec: "lzo" is not supported`
	s3FileNoORC = `file_format_type: "orc" cannot be read or written: no Go ORC library is available to Strait yet`
	s3FileNoAES = `shade.identifier: unknown config shade "aes256"`
)

type s3FileCase struct {
	config string
	code   int    // 0 FINISHED, 2 a configuration error
	fails  string // what the output of a failing run holds
	wrote  string // the folder a sink config writes, checked to hold its files
	rows   int    // the lines of the files a text or json sink writes
}

// s3FileCases are the configs in the order S3FileIT and S3FileWithMultipleTableIT run them.
var s3FileCases = []s3FileCase{
	{config: "text/s3_file_zip_text_to_assert.conf"},
	// its env asks for SeaTunnel's aes256 config shade, which Strait does not have
	{config: "excel/fake_to_s3_excel.conf", code: 2, fails: s3FileNoAES},
	{config: "excel/s3_excel_to_assert.conf"},
	{config: "excel/s3_excel_projection_to_assert.conf"},
	{config: "text/fake_to_s3_file_text.conf", code: 2, fails: s3FileNoLZO},
	{config: "text/s3_file_text_lzo_to_assert.conf", code: 2, fails: s3FileNoLZO},
	{config: "text/s3_file_delimiter_assert.conf"},
	{config: "text/s3_file_time_format_assert.conf"},
	{config: "text/s3_file_text_skip_headers.conf"},
	{config: "text/s3_file_text_to_assert.conf"},
	{config: "text/s3_file_text_projection_to_assert.conf"},
	{config: "json/fake_to_s3_file_json.conf", wrote: "tmp/seatunnel/json", rows: 5},
	{config: "json/s3_file_json_to_assert.conf"},
	{config: "json/s3_file_json_lzo_to_console.conf", code: 2, fails: s3FileNoLZO},
	{config: "orc/fake_to_s3_file_orc.conf", code: 2, fails: s3FileNoORC},
	{config: "orc/s3_file_orc_to_assert.conf", code: 2, fails: s3FileNoORC},
	{config: "orc/s3_file_orc_projection_to_assert.conf", code: 2, fails: s3FileNoORC},
	{config: "parquet/fake_to_s3_file_parquet.conf", wrote: "tmp/seatunnel/parquet"},
	{config: "parquet/s3_file_parquet_to_assert.conf"},
	{config: "parquet/s3_file_parquet_projection_to_assert.conf"},
	{config: "excel/s3_filter_excel_to_assert.conf"},
	{config: "json/s3_file_to_console.conf"},
	{config: "parquet/s3_file_to_console.conf"},
	// S3FileWithMultipleTableIT
	{config: "text/fake_to_s3_file_with_multiple_table.conf", code: 2, fails: s3FileNoLZO},
	{config: "excel/s3_excel_to_assert_with_multipletable.conf"},
	{config: "json/s3_file_json_to_assert_with_multipletable.conf"},
	{config: "orc/s3_file_orc_to_assert_with_multipletable.conf", code: 2, fails: s3FileNoORC},
	{config: "parquet/s3_file_parquet_to_assert_with_multipletable.conf"},
	{config: "text/s3_file_text_to_assert_with_multipletable.conf"},
}

// s3FileBucketReady empties the suite's bucket (creating it when missing) and uploads the
// data files and the empty folder the Java tests prepare.
func s3FileBucketReady(t *testing.T, s *testS3) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := s.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s3FileBucket)})
	var owned *types.BucketAlreadyOwnedByYou
	var exists *types.BucketAlreadyExists
	if err != nil && !errors.As(err, &owned) && !errors.As(err, &exists) {
		t.Fatalf("create bucket %s: %v", s3FileBucket, err)
	}
	pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: aws.String(s3FileBucket)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s3FileBucket), Key: o.Key}); err != nil {
				t.Fatal(err)
			}
		}
	}
	put := func(key string, body []byte) {
		if _, err := s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(s3FileBucket), Key: aws.String(key), Body: bytes.NewReader(body)}); err != nil {
			t.Fatalf("upload %s: %v", key, err)
		}
	}
	for key, fixture := range s3FileFixtures {
		b, err := os.ReadFile(s3FileSuite(fixture))
		if err != nil {
			t.Fatalf("fixture: %v", err)
		}
		put(key, b)
	}
	put("tmp/fake_empty/", nil) // S3Utils.createDir
}

// s3FileConfig reads a config of the suite as it is on disk and, in memory only, replaces
// its endpoint and credentials with the test server's.
func s3FileConfig(t *testing.T, s *testS3, name string) string {
	t.Helper()
	b, err := os.ReadFile(s3FileSuite(name))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	text := strings.NewReplacer(
		`"s3.cn-north-1.amazonaws.com.cn"`, `"`+s.endpoint+`"`,
		`"XXXXXXXX"`, `"`+s.key+`"`,
		`"XXXXXX"`, `"`+s.key+`"`,
		`"AWS_XXXX"`, `"`+s.secret+`"`,
	).Replace(string(b))
	if strings.Contains(text, "amazonaws.com") || strings.Contains(text, "XXXX") {
		t.Fatalf("%s: an endpoint or credential was not replaced", name)
	}
	return text
}

// TestSeaTunnelS3FileSuite runs every config of the suite against the bucket, one after
// the other as the Java tests do: later configs read what earlier ones wrote.
func TestSeaTunnelS3FileSuite(t *testing.T) {
	s := s3Server(t)
	s3FileBucketReady(t, s)
	for _, c := range s3FileCases {
		t.Run(c.config, func(t *testing.T) {
			code, out := runLocalFile(t, c.config, s3FileConfig(t, s, c.config))
			checkLocalFileRun(t, c.config, code, out, c.code, nonEmpty(c.fails)...)
			if c.wrote != "" {
				checkS3FileWrote(t, s, c.wrote, c.rows)
			}
		})
	}
	if left := s3FileKeys(t, s, "tmp/seatunnel/seatunnel"); len(left) != 0 {
		t.Errorf("staged objects left in the bucket: %v", left)
	}
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func s3FileKeys(t *testing.T, s *testS3, prefix string) []string {
	t.Helper()
	var out []string
	for _, k := range s.list(t, s3FileBucket, prefix) {
		if !strings.HasSuffix(k, "/") {
			out = append(out, k)
		}
	}
	return out
}

// checkS3FileWrote checks a sink config left files in its folder, and, for rows > 0, that
// they hold that many lines in all.
func checkS3FileWrote(t *testing.T, s *testS3, dir string, rows int) {
	t.Helper()
	keys := s3FileKeys(t, s, dir)
	if len(keys) == 0 {
		t.Fatalf("no files in s3a://%s/%s", s3FileBucket, dir)
	}
	if rows == 0 {
		return
	}
	lines := 0
	for _, k := range keys {
		o, err := s.client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(s3FileBucket), Key: aws.String(k)})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_, err = b.ReadFrom(o.Body)
		o.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if text := strings.TrimSpace(b.String()); text != "" {
			lines += strings.Count(text, "\n") + 1
		}
	}
	if lines != rows {
		t.Errorf("s3a://%s/%s holds %d lines in %v, want %d", s3FileBucket, dir, lines, keys, rows)
	}
}

// s3FileSink is the S3File sink of a kill test: json files under prefix/sink in the e2e
// bucket, staged under prefix/tmp.
func s3FileSink(s *testS3, prefix string) exactlyOnceSink {
	return exactlyOnceSink{
		name: "S3File",
		block: func(t *testing.T, dir string) string {
			return fmt.Sprintf(`S3File { plugin_input = "in", bucket = "s3a://%s", fs.s3a.endpoint = "%s",
  fs.s3a.aws.credentials.provider = "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
  access_key = "%s", secret_key = "%s", path = "/%s/sink", tmp_path = "/%s/tmp", file_format_type = json }`,
				e2eBucket, s.endpoint, s.key, s.secret, prefix, prefix)
		},
		ids: func(t *testing.T, dir string) map[int64]int {
			ids := map[int64]int{}
			for _, k := range s.keys(t, prefix+"/sink") {
				if strings.HasSuffix(k, "/") {
					continue
				}
				for _, line := range strings.Split(strings.TrimSpace(s.object(t, prefix+"/sink/"+k)), "\n") {
					var r struct {
						ID int64 `json:"id"`
					}
					if line == "" {
						continue
					}
					if err := json.Unmarshal([]byte(line), &r); err != nil {
						t.Fatalf("%s/sink/%s: %v", prefix, k, err)
					}
					ids[r.ID]++
				}
			}
			return ids
		},
		left: func(t *testing.T, dir, _ string) []string {
			var staged []string
			for _, k := range s.keys(t, prefix+"/tmp") {
				if !strings.HasSuffix(k, "/") {
					staged = append(staged, k)
				}
			}
			return staged
		},
	}
}

func (s *testS3) object(t *testing.T, key string) string {
	t.Helper()
	o, err := s.client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(e2eBucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	defer o.Body.Close()
	b, err := io.ReadAll(o.Body)
	if err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	return string(b)
}

// TestS3FileSinkRunnerKilled runs a cluster with no shared folder (a Temporal server, two
// workers and two runners, each with its own temporary folder, checkpoints in S3) and an
// exactly-once job into an S3File sink. The runner hosting it is killed (SIGKILL) once a
// checkpoint has committed rows to the bucket; the job fails over, restores from S3, and
// the bucket holds every input row exactly once, with nothing staged left.
func TestS3FileSinkRunnerKilled(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	store := s3Server(t)
	prefix := fmt.Sprintf("s3file-kill-%d", time.Now().UnixNano())
	cfg := store.straitYAML(t, prefix+"/checkpoints")
	t.Cleanup(func() {
		for _, k := range store.keys(t, prefix) {
			store.client.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(e2eBucket), Key: aws.String(prefix + "/" + k)})
		}
	})

	addr := startTemporal(t)
	for i := 1; i <= 2; i++ {
		startIn(t, fmt.Sprintf("worker-%d", i), t.TempDir(), "worker", "--address", addr, "--config", cfg)
	}
	runners := map[string]*proc{}
	for i := 1; i <= 2; i++ {
		id := fmt.Sprintf("s3f%d", i)
		runners[id] = startIn(t, id, t.TempDir(), "runner", "--address", addr, "--id", id, "--slots", "1", "--config", cfg)
	}
	eventually(t, 60*time.Second, "two runners registered", func() bool {
		cs := clusterStatus(t, addr)
		return cs["s3f1"].State == "ALIVE" && cs["s3f2"].State == "ALIVE"
	})

	dir := t.TempDir()
	sink := s3FileSink(store, prefix)
	c := &cluster{addr: addr}
	id := submit(t, addr, fenceJob(t, dir, sink))
	victim := c.runningOn(t, id)
	untilCommitted(t, func() int { return len(sink.ids(t, dir)) })
	committed := len(sink.ids(t, dir))
	runners[victim].kill(t)
	t.Logf("runner %s killed with %d rows committed to s3://%s/%s/sink", victim, committed, e2eBucket, prefix)
	awaitFinished(t, addr, id)
	st := c.status(t, id)
	if len(st.Pipelines) != 1 || st.Pipelines[0].Restarts != 1 || st.Pipelines[0].RestoredFrom < 1 {
		t.Fatalf("want one failover restoring a checkpoint: %+v", st.Pipelines)
	}
	t.Logf("restored from checkpoint %d after %q", st.Pipelines[0].RestoredFrom, st.Pipelines[0].LastFailure)
	checkExactlyOnce(t, sink, dir, id)
}
