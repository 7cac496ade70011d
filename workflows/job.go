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

// JobWorkflow is the JobMaster: it plans the job, runs one child workflow per pipeline and
// keeps the job's state in its search attributes and its status query.
func JobWorkflow(ctx workflow.Context, in contract.JobInput) (*contract.JobStatus, error) {
	info := workflow.GetInfo(ctx)
	st := &contract.JobStatus{
		JobID:     contract.JobIDFor(in, info.WorkflowExecution.ID),
		Name:      in.Name,
		State:     contract.JobCreated,
		Submitted: in.Submitted,
		Started:   workflow.Now(ctx),
	}
	if st.Name == "" {
		st.Name = contract.DefaultJobName
	}
	if err := workflow.SetQueryHandler(ctx, contract.StatusQuery, func() (*contract.JobStatus, error) {
		return st, nil
	}); err != nil {
		return nil, err
	}
	logger := workflow.GetLogger(ctx)
	setState := func(s contract.JobState) {
		st.State = s
		if err := workflow.UpsertTypedSearchAttributes(ctx, contract.JobStateKey.ValueSet(string(s))); err != nil {
			logger.Warn("search attribute not updated", "error", err)
		}
	}
	_ = workflow.UpsertTypedSearchAttributes(ctx, contract.JobNameKey.ValueSet(st.Name), contract.JobStateKey.ValueSet(string(st.State)))

	setState(contract.JobInitializing)
	planCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 3,
			NonRetryableErrorTypes: []string{contract.ConfigErrorType}},
	})
	var plan contract.Plan
	err := workflow.ExecuteActivity(planCtx, contract.PlanJobActivity, contract.PlanInput{JobID: st.JobID, Source: contract.ConfigSource{
		File: in.File, Text: in.Config, Vars: in.Vars, Name: in.Name,
	}, SetupSinks: !in.Restore, Fresh: !in.Restore}).Get(ctx, &plan)
	if err != nil {
		if ctx.Err() != nil {
			return finishJob(ctx, st, setState, contract.JobCanceled, "")
		}
		return finishJob(ctx, st, setState, contract.JobFailed, causeOf(err))
	}
	st.Name = plan.Job.Name
	st.Mode = string(plan.Job.Mode)
	st.Warnings = plan.Warnings
	_ = workflow.UpsertTypedSearchAttributes(ctx, contract.JobNameKey.ValueSet(st.Name), contract.JobModeKey.ValueSet(st.Mode))
	for _, p := range plan.Pipelines {
		st.Pipelines = append(st.Pipelines, contract.PipelineStatus{ID: p.ID, State: contract.JobCreated})
	}
	setState(contract.JobScheduled)

	// one child per pipeline; cancelling the job cancels them, and they clean up first
	childCtx, cancelChildren := workflow.WithCancel(ctx)
	futures := make([]workflow.ChildWorkflowFuture, len(plan.Pipelines))
	for i, p := range plan.Pipelines {
		cctx := workflow.WithChildOptions(childCtx, workflow.ChildWorkflowOptions{
			WorkflowID:          contract.PipelineWorkflowID(st.JobID, p.ID),
			TaskQueue:           contract.JobsQueue,
			WaitForCancellation: true,
			ParentClosePolicy:   enumspb.PARENT_CLOSE_POLICY_REQUEST_CANCEL,
			StaticSummary:       fmt.Sprintf("pipeline %d of job %d", p.ID, st.JobID),
		})
		futures[i] = workflow.ExecuteChildWorkflow(cctx, contract.PipelineWorkflowName, contract.PipelineInput{
			JobID:    st.JobID,
			Env:      plan.Env,
			Job:      contract.Job{ID: st.JobID, Name: plan.Job.Name, Mode: plan.Job.Mode},
			Pipeline: p,
			Vertices: verticesOf(&plan, p),
			Restore:  in.Restore,
		})
		st.Pipelines[i].State = contract.JobScheduled
	}
	// the job is RUNNING once every pipeline still going has its tasks deployed (each tells
	// the job by signal), PENDING while one waits for slots
	announced := workflow.GetVersion(ctx, "job-running-when-deployed", workflow.DefaultVersion, 1) == 1
	if !announced {
		setState(contract.JobRunning)
	}

	var failure string
	remaining := len(futures)
	sel := workflow.NewSelector(ctx)
	// a savepoint request goes to every pipeline still running
	savepoints := workflow.GetSignalChannel(ctx, contract.SavepointSignal)
	sel.AddReceive(savepoints, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		setState(contract.JobDoingSavepoint)
		for _, p := range st.Pipelines {
			if !p.State.Terminal() {
				workflow.SignalExternalWorkflow(ctx, contract.PipelineWorkflowID(st.JobID, p.ID), "", contract.SavepointSignal, nil)
			}
		}
	})
	if announced {
		sel.AddReceive(workflow.GetSignalChannel(ctx, contract.PipelineStateSignal), func(c workflow.ReceiveChannel, _ bool) {
			var ps contract.PipelineState
			c.Receive(ctx, &ps)
			running, pending := true, false
			for i := range st.Pipelines {
				p := &st.Pipelines[i]
				if p.ID == ps.Pipeline && !p.State.Terminal() {
					p.State = ps.State
				}
				if !p.State.Terminal() {
					running = running && p.State == contract.JobRunning
					pending = pending || p.State == contract.JobPending
				}
			}
			if st.State != contract.JobScheduled && st.State != contract.JobPending && st.State != contract.JobRunning {
				return // doing a savepoint, or ending: that state stands
			}
			switch {
			case pending:
				setState(contract.JobPending)
			case running:
				setState(contract.JobRunning)
			}
		})
	}
	for i, f := range futures {
		sel.AddFuture(f, func(f workflow.Future) {
			remaining--
			var res contract.PipelineStatus
			err := f.Get(ctx, &res)
			ps := &st.Pipelines[i]
			switch {
			case err == nil:
				*ps = res
			case temporal.IsCanceledError(err):
				ps.State = contract.JobCanceled
				var details contract.PipelineStatus
				var ce *temporal.CanceledError
				if errors.As(err, &ce) && ce.HasDetails() && ce.Details(&details) == nil {
					*ps = details
				}
				ps.State = contract.JobCanceled
			default:
				ps.State = contract.JobFailed
				ps.Error = causeOf(err)
				var details contract.PipelineStatus
				var ae *temporal.ApplicationError
				if errors.As(err, &ae) && ae.HasDetails() && ae.Details(&details) == nil {
					details.State, details.Error = contract.JobFailed, ps.Error
					*ps = details
				}
				if failure == "" {
					failure = fmt.Sprintf("pipeline %d: %s", ps.ID, ps.Error)
					// one failed pipeline fails the job: stop the others
					cancelChildren()
				}
			}
			st.Counters = contract.Counters{}
			for _, p := range st.Pipelines {
				st.Counters.Add(p.Counters)
			}
		})
	}
	for remaining > 0 {
		sel.Select(ctx)
	}
	savepointed := len(st.Pipelines) > 0
	for _, p := range st.Pipelines {
		savepointed = savepointed && p.State == contract.JobSavepointDone
	}
	switch {
	case failure != "":
		return finishJob(ctx, st, setState, contract.JobFailed, failure)
	case ctx.Err() != nil:
		return finishJob(ctx, st, setState, contract.JobCanceled, "")
	case savepointed:
		return finishJob(ctx, st, setState, contract.JobSavepointDone, "")
	}
	return finishJob(ctx, st, setState, contract.JobFinished, "")
}

// finishJob records the final state. A failed job fails its workflow (with the status in the
// error's details, so clients still get the summary); a canceled one ends canceled.
func finishJob(ctx workflow.Context, st *contract.JobStatus, setState func(contract.JobState), state contract.JobState, cause string) (*contract.JobStatus, error) {
	st.Error = cause
	st.Finished = workflow.Now(ctx)
	if ctx.Err() != nil {
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		ctx = dctx
	}
	st.State = state
	_ = workflow.UpsertTypedSearchAttributes(ctx, contract.JobStateKey.ValueSet(string(state)))
	_ = setState
	switch state {
	case contract.JobFailed:
		return nil, temporal.NewNonRetryableApplicationError(cause, contract.JobFailedType, nil, *st)
	case contract.JobCanceled:
		return nil, temporal.NewCanceledError(*st)
	}
	return st, nil
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
