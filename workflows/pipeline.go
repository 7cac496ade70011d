package workflows

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// cancelWait bounds how long a canceled or failed pipeline waits for its runners to confirm
// that their tasks stopped.
const cancelWait = time.Minute

// pipelineRun is the state of one pipeline workflow.
type pipelineRun struct {
	in       contract.PipelineInput
	status   contract.PipelineStatus
	epoch    int
	tasks    map[contract.TaskID]*contract.TaskStatus
	runnerOf map[contract.TaskID]string
	queues   map[string]string // runner id -> task queue
	failure  string
	// lostRunners are runners the resource manager declared lost: nothing is sent to them.
	lostRunners map[string]bool
	// restarts counts failovers, up to env.job.retry.times.
	restarts int
	// continueAsNew: the run's history is long enough; hand over to a new run.
	continueAsNew bool
	// announced is the state the job was last told of.
	announced contract.JobState
	// permanent: the failure is one a restart cannot fix.
	permanent bool
}

// announce tells the job workflow that the pipeline is RUNNING or PENDING, once per change,
// so the job reports RUNNING when its tasks are deployed rather than when it starts its
// pipelines.
func (pr *pipelineRun) announce(ctx workflow.Context, state contract.JobState) {
	if pr.announced == state {
		return
	}
	pr.announced = state
	if workflow.GetVersion(ctx, "pipeline-announces-state", workflow.DefaultVersion, 1) != 1 {
		return
	}
	parent := workflow.GetInfo(ctx).ParentWorkflowExecution
	if parent == nil {
		return
	}
	// fire and forget: a job that has ended has nothing to learn
	workflow.SignalExternalWorkflow(ctx, parent.ID, "", contract.PipelineStateSignal,
		contract.PipelineState{Pipeline: pr.in.Pipeline.ID, State: state})
}

// PipelineWorkflow schedules, deploys and watches one pipeline: slots from the resource
// manager, a short deploy activity per runner, task reports back by signal, the sinks'
// commit at the end, slots released.
func PipelineWorkflow(ctx workflow.Context, in contract.PipelineInput) (*contract.PipelineStatus, error) {
	pr := &pipelineRun{
		in:       in,
		status:   contract.PipelineStatus{ID: in.Pipeline.ID, State: contract.JobCreated},
		epoch:    1,
		tasks:    map[contract.TaskID]*contract.TaskStatus{},
		runnerOf: map[contract.TaskID]string{},
		queues:   map[string]string{},
	}
	if err := workflow.SetQueryHandler(ctx, contract.StatusQuery, func() (*contract.PipelineStatus, error) {
		return pr.snapshot(), nil
	}); err != nil {
		return nil, err
	}
	reports := workflow.GetSignalChannel(ctx, contract.TaskReportSignal)
	lostCh := workflow.GetSignalChannel(ctx, contract.RunnerLostSignal)
	cp := newCoordinator(pr)
	savepoints := workflow.GetSignalChannel(ctx, contract.SavepointSignal)
	var restore *contract.Restore
	resumed := in.Resume != nil
	if resumed {
		pr.resume(ctx, in.Resume, cp)
	}
	if in.Restore && !resumed {
		var err error
		if restore, err = pr.restorePoint(ctx, cp, false); err != nil {
			if ctx.Err() != nil {
				return pr.cancel(ctx, "")
			}
			return pr.fail(ctx, "", false, causeOf(err))
		}
	}
	for {
		owner := fmt.Sprintf("%s#%d", workflow.GetInfo(ctx).WorkflowExecution.ID, pr.epoch)
		canceled := false
		if resumed {
			// the tasks of this epoch run already: go on watching them
			resumed = false
			pr.status.State = contract.JobRunning
			canceled = pr.watch(ctx, cp, reports, lostCh, savepoints)
		} else {
			pr.status.State = contract.JobScheduled
			alloc, err := pr.allocate(ctx, owner)
			// A failover waits a while for runners to come back: a runner declared lost (a
			// stall, a Temporal restart, a busy machine) registers again within seconds.
			if err != nil && isNoResource(err) && pr.epoch > 1 && !pr.in.Env.SlotWait &&
				workflow.GetVersion(ctx, "failover-waits-for-runners", workflow.DefaultVersion, 1) == 1 {
				alloc, err = pr.awaitRunners(ctx, owner, err)
			}
			// With env.slot.wait the pipeline waits in PENDING until slots free up, asking again
			// with a growing pause; a long wait continues as new to keep the history small.
			for wait := 2 * time.Second; err != nil && pr.in.Env.SlotWait && isNoResource(err); wait = min(wait*2, time.Minute) {
				pr.status.State, pr.status.Error = contract.JobPending, causeOf(err)
				pr.announce(ctx, contract.JobPending)
				if serr := workflow.Sleep(ctx, wait); serr != nil {
					pr.status.State = contract.JobCanceled
					return nil, temporal.NewCanceledError(*pr.snapshot())
				}
				if pr.epoch == 1 && workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
					return nil, workflow.NewContinueAsNewError(ctx, contract.PipelineWorkflowName, in)
				}
				alloc, err = pr.allocate(ctx, owner)
			}
			pr.status.Error = ""
			if ctx.Err() != nil {
				// canceled before the tasks were deployed: give back what was granted
				return pr.cancel(ctx, owner)
			}
			if err != nil {
				return pr.fail(ctx, owner, false, causeOf(err))
			}
			pr.status.State = contract.PipelineDeploying
			if err := pr.deploy(ctx, alloc, restore); err != nil {
				if ctx.Err() != nil {
					canceled = true // the tasks deployed so far are stopped below
				} else {
					pr.failure = causeOf(err)
				}
			} else {
				pr.status.State = contract.JobRunning
				pr.announce(ctx, contract.JobRunning)
				canceled = pr.watch(ctx, cp, reports, lostCh, savepoints)
			}
		}
		if pr.continueAsNew && !canceled && pr.failure == "" && !cp.savepointDone {
			// bound the history: take in what is already delivered, then go on in a new run
			// with the same state; nothing is restarted
			pr.drain(ctx, cp, reports, lostCh)
			if pr.failure == "" && !pr.allEnded() {
				next := in
				next.Restore = false
				next.Resume = pr.resumeState(cp)
				return nil, workflow.NewContinueAsNewError(ctx, contract.PipelineWorkflowName, next)
			}
		}
		if cp.savepointDone && !canceled && pr.failure == "" {
			// the savepoint is complete and committed: stop the tasks, keep it for a restore
			pr.halt(ctx, reports)
			pr.release(ctx, owner)
			pr.status.State = contract.JobSavepointDone
			return pr.snapshot(), nil
		}
		if !canceled && pr.failure == "" {
			pr.status.State = contract.PipelineCommitting
			if err := pr.commit(ctx, cp.nextID); err != nil {
				return pr.fail(ctx, owner, true, causeOf(err))
			}
			pr.release(ctx, owner)
			pr.status.State = contract.JobFinished
			return pr.snapshot(), nil
		}
		cause := pr.halt(ctx, reports)
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		if ctx.Err() != nil && cause == "" {
			pr.release(dctx, owner)
			pr.status.State = contract.JobCanceled
			return nil, temporal.NewCanceledError(*pr.snapshot())
		}
		if ctx.Err() != nil || pr.restarts >= pr.in.Env.RetryTimes {
			return pr.fail(dctx, owner, true, cause)
		}
		if pr.permanent && workflow.GetVersion(ctx, "permanent-task-failure", workflow.DefaultVersion, 1) == 1 {
			// a broken data check or a refused value: a restart would only repeat it
			return pr.fail(dctx, owner, true, cause)
		}
		// Fail over: restart every task of the pipeline from the latest completed checkpoint
		// (or from the beginning), on whatever runners the resource manager gives now.
		pr.release(ctx, owner)
		pr.restarts++
		pr.status.Restarts, pr.status.LastFailure = pr.restarts, cause
		pr.status.State = contract.PipelineRestarting
		if err := workflow.Sleep(ctx, time.Duration(pr.in.Env.RetryIntervalSeconds)*time.Second); err != nil {
			pr.status.State = contract.JobCanceled
			return nil, temporal.NewCanceledError(*pr.snapshot())
		}
		var err error
		if restore, err = pr.restorePoint(ctx, cp, true); err != nil {
			if ctx.Err() != nil {
				return pr.cancel(ctx, "")
			}
			return pr.fail(ctx, owner, false, causeOf(err))
		}
		pr.epoch++
		pr.resetTasks()
	}
}

// FailoverRunnerWait is how long a failover waits for slots before the pipeline fails.
var FailoverRunnerWait = 30 * time.Second

// awaitRunners asks for slots again with a growing pause, in PENDING, until they are
// granted or FailoverRunnerWait has passed; it returns the last answer.
func (pr *pipelineRun) awaitRunners(ctx workflow.Context, owner string, err error) (*contract.Allocation, error) {
	var alloc *contract.Allocation
	deadline := workflow.Now(ctx).Add(FailoverRunnerWait)
	for wait := time.Second; err != nil && isNoResource(err) && workflow.Now(ctx).Before(deadline); wait = min(wait*2, 8*time.Second) {
		pr.status.State, pr.status.Error = contract.JobPending, causeOf(err)
		if serr := workflow.Sleep(ctx, wait); serr != nil {
			return alloc, serr
		}
		alloc, err = pr.allocate(ctx, owner)
	}
	return alloc, err
}

// watch follows the task reports until every task ended, a task failed or the pipeline is
// canceled (it returns true then), taking checkpoints on the way when the job asks for them.
func (pr *pipelineRun) watch(ctx workflow.Context, cp *coordinator, reports, lostCh, savepoints workflow.ReceiveChannel) bool {
	canceled := false
	events := 0
	for !pr.allEnded() && !cp.savepointDone {
		// continue as new well before Temporal's limits (10,000 signals, 51,200 events); a
		// checkpoint in flight goes along with its acknowledgements
		if !cp.savepointWanted && (events >= PipelineEventsBeforeContinue || workflow.GetInfo(ctx).GetContinueAsNewSuggested()) {
			pr.continueAsNew = true
			break
		}
		events++
		sel := workflow.NewSelector(ctx)
		cp.arm(ctx, sel)
		sel.AddReceive(savepoints, func(c workflow.ReceiveChannel, _ bool) {
			c.Receive(ctx, nil)
			pr.status.State = contract.JobDoingSavepoint
			cp.requestSavepoint(ctx)
		})
		sel.AddReceive(reports, func(c workflow.ReceiveChannel, _ bool) {
			var r contract.TaskReport
			c.Receive(ctx, &r)
			if r.Checkpoint != nil {
				cp.acked(ctx, r)
				return
			}
			pr.apply(r)
		})
		sel.AddReceive(lostCh, func(c workflow.ReceiveChannel, _ bool) {
			var l contract.RunnerLost
			c.Receive(ctx, &l)
			pr.lost(l)
		})
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) { canceled = true })
		sel.Select(ctx)
		if canceled || pr.failure != "" {
			break
		}
	}
	cp.interrupt()
	return canceled
}

// PipelineEventsBeforeContinue is how many reports, checkpoint timers and other events one
// pipeline run takes before it continues as new.
var PipelineEventsBeforeContinue = 1000

// drain applies the reports and lost-runner notices already delivered, so none is left
// behind when the run continues as new.
func (pr *pipelineRun) drain(ctx workflow.Context, cp *coordinator, reports, lostCh workflow.ReceiveChannel) {
	for {
		var r contract.TaskReport
		if reports.ReceiveAsync(&r) {
			if r.Checkpoint != nil {
				cp.acked(ctx, r)
			} else {
				pr.apply(r)
			}
			continue
		}
		var l contract.RunnerLost
		if lostCh.ReceiveAsync(&l) {
			pr.lost(l)
			continue
		}
		return
	}
}

// resumeState is what the next run needs to go on watching the running tasks.
func (pr *pipelineRun) resumeState(cp *coordinator) *contract.PipelineResume {
	r := &contract.PipelineResume{Epoch: pr.epoch, Queues: pr.queues, Runners: pr.status.Runners, Restarts: pr.restarts,
		RestoredFrom: pr.status.RestoredFrom, Restored: pr.status.Restored,
		LastFailure: pr.status.LastFailure, NextID: cp.nextID, Completed: cp.completed, Failures: cp.failures}
	for _, t := range pr.sortedTasks() {
		r.Tasks = append(r.Tasks, *t)
	}
	for _, id := range pr.status.Runners {
		if pr.lostRunners[id] {
			r.LostRunners = append(r.LostRunners, id)
		}
	}
	if p := cp.pending; p != nil {
		r.Pending = &contract.PendingResume{ID: p.id, Savepoint: p.savepoint}
		for _, t := range pr.sortedTasks() {
			if a, ok := p.acks[t.Task]; ok {
				r.Pending.Acks = append(r.Pending.Acks, a)
			}
		}
	}
	return r
}

// resume takes over the state of the previous run.
func (pr *pipelineRun) resume(ctx workflow.Context, r *contract.PipelineResume, cp *coordinator) {
	pr.epoch, pr.restarts = r.Epoch, r.Restarts
	pr.status.Restarts, pr.status.LastFailure, pr.status.Runners = r.Restarts, r.LastFailure, r.Runners
	pr.status.RestoredFrom, pr.status.Restored = r.RestoredFrom, r.Restored
	pr.queues = r.Queues
	if pr.queues == nil {
		pr.queues = map[string]string{}
	}
	for i := range r.Tasks {
		t := r.Tasks[i]
		pr.tasks[t.Task] = &t
		pr.runnerOf[t.Task] = t.Runner
	}
	for _, id := range r.LostRunners {
		if pr.lostRunners == nil {
			pr.lostRunners = map[string]bool{}
		}
		pr.lostRunners[id] = true
	}
	cp.nextID, cp.completed, cp.failures = r.NextID, r.Completed, r.Failures
	if p := r.Pending; p != nil {
		cp.resumePending(ctx, p)
	}
}

// restorePoint loads the checkpoint to start from and commits its sinks' infos again
// (committers are idempotent: what was committed stays, what was not confirmed is made
// visible), so the restarted tasks continue exactly after it. A failover starts from the
// newest checkpoint this run of the job completed (or restored), never from one it only
// finds in the store, which may be an earlier run's under the same id; an explicit restore
// starts from the newest in the store, and the status names it.
func (pr *pipelineRun) restorePoint(ctx workflow.Context, cp *coordinator, failover bool) (*contract.Restore, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
	})
	in := contract.LoadInput{Job: pr.in.JobID, Pipeline: pr.in.Pipeline.ID}
	if failover && workflow.GetVersion(ctx, "restore-own-checkpoint", workflow.DefaultVersion, 1) == 1 {
		if cp.completed == 0 {
			pr.status.RestoredFrom, pr.status.Restored = 0, contract.Counters{}
			return nil, nil // nothing completed yet: the tasks start over
		}
		in.Checkpoint = cp.completed
	}
	var m *contract.Manifest
	if err := workflow.ExecuteActivity(actx, contract.LoadCheckpointActivity, in).Get(ctx, &m); err != nil {
		return nil, err
	}
	if m == nil || m.Checkpoint == 0 {
		pr.status.RestoredFrom, pr.status.Restored = 0, contract.Counters{}
		return nil, nil // no checkpoint yet: the tasks start over
	}
	var infos []contract.CommitInfo
	vertices := make([]int, 0, len(m.Commits))
	for v := range m.Commits {
		vertices = append(vertices, v)
	}
	sort.Ints(vertices)
	for _, v := range vertices {
		for i, info := range m.Commits[v] {
			infos = append(infos, contract.CommitInfo{Vertex: v, Subtask: i, Info: info})
		}
	}
	if err := pr.commitInfos(ctx, m.Checkpoint, false, infos); err != nil {
		return nil, err
	}
	cp.restoredFrom(m.Checkpoint)
	pr.status.RestoredFrom, pr.status.Restored = m.Checkpoint, m.Counters
	r := &contract.Restore{Checkpoint: m.Checkpoint, States: map[string]string{}}
	for _, t := range m.Tasks {
		r.States[t.Task] = t.Key
	}
	return r, nil
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

func (pr *pipelineRun) allocate(ctx workflow.Context, owner string) (*contract.Allocation, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 5,
			NonRetryableErrorTypes: []string{contract.NoEnoughResource}},
		// canceled meanwhile, the pipeline still learns when the grant is done, so the
		// slots it releases then include it
		WaitForCancellation: true,
	})
	req := contract.AllocateRequest{Owner: owner, TagFilter: pr.in.Env.TagFilter, Strategy: pr.in.Env.SlotAllocationStrategy}
	for _, g := range pr.in.Pipeline.TaskGroups {
		req.Groups = append(req.Groups, contract.GroupNeed{Group: g.ID, Slots: g.Parallelism})
	}
	var alloc contract.Allocation
	err := workflow.ExecuteActivity(actx, contract.AllocateActivity, req).Get(ctx, &alloc)
	return &alloc, err
}

// deploy puts each task group's instances on the runner its grant names and hands every
// runner its part, with the placement of all tasks so exchanges can reach across runners.
func (pr *pipelineRun) deploy(ctx workflow.Context, alloc *contract.Allocation, restore *contract.Restore) error {
	perRunner := map[string][]contract.TaskID{}
	var order []string
	var placement []contract.TaskPlacement
	for _, grant := range alloc.Grants {
		g := pr.in.Pipeline.Group(grant.Group)
		if g == nil || len(grant.Slots) < g.Parallelism {
			return temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("allocation for task group %d does not fit the plan", grant.Group), contract.DeployFailedType, nil)
		}
		pr.queues[grant.RunnerID] = grant.TaskQueue
		if _, seen := perRunner[grant.RunnerID]; !seen {
			order = append(order, grant.RunnerID)
		}
		for i := 0; i < g.Parallelism; i++ {
			t := contract.TaskID{Group: g.ID, Subtask: i}
			perRunner[grant.RunnerID] = append(perRunner[grant.RunnerID], t)
			pr.runnerOf[t] = grant.RunnerID
			placement = append(placement, contract.TaskPlacement{Task: t, Runner: grant.RunnerID, Address: grant.Address})
			pr.tasks[t] = &contract.TaskStatus{Task: t, State: contract.TaskCreated, Runner: grant.RunnerID}
		}
	}
	if len(pr.tasks) != pr.in.Pipeline.Slots() {
		return temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("allocation placed %d of %d tasks", len(pr.tasks), pr.in.Pipeline.Slots()), contract.DeployFailedType, nil)
	}
	futures := make([]workflow.Future, 0, len(order))
	for _, rid := range order {
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			TaskQueue:              pr.queues[rid],
			ScheduleToStartTimeout: 30 * time.Second,
			StartToCloseTimeout:    time.Minute,
			RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 3},
		})
		futures = append(futures, workflow.ExecuteActivity(actx, contract.DeployActivity, contract.Deployment{
			Job:       pr.in.Job,
			Pipeline:  pr.in.Pipeline,
			Vertices:  pr.in.Vertices,
			Epoch:     pr.epoch,
			ReportTo:  contract.ReportTo(workflow.GetInfo(ctx).WorkflowExecution.ID),
			Origin:    workflow.GetInfo(ctx).WorkflowExecution.RunID,
			Tasks:     perRunner[rid],
			Placement: placement,
			Restore:   restore,
			Env:       pr.in.Env,
		}))
	}
	var firstErr error
	for _, f := range futures {
		if err := f.Get(ctx, nil); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	pr.status.Runners = order
	return firstErr
}

// lost marks the tasks of a lost runner failed: they cannot report any more.
func (pr *pipelineRun) lost(l contract.RunnerLost) {
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

func (pr *pipelineRun) sortedTasks() []*contract.TaskStatus {
	out := make([]*contract.TaskStatus, 0, len(pr.tasks))
	for _, t := range pr.tasks {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Task, out[j].Task
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		return a.Subtask < b.Subtask
	})
	return out
}

// apply records a runner's report; reports of another epoch are stale and ignored.
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

func (pr *pipelineRun) allEnded() bool {
	for _, t := range pr.tasks {
		if !t.State.Terminal() {
			return false
		}
	}
	return len(pr.tasks) > 0
}

// halt cancels the pipeline's tasks on every runner and waits a bounded time for them to
// confirm. It returns the failure that stopped the pipeline ("" for a cancel): failures
// reported while tasks are being canceled are consequences (a producer whose consumer went
// first), not causes.
func (pr *pipelineRun) halt(ctx workflow.Context, reports workflow.ReceiveChannel) string {
	cause := pr.failure
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	if ctx.Err() != nil {
		pr.status.State = contract.JobCanceling
	} else {
		pr.status.State = contract.JobFailing
	}
	var futures []workflow.Future
	for _, rid := range pr.status.Runners {
		if pr.lostRunners[rid] {
			continue // a lost runner fences itself; its tasks are already marked failed
		}
		actx := workflow.WithActivityOptions(dctx, workflow.ActivityOptions{
			TaskQueue:              pr.queues[rid],
			ScheduleToStartTimeout: 30 * time.Second,
			StartToCloseTimeout:    30 * time.Second,
			RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 2},
		})
		futures = append(futures, workflow.ExecuteActivity(actx, contract.CancelTasksActivity, contract.CancelRequest{
			JobID: pr.in.JobID, Pipeline: pr.in.Pipeline.ID, Epoch: pr.epoch}))
	}
	for _, f := range futures {
		_ = f.Get(dctx, nil) // a runner that cannot be reached fences itself
	}
	if len(pr.tasks) > 0 {
		deadline := workflow.Now(dctx).Add(cancelWait)
		for !pr.allEnded() {
			timedOut := false
			tctx, cancelTimer := workflow.WithCancel(dctx)
			timer := workflow.NewTimer(tctx, deadline.Sub(workflow.Now(dctx)))
			sel := workflow.NewSelector(dctx)
			sel.AddReceive(reports, func(c workflow.ReceiveChannel, _ bool) {
				var r contract.TaskReport
				c.Receive(dctx, &r)
				if r.Checkpoint == nil {
					pr.apply(r)
				}
			})
			sel.AddFuture(timer, func(workflow.Future) { timedOut = true })
			sel.Select(dctx)
			cancelTimer()
			if timedOut {
				break
			}
		}
	}
	return cause
}

// cancel ends a pipeline canceled before its tasks ran: the slots granted to owner (if any)
// go back, and the pipeline ends CANCELED, not FAILED.
func (pr *pipelineRun) cancel(ctx workflow.Context, owner string) (*contract.PipelineStatus, error) {
	if owner != "" {
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		pr.release(dctx, owner)
	}
	pr.status.State = contract.JobCanceled
	return nil, temporal.NewCanceledError(*pr.snapshot())
}

func (pr *pipelineRun) fail(ctx workflow.Context, owner string, release bool, cause string) (*contract.PipelineStatus, error) {
	if release {
		pr.release(ctx, owner)
	}
	pr.status.State = contract.JobFailed
	pr.status.Error = cause
	return nil, temporal.NewNonRetryableApplicationError(cause, contract.PipelineFailedType, nil, *pr.snapshot())
}

// commit runs each sink's committer with the final commit infos of its writers.
func (pr *pipelineRun) commit(ctx workflow.Context, checkpointID int64) error {
	var all []contract.CommitInfo
	for _, t := range pr.tasks {
		all = append(all, t.Commits...)
	}
	return pr.commitInfos(ctx, checkpointID, true, all)
}

// commitInfos runs each sink's committer with its writers' commit infos of a checkpoint.
func (pr *pipelineRun) commitInfos(ctx workflow.Context, checkpointID int64, final bool, all []contract.CommitInfo) error {
	infos := map[int][]contract.CommitInfo{}
	for _, c := range all {
		infos[c.Vertex] = append(infos[c.Vertex], c)
	}
	vertices := make([]int, 0, len(infos))
	for v := range infos {
		vertices = append(vertices, v)
	}
	sort.Ints(vertices)
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 10,
			NonRetryableErrorTypes: []string{contract.CommitFailedType, contract.ConfigErrorType}},
	})
	for _, vid := range vertices {
		cs := infos[vid]
		sort.Slice(cs, func(i, j int) bool { return cs[i].Subtask < cs[j].Subtask })
		raw := make([][]byte, len(cs))
		for i, c := range cs {
			raw[i] = c.Info
		}
		if err := workflow.ExecuteActivity(actx, contract.CommitActivity, contract.CommitInput{
			Job:          pr.in.Job,
			Vertex:       pr.in.Vertex(vid),
			CheckpointID: checkpointID,
			Final:        final,
			Infos:        raw,
		}).Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

func (pr *pipelineRun) release(ctx workflow.Context, owner string) {
	f := workflow.SignalExternalWorkflow(ctx, contract.ResourceManagerID, "", contract.ReleaseSlotsSignal, contract.ReleaseRequest{Owner: owner})
	if err := f.Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Warn("slots not released", "owner", owner, "error", err)
	}
}

// snapshot is the pipeline's status with its tasks in order and counters summed.
func (pr *pipelineRun) snapshot() *contract.PipelineStatus {
	s := pr.status
	s.Tasks = s.Tasks[:0:0]
	s.Counters = contract.Counters{}
	s.Counters.Add(pr.status.Restored)
	for _, t := range pr.tasks {
		ts := *t
		ts.Commits = nil // commit infos go to the committer, not into statuses
		s.Tasks = append(s.Tasks, ts)
		s.Counters.Add(t.Counters)
	}
	sort.Slice(s.Tasks, func(i, j int) bool {
		a, b := s.Tasks[i].Task, s.Tasks[j].Task
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		return a.Subtask < b.Subtask
	})
	return &s
}

func isNoResource(err error) bool {
	var ae *temporal.ApplicationError
	return errors.As(err, &ae) && ae.Type() == contract.NoEnoughResource
}
