package jdbc

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"time"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// myWriter writes one subtask's rows to MySQL. Rows become SQL literals as they arrive and
// are reduced by key as the PostgreSQL writer reduces them; a flush (every batch_size rows
// and at every checkpoint) sends them in one round trip: one DELETE of the deleted keys,
// one multi-row INSERT (... ON DUPLICATE KEY UPDATE when upserting), the UPDATEs of
// enable_upsert = false, or each row's query, as one multi-statement. With
// is_exactly_once a checkpoint's writes are one XA transaction (XA START before its first
// flush, XA END and XA PREPARE at the checkpoint) that the committer commits.
type myWriter struct {
	txWriter
	db   *sql.DB
	conn *sql.Conn // the writer's own session (a transaction of its own), else nil
	sess mySession // conn, or db: the subtask's shared session (mysql_shared.go)
	done func()    // gives the shared session back

	fields []int // input field of each literal
	all    []int // every literal's position: 0, 1, ...
	stmt   []byte
	// maxStmt bounds one multi-statement: a flush larger than the server's
	// max_allowed_packet is sent in several
	maxStmt int
	// statement heads
	insertHead, upsertTail, deleteHead string
	// the quoted target, its quoted columns, and which are the key's
	target string
	cols   []string
	isPK   []bool

	xid    string // the open XA transaction
	connID int64  // the server's id of conn's session (exactly-once: detach waits for its end)

	// the statement sent and not yet applied, at most one: while the server applies it the
	// task reads and encodes the next flush (see send)
	inFlight chan error
	sentWhat string // what it writes, for its error
	what     string // what the flush being built writes
	rows     int64  // rows flushed so far, which errors count in
}

// newWriter connects and, restored from states, first settles the XA transactions they
// list and those this subtask left behind.
func (mc *myConn) newWriter(c *sinkConfig, ctx connector.WriterContext, states [][]byte) (connector.Writer, error) {
	bg := context.Background()
	w := &myWriter{}
	w.txWriter = newTxWriter(c, ctx, w)
	var err error
	if sharedSession(c) {
		if w.db, w.done, err = mc.shared(bg, c.where, ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", c.where, err)
		}
		w.sess = w.db
	} else {
		if w.db, err = mc.open(bg, 1); err != nil {
			return nil, fmt.Errorf("%s: %w", c.where, err)
		}
		if err := w.session(bg); err != nil {
			w.Close(bg)
			return nil, fmt.Errorf("%s: %w", c.where, err)
		}
	}
	if w.cfg, err = c.restore(bg, states, w.targetColumns); err != nil {
		w.Close(bg)
		return nil, err
	}
	if err := w.open(bg, states); err != nil {
		w.Close(bg)
		return nil, fmt.Errorf("%s: %w", c.where, err)
	}
	if w.done != nil {
		idleUntilWritten(w.db)
	}
	return w, nil
}

func (w *myWriter) open(ctx context.Context, states [][]byte) error {
	c := w.cfg
	var packet int64
	if err := w.sess.QueryRowContext(ctx, "SELECT @@max_allowed_packet").Scan(&packet); err != nil {
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
	t := c.db.quoteTable(c.target)
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
	if _, err := w.sess.ExecContext(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM "+t+" LIMIT 0"); err != nil {
		return fmt.Errorf("table %s: %w", c.target, err)
	}
	return nil
}

// encode writes one row's literals.
func (w *myWriter) encode(r *row.Row) (int, error) {
	start := len(w.buf)
	for _, f := range w.fields {
		at := w.openField()
		var err error
		if w.buf, err = appendLiteral(w.buf, &r.Fields[f]); err != nil {
			w.buf = w.buf[:start]
			return 0, fmt.Errorf("field %s: %w", w.fieldName(f), err)
		}
		w.closeField(at)
	}
	return start, nil
}

// appendTuple writes (l1, l2, ...) of the given fields of an entry's literals.
func appendTuple(b []byte, lits [][]byte, fields []int) []byte {
	b = append(b, '(')
	for n, j := range fields {
		if n > 0 {
			b = append(b, ", "...)
		}
		b = append(b, lits[j]...)
	}
	return append(b, ')')
}

// begin opens the checkpoint's transaction when writes are transactional: an XA
// transaction for exactly-once, a plain one for auto_commit = false.
func (w *myWriter) begin(ctx context.Context) error {
	if w.inTx || (!w.cfg.exactlyOnce && w.cfg.autoCommit) {
		return nil
	}
	if err := w.wait(); err != nil {
		return err
	}
	stmt := "BEGIN"
	if w.cfg.exactlyOnce {
		w.xid = w.txName(w.cp)
		stmt = "XA START " + xidLiteral(w.xid)
	}
	if _, err := w.sess.ExecContext(ctx, stmt); err != nil {
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
	target := c.target.String()
	if c.mode == modeQuery {
		target = "query"
	}
	w.rows += int64(len(w.entries))
	w.what = fmt.Sprintf("%s: write rows %d to %d (%d rows) to %s", c.where, w.rows-int64(len(w.entries))+1, w.rows, len(w.entries), target)
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
		return err
	}
	w.clear(0)
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

// send runs the statements built so far without waiting for them: once the statement
// before them is applied, they go to the server on the writer's session in a goroutine of
// their own, and the task goes on reading and encoding the next flush meanwhile. Every
// other use of the session waits for them first (wait), so statements reach the server in
// the order they were built, and a failed one is reported by the next send, drain or
// checkpoint, with nothing after it applied.
func (w *myWriter) send(ctx context.Context) error {
	if len(w.stmt) == 0 {
		return nil
	}
	if err := w.wait(); err != nil {
		return err
	}
	stmt := string(w.stmt) // the driver's copy would be made anyway; w.stmt is free again
	w.stmt = w.stmt[:0]
	done := make(chan error, 1)
	w.inFlight, w.sentWhat = done, w.what
	go func() {
		_, err := w.sess.ExecContext(ctx, stmt)
		done <- err
	}()
	return nil
}

// wait waits until the statement in flight is applied and reports its error, naming the
// rows it wrote.
func (w *myWriter) wait() error {
	if w.inFlight == nil {
		return nil
	}
	err := <-w.inFlight
	w.inFlight = nil
	if err == nil {
		return nil
	}
	err = fmt.Errorf("%s: %w", w.sentWhat, err)
	if mysqlRefused(err) {
		return connector.Permanent(err)
	}
	return err
}

// queries builds each row's query.
func (w *myWriter) queries(ctx context.Context) error {
	parts := w.cfg.query.parts
	for _, e := range w.entries {
		lits := w.split(e)
		w.stmt = append(w.stmt, parts[0]...)
		for j := 1; j < len(parts); j++ {
			w.stmt = append(w.stmt, lits[j-1]...)
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
		w.stmt = appendTuple(w.stmt, w.split(e), fields)
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
func (w *myWriter) appendUpdate(e entry) {
	c := w.cfg
	lits := w.split(e)
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
		w.stmt = append(w.stmt, lits[i]...)
	}
	w.stmt = append(w.stmt, " WHERE "...)
	for j, i := range c.pk {
		if j > 0 {
			w.stmt = append(w.stmt, " AND "...)
		}
		w.stmt = append(append(w.stmt, w.cols[i]...), " = "...)
		w.stmt = append(w.stmt, lits[i]...)
	}
}

// commit commits the open transaction: an XA transaction in one phase.
func (w *myWriter) commit(ctx context.Context) error {
	if err := w.wait(); err != nil {
		return err
	}
	stmts := []string{"COMMIT"}
	if w.cfg.exactlyOnce {
		x := xidLiteral(w.xid)
		stmts = []string{"XA END " + x, "XA COMMIT " + x + " ONE PHASE"}
	}
	for _, s := range stmts {
		if _, err := w.sess.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// prepareTx ends and prepares the checkpoint's XA transaction, then detaches it from the
// session.
func (w *myWriter) prepareTx(ctx context.Context, _ int64) (string, error) {
	if err := w.wait(); err != nil {
		return "", err
	}
	x := xidLiteral(w.xid)
	if _, err := w.sess.ExecContext(ctx, "XA END "+x); err != nil {
		return "", fmt.Errorf("XA END %s: %w", w.xid, err)
	}
	if _, err := w.sess.ExecContext(ctx, "XA PREPARE "+x); err != nil {
		return "", fmt.Errorf("XA PREPARE %s: %w", w.xid, err)
	}
	if err := w.detach(ctx); err != nil {
		return w.xid, fmt.Errorf("after XA PREPARE %s: %w", w.xid, err)
	}
	return w.xid, nil
}

func (w *myWriter) drain(context.Context) error { return w.wait() }

func (w *myWriter) idle() error {
	if w.inFlight != nil {
		return fmt.Errorf("a flush is in flight at a snapshot")
	}
	return nil
}

func (w *myWriter) prepared(ctx context.Context) (map[string]bool, error) {
	if err := w.wait(); err != nil {
		return nil, err
	}
	return xaRecover(ctx, w.sess, w.gidPrefix)
}

func (w *myWriter) commitPrepared(ctx context.Context, xid string) error {
	if err := w.wait(); err != nil {
		return err
	}
	return xaCommit(ctx, w.sess, xid)
}

func (w *myWriter) rollbackPrepared(ctx context.Context, xid string) error {
	if err := w.wait(); err != nil {
		return err
	}
	return xaRollback(ctx, w.sess, xid)
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
	w.conn, w.sess = conn, conn
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
	timeout := w.cfg.db.connectTimeout()
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	deadline := time.Now().Add(timeout)
	pause := time.Millisecond
	for {
		var n int
		if err := w.sess.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", id).Scan(&n); err != nil {
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

// Close rolls back what was never prepared and closes the connection.
func (w *myWriter) Close(ctx context.Context) error {
	if w.db == nil {
		return nil
	}
	_ = w.wait() // the writer is given up: what its last flush did no longer matters
	if w.done != nil {
		w.done()
		w.db, w.sess, w.done = nil, nil, nil
		return nil
	}
	if w.conn != nil && w.inTx {
		if w.cfg.exactlyOnce {
			x := xidLiteral(w.xid)
			_, _ = w.sess.ExecContext(ctx, "XA END "+x)
			_, _ = w.sess.ExecContext(ctx, "XA ROLLBACK "+x)
		} else {
			_, _ = w.sess.ExecContext(ctx, "ROLLBACK")
		}
	}
	if w.conn != nil {
		w.conn.Close()
	}
	err := w.db.Close()
	w.db, w.conn = nil, nil
	return err
}
