package jdbc

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// writerState is a writer's snapshot: the prepared transactions of checkpoints that were
// taken but perhaps not committed yet.
type writerState struct {
	NextCheckpoint int64    `json:"next_checkpoint"`
	Pending        []string `json:"pending,omitempty"`
	// Input is the input table as the schema changes the writer applied left it: a
	// restored writer writes its columns (the rows after the checkpoint have them). None
	// for a writer that applied no change: a restore takes the planned input.
	Input *catalog.Table `json:"input,omitempty"`
}

// txWriter is what the writers of every driver share: rows are encoded as they arrive into
// a buffer that reduces them by key (rowBuffer), sent by the driver when batch_size rows
// are buffered and at every checkpoint; the checkpoint's transaction is committed, or with
// is_exactly_once prepared under a name the committer commits, and a restore settles the
// prepared transactions its state lists and those the subtask left behind. A driver's
// writer embeds it and is its session.
type txWriter struct {
	rowBuffer
	cfg *sinkConfig
	s   writeSession

	gidPrefix string   // the subtask's prepared transactions, of every attempt
	epoch     int      // the pipeline's attempt the writer belongs to
	cp        int64    // the checkpoint the open transaction belongs to
	inTx      bool     // a transaction is open (exactly-once or auto_commit = false)
	pending   []string // prepared, not known to be committed
	err       error
}

// writeSession is a driver's side of a writer: its connection, how it encodes and sends
// rows, and its transactions.
type writeSession interface {
	// encode appends a row's fields to the buffer, each behind its length, returning where
	// the first starts; it leaves the buffer as it was when it fails.
	encode(r *row.Row) (first int, err error)
	// flush sends the buffered rows (opening the checkpoint's transaction when writes are
	// transactional) and empties the buffer.
	flush(ctx context.Context) error
	// drain waits until every flush sent is applied.
	drain(ctx context.Context) error
	// commit commits the open transaction in one phase.
	commit(ctx context.Context) error
	// prepareTx ends the checkpoint's transaction and prepares it; gid is its name once it is
	// prepared, even when err tells of a failure after that.
	prepareTx(ctx context.Context, checkpointID int64) (gid string, err error)
	// idle reports an error when flushes are in flight, of which no state may be taken.
	idle() error
	// prepared lists this subtask's prepared transactions (gidPrefix).
	prepared(ctx context.Context) (map[string]bool, error)
	commitPrepared(ctx context.Context, gid string) error
	rollbackPrepared(ctx context.Context, gid string) error
	// targetColumns are the columns the table has, by lower-case name.
	targetColumns(ctx context.Context) (map[string]bool, error)
	// alterStatements are a schema change's statements, none when the target's columns
	// (have, updated as the statements change them) show it applied.
	alterStatements(ctx context.Context, ch *connector.SchemaChange, have map[string]bool) ([]string, error)
	// execAlter runs a change's statements.
	execAlter(ctx context.Context, stmts []string) error
	// raced reports the server's refusal of a change another writer applied meanwhile.
	raced(err error) bool
	// rebuild prepares the statements of the writer's columns again.
	rebuild(ctx context.Context) error
}

func newTxWriter(c *sinkConfig, ctx connector.WriterContext, s writeSession) txWriter {
	return txWriter{
		rowBuffer: newRowBuffer(),
		cfg:       c, s: s,
		gidPrefix: fmt.Sprintf("strait-%d-%s-%d-", ctx.Job.ID, c.tag, ctx.Index),
		epoch:     ctx.Epoch,
		cp:        1,
	}
}

// txName names the prepared transaction of checkpoint n. The attempt is part of the name:
// a writer of an attempt that was given up can never take, nor be committed under, a name
// of the attempt that replaced it.
func (w *txWriter) txName(n int64) string {
	return w.gidPrefix + "e" + strconv.Itoa(w.epoch) + "-" + strconv.FormatInt(n, 10)
}

func (w *txWriter) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

// Write encodes the batch's rows into the buffer, sending it whenever batch_size rows are
// buffered.
func (w *txWriter) Write(ctx context.Context, b *row.Batch) error {
	if w.err != nil {
		return w.err
	}
	c := w.cfg
	upsert := c.mode == modeUpsert
	for i := range b.Rows {
		r := &b.Rows[i]
		if len(r.Fields) < len(c.input.Columns) {
			return w.fail(fmt.Errorf("%s: row of table %s has %d fields, the table has %d columns", c.where, r.Table, len(r.Fields), len(c.input.Columns)))
		}
		o, skip := opOf(c.mode, r.Kind)
		if skip {
			continue
		}
		first, err := w.s.encode(r)
		if err != nil {
			// the value will not fit on a retry either
			return w.fail(connector.Permanent(fmt.Errorf("%s: row %d of table %s: %w", c.where, i, r.Table, err)))
		}
		w.push(o, first, c.pk, upsert)
		if len(w.entries) >= c.batchSize {
			if err := w.s.flush(ctx); err != nil {
				return w.fail(err)
			}
		}
	}
	return nil
}

// fieldName names input field f in errors.
func (w *txWriter) fieldName(f int) string {
	if f < len(w.cfg.input.Columns) {
		return w.cfg.input.Columns[f].Name
	}
	return strconv.Itoa(f)
}

// PrepareCommit sends what is buffered and waits until it is applied. With
// is_exactly_once it prepares the checkpoint's transaction and returns its name (with those
// of aborted checkpoints still prepared); with auto_commit = false it commits it.
func (w *txWriter) PrepareCommit(ctx context.Context, checkpointID int64) ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if err := w.s.flush(ctx); err != nil {
		return nil, w.fail(err)
	}
	// the checkpoint covers every flush: each must be applied before it is taken
	if err := w.s.drain(ctx); err != nil {
		return nil, w.fail(err)
	}
	defer func() { w.cp = max(w.cp, checkpointID) + 1 }()
	if !w.inTx {
		return nil, nil
	}
	w.inTx = false
	if !w.cfg.exactlyOnce {
		if err := w.s.commit(ctx); err != nil {
			return nil, w.fail(fmt.Errorf("%s: commit: %w", w.cfg.where, err))
		}
		return nil, nil
	}
	gid, err := w.s.prepareTx(ctx, checkpointID)
	if gid != "" {
		w.pending = append(w.pending, gid)
	}
	if err != nil {
		return nil, w.fail(fmt.Errorf("%s: %w", w.cfg.where, err))
	}
	// the transactions of earlier checkpoints that were aborted are still prepared: the
	// commit of this one commits them too, so none holds its locks for long
	return json.Marshal(commitInfo{GIDs: append([]string(nil), w.pending...)})
}

// SnapshotState lists the prepared transactions not yet committed: a restore commits them
// (their checkpoints' data is behind the restored position) before writing on.
func (w *txWriter) SnapshotState(checkpointID int64) ([]byte, error) {
	if !w.cfg.exactlyOnce {
		return w.cfg.inputState(checkpointID)
	}
	if err := w.s.idle(); err != nil {
		return nil, w.fail(fmt.Errorf("%s: %w", w.cfg.where, err))
	}
	if len(w.pending) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), w.cfg.db.connectTimeout())
		defer cancel()
		live, err := w.s.prepared(ctx)
		if err != nil {
			return nil, w.fail(fmt.Errorf("%s: %w", w.cfg.where, err))
		}
		kept := w.pending[:0]
		for _, g := range w.pending {
			if live[g] {
				kept = append(kept, g)
			}
		}
		w.pending = kept
	}
	return json.Marshal(writerState{NextCheckpoint: max(w.cp, checkpointID+1), Pending: w.pending, Input: w.cfg.snapshotInput()})
}

// recover settles a restored writer's prepared transactions: those its snapshots list
// belong to completed checkpoints and are committed; any other this subtask prepared was
// never part of a completed checkpoint and is rolled back.
func (w *txWriter) recover(ctx context.Context, states [][]byte) error {
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
		for _, gid := range st.Pending {
			keep[gid] = true
			if err := w.s.commitPrepared(ctx, gid); err != nil {
				return err
			}
		}
	}
	live, err := w.s.prepared(ctx)
	if err != nil {
		return err
	}
	for gid := range live {
		if !keep[gid] {
			slog.Info("rolling back a prepared transaction no completed checkpoint lists", "where", w.cfg.where, "gid", gid)
			if err := w.s.rollbackPrepared(ctx, gid); err != nil {
				return err
			}
		}
	}
	return nil
}

// settle sends and waits for everything buffered and commits the open transaction and the
// prepared ones: nothing of the writer holds the table then.
func (w *txWriter) settle(ctx context.Context) error {
	if err := w.s.flush(ctx); err != nil {
		return err
	}
	if err := w.s.drain(ctx); err != nil {
		return err
	}
	if w.inTx {
		w.inTx = false
		if err := w.s.commit(ctx); err != nil {
			return fmt.Errorf("%s: commit before a schema change: %w", w.cfg.where, err)
		}
	}
	for _, gid := range w.pending {
		if err := w.s.commitPrepared(ctx, gid); err != nil {
			return fmt.Errorf("%s: before a schema change: %w", w.cfg.where, err)
		}
	}
	w.pending = nil
	return nil
}

// PrepareSchemaChange writes and commits every row before the change.
func (w *txWriter) PrepareSchemaChange(ctx context.Context, _ *connector.SchemaChange) error {
	if w.err != nil {
		return w.err
	}
	if err := w.settle(ctx); err != nil {
		return w.fail(err)
	}
	return nil
}

// ApplySchemaChange settles the rows before the change, alters the table and rebuilds the
// writer's statements for the new columns (see schemachange.go).
func (w *txWriter) ApplySchemaChange(ctx context.Context, ch *connector.SchemaChange) error {
	if w.err != nil {
		return w.err
	}
	in, renames, err := w.cfg.evolve(ch)
	if err != nil {
		return w.fail(connector.Permanent(fmt.Errorf("%s: %w", w.cfg.where, err)))
	}
	if err := w.settle(ctx); err != nil {
		return w.fail(err)
	}
	have, err := w.alterTarget(ctx, ch)
	if err != nil {
		return w.fail(err)
	}
	next, err := w.cfg.withInput(in, renames, have)
	if err != nil {
		return w.fail(connector.Permanent(fmt.Errorf("%s: table %s: %w", w.cfg.where, w.cfg.target, err)))
	}
	next.evolved = true
	w.cfg = next
	if err := w.s.rebuild(ctx); err != nil {
		return w.fail(fmt.Errorf("%s: after a schema change of %s: %w", next.where, ch, err))
	}
	return nil
}
