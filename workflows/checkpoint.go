package workflows

import (
	"fmt"
	"sort"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// DefaultRetained is how many completed checkpoints a pipeline keeps when its env says
// none (contract holds the checkpoint defaults).
const DefaultRetained = contract.DefaultRetainedCheckpoints

// coordinator is a pipeline's checkpoint coordinator: a timer triggers checkpoints at the
// runners hosting source tasks, one at a time; the runners' acknowledgements complete it;
// then the manifest is written and the sinks commit.
type coordinator struct {
	pr       *pipelineRun
	interval time.Duration
	timeout  time.Duration
	// nextID is the id the next checkpoint gets; the final commit of a bounded job uses it.
	nextID    int64
	completed int64
	// completedAt is when the latest checkpoint of this run completed (for the details).
	completedAt time.Time
	failures    int
	tolerable   int

	timer       workflow.Future
	cancelTimer workflow.CancelFunc
	pending     *pendingCheckpoint

	// savepointWanted: the next checkpoint is a savepoint; savepointDone: it completed.
	savepointWanted, savepointDone bool

	// carried holds the commit infos of acknowledgements whose checkpoint did not complete
	// (it expired, failed, arrived late or was in flight when the tasks ended): the writers
	// prepared those transactions and went on, so they are committed with the next
	// checkpoint that completes, or by the final commit of a bounded pipeline. A failover
	// drops them: the restored writers abort what was prepared after the checkpoint they
	// restore, and the rows are read again.
	carried []contract.CommitInfo
	// inManifest: how many of carried, from the first, a written manifest holds: its
	// checkpoint's commit failed after the commit point, so a restore from the store may
	// still commit them; they are never aborted.
	inManifest int
	// carry: this run keeps such infos (histories from before it dropped them); asked once.
	carry, carryKnown bool
	// decline: this run aborts a checkpoint a runner declined at once (histories from before
	// waited for its timeout); asked once.
	decline, declineKnown bool
	// tickExpiry: checkpoints expire at the interval timer's ticks, with no timer of their
	// own, when the timeout is long beside the interval (histories from before started one
	// a checkpoint); asked once.
	tickExpiry, tickExpiryKnown bool
}

type pendingCheckpoint struct {
	id        int64
	savepoint bool
	acks      map[contract.TaskID]contract.TaskAck
	// deadline is when the checkpoint expires; expired fires then, or nil: the interval
	// timer's first tick at or past the deadline expires it.
	deadline time.Time
	expired  workflow.Future
	cancel   workflow.CancelFunc
}

func newCoordinator(pr *pipelineRun) *coordinator {
	c := &coordinator{pr: pr, nextID: 1, timeout: contract.DefaultCheckpointTimeout}
	env := pr.in.Env
	switch {
	case env.CheckpointInterval > 0:
		c.interval = time.Duration(env.CheckpointInterval) * time.Millisecond
	case env.Mode == contract.Streaming:
		c.interval = contract.DefaultStreamingCheckpointInterval
	}
	if env.CheckpointTimeout > 0 {
		c.timeout = time.Duration(env.CheckpointTimeout) * time.Millisecond
	}
	c.tolerable = env.TolerableCheckpointFailures
	return c
}

// requestSavepoint takes a savepoint now, or right after the checkpoint in flight.
func (c *coordinator) requestSavepoint(ctx workflow.Context) {
	c.savepointWanted = true
	c.trigger(ctx)
}

// arm adds the coordinator's timers to the pipeline's selector.
func (c *coordinator) arm(ctx workflow.Context, sel workflow.Selector) {
	if p := c.pending; p != nil && p.expired != nil {
		sel.AddFuture(p.expired, func(f workflow.Future) {
			if f.Get(ctx, nil) != nil || c.pending != p {
				return // canceled: the checkpoint completed
			}
			c.carryAcks(ctx, p.acks)
			c.abort(ctx, p.id, fmt.Sprintf("checkpoint %d expired before completing (timeout %s)", p.id, c.timeout))
		})
	}
	if c.interval <= 0 {
		return
	}
	if c.timer == nil {
		tctx, cancel := workflow.WithCancel(ctx)
		c.timer, c.cancelTimer = workflow.NewTimer(tctx, c.interval), cancel
	}
	sel.AddFuture(c.timer, func(workflow.Future) {
		c.timer = nil
		if p := c.pending; p != nil && p.expired == nil && !workflow.Now(ctx).Before(p.deadline) {
			c.carryAcks(ctx, p.acks)
			c.abort(ctx, p.id, fmt.Sprintf("checkpoint %d expired before completing (timeout %s)", p.id, c.timeout))
		}
		c.trigger(ctx)
	})
}

// tickExpiryShare: checkpoints expire at the interval timer's ticks when the interval is at
// most this part of the timeout, so one expires at most a tenth of its timeout late.
const tickExpiryShare = 10

// ticksExpire reports whether checkpoints expire at the interval timer's ticks: a timer
// started and cancelled a checkpoint is a Temporal action and two history events, a fifth
// of a checkpoint's cost with a 1 s interval.
func (c *coordinator) ticksExpire(ctx workflow.Context) bool {
	if c.interval <= 0 || c.interval*tickExpiryShare > c.timeout {
		return false
	}
	if !c.tickExpiryKnown {
		c.tickExpiry = workflow.GetVersion(ctx, "checkpoint-expiry-on-interval-tick", workflow.DefaultVersion, 1) == 1
		c.tickExpiryKnown = true
	}
	return c.tickExpiry
}

// trigger starts the next checkpoint when none is in flight and every task runs.
func (c *coordinator) trigger(ctx workflow.Context) {
	if c.pending != nil {
		return
	}
	for _, t := range c.pr.tasks {
		if t.State != contract.TaskRunning {
			return // a finishing pipeline takes its final checkpoint when its tasks close
		}
	}
	id := c.nextID
	c.nextID++
	c.pending = c.expiring(ctx, id, c.savepointWanted, workflow.Now(ctx).Add(c.timeout))
	c.stats().Begin(id, c.savepointWanted, workflow.Now(ctx))
	for _, rid := range c.sourceRunners() {
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			TaskQueue:              c.pr.queues[rid],
			ScheduleToStartTimeout: 30 * time.Second,
			StartToCloseTimeout:    30 * time.Second,
			RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 2},
		})
		// the trigger returns at once; its failure shows as a checkpoint that expires
		workflow.ExecuteActivity(actx, contract.TriggerCheckpointActivity, contract.TriggerRequest{
			JobID: c.pr.in.JobID, Pipeline: c.pr.in.Pipeline.ID, Epoch: c.pr.epoch, CheckpointID: id, Completed: c.completed})
	}
}

// expiring is a checkpoint in flight that expires at its deadline: by a timer of its own
// (at once when the deadline has passed), or at the interval timer's first tick past it.
func (c *coordinator) expiring(ctx workflow.Context, id int64, savepoint bool, deadline time.Time) *pendingCheckpoint {
	if c.ticksExpire(ctx) {
		return &pendingCheckpoint{id: id, savepoint: savepoint, acks: map[contract.TaskID]contract.TaskAck{},
			deadline: deadline, cancel: func() {}}
	}
	ectx, cancel := workflow.WithCancel(ctx)
	return &pendingCheckpoint{id: id, savepoint: savepoint, acks: map[contract.TaskID]contract.TaskAck{},
		deadline: deadline, expired: workflow.NewTimer(ectx, deadline.Sub(workflow.Now(ctx))), cancel: cancel}
}

// resumePending takes over the checkpoint a previous run had in flight, with the
// acknowledgements it had and its deadline (a full timeout when the previous run carried
// none).
func (c *coordinator) resumePending(ctx workflow.Context, p *contract.PendingResume) {
	deadline := p.Deadline
	if deadline.IsZero() {
		deadline = workflow.Now(ctx).Add(c.timeout)
	}
	c.pending = c.expiring(ctx, p.ID, p.Savepoint, deadline)
	for _, a := range p.Acks {
		c.pending.acks[a.Task] = a
	}
	c.savepointWanted = p.Savepoint
}

// sourceRunners lists, sorted, the runners hosting source tasks.
func (c *coordinator) sourceRunners() []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range c.pr.in.Pipeline.TaskGroups {
		if !c.isSource(g) {
			continue
		}
		for i := 0; i < g.Parallelism; i++ {
			rid := c.pr.runnerOf[contract.TaskID{Group: g.ID, Subtask: i}]
			if !seen[rid] {
				seen[rid] = true
				out = append(out, rid)
			}
		}
	}
	sort.Strings(out)
	return out
}

func (c *coordinator) isSource(g contract.TaskGroup) bool {
	for _, v := range c.pr.in.Vertices {
		if v.ID == g.Vertices[0] {
			return v.Kind == contract.SourceVertex
		}
	}
	return false
}

// acked takes in a runner's acknowledgements; the last one completes the checkpoint, a
// decline aborts it.
func (c *coordinator) acked(ctx workflow.Context, r contract.TaskReport) {
	p := c.pending
	if r.Epoch != c.pr.epoch {
		return // stale: an attempt given up, whose transactions its successor aborts
	}
	if p == nil || r.Checkpoint.ID != p.id {
		// late: the checkpoint expired, failed or was dropped; what it prepared is carried
		if r.Checkpoint.ID < c.nextID {
			c.carryTasks(ctx, r.Checkpoint.Tasks)
		}
		return
	}
	for _, a := range r.Checkpoint.Tasks {
		p.acks[a.Task] = a
		if t, ok := c.pr.tasks[a.Task]; ok && !t.State.Terminal() {
			t.Counters = a.Counters
		}
	}
	if r.Checkpoint.Declined != "" && c.declines(ctx) {
		// a task's state could not be stored: the checkpoint cannot complete, and what the
		// others prepared for it goes with the next one
		c.carryAcks(ctx, p.acks)
		c.abort(ctx, p.id, fmt.Sprintf("checkpoint %d declined by runner %s: %s", p.id, r.RunnerID, r.Checkpoint.Declined))
		return
	}
	if len(p.acks) < len(c.pr.tasks) {
		return
	}
	c.pending = nil
	p.cancel()
	if persisted, err := c.complete(ctx, p); err != nil {
		c.carryAcks(ctx, p.acks)
		if persisted {
			c.inManifest = len(c.carried) // the manifest holds everything carried so far
		}
		c.abort(ctx, p.id, fmt.Sprintf("checkpoint %d: %s", p.id, causeOf(err)))
		return
	}
	c.carried, c.inManifest = nil, 0
	c.completed, c.completedAt = p.id, workflow.Now(ctx)
	var bytes int64
	for _, a := range p.acks {
		bytes += a.StateBytes
	}
	c.stats().Complete(p.id, c.completedAt, bytes, len(p.acks))
	c.failures = 0
	if p.savepoint {
		c.savepointDone = true
	} else if c.savepointWanted {
		c.trigger(ctx) // a savepoint was asked for while this checkpoint ran
	}
}

// complete writes the manifest (the commit point), then runs the sinks' committers;
// persisted says whether the manifest was written.
func (c *coordinator) complete(ctx workflow.Context, p *pendingCheckpoint) (persisted bool, err error) {
	m := contract.Manifest{Job: c.pr.in.JobID, Pipeline: c.pr.in.Pipeline.ID, Checkpoint: p.id, Savepoint: p.savepoint,
		Completed: workflow.Now(ctx), Commits: map[int][][]byte{}}
	m.Counters.Add(c.pr.status.Restored)
	commits := append([]contract.CommitInfo(nil), c.carried...)
	for _, ci := range c.carried {
		m.Commits[ci.Vertex] = append(m.Commits[ci.Vertex], ci.Info)
	}
	for _, t := range c.pr.sortedTasks() {
		a := p.acks[t.Task]
		m.Counters.Add(a.Counters)
		m.Tasks = append(m.Tasks, contract.ManifestTask{Task: t.Task.String(), Key: a.StateKey})
		for _, ci := range a.Commits {
			m.Commits[ci.Vertex] = append(m.Commits[ci.Vertex], ci.Info)
			commits = append(commits, ci)
		}
	}
	retain := c.pr.in.Env.CheckpointRetained
	if retain < 1 {
		retain = DefaultRetained
	}
	if err := persist(ctx, contract.PersistInput{Manifest: m, Retain: retain}).Get(ctx, nil); err != nil {
		return false, err
	}
	return true, c.pr.commitInfos(ctx, p.id, false, commits)
}

// persistTimeout bounds one attempt to write a manifest.
const persistTimeout = time.Minute

// persist writes a checkpoint's manifest. It is a local activity on the worker running the
// pipeline: a write of a few kilobytes that is idempotent (the same manifest under the same
// name), so it needs no activity task of its own, no dispatch through the server and no
// workflow task of its own after it; the commit is scheduled in the workflow task the last
// acknowledgement started. Its result is still recorded before the commit runs, so the
// manifest is the commit point as before. Histories before this change ran it as an
// activity and replay as such.
func persist(ctx workflow.Context, in contract.PersistInput) workflow.Future {
	retry := &temporal.RetryPolicy{MaximumAttempts: 5}
	if workflow.GetVersion(ctx, "persist-local-activity", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: persistTimeout, RetryPolicy: retry})
		return workflow.ExecuteActivity(actx, contract.PersistCheckpointActivity, in)
	}
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: persistTimeout, RetryPolicy: retry})
	return workflow.ExecuteLocalActivity(lctx, contract.PersistCheckpointActivity, in)
}

// interrupt drops the checkpoint in flight and the timer when the tasks stop; it is not a
// checkpoint failure. What its acknowledgements prepared is carried: tasks that ended have
// it committed by the final commit.
func (c *coordinator) interrupt(ctx workflow.Context) {
	if c.pending != nil {
		c.pending.cancel()
		c.carryAcks(ctx, c.pending.acks)
		c.stats().Discard(c.pending.id, workflow.Now(ctx))
		c.pending = nil
	}
	if c.cancelTimer != nil {
		c.cancelTimer()
		c.timer, c.cancelTimer = nil, nil
	}
}

// stats is the pipeline's checkpoint history, which its status shows.
func (c *coordinator) stats() *contract.CheckpointStats {
	if c.pr.status.Checkpoints == nil {
		c.pr.status.Checkpoints = &contract.CheckpointStats{}
	}
	return c.pr.status.Checkpoints
}

// restoredFrom continues numbering after the checkpoint a failover restores.
func (c *coordinator) restoredFrom(id int64) {
	c.completed = id
	c.nextID = max(c.nextID, id+1)
}

// abort gives up checkpoint id, the one in flight; past the tolerable failures the pipeline
// fails.
func (c *coordinator) abort(ctx workflow.Context, id int64, reason string) {
	if c.pending != nil {
		c.pending.cancel()
		c.pending = nil
	}
	c.stats().Fail(id, workflow.Now(ctx), reason)
	c.failures++
	if (c.failures > c.tolerable || c.savepointWanted) && c.pr.failure == "" {
		c.pr.failure = reason // a savepoint that fails fails the stop
	}
}

// carryAcks carries the commit infos of a checkpoint's acknowledgements, in task order.
func (c *coordinator) carryAcks(ctx workflow.Context, acks map[contract.TaskID]contract.TaskAck) {
	if len(acks) == 0 {
		return
	}
	ordered := make([]contract.TaskAck, 0, len(acks))
	for _, t := range c.pr.sortedTasks() {
		if a, ok := acks[t.Task]; ok {
			ordered = append(ordered, a)
		}
	}
	c.carryTasks(ctx, ordered)
}

// carryTasks carries the commit infos of acknowledgements whose checkpoint will not
// complete.
func (c *coordinator) carryTasks(ctx workflow.Context, acks []contract.TaskAck) {
	n := 0
	for _, a := range acks {
		n += len(a.Commits)
	}
	if n == 0 || !c.carries(ctx) {
		return
	}
	for _, a := range acks {
		c.carried = append(c.carried, a.Commits...)
	}
}

// carries reports whether this run carries the commit infos of checkpoints that do not
// complete; before, they were dropped, and the rows of those transactions were lost
// unless a failover restored them.
func (c *coordinator) carries(ctx workflow.Context) bool {
	if !c.carryKnown {
		c.carry = workflow.GetVersion(ctx, "carry-uncompleted-commits", workflow.DefaultVersion, 1) == 1
		c.carryKnown = true
	}
	return c.carry
}

// declines reports whether this run aborts a declined checkpoint when the decline arrives;
// before, a decline was taken as the acknowledgements it carries and the checkpoint expired
// at its timeout.
func (c *coordinator) declines(ctx workflow.Context) bool {
	if !c.declineKnown {
		c.decline = workflow.GetVersion(ctx, "abort-declined-checkpoint", workflow.DefaultVersion, 1) == 1
		c.declineKnown = true
	}
	return c.decline
}

// failedOver forgets what the given-up attempt prepared: its successor's writers abort it.
func (c *coordinator) failedOver() { c.carried, c.inManifest = nil, 0 }

// abortable are the carried commit infos no manifest holds: prepared writes of checkpoints
// that never completed, and never will once the pipeline stops.
func (c *coordinator) abortable() []contract.CommitInfo {
	if c.inManifest >= len(c.carried) {
		return nil
	}
	return c.carried[c.inManifest:]
}
