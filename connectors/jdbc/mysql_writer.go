package jdbc

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// myEntry is a buffered row: its fields' literals, one after the other in the writer's
// buffer, offs[off:off+n+1] marking where each starts (and the last ends).
type myEntry struct {
	op   op
	off  int32
	dead bool
}

// myWriter writes one subtask's rows to MySQL. Rows become SQL literals as they arrive and
// are reduced by key as the PostgreSQL writer reduces them; a flush (every batch_size rows
// and at every checkpoint) sends them in one round trip: one DELETE of the deleted keys,
// one multi-row INSERT (... ON DUPLICATE KEY UPDATE when upserting), the UPDATEs of
// enable_upsert = false, or each row's query, as one multi-statement. With
// is_exactly_once a checkpoint's writes are one XA transaction (XA START before its first
// flush, XA END and XA PREPARE at the checkpoint) that the committer commits.
type myWriter struct {
	cfg  *sinkConfig
	db   *sql.DB
	conn *sql.Conn

	fields  []int // input field of each literal
	all     []int // every literal's position: 0, 1, ...
	buf     []byte
	offs    []int32
	entries []myEntry
	keys    map[string]int32
	keyBuf  []byte
	stmt    []byte
	// maxStmt bounds one multi-statement: a flush larger than the server's
	// max_allowed_packet is sent in several
	maxStmt int
	// statement heads
	insertHead, upsertTail, deleteHead string
	// the quoted target, its quoted columns, and which are the key's
	target string
	cols   []string
	isPK   []bool

	xidPrefix string
	epoch     int
	cp        int64
	xid       string // the open XA transaction
	connID    int64  // the server's id of conn's session (exactly-once: detach waits for its end)
	inTx      bool
	pending   []string
	err       error
}

// newMySQLWriter connects and, restored from states, first settles the XA transactions
// they list and those this subtask left behind.
func newMySQLWriter(c *sinkConfig, ctx connector.WriterContext, states [][]byte) (connector.Writer, error) {
	bg := context.Background()
	db, err := c.my.open(bg, 1)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.where, err)
	}
	w := &myWriter{
		cfg: c, db: db, keys: map[string]int32{},
		xidPrefix: fmt.Sprintf("strait-%d-%s-%d-", ctx.Job.ID, c.tag, ctx.Index),
		epoch:     ctx.Epoch,
		cp:        1,
	}
	if err := w.session(bg); err != nil {
		w.Close(bg)
		return nil, fmt.Errorf("%s: %w", c.where, err)
	}
	if w.cfg, err = c.restore(bg, states, w.targetColumns); err != nil {
		w.Close(bg)
		return nil, err
	}
	if err := w.open(bg, states); err != nil {
		w.Close(bg)
		return nil, fmt.Errorf("%s: %w", c.where, err)
	}
	return w, nil
}

func (w *myWriter) open(ctx context.Context, states [][]byte) error {
	c := w.cfg
	var packet int64
	if err := w.conn.QueryRowContext(ctx, "SELECT @@max_allowed_packet").Scan(&packet); err != nil {
		return fmt.Errorf("read max_allowed_packet: %w", err)
	}
	w.maxStmt = int(max(packet-4096, 4096))
	if c.exactlyOnce {
		if err := w.recover(ctx, states); err != nil {
			return err
		}
	}
	return w.prepare(ctx)
}

// prepare builds the heads of the statements of the writer's columns and checks that the
// table has them.
func (w *myWriter) prepare(ctx context.Context) error {
	c := w.cfg
	if c.mode == modeQuery {
		w.fields = c.queryFields
		return nil
	}
	w.fields = c.writtenFields()
	w.all = positions(len(w.fields))
	cols := make([]string, len(c.columns))
	w.isPK = make([]bool, len(c.columns))
	for i := range cols {
		cols[i] = mysqlQuote(c.columns[i])
	}
	for _, i := range c.pk {
		w.isPK[i] = true
	}
	w.cols = cols
	t := c.mysqlTarget()
	w.target = t
	w.insertHead = "INSERT INTO " + t + " (" + strings.Join(cols, ", ") + ") VALUES "
	if c.mode == modeUpsert {
		w.upsertTail = " " + mysqlDialect{}.upsertClause(cols, c.pk)
	}
	if len(c.pk) > 0 {
		pk := make([]string, len(c.pk))
		for j, i := range c.pk {
			pk[j] = cols[i]
		}
		w.deleteHead = "DELETE FROM " + t + " WHERE (" + strings.Join(pk, ", ") + ") IN ("
	}
	// the table must be there, with the columns written
	if _, err := w.conn.ExecContext(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM "+t+" LIMIT 0"); err != nil {
		return fmt.Errorf("table %s: %w", c.target, err)
	}
	return nil
}

func (w *myWriter) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

// Write turns the batch's rows into literals, flushing whenever batch_size rows are
// buffered.
func (w *myWriter) Write(ctx context.Context, b *row.Batch) error {
	if w.err != nil {
		return w.err
	}
	c := w.cfg
	for i := range b.Rows {
		r := &b.Rows[i]
		if len(r.Fields) < len(c.input.Columns) {
			return w.fail(fmt.Errorf("%s: row of table %s has %d fields, the table has %d columns", c.where, r.Table, len(r.Fields), len(c.input.Columns)))
		}
		o, skip := opOf(c.mode, r.Kind)
		if skip {
			continue
		}
		if err := w.add(o, r); err != nil {
			return w.fail(connector.Permanent(fmt.Errorf("%s: row %d of table %s: %w", c.where, i, r.Table, err)))
		}
		if len(w.entries) >= c.batchSize {
			if err := w.flush(ctx); err != nil {
				return w.fail(err)
			}
		}
	}
	return nil
}

// opOf is what a row of the given kind does in a write mode; skip for an UPDATE_BEFORE,
// whose UPDATE_AFTER carries the change.
func opOf(mode writeMode, kind row.Kind) (o op, skip bool) {
	switch mode {
	case modeQuery, modeInsert:
		return opExec, false
	}
	switch kind {
	case row.UpdateBefore:
		return 0, true
	case row.Delete:
		return opDelete, false
	case row.Insert:
		if mode == modeInsertUpdate {
			return opInsert, false
		}
		return opUpsert, false
	}
	if mode == modeInsertUpdate {
		return opUpdate, false
	}
	return opUpsert, false
}

// add writes one row's literals and, for keyed modes, supersedes the earlier change of the
// same key (as the PostgreSQL writer does).
func (w *myWriter) add(o op, r *row.Row) error {
	start, off := len(w.buf), int32(len(w.offs))
	for _, f := range w.fields {
		w.offs = append(w.offs, int32(len(w.buf)))
		var err error
		if w.buf, err = appendLiteral(w.buf, &r.Fields[f]); err != nil {
			w.buf, w.offs = w.buf[:start], w.offs[:off]
			return fmt.Errorf("field %s: %w", w.cfg.input.Columns[f].Name, err)
		}
	}
	w.offs = append(w.offs, int32(len(w.buf)))
	idx := int32(len(w.entries))
	w.entries = append(w.entries, myEntry{op: o, off: off})
	if o == opExec {
		return nil
	}
	key := w.key(idx)
	if prev, ok := w.keys[string(key)]; ok {
		switch p := &w.entries[prev]; {
		case p.op == opInsert && o == opUpdate:
			w.entries[idx].op = opInsert
			p.dead = true
		case p.op == opDelete && o != opDelete && w.cfg.mode != modeUpsert:
			// a plain INSERT needs the old row gone first: the delete stays, before it
		default:
			p.dead = true
		}
	}
	w.keys[string(key)] = idx
	return nil
}

// lit is the literal of an entry's j-th field.
func (w *myWriter) lit(e myEntry, j int) []byte {
	return w.buf[w.offs[int(e.off)+j]:w.offs[int(e.off)+j+1]]
}

// key is an entry's key literals, in a buffer the next call reuses.
func (w *myWriter) key(idx int32) []byte {
	e := w.entries[idx]
	k := w.keyBuf[:0]
	for _, i := range w.cfg.pk {
		k = append(k, w.lit(e, i)...)
		k = append(k, 0)
	}
	w.keyBuf = k
	return k
}

// appendTuple writes (l1, l2, ...) of the given fields of an entry.
func (w *myWriter) appendTuple(b []byte, e myEntry, fields []int) []byte {
	b = append(b, '(')
	for n, j := range fields {
		if n > 0 {
			b = append(b, ", "...)
		}
		b = append(b, w.lit(e, j)...)
	}
	return append(b, ')')
}

// begin opens the checkpoint's transaction when writes are transactional: an XA
// transaction for exactly-once, a plain one for auto_commit = false.
func (w *myWriter) begin(ctx context.Context) error {
	if w.inTx || (!w.cfg.exactlyOnce && w.cfg.autoCommit) {
		return nil
	}
	stmt := "BEGIN"
	if w.cfg.exactlyOnce {
		w.xid = w.xidPrefix + "e" + strconv.Itoa(w.epoch) + "-" + strconv.FormatInt(w.cp, 10)
		stmt = "XA START " + xidLiteral(w.xid)
	}
	if _, err := w.conn.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %s: %w", w.cfg.where, stmt, err)
	}
	w.inTx = true
	return nil
}

// flush sends the buffered rows in one round trip (several when they exceed the server's
// packet size).
func (w *myWriter) flush(ctx context.Context) error {
	if len(w.entries) == 0 {
		return nil
	}
	if err := w.begin(ctx); err != nil {
		return err
	}
	c := w.cfg
	w.stmt = w.stmt[:0]
	var err error
	if c.mode == modeQuery {
		err = w.queries(ctx)
	} else {
		err = w.statements(ctx)
	}
	if err == nil {
		err = w.send(ctx)
	}
	if err != nil {
		target := c.target.String()
		if c.mode == modeQuery {
			target = "query"
		}
		err = fmt.Errorf("%s: write %d rows to %s: %w", c.where, len(w.entries), target, err)
		if mysqlRefused(err) {
			return connector.Permanent(err)
		}
		return err
	}
	w.buf, w.offs, w.entries = w.buf[:0], w.offs[:0], w.entries[:0]
	clear(w.keys)
	return nil
}

// statement ends the statement being built and sends what is built when it is large.
func (w *myWriter) statement(ctx context.Context) error {
	w.stmt = append(w.stmt, ";\n"...)
	if len(w.stmt) >= w.maxStmt/2 {
		return w.send(ctx)
	}
	return nil
}

// send runs the statements built so far.
func (w *myWriter) send(ctx context.Context) error {
	if len(w.stmt) == 0 {
		return nil
	}
	_, err := w.conn.ExecContext(ctx, string(w.stmt))
	w.stmt = w.stmt[:0]
	return err
}

// queries builds each row's query.
func (w *myWriter) queries(ctx context.Context) error {
	parts := w.cfg.myQuery
	for _, e := range w.entries {
		w.stmt = append(w.stmt, parts[0]...)
		for j := 1; j < len(parts); j++ {
			w.stmt = append(w.stmt, w.lit(e, j-1)...)
			w.stmt = append(w.stmt, parts[j]...)
		}
		if err := w.statement(ctx); err != nil {
			return err
		}
	}
	return nil
}

// statements builds the generated statements: the deletes, then the inserts (upserts),
// then the updates.
func (w *myWriter) statements(ctx context.Context) error {
	if err := w.multi(ctx, w.deleteHead, ")", w.cfg.pk, func(o op) bool { return o == opDelete }); err != nil {
		return err
	}
	if err := w.multi(ctx, w.insertHead, w.upsertTail, w.all, func(o op) bool { return o != opDelete && o != opUpdate }); err != nil {
		return err
	}
	for _, e := range w.entries {
		if e.dead || e.op != opUpdate {
			continue
		}
		w.appendUpdate(e)
		if err := w.statement(ctx); err != nil {
			return err
		}
	}
	return nil
}

// multi builds one statement of many tuples, head (t1), (t2)... tail, of the live entries
// whose op is picked; a statement that grows past half a packet is ended and another begun.
func (w *myWriter) multi(ctx context.Context, head, tail string, fields []int, pick func(op) bool) error {
	open := false
	for _, e := range w.entries {
		if e.dead || !pick(e.op) {
			continue
		}
		if !open {
			w.stmt = append(w.stmt, head...)
			open = true
		} else {
			w.stmt = append(w.stmt, ", "...)
		}
		w.stmt = w.appendTuple(w.stmt, e, fields)
		if len(w.stmt) >= w.maxStmt/2 {
			w.stmt = append(w.stmt, tail...)
			if err := w.statement(ctx); err != nil {
				return err
			}
			open = false
		}
	}
	if open {
		w.stmt = append(w.stmt, tail...)
		return w.statement(ctx)
	}
	return nil
}

// appendUpdate writes the UPDATE of an UPDATE_AFTER (enable_upsert = false).
func (w *myWriter) appendUpdate(e myEntry) {
	c := w.cfg
	w.stmt = append(w.stmt, "UPDATE "...)
	w.stmt = append(w.stmt, w.target...)
	w.stmt = append(w.stmt, " SET "...)
	n := 0
	for i, col := range w.cols {
		if w.isPK[i] && !c.pkUpdated {
			continue
		}
		if n > 0 {
			w.stmt = append(w.stmt, ", "...)
		}
		n++
		w.stmt = append(append(w.stmt, col...), " = "...)
		w.stmt = append(w.stmt, w.lit(e, i)...)
	}
	w.stmt = append(w.stmt, " WHERE "...)
	for j, i := range c.pk {
		if j > 0 {
			w.stmt = append(w.stmt, " AND "...)
		}
		w.stmt = append(append(w.stmt, w.cols[i]...), " = "...)
		w.stmt = append(w.stmt, w.lit(e, i)...)
	}
}

// PrepareCommit flushes. With is_exactly_once it ends and prepares the checkpoint's XA
// transaction and returns its id (with those of aborted checkpoints still prepared); with
// auto_commit = false it commits.
func (w *myWriter) PrepareCommit(ctx context.Context, checkpointID int64) ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if err := w.flush(ctx); err != nil {
		return nil, w.fail(err)
	}
	defer func() { w.cp = max(w.cp, checkpointID) + 1 }()
	if !w.inTx {
		return nil, nil
	}
	w.inTx = false
	if !w.cfg.exactlyOnce {
		if _, err := w.conn.ExecContext(ctx, "COMMIT"); err != nil {
			return nil, w.fail(fmt.Errorf("%s: commit: %w", w.cfg.where, err))
		}
		return nil, nil
	}
	x := xidLiteral(w.xid)
	if _, err := w.conn.ExecContext(ctx, "XA END "+x); err != nil {
		return nil, w.fail(fmt.Errorf("%s: XA END %s: %w", w.cfg.where, w.xid, err))
	}
	if _, err := w.conn.ExecContext(ctx, "XA PREPARE "+x); err != nil {
		return nil, w.fail(fmt.Errorf("%s: XA PREPARE %s: %w", w.cfg.where, w.xid, err))
	}
	w.pending = append(w.pending, w.xid)
	if err := w.detach(ctx); err != nil {
		return nil, w.fail(fmt.Errorf("%s: after XA PREPARE %s: %w", w.cfg.where, w.xid, err))
	}
	return json.Marshal(commitInfo{GIDs: append([]string(nil), w.pending...)})
}

// detach ends the session that prepared an XA transaction and opens another: MySQL and
// MariaDB keep a prepared transaction with its session while the session lives, so only
// once it ends can the committer (another session) commit it, and only a new session can
// start the next one.
//
// The server ends a session after the client has closed it; until it has, the transaction
// is still the session's, an XA COMMIT from another session finds no such transaction (which
// a committer takes for one committed already) and it would stay prepared. So detach
// returns only once the session is gone from the server's process list.
func (w *myWriter) detach(ctx context.Context) error {
	old := w.connID
	_ = w.conn.Raw(func(any) error { return driver.ErrBadConn }) // discarded, not pooled
	w.conn.Close()
	if err := w.session(ctx); err != nil {
		return err
	}
	return w.waitSessionEnded(ctx, old)
}

// session opens the writer's session and learns its id.
func (w *myWriter) session(ctx context.Context) error {
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return err
	}
	w.conn = conn
	if !w.cfg.exactlyOnce {
		return nil
	}
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&w.connID); err != nil {
		return fmt.Errorf("read the session's id: %w", err)
	}
	return nil
}

// waitSessionEnded waits until the server no longer lists session id, for at most the
// connection timeout.
func (w *myWriter) waitSessionEnded(ctx context.Context, id int64) error {
	if id == 0 {
		return nil
	}
	timeout := w.cfg.my.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	deadline := time.Now().Add(timeout)
	pause := time.Millisecond
	for {
		var n int
		if err := w.conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", id).Scan(&n); err != nil {
			return fmt.Errorf("look for the preparing session %d: %w", id, err)
		}
		if n == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the session %d that prepared the transaction did not end within %s", id, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// SnapshotState lists the prepared XA transactions not yet committed: a restore commits
// them (their checkpoints' data is behind the restored position) before writing on.
func (w *myWriter) SnapshotState(checkpointID int64) ([]byte, error) {
	if !w.cfg.exactlyOnce {
		return w.cfg.inputState(checkpointID)
	}
	if len(w.pending) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), w.cfg.my.Timeout)
		defer cancel()
		live, err := xaRecover(ctx, w.conn, w.xidPrefix)
		if err != nil {
			return nil, w.fail(fmt.Errorf("%s: %w", w.cfg.where, err))
		}
		kept := w.pending[:0]
		for _, x := range w.pending {
			if live[x] {
				kept = append(kept, x)
			}
		}
		w.pending = kept
	}
	return json.Marshal(writerState{NextCheckpoint: max(w.cp, checkpointID+1), Pending: w.pending, Input: w.cfg.snapshotInput()})
}

// recover settles a restored writer's XA transactions: those its snapshots list belong to
// completed checkpoints and are committed; any other this subtask prepared was never part
// of a completed checkpoint and is rolled back.
func (w *myWriter) recover(ctx context.Context, states [][]byte) error {
	keep := map[string]bool{}
	for _, raw := range states {
		if len(raw) == 0 {
			continue
		}
		var st writerState
		if err := json.Unmarshal(raw, &st); err != nil {
			return fmt.Errorf("bad writer state: %v", err)
		}
		w.cp = max(w.cp, st.NextCheckpoint)
		for _, xid := range st.Pending {
			keep[xid] = true
			if err := xaCommit(ctx, w.conn, xid); err != nil {
				return err
			}
		}
	}
	live, err := xaRecover(ctx, w.conn, w.xidPrefix)
	if err != nil {
		return err
	}
	for xid := range live {
		if !keep[xid] {
			slog.Info("rolling back an XA transaction no completed checkpoint lists", "where", w.cfg.where, "xid", xid)
			if err := xaRollback(ctx, w.conn, xid); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close rolls back what was never prepared and closes the connection.
func (w *myWriter) Close(ctx context.Context) error {
	if w.db == nil {
		return nil
	}
	if w.conn != nil && w.inTx {
		if w.cfg.exactlyOnce {
			x := xidLiteral(w.xid)
			_, _ = w.conn.ExecContext(ctx, "XA END "+x)
			_, _ = w.conn.ExecContext(ctx, "XA ROLLBACK "+x)
		} else {
			_, _ = w.conn.ExecContext(ctx, "ROLLBACK")
		}
	}
	if w.conn != nil {
		w.conn.Close()
	}
	err := w.db.Close()
	w.db, w.conn = nil, nil
	return err
}
