package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// PipelineWorkflow schedules, deploys and watches one pipeline: slots from the resource
// manager, a short deploy activity per runner, task reports back by signal, checkpoints on
// the way, the sinks' commit at the end, slots released. A failed attempt fails over: its
// tasks start again from the latest completed checkpoint, as often as env.job.retry.times
// allows.
func PipelineWorkflow(ctx workflow.Context, in contract.PipelineInput) (*contract.PipelineStatus, error) {
	pr := newPipelineRun(ctx, in)
	if err := workflow.SetQueryHandler(ctx, contract.StatusQuery, pr.onStatus); err != nil {
		return nil, err
	}
	ctx = pr.following(ctx)
	end := pr.run(ctx)
	pr.tellEnd(ctx, end)
	return end.result()
}

// run takes the pipeline from its start (or the state of the run it continues) to its end.
func (pr *pipelineRun) run(ctx workflow.Context) *ending {
	restore, err := pr.begin(ctx)
	if err != nil {
		return pr.abandon(ctx, err)
	}
	for {
		owner := pr.owner(ctx)
		canceled, end := pr.attempt(ctx, owner, restore)
		if end == nil {
			end = pr.conclude(ctx, owner, canceled)
		}
		if end == nil {
			restore, end = pr.failOver(ctx, owner)
		}
		if end != nil {
			return end
		}
	}
}

// isContinueAsNew reports whether a run ends by continuing as new.
func isContinueAsNew(err error) bool {
	var can *workflow.ContinueAsNewError
	return errors.As(err, &can)
}

// cancelWait bounds how long a canceled or failed pipeline waits for its runners to confirm
// that their tasks stopped.
const cancelWait = time.Minute

// pipelineRun is the state of one pipeline workflow.
type pipelineRun struct {
	in contract.PipelineInput
	// tunables are the input's, with the defaults filled in.
	tunables contract.Tunables
	cp       *coordinator
	signals  pipelineSignals
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
	// resumed: the tasks of the current epoch run already (the run continued as new).
	resumed bool
	// continueAsNew: the run's history is long enough; hand over to a new run.
	continueAsNew bool
	// announced is the state the job was last told of.
	announced contract.JobState
	// permanent: the failure is one a restart cannot fix.
	permanent bool
	// progress reports to the job that follows the pipeline by signal (nil: none does).
	progress *progress
}

// pipelineSignals are the channels of the signals a pipeline takes; receiveSignals and drain
// take each of them.
type pipelineSignals struct {
	reports, lost, savepoints workflow.ReceiveChannel
}

// ending is how a pipeline run ends: with its status, or with the error it fails, is
// canceled or continues as new with.
type ending struct {
	status *contract.PipelineStatus
	err    error
}

func (e *ending) result() (*contract.PipelineStatus, error) { return e.status, e.err }

func newPipelineRun(ctx workflow.Context, in contract.PipelineInput) *pipelineRun {
	pr := &pipelineRun{
		in:       in,
		tunables: in.Tunables.Effective(),
		status:   contract.PipelineStatus{ID: in.Pipeline.ID, State: contract.JobCreated},
		epoch:    1,
		tasks:    map[contract.TaskID]*contract.TaskStatus{},
		runnerOf: map[contract.TaskID]string{},
		queues:   map[string]string{},
		signals: pipelineSignals{
			reports:    workflow.GetSignalChannel(ctx, contract.TaskReportSignal),
			lost:       workflow.GetSignalChannel(ctx, contract.RunnerLostSignal),
			savepoints: workflow.GetSignalChannel(ctx, contract.SavepointSignal),
		},
	}
	pr.cp = newCoordinator(pr)
	return pr
}

// onStatus answers the status query.
func (pr *pipelineRun) onStatus() (*contract.PipelineStatus, error) { return pr.snapshot(), nil }

// begin takes over the state of the run this one continues, or loads the checkpoint an
// explicit restore starts from.
func (pr *pipelineRun) begin(ctx workflow.Context) (*contract.Restore, error) {
	if r := pr.in.Resume; r != nil {
		pr.resume(ctx, r)
		pr.resumed = true
		return nil, nil
	}
	if pr.in.Restore {
		return pr.restorePoint(ctx, false)
	}
	return nil, nil
}

// owner names the current epoch's slots at the resource manager.
func (pr *pipelineRun) owner(ctx workflow.Context) string {
	return fmt.Sprintf("%s#%d", workflow.GetInfo(ctx).WorkflowExecution.ID, pr.epoch)
}

// attempt runs one epoch of the pipeline's tasks: it allocates slots, deploys and watches
// the tasks until they end, fail or are canceled (canceled is true then). A run that
// continues an earlier one watches the tasks that run already.
func (pr *pipelineRun) attempt(ctx workflow.Context, owner string, restore *contract.Restore) (canceled bool, end *ending) {
	if pr.resumed {
		pr.resumed = false
		pr.status.State = contract.JobRunning
		return pr.follow(ctx)
	}
	pr.status.State = contract.JobScheduled
	alloc, end := pr.allocate(ctx, owner)
	if end != nil {
		return false, end
	}
	pr.status.State = contract.PipelineDeploying
	if err := pr.deploy(ctx, alloc, restore); err != nil {
		if ctx.Err() != nil {
			return true, nil // the tasks deployed so far are stopped when it fails over
		}
		pr.failure = causeOf(err)
		return false, nil
	}
	pr.status.State = contract.JobRunning
	pr.announce(ctx, contract.JobRunning)
	return pr.follow(ctx)
}

// follow watches the epoch's running tasks and, when the history has grown long, hands over
// to a new run with the same state (nothing is restarted). It first takes in every signal
// already delivered; one that needs this run keeps it: the tasks ended or failed, a
// savepoint was asked for (taken here, then the watch goes on) or the pipeline was canceled
// (canceled is true then).
func (pr *pipelineRun) follow(ctx workflow.Context) (canceled bool, end *ending) {
	for {
		canceled = pr.watch(ctx)
		if !pr.continueAsNew || canceled || pr.failure != "" || pr.cp.savepointDone {
			return canceled, nil
		}
		every := drainsEverySignal(ctx)
		pr.drain(ctx, every)
		if every && ctx.Err() != nil {
			pr.cp.interrupt(ctx)
			return true, nil // a cancel is not carried over: the tasks stop in this run
		}
		going := pr.failure == "" && !pr.allEnded() && !pr.cp.savepointDone
		if going && !(every && pr.cp.savepointWanted) {
			return false, pr.continued(ctx)
		}
		if every {
			pr.continueAsNew = false
			if going {
				continue // the savepoint asked for meanwhile is taken in this run
			}
		}
		// the tasks ended or failed, or the savepoint completed: the checkpoint carried so far
		// stops with the tasks
		pr.cp.interrupt(ctx)
		return false, nil
	}
}

// drainsEverySignal: the drain before continue-as-new takes in savepoint requests and sees a
// cancel too (before, a savepoint asked for at that moment was lost, and a cancel did not
// reach the new run).
func drainsEverySignal(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, "continue-as-new-drains-every-signal", workflow.DefaultVersion, 1) == 1
}

// continued ends the run by continuing as new with the state of the running tasks.
func (pr *pipelineRun) continued(ctx workflow.Context) *ending {
	next := pr.in
	next.Restore = false
	next.Resume = pr.resumeState()
	return &ending{err: workflow.NewContinueAsNewError(ctx, contract.PipelineWorkflowName, next)}
}

// conclude ends an attempt whose tasks were neither canceled nor failed: it stops at a
// completed savepoint, or commits once every task closed. A canceled or failed attempt goes
// on to fail over (nil).
func (pr *pipelineRun) conclude(ctx workflow.Context, owner string, canceled bool) *ending {
	switch {
	case canceled || pr.failure != "":
		return nil
	case pr.cp.savepointDone:
		// the savepoint is complete and committed: stop the tasks, keep it for a restore
		pr.halt(ctx)
		pr.release(ctx, owner)
		pr.status.State = contract.JobSavepointDone
		return &ending{status: pr.snapshot()}
	}
	pr.status.State = contract.PipelineCommitting
	if err := pr.commit(ctx, pr.cp.nextID); err != nil {
		return pr.fail(ctx, owner, true, causeOf(err))
	}
	pr.release(ctx, owner)
	pr.status.State = contract.JobFinished
	return &ending{status: pr.snapshot()}
}

// failOver stops a canceled or failed attempt's tasks and gives their slots back. A
// canceled pipeline ends CANCELED; a failure past the retries, or one a restart cannot fix,
// fails it; any other failure restarts every task, after the retry interval, from the
// latest completed checkpoint (or the beginning), on whatever runners the resource manager
// grants now.
func (pr *pipelineRun) failOver(ctx workflow.Context, owner string) (*contract.Restore, *ending) {
	cause := pr.halt(ctx)
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	if ctx.Err() != nil && cause == "" {
		pr.abortUncompleted(dctx)
		pr.release(dctx, owner)
		return nil, pr.canceled()
	}
	if ctx.Err() != nil || pr.restarts >= pr.in.Env.RetryTimes {
		pr.abortUncompleted(dctx)
		return nil, pr.fail(dctx, owner, true, cause)
	}
	if pr.permanent && workflow.GetVersion(ctx, "permanent-task-failure", workflow.DefaultVersion, 1) == 1 {
		// a broken data check or a refused value: a restart would only repeat it
		pr.abortUncompleted(dctx)
		return nil, pr.fail(dctx, owner, true, cause)
	}
	pr.release(ctx, owner)
	pr.restarts++
	pr.status.Restarts, pr.status.LastFailure = pr.restarts, cause
	pr.status.Failovers = contract.AddFailover(pr.status.Failovers, contract.Failover{At: workflow.Now(ctx), Epoch: pr.epoch, Cause: cause})
	pr.status.State = contract.PipelineRestarting
	if err := workflow.Sleep(ctx, time.Duration(pr.in.Env.RetryIntervalSeconds)*time.Second); err != nil {
		return nil, pr.canceled()
	}
	restore, err := pr.restorePoint(ctx, true)
	if err != nil {
		return nil, pr.abandon(ctx, err)
	}
	pr.epoch++
	pr.cp.failedOver()
	pr.resetTasks()
	return restore, nil
}

// announce tells the job workflow that the pipeline is RUNNING or PENDING, once per change,
// so the job reports RUNNING when its tasks are deployed rather than when it starts its
// pipelines.
func (pr *pipelineRun) announce(ctx workflow.Context, state contract.JobState) {
	if pr.announced == state {
		return
	}
	pr.announced = state
	pr.showDetails(ctx)
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

// abandon ends a pipeline whose checkpoint could not be restored: CANCELED if it was
// canceled meanwhile, FAILED otherwise. It holds no slots then.
func (pr *pipelineRun) abandon(ctx workflow.Context, err error) *ending {
	if ctx.Err() != nil {
		return pr.cancel(ctx, "")
	}
	return pr.fail(ctx, "", false, causeOf(err))
}

// cancel ends a pipeline canceled before its tasks ran: the slots granted to owner (if any)
// go back, and the pipeline ends CANCELED, not FAILED.
func (pr *pipelineRun) cancel(ctx workflow.Context, owner string) *ending {
	if owner != "" {
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		pr.release(dctx, owner)
	}
	return pr.canceled()
}

// canceled ends the pipeline CANCELED, with its status as the cancellation's details.
func (pr *pipelineRun) canceled() *ending {
	pr.status.State = contract.JobCanceled
	return &ending{err: temporal.NewCanceledError(*pr.snapshot())}
}

// fail ends the pipeline FAILED with cause, its status as the failure's details; release
// gives owner's slots back first.
func (pr *pipelineRun) fail(ctx workflow.Context, owner string, release bool, cause string) *ending {
	if release {
		pr.release(ctx, owner)
	}
	pr.status.State = contract.JobFailed
	pr.status.Error = cause
	return &ending{err: temporal.NewNonRetryableApplicationError(cause, contract.PipelineFailedType, nil, *pr.snapshot())}
}

// resumeState is what the next run needs to go on watching the running tasks.
func (pr *pipelineRun) resumeState() *contract.PipelineResume {
	cp := pr.cp
	r := &contract.PipelineResume{Epoch: pr.epoch, Queues: pr.queues, Runners: pr.status.Runners, Restarts: pr.restarts,
		RestoredFrom: pr.status.RestoredFrom, Restored: pr.status.Restored,
		LastFailure: pr.status.LastFailure, NextID: cp.nextID, Completed: cp.completed, Failures: cp.failures,
		Carried: cp.carried, CarriedInManifest: cp.inManifest, Checkpoints: pr.status.Checkpoints.Copy(), Failovers: pr.status.Failovers}
	for _, t := range pr.sortedTasks() {
		r.Tasks = append(r.Tasks, *t)
	}
	for _, id := range pr.status.Runners {
		if pr.lostRunners[id] {
			r.LostRunners = append(r.LostRunners, id)
		}
	}
	if p := cp.pending; p != nil {
		r.Pending = &contract.PendingResume{ID: p.id, Savepoint: p.savepoint, Deadline: p.deadline}
		for _, t := range pr.sortedTasks() {
			if a, ok := p.acks[t.Task]; ok {
				r.Pending.Acks = append(r.Pending.Acks, a)
			}
		}
	}
	return r
}

// resume takes over the state of the previous run.
func (pr *pipelineRun) resume(ctx workflow.Context, r *contract.PipelineResume) {
	pr.epoch, pr.restarts = r.Epoch, r.Restarts
	pr.status.Restarts, pr.status.LastFailure, pr.status.Runners = r.Restarts, r.LastFailure, r.Runners
	pr.status.RestoredFrom, pr.status.Restored = r.RestoredFrom, r.Restored
	pr.status.Checkpoints, pr.status.Failovers = r.Checkpoints.Copy(), r.Failovers
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
	pr.cp.nextID, pr.cp.completed, pr.cp.failures = r.NextID, r.Completed, r.Failures
	pr.cp.carried, pr.cp.inManifest = r.Carried, r.CarriedInManifest
	if p := r.Pending; p != nil {
		pr.cp.resumePending(ctx, p)
	}
}
