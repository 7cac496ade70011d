package workflows

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// Activity stand-ins with the real names and signatures; each test sets what they return.
func planJob(context.Context, contract.PlanInput) (*contract.Plan, error) { return nil, nil }
func allocateSlots(context.Context, contract.AllocateRequest) (*contract.Allocation, error) {
	return nil, nil
}
func deployTasks(context.Context, contract.Deployment) error                 { return nil }
func cancelTasks(context.Context, contract.CancelRequest) error              { return nil }
func commitSinks(context.Context, contract.CommitInput) error                { return nil }
func commitCheckpoint(context.Context, contract.CommitCheckpointInput) error { return nil }

func testPlan() *contract.Plan {
	src := &contract.Vertex{ID: 1, Kind: contract.SourceVertex, Plugin: "FakeSource", Parallelism: 2}
	sink := &contract.Vertex{ID: 2, Kind: contract.SinkVertex, Plugin: "Assert", Inputs: []int{1}, Parallelism: 2}
	return &contract.Plan{
		Job:      contract.Job{ID: 7, Name: "t", Mode: contract.Batch},
		Env:      contract.Env{Mode: contract.Batch, Parallelism: 2},
		Vertices: []*contract.Vertex{src, sink},
		Pipelines: []contract.Pipeline{{ID: 1, Vertices: []int{1, 2},
			TaskGroups: []contract.TaskGroup{{ID: 1, Vertices: []int{1, 2}, Parallelism: 2}}}},
	}
}

type harness struct {
	testsuite.WorkflowTestSuite
	env     *testsuite.TestWorkflowEnvironment
	commits []contract.CommitInput
	// checkpointCommits counts the CommitCheckpoint activities (commits has a sink each)
	checkpointCommits int
	canceled          []contract.CancelRequest
	released          []string // owners whose slots were released
	triggers          int
	// persisted are the checkpoint manifests written, in order
	persisted []contract.PersistInput

	plan   func(context.Context, contract.PlanInput) (*contract.Plan, error)
	alloc  func(context.Context, contract.AllocateRequest) (*contract.Allocation, error)
	deploy func(context.Context, contract.Deployment) error
	cancel func(context.Context, contract.CancelRequest) error
	// persist runs when a checkpoint's manifest is written, after it is recorded
	persist func(contract.PersistInput)
	// commit answers CommitSinks after the call is recorded (default: it succeeds)
	commit func(contract.CommitInput) error
	// trigger runs when a checkpoint is triggered, after it is counted
	trigger func(contract.TriggerRequest)
	// onRelease runs when slots are released, after the owner is recorded
	onRelease func(owner string)
	// describe answers DescribePipelines (default: every pipeline runs); described lists
	// the workflow ids looked up
	describe  func(context.Context, contract.DescribeInput) ([]contract.PipelineLookup, error)
	described []string
}

func newHarness(t *testing.T) *harness {
	h := &harness{}
	h.env = h.NewTestWorkflowEnvironment()
	h.env.SetTestTimeout(time.Minute) // the default 3 s of wall time is short on a loaded machine
	h.env.RegisterWorkflowWithOptions(JobWorkflow, workflow.RegisterOptions{Name: contract.JobWorkflowName})
	h.env.RegisterWorkflowWithOptions(PipelineWorkflow, workflow.RegisterOptions{Name: contract.PipelineWorkflowName})
	for name, fn := range map[string]any{
		contract.PlanJobActivity:           planJob,
		contract.AllocateActivity:          allocateSlots,
		contract.DeployActivity:            deployTasks,
		contract.CancelTasksActivity:       cancelTasks,
		contract.CommitActivity:            commitSinks,
		contract.CommitCheckpointActivity:  commitCheckpoint,
		contract.TriggerCheckpointActivity: triggerCheckpoint,
		contract.PersistCheckpointActivity: persistCheckpoint,
		contract.LoadCheckpointActivity:    loadCheckpoint,
		contract.DescribePipelinesActivity: describePipelines,
	} {
		h.env.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
	h.plan = func(context.Context, contract.PlanInput) (*contract.Plan, error) { return testPlan(), nil }
	h.alloc = func(_ context.Context, req contract.AllocateRequest) (*contract.Allocation, error) {
		return &contract.Allocation{Owner: req.Owner, Grants: []contract.SlotGrant{{Group: 1, RunnerID: "r1", TaskQueue: "strait-runner-r1", Slots: []int{0, 1}}}}, nil
	}
	h.deploy = func(context.Context, contract.Deployment) error { return nil }
	h.cancel = func(_ context.Context, req contract.CancelRequest) error {
		h.canceled = append(h.canceled, req)
		return nil
	}
	h.env.OnActivity(contract.PlanJobActivity, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in contract.PlanInput) (*contract.Plan, error) { return h.plan(ctx, in) })
	h.env.OnActivity(contract.AllocateActivity, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, req contract.AllocateRequest) (*contract.Allocation, error) {
			return h.alloc(ctx, req)
		})
	h.env.OnActivity(contract.DeployActivity, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, d contract.Deployment) error { return h.deploy(ctx, d) })
	h.env.OnActivity(contract.CancelTasksActivity, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, req contract.CancelRequest) error { return h.cancel(ctx, req) })
	h.env.OnActivity(contract.TriggerCheckpointActivity, mock.Anything, mock.Anything).Return(
		func(_ context.Context, req contract.TriggerRequest) error {
			h.triggers++
			if h.trigger != nil {
				h.trigger(req)
			}
			return nil
		})
	h.env.OnActivity(contract.PersistCheckpointActivity, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.PersistInput) error {
			h.persisted = append(h.persisted, in)
			if h.persist != nil {
				h.persist(in)
			}
			return nil
		})
	h.env.OnActivity(contract.DescribePipelinesActivity, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in contract.DescribeInput) ([]contract.PipelineLookup, error) {
			h.described = append(h.described, in.WorkflowIDs...)
			if h.describe != nil {
				return h.describe(ctx, in)
			}
			return describePipelines(ctx, in)
		})
	h.env.OnActivity(contract.CommitActivity, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.CommitInput) error {
			h.commits = append(h.commits, in)
			if h.commit != nil {
				return h.commit(in)
			}
			return nil
		})
	// one activity a checkpoint, recorded as a commit per sink
	h.env.OnActivity(contract.CommitCheckpointActivity, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.CommitCheckpointInput) error {
			h.checkpointCommits++
			for _, one := range in.Each() {
				h.commits = append(h.commits, one)
				if h.commit != nil {
					if err := h.commit(one); err != nil {
						return err
					}
				}
			}
			return nil
		})
	h.env.OnSignalExternalWorkflow(mock.Anything, contract.ResourceManagerID, "", contract.ReleaseSlotsSignal, mock.Anything).Return(
		func(_, _, _, _ string, arg any) error {
			if r, ok := arg.(contract.ReleaseRequest); ok {
				h.released = append(h.released, r.Owner)
				if h.onRelease != nil {
					h.onRelease(r.Owner)
				}
			}
			return nil
		})
	return h
}

// reportAfterDeploy sends the reports to the pipeline one second apart, as a runner would
// once its tasks end.
func (h *harness) reportAfterDeploy(reports ...contract.TaskReport) {
	for i, r := range reports {
		h.env.RegisterDelayedCallback(func() {
			_ = h.env.SignalWorkflowByID(contract.PipelineWorkflowID(7, 1), contract.TaskReportSignal, r)
		}, time.Duration(i+1)*time.Second)
	}
}

func closed(sub int, rows int64, info string) contract.TaskStatus {
	return contract.TaskStatus{Task: contract.TaskID{Group: 1, Subtask: sub}, State: contract.TaskClosed,
		Counters: contract.Counters{RowsRead: rows, RowsWritten: rows},
		Commits:  []contract.CommitInfo{{Vertex: 2, Subtask: sub, Info: []byte(info)}}}
}

func TestJobFinishes(t *testing.T) {
	h := newHarness(t)
	h.reportAfterDeploy(
		contract.TaskReport{RunnerID: "r1", Epoch: 1, Tasks: []contract.TaskStatus{closed(1, 5, "b")}},
		contract.TaskReport{RunnerID: "r1", Epoch: 9, Tasks: []contract.TaskStatus{{Task: contract.TaskID{Group: 1}, State: contract.TaskFailed, Error: "stale"}}},
		contract.TaskReport{RunnerID: "r1", Epoch: 1, Tasks: []contract.TaskStatus{closed(0, 3, "a")}},
	)
	h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7, Config: "unused"})
	if !h.env.IsWorkflowCompleted() {
		t.Fatal("not completed")
	}
	if err := h.env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var st contract.JobStatus
	if err := h.env.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	if st.State != contract.JobFinished || st.Counters.RowsWritten != 8 || st.Name != "t" {
		t.Fatalf("status %+v", st)
	}
	if len(h.commits) != 1 || !h.commits[0].Final || len(h.commits[0].Infos) != 2 ||
		string(h.commits[0].Infos[0]) != "a" || string(h.commits[0].Infos[1]) != "b" {
		t.Fatalf("commits %+v", h.commits)
	}
}

func TestTaskFailureFailsTheJob(t *testing.T) {
	h := newHarness(t)
	h.reportAfterDeploy(
		contract.TaskReport{RunnerID: "r1", Epoch: 1, Tasks: []contract.TaskStatus{
			{Task: contract.TaskID{Group: 1, Subtask: 0}, State: contract.TaskFailed, Error: "row 3 fail rule: MAX"},
			{Task: contract.TaskID{Group: 1, Subtask: 1}, State: contract.TaskCanceled},
		}},
	)
	h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7})
	err := h.env.GetWorkflowError()
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != contract.JobFailedType {
		t.Fatalf("error %v", err)
	}
	if !strings.Contains(ae.Message(), "row 3 fail rule: MAX") {
		t.Fatalf("message %q", ae.Message())
	}
	var st contract.JobStatus
	if err := ae.Details(&st); err != nil || st.State != contract.JobFailed {
		t.Fatalf("details %+v %v", st, err)
	}
	if len(h.canceled) != 1 || len(h.commits) != 0 {
		t.Fatalf("canceled %v commits %v", h.canceled, h.commits)
	}
}

func TestConfigErrorFailsWithoutRetry(t *testing.T) {
	h := newHarness(t)
	calls := 0
	h.plan = func(context.Context, contract.PlanInput) (*contract.Plan, error) {
		calls++
		return nil, temporal.NewNonRetryableApplicationError(`sink[0] Assert: rules: bad`, contract.ConfigErrorType, nil)
	}
	h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7})
	err := h.env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "sink[0] Assert: rules: bad") || calls != 1 {
		t.Fatalf("error %v after %d calls", err, calls)
	}
}

func TestNoResourcesFailsThePipeline(t *testing.T) {
	h := newHarness(t)
	h.alloc = func(context.Context, contract.AllocateRequest) (*contract.Allocation, error) {
		return nil, temporal.NewNonRetryableApplicationError("not enough resources: task group 1 needs 2 slots on one runner", contract.NoEnoughResource, nil)
	}
	h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7})
	err := h.env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "needs 2 slots on one runner") {
		t.Fatalf("error %v", err)
	}
}

func TestCancelCancelsTasksAndEndsCanceled(t *testing.T) {
	h := newHarness(t)
	h.env.RegisterDelayedCallback(func() { h.env.CancelWorkflow() }, time.Second)
	h.env.RegisterDelayedCallback(func() {
		_ = h.env.SignalWorkflowByID(contract.PipelineWorkflowID(7, 1), contract.TaskReportSignal, contract.TaskReport{
			RunnerID: "r1", Epoch: 1, Tasks: []contract.TaskStatus{
				{Task: contract.TaskID{Group: 1, Subtask: 0}, State: contract.TaskCanceled},
				{Task: contract.TaskID{Group: 1, Subtask: 1}, State: contract.TaskCanceled}}})
	}, 3*time.Second)
	h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7})
	err := h.env.GetWorkflowError()
	if !temporal.IsCanceledError(err) {
		t.Fatalf("error %v", err)
	}
	if len(h.canceled) != 1 || h.canceled[0].Pipeline != 1 {
		t.Fatalf("canceled %+v", h.canceled)
	}
}

func TestSlotWaitKeepsThePipelinePending(t *testing.T) {
	h := newHarness(t)
	plan := testPlan()
	plan.Env.SlotWait = true
	h.plan = func(context.Context, contract.PlanInput) (*contract.Plan, error) { return plan, nil }
	calls := 0
	h.alloc = func(_ context.Context, req contract.AllocateRequest) (*contract.Allocation, error) {
		calls++
		if calls < 4 {
			return nil, temporal.NewNonRetryableApplicationError("not enough resources", contract.NoEnoughResource, nil)
		}
		return &contract.Allocation{Owner: req.Owner, Grants: []contract.SlotGrant{{Group: 1, RunnerID: "r1", TaskQueue: "q", Slots: []int{0, 1}}}}, nil
	}
	h.reportAfterDeploy()
	// the job is PENDING while its pipeline waits for slots, RUNNING once its tasks are deployed
	jobState := func() contract.JobState {
		v, err := h.env.QueryWorkflow(contract.StatusQuery)
		if err != nil {
			t.Error(err)
			return ""
		}
		var st contract.JobStatus
		if err := v.Get(&st); err != nil {
			t.Error(err)
		}
		return st.State
	}
	var states []contract.JobState
	for _, at := range []time.Duration{5 * time.Second, 2 * time.Minute} {
		h.env.RegisterDelayedCallback(func() { states = append(states, jobState()) }, at)
	}
	h.env.RegisterDelayedCallback(func() {
		_ = h.env.SignalWorkflowByID(contract.PipelineWorkflowID(7, 1), contract.TaskReportSignal, contract.TaskReport{
			RunnerID: "r1", Epoch: 1, Tasks: []contract.TaskStatus{closed(0, 1, "a"), closed(1, 1, "b")}})
	}, 5*time.Minute)
	h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7})
	if err := h.env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if calls != 4 {
		t.Fatalf("allocation asked %d times", calls)
	}
	if len(states) != 2 || states[0] != contract.JobPending || states[1] != contract.JobRunning {
		t.Fatalf("job states %v, want [PENDING RUNNING]", states)
	}
}

func TestPipelineContinuesAsNewWithoutRestartingTasks(t *testing.T) {
	plan := testPlan()
	in := contract.PipelineInput{JobID: 7, Env: plan.Env, Job: contract.Job{ID: 7, Name: "t", Mode: contract.Batch},
		Pipeline: plan.Pipelines[0], Vertices: plan.Vertices, Tunables: contract.Tunables{PipelineEventsBeforeContinue: 3}}

	// first run: deploys, then after a few reports hands over to a new run
	h := newHarness(t)
	deploys := 0
	h.deploy = func(context.Context, contract.Deployment) error { deploys++; return nil }
	for i := 1; i <= 4; i++ {
		h.env.RegisterDelayedCallback(func() {
			h.env.SignalWorkflow(contract.TaskReportSignal, bothRunning())
		}, time.Duration(i)*time.Second)
	}
	h.env.ExecuteWorkflow(contract.PipelineWorkflowName, in)
	next := continuedWith(t, h)
	if deploys != 1 || next.Resume == nil || next.Resume.Epoch != 1 || len(next.Resume.Tasks) != 2 ||
		next.Resume.Tasks[0].State != contract.TaskRunning || next.Resume.Queues["r1"] == "" {
		t.Fatalf("deploys %d, resume %+v", deploys, next.Resume)
	}
	if next.Tunables != in.Tunables {
		t.Fatalf("the next run's tunables %+v, want the first's %+v", next.Tunables, in.Tunables)
	}

	// second run: no deploy; the tasks' reports finish it and the sinks commit
	h2 := newHarness(t)
	h2.deploy = func(context.Context, contract.Deployment) error { deploys++; return nil }
	h2.env.RegisterDelayedCallback(func() {
		h2.env.SignalWorkflow(contract.TaskReportSignal, contract.TaskReport{RunnerID: "r1", Epoch: 1,
			Tasks: []contract.TaskStatus{closed(0, 3, "a"), closed(1, 4, "b")}})
	}, time.Second)
	h2.runPipeline(t, next)
	if deploys != 1 || len(h2.commits) != 1 || len(h2.commits[0].Infos) != 2 {
		t.Fatalf("deploys %d commits %+v", deploys, h2.commits)
	}
}

// describePipelines finds every pipeline running.
func describePipelines(_ context.Context, in contract.DescribeInput) ([]contract.PipelineLookup, error) {
	out := make([]contract.PipelineLookup, len(in.WorkflowIDs))
	for i, wid := range in.WorkflowIDs {
		out[i] = contract.PipelineLookup{WorkflowID: wid, Running: true}
	}
	return out, nil
}

func triggerCheckpoint(context.Context, contract.TriggerRequest) error { return nil }
func persistCheckpoint(context.Context, contract.PersistInput) error   { return nil }

// loadCheckpoint finds no checkpoint: a restarted pipeline starts over.
func loadCheckpoint(context.Context, contract.LoadInput) (*contract.Manifest, error) { return nil, nil }

// TestCheckpointTimeoutFailsThePipeline: with no tolerable failures, a checkpoint that gets no
// acknowledgement within checkpoint.timeout fails the pipeline, on the test suite's clock.
func TestCheckpointTimeoutFailsThePipeline(t *testing.T) {
	h := newHarness(t)
	plan := testPlan()
	plan.Env.CheckpointInterval = 1000
	plan.Env.CheckpointTimeout = 5000
	h.plan = func(context.Context, contract.PlanInput) (*contract.Plan, error) { return plan, nil }
	running := contract.TaskReport{RunnerID: "r1", Epoch: 1, Tasks: []contract.TaskStatus{
		{Task: contract.TaskID{Group: 1, Subtask: 0}, State: contract.TaskRunning},
		{Task: contract.TaskID{Group: 1, Subtask: 1}, State: contract.TaskRunning}}}
	h.reportAfterDeploy(running)
	h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7})
	err := h.env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "checkpoint 1 expired before completing") {
		t.Fatalf("error %v", err)
	}
	if h.triggers != 1 || len(h.canceled) != 1 {
		t.Fatalf("triggers %d, cancels %d", h.triggers, len(h.canceled))
	}
}

// TestCancelWhileAllocatingEndsCanceled: a job canceled before its tasks were deployed ends
// CANCELED, not FAILED, and gives back the slots granted meanwhile.
func TestCancelWhileAllocatingEndsCanceled(t *testing.T) {
	t.Run("while planning", func(t *testing.T) {
		h := newHarness(t)
		h.plan = func(context.Context, contract.PlanInput) (*contract.Plan, error) {
			h.env.CancelWorkflow()
			time.Sleep(100 * time.Millisecond)
			return testPlan(), nil
		}
		h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7})
		if err := h.env.GetWorkflowError(); !temporal.IsCanceledError(err) {
			t.Fatalf("error %v, want canceled", err)
		}
	})
	h := newHarness(t)
	h.alloc = func(_ context.Context, req contract.AllocateRequest) (*contract.Allocation, error) {
		// the job is canceled while the grant is being made
		h.env.CancelWorkflow()
		time.Sleep(200 * time.Millisecond)
		return &contract.Allocation{Owner: req.Owner, Grants: []contract.SlotGrant{{Group: 1, RunnerID: "r1", TaskQueue: "strait-runner-r1", Slots: []int{0, 1}}}}, nil
	}
	deployed := false
	h.deploy = func(context.Context, contract.Deployment) error { deployed = true; return nil }
	h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7})
	err := h.env.GetWorkflowError()
	if !temporal.IsCanceledError(err) {
		t.Fatalf("error %v, want canceled", err)
	}
	if deployed {
		t.Fatal("tasks were deployed after the cancel")
	}
	if len(h.released) == 0 {
		t.Fatal("the granted slots were not released")
	}
}

// TestPermanentFailureIsNotRestarted: a task failure marked permanent (a broken data check)
// fails the pipeline at once, whatever job.retry.times allows; another failure is restarted.
func TestPermanentFailureIsNotRestarted(t *testing.T) {
	for _, permanent := range []bool{true, false} {
		t.Run(fmt.Sprint("permanent=", permanent), func(t *testing.T) {
			h := newHarness(t)
			plan := testPlan()
			plan.Env.RetryTimes, plan.Env.RetryIntervalSeconds = 2, 1
			h.plan = func(context.Context, contract.PlanInput) (*contract.Plan, error) { return plan, nil }
			deploys := 0
			h.deploy = func(_ context.Context, d contract.Deployment) error {
				deploys++
				epoch := d.Epoch
				h.env.RegisterDelayedCallback(func() {
					_ = h.env.SignalWorkflowByID(contract.PipelineWorkflowID(7, 1), contract.TaskReportSignal, contract.TaskReport{
						RunnerID: "r1", Epoch: epoch, Tasks: []contract.TaskStatus{
							{Task: contract.TaskID{Group: 1, Subtask: 0}, State: contract.TaskFailed, Error: "fail rule: MAX", Permanent: permanent},
							{Task: contract.TaskID{Group: 1, Subtask: 1}, State: contract.TaskCanceled},
						}})
				}, time.Second)
				return nil
			}
			h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7})
			var ae *temporal.ApplicationError
			if err := h.env.GetWorkflowError(); !errors.As(err, &ae) || ae.Type() != contract.JobFailedType {
				t.Fatalf("error %v", err)
			}
			want := 3 // the first run and two restarts
			if permanent {
				want = 1
			}
			if deploys != want {
				t.Fatalf("deployed %d times, want %d", deploys, want)
			}
		})
	}
}

// A failover that finds no slots waits for runners to come back (a runner declared lost
// registers again within seconds) before it fails the pipeline; a first allocation does not.
func TestFailoverWaitsForRunners(t *testing.T) {
	h := newHarness(t)
	plan := testPlan()
	plan.Env.RetryTimes, plan.Env.RetryIntervalSeconds = 1, 1
	h.plan = func(context.Context, contract.PlanInput) (*contract.Plan, error) { return plan, nil }
	allocs := 0
	h.alloc = func(_ context.Context, req contract.AllocateRequest) (*contract.Allocation, error) {
		allocs++
		if allocs == 2 || allocs == 3 { // the failover's first two asks: the runner is not back yet
			return nil, temporal.NewNonRetryableApplicationError("not enough resources: no runner is registered and alive", contract.NoEnoughResource, nil)
		}
		return &contract.Allocation{Owner: req.Owner, Grants: []contract.SlotGrant{{Group: 1, RunnerID: "r1", TaskQueue: "q", Slots: []int{0, 1}}}}, nil
	}
	h.deploy = func(_ context.Context, d contract.Deployment) error {
		epoch := d.Epoch
		h.env.RegisterDelayedCallback(func() {
			tasks := []contract.TaskStatus{closed(0, 3, "a"), closed(1, 5, "b")}
			if epoch == 1 {
				tasks = []contract.TaskStatus{{Task: contract.TaskID{Group: 1, Subtask: 0}, State: contract.TaskFailed, Error: "runner r1 was lost"},
					{Task: contract.TaskID{Group: 1, Subtask: 1}, State: contract.TaskCanceled}}
			}
			_ = h.env.SignalWorkflowByID(contract.PipelineWorkflowID(7, 1), contract.TaskReportSignal, contract.TaskReport{RunnerID: "r1", Epoch: epoch, Tasks: tasks})
		}, time.Second)
		return nil
	}
	h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7})
	if err := h.env.GetWorkflowError(); err != nil {
		t.Fatalf("the failover did not wait for the runner: %v", err)
	}
	if allocs != 4 {
		t.Fatalf("asked for slots %d times, want 4", allocs)
	}
}
