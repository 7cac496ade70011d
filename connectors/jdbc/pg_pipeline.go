package jdbc

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/strait-dev/strait/connector"
)

// maxInFlight is how many flushes a PostgreSQL writer keeps sent but not yet acknowledged:
// while the server applies one, the next is on its way and the task reads the batch after.
// Two keep the server busy while the next batch is read; more measured no faster and would
// only hold more unread results.
const maxInFlight = 2

// A flush is sent in the extended protocol without a Sync after it: BEGIN, its statements
// (or its COPY) and, when auto_commit is on, COMMIT, then a Flush message so the server
// reports as it goes. The server skips everything after an error until the next Sync, so
// a flush that fails leaves every later one unapplied, and the writer learns which flush
// failed from the order of the completions. A Sync is sent only when the writer waits for
// all of them (a checkpoint) or recovers from an error.

// flight is a flush sent and not yet acknowledged.
type flight struct {
	stmts      int   // statements the server reports the completion of
	done       int   // completions received
	first, end int64 // the writer's rows it holds: [first, end)
}

// copyHeader is the start of a binary COPY's data, copyTrailer its end.
var (
	copyHeader  = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	copyTrailer = []byte{0xFF, 0xFF}
)

// copyPrefix is the room a COPY buffer keeps in front of its data: the CopyData message's
// type and length, then copyHeader, so the buffer is sent as it is.
const copyPrefix = 5 + 19

// resetBuf empties the buffer; a COPY buffer starts with its message prefix.
func (w *writer) resetBuf() {
	w.buf = w.buf[:0]
	if w.copy != "" {
		w.buf = append(w.buf, 'd', 0, 0, 0, 0)
		w.buf = append(w.buf, copyHeader...)
	}
}

// sendStatement queues a bound execution of a prepared statement.
// The messages are the writer's own, encoded at once: nothing is allocated per row.
func (w *writer) sendStatement(d *pgconn.StatementDescription, params [][]byte, formats []int16) {
	w.bind = pgproto3.Bind{PreparedStatement: d.Name, ParameterFormatCodes: formats, Parameters: params}
	w.fe.SendBind(&w.bind)
	w.fe.SendExecute(&w.execute)
}

// sendLarge sends a bound execution of a prepared statement whose parameters are large (a
// flush's arrays) straight from the writer's own buffer, after what the frontend holds:
// through the frontend the messages would grow its buffer afresh every flush, since it lets
// a buffer of more than a kilobyte go once it has written it.
func (w *writer) sendLarge(d *pgconn.StatementDescription, params [][]byte, formats []int16) error {
	w.bind = pgproto3.Bind{PreparedStatement: d.Name, ParameterFormatCodes: formats, Parameters: params}
	wire, err := w.bind.Encode(w.wire[:0])
	if err == nil {
		wire, err = w.execute.Encode(wire)
	}
	if err != nil {
		return w.lost(fmt.Errorf("bind: %w", err)) // as the frontend's own encoding error would
	}
	w.wire = wire
	if err := w.fe.Flush(); err != nil {
		return w.lost(fmt.Errorf("send: %w", err))
	}
	if _, err := w.conn.PgConn().Conn().Write(w.wire); err != nil {
		return w.lost(fmt.Errorf("send: %w", err))
	}
	return nil
}

// flush sends the buffered rows as one flush without waiting for it (after waiting for
// the oldest flush in flight when maxInFlight are): one binary COPY for an append-only
// table, else the bulk statements or one statement per row.
func (w *writer) flush(ctx context.Context) error {
	if len(w.entries) == 0 {
		return nil
	}
	if w.copy != "" && !w.autoTx() {
		return w.streamCopy()
	}
	for len(w.flights) >= maxInFlight {
		if err := w.receive(ctx); err != nil {
			return err
		}
	}
	stmts := 0
	if w.autoTx() || !w.inTx {
		w.sendStatement(w.beginStmt, nil, nil)
		stmts++
		w.inTx = !w.autoTx()
	}
	switch {
	case w.copy != "":
		if err := w.sendCopy(); err != nil {
			return err
		}
		stmts++
	case w.bulkUpsert != nil:
		n, err := w.queueBulk()
		if err != nil {
			return err
		}
		stmts += n
	default:
		stmts += w.queueRows()
	}
	if w.autoTx() {
		w.sendStatement(w.commitStmt, nil, nil)
		stmts++
	}
	w.fe.Send(&pgproto3.Flush{})
	if err := w.fe.Flush(); err != nil {
		return w.lost(fmt.Errorf("send: %w", err))
	}
	w.unsynced = true
	n := int64(len(w.entries))
	w.flights = append(w.flights, flight{stmts: stmts, first: w.rows, end: w.rows + n})
	w.rows += n
	w.resetBuf()
	w.entries = w.entries[:0]
	clear(w.keys)
	return nil
}

// sendCopy sends the buffer as a binary COPY, its data straight from the buffer.
func (w *writer) sendCopy() error {
	w.fe.SendParse(&pgproto3.Parse{Query: w.copy})
	w.fe.SendBind(&pgproto3.Bind{})
	w.fe.SendExecute(&pgproto3.Execute{})
	if err := w.fe.Flush(); err != nil {
		return w.lost(fmt.Errorf("send: %w", err))
	}
	w.buf = append(w.buf, copyTrailer...)
	if err := w.sendCopyData(w.buf); err != nil {
		return err
	}
	w.fe.Send(&pgproto3.CopyDone{})
	return nil
}

// streamCopy sends the buffer into the COPY of the checkpoint's transaction, opening it
// (and the transaction) at the checkpoint's first flush. Its rows are applied as they come,
// by one COPY as long as the checkpoint; the server acknowledges it when the checkpoint ends
// it (drain), and a refused row fails it then, the server's error naming its line.
func (w *writer) streamCopy() error {
	n := int64(len(w.entries))
	if !w.copyOpen {
		stmts := 1
		if !w.inTx {
			w.sendStatement(w.beginStmt, nil, nil)
			stmts++
			w.inTx = true
		}
		w.fe.SendParse(&pgproto3.Parse{Query: w.copy})
		w.fe.SendBind(&pgproto3.Bind{})
		w.fe.SendExecute(&pgproto3.Execute{})
		if err := w.fe.Flush(); err != nil {
			return w.lost(fmt.Errorf("send: %w", err))
		}
		w.copyOpen, w.unsynced = true, true
		w.flights = append(w.flights, flight{stmts: stmts, first: w.rows, end: w.rows})
		if err := w.sendCopyData(w.buf); err != nil {
			return err
		}
	} else if err := w.sendCopyData(w.buf[len(copyHeader):]); err != nil {
		// the header went with the first flush: the message starts where it ends
		return err
	}
	w.flights[len(w.flights)-1].end += n
	w.rows += n
	w.resetBuf()
	w.entries = w.entries[:0]
	return nil
}

// sendCopyData sends msg, a CopyData message but for its first five bytes (its type and
// length), which it fills in.
func (w *writer) sendCopyData(msg []byte) error {
	msg[0] = 'd'
	binary.BigEndian.PutUint32(msg[1:], uint32(len(msg)-1))
	if err := w.fe.SendUnbufferedEncodedCopyData(msg); err != nil {
		return w.lost(fmt.Errorf("send: %w", err))
	}
	return nil
}

// endCopy ends the checkpoint's COPY.
func (w *writer) endCopy() {
	if !w.copyOpen {
		return
	}
	w.copyOpen = false
	w.fe.Send(&pgproto3.CopyData{Data: copyTrailer})
	w.fe.Send(&pgproto3.CopyDone{})
}

// autoTx reports whether each flush is its own transaction.
func (w *writer) autoTx() bool { return w.cfg.autoCommit && !w.cfg.exactlyOnce }

// receive reads one message from the server and accounts it to the oldest flush in
// flight. An error fails that flush: the writer syncs, and every later flush was skipped.
func (w *writer) receive(ctx context.Context) error {
	msg, err := w.conn.PgConn().ReceiveMessage(ctx)
	if err != nil {
		return w.lost(fmt.Errorf("read the results: %w", err))
	}
	switch m := msg.(type) {
	case *pgproto3.CommandComplete, *pgproto3.EmptyQueryResponse:
		if len(w.flights) == 0 {
			return nil
		}
		f := &w.flights[0]
		if f.done++; f.done == f.stmts {
			w.flights = w.flights[:copy(w.flights, w.flights[1:])]
		}
	case *pgproto3.ReadyForQuery:
		w.syncs--
	case *pgproto3.ErrorResponse:
		return w.flushFailed(ctx, pgconn.ErrorResponseToPgError(m))
	}
	return nil
}

// flushFailed turns the server's error into the failed flush's, naming its rows, after
// syncing so that the connection can roll back.
func (w *writer) flushFailed(ctx context.Context, pe *pgconn.PgError) error {
	var err error = pe
	if pe.Where != "" {
		// where in the statement: a COPY's line is the row's number in it
		err = fmt.Errorf("%w (%s)", pe, pe.Where)
	}
	if len(w.flights) > 0 {
		f := w.flights[0]
		err = fmt.Errorf("%s: write rows %d to %d (%d rows) to %s: %w", w.cfg.where, f.first+1, f.end, f.end-f.first, w.target(), err)
	} else {
		err = fmt.Errorf("%s: write to %s: %w", w.cfg.where, w.target(), err)
	}
	w.flights = w.flights[:0]
	w.copyOpen = false // the server left copy mode with the error
	if serr := w.sync(ctx); serr != nil {
		return serr
	}
	if w.conn.PgConn().TxStatus() != 'I' {
		if _, rerr := w.conn.Exec(ctx, "ROLLBACK"); rerr != nil {
			return w.lost(fmt.Errorf("%w; roll back: %v", err, rerr))
		}
	}
	w.inTx = false
	if refused(pe) {
		return connector.Permanent(err)
	}
	return err
}

// drain waits for every flush in flight and syncs; it returns the first flush's error.
func (w *writer) drain(ctx context.Context) error {
	if !w.unsynced {
		return nil
	}
	w.endCopy()
	return w.sync(ctx)
}

// sync sends a Sync (unless one is on its way) and reads until the server is ready.
func (w *writer) sync(ctx context.Context) error {
	if w.syncs == 0 {
		w.fe.SendSync(&pgproto3.Sync{})
		if err := w.fe.Flush(); err != nil {
			return w.lost(fmt.Errorf("send: %w", err))
		}
		w.syncs++
	}
	for w.syncs > 0 {
		if err := w.receive(ctx); err != nil {
			return err
		}
	}
	w.unsynced = false
	if len(w.flights) > 0 {
		return w.lost(fmt.Errorf("the server is ready with %d flushes unacknowledged", len(w.flights)))
	}
	return nil
}

// lost fails the writer for good: the connection's state is unknown, so it is closed and
// the server rolls back what was not committed.
func (w *writer) lost(err error) error {
	err = fmt.Errorf("%s: write to %s: %w", w.cfg.where, w.target(), err)
	w.flights = w.flights[:0]
	w.copyOpen = false
	if w.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), w.cfg.db.connectTimeout())
		defer cancel()
		_ = w.conn.PgConn().Close(ctx)
	}
	w.inTx = false
	return w.fail(err)
}

// target names what the writer writes to in errors: the table, or the query.
func (w *writer) target() string {
	if w.cfg.mode == modeQuery {
		return "query"
	}
	return w.cfg.target.String()
}
