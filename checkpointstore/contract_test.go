package checkpointstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strait-dev/strait/contract"
)

// backend opens an empty store of one kind for a test.
type backend struct {
	name string
	open func(t *testing.T) Store
}

func backends() []backend {
	return []backend{
		{"fs", func(t *testing.T) Store {
			s, err := New(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
		{"s3", func(t *testing.T) Store { return testS3(t, nil) }},
	}
}

// behaviours is what every store does, whatever it keeps its blobs in.
var behaviours = []struct {
	name string
	run  func(t *testing.T, s Store)
}{
	{"a blob reads back as written and a second put replaces it", func(t *testing.T, s Store) {
		ctx := context.Background()
		mustPut(t, s, "1/1/1/g1-0.state", "first")
		mustPut(t, s, "1/1/1/g1-0.state", "second")
		if b := mustGet(t, s, "1/1/1/g1-0.state"); string(b) != "second" {
			t.Fatalf("read %q", b)
		}
		mustPut(t, s, "1/1/1/empty.state", "")
		if b, err := s.Get(ctx, "1/1/1/empty.state"); err != nil || len(b) != 0 {
			t.Fatalf("empty blob: %q %v", b, err)
		}
	}},
	{"a missing blob is not found", func(t *testing.T, s Store) {
		_, err := s.Get(context.Background(), "9/9/9/g1-0.state")
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "9/9/9/g1-0.state") {
			t.Fatalf("%v, want ErrNotFound naming the key", err)
		}
	}},
	{"a listing is sorted and stays in its folder", func(t *testing.T, s Store) {
		for _, k := range []string{"7/10/1/g1-0.state", "7/1/2/manifest.json", "7/1/10/g1-0.state", "7/1/2/g1-0.state", "70/1/1/g1-0.state"} {
			mustPut(t, s, k, k)
		}
		want := []string{"7/1/10/g1-0.state", "7/1/2/g1-0.state", "7/1/2/manifest.json"}
		for _, prefix := range []string{"7/1/", "7/1"} {
			if got := mustList(t, s, prefix); !reflect.DeepEqual(got, want) {
				t.Errorf("list %q: %q, want %q", prefix, got, want)
			}
		}
		if got := mustList(t, s, "7/"); len(got) != 4 {
			t.Errorf("list 7/: %q, want the four keys of job 7", got)
		}
		if got := mustList(t, s, "8/"); len(got) != 0 {
			t.Errorf("list of an empty folder: %q", got)
		}
	}},
	{"a delete removes a folder and the blob of its name, not its neighbours", func(t *testing.T, s Store) {
		for _, k := range []string{"3/1/1/g1-0.state", "3/1/1/manifest.json", "3/1/10/g1-0.state", "3/1/1x", "3/1/2"} {
			mustPut(t, s, k, k)
		}
		ctx := context.Background()
		if err := s.Delete(ctx, "3/1/1"); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, "3/1/2"); err != nil {
			t.Fatal(err)
		}
		if got, want := mustList(t, s, "3/"), []string{"3/1/10/g1-0.state", "3/1/1x"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("left %q, want %q", got, want)
		}
		if err := s.Delete(ctx, "3/5"); err != nil {
			t.Fatalf("deleting what is not there: %v", err)
		}
	}},
	{"the whole store cannot be deleted", func(t *testing.T, s Store) {
		mustPut(t, s, "1/1/1/g1-0.state", "x")
		for _, p := range []string{"", ".", "/", "1/.."} {
			if err := s.Delete(context.Background(), p); err == nil {
				t.Errorf("delete %q accepted", p)
			}
		}
		if len(mustList(t, s, "1/")) != 1 {
			t.Fatal("the store lost its blob")
		}
	}},
	{"keys cannot leave the store", func(t *testing.T, s Store) {
		ctx := context.Background()
		for _, k := range []string{"../x", "/etc/passwd", "a/../../b"} {
			if err := s.Put(ctx, k, nil); err == nil {
				t.Errorf("put %q accepted", k)
			}
			if _, err := s.Get(ctx, k); err == nil || errors.Is(err, ErrNotFound) {
				t.Errorf("get %q: %v", k, err)
			}
			if _, err := s.List(ctx, k); err == nil {
				t.Errorf("list %q accepted", k)
			}
		}
	}},
	{"a checkpoint completes with its manifest, written last", func(t *testing.T, s Store) {
		ctx := context.Background()
		if _, err := Latest(ctx, s, 7, 1); !errors.Is(err, ErrNotFound) {
			t.Fatalf("empty store: %v", err)
		}
		mustPut(t, s, StateKey(7, 1, 1, "g1-0"), "state 1")
		if ids := mustCompleted(t, s, 7, 1); len(ids) != 0 {
			t.Fatalf("a checkpoint without a manifest completed: %v", ids)
		}
		m := manifest(7, 1, 1)
		m.Counters = contract.Counters{RowsRead: 42}
		if err := WriteManifest(ctx, s, m); err != nil {
			t.Fatal(err)
		}
		got, err := Latest(ctx, s, 7, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got.Checkpoint != 1 || got.Tasks[0].Key != StateKey(7, 1, 1, "g1-0") || string(got.Commits[2][0]) != "info 1" || got.Counters.RowsRead != 42 {
			t.Fatalf("manifest %+v", got)
		}
		if b := mustGet(t, s, got.Tasks[0].Key); string(b) != "state 1" {
			t.Fatalf("state %q", b)
		}
		if _, err := ReadManifest(ctx, s, 7, 1, 2); !errors.Is(err, ErrNotFound) {
			t.Fatalf("manifest of a checkpoint never taken: %v", err)
		}
	}},
	{"retention keeps the newest completed, deletes older and aborted ones, keeps one in progress", func(t *testing.T, s Store) {
		ctx := context.Background()
		for id := int64(1); id <= 6; id++ {
			mustPut(t, s, StateKey(7, 1, id, "g1-0"), fmt.Sprint(id))
			if id == 2 || id == 6 {
				continue // 2 was aborted, 6 is in progress
			}
			if err := WriteManifest(ctx, s, manifest(7, 1, id)); err != nil {
				t.Fatal(err)
			}
		}
		mustPut(t, s, StateKey(7, 2, 1, "g1-0"), "another pipeline")
		if err := Retain(ctx, s, 7, 1, 2); err != nil {
			t.Fatal(err)
		}
		if ids := mustCompleted(t, s, 7, 1); !reflect.DeepEqual(ids, []int64{4, 5}) {
			t.Fatalf("kept %v, want [4 5]", ids)
		}
		for _, id := range []int64{1, 2, 3} {
			if left := mustList(t, s, Dir(7, 1, id)); len(left) != 0 {
				t.Errorf("checkpoint %d not deleted: %q", id, left)
			}
		}
		if _, err := s.Get(ctx, StateKey(7, 1, 6, "g1-0")); err != nil {
			t.Errorf("the checkpoint in progress was deleted: %v", err)
		}
		if _, err := s.Get(ctx, StateKey(7, 2, 1, "g1-0")); err != nil {
			t.Errorf("another pipeline's checkpoint was deleted: %v", err)
		}
	}},
	{"forget deletes every checkpoint of a job and names the completed ones", func(t *testing.T, s Store) {
		ctx := context.Background()
		for _, p := range []int{1, 2} {
			for id := int64(3); id <= 4; id++ {
				mustPut(t, s, StateKey(5, p, id, "g1-0"), "x")
				if err := WriteManifest(ctx, s, manifest(5, p, id)); err != nil {
					t.Fatal(err)
				}
			}
		}
		mustPut(t, s, StateKey(50, 1, 1, "g1-0"), "job 50")
		left, err := Forget(ctx, s, 5)
		if err != nil || left != "pipeline 1: 3..4, pipeline 2: 3..4" {
			t.Fatalf("forget: %q %v", left, err)
		}
		if got := mustList(t, s, "5/"); len(got) != 0 {
			t.Fatalf("left %q", got)
		}
		if got := mustList(t, s, "50/"); len(got) != 1 {
			t.Fatalf("job 50 lost its state: %q", got)
		}
		if left, err := Forget(ctx, s, 5); err != nil || left != "" {
			t.Fatalf("forget again: %q %v", left, err)
		}
	}},
	{"a large blob reads back whole", func(t *testing.T, s Store) {
		big := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB
		if err := s.Put(context.Background(), "1/1/1/big.state", big); err != nil {
			t.Fatal(err)
		}
		if b := mustGet(t, s, "1/1/1/big.state"); !bytes.Equal(b, big) {
			t.Fatalf("read %d bytes, want %d", len(b), len(big))
		}
	}},
	{"many tasks put their state at once", func(t *testing.T, s Store) {
		const tasks = 32
		var wg sync.WaitGroup
		errs := make(chan error, tasks)
		for i := 0; i < tasks; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- s.Put(context.Background(), StateKey(1, 1, 1, fmt.Sprintf("g1-%d", i)), []byte(fmt.Sprint(i)))
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if got := mustList(t, s, Dir(1, 1, 1)); len(got) != tasks {
			t.Fatalf("%d blobs, want %d", len(got), tasks)
		}
	}},
	{"a usable store passes its check", func(t *testing.T, s Store) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Check(ctx); err != nil {
			t.Fatal(err)
		}
		if got := mustList(t, s, ""); len(got) != 0 {
			t.Fatalf("the check left %q", got)
		}
	}},
}

// TestContract runs every behaviour against the file system store and the S3 store (on the
// S3 server of STRAIT_TEST_S3).
func TestContract(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			for _, c := range behaviours {
				t.Run(c.name, func(t *testing.T) { c.run(t, b.open(t)) })
			}
		})
	}
}

func manifest(job int64, pipeline int, id int64) *contract.Manifest {
	return &contract.Manifest{Job: job, Pipeline: pipeline, Checkpoint: id, Completed: time.Now().UTC(),
		Tasks:   []contract.ManifestTask{{Task: "g1-0", Key: StateKey(job, pipeline, id, "g1-0")}},
		Commits: map[int][][]byte{2: {[]byte(fmt.Sprintf("info %d", id))}}}
}

func mustPut(t *testing.T, s Store, key, data string) {
	t.Helper()
	if err := s.Put(context.Background(), key, []byte(data)); err != nil {
		t.Fatal(err)
	}
}

func mustGet(t *testing.T, s Store, key string) []byte {
	t.Helper()
	b, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustList(t *testing.T, s Store, prefix string) []string {
	t.Helper()
	keys, err := s.List(context.Background(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func mustCompleted(t *testing.T, s Store, job int64, pipeline int) []int64 {
	t.Helper()
	ids, err := Completed(context.Background(), s, job, pipeline)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}
