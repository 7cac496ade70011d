package mysqlcdc

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/binlog"
	"github.com/strait-dev/strait/connectors/mysqlcdc/ddl"
	"github.com/strait-dev/strait/row"
)

func timeAfterSecond() <-chan time.Time { return time.After(time.Second) }

// stream reads the log: a goroutine owns the replication connection and passes the events
// on, copied; the reader's goroutine decodes them into rows (poll).
type stream struct {
	src    *Source
	events chan []byte
	err    error // why events was closed; written before the close
	cancel context.CancelFunc
	done   chan struct{}

	dec *binlog.Decoder
	tr  tracker

	committed position // every transaction before it was emitted
	inTx      bool
	txStart   position
	txDone    int // changes of the transaction emitted or skipped so far
	resume    position
	skip      int // changes of the transaction at resume emitted before the restore
	skipping  bool
	tooOld    bool // a transaction before startup.timestamp
	gtid      string
	maria     binlog.MariaDBPosition
	mysqlSet  binlog.GTIDSet
	txGTID    string

	marks []chunkMark
	doneS []string
	stop  *position // where the log stops being read, if it does
	// finished says the log was read to the stop: no event after it is read.
	finished bool

	rows      *binlog.Rows
	rowsTable *cdcTable
	evTime    uint32 // the current rows event's timestamp, in seconds
	evServer  uint32 // and the server id it names
	rowsStart position
	a, b      []binlog.Value
	warned    map[string]bool
	// changes are the schema changes followed since the reader last took them: a batch ends
	// at a change, so they come after every row polled before them
	changes []*connector.SchemaChange
}

func newStream(src *Source, st *streamSplit, serverID uint32) *stream {
	ctx, cancel := context.WithCancel(context.Background())
	s := &stream{src: src, events: make(chan []byte, 1024), cancel: cancel, done: make(chan struct{}),
		dec: binlog.NewDecoder(), tr: tracker{file: st.At.File}, committed: st.At, resume: st.At, skip: st.Skip,
		marks: st.Marks, doneS: st.Done, gtid: st.At.GTID, stop: st.Stop, warned: map[string]bool{}}
	if src.mariadb {
		s.maria, _ = binlog.ParseMariaDBPosition(st.At.GTID)
	} else if set, err := binlog.ParseGTIDSet(st.At.GTID); err == nil {
		s.mysqlSet = set
	}
	if s.stop != nil && !st.At.before(*s.stop) {
		s.finished = true // nothing to read before the stop
		close(s.events)
		close(s.done)
		return s
	}
	go s.receive(ctx, st.At, serverID)
	return s
}

func (s *stream) receive(ctx context.Context, at position, serverID uint32) {
	defer close(s.done)
	err := s.run(ctx, at, serverID)
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	s.err = err
	close(s.events)
}

func (s *stream) run(ctx context.Context, at position, serverID uint32) error {
	_, st, err := s.src.dump(ctx, at, serverID)
	if err != nil {
		return err
	}
	defer st.Close()
	slog.Info("MySQL-CDC reads the binary log", "plugin", s.src.where, "from", at.String())
	for {
		raw, err := st.NextRaw()
		if err != nil {
			return fmt.Errorf("%s: read the binary log: %v", s.src.where, err)
		}
		ev := append([]byte(nil), raw...)
		select {
		case s.events <- ev:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *stream) close() {
	s.cancel()
	<-s.done
}

// reachStop ends the reading at the stop: the rows of the transactions before it are
// emitted, nothing after it is.
func (s *stream) reachStop() {
	if !s.finished {
		s.finished = true
		slog.Info("MySQL-CDC read the binary log to its stop", "plugin", s.src.where, "stop", s.stop.String())
	}
}

// ended reports whether every change before the stop was emitted.
func (s *stream) ended() bool { return s.finished && s.rows == nil }

// state is where a restore would resume, with the captured tables as they are there.
func (s *stream) state() streamSplit {
	st := streamSplit{Started: true, At: s.committed, Marks: s.marks, Done: s.doneS, Stop: s.stop, Tables: s.src.storedTables()}
	if s.inTx {
		st.At, st.Skip = s.txStart, s.txDone
	}
	return st
}

// poll decodes events into out until it is full or no event waits; it waits a few
// milliseconds for the first.
func (s *stream) poll(ctx context.Context, out *row.Batch) error {
	wait := time.NewTimer(20 * time.Millisecond)
	defer wait.Stop()
	first := true
	for !out.Full() && !s.finished && len(s.changes) == 0 {
		if s.rows != nil {
			if err := s.emitRows(out); err != nil {
				return err
			}
			if s.rows != nil {
				return nil // no room for the next change
			}
			continue
		}
		var raw []byte
		var ok bool
		if first {
			select {
			case raw, ok = <-s.events:
			case <-wait.C:
				return nil
			case <-ctx.Done():
				return nil
			}
			first = false
		} else {
			select {
			case raw, ok = <-s.events:
			default:
				return nil
			}
		}
		if !ok {
			return s.err
		}
		if err := s.handle(raw); err != nil {
			return err
		}
	}
	return nil
}

// handle follows one event: transactions' starts and ends, DDLs, rows events.
func (s *stream) handle(raw []byte) error {
	ev, err := s.dec.Decode(raw)
	if err != nil {
		return fmt.Errorf("%s: the binary log at %s: %v", s.src.where, s.tr.file, err)
	}
	start, end, ok := s.tr.see(ev)
	if !ok {
		return nil
	}
	if s.stop != nil && !s.inTx && !start.before(*s.stop) {
		s.reachStop()
		return nil
	}
	switch d := ev.Data.(type) {
	case *binlog.MariaGTID:
		s.begin(start, ev.Timestamp)
		s.txGTID = d.GTID.String()
		s.maria = s.maria.With(d.GTID)
	case *binlog.MySQLGTID:
		s.begin(start, ev.Timestamp)
		s.txGTID = d.String()
		if s.mysqlSet == nil {
			s.mysqlSet = binlog.GTIDSet{}
		}
		s.mysqlSet.Add(*d)
	case *binlog.Query:
		return s.query(d, start, end, ev.Timestamp)
	case *binlog.XID:
		s.commit(end)
	case *binlog.Rows:
		t := s.src.byName(d.Table.Schema, d.Table.Table)
		if t == nil {
			return nil
		}
		if d.Columns != len(t.cols) {
			return tableChanged(s.src, t, d.Columns)
		}
		if !s.inTx {
			s.begin(start, ev.Timestamp)
		}
		s.rows, s.rowsTable, s.rowsStart = d, t, start
		s.evTime, s.evServer = ev.Timestamp, ev.ServerID
		if cap(s.a) < d.Columns {
			s.a, s.b = make([]binlog.Value, d.Columns), make([]binlog.Value, d.Columns)
		}
	}
	return nil
}

func (s *stream) begin(start position, ts uint32) {
	s.inTx, s.txStart, s.txDone = true, start, 0
	s.skipping = s.skip > 0 && start == position{File: s.resume.File, Pos: s.resume.Pos}
	s.tooOld = s.src.sinceTS > 0 && int64(ts) < s.src.sinceTS
}

func (s *stream) commit(end position) {
	s.inTx, s.txDone, s.skipping = false, 0, false
	if s.maria != nil {
		end.GTID = s.maria.String()
	} else if s.mysqlSet != nil {
		end.GTID = s.mysqlSet.String()
	}
	s.committed = end
	if s.stop != nil && !end.before(*s.stop) {
		s.reachStop()
	}
	if len(s.marks) > 0 {
		last := s.marks[0].High
		for _, m := range s.marks[1:] {
			if last.before(m.High) {
				last = m.High
			}
		}
		if !end.before(last) {
			s.marks = nil // past every high watermark: every change is emitted
		}
	}
}

// ddlRe finds the table a statement changes: ALTER, DROP, RENAME or TRUNCATE TABLE, and
// CREATE TABLE of a captured name.
var ddlRe = regexp.MustCompile("(?is)^\\s*(?:/\\*.*?\\*/\\s*)*(ALTER|DROP|RENAME|TRUNCATE|CREATE)\\s+(?:ONLINE\\s+|IGNORE\\s+|TEMPORARY\\s+|OR\\s+REPLACE\\s+)*TABLE\\s+(?:IF\\s+(?:NOT\\s+)?EXISTS\\s+)?([`\"\\w.$]+)")

func (s *stream) query(q *binlog.Query, start, end position, ts uint32) error {
	sql := strings.TrimSpace(q.SQL)
	switch strings.ToUpper(sql) {
	case "BEGIN", "START TRANSACTION":
		if !s.inTx {
			s.begin(start, ts)
		}
		return nil
	case "COMMIT":
		s.commit(end)
		return nil
	}
	if m := ddlRe.FindStringSubmatch(sql); m != nil {
		db, table := q.Schema, strings.ReplaceAll(m[2], "`", "")
		if i := strings.IndexByte(table, '.'); i >= 0 {
			db, table = table[:i], table[i+1:]
		}
		if t := s.src.byName(db, table); t != nil {
			switch verb := strings.ToUpper(m[1]); {
			case verb == "TRUNCATE":
				if !s.warned[t.id] {
					s.warned[t.id] = true
					slog.Warn("MySQL-CDC does not pass on TRUNCATE, as SeaTunnel's does not", "plugin", s.src.where, "table", t.id)
				}
			case verb == "ALTER" && s.src.evolve:
				return s.alter(t, sql, start, end, ts)
			case verb == "ALTER":
				return s.ddlError(start, t, sql, "which Strait's MySQL-CDC follows only with schema-changes.enabled")
			case verb != "CREATE":
				return s.ddlError(start, t, sql, "which is not a change of its columns that a schema change can pass on")
			}
		}
	}
	s.commit(end)
	return nil
}

// alter follows an ALTER TABLE of captured table t: the table's columns change for the row
// events after it, and the change is passed on after the rows before it. A statement
// written before startup.timestamp is not followed: the columns the source read when the
// job started are those after it.
func (s *stream) alter(t *cdcTable, sql string, start, end position, ts uint32) error {
	if s.src.sinceTS > 0 && int64(ts) < s.src.sinceTS {
		s.commit(end)
		return nil
	}
	a, err := ddl.ParseAlter(sql)
	if err != nil {
		why := "which Strait's MySQL-CDC cannot read"
		if ddl.IsUnsupported(err) {
			why = "which schema changes cannot follow"
		}
		return s.ddlError(start, t, sql, fmt.Sprintf("%s (%v)", why, err))
	}
	ch, err := s.src.evolveTable(t, a, sql, fmt.Sprintf("%s@%s", t.id, start))
	if err != nil {
		return s.ddlError(start, t, sql, fmt.Sprintf("which schema changes cannot follow (%v)", err))
	}
	s.commit(end)
	if ch != nil {
		slog.Info("MySQL-CDC follows a schema change", "plugin", s.src.where, "table", t.id, "at", start.String(), "statement", sql)
		s.changes = append(s.changes, ch)
	}
	return nil
}

// ddlError is the error of a statement that changes a captured table in a way the source
// does not follow.
func (s *stream) ddlError(at position, t *cdcTable, sql, why string) error {
	return fmt.Errorf("%s: the binary log at %s holds a statement that changes captured table %s, %s: %s", s.src.where, at, t.id, why, sql)
}

// takeChanges returns the schema changes followed since the last call.
func (s *stream) takeChanges() []*connector.SchemaChange {
	ch := s.changes
	s.changes = nil
	return ch
}

// emitRows turns the images of the current rows event into rows of out.
func (s *stream) emitRows(out *row.Batch) error {
	d, t := s.rows, s.rowsTable
	for d.More() {
		if out.Len()+2 > out.Cap() && out.Len() > 0 {
			return nil
		}
		if err := d.Next(s.a, s.b); err != nil {
			return fmt.Errorf("%s: %v", s.src.where, err)
		}
		s.txDone++
		if (s.skipping && s.txDone <= s.skip) || s.tooOld {
			continue
		}
		switch d.Kind {
		case binlog.Inserted:
			if err := s.add(out, row.Insert, t, s.a); err != nil {
				return err
			}
		case binlog.Deleted:
			if err := s.add(out, row.Delete, t, s.a); err != nil {
				return err
			}
		case binlog.Updated:
			before, after := row.UpdateBefore, row.UpdateAfter
			if keyChanged(t, s.a, s.b) {
				// a new key: the old row goes and the new comes, as Debezium emits it
				before, after = row.Delete, row.Insert
			}
			if err := s.add(out, before, t, s.a); err != nil {
				return err
			}
			if err := s.add(out, after, t, s.b); err != nil {
				return err
			}
		}
	}
	s.rows = nil
	return nil
}

// add appends one row image, unless the snapshot split holding its key read it after this
// change (the change is before the split's high watermark).
func (s *stream) add(out *row.Batch, kind row.Kind, t *cdcTable, img []binlog.Value) error {
	for i := range s.marks {
		m := &s.marks[i]
		if m.Split.Table == t.id && inRange(t, &m.Split, img) && s.rowsStart.before(m.High) {
			return nil
		}
	}
	if t.dbz != nil {
		return s.addDebezium(out, kind, t, img)
	}
	r := out.Add(kind, t.id, len(t.cols))
	if err := s.decode(r.Fields, t, img); err != nil {
		out.Rows = out.Rows[:len(out.Rows)-1]
		return err
	}
	return nil
}

// decode turns a row image into the table's values.
func (s *stream) decode(fields []row.Value, t *cdcTable, img []binlog.Value) error {
	for j := range t.cols {
		if err := t.cols[j].fromLog(&fields[j], &img[j], s.src.loc); err != nil {
			return fmt.Errorf("%s: table %s, column %q: %v", s.src.where, t.id, t.cols[j].name, err)
		}
	}
	return nil
}

// addDebezium writes a change as a Debezium record: an update's before image waits for its
// after image, and the two make one record.
func (s *stream) addDebezium(out *row.Batch, kind row.Kind, t *cdcTable, img []binlog.Value) error {
	d := t.dbz
	fields := d.image(kind == row.UpdateBefore)
	if err := s.decode(fields, t, img); err != nil {
		return err
	}
	c := change{file: s.rowsStart.File, pos: s.rowsStart.Pos, serverID: s.evServer, tsMillis: int64(s.evTime) * 1000, gtid: s.txGTID}
	switch kind {
	case row.UpdateBefore:
		d.before = fields
		return nil
	case row.UpdateAfter:
		c.op, c.before, c.after = 'u', d.before, fields
		d.before = nil
	case row.Insert:
		c.op, c.after = 'c', fields
	case row.Delete:
		c.op, c.before = 'd', fields
	}
	d.emit(out, &c)
	return nil
}

func keyChanged(t *cdcTable, a, b []binlog.Value) bool {
	for _, i := range t.keyIdx {
		x, y := &a[i], &b[i]
		if x.Null != y.Null || x.Int != y.Int || string(x.Bytes) != string(y.Bytes) || x.Float != y.Float || x.Time != y.Time {
			return true
		}
	}
	return false
}

// byName finds a captured table by database and table name.
func (s *Source) byName(db, table string) *cdcTable {
	return s.byID[db+"."+table]
}
