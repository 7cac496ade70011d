package workflows

import (
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// followsBySignal: the job starts its pipelines detached (ParentClosePolicy ABANDON) and
// follows them by their progress signals, which keeps its status query live and lets it
// continue as new; before, it waited for the children's ends.
func followsBySignal(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, "job-follows-pipelines-by-signal", workflow.DefaultVersion, 1) == 1
}

// follower is the job's watch over pipelines that report by signal.
type follower struct {
	j       *jobRun
	in      contract.JobInput
	running map[int]bool
	heard   map[int]time.Time
	// stopping: the running pipelines were asked to stop (a failure, or the job's cancel).
	stopping bool
	progress workflow.ReceiveChannel
	states   workflow.ReceiveChannel
	saves    workflow.ReceiveChannel
	watchdog workflow.Future
	// events counts what this run took in (the tunable JobEventsBeforeContinue).
	events int
	// tunables are the input's, with the defaults filled in.
	tunables contract.Tunables
}

func newFollower(ctx workflow.Context, j *jobRun, in contract.JobInput) *follower {
	return &follower{j: j, in: in, tunables: in.Tunables.Effective(), running: map[int]bool{}, heard: map[int]time.Time{},
		progress: workflow.GetSignalChannel(ctx, contract.PipelineProgressSignal),
		states:   workflow.GetSignalChannel(ctx, contract.PipelineStateSignal),
		saves:    workflow.GetSignalChannel(ctx, contract.SavepointSignal)}
}

// startFollowed starts one pipeline workflow per pipeline, detached from the job's run and
// reporting to the job's workflow id, and waits until each started. Cancelling the job
// cancels them (follow asks each to stop).
func (f *follower) startFollowed(ctx workflow.Context, plan *contract.Plan, restore bool) {
	j := f.j
	id := j.status.JobID
	me := workflow.GetInfo(ctx).WorkflowExecution.ID
	starts := make([]workflow.ChildWorkflowFuture, len(plan.Pipelines))
	// detached: only the job's own requests stop them (follow's stopAll), never the end of
	// one run of the job workflow
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	for i, p := range plan.Pipelines {
		cctx := workflow.WithChildOptions(dctx, workflow.ChildWorkflowOptions{
			WorkflowID:        contract.PipelineWorkflowID(id, p.ID),
			TaskQueue:         contract.JobsQueue,
			ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_ABANDON,
			// a pipeline asked to stop cleans up and says how it ended
			WaitForCancellation: true,
			StaticSummary:       fmt.Sprintf("pipeline %d of job %d", p.ID, id),
		})
		in := pipelineInput(id, plan, p, restore, f.in.Tunables)
		in.ReportTo = me
		starts[i] = workflow.ExecuteChildWorkflow(cctx, contract.PipelineWorkflowName, in)
		j.status.Pipelines[i].State = contract.JobScheduled
	}
	now := workflow.Now(ctx)
	for i, s := range starts {
		ps := &j.status.Pipelines[i]
		if err := s.GetChildWorkflowExecution().Get(dctx, nil); err != nil {
			f.ended(dctx, contract.PipelineStatus{ID: ps.ID, State: contract.JobFailed,
				Error: "pipeline workflow did not start: " + causeOf(err)})
			continue
		}
		f.running[ps.ID], f.heard[ps.ID] = true, now
	}
	j.announced = true
}

// resumeFollowed takes over the job from the run it continues.
func (f *follower) resumeFollowed(ctx workflow.Context, r *contract.JobResume) {
	j := f.j
	st := r.Status
	j.status = &st
	j.failure, j.announced, f.stopping = r.Failure, r.Announced, r.Stopping
	now := workflow.Now(ctx)
	for _, id := range r.Running {
		f.running[id], f.heard[id] = true, now
	}
	attrs := []temporal.SearchAttributeUpdate{contract.JobNameKey.ValueSet(st.Name),
		contract.JobStateKey.ValueSet(string(st.State)), contract.JobIDKey.ValueSet(st.JobID)}
	if st.Mode != "" {
		attrs = append(attrs, contract.JobModeKey.ValueSet(st.Mode))
	}
	_ = workflow.UpsertTypedSearchAttributes(ctx, attrs...)
	j.showDetails(ctx)
	if f.stopping {
		f.stopAll(ctx) // asked again: the previous run's requests may not have been sent
	}
}

// follow takes in the pipelines' signals until every pipeline ended. It returns the error
// that continues the job as new when its history grew long, else nil.
func (f *follower) follow(ctx workflow.Context) error {
	// the job's own context is canceled with the job; the watch goes on until the
	// pipelines it stops have ended
	wctx, _ := workflow.NewDisconnectedContext(ctx)
	canceled := false
	for len(f.running) > 0 {
		if ctx.Err() != nil && !canceled {
			canceled = true
			f.stopAll(wctx)
		}
		if !f.stopping && f.longHistory(ctx) {
			if f.drain(wctx); len(f.running) > 0 && !f.stopping {
				return f.continued(ctx)
			}
			continue
		}
		sel := workflow.NewSelector(wctx)
		f.receive(wctx, sel)
		if !canceled {
			sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
		}
		if f.watchdog == nil {
			f.watchdog = workflow.NewTimer(wctx, f.tunables.PipelineSilence)
		}
		sel.AddFuture(f.watchdog, func(workflow.Future) {
			f.watchdog = nil
			f.lookUpSilent(wctx)
		})
		sel.Select(wctx)
		f.events++
	}
	return nil
}

// receive adds the job's signal channels to a selector.
func (f *follower) receive(ctx workflow.Context, sel workflow.Selector) {
	onReceive(ctx, sel, f.progress, func(p contract.PipelineProgress) { f.onProgress(ctx, p) })
	onReceive(ctx, sel, f.states, func(ps contract.PipelineState) {
		f.heard[ps.Pipeline] = workflow.Now(ctx)
		f.j.onPipelineState(ctx, ps)
	})
	sel.AddReceive(f.saves, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		f.j.onSavepoint(ctx)
	})
}

// drain takes in every signal already delivered, so that none is lost when the run
// continues as new.
func (f *follower) drain(ctx workflow.Context) {
	for {
		var p contract.PipelineProgress
		var ps contract.PipelineState
		switch {
		case f.progress.ReceiveAsync(&p):
			f.onProgress(ctx, p)
		case f.states.ReceiveAsync(&ps):
			f.j.onPipelineState(ctx, ps)
		case f.saves.ReceiveAsync(nil):
			f.j.onSavepoint(ctx)
		default:
			return
		}
	}
}

func (f *follower) longHistory(ctx workflow.Context) bool {
	return f.events >= f.tunables.JobEventsBeforeContinue || workflow.GetInfo(ctx).GetContinueAsNewSuggested()
}

// continued ends the run by continuing as new with the job's state.
func (f *follower) continued(ctx workflow.Context) error {
	next := f.in
	r := &contract.JobResume{Status: *f.j.status, Failure: f.j.failure, Stopping: f.stopping, Announced: f.j.announced}
	for _, p := range f.j.status.Pipelines {
		if f.running[p.ID] {
			r.Running = append(r.Running, p.ID)
		}
	}
	next.Resume = r
	return workflow.NewContinueAsNewError(ctx, contract.JobWorkflowName, next)
}

// onProgress takes in a pipeline's progress, or its end.
func (f *follower) onProgress(ctx workflow.Context, p contract.PipelineProgress) {
	id := p.Status.ID
	if !f.running[id] {
		return // ended already (its end came twice: by signal and by a lookup)
	}
	f.heard[id] = workflow.Now(ctx)
	if p.Ended {
		f.ended(ctx, p.Status)
		return
	}
	ps := f.pipeline(id)
	if ps == nil {
		return
	}
	*ps = p.Status
	f.sumCounters()
	f.j.showDetails(ctx)
}

// ended records how a pipeline ended. The first that fails fails the job and stops the
// others.
func (f *follower) ended(ctx workflow.Context, st contract.PipelineStatus) {
	delete(f.running, st.ID)
	delete(f.heard, st.ID)
	if ps := f.pipeline(st.ID); ps != nil {
		*ps = st
	}
	if st.State == contract.JobFailed && f.j.failure == "" {
		f.j.failure = fmt.Sprintf("pipeline %d: %s", st.ID, st.Error)
		f.stopAll(ctx)
	}
	f.sumCounters()
	f.j.showDetails(ctx)
}

// stopAll asks every running pipeline to stop; each ends CANCELED and says so.
func (f *follower) stopAll(ctx workflow.Context) {
	f.stopping = true
	for _, p := range f.j.status.Pipelines {
		if f.running[p.ID] {
			workflow.RequestCancelExternalWorkflow(ctx, contract.PipelineWorkflowID(f.j.status.JobID, p.ID), "")
		}
	}
}

// lookUpSilent looks up the running pipelines the job has not heard from within the
// tunable PipelineSilence and takes in the end of any that closed without telling it.
func (f *follower) lookUpSilent(ctx workflow.Context) {
	now := workflow.Now(ctx)
	var wids []string
	byWID := map[string]int{}
	for _, p := range f.j.status.Pipelines {
		if f.running[p.ID] && now.Sub(f.heard[p.ID]) >= f.tunables.PipelineSilence {
			wid := contract.PipelineWorkflowID(f.j.status.JobID, p.ID)
			wids = append(wids, wid)
			byWID[wid] = p.ID
		}
	}
	if len(wids) == 0 {
		return
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		HeartbeatTimeout:    workerHeartbeat,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	var found []contract.PipelineLookup
	if err := workflow.ExecuteActivity(actx, contract.DescribePipelinesActivity, contract.DescribeInput{WorkflowIDs: wids}).Get(ctx, &found); err != nil {
		workflow.GetLogger(ctx).Warn("pipelines not looked up", "error", err)
		return
	}
	for _, l := range found {
		id, ok := byWID[l.WorkflowID]
		if !ok || !f.running[id] {
			continue
		}
		if l.Running || l.Status == nil {
			f.heard[id] = now
			continue
		}
		st := *l.Status
		st.ID = id
		f.ended(ctx, st)
	}
}

func (f *follower) pipeline(id int) *contract.PipelineStatus {
	for i := range f.j.status.Pipelines {
		if f.j.status.Pipelines[i].ID == id {
			return &f.j.status.Pipelines[i]
		}
	}
	return nil
}

func (f *follower) sumCounters() {
	f.j.status.Counters = contract.Counters{}
	for _, p := range f.j.status.Pipelines {
		f.j.status.Counters.Add(p.Counters)
	}
}

// endFollowed follows the pipelines until they ended, then records how the job ended.
func (j *jobRun) endFollowed(ctx workflow.Context, f *follower) (*contract.JobStatus, error) {
	if err := f.follow(ctx); err != nil {
		return nil, err
	}
	state, cause := j.outcome(ctx)
	return j.finish(ctx, state, cause)
}
