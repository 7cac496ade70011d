package jdbc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// allBinary sends every parameter in binary.
var allBinary = []int16{pgtype.BinaryFormatCode}

// copyMinRows is the batch_size from which a flush of inserts goes as a COPY rather than
// as one INSERT ... SELECT FROM unnest of arrays. PostgreSQL sets up a COPY's insertion
// afresh for every statement, which a COPY of a few thousand rows pays more for than the
// array statement's parse and unnest; measured on PostgreSQL 15 (bench/e2e pg, and
// bench/anchors pgpipe against pgcopybatch), the two cost the same near 5,000 rows a
// flush, and COPY is 20-50% cheaper from 10,000.
const copyMinRows = 5000

// writer writes one subtask's rows to PostgreSQL. Rows are encoded as they arrive in
// PostgreSQL's binary format (nothing of a batch is kept) and sent when batch_size rows
// are buffered and at every checkpoint; a flush is sent without waiting for it
// (pg_pipeline.go), at most maxInFlight unacknowledged, and a checkpoint waits for all of
// them. With is_exactly_once a checkpoint's transaction is prepared (PREPARE TRANSACTION).
type writer struct {
	txWriter
	conn *pgx.Conn
	fe   *pgproto3.Frontend // conn's: flushes are sent through it
	tm   *pgtype.Map

	beginStmt, commitStmt *pgconn.StatementDescription
	flights               []flight      // flushes sent, oldest first
	unsynced              bool          // messages were sent since the last Sync
	syncs                 int           // Syncs sent whose ReadyForQuery is still to come
	rows                  int64         // rows sent so far, which flush errors count in
	copyOpen              bool          // the checkpoint's COPY is open (is_exactly_once, auto_commit = false)
	bind                  pgproto3.Bind // scratch messages of sendStatement
	execute               pgproto3.Execute
	wire                  []byte // scratch: a bulk statement's messages, encoded (sendLarge)

	main   *pgconn.StatementDescription // query, insert or upsert
	insert *pgconn.StatementDescription // modeInsertUpdate
	update *pgconn.StatementDescription
	delete *pgconn.StatementDescription
	copy   string
	// bulk statements of modeUpsert (the upsert) and of modeInsert without
	// use_copy_statement (the insert), when every column's type has an array type
	bulkUpsert, bulkDelete *pgconn.StatementDescription
	arrays                 [][]byte // scratch: one array parameter per column
	hasNull                []bool   // scratch: which of them hold a null
	fields                 []int    // input field of each parameter of main
	all                    []int    // every parameter's position: 0, 1, ...
	oids                   []uint32

	pkParams [][]byte // scratch: a delete's key parameters
	formats  []int16  // per parameter: binary, or text where no binary encoding fits
	// enc says how each parameter is encoded; pkFormats are the key columns' formats
	enc       []paramEnc
	pkFormats []int16
}

// newWriter connects and prepares the statements; restored from states, it first
// settles the prepared transactions they list and those this subtask left behind.
func (cc *connConfig) newWriter(c *sinkConfig, ctx connector.WriterContext, states [][]byte) (connector.Writer, error) {
	bg := context.Background()
	conn, err := cc.connect(bg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.where, err)
	}
	if c, err = c.restore(bg, states, func(ctx context.Context) (map[string]bool, error) {
		return pgTargetColumns(ctx, conn, c)
	}); err != nil {
		conn.Close(bg)
		return nil, err
	}
	w := &writer{conn: conn, fe: conn.PgConn().Frontend(), tm: conn.TypeMap()}
	w.txWriter = newTxWriter(c, ctx, w)
	if err := w.open(bg, states); err != nil {
		conn.Close(bg)
		return nil, fmt.Errorf("%s: %w", c.where, err)
	}
	w.resetBuf()
	return w, nil
}

func (w *writer) open(ctx context.Context, states [][]byte) error {
	if w.cfg.exactlyOnce {
		if err := w.recover(ctx, states); err != nil {
			return err
		}
	}
	return w.prepare(ctx)
}

// prepare prepares the statements of the writer's columns: the writer's own BEGIN and
// COMMIT, and the statements its write mode runs.
func (w *writer) prepare(ctx context.Context) error {
	c := w.cfg
	var err error
	if w.beginStmt, err = w.conn.Prepare(ctx, "strait_begin", "BEGIN"); err != nil {
		return fmt.Errorf("prepare BEGIN: %w", err)
	}
	if w.commitStmt, err = w.conn.Prepare(ctx, "strait_commit", "COMMIT"); err != nil {
		return fmt.Errorf("prepare COMMIT: %w", err)
	}
	if c.mode == modeQuery {
		if w.main, err = w.conn.Prepare(ctx, "strait_query", c.query.sql); err != nil {
			return fmt.Errorf("query: %w", err)
		}
		if len(w.main.ParamOIDs) != len(c.queryFields) {
			return fmt.Errorf("query: PostgreSQL counts %d parameters, the query binds %d", len(w.main.ParamOIDs), len(c.queryFields))
		}
		w.fields = c.queryFields
		w.oids = w.main.ParamOIDs
		w.planFormats()
		return nil
	}
	st := c.statements()
	w.fields = c.writtenFields()
	w.all = positions(len(w.fields))
	prep := func(name, sql string) (*pgconn.StatementDescription, error) {
		d, err := w.conn.Prepare(ctx, name, sql)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", c.target, err)
		}
		return d, nil
	}
	switch c.mode {
	case modeInsert:
		w.main, err = prep("strait_insert", st.insert)
		w.copy = st.copy
	case modeUpsert:
		w.main, err = prep("strait_upsert", st.upsert)
	case modeInsertOnly:
		w.main, err = prep("strait_insert", st.insert)
	case modeInsertUpdate:
		if w.main, err = prep("strait_insert", st.insert); err == nil {
			w.insert = w.main
			w.update, err = prep("strait_update", st.update)
		}
	}
	if err != nil {
		return err
	}
	if len(c.pk) > 0 && c.mode != modeInsert {
		if w.delete, err = prep("strait_delete", st.delete); err != nil {
			return err
		}
	}
	w.oids = w.main.ParamOIDs
	if w.planFormats() {
		// COPY BINARY and the unnest arrays need every column in binary
		w.copy = ""
		return nil
	}
	if c.mode == modeUpsert {
		return w.prepareBulk(ctx, st)
	}
	if c.mode == modeInsert && w.autoTx() && c.batchSize < copyMinRows {
		// a transaction per flush: below copyMinRows rows one INSERT of arrays costs the
		// server less than a COPY of the same rows, from there on the COPY costs less; the
		// writer takes the cheaper whether use_copy_statement asked for COPY or not (both
		// insert every row, and fail the flush alike on a bad one). COPY stays where a
		// column's type has no array type, and where a checkpoint's flushes are one
		// transaction, which one COPY writes.
		st.bulkUpsert = st.bulkInsert
		if err := w.prepareBulk(ctx, st); err != nil {
			return err
		}
		if w.bulkUpsert != nil {
			w.copy = ""
		}
	}
	return nil
}

// planFormats picks each parameter's encoding: json, jsonb and xml (and arrays of them)
// take a string as the document it holds and anything else as its JSON, in their binary
// forms (which are the text); other types are binary where pgx encodes a row value to the
// column's type, text (the value as SeaTunnel prints it, which PostgreSQL parses) for types
// it does not, such as inet or a domain's base type it cannot see. It reports whether any
// parameter is text.
func (w *writer) planFormats() bool {
	w.enc = make([]paramEnc, len(w.oids))
	w.formats = make([]int16, len(w.oids))
	w.pkFormats = w.pkFormats[:0]
	anyText := false
	probe := row.StringValue("")
	for i, oid := range w.oids {
		w.formats[i] = pgtype.BinaryFormatCode
		w.enc[i] = paramEncOf(oid, w.inputKind(i))
		if w.enc[i] != encPgx {
			continue
		}
		if w.tm.PlanEncode(oid, pgtype.BinaryFormatCode, cell{&probe}) == nil {
			w.enc[i], w.formats[i], anyText = encText, pgtype.TextFormatCode, true
			if w.inputKind(i) == types.Array {
				w.enc[i] = encTextArray
			}
		}
	}
	for _, i := range w.cfg.pk {
		if i < len(w.formats) {
			w.pkFormats = append(w.pkFormats, w.formats[i])
		}
	}
	return anyText
}

// inputKind is the type of the input field parameter i binds.
func (w *writer) inputKind(i int) types.Kind {
	if i < len(w.fields) && w.fields[i] < len(w.cfg.input.Columns) {
		return w.cfg.input.Columns[w.fields[i]].Type.Kind
	}
	return types.Null
}

// prepareBulk prepares the statements that apply a buffer with one array per column, when
// every column's type has an array type and is not an array itself (unnest would flatten
// it).
func (w *writer) prepareBulk(ctx context.Context, st statements) error {
	rows, err := w.conn.Query(ctx, "SELECT oid, typarray, typcategory = 'A' FROM pg_type WHERE oid = ANY($1)", w.oids)
	if err != nil {
		return fmt.Errorf("look up column types: %w", err)
	}
	arrayOf := map[uint32]uint32{}
	for rows.Next() {
		var oid, arr uint32
		var isArray bool
		if err := rows.Scan(&oid, &arr, &isArray); err != nil {
			rows.Close()
			return fmt.Errorf("look up column types: %w", err)
		}
		if !isArray {
			arrayOf[oid] = arr
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("look up column types: %w", err)
	}
	arrs := make([]uint32, len(w.oids))
	for i, oid := range w.oids {
		if arrs[i] = arrayOf[oid]; arrs[i] == 0 {
			return nil // per-row statements then
		}
	}
	pkArrs := make([]uint32, len(w.cfg.pk))
	for j, i := range w.cfg.pk {
		pkArrs[j] = arrs[i]
	}
	if w.bulkUpsert, err = w.conn.PgConn().Prepare(ctx, "strait_bulk_upsert", st.bulkUpsert, arrs); err != nil {
		return fmt.Errorf("table %s: %w", w.cfg.target, err)
	}
	if len(pkArrs) == 0 {
		return nil
	}
	if w.bulkDelete, err = w.conn.PgConn().Prepare(ctx, "strait_bulk_delete", st.bulkDelete, pkArrs); err != nil {
		return fmt.Errorf("table %s: %w", w.cfg.target, err)
	}
	return nil
}

// encode appends one row's parameters, and for COPY the tuple's field count before them.
func (w *writer) encode(r *row.Row) (int, error) {
	start := len(w.buf)
	if w.copy != "" {
		// a COPY tuple: its field count, then the fields as they are encoded here
		w.buf = binary.BigEndian.AppendUint16(w.buf, uint16(len(w.fields)))
	}
	first := len(w.buf)
	for j, f := range w.fields {
		v := &r.Fields[f]
		if v.IsNull() {
			w.buf = binary.BigEndian.AppendUint32(w.buf, 0xFFFFFFFF)
			continue
		}
		at := len(w.buf)
		w.buf = append(w.buf, 0, 0, 0, 0)
		out, err := w.encodeParam(j, v, w.buf)
		if err != nil {
			w.buf = w.buf[:start]
			return 0, fmt.Errorf("field %s: %w", w.fieldName(f), err)
		}
		w.buf = out
		binary.BigEndian.PutUint32(w.buf[at:], uint32(len(w.buf)-at-4))
	}
	return first, nil
}

// queueRows queues one statement per live entry; it returns how many.
func (w *writer) queueRows() int {
	c := w.cfg
	n := 0
	for _, e := range w.entries {
		if e.dead {
			continue
		}
		n++
		params := w.split(e)
		switch e.op {
		case opDelete:
			pk := w.pkParams[:0]
			for _, i := range c.pk {
				pk = append(pk, params[i])
			}
			w.pkParams = pk
			w.sendStatement(w.delete, pk, w.pkFormats)
		case opUpdate:
			w.sendStatement(w.update, params, w.formats)
		case opInsert:
			w.sendStatement(w.insert, params, w.formats)
		default:
			w.sendStatement(w.main, params, w.formats)
		}
	}
	return n
}

// queueBulk queues the live deletes as one statement and the live upserts as another, each
// with one array per column built from the entries' encoded parameters; it returns how many
// statements. The reduction left each key once, so the two sets are disjoint and their
// order does not matter.
func (w *writer) queueBulk() (int, error) {
	stmts := 0
	for _, del := range []bool{true, false} {
		cols := w.all
		stmt := w.bulkUpsert
		if del {
			cols, stmt = w.cfg.pk, w.bulkDelete
		}
		n := 0
		for _, e := range w.entries {
			if !e.dead && (e.op == opDelete) == del {
				n++
			}
		}
		if n == 0 {
			continue
		}
		// the arrays' memory is reused flush after flush: sendLarge encodes them into its buffer
		for len(w.arrays) < len(cols) {
			w.arrays = append(w.arrays, nil)
		}
		w.arrays = w.arrays[:len(cols)]
		hasNull := w.hasNull[:0]
		for j, col := range cols {
			a := append(w.arrays[j][:0], make([]byte, 20)...)
			binary.BigEndian.PutUint32(a[0:], 1) // one dimension
			binary.BigEndian.PutUint32(a[8:], w.oids[col])
			binary.BigEndian.PutUint32(a[12:], uint32(n))
			binary.BigEndian.PutUint32(a[16:], 1) // lower bound
			w.arrays[j] = a
			hasNull = append(hasNull, false)
		}
		w.hasNull = hasNull
		for _, e := range w.entries {
			if e.dead || (e.op == opDelete) != del {
				continue
			}
			params := w.split(e)
			for j, col := range cols {
				p := params[col]
				if p == nil {
					hasNull[j] = true
					w.arrays[j] = binary.BigEndian.AppendUint32(w.arrays[j], 0xFFFFFFFF)
					continue
				}
				w.arrays[j] = binary.BigEndian.AppendUint32(w.arrays[j], uint32(len(p)))
				w.arrays[j] = append(w.arrays[j], p...)
			}
		}
		for j := range cols {
			if hasNull[j] {
				binary.BigEndian.PutUint32(w.arrays[j][4:], 1)
			}
		}
		if err := w.sendLarge(stmt, w.arrays, allBinary); err != nil { // the bulk path has no text column
			return stmts, err
		}
		stmts++
	}
	return stmts, nil
}

// commit commits the checkpoint's transaction.
func (w *writer) commit(ctx context.Context) error {
	_, err := w.conn.Exec(ctx, "COMMIT")
	return err
}

// prepareTx prepares the checkpoint's transaction (PREPARE TRANSACTION).
func (w *writer) prepareTx(ctx context.Context, checkpointID int64) (string, error) {
	gid := w.txName(checkpointID)
	if _, err := w.conn.Exec(ctx, "PREPARE TRANSACTION "+quoteLiteral(gid)); err != nil {
		return "", fmt.Errorf("prepare transaction %s: %w", gid, err)
	}
	return gid, nil
}

// idle reports flushes in flight.
func (w *writer) idle() error {
	if w.unsynced {
		return fmt.Errorf("state taken with flushes in flight")
	}
	return nil
}

func (w *writer) commitPrepared(ctx context.Context, gid string) error {
	return commitPrepared(ctx, w.conn, gid)
}

func (w *writer) rollbackPrepared(ctx context.Context, gid string) error {
	return rollbackPrepared(ctx, w.conn, gid)
}

// prepared lists this subtask's prepared transactions.
func (w *writer) prepared(ctx context.Context) (map[string]bool, error) {
	rows, err := w.conn.Query(ctx, "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, $1)", w.gidPrefix)
	if err != nil {
		return nil, fmt.Errorf("list prepared transactions: %w", err)
	}
	gids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list prepared transactions: %w", err)
	}
	out := make(map[string]bool, len(gids))
	for _, g := range gids {
		out[g] = true
	}
	return out, nil
}

// Close rolls back what was never prepared and closes the connection.
func (w *writer) Close(ctx context.Context) error {
	if w.conn == nil {
		return nil
	}
	defer func() { w.conn = nil }()
	if w.unsynced {
		// flushes are in flight: closing the connection rolls back the open transaction
		// without waiting for them
		return w.conn.PgConn().Close(ctx)
	}
	if w.inTx {
		_, _ = w.conn.Exec(ctx, "ROLLBACK")
	}
	return w.conn.Close(ctx)
}

func quoteLiteral(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

// refused reports whether the server refused the statements for what they hold (a data
// exception, a broken constraint, an unknown column or a denied privilege): running them
// again cannot succeed, unlike after a lost connection, a deadlock or a shutdown.
func refused(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || len(pe.Code) < 2 {
		return false
	}
	switch pe.Code[:2] {
	case "22", "23", "42", "44":
		return true
	}
	return false
}

// undefinedObject is PostgreSQL's error code for a prepared transaction that is not there.
const undefinedObject = "42704"

func isUndefined(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == undefinedObject
}

// commitPrepared commits a prepared transaction; one that is gone was committed already.
func commitPrepared(ctx context.Context, conn *pgx.Conn, gid string) error {
	if _, err := conn.Exec(ctx, "COMMIT PREPARED "+quoteLiteral(gid)); err != nil && !isUndefined(err) {
		return fmt.Errorf("commit prepared transaction %s: %w", gid, err)
	}
	return nil
}

func rollbackPrepared(ctx context.Context, conn *pgx.Conn, gid string) error {
	if _, err := conn.Exec(ctx, "ROLLBACK PREPARED "+quoteLiteral(gid)); err != nil && !isUndefined(err) {
		return fmt.Errorf("roll back prepared transaction %s: %w", gid, err)
	}
	return nil
}
