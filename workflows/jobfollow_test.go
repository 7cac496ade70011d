package workflows

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// countedAck is subtask sub's acknowledgement of a checkpoint with rows read and written.
func countedAck(sub int, rows int64) contract.TaskAck {
	a := ack(sub)
	a.Counters = contract.Counters{RowsRead: rows, RowsWritten: rows}
	return a
}

func jobStatus(t *testing.T, h *harness) contract.JobStatus {
	t.Helper()
	v, err := h.env.QueryWorkflow(contract.StatusQuery)
	if err != nil {
		t.Fatal(err)
	}
	var st contract.JobStatus
	if err := v.Get(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestJobStatusQueryCountsRunningPipelines: while a job runs, its own status query answers
// the rows its pipelines counted at their latest checkpoint (before, only each pipeline's
// query had them, and the job's read 0 until a pipeline ended).
func TestJobStatusQueryCountsRunningPipelines(t *testing.T) {
	h := newHarness(t)
	plan := testPlan()
	plan.Env.CheckpointInterval, plan.Env.CheckpointTimeout = 1000, 60000
	h.plan = func(context.Context, contract.PlanInput) (*contract.Plan, error) { return plan, nil }
	pipeline := contract.PipelineWorkflowID(7, 1)
	signal := func(d time.Duration, r contract.TaskReport) {
		h.env.RegisterDelayedCallback(func() { _ = h.env.SignalWorkflowByID(pipeline, contract.TaskReportSignal, r) }, d)
	}
	signal(500*time.Millisecond, bothRunning())
	signal(1500*time.Millisecond, ackReport(1, countedAck(0, 30), countedAck(1, 12)))
	var live contract.JobStatus
	h.env.RegisterDelayedCallback(func() { live = jobStatus(t, h) }, 15*time.Second)
	signal(16*time.Second, contract.TaskReport{RunnerID: "r1", Epoch: 1, Tasks: []contract.TaskStatus{closed(0, 31, "a"), closed(1, 13, "b")}})
	h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7})
	if err := h.env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if live.State != contract.JobRunning || live.Counters.RowsRead != 42 || live.Counters.RowsWritten != 42 ||
		len(live.Pipelines) != 1 || live.Pipelines[0].State != contract.JobRunning || live.Pipelines[0].Counters.RowsRead != 42 {
		t.Fatalf("the running job's status query answered %+v, want RUNNING with 42 rows read and written", live)
	}
	var done contract.JobStatus
	if err := h.env.GetWorkflowResult(&done); err != nil {
		t.Fatal(err)
	}
	if done.State != contract.JobFinished || done.Counters.RowsRead != 44 || done.Pipelines[0].State != contract.JobFinished {
		t.Fatalf("final status %+v", done)
	}
}

// TestJobContinuesAsNewWhileItsPipelinesRun: a job whose history grew long continues as new
// without stopping its pipelines, handing the next run its status and the pipelines still
// running.
func TestJobContinuesAsNewWhileItsPipelinesRun(t *testing.T) {
	h := newHarness(t)
	pipeline := contract.PipelineWorkflowID(7, 1)
	h.runningAt(pipeline, 500*time.Millisecond)
	tunables := contract.Tunables{JobEventsBeforeContinue: 20}
	h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7, Config: "env {}", Tunables: tunables})
	next := continuedInput[contract.JobInput](t, h.env.GetWorkflowError())
	r := next.Resume
	if r == nil || len(r.Running) != 1 || r.Running[0] != 1 || r.Status.JobID != 7 || r.Stopping || next.Config != "env {}" ||
		next.Tunables != tunables {
		t.Fatalf("handed over %+v (resume %+v)", next, r)
	}
	// (the test environment has no next run for the pipeline's signals to reach, so the
	// pipeline then stops as one whose job is gone; node.TestJobContinuesAsNewWhileItsPipelinesRun
	// follows both runs on a real server)
}

// runningAt has runner r1 report to the pipeline workflow wid, after d, that its two
// subtasks run.
func (h *harness) runningAt(wid string, d time.Duration) {
	h.env.RegisterDelayedCallback(func() {
		_ = h.env.SignalWorkflowByID(wid, contract.TaskReportSignal, bothRunning())
	}, d)
}

// resumedJob is the input of a job run that continues one whose pipeline 1 runs.
func resumedJob() contract.JobInput {
	return contract.JobInput{JobID: 7, Resume: &contract.JobResume{Running: []int{1}, Announced: true,
		Status: contract.JobStatus{JobID: 7, Name: "t", Mode: "BATCH", State: contract.JobRunning,
			Pipelines: []contract.PipelineStatus{{ID: 1, State: contract.JobRunning, Counters: contract.Counters{RowsRead: 5}}}}}}
}

// TestContinuedJobEndsWithItsPipeline: the run a job continued in learns its pipeline's end
// from the pipeline's last signal and finishes with its counts.
func TestContinuedJobEndsWithItsPipeline(t *testing.T) {
	h := newHarness(t)
	h.env.RegisterDelayedCallback(func() {
		h.env.SignalWorkflow(contract.PipelineProgressSignal, contract.PipelineProgress{Ended: true,
			Status: contract.PipelineStatus{ID: 1, State: contract.JobFinished, Counters: contract.Counters{RowsRead: 9, RowsWritten: 9}}})
	}, time.Second)
	h.env.ExecuteWorkflow(contract.JobWorkflowName, resumedJob())
	var st contract.JobStatus
	if err := h.env.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	if st.State != contract.JobFinished || st.Counters.RowsWritten != 9 || st.Name != "t" {
		t.Fatalf("status %+v", st)
	}
	if len(h.described) != 0 {
		t.Fatalf("looked up %v, though the pipeline reported", h.described)
	}
}

// TestJobLooksUpASilentPipeline: a pipeline that stops reporting (it was terminated, so it
// could not say how it ended) is looked up after PipelineSilence, and its end fails the job.
func TestJobLooksUpASilentPipeline(t *testing.T) {
	h := newHarness(t)
	h.describe = func(_ context.Context, in contract.DescribeInput) ([]contract.PipelineLookup, error) {
		return []contract.PipelineLookup{{WorkflowID: in.WorkflowIDs[0],
			Status: &contract.PipelineStatus{State: contract.JobFailed, Error: "pipeline workflow strait-job-7-p1 was terminated"}}}, nil
	}
	h.env.ExecuteWorkflow(contract.JobWorkflowName, resumedJob())
	err := h.env.GetWorkflowError()
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Message() != "pipeline 1: pipeline workflow strait-job-7-p1 was terminated" {
		t.Fatalf("error %v, want the job failed by its terminated pipeline", err)
	}
	if len(h.described) != 1 || h.described[0] != contract.PipelineWorkflowID(7, 1) {
		t.Fatalf("looked up %v", h.described)
	}
}

// TestCanceledJobStopsItsPipelines: canceling a job cancels its pipelines, which stop their
// tasks and say so; the job ends CANCELED.
func TestCanceledJobStopsItsPipelines(t *testing.T) {
	h := newHarness(t)
	pipeline := contract.PipelineWorkflowID(7, 1)
	h.runningAt(pipeline, 500*time.Millisecond)
	h.env.RegisterDelayedCallback(func() { h.env.CancelWorkflow() }, 2*time.Second)
	h.cancel = func(_ context.Context, req contract.CancelRequest) error {
		h.canceled = append(h.canceled, req)
		h.env.RegisterDelayedCallback(func() {
			_ = h.env.SignalWorkflowByID(pipeline, contract.TaskReportSignal, contract.TaskReport{RunnerID: "r1", Epoch: 1,
				Tasks: []contract.TaskStatus{{Task: contract.TaskID{Group: 1, Subtask: 0}, State: contract.TaskCanceled},
					{Task: contract.TaskID{Group: 1, Subtask: 1}, State: contract.TaskCanceled}}})
		}, 100*time.Millisecond)
		return nil
	}
	h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7})
	err := h.env.GetWorkflowError()
	if !temporal.IsCanceledError(err) {
		t.Fatalf("error %v, want canceled", err)
	}
	if len(h.canceled) != 1 {
		t.Fatalf("tasks stopped %d times, want once", len(h.canceled))
	}
}

// TestPipelineWhoseJobIsGoneStops: a pipeline whose progress signal cannot reach its job
// (the job workflow was terminated) stops its tasks and ends CANCELED rather than run on
// with nobody to follow it.
func TestPipelineWhoseJobIsGoneStops(t *testing.T) {
	h := newHarness(t)
	h.env.OnSignalExternalWorkflow(mock.Anything, "strait-job-gone", "", mock.Anything, mock.Anything).Return(
		errors.New("workflow execution already completed"))
	h.cancel = func(_ context.Context, req contract.CancelRequest) error {
		h.canceled = append(h.canceled, req)
		h.env.RegisterDelayedCallback(func() {
			h.env.SignalWorkflow(contract.TaskReportSignal, contract.TaskReport{RunnerID: "r1", Epoch: 1,
				Tasks: []contract.TaskStatus{{Task: contract.TaskID{Group: 1, Subtask: 0}, State: contract.TaskCanceled},
					{Task: contract.TaskID{Group: 1, Subtask: 1}, State: contract.TaskCanceled}}})
		}, 100*time.Millisecond)
		return nil
	}
	h.at(500*time.Millisecond, contract.TaskReportSignal, bothRunning())
	in := checkpointingInput()
	in.ReportTo = "strait-job-gone"
	h.env.ExecuteWorkflow(contract.PipelineWorkflowName, in)
	if err := h.env.GetWorkflowError(); !temporal.IsCanceledError(err) {
		t.Fatalf("error %v, want canceled", err)
	}
	if len(h.canceled) != 1 {
		t.Fatalf("tasks stopped %d times, want once", len(h.canceled))
	}
}

// TestJobHandsItsTunablesToItsPipelines: the pipelines a job starts run with the job's
// tunables.
func TestJobHandsItsTunablesToItsPipelines(t *testing.T) {
	h := newHarness(t)
	tunables := contract.Tunables{PipelineEventsBeforeContinue: 50, ProgressInterval: time.Second}
	var got []contract.Tunables
	h.env.OnWorkflow(contract.PipelineWorkflowName, mock.Anything, mock.Anything).Return(
		func(ctx workflow.Context, in contract.PipelineInput) (*contract.PipelineStatus, error) {
			got = append(got, in.Tunables)
			return PipelineWorkflow(ctx, in)
		})
	h.reportAfterDeploy(contract.TaskReport{RunnerID: "r1", Epoch: 1, Tasks: []contract.TaskStatus{closed(0, 3, "a"), closed(1, 5, "b")}})
	h.env.ExecuteWorkflow(contract.JobWorkflowName, contract.JobInput{JobID: 7, Tunables: tunables})
	if err := h.env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != tunables {
		t.Fatalf("the pipelines ran with the tunables %+v, want the job's %+v", got, tunables)
	}
}
