package s3file

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

const testBucket = conntest.S3Bucket

// server is the S3 server of the tests.
type server struct{ *conntest.S3Server }

// testServer is the S3 server, with the test bucket created; a server that is not
// configured fails the test.
func testServer(t testing.TB) server {
	t.Helper()
	return server{conntest.S3(t)}
}

var unsafeKey = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// testDir is a folder of the test bucket of the test's own, emptied when it ends.
func testDir(t testing.TB) string {
	t.Helper()
	s := testServer(t)
	name := unsafeKey.ReplaceAllString(t.Name(), "_")
	dir := fmt.Sprintf("/tests/%s-%d", name, time.Now().UnixNano())
	t.Cleanup(func() { s.Clean(t, strings.TrimPrefix(dir, "/")+"/") })
	return dir
}

// bucketConf is the S3 options of the test server as a job writes them.
func bucketConf(t testing.TB) string {
	s := testServer(t)
	return fmt.Sprintf("bucket = \"s3a://%s\"\nfs.s3a.endpoint = %q\n"+
		"fs.s3a.aws.credentials.provider = \"org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider\"\n"+
		"access_key = %q\nsecret_key = %q\n", testBucket, s.Endpoint, s.Key, s.Secret)
}

// keys lists the objects under dir.
func (s server) keys(t testing.TB, dir string) []string {
	t.Helper()
	return s.Keys(t, strings.TrimPrefix(dir, "/")+"/")
}

// files are the objects under dir that are files (not directory markers), by path
// relative to dir, with their contents.
func (s server) files(t testing.TB, dir string) map[string]string {
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

func (s server) get(t testing.TB, k string) string {
	t.Helper()
	o, err := s.Client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(testBucket), Key: aws.String(k)})
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

func (s server) put(t testing.TB, k string, body []byte) {
	t.Helper()
	_, err := s.Client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: aws.String(strings.TrimPrefix(k, "/")),
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
	return conntest.AllRows(t, s, 1)
}

// Shorthands of the shared connector test helpers.
var (
	table    = conntest.Table
	batchOf  = conntest.BatchOf
	dec      = conntest.Dec
	writer   = conntest.Writer
	commit   = conntest.Commit
	writeAll = conntest.WriteCommit
)
