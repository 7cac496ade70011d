package checkpointstore

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// countingClient counts the HTTP requests an S3 client sends (every attempt).
type countingClient struct {
	inner s3.HTTPClient
	n     *atomic.Int64
}

func (c countingClient) Do(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.inner.Do(r)
}

// counted has the store count the requests it sends from now on.
func counted(s *S3) *atomic.Int64 {
	n := new(atomic.Int64)
	s.client = s3.New(s.client.Options(), func(o *s3.Options) { o.HTTPClient = countingClient{inner: o.HTTPClient, n: n} })
	return n
}

// BenchmarkS3Checkpoint is what one checkpoint of a one-task pipeline costs the S3 store, as
// the runner and the worker do it one after the other: the task's state blob, the manifest,
// and the retention of the three newest checkpoints (which, past the third, deletes one).
// requests/op counts what is sent. On the test server of STRAIT_TEST_S3.
func BenchmarkS3Checkpoint(b *testing.B) {
	s := testS3(b, nil)
	ctx := context.Background()
	state := bytes.Repeat([]byte("s"), 256)
	var id int64
	checkpoint := func() {
		id++
		if err := s.Put(ctx, StateKey(7, 1, id, "g1-0"), state); err != nil {
			b.Fatal(err)
		}
		if err := WriteManifest(ctx, s, manifest(7, 1, id)); err != nil {
			b.Fatal(err)
		}
		if err := Retain(ctx, s, 7, 1, 3); err != nil {
			b.Fatal(err)
		}
	}
	for range 3 {
		checkpoint() // the retention has something to delete from the next one on
	}
	n := counted(s)
	b.ReportAllocs()
	for b.Loop() {
		checkpoint()
	}
	b.ReportMetric(float64(n.Load())/float64(b.N), "requests/op")
}

// folders lists the folders under the store folder prefix that the server shows.
func folders(t *testing.T, s *S3, prefix string) []string {
	t.Helper()
	out, err := s.client.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: &s.bucket,
		Prefix: aws.String(s.folder(prefix)), Delimiter: aws.String("/")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range out.CommonPrefixes {
		got = append(got, strings.TrimPrefix(aws.ToString(p.Prefix), s.prefix))
	}
	return got
}

// TestS3RetentionTakesTwoRequests: in steady state the retention of a checkpoint lists the
// pipeline once and deletes the checkpoint that fell out of it in one batch request (it listed
// twice and then once more per checkpoint it deleted); every key of it goes, and so does its
// folder on a server that keeps folders (SeaweedFS), where each one left would make every
// later listing slower.
func TestS3RetentionTakesTwoRequests(t *testing.T) {
	s := testS3(t, nil)
	ctx := context.Background()
	for id := int64(1); id <= 4; id++ {
		mustPut(t, s, StateKey(7, 1, id, "g1-0"), "state")
		mustPut(t, s, StateKey(7, 1, id, "g1-1"), "state")
		if err := WriteManifest(ctx, s, manifest(7, 1, id)); err != nil {
			t.Fatal(err)
		}
	}
	n := counted(s)
	if err := Retain(ctx, s, 7, 1, 3); err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != 2 {
		t.Errorf("the retention sent %d requests, want a listing and a batch delete", got)
	}
	if left := mustList(t, s, Dir(7, 1, 1)); len(left) != 0 {
		t.Errorf("checkpoint 1 keeps %q", left)
	}
	if got := folders(t, s, "7/1"); !slices.Equal(got, []string{"7/1/2/", "7/1/3/", "7/1/4/"}) {
		t.Errorf("the pipeline's folders are %q, want those of checkpoints 2 to 4", got)
	}
	if ids := mustCompleted(t, s, 7, 1); len(ids) != 3 || ids[0] != 2 {
		t.Errorf("completed %v, want [2 3 4]", ids)
	}
	n.Store(0)
	if err := Retain(ctx, s, 7, 1, 3); err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("a retention with nothing to delete sent %d requests, want the listing alone", got)
	}
}
