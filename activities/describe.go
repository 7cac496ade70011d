package activities

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/strait-dev/strait/contract"
)

// DescribePipelines looks up the pipeline workflows a job has not heard from for a while:
// whether each still runs and, if it closed, how. A pipeline tells its job how it ended by
// signal; one that could not (it was terminated, or it timed out) is found here, and a
// terminated one fails its job, as a child terminated did when the job waited for its
// children.
func (a *Coordinator) DescribePipelines(ctx context.Context, in contract.DescribeInput) ([]contract.PipelineLookup, error) {
	out := make([]contract.PipelineLookup, 0, len(in.WorkflowIDs))
	for _, wid := range in.WorkflowIDs {
		l, err := a.describePipeline(ctx, wid)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

func (a *Coordinator) describePipeline(ctx context.Context, wid string) (contract.PipelineLookup, error) {
	l := contract.PipelineLookup{WorkflowID: wid}
	desc, err := a.Client.DescribeWorkflowExecution(ctx, wid, "")
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
		l.Status = &contract.PipelineStatus{State: contract.JobFailed, Error: "pipeline workflow " + wid + " is not known to Temporal"}
		return l, nil
	case err != nil:
		return l, fmt.Errorf("describe pipeline workflow %s: %w", wid, err)
	}
	info := desc.GetWorkflowExecutionInfo()
	if info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		l.Running = true
		return l, nil
	}
	var st contract.PipelineStatus
	err = a.Client.GetWorkflow(ctx, wid, info.GetExecution().GetRunId()).Get(ctx, &st)
	if err != nil {
		if ctx.Err() != nil {
			return l, err
		}
		st = closedPipeline(wid, err)
	}
	l.Status = &st
	return l, nil
}

// closedPipeline is the status of a pipeline workflow that closed with err: the status its
// failure or cancellation carries, else one naming how it closed.
func closedPipeline(wid string, err error) contract.PipelineStatus {
	var st contract.PipelineStatus
	var ce *temporal.CanceledError
	var ae *temporal.ApplicationError
	var te *temporal.TerminatedError
	var to *temporal.TimeoutError
	switch {
	case errors.As(err, &ce):
		if ce.HasDetails() {
			_ = ce.Details(&st)
		}
		st.State = contract.JobCanceled
	case errors.As(err, &ae):
		if ae.HasDetails() {
			_ = ae.Details(&st)
		}
		st.State, st.Error = contract.JobFailed, ae.Message()
	case errors.As(err, &te):
		st.State, st.Error = contract.JobFailed, "pipeline workflow "+wid+" was terminated"
	case errors.As(err, &to):
		st.State, st.Error = contract.JobFailed, "pipeline workflow "+wid+" timed out"
	default:
		st.State, st.Error = contract.JobFailed, err.Error()
	}
	return st
}
