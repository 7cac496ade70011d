package conntest

import (
	"context"
	"testing"
	"time"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// Harness runs a source's enumerator and readers in the test's goroutine, as the task runner
// does, one step at a time: assignments are handed to the readers between polls, split
// requests are answered in the order they came, and the test checkpoints and restores
// between steps. A change source's tests use it to stop at exact points of a snapshot or a
// stream.
type Harness struct {
	T       testing.TB
	EC      *EnumContext
	En      connector.Enumerator
	Readers []connector.Reader
	// Batch is the rows a reader may emit per poll.
	Batch int
	// Rows are every row the readers emitted, in order, cloned.
	Rows []row.Row
	// Changes are the schema changes the readers passed on, each with the rows before it.
	Changes []SeenChange
	// Done says which readers reported that they are done.
	Done []bool
	// OnAssign, when set, sees each split handed to a reader, with the rows emitted so far.
	OnAssign func(reader int, s connector.Split, rows int)

	delivered []int
	noMore    []bool
	requests  []int
}

// SeenChange is a schema change a reader passed on and how many rows came before it.
type SeenChange struct {
	After  int
	Change *connector.SchemaChange
}

// NewHarness opens src's enumerator and p readers, restored from a checkpoint when enumState
// or readerStates are given, and runs the enumerator's first discovery. Everything is closed
// when the test ends.
func NewHarness(t testing.TB, src connector.Source, p, batch int, enumState []byte, readerStates [][]connector.Split) *Harness {
	t.Helper()
	h := &Harness{T: t, EC: NewEnumContext(p), Batch: batch,
		delivered: make([]int, p), noMore: make([]bool, p), Done: make([]bool, p)}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	en, err := src.CreateEnumerator(h.EC, enumState)
	if err != nil {
		t.Fatal(err)
	}
	h.En = en
	t.Cleanup(h.Close)
	if err := en.Open(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range p {
		r, err := src.CreateReader(connector.ReaderContext{Index: i, Parallelism: p, Job: connector.Job{ID: 1},
			RequestSplit: func() { h.requests = append(h.requests, i) }})
		if err != nil {
			t.Fatal(err)
		}
		if readerStates != nil && len(readerStates[i]) > 0 {
			r.AddSplits(readerStates[i])
		}
		h.Readers = append(h.Readers, r)
		if err := r.Open(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := en.Run(ctx); err != nil {
		t.Fatalf("enumerator: %v", err)
	}
	return h
}

// Close closes the readers and the enumerator; the test's end does it too.
func (h *Harness) Close() {
	for _, r := range h.Readers {
		r.Close()
	}
	h.Readers = nil
	if h.En != nil {
		h.En.Close()
		h.En = nil
	}
}

// Step answers the split requests, hands over new assignments and polls every reader that
// is not done once.
func (h *Harness) Step(ctx context.Context) error {
	for _, r := range h.requests {
		if err := h.En.HandleSplitRequest(r); err != nil {
			return err
		}
	}
	h.requests = nil
	for i, r := range h.Readers {
		if a := h.EC.Assigned[i]; len(a) > h.delivered[i] {
			if h.OnAssign != nil {
				for _, s := range a[h.delivered[i]:] {
					h.OnAssign(i, s, len(h.Rows))
				}
			}
			r.AddSplits(a[h.delivered[i]:])
			h.delivered[i] = len(a)
		}
		if h.EC.NoMore[i] && !h.noMore[i] {
			h.noMore[i] = true
			r.NoMoreSplits()
		}
		if h.Done[i] {
			continue
		}
		b := row.NewBatch(h.Batch)
		done, err := r.PollNext(ctx, b)
		for j := range b.Rows {
			h.Rows = append(h.Rows, b.Rows[j].Clone())
		}
		b.Release()
		if sc, ok := r.(connector.SchemaChangeReader); ok {
			for _, c := range sc.SchemaChanges() {
				h.Changes = append(h.Changes, SeenChange{After: len(h.Rows), Change: c})
			}
		}
		if err != nil {
			return err
		}
		h.Done[i] = done
	}
	return nil
}

// Until steps until cond holds, failing the test after timeout.
func (h *Harness) Until(what string, timeout time.Duration, cond func() bool) {
	h.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for !cond() {
		if err := h.Step(ctx); err != nil {
			h.T.Fatalf("%s: %v", what, err)
		}
		if ctx.Err() != nil {
			h.T.Fatalf("%s: not within %s (%d rows)", what, timeout, len(h.Rows))
		}
	}
}

// UntilErr steps until a step fails and returns its error, failing the test when none does
// within timeout.
func (h *Harness) UntilErr(timeout time.Duration) error {
	h.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for ctx.Err() == nil {
		if err := h.Step(ctx); err != nil {
			return err
		}
	}
	h.T.Fatalf("no error within %s", timeout)
	return nil
}

// AllDone says whether every reader is done.
func (h *Harness) AllDone() bool {
	for _, d := range h.Done {
		if !d {
			return false
		}
	}
	return true
}

// Checkpoint takes checkpoint id: the enumerator's state and every reader's.
func (h *Harness) Checkpoint(id int64) ([]byte, [][]connector.Split) {
	h.T.Helper()
	var states [][]connector.Split
	for _, r := range h.Readers {
		st, err := r.SnapshotState(id)
		if err != nil {
			h.T.Fatal(err)
		}
		states = append(states, st)
	}
	es, err := h.En.Snapshot(id)
	if err != nil {
		h.T.Fatal(err)
	}
	return es, states
}

// Complete tells the readers that checkpoint id completed.
func (h *Harness) Complete(id int64) {
	h.T.Helper()
	for _, r := range h.Readers {
		if l, ok := r.(connector.CheckpointListener); ok {
			if err := l.NotifyCheckpointComplete(context.Background(), id); err != nil {
				h.T.Fatal(err)
			}
		}
	}
}
