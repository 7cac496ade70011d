package postgrescdc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// statusInterval is how often the stream tells the server how far it got (the server
// drops a client silent for wal_sender_timeout, 60 s by default).
const statusInterval = 10 * time.Second

// slotBusyWait is how long the stream waits for its slot to be free when it starts: the
// connection of a reader that just failed may hold it for a moment.
var slotBusyWait = 15 * time.Second

// event is what the receiving goroutine passes on: a decoded message of the stream, or the
// position a keepalive reports (msg nil).
type event struct {
	msg pglogrepl.Message
	end pglogrepl.LSN
}

// stream reads the change stream: a goroutine owns the replication connection, receives
// messages, answers the server's keepalives and reports the confirmed position; the
// reader's goroutine turns the messages into rows (poll).
type stream struct {
	src    *Source
	start  position
	events chan event
	err    error // why events was closed; written before the close
	cancel context.CancelFunc
	done   chan struct{}

	// confirmed is the position the server may forget the log before: the one the newest
	// completed checkpoint saved. kick asks the goroutine to report it now.
	confirmed atomic.Uint64
	kick      chan struct{}
	// walEnd is the newest end of the WAL the server told of, for the lag metric.
	walEnd atomic.Uint64

	// the reader's side
	pos      pglogrepl.LSN // every transaction committed before it was emitted
	inTx     bool
	tx       pglogrepl.LSN // the commit position of the transaction being read
	txDone   int           // its changes emitted or skipped so far
	skipTx   bool          // the transaction was emitted before the restore
	skipN    int           // its first changes were emitted before the restore
	rels     map[uint32]*relation
	warnedTr map[uint32]bool
}

// relation maps a relation of the stream to a captured table.
type relation struct {
	table *cdcTable // nil: not captured
	cols  []int     // per column of the relation: the table's column, -1 when it has none
	key   []int     // the relation's columns of the table's primary key
}

func newStream(src *Source, start position) *stream {
	ctx, cancel := context.WithCancel(context.Background())
	s := &stream{src: src, start: start, events: make(chan event, 4096), cancel: cancel, done: make(chan struct{}),
		kick: make(chan struct{}, 1), pos: start.lsn, rels: map[uint32]*relation{}, warnedTr: map[uint32]bool{}}
	s.confirmed.Store(uint64(start.lsn))
	go s.receive(ctx)
	return s
}

// position is where a restore would start reading.
func (s *stream) position() position {
	p := position{lsn: s.pos}
	switch {
	case s.inTx && !s.skipTx:
		p.tx, p.done = s.tx, s.txDone
	case s.start.tx != 0 && s.start.tx >= s.pos:
		// the partly emitted transaction the stream started in has not come again yet
		p.tx, p.done = s.start.tx, s.start.done
	}
	return p
}

// confirm lets the server forget the log before lsn.
func (s *stream) confirm(lsn pglogrepl.LSN) {
	for {
		old := s.confirmed.Load()
		if uint64(lsn) <= old {
			return
		}
		if s.confirmed.CompareAndSwap(old, uint64(lsn)) {
			break
		}
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *stream) stop() {
	s.cancel()
	<-s.done
}

// ---- the receiving goroutine ----

func (s *stream) receive(ctx context.Context) {
	defer close(s.done)
	err := s.run(ctx)
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	s.err = err
	close(s.events)
}

// connectReplication opens a replication connection and starts streaming from the
// stream's start, after checking the slot.
func (s *stream) connectReplication(ctx context.Context) (*pgconn.PgConn, error) {
	src := s.src
	pg, err := src.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer pg.Close(context.Background())
	deadline := time.Now().Add(slotBusyWait)
	for {
		si, err := src.lookupSlot(ctx, pg)
		if err != nil {
			return nil, err
		}
		if si == nil {
			return nil, fmt.Errorf("%s: replication slot %s does not exist: it was dropped, and the changes it kept are gone; start the job anew, without restoring it", src.where, src.slot)
		}
		if err := src.checkSlot(si); err != nil {
			return nil, err
		}
		if si.confirmed > s.start.lsn {
			return nil, fmt.Errorf("%s: replication slot %s was read up to %s, beyond the position to resume from (%s): the changes in between are gone; restore the latest checkpoint, or start the job anew",
				src.where, src.slot, si.confirmed, s.start.lsn)
		}
		if !si.active {
			break
		}
		if time.Now().After(deadline) {
			return nil, src.slotInUse(si)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}

	cfg, err := src.conn.PgxConfig()
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", src.where, src.conn.URL, err)
	}
	cfg.RuntimeParams["replication"] = "database"
	var conn *pgconn.PgConn
	for attempt := 0; ; attempt++ {
		conn, err = pgconn.ConnectConfig(ctx, &cfg.Config)
		if err == nil {
			break
		}
		if attempt >= src.conn.Retries || ctx.Err() != nil {
			msg := pgwire.ErrorText(err)
			if strings.Contains(msg, "pg_hba.conf") {
				msg += "; pg_hba.conf must allow replication connections of this user"
			}
			return nil, fmt.Errorf("%s: open a replication connection to %s as %s: %s", src.where, src.conn.Addr(), src.conn.User, msg)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	args := []string{"proto_version '1'", "publication_names '" + quotePublication(src.publication) + "'", "binary 'true'"}
	if err := pglogrepl.StartReplication(ctx, conn, src.slot, s.start.lsn, pglogrepl.StartReplicationOptions{PluginArgs: args}); err != nil {
		conn.Close(context.Background())
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "55006" {
			return nil, fmt.Errorf("%s: replication slot %s is in use by another process: another job or client reads it; give this job its own slot.name (%s)",
				src.where, src.slot, pgwire.ErrorText(err))
		}
		return nil, fmt.Errorf("%s: start streaming from replication slot %s: %s", src.where, src.slot, pgwire.ErrorText(err))
	}
	return conn, nil
}

// quotePublication writes a publication name as publication_names reads it, inside a
// string literal.
func quotePublication(name string) string {
	q := name
	if strings.ContainsAny(name, `", `) || strings.ToLower(name) != name {
		q = `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	return strings.ReplaceAll(q, "'", "''")
}

func (s *stream) run(ctx context.Context) error {
	conn, err := s.connectReplication(ctx)
	if err != nil {
		return err
	}
	defer pgwire.Close(conn)
	var received pglogrepl.LSN
	status := func() error {
		flushed := pglogrepl.LSN(s.confirmed.Load())
		err := pglogrepl.SendStandbyStatusUpdate(ctx, conn, pglogrepl.StandbyStatusUpdate{
			WALWritePosition: max(received, flushed), WALFlushPosition: flushed, WALApplyPosition: flushed})
		if err != nil {
			return fmt.Errorf("%s: report the stream's position: %w", s.src.where, err)
		}
		return nil
	}
	// a last report on the way out, so the slot keeps no more of the log than it must
	defer func() {
		_ = conn.Conn().SetWriteDeadline(time.Now().Add(time.Second))
		_ = status()
	}()
	next := time.Now()
	// push hands an event on, reporting the position while the reader is busy
	push := func(ev event) error {
		for {
			wait := time.Until(next)
			select {
			case s.events <- ev:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			case <-s.kick:
				next = time.Time{}
			case <-time.After(max(wait, 0)):
			}
			if !time.Now().Before(next) {
				if err := status(); err != nil {
					return err
				}
				next = time.Now().Add(statusInterval)
			}
		}
	}
	for {
		select {
		case <-s.kick:
			next = time.Time{}
		default:
		}
		if !time.Now().Before(next) {
			if err := status(); err != nil {
				return err
			}
			next = time.Now().Add(statusInterval)
		}
		wake := time.Now().Add(500 * time.Millisecond)
		if next.Before(wake) {
			wake = next
		}
		rctx, cancel := context.WithDeadline(ctx, wake)
		msg, err := conn.ReceiveMessage(rctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if pgconn.Timeout(err) {
				continue
			}
			return fmt.Errorf("%s: read the change stream: %s", s.src.where, pgwire.ErrorText(err))
		}
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			if len(m.Data) == 0 {
				continue
			}
			switch m.Data[0] {
			case pglogrepl.PrimaryKeepaliveMessageByteID:
				k, err := pglogrepl.ParsePrimaryKeepaliveMessage(m.Data[1:])
				if err != nil {
					return fmt.Errorf("%s: read the change stream: %w", s.src.where, err)
				}
				received = max(received, k.ServerWALEnd)
				s.walEnd.Store(uint64(received))
				if k.ReplyRequested {
					if err := status(); err != nil {
						return err
					}
					next = time.Now().Add(statusInterval)
				}
				// a position, passed on unless the reader is behind (a later one will come)
				select {
				case s.events <- event{end: k.ServerWALEnd}:
				default:
				}
			case pglogrepl.XLogDataByteID:
				x, err := pglogrepl.ParseXLogData(m.Data[1:])
				if err != nil {
					return fmt.Errorf("%s: read the change stream: %w", s.src.where, err)
				}
				received = max(received, x.WALStart)
				s.walEnd.Store(uint64(received))
				lm, err := pglogrepl.Parse(x.WALData)
				if err != nil {
					return fmt.Errorf("%s: read the change stream: %w", s.src.where, err)
				}
				if err := push(event{msg: lm}); err != nil {
					return err
				}
			}
		case *pgproto3.ErrorResponse:
			return fmt.Errorf("%s: the change stream failed: %s", s.src.where, pgwire.ErrorText(pgconn.ErrorResponseToPgError(m)))
		case *pgproto3.CopyDone:
			return fmt.Errorf("%s: the server ended the change stream", s.src.where)
		}
	}
}

// ---- the reader's side ----

// poll turns the messages received so far into rows, until out is full. When none has
// arrived and out is empty, it waits a few milliseconds for one.
func (s *stream) poll(ctx context.Context, out *row.Batch, dec *pgwire.Decoder) error {
	waited := false
	for !out.Full() {
		var ev event
		var ok bool
		select {
		case ev, ok = <-s.events:
		default:
			if waited || out.Len() > 0 {
				return nil
			}
			waited = true
			select {
			case ev, ok = <-s.events:
			case <-time.After(20 * time.Millisecond):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if !ok {
			if s.err != nil {
				return s.err
			}
			return fmt.Errorf("%s: the change stream ended", s.src.where)
		}
		if err := s.handle(ev, out, dec); err != nil {
			return err
		}
	}
	return nil
}

func (s *stream) handle(ev event, out *row.Batch, dec *pgwire.Decoder) error {
	if ev.msg == nil {
		// every transaction that committed before the keepalive's position was sent
		// before it, so none is pending when none is open
		if !s.inTx && ev.end > s.pos {
			s.pos = ev.end
		}
		return nil
	}
	switch m := ev.msg.(type) {
	case *pglogrepl.BeginMessage:
		s.inTx, s.tx, s.txDone = true, m.FinalLSN, 0
		s.skipTx = m.FinalLSN < s.pos
		s.skipN = 0
		if s.start.tx != 0 && m.FinalLSN == s.start.tx {
			s.skipN = s.start.done
		}
	case *pglogrepl.CommitMessage:
		s.inTx = false
		if m.TransactionEndLSN > s.pos {
			s.pos = m.TransactionEndLSN
		}
	case *pglogrepl.RelationMessage:
		return s.relation(m)
	case *pglogrepl.InsertMessage:
		if rel, ok := s.change(m.RelationID); ok {
			return s.emit(rel, row.Insert, m.Tuple, nil, out, dec)
		}
	case *pglogrepl.UpdateMessage:
		if rel, ok := s.change(m.RelationID); ok {
			return s.update(rel, m, out, dec)
		}
	case *pglogrepl.DeleteMessage:
		if rel, ok := s.change(m.RelationID); ok {
			return s.emit(rel, row.Delete, m.OldTuple, nil, out, dec)
		}
	case *pglogrepl.TruncateMessage:
		s.txDone++
		for _, id := range m.RelationIDs {
			rel := s.rels[id]
			if rel != nil && rel.table != nil && !s.skipTx && !s.warnedTr[id] {
				s.warnedTr[id] = true
				slog.Warn("Postgres-CDC: a TRUNCATE of a captured table is not passed on; the rows it removed stay wherever they were written",
					"source", s.src.where, "table", rel.table.id)
			}
		}
	}
	return nil
}

// change counts a change of the open transaction and reports whether to emit it: not when
// it was emitted before a restore, nor when its table is not captured.
func (s *stream) change(relID uint32) (*relation, bool) {
	n := s.txDone
	s.txDone++
	if s.skipTx || n < s.skipN {
		return nil, false
	}
	rel := s.rels[relID]
	if rel == nil || rel.table == nil {
		return nil, false
	}
	return rel, true
}

func (s *stream) relation(m *pglogrepl.RelationMessage) error {
	rel := &relation{}
	s.rels[m.RelationID] = rel
	t := s.src.byName[pgwire.TableName{Schema: m.Namespace, Table: m.RelationName}]
	if t == nil {
		return nil
	}
	rel.table = t
	rel.cols = make([]int, len(m.Columns))
	for i, c := range m.Columns {
		j := t.table.ColumnIndex(c.Name)
		rel.cols[i] = j
		if j < 0 {
			continue
		}
		if c.DataType != t.attTypes[j] {
			return fmt.Errorf("%s: table %s: column %q changed type since the job started (type %d, was %d); Strait reads a table with the columns it had when the job started",
				s.src.where, t.id, c.Name, c.DataType, t.attTypes[j])
		}
	}
	for _, k := range t.keyIdx {
		for i, j := range rel.cols {
			if j == k {
				rel.key = append(rel.key, i)
			}
		}
	}
	return nil
}

// update emits an UPDATE as UPDATE_BEFORE (when the old row was sent: REPLICA IDENTITY
// FULL) and UPDATE_AFTER; one that changes the primary key as DELETE of the old row and
// INSERT of the new, so a sink that writes by key drops the old key.
func (s *stream) update(rel *relation, m *pglogrepl.UpdateMessage, out *row.Batch, dec *pgwire.Decoder) error {
	if m.OldTuple != nil && keyChanged(rel, m.OldTuple, m.NewTuple) {
		if err := s.emit(rel, row.Delete, m.OldTuple, nil, out, dec); err != nil {
			return err
		}
		return s.emit(rel, row.Insert, m.NewTuple, m.OldTuple, out, dec)
	}
	if m.OldTuple != nil && m.OldTupleType == pglogrepl.UpdateMessageTupleTypeOld {
		if err := s.emit(rel, row.UpdateBefore, m.OldTuple, nil, out, dec); err != nil {
			return err
		}
	}
	return s.emit(rel, row.UpdateAfter, m.NewTuple, m.OldTuple, out, dec)
}

// keyChanged reports whether an update changed the values of the primary key. A key
// update without REPLICA IDENTITY FULL always counts as one: PostgreSQL sends the old key
// only then.
func keyChanged(rel *relation, old, cur *pglogrepl.TupleData) bool {
	if len(rel.key) == 0 {
		return false
	}
	for _, i := range rel.key {
		if i >= len(old.Columns) || i >= len(cur.Columns) {
			return true
		}
		o, c := old.Columns[i], cur.Columns[i]
		if c.DataType == pglogrepl.TupleDataTypeToast {
			continue
		}
		if o.DataType != c.DataType || string(o.Data) != string(c.Data) {
			return true
		}
	}
	return false
}

// emit adds a row of kind from a tuple of the relation. Columns the tuple does not have are
// null; an unchanged TOASTed value ('u') is taken from old, and is an error when old does
// not carry it.
func (s *stream) emit(rel *relation, kind row.Kind, tuple, old *pglogrepl.TupleData, out *row.Batch, dec *pgwire.Decoder) error {
	t := rel.table
	if tuple == nil {
		return fmt.Errorf("%s: table %s: a change without its row", s.src.where, t.id)
	}
	rw := out.Add(kind, t.id, len(t.cols))
	for i, c := range tuple.Columns {
		if i >= len(rel.cols) {
			break
		}
		j := rel.cols[i]
		if j < 0 {
			continue
		}
		if c.DataType == pglogrepl.TupleDataTypeToast {
			if old == nil || i >= len(old.Columns) || (old.Columns[i].DataType != pglogrepl.TupleDataTypeBinary && old.Columns[i].DataType != pglogrepl.TupleDataTypeText) {
				return fmt.Errorf("%s: table %s: PostgreSQL did not send the unchanged value of column %q (a large value stored out of line); set ALTER TABLE %s REPLICA IDENTITY FULL so that updates carry it",
					s.src.where, t.id, t.cols[j].Name, t.name.Quoted())
			}
			c = old.Columns[i]
		}
		col := &t.cols[j]
		switch c.DataType {
		case pglogrepl.TupleDataTypeNull:
		case pglogrepl.TupleDataTypeBinary:
			if err := dec.Decode(col, c.Data, &rw.Fields[j]); err != nil {
				return fmt.Errorf("%s: table %s: column %q: %w", s.src.where, t.id, col.Name, err)
			}
		case pglogrepl.TupleDataTypeText:
			// a type without a binary output function: only strings can take its text
			if col.Type.Kind != types.String {
				return fmt.Errorf("%s: table %s: column %q: PostgreSQL sent the value as text", s.src.where, t.id, col.Name)
			}
			rw.Fields[j] = row.StringValue(string(c.Data))
		}
	}
	return nil
}
