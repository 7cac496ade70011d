package jdbc

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// sourceReader reads the splits assigned to one subtask, one after the other, with its
// driver's cursor, on one connection the cursor opens for the first split. A split's rows
// stream from the server as PollNext asks for them, so a reader holds one batch, never a
// table.
type sourceReader struct {
	src    *Source
	cur    splitCursor
	queue  []readSplit // the split being read first, then those not started
	active bool        // queue[0]'s statement runs
	noMore bool
	err    error
}

// readSplit is a split queued to a reader: the split, and the table it reads.
type readSplit struct {
	split connector.Split
	d     srcSplit
	table *srcTable
}

// CreateReader makes the reader of one subtask.
func (s *Source) CreateReader(connector.ReaderContext) (connector.Reader, error) {
	return &sourceReader{src: s, cur: s.db.newCursor()}, nil
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
		r.queue = append(r.queue, readSplit{split: s, d: d, table: t})
	}
}

func (r *sourceReader) NoMoreSplits() { r.noMore = true }

func (r *sourceReader) setErr(err error) {
	if r.err == nil {
		r.err = err
	}
}

// fail ends the reader: its connection is closed.
func (r *sourceReader) fail(err error) error {
	r.setErr(err)
	r.active = false
	r.cur.close()
	return err
}

// PollNext fills out with rows of the current split, moving on to the next split at the end
// of one; it is done once every split is read and no more will come.
func (r *sourceReader) PollNext(ctx context.Context, out *row.Batch) (bool, error) {
	if r.err != nil {
		return false, r.err
	}
	for !out.Full() && len(r.queue) > 0 {
		s := &r.queue[0]
		if !r.active {
			if err := ctx.Err(); err != nil {
				return false, err // cancelled between splits: nothing failed
			}
			if err := r.cur.start(ctx, s.d.statement(r.src.db, s.table), s.table); err != nil {
				if ctx.Err() != nil {
					r.cur.close()
					return false, ctx.Err()
				}
				return false, r.fail(r.errorf(s, err))
			}
			r.active = true
		}
		done, err := r.cur.read(out, s.table)
		if err != nil {
			return false, r.fail(r.errorf(s, err))
		}
		if done {
			r.active = false
			r.queue[0] = readSplit{}
			r.queue = r.queue[1:]
		}
	}
	return !out.Full() && len(r.queue) == 0 && r.noMore, nil
}

func (r *sourceReader) errorf(s *readSplit, err error) error {
	return fmt.Errorf("%s: table %s: split %s: %w", r.src.where, s.table.id, s.split.ID, err)
}

// SnapshotState returns the unfinished splits: the split being read and those not started.
// A split holds no progress, so after a restore the split that was being read is read again
// from its beginning, and the rows it had emitted before the checkpoint are emitted again.
func (r *sourceReader) SnapshotState(int64) ([]connector.Split, error) {
	var out []connector.Split
	for i := range r.queue {
		out = append(out, r.queue[i].split)
	}
	return out, nil
}

func (r *sourceReader) Close() error {
	r.active = false
	r.cur.close()
	return nil
}
