package taskrunner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/checkpointstore"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/row"
)

// task is one parallel instance of a task group: one goroutine runs its fused chain.
type task struct {
	ex      *execution
	id      contract.TaskID
	group   contract.TaskGroup
	subtask int

	mu      sync.Mutex
	st      contract.TaskState
	failure error

	read     *meter       // what its source read
	written  *meter       // what its sink wrote
	rowsRecv atomic.Int64 // taken from exchange inputs
	commits  []contract.CommitInfo
	// undelivered: what the sink prepared at checkpoints whose acknowledgement has not
	// reached the pipeline (it waits for the runner's other tasks, which may end before
	// their barrier, or its state write failed). Each acknowledgement carries them again,
	// and so does the closing status, so a transaction prepared is never left uncommitted
	// (committers are idempotent: one delivered twice is committed once).
	undelivered []preparedCommit
	stats       taskStats // busy and back-pressured time, last checkpoint, source lag

	// barriers brings checkpoint triggers to a source task (nil for other tasks).
	barriers chan int64
	// lastBarrier is the newest checkpoint the task took part in.
	lastBarrier int64
	// completed is the newest checkpoint known complete; notified the newest the source
	// reader was told of.
	completed atomic.Int64
	notified  int64
}

func newTask(ex *execution, g contract.TaskGroup, subtask int) *task {
	t := &task{ex: ex, id: contract.TaskID{Group: g.ID, Subtask: subtask}, group: g, subtask: subtask, st: contract.TaskCreated,
		read: newMeter(""), written: newMeter("")}
	for _, vid := range g.Vertices {
		switch v := ex.vertices[vid]; v.Kind {
		case contract.SourceVertex:
			t.read = newMeter(onlyTable(v.Tables))
		case contract.SinkVertex:
			t.written = newMeter(onlyTable(v.InputTables))
		}
	}
	if ex.vertices[g.Vertices[0]].Kind == contract.SourceVertex {
		t.barriers = make(chan int64, 8)
	}
	return t
}

// taskState is what a task writes to the checkpoint store for a checkpoint.
type taskState struct {
	Splits     []connector.Split `json:"splits,omitempty"`
	Enumerator []byte            `json:"enumerator,omitempty"`
	Writer     []byte            `json:"writer,omitempty"`
}

// checkpoint takes the task's part of checkpoint id: it snapshots the source, prepares the
// sink's commit, forwards the barrier downstream, writes its state to the store and
// acknowledges.
func (t *task) checkpoint(ctx context.Context, c *chain, id int64) error {
	start := time.Now()
	t.ex.r.ledger.checkpointStarted(t.ex, id, start)
	var st taskState
	var commits []contract.CommitInfo
	var err error
	if l, ok := c.reader.(connector.CheckpointListener); ok {
		if done := t.completed.Load(); done > t.notified {
			if err := l.NotifyCheckpointComplete(ctx, done); err != nil {
				return fmt.Errorf("checkpoint %d complete: source: %w", done, err)
			}
			t.notified = done
		}
	}
	if c.reader != nil {
		if st.Splits, err = c.reader.SnapshotState(id); err != nil {
			return fmt.Errorf("checkpoint %d: snapshot source: %w", id, err)
		}
		if t.subtask == 0 {
			if st.Enumerator, err = c.coord.snapshot(ctx, id); err != nil {
				return fmt.Errorf("checkpoint %d: snapshot split enumerator: %w", id, err)
			}
		}
	}
	if c.writer != nil {
		if err := t.ex.r.checkLease(); err != nil {
			return err // a fenced runner prepares nothing
		}
		info, err := c.writer.PrepareCommit(ctx, id)
		if err != nil {
			return fmt.Errorf("checkpoint %d: prepare commit: %w", id, err)
		}
		commits = t.prepared(id, info, c.sinkVertex)
		if st.Writer, err = c.writer.SnapshotState(id); err != nil {
			return fmt.Errorf("checkpoint %d: snapshot sink: %w", id, err)
		}
	}
	// the barrier goes on first, so downstream tasks do not wait for this task's write
	if c.out != nil {
		if err := c.out.mark(ctx, id); err != nil {
			return err
		}
	}
	t.lastBarrier = id
	blob, err := json.Marshal(st)
	if err != nil {
		return err
	}
	// the state goes to the store off the data path: the task goes on with its rows while
	// the blob is written (and fsynced); the acknowledgement follows the write
	key := checkpointstore.StateKey(t.ex.d.Job.ID, t.ex.d.Pipeline.ID, id, t.id.String())
	ack := contract.TaskAck{Task: t.id, StateKey: key, StateBytes: int64(len(blob)), Commits: commits, Counters: t.counters()}
	go t.storeState(id, blob, ack, start)
	return nil
}

// storeState writes the task's state blob of checkpoint id and acknowledges it. A state that
// cannot be written declines the checkpoint, so the coordinator aborts it at once instead of
// at its timeout; the sink's commit infos stay undelivered and go with the task's next
// acknowledgement. The write is bounded by the checkpoint's timeout: past it the checkpoint
// is aborted anyway, and the retries of a store that does not answer would only pile up.
func (t *task) storeState(id int64, blob []byte, ack contract.TaskAck, start time.Time) {
	ctx, cancel := context.WithTimeout(t.ex.ctx, checkpointTimeout(t.ex.d.Env))
	defer cancel()
	if err := t.ex.r.cfg.Store.Put(ctx, ack.StateKey, blob); err != nil {
		if t.ex.ctx.Err() != nil {
			return // the tasks stop: the checkpoint goes with them
		}
		t.ex.r.log.Error("checkpoint state not written: checkpoint declined", "job", t.ex.d.Job.ID,
			"pipeline", t.ex.d.Pipeline.ID, "task", t.id.String(), "checkpoint", id, "error", err)
		t.ex.decline(id, fmt.Sprintf("task %s: state not written: %v", t.id, err))
		return
	}
	t.stats.checkpointed(len(blob), start)
	t.ex.acked(id, ack)
}

// preparedCommit is a commit info and the checkpoint that prepared it.
type preparedCommit struct {
	checkpoint int64
	info       contract.CommitInfo
}

// prepared records the commit info the sink prepared at checkpoint id (none when nil) and
// returns what the checkpoint's acknowledgement carries: every info not delivered yet,
// oldest first.
func (t *task) prepared(id int64, info []byte, vertex int) []contract.CommitInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	if info != nil {
		t.undelivered = append(t.undelivered, preparedCommit{checkpoint: id,
			info: contract.CommitInfo{Vertex: vertex, Subtask: t.subtask, Info: info}})
	}
	if len(t.undelivered) == 0 {
		return nil
	}
	out := make([]contract.CommitInfo, len(t.undelivered))
	for i, p := range t.undelivered {
		out[i] = p.info
	}
	return out
}

// delivered forgets the infos an acknowledgement of checkpoint id or later took to the
// pipeline.
func (t *task) delivered(id int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	kept := t.undelivered[:0]
	for _, p := range t.undelivered {
		if p.checkpoint > id {
			kept = append(kept, p)
		}
	}
	clear(t.undelivered[len(kept):])
	t.undelivered = kept
}

// closingCommits is what the closing status hands to the final commit: the infos no
// acknowledgement delivered, then the final transaction's. The caller holds t.mu.
func (t *task) closingCommits() []contract.CommitInfo {
	if len(t.undelivered) == 0 {
		return t.commits
	}
	out := make([]contract.CommitInfo, 0, len(t.undelivered)+len(t.commits))
	for _, p := range t.undelivered {
		out = append(out, p.info)
	}
	return append(out, t.commits...)
}

func (t *task) state() contract.TaskState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.st
}

func (t *task) counters() contract.Counters {
	c := contract.Counters{RowsReceived: t.rowsRecv.Load(), RowsFailed: t.stats.rowsFailed()}
	t.read.addTo(&c, true)
	t.written.addTo(&c, false)
	return c
}

// onlyTable is the id of the one table of a vertex, or "" when it has several.
func onlyTable(tables []*catalog.Table) string {
	if len(tables) == 0 {
		return ""
	}
	id := tables[0].ID()
	for _, t := range tables[1:] {
		if t.ID() != id {
			return ""
		}
	}
	return id
}

// transition moves the task along its state machine; a terminal state is final. Changes
// that matter to the pipeline (RUNNING and the terminal states) are reported.
func (t *task) transition(to contract.TaskState) {
	t.mu.Lock()
	if t.st.Terminal() {
		t.mu.Unlock()
		return
	}
	t.st = to
	status := contract.TaskStatus{Task: t.id, State: to, Counters: t.counters()}
	if to == contract.TaskFailed && t.failure != nil {
		status.Error = t.failure.Error()
		status.Permanent = connector.IsPermanent(t.failure)
	}
	if to == contract.TaskClosed {
		status.Commits = t.closingCommits()
	}
	t.mu.Unlock()
	if to == contract.TaskRunning || to.Terminal() {
		t.ex.statusChanged(status)
	}
}

// setFailure records the first failure of the pipeline on this task (the cause for the
// task that failed; others end CANCELED).
func (t *task) setFailure(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failure == nil {
		t.failure = err
	}
}

// fail ends a task that never ran.
func (t *task) fail(err error) {
	t.setFailure(err)
	t.transition(contract.TaskFailed)
}

// chain is a task's operators, built from its group's vertices.
type chain struct {
	reader     connector.Reader
	coord      *splitCoordinator
	transforms []connector.Transform
	writer     connector.Writer
	sinkVertex int
	in         *inbox
	// aliases relabel the rows of a union's later inputs with the first input's tables
	aliases map[string]string
	out     *outlet
	// changes are the ids of the schema changes the chain followed (schemachange.go)
	changes map[string]bool
}

func (t *task) run() {
	ctx := t.ex.ctx
	var c chain
	err := t.guard(func() error { return t.build(&c) })
	if err == nil {
		err = t.guard(func() error { return t.execute(ctx, &c) })
	}
	cerr := t.guard(func() error { return c.close(context.Background()) })
	if err == nil {
		err = cerr
	}
	switch {
	case err == nil:
		t.transition(contract.TaskClosed)
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		// canceled from outside, or because a sibling failed
		t.mu.Lock()
		own := t.failure
		t.mu.Unlock()
		if own != nil && t.ex.failedTask() == t {
			t.transition(contract.TaskFailed)
		} else {
			t.transition(contract.TaskCanceling)
			t.transition(contract.TaskCanceled)
		}
	default:
		t.ex.r.log.Error("task failed", "job", t.ex.d.Job.ID, "pipeline", t.ex.d.Pipeline.ID, "task", t.id.String(), "error", err)
		t.ex.markFailed(t, err)
		t.transition(contract.TaskFailed)
		t.ex.cancel()
	}
}

// guard turns a panic in plugin code into an error, so one bad plugin fails its task and
// never the runner.
func (t *task) guard(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			t.ex.r.log.Error("task panicked", "task", t.id.String(), "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("internal error in task %s: %v", t.id, p)
		}
	}()
	return f()
}

// restored reads the task's state from the checkpoint the deployment restores, or returns
// nil when it starts fresh.
func (ex *execution) restored(ctx context.Context, task contract.TaskID) (*taskState, error) {
	r := ex.d.Restore
	if r == nil {
		return nil, nil
	}
	key, ok := r.States[task.String()]
	if !ok {
		return nil, nil
	}
	if ex.r.cfg.Store == nil {
		return nil, fmt.Errorf("restore checkpoint %d: the runner has no checkpoint store", r.Checkpoint)
	}
	b, err := ex.r.cfg.Store.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("restore checkpoint %d: %w", r.Checkpoint, err)
	}
	var st taskState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("restore checkpoint %d: state of %s: %w", r.Checkpoint, task, err)
	}
	return &st, nil
}

func (t *task) build(c *chain) error {
	t.transition(contract.TaskInit)
	ex := t.ex
	st, err := ex.restored(ex.ctx, t.id)
	if err != nil {
		return err
	}
	if ex.d.Restore != nil {
		t.lastBarrier = ex.d.Restore.Checkpoint
	}
	for i, vid := range t.group.Vertices {
		v := ex.vertices[vid]
		switch v.Kind {
		case contract.SourceVertex:
			coord := ex.coords[vid]
			if coord == nil || i != 0 {
				return fmt.Errorf("%s: source is not the head of its task group", v.Where)
			}
			src, err := v.Source(ex.job, t.group.Parallelism)
			if err != nil {
				return err
			}
			sub := t.subtask
			rd, err := src.CreateReader(connector.ReaderContext{Index: sub, Parallelism: t.group.Parallelism, Job: ex.job,
				RequestSplit: func() { coord.request(sub) }})
			if err != nil {
				return fmt.Errorf("%s: %w", v.Where, err)
			}
			if st != nil && len(st.Splits) > 0 {
				rd.AddSplits(st.Splits) // the splits it had not finished, with their progress
			}
			c.reader, c.coord = rd, coord
			t.stats.watchLag(rd)
			t.stats.watchFailed(rd)
		case contract.TransformVertex:
			tr, err := v.Transform(ex.job)
			if err != nil {
				return err
			}
			c.transforms = append(c.transforms, tr)
		case contract.SinkVertex:
			sk, err := v.Sink(ex.job)
			if err != nil {
				return err
			}
			var states [][]byte
			if st != nil && st.Writer != nil {
				states = [][]byte{st.Writer}
			}
			w, err := sk.CreateWriter(connector.WriterContext{Index: t.subtask, Parallelism: t.group.Parallelism, Job: ex.job, Epoch: ex.d.Epoch}, states)
			if err != nil {
				return fmt.Errorf("%s: %w", v.Where, err)
			}
			c.writer, c.sinkVertex = w, vid
		}
	}
	t.passEncoded(c)
	if c.reader == nil {
		c.in = ex.inboxes[t.id]
		c.aliases = ex.vertices[t.group.Vertices[0]].TableAliases
	}
	if c.writer == nil {
		out, err := ex.outletFor(t.group, t.subtask)
		if err != nil {
			return err
		}
		c.out = out
	}
	t.transition(contract.TaskReadyStart)
	return nil
}

// passEncoded lets the reader hand records to the writer in their encoded form when the
// reader feeds the writer directly and both name a table's encoding alike
// (connector.EncodedReader): the writer writes such a record as it came, and nothing turns
// it into fields and back.
func (t *task) passEncoded(c *chain) {
	if c.reader == nil || c.writer == nil || len(c.transforms) > 0 {
		return
	}
	er, ok := c.reader.(connector.EncodedReader)
	ew, ok2 := c.writer.(connector.EncodedWriter)
	if !ok || !ok2 {
		return
	}
	for table, enc := range er.Encodings() {
		if enc != "" && ew.Encoding(table) == enc {
			er.EmitEncoded(table)
			t.ex.r.log.Info("records pass to the sink as they were read", "task", t.id.String(), "table", table)
		}
	}
}

func (t *task) execute(ctx context.Context, c *chain) error {
	t.transition(contract.TaskStarting)
	if c.reader != nil {
		if err := c.reader.Open(ctx); err != nil {
			return err
		}
	}
	for _, tr := range c.transforms {
		if err := tr.Open(ctx); err != nil {
			return err
		}
	}
	t.transition(contract.TaskRunning)
	var err error
	if c.reader != nil {
		err = t.pumpSource(ctx, c)
	} else {
		err = t.pumpInbox(ctx, c)
	}
	if err != nil {
		return err
	}
	t.transition(contract.TaskPrepareClose)
	if c.writer != nil {
		if err := t.ex.r.checkLease(); err != nil {
			return err // a fenced runner prepares nothing
		}
		info, err := c.writer.PrepareCommit(ctx, t.lastBarrier+1)
		if err != nil {
			return err
		}
		if info != nil {
			t.mu.Lock()
			t.commits = append(t.commits, contract.CommitInfo{Vertex: c.sinkVertex, Subtask: t.subtask, Info: info})
			t.mu.Unlock()
		}
	}
	if c.out != nil {
		return c.out.close(ctx)
	}
	return nil
}

// pumpSource reads the source until it is done, pushing each batch through the chain.
func (t *task) pumpSource(ctx context.Context, c *chain) error {
	t.rebase(c)
	c.coord.register(t.subtask)
	mb := c.coord.mailbox[t.subtask]
	noMoreSeen := false
	limit := newReadLimiter(t.ex.d.Env)
	idle := time.Millisecond
	for {
		select {
		case id := <-t.barriers:
			if err := t.checkpoint(ctx, c, id); err != nil {
				return err
			}
		default:
		}
		if splits, noMore := mb.take(); len(splits) > 0 || (noMore && !noMoreSeen) {
			if len(splits) > 0 {
				c.reader.AddSplits(splits)
			}
			if noMore && !noMoreSeen {
				noMoreSeen = true
				c.reader.NoMoreSplits()
			}
		}
		if limit != nil {
			if d := limit.wait(time.Now()); d > 0 {
				// read_limit: what was read is not paid for yet
				select {
				case id := <-t.barriers:
					if err := t.checkpoint(ctx, c, id); err != nil {
						return err
					}
				case <-time.After(min(d, 100*time.Millisecond)):
				case <-ctx.Done():
					return ctx.Err()
				}
				continue
			}
		}
		b := row.NewBatch(limit.batchSize(t.ex.r.cfg.BatchSize))
		start, bp0 := time.Now(), t.stats.backPressured.Load()
		done, err := c.reader.PollNext(ctx, b)
		if err != nil {
			b.Release()
			return err
		}
		if limit != nil {
			limit.took(b, time.Now())
		}
		if n := b.Len(); n > 0 {
			t.read.count(b)
			if err := t.push(ctx, c, b); err != nil {
				return err
			}
			if _, err := t.takeChanges(ctx, c); err != nil {
				return err
			}
			t.stats.since(start, bp0)
			idle = time.Millisecond
		} else {
			b.Release()
			if took, err := t.takeChanges(ctx, c); err != nil || took {
				if err != nil {
					return err
				}
				continue
			}
			if done {
				return nil
			}
			// nothing yet: wait for an assignment or a moment, then poll again
			select {
			case <-mb.notify:
			case id := <-t.barriers:
				if err := t.checkpoint(ctx, c, id); err != nil {
					return err
				}
			case <-time.After(idle):
				idle = min(idle*2, 100*time.Millisecond)
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		if done {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// pumpInbox consumes the task's input until every producer has ended its stream. Barriers
// are aligned: once a producer's barrier for a checkpoint arrived, that producer's later
// messages wait until every other producer's barrier (or end) arrived too; then the task
// takes its part of the checkpoint and the held messages are processed in order.
func (t *task) pumpInbox(ctx context.Context, c *chain) error {
	ended := map[int]bool{}
	var (
		aligning int64            // the checkpoint being aligned, 0 when none
		arrived  = map[int]bool{} // producers whose barrier arrived
		held     = map[int][]message{}
		order    []int // producers in the order their barrier arrived
		replay   []message
	)
	for len(ended) < c.in.expect || len(replay) > 0 {
		var m message
		if len(replay) > 0 {
			m, replay = replay[0], replay[1:]
		} else {
			select {
			case m = <-c.in.ch:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if m.err != nil {
			return m.err
		}
		if aligning != 0 && arrived[m.from] {
			held[m.from] = append(held[m.from], m)
			continue
		}
		switch {
		case m.barrier != 0:
			if aligning == 0 {
				aligning = m.barrier
			}
			arrived[m.from] = true
			order = append(order, m.from)
		case m.change != nil:
			if err := t.pushChange(ctx, c, m.change); err != nil {
				return err
			}
			continue
		case m.batch == nil:
			ended[m.from] = true
		default:
			start, bp0 := time.Now(), t.stats.backPressured.Load()
			t.rowsRecv.Add(int64(m.batch.Len()))
			relabel(m.batch, c.aliases)
			if err := t.push(ctx, c, m.batch); err != nil {
				return err
			}
			t.stats.since(start, bp0)
			continue
		}
		if aligning != 0 && len(arrived)+countNotIn(ended, arrived) >= c.in.expect {
			if err := t.checkpoint(ctx, c, aligning); err != nil {
				return err
			}
			for _, p := range order {
				replay = append(replay, held[p]...)
			}
			aligning, arrived, held, order = 0, map[int]bool{}, map[int][]message{}, nil
		}
	}
	return nil
}

func countNotIn(a, b map[int]bool) int {
	n := 0
	for k := range a {
		if !b[k] {
			n++
		}
	}
	return n
}

// push runs a batch through the transforms and hands it to the sink or the outlet.
func (t *task) push(ctx context.Context, c *chain, b *row.Batch) error {
	var err error
	for _, tr := range c.transforms {
		if b, err = tr.Process(ctx, b); err != nil {
			if b != nil {
				b.Release()
			}
			return err
		}
		if b == nil {
			return nil
		}
		if b.Len() == 0 {
			b.Release()
			return nil
		}
	}
	if c.writer != nil {
		if err := t.ex.r.checkLease(); err != nil {
			b.Release()
			return err // a fenced runner writes nothing more
		}
		err := c.writer.Write(ctx, b)
		if err == nil {
			t.written.count(b)
		}
		b.Release()
		return err
	}
	start := time.Now()
	err = c.out.send(ctx, b)
	t.stats.backPressured.Add(int64(time.Since(start)))
	return err
}

func (c *chain) close(ctx context.Context) error {
	var errs []error
	if c.writer != nil {
		errs = append(errs, c.writer.Close(ctx))
	}
	for _, tr := range c.transforms {
		errs = append(errs, tr.Close())
	}
	if c.reader != nil {
		errs = append(errs, c.reader.Close())
	}
	return errors.Join(errs...)
}

// relabel gives the rows of a union's later inputs the table of the first input at the
// same position; rows come in runs of one table, so a run costs one lookup.
func relabel(b *row.Batch, aliases map[string]string) {
	if len(aliases) == 0 {
		return
	}
	from, to, ok := "", "", false
	for i := range b.Rows {
		r := &b.Rows[i]
		if r.Table != from || i == 0 {
			from = r.Table
			to, ok = aliases[from]
		}
		if ok {
			r.Table = to
		}
	}
}
