package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

const e2eBucket = "strait-e2e"

// testS3 is the S3 server of the tests (STRAIT_TEST_S3, with its identity) and a client of
// it, with the e2e bucket created.
type testS3 struct {
	endpoint, key, secret string
	client                *s3.Client
}

func s3Server(t *testing.T) *testS3 {
	t.Helper()
	endpoint := testServer(t, "STRAIT_TEST_S3", "SeaweedFS (scripts/s3.sh)")
	key, secret := os.Getenv("STRAIT_TEST_S3_ACCESS_KEY"), os.Getenv("STRAIT_TEST_S3_SECRET_KEY")
	if key == "" || secret == "" {
		t.Fatal("STRAIT_TEST_S3 is set but STRAIT_TEST_S3_ACCESS_KEY or STRAIT_TEST_S3_SECRET_KEY is not")
	}
	return newTestS3(t, endpoint, key, secret)
}

// newTestS3 is a client of the S3 server at endpoint, with the e2e bucket created.
func newTestS3(t *testing.T, endpoint, key, secret string) *testS3 {
	t.Helper()
	s := &testS3{endpoint: endpoint, key: key, secret: secret}
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(s.key, s.secret, "")))
	if err != nil {
		t.Fatal(err)
	}
	s.client = s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint, o.UsePathStyle = aws.String(s.endpoint), true
		o.DisableLogOutputChecksumValidationSkipped = true // SeaweedFS sends no checksums
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = s.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(e2eBucket)})
	var owned *types.BucketAlreadyOwnedByYou
	var exists *types.BucketAlreadyExists
	if err != nil && !errors.As(err, &owned) && !errors.As(err, &exists) {
		t.Fatalf("create bucket %s at %s: %v", e2eBucket, s.endpoint, err)
	}
	return s
}

// keys lists the object keys under prefix/, less the prefix.
func (s *testS3) keys(t *testing.T, prefix string) []string {
	t.Helper()
	var out []string
	for _, k := range s.list(t, e2eBucket, prefix) {
		out = append(out, strings.TrimPrefix(k, prefix+"/"))
	}
	return out
}

// list lists the object keys under prefix/ in a bucket.
func (s *testS3) list(t *testing.T, bucket, prefix string) []string {
	t.Helper()
	var out []string
	pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix + "/")})
	for pages.HasMorePages() {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatalf("list s3://%s/%s: %v", bucket, prefix, err)
		}
		for _, o := range page.Contents {
			out = append(out, aws.ToString(o.Key))
		}
	}
	return out
}

var manifestKey = regexp.MustCompile(`^(\d+)/(\d+)/(\d+)/manifest\.json$`)

// completed lists the ids of a job's completed checkpoints in the bucket.
func (s *testS3) completed(t *testing.T, prefix, job string) []int64 {
	t.Helper()
	var ids []int64
	for _, k := range s.keys(t, prefix+"/"+job) {
		if m := manifestKey.FindStringSubmatch(job + "/" + k); m != nil {
			id, _ := strconv.ParseInt(m[3], 10, 64)
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// straitYAML is Strait's own engine config with the checkpoints in S3 under prefix.
func (s *testS3) straitYAML(t *testing.T, prefix string) string {
	t.Helper()
	return writeFile(t, "strait.yaml", fmt.Sprintf(`checkpoint:
  storage:
    type: s3
    bucket: %s
    prefix: %s
    endpoint: %s
    path-style: true
    credentials:
      provider: static
      access-key: %s
      secret-key: %s
`, e2eBucket, prefix, s.endpoint, s.key, s.secret))
}

// seatunnelYAML is the same storage written as SeaTunnel's seatunnel.yaml has it.
func (s *testS3) seatunnelYAML(t *testing.T, prefix string) string {
	t.Helper()
	return writeFile(t, "seatunnel.yaml", fmt.Sprintf(`seatunnel:
  engine:
    backup-count: 1
    slot-service:
      dynamic-slot: true
    checkpoint:
      interval: 10000
      timeout: 60000
      storage:
        type: hdfs
        max-retained: 3
        plugin-config:
          namespace: /%s/
          storage.type: s3
          s3.bucket: s3a://%s
          fs.s3a.endpoint: %s
          fs.s3a.access.key: %s
          fs.s3a.secret.key: %s
          fs.s3a.aws.credentials.provider: org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider
`, prefix, e2eBucket, s.endpoint, s.key, s.secret))
}

// startIn starts a strait process whose temporary folder is its own (TMPDIR), as on a host
// of its own: nothing it keeps locally is seen by another process.
func startIn(t *testing.T, name, tmp string, args ...string) *proc {
	t.Helper()
	return startEnv(t, name, []string{"TMPDIR=" + tmp}, args...)
}

// TestS3CheckpointsAcrossHosts runs a cluster with no shared folder: a Temporal server, two
// workers and two runners, each with its own temporary folder and its checkpoints in S3 (one
// of each reading strait.yaml, the other SeaTunnel's seatunnel.yaml). The runner hosting an
// exactly-once LocalFile → LocalFile job is killed (SIGKILL) once a checkpoint is in the
// bucket; the job fails over to the other runner, restores from S3 and ends with every input
// row exactly once. The LocalFile folders are shared only because LocalFile is local.
func TestS3CheckpointsAcrossHosts(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	store := s3Server(t)
	prefix := fmt.Sprintf("s3-checkpoints-%d", time.Now().UnixNano())
	configs := []string{store.straitYAML(t, prefix), store.seatunnelYAML(t, prefix)}

	addr := startTemporal(t)
	tmps := map[string]string{}
	for i, cfg := range configs {
		name := fmt.Sprintf("worker-%d", i+1)
		tmps[name] = t.TempDir()
		startIn(t, name, tmps[name], "worker", "--address", addr, "--config", cfg)
	}
	runners := map[string]*proc{}
	for i, cfg := range configs {
		id := fmt.Sprintf("s3r%d", i+1)
		tmps[id] = t.TempDir()
		runners[id] = startIn(t, id, tmps[id], "runner", "--address", addr, "--id", id, "--slots", "1", "--config", cfg)
	}
	eventually(t, 60*time.Second, "two runners registered", func() bool {
		cs := clusterStatus(t, addr)
		return cs["s3r1"].State == "ALIVE" && cs["s3r2"].State == "ALIVE"
	})

	dir := t.TempDir()
	c := &cluster{addr: addr}
	id := submit(t, addr, fenceJob(t, dir, localFileSink()))
	victim := c.runningOn(t, id)
	var before []int64
	eventually(t, 60*time.Second, "a checkpoint of the job is in the bucket", func() bool {
		before = store.completed(t, prefix, id)
		return len(before) > 0
	})
	runners[victim].kill(t)
	t.Logf("runner %s killed with checkpoints %v in s3://%s/%s", victim, before, e2eBucket, prefix)
	awaitFinished(t, addr, id)

	st := c.status(t, id)
	if len(st.Pipelines) != 1 || st.Pipelines[0].Restarts != 1 || st.Pipelines[0].RestoredFrom < before[0] {
		t.Fatalf("want one failover restoring checkpoint %d or later: %+v", before[0], st.Pipelines)
	}
	t.Logf("restored from checkpoint %d after %q", st.Pipelines[0].RestoredFrom, st.Pipelines[0].LastFailure)
	checkExactlyOnce(t, localFileSink(), dir, id)
	sameJSONRows(t, filepath.Join(dir, "in"), filepath.Join(dir, "sink"))
	if ids := store.completed(t, prefix, id); len(ids) == 0 || len(ids) > 3 {
		t.Errorf("the bucket holds checkpoints %v of the job, want the retained ones (1 to 3)", ids)
	}
	for name, tmp := range tmps {
		if _, err := os.Stat(filepath.Join(tmp, "strait", "checkpoints")); err == nil {
			t.Errorf("%s kept checkpoints in its local folder", name)
		}
	}
}

// TestS3CheckpointStoreRefusedAtStart: a worker or runner whose S3 checkpoint storage has a
// wrong endpoint or credential exits within seconds, before it waits for Temporal, naming
// what failed.
func TestS3CheckpointStoreRefusedAtStart(t *testing.T) {
	store := s3Server(t)
	nowhere := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	wrongEndpoint := *store
	wrongEndpoint.endpoint = nowhere
	wrongSecret := *store
	wrongSecret.secret = "not-the-secret"
	for _, c := range []struct {
		name, config, want string
	}{
		{"wrong endpoint", wrongEndpoint.straitYAML(t, "refused"), "the endpoint " + nowhere + " does not answer"},
		{"wrong secret", wrongSecret.seatunnelYAML(t, "refused"), "access denied to the credentials from static (access key " + store.key + ")"},
	} {
		for _, process := range []string{"worker", "runner"} {
			began := time.Now()
			// no Temporal answers there: the store is checked first
			code, out := run(t, process, "--address", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--config", c.config)
			took := time.Since(began)
			if code == 0 || !strings.Contains(out, c.want) {
				t.Errorf("%s, %s: exit %d\n%s\nwant %q", c.name, process, code, out, c.want)
			}
			if took > 15*time.Second {
				t.Errorf("%s, %s: exited after %s", c.name, process, took.Round(time.Second))
			}
		}
	}
}

// sameJSONRows compares the json lines of two folders row by row, in id order.
func sameJSONRows(t *testing.T, inDir, outDir string) {
	t.Helper()
	in, out := jsonRows(t, inDir), jsonRows(t, outDir)
	if len(in) != len(out) {
		t.Fatalf("%d rows in, %d rows out", len(in), len(out))
	}
	for i := range in {
		if in[i] != out[i] {
			t.Fatalf("row %d: in %+v, out %+v", i, in[i], out[i])
		}
	}
}

type idName struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

func jsonRows(t *testing.T, dir string) []idName {
	t.Helper()
	rows := jsonLines[idName](t, dir)
	sort.Slice(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	return rows
}
