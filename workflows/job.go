// Package workflows is Strait's control plane: JobWorkflow (the JobMaster), one
// PipelineWorkflow per pipeline (scheduling, deployment, task reports, commit) and the
// singleton ResourceManagerWorkflow. They are deterministic state machines; every I/O is an
// activity, named in package contract.
package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/strait-dev/strait/contract"
)

// JobWorkflow is the JobMaster: it plans the job, starts one child PipelineWorkflow per
// pipeline, follows them by their progress signals until they ended and records how the
// job ended. The job's state and live counts are kept in its status query and search
// attributes; a long-running job continues as new while its pipelines run. (Histories from
// before the pipelines reported by signal wait for the children's ends.)
func JobWorkflow(ctx workflow.Context, in contract.JobInput) (*contract.JobStatus, error) {
	j := newJobRun(ctx, in)
	if err := workflow.SetQueryHandler(ctx, contract.StatusQuery, j.onStatus); err != nil {
		return nil, err
	}
	if in.Resume != nil {
		f := newFollower(ctx, j, in)
		f.resumeFollowed(ctx, in.Resume)
		return j.endFollowed(ctx, f)
	}
	j.begin(ctx)
	plan, err := j.plan(ctx, in)
	if err != nil {
		if ctx.Err() != nil {
			return j.finish(ctx, contract.JobCanceled, "")
		}
		return j.finish(ctx, contract.JobFailed, causeOf(err))
	}
	if followsBySignal(ctx) {
		f := newFollower(ctx, j, in)
		f.startFollowed(ctx, plan, in.Restore)
		return j.endFollowed(ctx, f)
	}
	j.startPipelines(ctx, plan, in.Restore, in.Tunables)
	j.wait(ctx)
	state, cause := j.outcome(ctx)
	return j.finish(ctx, state, cause)
}

// jobRun is the state of one job workflow.
type jobRun struct {
	status *contract.JobStatus
	// pipelines are the children's futures, in plan order; stopPipelines cancels them.
	pipelines     []workflow.ChildWorkflowFuture
	stopPipelines workflow.CancelFunc
	// running counts the pipelines that have not ended.
	running int
	// announced: the pipelines tell the job when their tasks run (pipeline-state), so the
	// job is RUNNING from then, not from their start.
	announced bool
	// failure is the first pipeline failure; it fails the job.
	failure string
	// idAttribute: the job records its number in a search attribute, so a job started
	// under a workflow id of Temporal's choosing is found by it.
	idAttribute bool
}

func newJobRun(ctx workflow.Context, in contract.JobInput) *jobRun {
	wid := workflow.GetInfo(ctx).WorkflowExecution.ID
	j := &jobRun{idAttribute: workflow.GetVersion(ctx, "job-id-search-attribute", workflow.DefaultVersion, 1) == 1}
	id := contract.LegacyJobIDFor(in, wid)
	if j.idAttribute {
		id = contract.JobIDFor(in, wid)
	}
	st := &contract.JobStatus{
		JobID:     id,
		Name:      in.Name,
		State:     contract.JobCreated,
		Submitted: in.Submitted,
		Started:   workflow.Now(ctx),
	}
	if st.Name == "" {
		st.Name = contract.DefaultJobName
	}
	j.status = st
	return j
}

// onStatus answers the status query.
func (j *jobRun) onStatus() (*contract.JobStatus, error) { return j.status, nil }

// begin records the job as CREATED, then INITIALIZING.
func (j *jobRun) begin(ctx workflow.Context) {
	attrs := []temporal.SearchAttributeUpdate{contract.JobNameKey.ValueSet(j.status.Name),
		contract.JobStateKey.ValueSet(string(j.status.State))}
	if j.idAttribute {
		attrs = append(attrs, contract.JobIDKey.ValueSet(j.status.JobID))
	}
	_ = workflow.UpsertTypedSearchAttributes(ctx, attrs...)
	j.setState(ctx, contract.JobInitializing)
}

// setState records the job's state, in its status and its search attribute.
func (j *jobRun) setState(ctx workflow.Context, s contract.JobState) {
	j.status.State = s
	defer j.showDetails(ctx)
	if err := workflow.UpsertTypedSearchAttributes(ctx, contract.JobStateKey.ValueSet(string(s))); err != nil {
		workflow.GetLogger(ctx).Warn("search attribute not updated", "error", err)
	}
}

// plan plans the job in the PlanJob activity; a bad config fails without retry. The plan
// names the job and its pipelines, which are SCHEDULED from then.
func (j *jobRun) plan(ctx workflow.Context, in contract.JobInput) (*contract.Plan, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		HeartbeatTimeout:    workerHeartbeat,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 3,
			NonRetryableErrorTypes: []string{contract.ConfigErrorType}},
	})
	// a sealed config travels to the planner as it is: only PlanJob opens it (the input
	// itself shows the config masked), and an input without one plans its text
	src := contract.ConfigSource{File: in.File, Text: in.Config, Vars: in.Vars, Name: in.Name, Sealed: in.Sealed}
	var plan contract.Plan
	err := workflow.ExecuteActivity(actx, contract.PlanJobActivity, contract.PlanInput{JobID: j.status.JobID, Source: src,
		SetupSinks: !in.Restore, Fresh: !in.Restore}).Get(ctx, &plan)
	if err != nil {
		return nil, err
	}
	st := j.status
	st.Name, st.Mode, st.Warnings = plan.Job.Name, string(plan.Job.Mode), plan.Warnings
	_ = workflow.UpsertTypedSearchAttributes(ctx, contract.JobNameKey.ValueSet(st.Name), contract.JobModeKey.ValueSet(st.Mode))
	for _, p := range plan.Pipelines {
		st.Pipelines = append(st.Pipelines, contract.PipelineStatus{ID: p.ID, State: contract.JobCreated})
	}
	j.setState(ctx, contract.JobScheduled)
	return &plan, nil
}

// startPipelines starts one child workflow per pipeline, with the job's tunables.
// Cancelling the job cancels them, and they clean up before they end.
func (j *jobRun) startPipelines(ctx workflow.Context, plan *contract.Plan, restore bool, tunables contract.Tunables) {
	childCtx, cancel := workflow.WithCancel(ctx)
	j.stopPipelines = cancel
	id := j.status.JobID
	for i, p := range plan.Pipelines {
		cctx := workflow.WithChildOptions(childCtx, workflow.ChildWorkflowOptions{
			WorkflowID:          contract.PipelineWorkflowID(id, p.ID),
			TaskQueue:           contract.JobsQueue,
			WaitForCancellation: true,
			ParentClosePolicy:   enumspb.PARENT_CLOSE_POLICY_REQUEST_CANCEL,
			StaticSummary:       fmt.Sprintf("pipeline %d of job %d", p.ID, id),
		})
		j.pipelines = append(j.pipelines, workflow.ExecuteChildWorkflow(cctx, contract.PipelineWorkflowName,
			pipelineInput(id, plan, p, restore, tunables)))
		j.status.Pipelines[i].State = contract.JobScheduled
	}
	j.running = len(j.pipelines)
	// the job is RUNNING once every pipeline still going has its tasks deployed (each tells
	// the job by signal), PENDING while one waits for slots
	j.announced = workflow.GetVersion(ctx, "job-running-when-deployed", workflow.DefaultVersion, 1) == 1
	if !j.announced {
		j.setState(ctx, contract.JobRunning)
	}
}

// wait takes in the job's signals and its pipelines' ends until every pipeline ended.
func (j *jobRun) wait(ctx workflow.Context) {
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(workflow.GetSignalChannel(ctx, contract.SavepointSignal), func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		j.onSavepoint(ctx)
	})
	if j.announced {
		onReceive(ctx, sel, workflow.GetSignalChannel(ctx, contract.PipelineStateSignal), func(ps contract.PipelineState) {
			j.onPipelineState(ctx, ps)
		})
	}
	for i, f := range j.pipelines {
		sel.AddFuture(f, func(f workflow.Future) { j.onPipelineEnd(ctx, i, f) })
	}
	for j.running > 0 {
		sel.Select(ctx)
	}
}

// onSavepoint handles the savepoint signal: every pipeline still running takes a savepoint
// and stops.
func (j *jobRun) onSavepoint(ctx workflow.Context) {
	j.setState(ctx, contract.JobDoingSavepoint)
	for _, p := range j.status.Pipelines {
		if !p.State.Terminal() {
			workflow.SignalExternalWorkflow(ctx, contract.PipelineWorkflowID(j.status.JobID, p.ID), "", contract.SavepointSignal, nil)
		}
	}
}

// onPipelineState handles the pipeline-state signal: the job is PENDING while a pipeline
// waits for slots, RUNNING once every pipeline still going runs. A savepoint in progress
// or an ending job keeps its state.
func (j *jobRun) onPipelineState(ctx workflow.Context, ps contract.PipelineState) {
	running, pending := true, false
	for i := range j.status.Pipelines {
		p := &j.status.Pipelines[i]
		if p.ID == ps.Pipeline && !p.State.Terminal() {
			p.State = ps.State
		}
		if !p.State.Terminal() {
			running = running && p.State == contract.JobRunning
			pending = pending || p.State == contract.JobPending
		}
	}
	switch j.status.State {
	case contract.JobScheduled, contract.JobPending, contract.JobRunning:
	default:
		return
	}
	switch {
	case pending:
		j.setState(ctx, contract.JobPending)
	case running:
		j.setState(ctx, contract.JobRunning)
	}
}

// onPipelineEnd takes in pipeline i's result. The first pipeline that fails stops the
// others: it fails the job.
func (j *jobRun) onPipelineEnd(ctx workflow.Context, i int, f workflow.Future) {
	j.running--
	var res contract.PipelineStatus
	err := f.Get(ctx, &res)
	ps := &j.status.Pipelines[i]
	switch {
	case err == nil:
		*ps = res
	case temporal.IsCanceledError(err):
		*ps = canceledPipeline(*ps, err)
	default:
		*ps = failedPipeline(*ps, err)
		if j.failure == "" {
			j.failure = fmt.Sprintf("pipeline %d: %s", ps.ID, ps.Error)
			j.stopPipelines()
		}
	}
	j.status.Counters = contract.Counters{}
	for _, p := range j.status.Pipelines {
		j.status.Counters.Add(p.Counters)
	}
	j.showDetails(ctx)
}

// canceledPipeline is a canceled pipeline's status: the one its cancellation carries, if
// any.
func canceledPipeline(ps contract.PipelineStatus, err error) contract.PipelineStatus {
	var details contract.PipelineStatus
	var ce *temporal.CanceledError
	if errors.As(err, &ce) && ce.HasDetails() && ce.Details(&details) == nil {
		ps = details
	}
	ps.State = contract.JobCanceled
	return ps
}

// failedPipeline is a failed pipeline's status: the one its failure carries, if any, with
// the failure's cause.
func failedPipeline(ps contract.PipelineStatus, err error) contract.PipelineStatus {
	ps.State, ps.Error = contract.JobFailed, causeOf(err)
	var details contract.PipelineStatus
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) && ae.HasDetails() && ae.Details(&details) == nil {
		details.State, details.Error = contract.JobFailed, ps.Error
		return details
	}
	return ps
}

// outcome is how the job ended: FAILED with the first pipeline failure, CANCELED,
// SAVEPOINT_DONE when every pipeline took its savepoint, else FINISHED.
func (j *jobRun) outcome(ctx workflow.Context) (contract.JobState, string) {
	savepointed := len(j.status.Pipelines) > 0
	for _, p := range j.status.Pipelines {
		savepointed = savepointed && p.State == contract.JobSavepointDone
	}
	switch {
	case j.failure != "":
		return contract.JobFailed, j.failure
	case ctx.Err() != nil:
		return contract.JobCanceled, ""
	case savepointed:
		return contract.JobSavepointDone, ""
	}
	return contract.JobFinished, ""
}

// finish records the final state. A failed job fails its workflow (with the status in the
// error's details, so clients still get the summary); a canceled one ends canceled.
func (j *jobRun) finish(ctx workflow.Context, state contract.JobState, cause string) (*contract.JobStatus, error) {
	st := j.status
	st.Error = cause
	st.Finished = workflow.Now(ctx)
	if ctx.Err() != nil {
		ctx, _ = workflow.NewDisconnectedContext(ctx)
	}
	st.State = state
	_ = workflow.UpsertTypedSearchAttributes(ctx, contract.JobStateKey.ValueSet(string(state)))
	j.showDetails(ctx)
	switch state {
	case contract.JobFailed:
		return nil, temporal.NewNonRetryableApplicationError(cause, contract.JobFailedType, nil, *st)
	case contract.JobCanceled:
		return nil, temporal.NewCanceledError(*st)
	}
	return st, nil
}

// pipelineInput is the input of the workflow that runs pipeline p of job id's plan.
func pipelineInput(id int64, plan *contract.Plan, p contract.Pipeline, restore bool, tunables contract.Tunables) contract.PipelineInput {
	return contract.PipelineInput{
		JobID:    id,
		Env:      plan.Env,
		Job:      contract.Job{ID: id, Name: plan.Job.Name, Mode: plan.Job.Mode},
		Pipeline: p,
		Vertices: verticesOf(plan, p),
		Restore:  restore,
		Tunables: tunables,
	}
}

// onReceive adds ch to sel with a handler that receives a T from it and hands it to handle.
func onReceive[T any](ctx workflow.Context, sel workflow.Selector, ch workflow.ReceiveChannel, handle func(T)) {
	sel.AddReceive(ch, func(c workflow.ReceiveChannel, _ bool) {
		var v T
		c.Receive(ctx, &v)
		handle(v)
	})
}

func verticesOf(plan *contract.Plan, p contract.Pipeline) []*contract.Vertex {
	out := make([]*contract.Vertex, 0, len(p.Vertices))
	for _, id := range p.Vertices {
		out = append(out, plan.Vertex(id))
	}
	return out
}

// causeOf digs the plain cause out of Temporal's wrapping (activity error → application
// error → message), so users read the cause once, not a chain of wrappers.
func causeOf(err error) string {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return ae.Message()
	}
	var ce *temporal.CanceledError
	if errors.As(err, &ce) {
		return "canceled"
	}
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		return "timed out: " + te.Error()
	}
	return err.Error()
}
