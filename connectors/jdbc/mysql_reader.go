package jdbc

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// myReader reads the splits assigned to one subtask, one after the other, on one
// connection opened for its first split. A split's rows stream from the server as PollNext
// asks for them: the driver reads a row off the socket when the next one is wanted, so a
// reader holds one batch, never a table.
type myReader struct {
	src    *mySource
	db     *sql.DB
	conn   *sql.Conn
	queue  []connector.Split
	cur    *connector.Split
	table  *myTable
	rows   *sql.Rows
	raw    []sql.RawBytes
	ptrs   []any
	noMore bool
	err    error
}

// CreateReader makes the reader of one subtask.
func (s *mySource) CreateReader(connector.ReaderContext) (connector.Reader, error) {
	return &myReader{src: s}, nil
}

func (r *myReader) Open(context.Context) error { return nil }

// AddSplits queues splits to read.
func (r *myReader) AddSplits(splits []connector.Split) {
	for _, s := range splits {
		var d srcSplit
		if err := json.Unmarshal(s.Data, &d); err != nil {
			r.setErr(fmt.Errorf("%s: bad split %q: %v", r.src.where, s.ID, err))
			continue
		}
		if r.src.byID[d.Table] == nil {
			r.setErr(fmt.Errorf("%s: split %q reads table %s, which the source does not read (the options changed?)", r.src.where, s.ID, d.Table))
			continue
		}
		r.queue = append(r.queue, s)
	}
}

func (r *myReader) NoMoreSplits() { r.noMore = true }

func (r *myReader) setErr(err error) {
	if r.err == nil {
		r.err = err
	}
}

// PollNext fills out with rows of the current split, moving on to the next split at the end
// of one; it is done once every split is read and no more will come.
func (r *myReader) PollNext(ctx context.Context, out *row.Batch) (bool, error) {
	if r.err != nil {
		return false, r.err
	}
	for !out.Full() {
		if r.rows == nil {
			if len(r.queue) == 0 {
				break
			}
			if err := r.start(ctx); err != nil {
				if err == ctx.Err() {
					return false, err
				}
				r.setErr(err)
				r.closeConn()
				return false, err
			}
		}
		if err := r.readRows(out); err != nil {
			r.setErr(err)
			r.closeConn()
			return false, err
		}
	}
	return !out.Full() && r.rows == nil && len(r.queue) == 0 && r.noMore, nil
}

// start runs the statement of the next split.
func (r *myReader) start(ctx context.Context) error {
	s := r.queue[0]
	var d srcSplit
	_ = json.Unmarshal(s.Data, &d) // checked by AddSplits
	t := r.src.byID[d.Table]
	if r.conn == nil {
		db, err := r.src.conn.open(ctx, 1)
		if err != nil {
			return fmt.Errorf("%s: %w", r.src.where, err)
		}
		conn, err := db.Conn(ctx)
		if err != nil {
			db.Close()
			return fmt.Errorf("%s: %w", r.src.where, err)
		}
		r.db, r.conn = db, conn
	}
	rows, err := r.conn.QueryContext(ctx, mysqlStatement(&d, t))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s: split %s: %w", r.src.where, s.ID, err)
	}
	r.rows, r.table, r.cur = rows, t, &r.queue[0]
	n := len(t.cols)
	if cap(r.raw) < n {
		r.raw, r.ptrs = make([]sql.RawBytes, n), make([]any, n)
	}
	r.raw, r.ptrs = r.raw[:n], r.ptrs[:n]
	for i := range r.raw {
		r.ptrs[i] = &r.raw[i]
	}
	return nil
}

// readRows decodes rows of the current split into out until it is full or the split ends.
func (r *myReader) readRows(out *row.Batch) error {
	t := r.table
	for !out.Full() {
		if !r.rows.Next() {
			err := r.rows.Err()
			r.rows.Close()
			r.rows = nil
			if err != nil {
				return fmt.Errorf("%s: split %s: %w", r.src.where, r.cur.ID, err)
			}
			r.queue = r.queue[1:]
			r.cur = nil
			return nil
		}
		if err := r.rows.Scan(r.ptrs...); err != nil {
			return fmt.Errorf("%s: split %s: %w", r.src.where, r.cur.ID, err)
		}
		rw := out.Add(row.Insert, t.id, len(t.cols))
		for i := range t.cols {
			if err := t.cols[i].decode(&rw.Fields[i], r.raw[i]); err != nil {
				return connector.Permanent(fmt.Errorf("%s: table %s: column %s: %w", r.src.where, t.id, t.cols[i].Name, err))
			}
		}
	}
	return nil
}

// SnapshotState returns the unfinished splits: the split being read and those not
// started. A split holds no progress: after a restore it is read from its beginning.
func (r *myReader) SnapshotState(int64) ([]connector.Split, error) {
	return append([]connector.Split(nil), r.queue...), nil
}

func (r *myReader) closeConn() {
	if r.rows != nil {
		r.rows.Close()
		r.rows = nil
	}
	if r.conn != nil {
		r.conn.Close()
		r.conn = nil
	}
	if r.db != nil {
		r.db.Close()
		r.db = nil
	}
}

func (r *myReader) Close() error {
	r.closeConn()
	return nil
}
