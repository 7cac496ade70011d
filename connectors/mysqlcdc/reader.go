package mysqlcdc

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// reader reads the snapshot splits it is given, one after the other, and then (reader 0 of a
// STREAMING job) the log.
type reader struct {
	src *Source
	rc  connector.ReaderContext
	db  *sql.DB

	queue     []queued
	cur       *queued
	rows      *sql.Rows      // BATCH: the current split's rows, streamed
	raw       []sql.RawBytes // their columns
	scratch   []row.Value    // a row read before it is written as a Debezium record
	buf       []row.Row      // STREAMING: the current split's rows, read whole
	bufAt     int
	requested bool
	noMore    bool

	split  *streamSplit // the log split: its position, marks and the splits read
	mark   *chunkMark   // the current split's high watermark, recorded once it is emitted
	done   map[string]bool
	stream *stream
	lag    logLag
	err    error
}

type queued struct {
	split connector.Split
	data  *snapshotSplit
	table *cdcTable
}

// CreateReader makes the reader of one subtask.
func (s *Source) CreateReader(rc connector.ReaderContext) (connector.Reader, error) {
	return &reader{src: s, rc: rc, done: map[string]bool{}}, nil
}

func (r *reader) Open(context.Context) error { return nil }

// AddSplits queues snapshot splits (those read already are skipped) and takes the log split:
// of two, the one that knows more of what was read (a restored one over the enumerator's).
func (r *reader) AddSplits(splits []connector.Split) {
	for _, sp := range splits {
		d, err := decodeSplit(sp)
		if err != nil {
			r.setErr(fmt.Errorf("%s: bad split %q: %v", r.src.where, sp.ID, err))
			continue
		}
		r.requested = false
		if d.Stream != nil {
			r.addStream(d.Stream)
			continue
		}
		t := r.src.byID[d.Snapshot.Table]
		if t == nil || r.done[sp.ID] || r.queuedAlready(sp.ID) {
			continue
		}
		r.queue = append(r.queue, queued{split: sp, data: d.Snapshot, table: t})
	}
}

func (r *reader) queuedAlready(id string) bool {
	if r.cur != nil && r.cur.split.ID == id {
		return true
	}
	for _, q := range r.queue {
		if q.split.ID == id {
			return true
		}
	}
	return false
}

func (r *reader) addStream(st *streamSplit) {
	if r.stream != nil {
		return
	}
	if r.split != nil && knows(r.split) > knows(st) {
		if r.split.Stop == nil {
			r.split.Stop = st.Stop // the snapshot's splits came first
		}
		return
	}
	r.split = st
	if err := r.src.restoreTables(st.Tables); err != nil {
		r.setErr(err)
	}
	for _, id := range st.Done {
		r.done[id] = true
	}
	kept := r.queue[:0]
	for _, q := range r.queue {
		if !r.done[q.split.ID] {
			kept = append(kept, q)
		}
	}
	r.queue = kept
}

// knows ranks log splits by how much of the reading they record.
func knows(st *streamSplit) int {
	n := len(st.Done) + len(st.Marks)
	if st.Started {
		n += 1 << 30
	}
	return n
}

func (r *reader) NoMoreSplits() { r.noMore = true }

func (r *reader) setErr(err error) {
	if r.err == nil {
		r.err = err
	}
}

// PollNext fills out with snapshot rows while there are snapshot splits, then with the
// changes of the log.
func (r *reader) PollNext(ctx context.Context, out *row.Batch) (bool, error) {
	if r.err != nil {
		return false, r.err
	}
	if r.cur == nil && len(r.queue) == 0 && !r.requested && !r.noMore && r.stream == nil && r.rc.RequestSplit != nil {
		r.requested = true
		r.rc.RequestSplit()
	}
	for !out.Full() && (r.cur != nil || len(r.queue) > 0) {
		if err := r.readSnapshot(ctx, out); err != nil {
			if err == ctx.Err() {
				return false, err
			}
			r.setErr(err)
			return false, err
		}
	}
	if r.cur != nil || len(r.queue) > 0 {
		return false, nil
	}
	if r.split != nil && r.src.streaming {
		if r.stream == nil {
			if err := r.startStream(ctx); err != nil {
				r.setErr(err)
				return false, err
			}
		}
		if err := r.stream.poll(ctx, out); err != nil {
			r.setErr(err)
			return false, err
		}
		r.lag.setRead(r.stream.committed)
		return r.stream.ended() && out.Len() == 0 && len(r.stream.changes) == 0, nil
	}
	return r.noMore && out.Len() == 0, nil
}

// readSnapshot reads rows of the current snapshot split, starting the next when there is
// none.
func (r *reader) readSnapshot(ctx context.Context, out *row.Batch) error {
	if r.cur == nil {
		q := r.queue[0]
		r.queue = r.queue[1:]
		r.cur = &q
		if err := r.startSplit(ctx); err != nil {
			return err
		}
	}
	t := r.cur.table
	if r.rows == nil { // emit the buffered split
		for !out.Full() && r.bufAt < len(r.buf) {
			if t.dbz != nil {
				t.dbz.emit(out, &change{op: 'r', after: r.buf[r.bufAt].Fields})
			} else {
				out.AddRow(&r.buf[r.bufAt])
			}
			r.bufAt++
		}
		if r.bufAt == len(r.buf) {
			r.finishSplit()
		}
		return nil
	}
	for !out.Full() {
		if !r.rows.Next() {
			err := r.rows.Err()
			r.rows.Close()
			r.rows = nil
			if err != nil {
				return r.splitErr(err)
			}
			r.finishSplit()
			return nil
		}
		if t.dbz != nil {
			if cap(r.scratch) < len(t.cols) {
				r.scratch = make([]row.Value, len(t.cols))
			}
			if err := r.scanInto(r.scratch[:len(t.cols)]); err != nil {
				return err
			}
			t.dbz.emit(out, &change{op: 'r', after: r.scratch[:len(t.cols)]})
			continue
		}
		rw := out.Add(row.Insert, t.id, len(t.cols))
		if err := r.scanInto(rw.Fields); err != nil {
			return err
		}
	}
	return nil
}

func (r *reader) splitErr(err error) error {
	return fmt.Errorf("%s: table %s: split %s: %s", r.src.where, r.cur.table.id, r.cur.split.ID, errorText(err))
}

// scanInto decodes the current result row into fields.
func (r *reader) scanInto(fields []row.Value) error {
	t := r.cur.table
	if r.raw == nil || len(r.raw) != len(t.cols) {
		r.raw = make([]sql.RawBytes, len(t.cols))
	}
	ptrs := make([]any, len(r.raw))
	for i := range r.raw {
		ptrs[i] = &r.raw[i]
	}
	if err := r.rows.Scan(ptrs...); err != nil {
		return r.splitErr(err)
	}
	for i := range t.cols {
		if err := t.cols[i].fromText(&fields[i], r.raw[i], r.src.loc); err != nil {
			return fmt.Errorf("%s: table %s, column %q: %v", r.src.where, t.id, t.cols[i].name, err)
		}
	}
	return nil
}

// startSplit runs the current split's query. In a STREAMING job the split is read whole,
// between a low and a high watermark of the log, and the changes the log holds between the
// two are applied to what was read (see the package documentation).
func (r *reader) startSplit(ctx context.Context) error {
	if r.db == nil {
		db, err := r.src.open(ctx)
		if err != nil {
			return err
		}
		r.db = db
	}
	q := r.cur
	if !r.src.streaming {
		rows, err := r.db.QueryContext(ctx, statement(q.data, q.table))
		if err != nil {
			return r.splitErr(err)
		}
		r.rows = rows
		return nil
	}
	low, err := r.src.masterPosition(ctx, r.db)
	if err != nil {
		return err
	}
	rows, err := r.db.QueryContext(ctx, statement(q.data, q.table))
	if err != nil {
		return r.splitErr(err)
	}
	r.rows = rows
	chunk := newChunk(q.table)
	for r.rows.Next() {
		fields := make([]row.Value, len(q.table.cols))
		if err := r.scanInto(fields); err != nil {
			r.rows.Close()
			r.rows = nil
			return err
		}
		chunk.put(fields)
	}
	err = r.rows.Err()
	r.rows.Close()
	r.rows = nil
	if err != nil {
		return r.splitErr(err)
	}
	high, err := r.src.masterPosition(ctx, r.db)
	if err != nil {
		return err
	}
	mark := chunkMark{Split: *q.data, High: high}
	if len(q.table.keyIdx) == 0 {
		// no key to apply changes by: the log is read again from the low watermark on
		mark.High, mark.Open = low, true
	} else if low.before(high) {
		if err := r.backfill(ctx, chunk, q, low, high); err != nil {
			return err
		}
	}
	r.buf, r.bufAt = chunk.rows(r.buf[:0]), 0
	r.mark = &mark
	return nil
}

func (r *reader) finishSplit() {
	if r.src.streaming {
		if r.split == nil {
			r.split = &streamSplit{}
		}
		r.split.Done = append(r.split.Done, r.cur.split.ID)
		if r.mark != nil {
			r.split.Marks = append(r.split.Marks, *r.mark)
		}
	}
	r.mark = nil
	r.done[r.cur.split.ID] = true
	r.cur, r.buf, r.bufAt = nil, r.buf[:0], 0
}

// startStream starts reading the log: where the restored split says, or, after a snapshot,
// at the earliest high watermark of its splits.
func (r *reader) startStream(ctx context.Context) error {
	st := r.split
	if !st.Started {
		if len(st.Marks) > 0 {
			st.At = st.Marks[0].High
			for _, m := range st.Marks[1:] {
				if m.High.before(st.At) {
					st.At = m.High
				}
			}
		} else {
			if r.db == nil {
				db, err := r.src.open(ctx)
				if err != nil {
					return err
				}
				r.db = db
			}
			p, err := r.src.masterPosition(ctx, r.db)
			if err != nil {
				return err
			}
			st.At = p
		}
		st.Started = true
	}
	if r.db != nil {
		r.db.Close()
		r.db = nil
	}
	r.stream = newStream(r.src, st, r.src.serverIDs.of(r.rc.Index))
	r.lag.watch(r.src)
	return nil
}

// Tables are the captured tables as the reader decodes them: a restored log split's.
func (r *reader) Tables() []*catalog.Table { return r.src.Tables() }

// SchemaChanges returns the schema changes that follow the rows of the last PollNext.
func (r *reader) SchemaChanges() []*connector.SchemaChange {
	if r.stream == nil {
		return nil
	}
	return r.stream.takeChanges()
}

// SnapshotState returns the snapshot splits not read to their end and the log split.
func (r *reader) SnapshotState(int64) ([]connector.Split, error) {
	var out []connector.Split
	if r.cur != nil {
		out = append(out, r.cur.split)
	}
	for _, q := range r.queue {
		out = append(out, q.split)
	}
	if r.split != nil {
		st := *r.split
		if r.stream != nil {
			st = r.stream.state()
		}
		out = append(out, splitData{Stream: &st}.Encode(streamSplitID))
	}
	return out, nil
}

func (r *reader) Close() error {
	if r.rows != nil {
		r.rows.Close()
	}
	if r.db != nil {
		r.db.Close()
	}
	if r.stream != nil {
		r.stream.close()
	}
	r.lag.stop()
	return nil
}
