package workflows

import (
	"hash/fnv"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// ScheduledJobWorkflow is what a Strait schedule starts. It gives the run a fresh job id and
// starts the job as a JobWorkflow of its own (strait-job-<id>), so a scheduled run is a job
// like any other for status, cancel, savepoints and the REST API; then it waits for the job,
// so the schedule's overlap policy applies to the job itself. Terminating it leaves the job
// running (parent close policy abandon).
func ScheduledJobWorkflow(ctx workflow.Context, in contract.JobInput) (*contract.JobStatus, error) {
	var id int64
	if err := workflow.SideEffect(ctx, freshJobID).Get(&id); err != nil {
		return nil, err
	}
	in.JobID, in.Submitted, in.Restore = id, workflow.Now(ctx), false
	name := in.Name
	if name == "" {
		name = contract.DefaultJobName
	}
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:        contract.JobWorkflowID(id),
		TaskQueue:         contract.JobsQueue,
		ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_ABANDON,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			contract.JobNameKey.ValueSet(name),
			contract.JobStateKey.ValueSet(string(contract.JobCreated)),
		),
	})
	workflow.GetLogger(ctx).Info("scheduled job started", "job", id)
	var st contract.JobStatus
	if err := workflow.ExecuteChildWorkflow(cctx, contract.JobWorkflowName, in).Get(ctx, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// freshJobID numbers a scheduled run's job: the run's start to the millisecond, salted by
// its run id so that runs of two schedules started in the same millisecond differ. It runs
// as a side effect, so the number is recorded once and replays read it back.
func freshJobID(ctx workflow.Context) any {
	h := fnv.New64a()
	h.Write([]byte(workflow.GetInfo(ctx).WorkflowExecution.RunID))
	return contract.JobNumber(workflow.Now(ctx), int64(h.Sum64()%1000))
}
