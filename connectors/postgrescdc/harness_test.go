package postgrescdc

import (
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

func newTestSource(t testing.TB, conf string, mode connector.JobMode, parallelism int) (*Source, error) {
	t.Helper()
	s, o, err := conntest.BuildSourceIn(t, "Postgres-CDC", conf, connector.SourceContext{Job: connector.Job{ID: 1, Mode: mode}, Parallelism: parallelism})
	if err != nil {
		return nil, err
	}
	if unknown := conntest.Unknown(t, "source", "Postgres-CDC", o); len(unknown) > 0 {
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
