package workflows

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// t0 is the start of the first run in the tests that continue a pipeline as new.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// checkpointingInput is the test plan's pipeline with a checkpoint every second and a
// minute's timeout.
func checkpointingInput() contract.PipelineInput {
	plan := testPlan()
	plan.Env.CheckpointInterval, plan.Env.CheckpointTimeout = 1000, 60000
	return contract.PipelineInput{JobID: 7, Env: plan.Env, Job: plan.Job, Pipeline: plan.Pipelines[0], Vertices: plan.Vertices}
}

func running(sub int) contract.TaskStatus {
	return contract.TaskStatus{Task: contract.TaskID{Group: 1, Subtask: sub}, State: contract.TaskRunning}
}

// ack is subtask sub's acknowledgement of a checkpoint, with its state and its sink's
// commit info named after the subtask.
func ack(sub int) contract.TaskAck {
	name := string(rune('a' + sub))
	return contract.TaskAck{Task: contract.TaskID{Group: 1, Subtask: sub}, StateKey: "state-" + name,
		Commits: []contract.CommitInfo{{Vertex: 2, Subtask: sub, Info: []byte("commit-" + name)}}}
}

func ackReport(id int64, acks ...contract.TaskAck) contract.TaskReport {
	return contract.TaskReport{RunnerID: "r1", Epoch: 1, Checkpoint: &contract.CheckpointAck{ID: id, Tasks: acks}}
}

// bothRunning is runner r1's report, in epoch 1, that subtasks 0 and 1 of group 1 run.
func bothRunning() contract.TaskReport {
	return contract.TaskReport{RunnerID: "r1", Epoch: 1, Tasks: []contract.TaskStatus{running(0), running(1)}}
}

// bothClosed is runner r1's report, in epoch 1, that subtasks 0 and 1 of group 1 closed
// with their final transactions "final-a" and "final-b".
func bothClosed() contract.TaskReport {
	return contract.TaskReport{RunnerID: "r1", Epoch: 1, Tasks: []contract.TaskStatus{closed(0, 3, "final-a"), closed(1, 4, "final-b")}}
}

// runningHarness is a harness whose workflow starts at t0 and hears from runner r1, after
// 500 ms, that both subtasks run.
func runningHarness(t *testing.T) *harness {
	h := newHarness(t)
	h.env.SetStartTime(t0)
	h.at(500*time.Millisecond, contract.TaskReportSignal, bothRunning())
	return h
}

// runPipeline runs the pipeline workflow with in to its end, which must be a success.
func (h *harness) runPipeline(t *testing.T, in contract.PipelineInput) {
	t.Helper()
	h.env.ExecuteWorkflow(contract.PipelineWorkflowName, in)
	if err := h.env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
}

// at has the workflow under test take a signal after d.
func (h *harness) at(d time.Duration, signal string, arg any) {
	h.env.RegisterDelayedCallback(func() { h.env.SignalWorkflow(signal, arg) }, d)
}

// fewEventsPerRun is a pipeline's input with its runs continuing as new after n events.
func fewEventsPerRun(in contract.PipelineInput, n int) contract.PipelineInput {
	in.Tunables.PipelineEventsBeforeContinue = n
	return in
}

// continuedWith is the input a run that continued as new handed to the next one.
func continuedWith(t *testing.T, h *harness) contract.PipelineInput {
	t.Helper()
	return continuedInput[contract.PipelineInput](t, h.env.GetWorkflowError())
}

// continuedInput is the input a run that ended with err handed to the next run; the run must
// have continued as new.
func continuedInput[T any](t *testing.T, err error) T {
	t.Helper()
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		t.Fatalf("want continue-as-new, got %v", err)
	}
	var next T
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	return next
}

// runWithCheckpointInFlight runs a pipeline that continues as new while checkpoint 1 waits
// for subtask 1's acknowledgement: the running report, the checkpoint's trigger (at 1 s) and
// subtask 0's acknowledgement are its three events. It returns the next run's input and
// when the run ended.
func runWithCheckpointInFlight(t *testing.T) (contract.PipelineInput, time.Time) {
	t.Helper()
	h := runningHarness(t)
	h.at(1500*time.Millisecond, contract.TaskReportSignal, ackReport(1, ack(0)))
	h.env.ExecuteWorkflow(contract.PipelineWorkflowName, fewEventsPerRun(checkpointingInput(), 3))
	next := continuedWith(t, h)
	if next.Tunables.PipelineEventsBeforeContinue != 3 {
		t.Fatalf("the next run's tunables %+v, want the first's", next.Tunables)
	}
	if h.triggers != 1 || len(h.persisted) != 0 {
		t.Fatalf("triggers %d, manifests %d: want one checkpoint in flight", h.triggers, len(h.persisted))
	}
	p := next.Resume.Pending
	if p == nil || p.ID != 1 || p.Savepoint || len(p.Acks) != 1 || p.Acks[0].StateKey != "state-a" {
		t.Fatalf("the checkpoint in flight was not handed over: pending %+v", p)
	}
	if want := t0.Add(time.Second + time.Minute); !p.Deadline.Equal(want) {
		t.Fatalf("deadline %s, want %s (trigger plus timeout)", p.Deadline, want)
	}
	return next, h.env.Now()
}

// TestCheckpointInFlightCompletesAfterContinueAsNew: a checkpoint that is waiting for
// acknowledgements when the pipeline continues as new completes in the new run once the
// remaining ones arrive: one manifest with every task's state, then the sink's commit.
func TestCheckpointInFlightCompletesAfterContinueAsNew(t *testing.T) {
	next, ended := runWithCheckpointInFlight(t)
	next.Tunables.PipelineEventsBeforeContinue = 0 // the default: this run goes on to the end
	h := newHarness(t)
	h.env.SetStartTime(ended)
	h.at(500*time.Millisecond, contract.TaskReportSignal, ackReport(1, ack(1)))
	h.at(700*time.Millisecond, contract.TaskReportSignal, bothClosed())
	h.runPipeline(t, next)
	if len(h.persisted) != 1 {
		t.Fatalf("%d manifests written, want 1", len(h.persisted))
	}
	m := h.persisted[0].Manifest
	if m.Checkpoint != 1 || len(m.Tasks) != 2 || m.Tasks[0].Key != "state-a" || m.Tasks[1].Key != "state-b" {
		t.Fatalf("manifest %+v", m)
	}
	if len(h.commits) != 2 || h.commits[0].CheckpointID != 1 || h.commits[0].Final ||
		string(h.commits[0].Infos[0]) != "commit-a" || string(h.commits[0].Infos[1]) != "commit-b" || !h.commits[1].Final {
		t.Fatalf("commits %+v", h.commits)
	}
}

// TestCheckpointInFlightExpiresAtItsDeadlineAfterContinueAsNew: a checkpoint handed over
// to a new run that gets no more acknowledgements expires there at the deadline it was
// given when triggered (at the interval timer's first tick past it), not a full timeout after
// the new run started; with no tolerable failures that fails the pipeline.
func TestCheckpointInFlightExpiresAtItsDeadlineAfterContinueAsNew(t *testing.T) {
	next, ended := runWithCheckpointInFlight(t)
	next.Tunables.PipelineEventsBeforeContinue = 0 // the default: this run goes on to the end
	h := newHarness(t)
	h.env.SetStartTime(ended)
	var canceledAt time.Time
	h.cancel = func(context.Context, contract.CancelRequest) error {
		canceledAt = h.env.Now()
		h.env.RegisterDelayedCallback(func() {
			h.env.SignalWorkflow(contract.TaskReportSignal, contract.TaskReport{RunnerID: "r1", Epoch: 1, Tasks: []contract.TaskStatus{
				{Task: contract.TaskID{Group: 1, Subtask: 0}, State: contract.TaskCanceled},
				{Task: contract.TaskID{Group: 1, Subtask: 1}, State: contract.TaskCanceled}}})
		}, time.Millisecond)
		return nil
	}
	h.env.ExecuteWorkflow(contract.PipelineWorkflowName, next)
	if err := h.env.GetWorkflowError(); err == nil || !strings.Contains(err.Error(), "checkpoint 1 expired before completing") {
		t.Fatalf("error %v", err)
	}
	// it expires at the interval timer's first tick at or past the deadline
	deadline := next.Resume.Pending.Deadline
	if canceledAt.Before(deadline) || canceledAt.After(deadline.Add(time.Duration(next.Env.CheckpointInterval)*time.Millisecond)) {
		t.Fatalf("the tasks were stopped at %s, want within an interval of the checkpoint's deadline %s", canceledAt, deadline)
	}
}

// stopsOnCancel has the runner confirm at once that the tasks it is asked to cancel stopped.
func (h *harness) stopsOnCancel() {
	h.cancel = func(_ context.Context, req contract.CancelRequest) error {
		h.canceled = append(h.canceled, req)
		h.env.RegisterDelayedCallback(func() {
			h.env.SignalWorkflow(contract.TaskReportSignal, contract.TaskReport{RunnerID: "r1", Epoch: req.Epoch, Tasks: []contract.TaskStatus{
				{Task: contract.TaskID{Group: 1, Subtask: 0}, State: contract.TaskCanceled},
				{Task: contract.TaskID{Group: 1, Subtask: 1}, State: contract.TaskCanceled}}})
		}, time.Millisecond)
		return nil
	}
}

// TestSavepointAskedForAtContinueAsNewIsTaken: a savepoint asked for while the pipeline
// completes the checkpoint that brings its run to the event limit is not lost to the
// continue-as-new: the run takes it, stops its tasks and ends SAVEPOINT_DONE.
func TestSavepointAskedForAtContinueAsNewIsTaken(t *testing.T) {
	h := newHarness(t)
	h.stopsOnCancel()
	h.persist = func(in contract.PersistInput) {
		if in.Manifest.Checkpoint == 1 {
			h.env.SignalWorkflow(contract.SavepointSignal, nil) // the job asks while checkpoint 1 is written
		}
	}
	h.trigger = func(req contract.TriggerRequest) {
		if req.CheckpointID == 2 {
			h.env.RegisterDelayedCallback(func() {
				h.env.SignalWorkflow(contract.TaskReportSignal, ackReport(2, ack(0), ack(1)))
			}, 100*time.Millisecond)
		}
	}
	// the running report, checkpoint 1's trigger and its acknowledgements are the run's events
	h.at(500*time.Millisecond, contract.TaskReportSignal, bothRunning())
	h.at(1500*time.Millisecond, contract.TaskReportSignal, ackReport(1, ack(0), ack(1)))
	h.env.ExecuteWorkflow(contract.PipelineWorkflowName, fewEventsPerRun(checkpointingInput(), 3))
	if err := h.env.GetWorkflowError(); err != nil {
		t.Fatalf("the savepoint was not taken: %v", err)
	}
	var st contract.PipelineStatus
	if err := h.env.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	if st.State != contract.JobSavepointDone {
		t.Fatalf("state %s, want %s", st.State, contract.JobSavepointDone)
	}
	if len(h.persisted) != 2 || !h.persisted[1].Manifest.Savepoint || h.persisted[1].Manifest.Checkpoint != 2 {
		t.Fatalf("manifests %+v, want checkpoint 1 and savepoint 2", h.persisted)
	}
	if len(h.canceled) != 1 || len(h.released) != 1 {
		t.Fatalf("cancels %+v releases %v", h.canceled, h.released)
	}
}

// TestCancelAtContinueAsNewStopsTheTasks: a cancel that arrives with the report that brings
// the run to the event limit is not lost to the continue-as-new (a new run would not know
// of it): the run stops its tasks, releases its slots and ends CANCELED.
func TestCancelAtContinueAsNewStopsTheTasks(t *testing.T) {
	h := newHarness(t)
	h.stopsOnCancel()
	report := bothRunning()
	for _, at := range []time.Duration{time.Second, 2 * time.Second} {
		h.at(at, contract.TaskReportSignal, report)
	}
	h.env.RegisterDelayedCallback(func() {
		// both in one workflow task: the report is taken first, then the limit is reached
		h.env.SignalWorkflowSkippingWorkflowTask(contract.TaskReportSignal, report)
		h.env.CancelWorkflow()
	}, 3*time.Second)
	plan := testPlan()
	h.env.ExecuteWorkflow(contract.PipelineWorkflowName, fewEventsPerRun(contract.PipelineInput{JobID: 7, Env: plan.Env, Job: plan.Job,
		Pipeline: plan.Pipelines[0], Vertices: plan.Vertices}, 3))
	if err := h.env.GetWorkflowError(); !temporal.IsCanceledError(err) {
		t.Fatalf("error %v, want canceled", err)
	}
	if len(h.canceled) != 1 || len(h.released) != 1 {
		t.Fatalf("cancels %+v releases %v", h.canceled, h.released)
	}
}

// oneRunnerGrants put the test plan's task group on runner r1.
func oneRunnerGrants() []contract.SlotGrant {
	return []contract.SlotGrant{{Group: 1, RunnerID: "r1", TaskQueue: contract.RunnerQueue("r1"), Slots: []int{0, 1}}}
}

// twoRunnerGrants put twoRunnerInput's source on runner r1 and its sink on r2.
func twoRunnerGrants() []contract.SlotGrant {
	return []contract.SlotGrant{
		{Group: 1, RunnerID: "r1", TaskQueue: contract.RunnerQueue("r1"), Slots: []int{0}},
		{Group: 2, RunnerID: "r2", TaskQueue: contract.RunnerQueue("r2"), Slots: []int{0}}}
}

// twoRunnerInput is a pipeline of two task groups of one task each, a source and a sink.
func twoRunnerInput() contract.PipelineInput {
	src := &contract.Vertex{ID: 1, Kind: contract.SourceVertex, Plugin: "FakeSource", Parallelism: 1}
	sink := &contract.Vertex{ID: 2, Kind: contract.SinkVertex, Plugin: "Assert", Inputs: []int{1}, Parallelism: 1}
	return contract.PipelineInput{JobID: 7, Env: contract.Env{Mode: contract.Batch, Parallelism: 1},
		Job: contract.Job{ID: 7, Name: "t", Mode: contract.Batch}, Vertices: []*contract.Vertex{src, sink},
		Pipeline: contract.Pipeline{ID: 1, Vertices: []int{1, 2}, TaskGroups: []contract.TaskGroup{
			{ID: 1, Vertices: []int{1}, Parallelism: 1}, {ID: 2, Vertices: []int{2}, Parallelism: 1}}}}
}

// TestRunnerLostWhileStoppingCountsItsTasksStopped: a runner declared lost while the
// pipeline stops its tasks after a failure is not waited for: its tasks count as stopped at
// once, whether the notice comes while the CancelTasks calls run (the lost runner's never
// returns) or while the pipeline waits for the tasks' reports. The pipeline then fails with
// the failure that stopped it, well within the minute it would wait for reports.
func TestRunnerLostWhileStoppingCountsItsTasksStopped(t *testing.T) {
	for _, tc := range []struct {
		name string
		// cancelHangs: r2's CancelTasks call does not return until the slots are released
		cancelHangs bool
		lostAfter   time.Duration // after the failure
	}{
		{name: "while waiting for the reports", lostAfter: 2 * time.Second},
		{name: "while the cancel calls run", cancelHangs: true, lostAfter: 200 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.env.SetStartTime(t0)
			in := twoRunnerInput()
			h.alloc = func(_ context.Context, req contract.AllocateRequest) (*contract.Allocation, error) {
				return &contract.Allocation{Owner: req.Owner, Grants: twoRunnerGrants()}, nil
			}
			released, r2Returned := make(chan struct{}), make(chan struct{})
			releasedFirst := false
			h.onRelease = func(string) {
				select {
				case <-r2Returned:
				default:
					releasedFirst = true
				}
				close(released)
			}
			h.cancel = func(ctx context.Context, req contract.CancelRequest) error {
				if tc.cancelHangs && activity.GetInfo(ctx).TaskQueue == "strait-runner-r2" {
					defer close(r2Returned)
					select {
					case <-released:
					case <-time.After(20 * time.Second): // the pipeline waited for the lost runner
					}
				}
				return nil
			}
			failedAt := time.Second
			h.at(500*time.Millisecond, contract.TaskReportSignal, contract.TaskReport{RunnerID: "r1", Epoch: 1,
				Tasks: []contract.TaskStatus{{Task: contract.TaskID{Group: 1}, State: contract.TaskRunning}}})
			h.at(500*time.Millisecond, contract.TaskReportSignal, contract.TaskReport{RunnerID: "r2", Epoch: 1,
				Tasks: []contract.TaskStatus{{Task: contract.TaskID{Group: 2}, State: contract.TaskRunning}}})
			h.at(failedAt, contract.TaskReportSignal, contract.TaskReport{RunnerID: "r1", Epoch: 1,
				Tasks: []contract.TaskStatus{{Task: contract.TaskID{Group: 1}, State: contract.TaskFailed, Error: "connection to r2 reset"}}})
			h.at(failedAt+tc.lostAfter, contract.RunnerLostSignal, contract.RunnerLost{RunnerID: "r2", Reason: "lease expired"})
			h.env.ExecuteWorkflow(contract.PipelineWorkflowName, in)
			err := h.env.GetWorkflowError()
			if err == nil || !strings.Contains(err.Error(), "connection to r2 reset") {
				t.Fatalf("error %v, want the failure that stopped the pipeline", err)
			}
			if took := h.env.Now().Sub(t0.Add(failedAt)); took > tc.lostAfter+time.Second {
				t.Fatalf("the pipeline ended %s after the failure, want about %s", took, tc.lostAfter)
			}
			if tc.cancelHangs && !releasedFirst {
				t.Fatal("the pipeline waited for the lost runner's cancel call before releasing its slots")
			}
		})
	}
}
