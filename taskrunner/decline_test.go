package taskrunner_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/strait-dev/strait/checkpointstore"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/row"
)

// preparing is a sink whose writers prepare a transaction at every checkpoint, named after
// the writer and the checkpoint ("w0-cp1").
type preparing struct{}

func (preparing) CreateWriter(ctx connector.WriterContext, _ [][]byte) (connector.Writer, error) {
	return &preparingWriter{index: ctx.Index}, nil
}
func (preparing) CreateCommitter() (connector.Committer, error) { return nil, nil }

type preparingWriter struct{ index int }

func (*preparingWriter) Write(context.Context, *row.Batch) error { return nil }
func (w *preparingWriter) PrepareCommit(_ context.Context, id int64) ([]byte, error) {
	return fmt.Appendf(nil, "w%d-cp%d", w.index, id), nil
}
func (*preparingWriter) SnapshotState(int64) ([]byte, error) { return nil, nil }
func (*preparingWriter) Close(context.Context) error         { return nil }

func init() {
	connector.RegisterSink("PreparingSink", "Writers that prepare a named transaction at every checkpoint.", func(*connector.SinkContext, *noOptions) (connector.Sink, error) {
		return preparing{}, nil
	})
}

// failingStore is a checkpoint store whose writes of the keys ending in failing fail.
type failingStore struct {
	*checkpointstore.FS
	mu      sync.Mutex
	failing string
}

var errStoreAway = errors.New("the store does not answer")

func (s *failingStore) fail(suffix string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failing = suffix
}

func (s *failingStore) Put(ctx context.Context, key string, data []byte) error {
	s.mu.Lock()
	failing := s.failing
	s.mu.Unlock()
	if failing != "" && strings.HasSuffix(key, failing) {
		return errStoreAway
	}
	return s.FS.Put(ctx, key, data)
}

// checkpointReport is the report of checkpoint id the runner sent, if any.
func (c *collect) checkpointReport(id int64) *contract.CheckpointAck {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.reports {
		if r.Checkpoint != nil && r.Checkpoint.ID == id {
			return r.Checkpoint
		}
	}
	return nil
}

// TestStateNotStoredDeclinesTheCheckpoint: a task whose state cannot be stored declines its
// checkpoint at once, naming itself and the store's error, with the acknowledgements the
// runner's other tasks gave; nothing that a writer prepared for it is lost: the declining
// task's transaction goes with its next acknowledgement. Before, the runner sent nothing
// and the checkpoint waited for its timeout.
func TestStateNotStoredDeclinesTheCheckpoint(t *testing.T) {
	d := firstPipeline(t, `
env { job.mode = STREAMING, parallelism = 2 }
source { ListeningSource {} }
sink { PreparingSink {} }`, connector.Job{ID: 1})
	fs := tempStore(t)
	store := &failingStore{FS: fs}
	g := fusedPair(t, d.Pipeline)
	r, c := pairRunner(t, store)
	sub0, sub1 := contract.TaskID{Group: g, Subtask: 0}, contract.TaskID{Group: g, Subtask: 1}
	if err := r.Deploy(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	eventually(t, "both subtasks running", func() bool {
		f := c.final()
		return f[sub0].State == contract.TaskRunning && f[sub1].State == contract.TaskRunning
	})

	store.fail(sub0.String() + ".state")
	if err := r.Trigger(contract.TriggerRequest{JobID: 1, Pipeline: d.Pipeline.ID, Epoch: 1, CheckpointID: 1}); err != nil {
		t.Fatal(err)
	}
	var declined *contract.CheckpointAck
	eventually(t, "checkpoint 1 declined", func() bool { declined = c.checkpointReport(1); return declined != nil })
	if want := "task " + sub0.String() + ": state not written: " + errStoreAway.Error(); !strings.Contains(declined.Declined, want) {
		t.Fatalf("checkpoint 1 reported %+v, want it declined with %q", declined, want)
	}
	for _, a := range declined.Tasks {
		if a.Task != sub1 {
			t.Fatalf("the decline carries %s's acknowledgement, whose state was not stored", a.Task)
		}
	}

	store.fail("")
	if err := r.Trigger(contract.TriggerRequest{JobID: 1, Pipeline: d.Pipeline.ID, Epoch: 1, CheckpointID: 2}); err != nil {
		t.Fatal(err)
	}
	var acked *contract.CheckpointAck
	eventually(t, "checkpoint 2 acknowledged", func() bool { acked = c.checkpointReport(2); return acked != nil })
	if acked.Declined != "" || len(acked.Tasks) != 2 {
		t.Fatalf("checkpoint 2 reported %+v, want both tasks' acknowledgements", acked)
	}
	// every transaction reaches the pipeline once: the declined checkpoint's with the decline
	// (subtask 1's, when it was stored before subtask 0 failed) or with checkpoint 2
	var got []string
	for _, a := range append(declined.Tasks, acked.Tasks...) {
		got = append(got, infoTexts(a.Commits)...)
	}
	slices.Sort(got)
	if want := []string{"w0-cp1", "w0-cp2", "w1-cp1", "w1-cp2"}; !slices.Equal(got, want) {
		t.Fatalf("the decline and checkpoint 2 delivered %v, want %v", got, want)
	}
}
