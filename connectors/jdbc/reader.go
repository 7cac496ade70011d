package jdbc

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/connectors/internal/snapshot"
	"github.com/strait-dev/strait/row"
)

// sourceReader reads the splits assigned to one subtask, one after the other, on one
// connection it opens for its first split (snapshot.Reader). A split's rows stream from the
// server as PollNext asks for them.
type sourceReader struct {
	src    *Source
	snap   snapshot.Reader
	noMore bool
	err    error
	dec    pgwire.Decoder
}

// CreateReader makes the reader of one subtask.
func (s *Source) CreateReader(connector.ReaderContext) (connector.Reader, error) {
	r := &sourceReader{src: s}
	r.snap = snapshot.Reader{Where: s.where, Connect: s.connect}
	return r, nil
}

// connect opens a connection to read splits on.
func (s *Source) connect(ctx context.Context) (*pgx.Conn, error) {
	pg, err := s.conn.connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.where, err)
	}
	return pg, nil
}

func (r *sourceReader) Open(context.Context) error { return nil }

// AddSplits queues splits to read.
func (r *sourceReader) AddSplits(splits []connector.Split) {
	for _, s := range splits {
		var d srcSplit
		if err := json.Unmarshal(s.Data, &d); err != nil {
			r.setErr(fmt.Errorf("%s: bad split %q: %v", r.src.where, s.ID, err))
			continue
		}
		t := r.src.byID[d.Table]
		if t == nil {
			r.setErr(fmt.Errorf("%s: split %q reads table %s, which the source does not read (the options changed?)", r.src.where, s.ID, d.Table))
			continue
		}
		r.snap.Add(snapshot.Split{Split: s, Table: t.id, SQL: d.statement(t), Cols: t.cols})
	}
}

func (r *sourceReader) NoMoreSplits() { r.noMore = true }

func (r *sourceReader) setErr(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *sourceReader) fail(err error) error {
	r.setErr(err)
	r.snap.Close()
	return err
}

// PollNext fills out with rows of the current split, moving on to the next split at the end
// of one; it is done once every split is read and no more will come.
func (r *sourceReader) PollNext(ctx context.Context, out *row.Batch) (bool, error) {
	if r.err != nil {
		return false, r.err
	}
	r.dec.Batch = out
	defer func() { r.dec.Batch = nil }()
	if err := r.snap.Read(ctx, out, &r.dec); err != nil {
		if err == ctx.Err() {
			return false, err // cancelled between splits: nothing failed
		}
		return false, r.fail(err)
	}
	return !out.Full() && r.noMore, nil
}

// SnapshotState returns the unfinished splits: the split being read and those not started.
// A split holds no progress, so after a restore the split that was being read is read again
// from its beginning, and the rows it had emitted before the checkpoint are emitted again.
func (r *sourceReader) SnapshotState(int64) ([]connector.Split, error) {
	return r.snap.Unfinished(nil), nil
}

func (r *sourceReader) Close() error {
	r.snap.Close()
	return nil
}
