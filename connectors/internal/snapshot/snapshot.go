// Package snapshot reads the snapshot splits of PostgreSQL tables, as the Jdbc and
// Postgres-CDC sources cut them: each split is one SELECT, read on one connection the
// reader opens for its first split. A split's rows stream from the server as Read asks for
// them (pgwire.Rows), so memory is bounded by a batch whatever the size of the split.
package snapshot

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/row"
)

// Split is a split to read: the connector's split (what the reader's state keeps), the
// table its rows belong to, the SELECT that reads them and the columns it returns.
type Split struct {
	Split connector.Split
	Table string // the table id of the rows
	SQL   string
	Cols  []pgwire.Column
}

// Reader reads the splits queued to it, one after the other, in the order they came.
type Reader struct {
	// Where names the plugin in errors.
	Where string
	// Connect opens the connection the splits are read on; its errors name the plugin.
	Connect func(context.Context) (*pgx.Conn, error)

	queue []Split
	cur   *Split       // the split being read; rows streams its rows
	rows  *pgwire.Rows // the result of cur
	pg    *pgx.Conn
}

// Add queues a split.
func (r *Reader) Add(s Split) { r.queue = append(r.queue, s) }

// Busy reports whether a split is being read or waits to be.
func (r *Reader) Busy() bool { return r.rows != nil || len(r.queue) > 0 }

// Read appends rows of the queued splits to out, as INSERT rows decoded by dec (whose
// Batch must be out), until out is full or every split is read. A split's result stays
// open between calls, read with the context of the call that started it. The error of a
// context done before the next split starts is ctx.Err() itself and leaves the reader as
// it was; any other error ends the reader: its connection is closed, and Unfinished still
// names the split it failed in.
func (r *Reader) Read(ctx context.Context, out *row.Batch, dec *pgwire.Decoder) error {
	for !out.Full() {
		if r.rows == nil {
			if len(r.queue) == 0 {
				return nil
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := r.start(ctx); err != nil {
				r.Close()
				return err
			}
		}
		if err := r.readRows(out, dec); err != nil {
			r.Close()
			return err
		}
	}
	return nil
}

// start runs the query of the next split.
func (r *Reader) start(ctx context.Context) error {
	s := r.queue[0]
	r.queue[0] = Split{}
	r.queue = r.queue[1:]
	r.cur = &s
	if r.pg == nil {
		pg, err := r.Connect(ctx)
		if err != nil {
			return err
		}
		r.pg = pg
	}
	rows, err := pgwire.Query(ctx, r.pg.PgConn(), s.SQL, s.Cols)
	if err != nil {
		return r.errorf(err)
	}
	r.rows = rows
	return nil
}

// readRows decodes rows of the current split into out until out is full or the split ends.
func (r *Reader) readRows(out *row.Batch, dec *pgwire.Decoder) error {
	done, err := r.rows.Read(out, r.cur.Table, dec)
	if err != nil {
		return r.errorf(err)
	}
	if done {
		r.rows, r.cur = nil, nil
	}
	return nil
}

func (r *Reader) errorf(err error) error {
	return fmt.Errorf("%s: table %s: split %s: %w", r.Where, r.cur.Table, r.cur.Split.ID, err)
}

// Unfinished appends to dst the splits not read to their end: the one being read and those
// queued. A split holds no progress, so after a restore the split that was being read is
// read again from its beginning, and the rows it had emitted before are emitted again.
func (r *Reader) Unfinished(dst []connector.Split) []connector.Split {
	if r.cur != nil {
		dst = append(dst, r.cur.Split)
	}
	for i := range r.queue {
		dst = append(dst, r.queue[i].Split)
	}
	return dst
}

// Close closes the connection without reading the rest of a result being streamed.
func (r *Reader) Close() {
	r.rows = nil
	if r.pg != nil {
		pgwire.Close(r.pg)
		r.pg = nil
	}
}
