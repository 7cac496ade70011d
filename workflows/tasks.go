package workflows

import (
	"fmt"
	"sort"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// watch is the checkpoint loop: it follows the task reports until every task ended, a task
// failed or the pipeline is canceled (it returns true then), taking checkpoints on the way
// and a savepoint when the job asks for one. Past PipelineEventsBeforeContinue events (or
// when Temporal suggests it) it stops to continue as new, well before Temporal's limits
// (10,000 signals, 51,200 events).
func (pr *pipelineRun) watch(ctx workflow.Context) (canceled bool) {
	events := 0
	handOver := false
	for !pr.allEnded() && !pr.cp.savepointDone {
		if !pr.cp.savepointWanted && (events >= pr.tunables.PipelineEventsBeforeContinue || workflow.GetInfo(ctx).GetContinueAsNewSuggested()) {
			pr.continueAsNew, handOver = true, true
			break
		}
		events++
		sel := workflow.NewSelector(ctx)
		pr.cp.arm(ctx, sel)
		pr.armProgress(ctx, sel)
		pr.receiveSignals(ctx, sel)
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) { canceled = true })
		sel.Select(ctx)
		pr.showDetails(ctx)
		if canceled || pr.failure != "" {
			break
		}
	}
	if !handOver || !carriesCheckpoint(ctx) {
		pr.cp.interrupt(ctx)
	}
	return canceled
}

// carriesCheckpoint: the checkpoint in flight when the run continues as new goes on in the
// new run, with the acknowledgements it has so far and its deadline (before, it was dropped
// without a word).
func carriesCheckpoint(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, "continue-as-new-keeps-checkpoint", workflow.DefaultVersion, 1) == 1
}

// receiveSignals adds the pipeline's signal channels to a selector, each with its handler.
func (pr *pipelineRun) receiveSignals(ctx workflow.Context, sel workflow.Selector) {
	sel.AddReceive(pr.signals.savepoints, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		pr.onSavepoint(ctx)
	})
	sel.AddReceive(pr.signals.reports, pr.takeReport(ctx))
	sel.AddReceive(pr.signals.lost, pr.takeRunnerLost(ctx))
}

// takeReport receives a task-report signal for onReport.
func (pr *pipelineRun) takeReport(ctx workflow.Context) func(workflow.ReceiveChannel, bool) {
	return func(c workflow.ReceiveChannel, _ bool) {
		var r contract.TaskReport
		c.Receive(ctx, &r)
		pr.onReport(ctx, r)
	}
}

// takeRunnerLost receives a runner-lost signal for onRunnerLost.
func (pr *pipelineRun) takeRunnerLost(ctx workflow.Context) func(workflow.ReceiveChannel, bool) {
	return func(c workflow.ReceiveChannel, _ bool) {
		var l contract.RunnerLost
		c.Receive(ctx, &l)
		pr.onRunnerLost(l)
	}
}

// drain applies the signals already delivered, so none is left behind when the run
// continues as new: every channel of pipelineSignals, each with its handler. With every
// unset it takes reports and lost-runner notices only, as runs recorded before did. A
// canceled pipeline stops draining: it stops its tasks in this run and takes their reports
// while they stop.
func (pr *pipelineRun) drain(ctx workflow.Context, every bool) {
	for !every || ctx.Err() == nil {
		var r contract.TaskReport
		if pr.signals.reports.ReceiveAsync(&r) {
			pr.onReport(ctx, r)
			continue
		}
		var l contract.RunnerLost
		if pr.signals.lost.ReceiveAsync(&l) {
			pr.onRunnerLost(l)
			continue
		}
		if every && pr.signals.savepoints.ReceiveAsync(nil) {
			pr.onSavepoint(ctx)
			continue
		}
		return
	}
}

// onSavepoint handles the savepoint signal: a savepoint now, or right after the checkpoint
// in flight; the pipeline stops once it is complete.
func (pr *pipelineRun) onSavepoint(ctx workflow.Context) {
	pr.status.State = contract.JobDoingSavepoint
	pr.cp.requestSavepoint(ctx)
}

// onReport handles the task-report signal: a checkpoint's acknowledgements go to the
// coordinator, task changes to the tasks.
func (pr *pipelineRun) onReport(ctx workflow.Context, r contract.TaskReport) {
	if r.Checkpoint != nil {
		pr.cp.acked(ctx, r)
		return
	}
	pr.apply(r)
}

// onRunnerLost handles the runner-lost signal: the tasks of a lost runner failed, since
// they cannot report any more, and nothing is sent to it.
func (pr *pipelineRun) onRunnerLost(l contract.RunnerLost) {
	if pr.lostRunners == nil {
		pr.lostRunners = map[string]bool{}
	}
	pr.lostRunners[l.RunnerID] = true
	for _, t := range pr.sortedTasks() {
		if pr.runnerOf[t.Task] == l.RunnerID && !t.State.Terminal() {
			t.State, t.Error = contract.TaskFailed, fmt.Sprintf("runner %s was lost: %s", l.RunnerID, l.Reason)
			if pr.failure == "" {
				pr.failure = fmt.Sprintf("task %s: %s", t.Task, t.Error)
			}
		}
	}
}

// apply records a runner's report of task changes; reports of another epoch are stale and
// ignored. The first failure is the pipeline's.
func (pr *pipelineRun) apply(r contract.TaskReport) {
	if r.Epoch != pr.epoch {
		return
	}
	for _, s := range r.Tasks {
		cur, ok := pr.tasks[s.Task]
		if !ok || cur.State.Terminal() {
			continue
		}
		s.Runner = r.RunnerID
		*cur = s
		if s.State == contract.TaskFailed && pr.failure == "" {
			pr.failure = fmt.Sprintf("task %s on runner %s: %s", s.Task, r.RunnerID, s.Error)
			pr.permanent = s.Permanent
		}
	}
}

// halt cancels the pipeline's tasks on every runner and waits a bounded time for them to
// confirm. It returns the failure that stopped the pipeline ("" for a cancel): failures
// reported while tasks are being canceled are consequences (a producer whose consumer went
// first), not causes. A runner declared lost meanwhile counts its tasks as stopped at once
// (it fences itself) rather than being waited for.
func (pr *pipelineRun) halt(ctx workflow.Context) string {
	cause := pr.failure
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	if ctx.Err() != nil {
		pr.status.State = contract.JobCanceling
	} else {
		pr.status.State = contract.JobFailing
	}
	takesLost := workflow.GetVersion(dctx, "halt-takes-runner-lost", workflow.DefaultVersion, 1) == 1
	pr.awaitCanceled(dctx, pr.cancelTasks(dctx), takesLost)
	if len(pr.tasks) > 0 {
		pr.awaitStopped(dctx, workflow.Now(dctx).Add(cancelWait), takesLost)
	}
	return cause
}

// cancelCall is a CancelTasks activity run on a runner.
type cancelCall struct {
	runner string
	done   workflow.Future
}

// cancelTasks runs CancelTasks on every runner of the epoch that is not lost. A runner
// that cannot be reached fences itself.
func (pr *pipelineRun) cancelTasks(ctx workflow.Context) []cancelCall {
	var calls []cancelCall
	for _, rid := range pr.status.Runners {
		if pr.lostRunners[rid] {
			continue // a lost runner fences itself; its tasks are already marked failed
		}
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			TaskQueue:              pr.queues[rid],
			ScheduleToStartTimeout: 30 * time.Second,
			StartToCloseTimeout:    30 * time.Second,
			RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 2},
		})
		req := contract.CancelRequest{JobID: pr.in.JobID, Pipeline: pr.in.Pipeline.ID, Epoch: pr.epoch}
		calls = append(calls, cancelCall{runner: rid, done: workflow.ExecuteActivity(actx, contract.CancelTasksActivity, req)})
	}
	return calls
}

// awaitCanceled waits for the CancelTasks calls to return (whether they succeed or not).
// With takesLost it takes runner-lost signals meanwhile and no longer waits for the call of
// a runner declared lost, which may never start.
func (pr *pipelineRun) awaitCanceled(ctx workflow.Context, calls []cancelCall, takesLost bool) {
	if !takesLost {
		for _, c := range calls {
			_ = c.done.Get(ctx, nil)
		}
		return
	}
	for {
		sel := workflow.NewSelector(ctx)
		waiting := false
		for _, c := range calls {
			if !c.done.IsReady() && !pr.lostRunners[c.runner] {
				waiting = true
				sel.AddFuture(c.done, func(workflow.Future) {})
			}
		}
		if !waiting {
			return
		}
		sel.AddReceive(pr.signals.lost, pr.takeRunnerLost(ctx))
		sel.Select(ctx)
	}
}

// awaitStopped takes in task reports until every task ended or the deadline passed; with
// takesLost also runner-lost signals, whose runner's tasks count as stopped.
func (pr *pipelineRun) awaitStopped(ctx workflow.Context, deadline time.Time, takesLost bool) {
	for !pr.allEnded() {
		timedOut := false
		tctx, cancelTimer := workflow.WithCancel(ctx)
		timer := workflow.NewTimer(tctx, deadline.Sub(workflow.Now(ctx)))
		sel := workflow.NewSelector(ctx)
		// no checkpoint is in flight any more: only task changes count
		sel.AddReceive(pr.signals.reports, pr.takeReport(ctx))
		if takesLost {
			sel.AddReceive(pr.signals.lost, pr.takeRunnerLost(ctx))
		}
		sel.AddFuture(timer, func(workflow.Future) { timedOut = true })
		sel.Select(ctx)
		cancelTimer()
		if timedOut {
			return
		}
	}
}

func (pr *pipelineRun) allEnded() bool {
	for _, t := range pr.tasks {
		if !t.State.Terminal() {
			return false
		}
	}
	return len(pr.tasks) > 0
}

// resetTasks forgets the previous deployment's tasks and runners.
func (pr *pipelineRun) resetTasks() {
	pr.tasks = map[contract.TaskID]*contract.TaskStatus{}
	pr.runnerOf = map[contract.TaskID]string{}
	pr.queues = map[string]string{}
	pr.lostRunners = nil
	pr.failure = ""
	pr.status.Runners = nil
}

func (pr *pipelineRun) sortedTasks() []*contract.TaskStatus {
	out := make([]*contract.TaskStatus, 0, len(pr.tasks))
	for _, t := range pr.tasks {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return taskBefore(out[i].Task, out[j].Task) })
	return out
}

func taskBefore(a, b contract.TaskID) bool {
	if a.Group != b.Group {
		return a.Group < b.Group
	}
	return a.Subtask < b.Subtask
}

// snapshot is the pipeline's status with its tasks in order and counters summed.
func (pr *pipelineRun) snapshot() *contract.PipelineStatus {
	s := pr.status
	s.Checkpoints = pr.status.Checkpoints.Copy()
	s.Failovers = append([]contract.Failover(nil), pr.status.Failovers...)
	s.Tasks = s.Tasks[:0:0]
	s.Counters = contract.Counters{}
	s.Counters.Add(pr.status.Restored)
	for _, t := range pr.sortedTasks() {
		ts := *t
		ts.Commits = nil // commit infos go to the committer, not into statuses
		s.Tasks = append(s.Tasks, ts)
		s.Counters.Add(t.Counters)
	}
	return &s
}
