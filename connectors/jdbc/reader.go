package jdbc

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/row"
)

// sourceReader reads the splits assigned to one subtask, one after the other, on one
// connection it opens for its first split. A split's rows stream from the server as
// PollNext asks for them: the result stays open between calls, read with the context of the
// call that started the split.
type sourceReader struct {
	src    *Source
	queue  []queuedSplit
	cur    *queuedSplit // the split being read; rr streams its rows
	rows   *pgwire.Rows
	pg     *pgx.Conn
	noMore bool
	err    error
	dec    pgwire.Decoder
}

// queuedSplit is an assigned split with what it reads.
type queuedSplit struct {
	split connector.Split
	data  srcSplit
	table *srcTable
}

// CreateReader makes the reader of one subtask.
func (s *Source) CreateReader(connector.ReaderContext) (connector.Reader, error) {
	return &sourceReader{src: s}, nil
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
		r.queue = append(r.queue, queuedSplit{split: s, data: d, table: t})
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
	r.closeConn()
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
	for !out.Full() {
		if r.rows == nil {
			if len(r.queue) == 0 {
				return r.noMore, nil
			}
			if err := ctx.Err(); err != nil {
				return false, err
			}
			if err := r.start(ctx); err != nil {
				return false, r.fail(err)
			}
		}
		if err := r.readRows(out); err != nil {
			return false, r.fail(err)
		}
	}
	return false, nil
}

// start runs the query of the next split.
func (r *sourceReader) start(ctx context.Context) error {
	q := r.queue[0]
	r.queue[0] = queuedSplit{}
	r.queue = r.queue[1:]
	r.cur = &q
	if r.pg == nil {
		pg, err := r.src.conn.connect(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", r.src.where, err)
		}
		r.pg = pg
	}
	t := q.table
	rows, err := pgwire.Query(ctx, r.pg.PgConn(), q.data.statement(t), t.cols)
	if err != nil {
		return fmt.Errorf("%s: table %s: split %s: %w", r.src.where, t.id, q.split.ID, err)
	}
	r.rows = rows
	return nil
}

// readRows decodes rows of the current split into out until out is full or the split ends.
func (r *sourceReader) readRows(out *row.Batch) error {
	t := r.cur.table
	done, err := r.rows.Read(out, t.id, &r.dec)
	if err != nil {
		return fmt.Errorf("%s: table %s: split %s: %w", r.src.where, t.id, r.cur.split.ID, err)
	}
	if done {
		r.rows, r.cur = nil, nil
	}
	return nil
}

// SnapshotState returns the unfinished splits: the split being read and those not started.
// A split holds no progress, so after a restore the split that was being read is read again
// from its beginning, and the rows it had emitted before the checkpoint are emitted again.
func (r *sourceReader) SnapshotState(int64) ([]connector.Split, error) {
	var out []connector.Split
	if r.cur != nil {
		out = append(out, r.cur.split)
	}
	for _, q := range r.queue {
		out = append(out, q.split)
	}
	return out, nil
}

// closeConn closes the connection without reading the rest of a result being streamed.
func (r *sourceReader) closeConn() {
	r.rows = nil
	if r.pg != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		r.pg.Close(ctx)
		cancel()
		r.pg = nil
	}
}

func (r *sourceReader) Close() error {
	r.closeConn()
	return nil
}
