package s3file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// The S3 server of the tests: `make test` starts SeaweedFS (scripts/s3.sh) and sets these.
const (
	envS3       = "STRAIT_TEST_S3"
	envS3Key    = "STRAIT_TEST_S3_ACCESS_KEY"
	envS3Secret = "STRAIT_TEST_S3_SECRET_KEY"
	testBucket  = "strait-s3file-test"
)

type server struct {
	endpoint, key, secret string
	client                *s3.Client
}

var (
	serverOnce sync.Once
	srv        server
	srvErr     error
)

// testServer is the S3 server, with the test bucket created; a server that is not
// configured fails the test.
func testServer(t testing.TB) *server {
	t.Helper()
	serverOnce.Do(func() {
		srv = server{endpoint: os.Getenv(envS3), key: os.Getenv(envS3Key), secret: os.Getenv(envS3Secret)}
		if srv.endpoint == "" || srv.key == "" || srv.secret == "" {
			srvErr = fmt.Errorf("%s, %s and %s must be set: `make test` starts SeaweedFS (scripts/s3.sh start) and sets them", envS3, envS3Key, envS3Secret)
			return
		}
		srv.client = s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.endpoint), UsePathStyle: true,
			Credentials: credentials.NewStaticCredentialsProvider(srv.key, srv.secret, "")})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := srv.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(testBucket)})
		var owned *s3types.BucketAlreadyOwnedByYou
		var exists *s3types.BucketAlreadyExists
		if err != nil && !errors.As(err, &owned) && !errors.As(err, &exists) {
			srvErr = fmt.Errorf("create bucket %s on %s: %w", testBucket, srv.endpoint, err)
		}
	})
	if srvErr != nil {
		t.Fatal(srvErr)
	}
	return &srv
}

var unsafeKey = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// testDir is a folder of the test bucket of the test's own, emptied when it ends.
func testDir(t testing.TB) string {
	t.Helper()
	s := testServer(t)
	name := unsafeKey.ReplaceAllString(t.Name(), "_")
	dir := fmt.Sprintf("/tests/%s-%d", name, time.Now().UnixNano())
	t.Cleanup(func() {
		for _, k := range s.keys(t, dir) {
			s.client.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(testBucket), Key: aws.String(k)})
		}
	})
	return dir
}

// bucketConf is the S3 options of the test server as a job writes them.
func bucketConf(t testing.TB) string {
	s := testServer(t)
	return fmt.Sprintf("bucket = \"s3a://%s\"\nfs.s3a.endpoint = %q\n"+
		"fs.s3a.aws.credentials.provider = \"org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider\"\n"+
		"access_key = %q\nsecret_key = %q\n", testBucket, s.endpoint, s.key, s.secret)
}

// keys lists the objects under dir.
func (s *server) keys(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: aws.String(testBucket), Prefix: aws.String(strings.TrimPrefix(dir, "/") + "/")})
	for pages.HasMorePages() {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatalf("list %s: %v", dir, err)
		}
		for _, o := range page.Contents {
			out = append(out, aws.ToString(o.Key))
		}
	}
	sort.Strings(out)
	return out
}

// files are the objects under dir that are files (not directory markers), by path
// relative to dir, with their contents.
func (s *server) files(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	prefix := strings.TrimPrefix(dir, "/") + "/"
	for _, k := range s.keys(t, dir) {
		if strings.HasSuffix(k, "/") {
			continue
		}
		out[strings.TrimPrefix(k, prefix)] = s.get(t, k)
	}
	return out
}

func (s *server) get(t testing.TB, k string) string {
	t.Helper()
	o, err := s.client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(testBucket), Key: aws.String(k)})
	if err != nil {
		t.Fatalf("get %s: %v", k, err)
	}
	defer o.Body.Close()
	b, err := io.ReadAll(o.Body)
	if err != nil {
		t.Fatalf("get %s: %v", k, err)
	}
	return string(b)
}

func (s *server) put(t testing.TB, k string, body []byte) {
	t.Helper()
	_, err := s.client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: aws.String(strings.TrimPrefix(k, "/")),
		Body: strings.NewReader(string(body))})
	if err != nil {
		t.Fatalf("put %s: %v", k, err)
	}
}

// buildSink builds the S3File sink through the registry, as the planner does.
func buildSink(t testing.TB, src string, job int64, inputs ...*catalog.Table) (connector.Sink, error) {
	t.Helper()
	build, _, ok := connector.LookupSink("S3File")
	if !ok {
		t.Fatal("the S3File sink is not registered")
	}
	return build(&connector.SinkContext{Options: conntest.Options(t, src, "sink[0] S3File"), Job: connector.Job{ID: job}, Inputs: inputs})
}

func mustSink(t testing.TB, src string, job int64, inputs ...*catalog.Table) connector.Sink {
	t.Helper()
	s, err := buildSink(t, src, job, inputs...)
	if err != nil {
		t.Fatalf("S3File sink: %v", err)
	}
	return s
}

// buildSource builds the S3File source through the registry.
func buildSource(t testing.TB, src string) (connector.Source, error) {
	t.Helper()
	build, _, ok := connector.LookupSource("S3File")
	if !ok {
		t.Fatal("the S3File source is not registered")
	}
	return build(&connector.SourceContext{Options: conntest.Options(t, src, "source[0] S3File"), Job: connector.Job{ID: 7, Mode: connector.Batch}, Parallelism: 1})
}

func readRows(t testing.TB, src string) []row.Row {
	t.Helper()
	s, err := buildSource(t, src)
	if err != nil {
		t.Fatalf("S3File source: %v", err)
	}
	rs, err := conntest.Rows(context.Background(), s, 1)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var out []row.Row
	for _, r := range rs {
		out = append(out, r...)
	}
	return out
}

func table(id string, cols ...string) *catalog.Table {
	t := &catalog.Table{}
	t.Path, _ = catalog.ParsePath(id, false)
	for i := 0; i+1 < len(cols); i += 2 {
		t.Columns = append(t.Columns, catalog.Column{Name: cols[i], Type: types.MustParse(cols[i+1]), Nullable: true})
	}
	return t
}

func batchOf(tbl *catalog.Table, rows ...[]row.Value) *row.Batch {
	b := row.NewBatch(len(rows) + 1)
	for _, r := range rows {
		n := b.Add(row.Insert, tbl.ID(), len(r))
		copy(n.Fields, r)
	}
	return b
}

func dec(unscaled int64, scale int) row.Value { return row.DecimalValue(big.NewInt(unscaled), scale) }

// writer is a writer of the sink's subtask 0.
func writer(t testing.TB, s connector.Sink, job int64, state [][]byte) connector.Writer {
	t.Helper()
	w, err := s.CreateWriter(connector.WriterContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: job}}, state)
	if err != nil {
		t.Fatalf("create writer: %v", err)
	}
	return w
}

func commit(t testing.TB, s connector.Sink, cp int64, infos ...[]byte) error {
	t.Helper()
	c, err := s.CreateCommitter()
	if err != nil {
		t.Fatal(err)
	}
	return c.Commit(context.Background(), connector.CommitRequest{CheckpointID: cp, Final: true, Infos: infos})
}

// writeAll writes the batches with one writer, prepares checkpoint 1 and commits it.
func writeAll(t testing.TB, s connector.Sink, batches ...*row.Batch) {
	t.Helper()
	ctx := context.Background()
	w := writer(t, s, 7, nil)
	for _, b := range batches {
		if err := w.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	info, err := w.PrepareCommit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := commit(t, s, 1, info); err != nil {
		t.Fatal(err)
	}
}
