package taskrunner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/exchange"
	"github.com/strait-dev/strait/planvertex"
	"github.com/strait-dev/strait/row"
)

// execution is one deployment of a pipeline on this runner: its tasks, the split
// coordinators of its sources and the exchanges between its task groups.
type execution struct {
	r        *Runner
	d        contract.Deployment
	job      connector.Job              // the deployment's job, as the plugins know it
	vertices map[int]*planvertex.Vertex // the pipeline's vertices, their tables decoded
	ctx      context.Context
	cancel   context.CancelFunc
	tasks    []*task
	coords   map[int]*splitCoordinator // by source vertex
	inboxes  map[contract.TaskID]*inbox

	reports chan contract.TaskStatus

	failMu sync.Mutex
	failed *task

	ackMu sync.Mutex
	acks  map[int64][]contract.TaskAck
	// declined is the newest checkpoint a task here declined: acknowledgements of it (or of
	// an older one) that come later are not sent, what they prepared goes with the tasks'
	// next acknowledgements
	declined int64

	local      map[contract.TaskID]bool
	remote     map[contract.TaskID]string // tasks on other runners: their exchange address
	unregister []func()
}

func newExecution(r *Runner, d contract.Deployment) (*execution, error) {
	ex := &execution{r: r, d: d, job: d.Job, vertices: map[int]*planvertex.Vertex{}, coords: map[int]*splitCoordinator{},
		inboxes: map[contract.TaskID]*inbox{}}
	for _, cv := range d.Vertices {
		v, err := planvertex.Decode(cv)
		if err != nil {
			return nil, err
		}
		ex.vertices[v.ID] = v
	}
	ex.local = map[contract.TaskID]bool{}
	for _, t := range d.Tasks {
		ex.local[t] = true
	}
	ex.remote = map[contract.TaskID]string{}
	for _, p := range d.Placement {
		if !ex.local[p.Task] {
			ex.remote[p.Task] = p.Address
		}
	}
	// every task is here or placed on a runner the exchange can reach; a task group is
	// never split over runners
	for _, g := range d.Pipeline.TaskGroups {
		here := 0
		for i := 0; i < g.Parallelism; i++ {
			id := contract.TaskID{Group: g.ID, Subtask: i}
			switch addr, remote := ex.remote[id]; {
			case ex.local[id]:
				here++
			case !remote:
				return nil, fmt.Errorf("task %s is placed nowhere", id)
			case addr == "" || r.cfg.Client == nil:
				return nil, fmt.Errorf("task %s runs on another runner, which this runner cannot reach: no exchange address", id)
			}
		}
		if here != 0 && here != g.Parallelism {
			return nil, fmt.Errorf("task group %d is split over runners", g.ID)
		}
	}
	ex.ctx, ex.cancel = context.WithCancel(r.baseCtx)
	// inboxes: one per local consumer task, fed by every input edge
	for _, g := range d.Pipeline.TaskGroups {
		if len(g.Inputs) == 0 || !ex.local[contract.TaskID{Group: g.ID}] {
			continue
		}
		for i := 0; i < g.Parallelism; i++ {
			expect := 0
			for _, eid := range g.Inputs {
				e := d.Pipeline.Edge(eid)
				if e.Partitioning == contract.PartitionForward {
					expect++
				} else {
					expect += d.Pipeline.Group(e.From).Parallelism
				}
			}
			ex.inboxes[contract.TaskID{Group: g.ID, Subtask: i}] = newInbox(expect)
		}
	}
	for _, g := range d.Pipeline.TaskGroups {
		for i := 0; i < g.Parallelism; i++ {
			if ex.local[contract.TaskID{Group: g.ID, Subtask: i}] {
				ex.tasks = append(ex.tasks, newTask(ex, g, i))
			}
		}
	}
	ex.acceptRemote()
	ex.reports = make(chan contract.TaskStatus, len(ex.tasks)*4)
	return ex, nil
}

// acceptRemote registers the local consumers of edges whose producers run elsewhere with the
// runner's exchange server: their batches, ends and failures go into the same inbox as
// local producers'.
func (ex *execution) acceptRemote() {
	srv := ex.r.cfg.Server
	if srv == nil {
		return
	}
	for _, g := range ex.d.Pipeline.TaskGroups {
		for _, eid := range g.Inputs {
			e := ex.d.Pipeline.Edge(eid)
			if ex.local[contract.TaskID{Group: e.From}] {
				continue // its producers are here
			}
			for i := 0; i < g.Parallelism; i++ {
				in := ex.inboxes[contract.TaskID{Group: g.ID, Subtask: i}]
				if in == nil {
					continue
				}
				unregister := srv.Accept(ex.d.Job.ID, ex.d.Pipeline.ID, ex.d.Epoch, eid, i,
					func(ctx context.Context, producer int, m exchange.Message) error {
						msg := message{batch: m.Batch, from: channelID(eid, producer)}
						switch {
						case m.Failed != nil:
							msg.err = fmt.Errorf("input from subtask %d of task group %d: %w", producer, e.From, m.Failed)
						case m.Marker != nil && m.Marker.Kind == markerSchemaChange:
							if msg.change, msg.err = changeOfMarker(m.Marker); msg.err != nil {
								msg.err = fmt.Errorf("input from subtask %d of task group %d: %w", producer, e.From, msg.err)
							}
						case m.Marker != nil:
							msg.barrier = m.Marker.ID
						}
						select {
						case in.ch <- msg:
							return nil
						case <-ctx.Done():
							return ctx.Err()
						case <-ex.ctx.Done():
							return ex.ctx.Err()
						}
					})
				ex.unregister = append(ex.unregister, unregister)
			}
		}
	}
}

// run builds and runs every task, reports their changes, and returns when all have ended.
func (ex *execution) run() {
	var wg sync.WaitGroup
	reporterDone := make(chan struct{})
	go ex.reportLoop(reporterDone)
	// source coordinators are built before the tasks so readers can register with them
	for _, g := range ex.d.Pipeline.TaskGroups {
		head := ex.vertices[g.Vertices[0]]
		if head.Kind != contract.SourceVertex || !ex.local[contract.TaskID{Group: g.ID}] {
			continue
		}
		c, err := newSplitCoordinator(ex, head, g)
		if err != nil {
			for _, t := range ex.tasks {
				t.fail(fmt.Errorf("%s: split enumerator: %w", head.Where, err))
			}
			ex.finishReports(reporterDone)
			return
		}
		ex.coords[head.ID] = c
	}
	for _, c := range ex.coords {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.run(ex.ctx); err != nil && ex.ctx.Err() == nil {
				ex.r.log.Error("split enumerator failed", "source", c.vertex.Where, "error", err)
				ex.failAll(fmt.Errorf("%s: split enumerator: %w", c.vertex.Where, err))
			}
		}()
	}
	var tasksWG sync.WaitGroup
	for _, t := range ex.tasks {
		tasksWG.Add(1)
		go func() {
			defer tasksWG.Done()
			t.run()
		}()
	}
	tasksWG.Wait()
	for _, u := range ex.unregister {
		u()
	}
	ex.cancel() // stops the coordinators
	wg.Wait()
	ex.finishReports(reporterDone)
}

func (ex *execution) finishReports(done chan struct{}) {
	close(ex.reports)
	<-done
}

// failAll ends the pipeline here after a failure: the failing task reports FAILED, the others
// are canceled, so nothing waits on a task that will never send.
func (ex *execution) failAll(err error) {
	if len(ex.tasks) > 0 {
		ex.markFailed(ex.tasks[0], err)
	}
	ex.cancel()
}

// statusChanged queues a task's new state for the next report.
func (ex *execution) statusChanged(s contract.TaskStatus) {
	ex.reports <- s
}

// reportLoop coalesces task changes: it waits for one, gathers what follows within a short
// window, and sends them all as one report, so a runner sends one signal per burst of
// changes, never one per task.
func (ex *execution) reportLoop(done chan struct{}) {
	defer close(done)
	for {
		first, ok := <-ex.reports
		if !ok {
			return
		}
		batch := []contract.TaskStatus{first}
		timer := time.NewTimer(50 * time.Millisecond)
	gather:
		for {
			select {
			case s, ok := <-ex.reports:
				if !ok {
					break gather
				}
				batch = append(batch, s)
			case <-timer.C:
				break gather
			}
		}
		timer.Stop()
		ex.r.report(ex.d.ReportTo, contract.TaskReport{RunnerID: ex.r.cfg.ID, Epoch: ex.d.Epoch, Tasks: latest(batch)})
	}
}

// latest keeps the last status of each task, in first-seen order.
func latest(in []contract.TaskStatus) []contract.TaskStatus {
	idx := map[contract.TaskID]int{}
	var out []contract.TaskStatus
	for _, s := range in {
		if i, ok := idx[s.Task]; ok {
			out[i] = s
			continue
		}
		idx[s.Task] = len(out)
		out = append(out, s)
	}
	return out
}

// ---- exchange between task groups on this runner ----

type message struct {
	batch   *row.Batch // nil for end of stream (when barrier is 0)
	barrier int64      // a checkpoint barrier from the producer
	err     error      // a remote producer's channel broke
	from    int        // the producer channel: edge and producer subtask
	// change is a schema change from the producer, in order with its batches
	// (schemachange.go); batch is nil then too
	change *connector.SchemaChange
}

// channelID names one producer's channel into a consumer: its edge and subtask.
func channelID(edge, producer int) int { return edge<<20 | producer }

// inbox is a consumer task's bounded input queue, fed by every producer of its input edges.
type inbox struct {
	ch     chan message
	expect int // ends of stream to wait for
}

const inboxDepth = 4

func newInbox(expect int) *inbox {
	return &inbox{ch: make(chan message, inboxDepth), expect: expect}
}

// outlet sends one task's output batches over its output edges.
type outlet struct {
	edges []*edgeOut
}

type edgeOut struct {
	part    contract.Partitioning
	targets []target // forward: just the one
	next    int
	hash    *hasher // hash partitioning only
}

// target is where an edge's batches for one consumer subtask go: its inbox on this runner,
// or a channel of the exchange to another runner.
type target interface {
	// put hands the batch over; it takes ownership.
	put(ctx context.Context, b *row.Batch) error
	// mark sends a checkpoint barrier, in order with the batches.
	mark(ctx context.Context, id int64) error
	end(ctx context.Context) error
}

type localTarget struct {
	in   *inbox
	from int
}

func (l localTarget) send(ctx context.Context, m message) error {
	m.from = l.from
	select {
	case l.in.ch <- m:
		return nil
	case <-ctx.Done():
		if m.batch != nil {
			m.batch.Release()
		}
		return ctx.Err()
	}
}

func (l localTarget) put(ctx context.Context, b *row.Batch) error {
	return l.send(ctx, message{batch: b})
}

func (l localTarget) mark(ctx context.Context, id int64) error {
	return l.send(ctx, message{barrier: id})
}

func (l localTarget) end(ctx context.Context) error { return l.send(ctx, message{}) }

type remoteTarget struct{ s *exchange.Sender }

func (r remoteTarget) put(ctx context.Context, b *row.Batch) error {
	err := r.s.Send(ctx, b)
	b.Release()
	return err
}

func (r remoteTarget) mark(ctx context.Context, id int64) error {
	return r.s.Mark(ctx, exchange.Marker{ID: id, Kind: "barrier"})
}

func (r remoteTarget) end(ctx context.Context) error { return r.s.Close(ctx) }

func (ex *execution) outletFor(g contract.TaskGroup, subtask int) (*outlet, error) {
	o := &outlet{}
	for _, eid := range g.Outputs {
		e := ex.d.Pipeline.Edge(eid)
		to := ex.d.Pipeline.Group(e.To)
		eo := &edgeOut{part: e.Partitioning}
		if e.Partitioning == contract.PartitionHash {
			eo.hash = newHasher(ex.vertices[e.FromVertex], e.KeyFields)
		}
		first, last := 0, to.Parallelism
		if e.Partitioning == contract.PartitionForward {
			first, last = subtask, subtask+1
		} else {
			eo.next = subtask % to.Parallelism
		}
		for i := first; i < last; i++ {
			id := contract.TaskID{Group: to.ID, Subtask: i}
			if ex.local[id] {
				eo.targets = append(eo.targets, localTarget{in: ex.inboxes[id], from: channelID(eid, subtask)})
				continue
			}
			s, err := ex.r.cfg.Client.Open(ex.ctx, ex.remote[id], exchange.Key{Job: ex.d.Job.ID, Pipeline: ex.d.Pipeline.ID,
				Epoch: ex.d.Epoch, Edge: eid, Producer: subtask, Consumer: i})
			if err != nil {
				return nil, err
			}
			eo.targets = append(eo.targets, remoteTarget{s})
		}
		o.edges = append(o.edges, eo)
	}
	return o, nil
}

// send hands the batch on; with several output edges each gets its own copy. Sending blocks
// while the consumer's inbox is full: that is the backpressure.
func (o *outlet) send(ctx context.Context, b *row.Batch) error {
	for i, e := range o.edges {
		out := b
		if i < len(o.edges)-1 {
			out = b.Clone()
		}
		var dest target
		switch e.part {
		case contract.PartitionHash:
			if len(e.targets) == 1 { // one consumer: nothing to route
				if err := e.targets[0].put(ctx, out); err != nil {
					return err
				}
				continue
			}
			parts := e.hash.split(out, len(e.targets))
			out.Release()
			for j, p := range parts {
				if p == nil {
					continue
				}
				if err := e.targets[j].put(ctx, p); err != nil {
					for _, rest := range parts[j+1:] {
						rest.Release()
					}
					return err
				}
			}
			continue
		case contract.PartitionBroadcast:
			for j, t := range e.targets {
				c := out
				if j < len(e.targets)-1 {
					c = out.Clone()
				}
				if err := t.put(ctx, c); err != nil {
					return err
				}
			}
			continue
		case contract.PartitionForward:
			dest = e.targets[0]
		default:
			dest = e.targets[e.next]
			e.next = (e.next + 1) % len(e.targets)
		}
		if err := dest.put(ctx, out); err != nil {
			return err
		}
	}
	return nil
}

// mark sends a checkpoint barrier to every consumer this task may send to.
func (o *outlet) mark(ctx context.Context, id int64) error {
	for _, e := range o.edges {
		for _, t := range e.targets {
			if err := t.mark(ctx, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// close sends end of stream to every consumer this task may have sent to.
func (o *outlet) close(ctx context.Context) error {
	for _, e := range o.edges {
		for _, t := range e.targets {
			if err := t.end(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// ---- split coordination ----

// splitCoordinator runs a source's enumerator and hands its splits to the reader tasks.
type splitCoordinator struct {
	ex      *execution
	vertex  *planvertex.Vertex
	enum    connector.Enumerator
	par     int
	events  chan coordEvent
	mailbox []*splitMailbox
	mu      sync.Mutex
	readers []int
}

type coordEvent struct {
	kind   int // 0 register, 1 request, 2 snapshot
	reader int
	id     int64
	reply  chan snapshotReply
}

type snapshotReply struct {
	state []byte
	err   error
}

// snapshot asks the enumerator for its state at checkpoint id.
func (c *splitCoordinator) snapshot(ctx context.Context, id int64) ([]byte, error) {
	reply := make(chan snapshotReply, 1)
	select {
	case c.events <- coordEvent{kind: 2, id: id, reply: reply}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-reply:
		return r.state, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// splitMailbox carries assignments from the coordinator to one reader.
type splitMailbox struct {
	mu     sync.Mutex
	splits []connector.Split
	noMore bool
	notify chan struct{}
}

func (m *splitMailbox) take() ([]connector.Split, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.splits
	m.splits = nil
	return s, m.noMore
}

func newSplitCoordinator(ex *execution, v *planvertex.Vertex, g contract.TaskGroup) (*splitCoordinator, error) {
	par := g.Parallelism
	// the enumerator's state is kept with subtask 0 of its source
	var state []byte
	st, err := ex.restored(ex.ctx, contract.TaskID{Group: g.ID})
	if err != nil {
		return nil, err
	}
	if st != nil {
		state = st.Enumerator
	}
	src, err := v.Source(ex.job, par)
	if err != nil {
		return nil, err
	}
	c := &splitCoordinator{ex: ex, vertex: v, par: par, events: make(chan coordEvent, par*4+4)}
	for i := 0; i < par; i++ {
		c.mailbox = append(c.mailbox, &splitMailbox{notify: make(chan struct{}, 1)})
	}
	enum, err := src.CreateEnumerator(c, state)
	if err != nil {
		return nil, err
	}
	c.enum = enum
	return c, nil
}

func (c *splitCoordinator) Parallelism() int { return c.par }

func (c *splitCoordinator) RegisteredReaders() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.readers...)
}

func (c *splitCoordinator) Assign(reader int, splits ...connector.Split) {
	if reader < 0 || reader >= c.par {
		return
	}
	m := c.mailbox[reader]
	m.mu.Lock()
	m.splits = append(m.splits, splits...)
	m.mu.Unlock()
	select {
	case m.notify <- struct{}{}:
	default:
	}
}

func (c *splitCoordinator) SignalNoMoreSplits(reader int) {
	if reader < 0 || reader >= c.par {
		return
	}
	m := c.mailbox[reader]
	m.mu.Lock()
	m.noMore = true
	m.mu.Unlock()
	select {
	case m.notify <- struct{}{}:
	default:
	}
}

func (c *splitCoordinator) register(reader int) {
	select {
	case c.events <- coordEvent{kind: 0, reader: reader}:
	case <-c.ex.ctx.Done():
	}
}

func (c *splitCoordinator) request(reader int) {
	select {
	case c.events <- coordEvent{kind: 1, reader: reader}:
	case <-c.ex.ctx.Done():
	}
}

func (c *splitCoordinator) run(ctx context.Context) error {
	defer c.enum.Close()
	if err := c.enum.Open(ctx); err != nil {
		return err
	}
	if err := c.enum.Run(ctx); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-c.events:
			var err error
			switch ev.kind {
			case 0:
				c.mu.Lock()
				c.readers = append(c.readers, ev.reader)
				c.mu.Unlock()
				err = c.enum.RegisterReader(ev.reader)
			case 1:
				err = c.enum.HandleSplitRequest(ev.reader)
			case 2:
				state, serr := c.enum.Snapshot(ev.id)
				ev.reply <- snapshotReply{state: state, err: serr}
			}
			if err != nil {
				return err
			}
		}
	}
}

// markFailed records the first task that failed; later failures are consequences.
func (ex *execution) markFailed(t *task, err error) {
	ex.failMu.Lock()
	if ex.failed == nil {
		ex.failed = t
	}
	ex.failMu.Unlock()
	t.setFailure(err)
}

func (ex *execution) failedTask() *task {
	ex.failMu.Lock()
	defer ex.failMu.Unlock()
	return ex.failed
}

// acked records a task's acknowledgement of a checkpoint; when every task of the pipeline
// on this runner acknowledged it, the runner sends one report with all of them.
func (ex *execution) acked(id int64, a contract.TaskAck) {
	ex.ackMu.Lock()
	if id <= ex.declined {
		ex.ackMu.Unlock()
		return
	}
	if ex.acks == nil {
		ex.acks = map[int64][]contract.TaskAck{}
	}
	ex.acks[id] = append(ex.acks[id], a)
	all := ex.acks[id]
	done := len(all) == len(ex.tasks)
	if done {
		delete(ex.acks, id)
	}
	ex.ackMu.Unlock()
	if done {
		ex.r.ledger.checkpointAcked(ex, id, time.Now())
		go func() {
			if ex.r.report(ex.d.ReportTo, contract.TaskReport{RunnerID: ex.r.cfg.ID, Epoch: ex.d.Epoch,
				Checkpoint: &contract.CheckpointAck{ID: id, Tasks: all}}) {
				ex.delivered(id, all)
			}
		}()
	}
}

// decline reports at once that checkpoint id cannot complete here, with why and the
// acknowledgements the runner's other tasks gave so far, so the coordinator aborts it without
// waiting for its timeout. The first decline of a checkpoint is sent; the rest are logged.
func (ex *execution) decline(id int64, reason string) {
	ex.ackMu.Lock()
	if id <= ex.declined {
		ex.ackMu.Unlock()
		return
	}
	ex.declined = id
	acks := ex.acks[id]
	for k := range ex.acks {
		if k <= id {
			delete(ex.acks, k) // none of them can complete any more
		}
	}
	ex.ackMu.Unlock()
	go func() {
		if ex.r.report(ex.d.ReportTo, contract.TaskReport{RunnerID: ex.r.cfg.ID, Epoch: ex.d.Epoch,
			Checkpoint: &contract.CheckpointAck{ID: id, Tasks: acks, Declined: reason}}) {
			ex.delivered(id, acks)
		}
	}()
}

// delivered tells the tasks whose acknowledgements of checkpoint id reached the pipeline.
func (ex *execution) delivered(id int64, acks []contract.TaskAck) {
	for _, t := range ex.tasks {
		for _, a := range acks {
			if a.Task == t.id {
				t.delivered(id)
			}
		}
	}
}

// trigger starts checkpoint id at the execution's source tasks.
func (ex *execution) trigger(id, completed int64) error {
	ex.r.ledger.triggered(ex, id, completed, time.Now())
	for _, t := range ex.tasks {
		if t.barriers == nil {
			continue
		}
		for {
			old := t.completed.Load()
			if completed <= old || t.completed.CompareAndSwap(old, completed) {
				break
			}
		}
		select {
		case t.barriers <- id:
		default:
			return fmt.Errorf("task %s has checkpoints queued; checkpoint %d not started", t.id, id)
		}
	}
	return nil
}
