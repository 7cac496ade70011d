package checkpointstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/internal/nettest"
)

// The S3 server of the tests: `make test` starts SeaweedFS (scripts/s3.sh) and sets these.
const (
	envS3       = "STRAIT_TEST_S3"
	envS3Key    = "STRAIT_TEST_S3_ACCESS_KEY"
	envS3Secret = "STRAIT_TEST_S3_SECRET_KEY"
	testBucket  = "strait-checkpointstore-test"
)

// s3Server is the test server's endpoint and identity, or a skip when none is set.
func s3Server(t testing.TB) (endpoint string, creds Credentials) {
	t.Helper()
	endpoint = os.Getenv(envS3)
	if endpoint == "" {
		t.Fatalf("%s is not set: `make test` starts SeaweedFS (scripts/s3.sh) and sets it", envS3)
	}
	key, secret := os.Getenv(envS3Key), os.Getenv(envS3Secret)
	if key == "" || secret == "" {
		t.Fatalf("%s is set but %s or %s is not", envS3, envS3Key, envS3Secret)
	}
	return endpoint, Credentials{AccessKey: key, SecretKey: secret}
}

var bucketOnce sync.Map // endpoint -> error of creating the test bucket

// testS3 is an S3 store under a prefix of its own in the test bucket (created when
// missing); tweak changes its settings before it is opened. The prefix is emptied when the
// test ends.
func testS3(t testing.TB, tweak func(*S3Config)) *S3 {
	t.Helper()
	endpoint, creds := s3Server(t)
	ensureBucket(t, endpoint, creds)
	cfg := S3Config{Bucket: testBucket, Prefix: testPrefix(t), Endpoint: endpoint, PathStyle: true, Credentials: creds}
	if tweak != nil {
		tweak(&cfg)
	}
	s, err := NewS3(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emptyPrefix(t, endpoint, creds, cfg.Prefix) })
	return s
}

var unsafeKey = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func testPrefix(t testing.TB) string {
	name := unsafeKey.ReplaceAllString(t.Name(), "_")
	if len(name) > 80 {
		name = name[:80]
	}
	return fmt.Sprintf("tests/%s-%d", name, time.Now().UnixNano())
}

// rawClient reaches the test server without the store, to look at what the store left.
func rawClient(t testing.TB, endpoint string, creds Credentials) *s3.Client {
	t.Helper()
	cfg, err := loadAWSConfig(context.Background(), S3Config{Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.UsePathStyle = true
	})
}

func ensureBucket(t testing.TB, endpoint string, creds Credentials) {
	t.Helper()
	v, _ := bucketOnce.LoadOrStore(endpoint, sync.OnceValue(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := rawClient(t, endpoint, creds).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(testBucket)})
		var owned *types.BucketAlreadyOwnedByYou
		var exists *types.BucketAlreadyExists
		if errors.As(err, &owned) || errors.As(err, &exists) {
			return nil
		}
		return err
	}))
	if err := v.(func() error)(); err != nil {
		t.Fatalf("create bucket %s at %s: %v", testBucket, endpoint, err)
	}
}

// objects lists the object keys under a prefix of the test bucket.
func objects(t testing.TB, endpoint string, creds Credentials, prefix string) []string {
	t.Helper()
	var out []string
	pages := s3.NewListObjectsV2Paginator(rawClient(t, endpoint, creds), &s3.ListObjectsV2Input{Bucket: aws.String(testBucket), Prefix: aws.String(prefix + "/")})
	for pages.HasMorePages() {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			out = append(out, strings.TrimPrefix(aws.ToString(o.Key), prefix+"/"))
		}
	}
	return out
}

func emptyPrefix(t testing.TB, endpoint string, creds Credentials, prefix string) {
	c := rawClient(t, endpoint, creds)
	for _, k := range objects(t, endpoint, creds, prefix) {
		_, _ = c.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(testBucket), Key: aws.String(prefix + "/" + k)})
	}
}

// TestS3Layout: the bucket holds the file system store's keys under the prefix, readable
// by a person browsing it.
func TestS3Layout(t *testing.T) {
	endpoint, creds := s3Server(t)
	s := testS3(t, nil)
	ctx := context.Background()
	mustPut(t, s, StateKey(7, 1, 3, "g1-0"), "state")
	if err := WriteManifest(ctx, s, manifest(7, 1, 3)); err != nil {
		t.Fatal(err)
	}
	got := objects(t, endpoint, creds, strings.TrimSuffix(s.prefix, "/"))
	if want := []string{"7/1/3/g1-0.state", "7/1/3/manifest.json"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("bucket holds %q, want %q", got, want)
	}
}

// cutProxy forwards TCP connections to the S3 server; once cut, each connection forwards
// only the first bytes of what the client sends and then breaks, as a server that goes
// away in the middle of an upload.
type cutProxy struct {
	ln     net.Listener
	target string
	limit  atomic.Int64 // 0: forward everything
	mu     sync.Mutex
	conns  map[net.Conn]bool
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); p.closeAll() })
	go p.serve()
	return p
}

func (p *cutProxy) url() string { return "http://" + p.ln.Addr().String() }

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.relay(c, p.limit.Load())
	}
}

func (p *cutProxy) relay(c net.Conn, limit int64) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	go func() { _, _ = io.Copy(c, up); c.Close() }()
	if limit > 0 {
		_, _ = io.CopyN(up, c, limit)
	} else {
		_, _ = io.Copy(up, c)
	}
	up.Close()
	c.Close()
}

// cut makes every later connection break after n bytes, and breaks the open ones.
func (p *cutProxy) cut(n int64) {
	p.limit.Store(n)
	p.closeAll()
}

func (p *cutProxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// TestS3UploadFailingHalfWayLeavesNoManifest: a checkpoint whose uploads break (the server
// goes away in the middle of a body, or every attempt of the client times out) fails after
// its retries and leaves no manifest, so it never completed; its blobs go with the next
// retention.
func TestS3UploadFailingHalfWayLeavesNoManifest(t *testing.T) {
	endpoint, _ := s3Server(t)
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	big := &contract.Manifest{Job: 7, Pipeline: 1, Checkpoint: 1, Tasks: []contract.ManifestTask{{Task: "g1-0", Key: StateKey(7, 1, 1, "g1-0")}},
		Commits: map[int][][]byte{2: {bytes.Repeat([]byte("c"), 4<<20)}}}
	for _, c := range []struct {
		name string
		// broken is a store on direct's prefix whose uploads break
		broken func(t *testing.T, prefix string) *S3
	}{
		{"the server goes away mid-upload", func(t *testing.T, prefix string) *S3 {
			proxy := newCutProxy(t, u.Host)
			s := testS3(t, func(c *S3Config) {
				c.Prefix, c.Endpoint = prefix, proxy.url()
				c.Attempts, c.MaxBackoff = 3, 50*time.Millisecond
			})
			mustPut(t, s, StateKey(7, 1, 1, "g1-2"), "through the proxy before it breaks")
			proxy.cut(16 << 10)
			return s
		}},
		{"every attempt times out", func(t *testing.T, prefix string) *S3 {
			// a server that takes the connection and never answers: each attempt ends at its
			// limit and nothing can have reached the bucket (a limit against the real server
			// could end an attempt the server completes anyway)
			silent := "http://" + nettest.SilentAddr(t)
			return testS3(t, func(c *S3Config) {
				c.Prefix, c.Endpoint = prefix, silent
				c.Attempts, c.MaxBackoff, c.AttemptTimeout = 3, 50*time.Millisecond, 100*time.Millisecond
			})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			direct := testS3(t, nil)
			mustPut(t, direct, StateKey(7, 1, 1, "g1-0"), "state before the break")
			broken := c.broken(t, strings.TrimSuffix(direct.prefix, "/"))
			before := mustList(t, direct, Dir(7, 1, 1))
			began := time.Now()
			if err := broken.Put(ctx, StateKey(7, 1, 1, "g1-1"), bytes.Repeat([]byte("s"), 4<<20)); err == nil {
				t.Fatal("a state upload that broke half way succeeded")
			}
			err := WriteManifest(ctx, broken, big)
			if err == nil {
				t.Fatal("a manifest upload that broke half way succeeded")
			}
			t.Logf("gave up after %s: %v", time.Since(began).Round(time.Millisecond), err)
			if !strings.Contains(err.Error(), "7/1/1/manifest.json") {
				t.Errorf("the error does not name the manifest: %v", err)
			}
			if _, err := ReadManifest(ctx, direct, 7, 1, 1); !errors.Is(err, ErrNotFound) {
				t.Fatalf("a manifest is there after a broken upload: %v", err)
			}
			if ids := mustCompleted(t, direct, 7, 1); len(ids) != 0 {
				t.Fatalf("checkpoints %v completed", ids)
			}
			if keys := mustList(t, direct, Dir(7, 1, 1)); fmt.Sprint(keys) != fmt.Sprint(before) {
				t.Fatalf("the broken checkpoint holds %q, want only what was written before the break, %q", keys, before)
			}
			// the next checkpoint completes; retention deletes the aborted one
			mustPut(t, direct, StateKey(7, 1, 2, "g1-0"), "state 2")
			if err := WriteManifest(ctx, direct, manifest(7, 1, 2)); err != nil {
				t.Fatal(err)
			}
			if err := Retain(ctx, direct, 7, 1, 1); err != nil {
				t.Fatal(err)
			}
			if keys := mustList(t, direct, "7/1/"); len(keys) != 2 || !strings.HasPrefix(keys[0], "7/1/2/") {
				t.Fatalf("after retention: %q, want checkpoint 2 alone", keys)
			}
		})
	}
}

// TestS3RetriesTransientErrors: a server that answers 503 Slow Down to the first attempts
// of each request costs retries with backoff, not the upload.
func TestS3RetriesTransientErrors(t *testing.T) {
	endpoint, _ := s3Server(t)
	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	var refused, seen atomic.Int64
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// two of every three requests are turned away
		if seen.Add(1)%3 != 0 {
			refused.Add(1)
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
			return
		}
		rp.ServeHTTP(w, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	s := testS3(t, func(c *S3Config) {
		c.Endpoint, c.MaxBackoff = "http://"+ln.Addr().String(), 50*time.Millisecond
	})
	ctx := context.Background()
	mustPut(t, s, StateKey(7, 1, 1, "g1-0"), "state")
	if err := WriteManifest(ctx, s, manifest(7, 1, 1)); err != nil {
		t.Fatal(err)
	}
	m, err := Latest(ctx, s, 7, 1)
	if err != nil || m.Checkpoint != 1 {
		t.Fatalf("latest %+v %v", m, err)
	}
	if b := mustGet(t, s, StateKey(7, 1, 1, "g1-0")); string(b) != "state" {
		t.Fatalf("state %q", b)
	}
	if refused.Load() < 4 {
		t.Fatalf("only %d requests were refused: the retries were not exercised", refused.Load())
	}
	t.Logf("%d of %d requests refused, every operation succeeded", refused.Load(), seen.Load())
}

// TestS3CheckNamesWhatFailed: a wrong endpoint, credential or bucket fails the start-up
// check within seconds, and the error says which.
func TestS3CheckNamesWhatFailed(t *testing.T) {
	endpoint, creds := s3Server(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nowhere := "http://" + ln.Addr().String()
	ln.Close() // nothing answers there now
	for _, c := range []struct {
		name  string
		tweak func(*S3Config)
		want  string
	}{
		{"no server at the endpoint", func(c *S3Config) { c.Endpoint = nowhere }, "the endpoint " + nowhere + " does not answer"},
		{"a wrong secret", func(c *S3Config) { c.Credentials.SecretKey = "wrong" }, "access denied to the credentials from static (access key " + creds.AccessKey + ")"},
		{"an unknown access key", func(c *S3Config) { c.Credentials.AccessKey = "nobody" }, "access denied to the credentials from static (access key nobody)"},
		{"a bucket that does not exist", func(c *S3Config) { c.Bucket = "strait-no-such-bucket" }, `bucket "strait-no-such-bucket" does not exist at ` + endpoint},
		{"no credentials in the environment", func(c *S3Config) {
			c.Credentials = Credentials{Providers: []string{ProviderEnv}}
			t.Setenv("AWS_ACCESS_KEY_ID", "")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "")
			t.Setenv("AWS_ACCESS_KEY", "")
			t.Setenv("AWS_SECRET_KEY", "")
		}, "no credentials from env"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := testS3(t, c.tweak)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			began := time.Now()
			err := s.Check(ctx)
			took := time.Since(began)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v\nwant %q", err, c.want)
			}
			if took > 10*time.Second {
				t.Fatalf("the check took %s", took)
			}
			t.Logf("failed in %s: %v", took.Round(time.Millisecond), err)
		})
	}
	t.Run("credentials from the environment", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", creds.AccessKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", creds.SecretKey)
		s := testS3(t, func(c *S3Config) { c.Credentials = Credentials{Providers: []string{ProviderEnv}} })
		if err := s.Check(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a chain takes the first provider that gives credentials", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", "")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "")
		s := testS3(t, func(c *S3Config) { c.Credentials.Providers = []string{ProviderEnv, ProviderStatic} })
		if err := s.Check(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestS3Config refuses settings that cannot name a store, before any request.
func TestS3Config(t *testing.T) {
	for _, c := range []struct {
		cfg  S3Config
		want string
	}{
		{S3Config{}, "no bucket"},
		{S3Config{Bucket: "a/b"}, "a bucket name has no slashes"},
		{S3Config{Bucket: "b", Prefix: "../up"}, "is not a plain folder path"},
		{S3Config{Bucket: "b", Endpoint: "ftp://x"}, "the scheme must be http or https"},
		{S3Config{Bucket: "b", Credentials: Credentials{Providers: []string{ProviderStatic}}}, "the static provider needs an access key and a secret key"},
		{S3Config{Bucket: "b", Credentials: Credentials{Providers: []string{"magic"}}}, `unknown provider "magic"`},
	} {
		if _, err := NewS3(context.Background(), c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	for in, want := range map[string]string{"": "", "a": "a/", "/a/b/": "a/b/", "a/./b": "a/b/"} {
		if got, err := cleanPrefix(in); err != nil || got != want {
			t.Errorf("prefix %q: %q %v, want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"s3.amazonaws.com": "https://s3.amazonaws.com", "http://127.0.0.1:8333/": "http://127.0.0.1:8333"} {
		if got, err := NormalizeEndpoint(in); err != nil || got != want {
			t.Errorf("endpoint %q: %q %v, want %q", in, got, err, want)
		}
	}
}
