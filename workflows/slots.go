package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// allocate asks the resource manager for the epoch's slots. A failover waits a while for
// runners to come back: a runner declared lost (a stall, a Temporal restart, a busy
// machine) registers again within seconds. With env.slot.wait the pipeline waits in
// PENDING until slots free up, asking again with a growing pause; a long wait continues as
// new to keep the history small. Canceled meanwhile, it gives back what was granted.
func (pr *pipelineRun) allocate(ctx workflow.Context, owner string) (*contract.Allocation, *ending) {
	alloc, err := pr.requestSlots(ctx, owner)
	if err != nil && isNoResource(err) && pr.epoch > 1 && !pr.in.Env.SlotWait &&
		workflow.GetVersion(ctx, "failover-waits-for-runners", workflow.DefaultVersion, 1) == 1 {
		alloc, err = pr.awaitRunners(ctx, owner, err)
	}
	for wait := 2 * time.Second; err != nil && pr.in.Env.SlotWait && isNoResource(err); wait = min(wait*2, time.Minute) {
		pr.status.State, pr.status.Error = contract.JobPending, causeOf(err)
		pr.announce(ctx, contract.JobPending)
		if serr := workflow.Sleep(ctx, wait); serr != nil {
			return nil, pr.canceled()
		}
		if pr.epoch == 1 && workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			return nil, &ending{err: workflow.NewContinueAsNewError(ctx, contract.PipelineWorkflowName, pr.in)}
		}
		alloc, err = pr.requestSlots(ctx, owner)
	}
	pr.status.Error = ""
	if ctx.Err() != nil {
		return nil, pr.cancel(ctx, owner)
	}
	if err != nil {
		return nil, pr.fail(ctx, owner, false, causeOf(err))
	}
	return alloc, nil
}

// awaitRunners asks for slots again with a growing pause, in PENDING, until they are
// granted or FailoverRunnerWait has passed; it returns the last answer.
func (pr *pipelineRun) awaitRunners(ctx workflow.Context, owner string, err error) (*contract.Allocation, error) {
	var alloc *contract.Allocation
	deadline := workflow.Now(ctx).Add(pr.tunables.FailoverRunnerWait)
	for wait := time.Second; err != nil && isNoResource(err) && workflow.Now(ctx).Before(deadline); wait = min(wait*2, 8*time.Second) {
		pr.status.State, pr.status.Error = contract.JobPending, causeOf(err)
		if serr := workflow.Sleep(ctx, wait); serr != nil {
			return alloc, serr
		}
		alloc, err = pr.requestSlots(ctx, owner)
	}
	return alloc, err
}

// requestSlots runs the AllocateSlots activity for every task group of the pipeline.
func (pr *pipelineRun) requestSlots(ctx workflow.Context, owner string) (*contract.Allocation, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		HeartbeatTimeout:    workerHeartbeat,
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

func isNoResource(err error) bool {
	var ae *temporal.ApplicationError
	return errors.As(err, &ae) && ae.Type() == contract.NoEnoughResource
}

// release gives owner's slots back to the resource manager.
func (pr *pipelineRun) release(ctx workflow.Context, owner string) {
	f := workflow.SignalExternalWorkflow(ctx, contract.ResourceManagerID, "", contract.ReleaseSlotsSignal, contract.ReleaseRequest{Owner: owner})
	if err := f.Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Warn("slots not released", "owner", owner, "error", err)
	}
}

// deploy hands every runner of the allocation its part of the pipeline, with the placement
// of all tasks so exchanges can reach across runners, in one short DeployTasks activity
// each.
func (pr *pipelineRun) deploy(ctx workflow.Context, alloc *contract.Allocation, restore *contract.Restore) error {
	order, perRunner, placement, err := pr.place(alloc)
	if err != nil {
		return err
	}
	info := workflow.GetInfo(ctx).WorkflowExecution
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
			ReportTo:  contract.ReportTo(info.ID),
			Origin:    info.RunID,
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

// place puts each task group's instances on the runner its grant names. It returns the
// runners in grant order, the tasks of each and the placement of all.
func (pr *pipelineRun) place(alloc *contract.Allocation) ([]string, map[string][]contract.TaskID, []contract.TaskPlacement, error) {
	perRunner := map[string][]contract.TaskID{}
	var order []string
	var placement []contract.TaskPlacement
	for _, grant := range alloc.Grants {
		g := pr.in.Pipeline.Group(grant.Group)
		if g == nil || len(grant.Slots) < g.Parallelism {
			return nil, nil, nil, temporal.NewNonRetryableApplicationError(
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
		return nil, nil, nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("allocation placed %d of %d tasks", len(pr.tasks), pr.in.Pipeline.Slots()), contract.DeployFailedType, nil)
	}
	return order, perRunner, placement, nil
}
