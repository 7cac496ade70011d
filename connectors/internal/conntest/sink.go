package conntest

import (
	"context"
	"math/big"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// BatchOf is a batch of inserts into tbl, one a row of values.
func BatchOf(tbl *catalog.Table, rows ...[]row.Value) *row.Batch {
	b := row.NewBatch(len(rows) + 1)
	for _, r := range rows {
		n := b.Add(row.Insert, tbl.ID(), len(r))
		copy(n.Fields, r)
	}
	return b
}

// Dec is the decimal unscaled × 10^-scale.
func Dec(unscaled int64, scale int) row.Value { return row.DecimalValue(big.NewInt(unscaled), scale) }

// Writer is the writer of subtask 0 of 1 of job, restored from states when there are any;
// an error fails the test.
func Writer(t testing.TB, s connector.Sink, job int64, states [][]byte) connector.Writer {
	t.Helper()
	w, err := s.CreateWriter(connector.WriterContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: job}}, states)
	if err != nil {
		t.Fatalf("create writer: %v", err)
	}
	return w
}

// Prepare writes the batches with a writer of job, prepares checkpoint 1, closes the writer
// and returns the commit info; an error fails the test.
func Prepare(t testing.TB, s connector.Sink, job int64, batches ...*row.Batch) []byte {
	t.Helper()
	ctx := context.Background()
	w := Writer(t, s, job, nil)
	for _, b := range batches {
		if err := w.Write(ctx, b); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	info, err := w.PrepareCommit(ctx, 1)
	if err != nil {
		t.Fatalf("prepare commit: %v", err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatalf("close writer: %v", err)
	}
	return info
}

// Commit commits the infos as the final commit of checkpoint cp with the sink's committer;
// a sink without a committer fails the test.
func Commit(t testing.TB, s connector.Sink, cp int64, infos ...[]byte) error {
	t.Helper()
	c, err := s.CreateCommitter()
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		t.Fatal("the sink has no committer")
	}
	return c.Commit(context.Background(), connector.CommitRequest{CheckpointID: cp, Final: true, Infos: infos})
}

// WriteCommit writes the batches with one writer of job 7, prepares checkpoint 1 and commits
// it; an error fails the test.
func WriteCommit(t testing.TB, s connector.Sink, batches ...*row.Batch) {
	t.Helper()
	if err := Commit(t, s, 1, Prepare(t, s, 7, batches...)); err != nil {
		t.Fatalf("commit: %v", err)
	}
}

// WritePrepare writes b with w and prepares checkpoint cp, returning its commit info; an
// error fails the test.
func WritePrepare(ctx context.Context, t testing.TB, w connector.Writer, cp int64, b *row.Batch) []byte {
	t.Helper()
	if err := w.Write(ctx, b); err != nil {
		t.Fatalf("write: %v", err)
	}
	info, err := w.PrepareCommit(ctx, cp)
	if err != nil {
		t.Fatalf("prepare commit %d: %v", cp, err)
	}
	return info
}

// Barrier writes b with w, prepares checkpoint cp and snapshots w's state, as the runner
// does at a checkpoint barrier; an error fails the test.
func Barrier(ctx context.Context, t testing.TB, w connector.Writer, cp int64, b *row.Batch) (info, state []byte) {
	t.Helper()
	info = WritePrepare(ctx, t, w, cp, b)
	state, err := w.SnapshotState(cp)
	if err != nil {
		t.Fatalf("snapshot state %d: %v", cp, err)
	}
	return info, state
}

// RunEnumerator creates src's enumerator on ec, restored from state when it is not nil, and
// runs it; an error of either fails the test.
func RunEnumerator(ctx context.Context, t testing.TB, src connector.Source, ec connector.EnumeratorContext, state []byte) connector.Enumerator {
	t.Helper()
	en, err := src.CreateEnumerator(ec, state)
	if err != nil {
		t.Fatalf("create enumerator: %v", err)
	}
	if err := en.Run(ctx); err != nil {
		t.Fatalf("run enumerator: %v", err)
	}
	return en
}

// Poll polls r once into b and reports whether r has reached its end; an error fails the test.
func Poll(ctx context.Context, t testing.TB, r connector.Reader, b *row.Batch) bool {
	t.Helper()
	done, err := r.PollNext(ctx, b)
	if err != nil {
		t.Fatalf("poll: %v", err)
	}
	return done
}

// OpenReader creates src's reader of rc, hands it splits and tells it no more will come;
// an error fails the test.
func OpenReader(t testing.TB, src connector.Source, rc connector.ReaderContext, splits []connector.Split) connector.Reader {
	t.Helper()
	r, err := src.CreateReader(rc)
	if err != nil {
		t.Fatalf("create reader: %v", err)
	}
	r.AddSplits(splits)
	r.NoMoreSplits()
	return r
}

// EachOnce checks that seen, a count of the times each row was read, holds want rows,
// each read once.
func EachOnce[K comparable](t testing.TB, seen map[K]int, want int) {
	t.Helper()
	if len(seen) != want {
		t.Errorf("%d distinct rows read, want %d", len(seen), want)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("row %v read %d times", k, n)
		}
	}
}

// StartReader opens r, hands it splits and tells it no more will come; r is closed when
// the test ends. An error opening it fails the test.
func StartReader(ctx context.Context, t testing.TB, r connector.Reader, splits []connector.Split) {
	t.Helper()
	if err := r.Open(ctx); err != nil {
		t.Fatalf("open reader: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	r.AddSplits(splits)
	r.NoMoreSplits()
}
