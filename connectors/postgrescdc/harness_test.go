package postgrescdc

import (
	"context"
	"testing"

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

// harness steps the source's enumerator and readers in the test's goroutine
// (conntest.Harness), and notes when reader 0 gets the stream split.
type harness struct {
	*conntest.Harness
	// streamAt is the number of rows emitted when reader 0 got the stream split, -1 before
	streamAt int
}

// newHarness starts a source with p readers, restored from a checkpoint when enumState or
// readerStates are given.
func newHarness(t *testing.T, src *Source, p int, enumState []byte, readerStates [][]connector.Split) *harness {
	t.Helper()
	h := &harness{Harness: conntest.NewHarness(t, src, p, row.DefaultBatchSize, enumState, readerStates), streamAt: -1}
	h.OnAssign = func(reader int, s connector.Split, rows int) {
		if s.ID == streamSplitID && reader == 0 && h.streamAt < 0 {
			h.streamAt = rows
		}
	}
	return h
}

func newEnumContext(p int) *conntest.EnumContext { return conntest.NewEnumContext(p) }
