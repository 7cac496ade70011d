package postgrescdc

import (
	"context"
	"testing"
	"time"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

func newTestSource(t testing.TB, conf string, mode connector.JobMode, parallelism int) (*Source, error) {
	t.Helper()
	root, err := hocon.Parse([]byte(conf), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatalf("parse %q: %v", conf, err)
	}
	o := config.New(root, "source[0] Postgres-CDC")
	build, _, _ := connector.LookupSource("Postgres-CDC")
	s, err := build(&connector.SourceContext{Context: context.Background(), Options: o, Job: connector.Job{ID: 1, Mode: mode}, Parallelism: parallelism})
	if err != nil {
		return nil, err
	}
	p, _ := connector.LookupPlugin("source", "Postgres-CDC")
	if unknown := p.Spec.Unknown(o); len(unknown) > 0 {
		t.Errorf("options not known: %v", unknown)
	}
	return s.(*Source), nil
}

func mustSource(t testing.TB, conf string, mode connector.JobMode, parallelism int) *Source {
	t.Helper()
	s, err := newTestSource(t, conf, mode, parallelism)
	if err != nil {
		t.Fatalf("NewSource: %v", err)
	}
	return s
}

// harness runs a source's enumerator and readers in the test's goroutine, as the task
// runner does: splits are handed over between polls, split requests are answered in order.
type harness struct {
	t         *testing.T
	src       *Source
	ec        *conntest.EnumContext
	en        connector.Enumerator
	readers   []connector.Reader
	delivered []int
	noMore    []bool
	done      []bool
	requests  []int
	batch     int // rows per poll
	rows      []row.Row
	// streamAt is the number of rows emitted when reader 0 got the stream split, -1 before
	streamAt int
}

// newHarness starts a source with p readers, restored from a checkpoint when enumState or
// readerStates are given.
func newHarness(t *testing.T, src *Source, p int, enumState []byte, readerStates [][]connector.Split) *harness {
	t.Helper()
	h := &harness{t: t, src: src, ec: conntest.NewEnumContext(p), batch: row.DefaultBatchSize, streamAt: -1,
		delivered: make([]int, p), noMore: make([]bool, p), done: make([]bool, p)}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	en, err := src.CreateEnumerator(h.ec, enumState)
	if err != nil {
		t.Fatal(err)
	}
	if err := en.Open(ctx); err != nil {
		t.Fatal(err)
	}
	h.en = en
	for i := 0; i < p; i++ {
		i := i
		r, err := src.CreateReader(connector.ReaderContext{Index: i, Parallelism: p, Job: connector.Job{ID: 1},
			RequestSplit: func() { h.requests = append(h.requests, i) }})
		if err != nil {
			t.Fatal(err)
		}
		if readerStates != nil && len(readerStates[i]) > 0 {
			r.AddSplits(readerStates[i])
		}
		if err := r.Open(ctx); err != nil {
			t.Fatal(err)
		}
		h.readers = append(h.readers, r)
	}
	t.Cleanup(h.close)
	if err := en.Run(ctx); err != nil {
		t.Fatalf("enumerator: %v", err)
	}
	return h
}

func (h *harness) close() {
	for _, r := range h.readers {
		r.Close()
	}
	h.readers = nil
	if h.en != nil {
		h.en.Close()
		h.en = nil
	}
}

// step hands over assignments, answers requests and polls every reader once.
func (h *harness) step(ctx context.Context) error {
	for _, r := range h.requests {
		if err := h.en.HandleSplitRequest(r); err != nil {
			return err
		}
	}
	h.requests = nil
	for i, r := range h.readers {
		if a := h.ec.Assigned[i]; len(a) > h.delivered[i] {
			for _, sp := range a[h.delivered[i]:] {
				if sp.ID == streamSplitID && i == 0 && h.streamAt < 0 {
					h.streamAt = len(h.rows)
				}
			}
			r.AddSplits(a[h.delivered[i]:])
			h.delivered[i] = len(a)
		}
		if h.ec.NoMore[i] && !h.noMore[i] {
			h.noMore[i] = true
			r.NoMoreSplits()
		}
		if h.done[i] {
			continue
		}
		b := row.NewBatch(h.batch)
		done, err := r.PollNext(ctx, b)
		for j := range b.Rows {
			h.rows = append(h.rows, b.Rows[j].Clone())
		}
		b.Release()
		if err != nil {
			return err
		}
		h.done[i] = done
	}
	return nil
}

// until steps until cond holds, failing the test after timeout.
func (h *harness) until(what string, timeout time.Duration, cond func() bool) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for !cond() {
		if err := h.step(ctx); err != nil {
			h.t.Fatalf("%s: %v", what, err)
		}
		if ctx.Err() != nil {
			h.t.Fatalf("%s: not within %s (%d rows)", what, timeout, len(h.rows))
		}
	}
}

// untilErr steps until a step fails and returns the error.
func (h *harness) untilErr(timeout time.Duration) error {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for ctx.Err() == nil {
		if err := h.step(ctx); err != nil {
			return err
		}
	}
	h.t.Fatalf("no error within %s", timeout)
	return nil
}

func (h *harness) allDone() bool {
	for _, d := range h.done {
		if !d {
			return false
		}
	}
	return true
}

// checkpoint takes checkpoint id: the enumerator's state and every reader's.
func (h *harness) checkpoint(id int64) ([]byte, [][]connector.Split) {
	h.t.Helper()
	var states [][]connector.Split
	for _, r := range h.readers {
		st, err := r.SnapshotState(id)
		if err != nil {
			h.t.Fatal(err)
		}
		states = append(states, st)
	}
	es, err := h.en.Snapshot(id)
	if err != nil {
		h.t.Fatal(err)
	}
	return es, states
}

// complete tells the readers that checkpoint id completed.
func (h *harness) complete(id int64) {
	h.t.Helper()
	for _, r := range h.readers {
		if l, ok := r.(connector.CheckpointListener); ok {
			if err := l.NotifyCheckpointComplete(context.Background(), id); err != nil {
				h.t.Fatal(err)
			}
		}
	}
}

func newEnumContext(p int) *conntest.EnumContext { return conntest.NewEnumContext(p) }
