//go:build record

package workflows

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// TestRecordPipelineHistories records, on the embedded Temporal server, the histories of the
// pipeline's steps that a finished job's history (node.TestHistoriesReplay) does not reach,
// and writes them to testdata for TestReplayRecordedHistories:
//
//	go test -tags record -count=1 -run TestRecordPipelineHistories ./workflows/
//
// The activities are stand-ins that tell the test what they were asked; the test plays the
// runners and the resource manager with signals.
func TestRecordPipelineHistories(t *testing.T) {
	c := recordServer(t)
	r := &recorder{t: t, c: c, seen: make(chan string, 100)}
	for _, queue := range []string{contract.JobsQueue, contract.RunnerQueue("r1")} {
		w := r.startWorker(queue, queue == contract.JobsQueue)
		t.Cleanup(w.Stop)
	}
	t.Run("continued with a checkpoint in flight", r.continuedWithCheckpointInFlight)
	t.Run("savepoint asked for at continue-as-new", r.savepointAtContinueAsNew)
	t.Run("runner lost while stopping", r.runnerLostWhileStopping)
}

// recorder runs workers whose activities report what they were asked on seen, with the job
// ("71: deploy r1", "71: trigger 1", "71: persist 1", "71: commit 1", "73: cancel r2").
type recorder struct {
	t    *testing.T
	c    client.Client
	seen chan string
	// grants is what AllocateSlots answers
	grants []contract.SlotGrant
	// persisted runs when a manifest is written
	persisted func(contract.PersistInput)
}

// startWorker polls a task queue: the jobs queue for the workflows and coordinator
// activities, a runner's queue for the runner's. The caller stops it.
func (r *recorder) startWorker(queue string, jobs bool) worker.Worker {
	w := worker.New(r.c, queue, worker.Options{})
	runnerOf := func(ctx context.Context) string {
		return strings.TrimPrefix(activity.GetInfo(ctx).TaskQueue, "strait-runner-")
	}
	if jobs {
		w.RegisterWorkflowWithOptions(PipelineWorkflow, workflow.RegisterOptions{Name: contract.PipelineWorkflowName})
		w.RegisterActivityWithOptions(func(_ context.Context, req contract.AllocateRequest) (*contract.Allocation, error) {
			return &contract.Allocation{Owner: req.Owner, Grants: r.grants}, nil
		}, activity.RegisterOptions{Name: contract.AllocateActivity})
		w.RegisterActivityWithOptions(func(_ context.Context, in contract.PersistInput) error {
			if r.persisted != nil {
				r.persisted(in)
			}
			r.seen <- fmt.Sprintf("%d: persist %d", in.Manifest.Job, in.Manifest.Checkpoint)
			return nil
		}, activity.RegisterOptions{Name: contract.PersistCheckpointActivity})
		w.RegisterActivityWithOptions(func(_ context.Context, in contract.CommitInput) error {
			r.seen <- fmt.Sprintf("%d: commit %d", in.Job.ID, in.CheckpointID)
			return nil
		}, activity.RegisterOptions{Name: contract.CommitActivity})
	} else {
		w.RegisterActivityWithOptions(func(ctx context.Context, d contract.Deployment) error {
			r.seen <- fmt.Sprintf("%d: deploy %s", d.Job.ID, runnerOf(ctx))
			return nil
		}, activity.RegisterOptions{Name: contract.DeployActivity})
		w.RegisterActivityWithOptions(func(ctx context.Context, req contract.CancelRequest) error {
			r.seen <- fmt.Sprintf("%d: cancel %s", req.JobID, runnerOf(ctx))
			return nil
		}, activity.RegisterOptions{Name: contract.CancelTasksActivity})
		w.RegisterActivityWithOptions(func(_ context.Context, req contract.TriggerRequest) error {
			r.seen <- fmt.Sprintf("%d: trigger %d", req.JobID, req.CheckpointID)
			return nil
		}, activity.RegisterOptions{Name: contract.TriggerCheckpointActivity})
	}
	if err := w.Start(); err != nil {
		r.t.Fatal(err)
	}
	return w
}

// await waits until an activity reports what for job, skipping other reports.
func (r *recorder) await(t *testing.T, job int64, what string) {
	t.Helper()
	what = fmt.Sprintf("%d: %s", job, what)
	deadline := time.After(30 * time.Second)
	for {
		select {
		case got := <-r.seen:
			if got == what {
				return
			}
		case <-deadline:
			t.Fatalf("no %q within 30 s", what)
		}
	}
}

func (r *recorder) signal(t *testing.T, wid, name string, arg any) {
	t.Helper()
	if err := r.c.SignalWorkflow(context.Background(), wid, "", name, arg); err != nil {
		t.Fatal(err)
	}
}

// start starts a pipeline whose runs continue as new after recordedEventsPerRun events.
func (r *recorder) start(t *testing.T, in contract.PipelineInput) (wid, runID string) {
	t.Helper()
	in = fewEventsPerRun(in, recordedEventsPerRun)
	wid = contract.PipelineWorkflowID(in.JobID, in.Pipeline.ID)
	run, err := r.c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: wid, TaskQueue: contract.JobsQueue},
		contract.PipelineWorkflowName, in)
	if err != nil {
		t.Fatal(err)
	}
	return wid, run.GetRunID()
}

// write replays a run's history and writes it to testdata as <name>_history.json.
func (r *recorder) write(t *testing.T, name, wid, runID string) {
	t.Helper()
	writeHistory(t, r.c, name, wid, runID, PipelineWorkflow, contract.PipelineWorkflowName)
}

// continuedWithCheckpointInFlight: the run continues as new while checkpoint 1 waits for
// subtask 1's acknowledgement; the next run completes it and finishes.
func (r *recorder) continuedWithCheckpointInFlight(t *testing.T) {
	r.grants, r.persisted = oneRunnerGrants(), nil
	in := checkpointingInput()
	in.JobID, in.Job.ID = 71, 71
	wid, first := r.start(t, in)
	r.await(t, in.JobID, "deploy r1")
	r.signal(t, wid, contract.TaskReportSignal, bothRunning())
	r.await(t, in.JobID, "trigger 1")
	r.signal(t, wid, contract.TaskReportSignal, ackReport(1, ack(0)))
	end := closedEvent(t, r.c, wid, first)
	can := end.GetWorkflowExecutionContinuedAsNewEventAttributes()
	if can == nil {
		t.Fatalf("the first run ended with %s, want continue-as-new", end.GetEventType())
	}
	second := can.GetNewExecutionRunId()
	r.signal(t, wid, contract.TaskReportSignal, ackReport(1, ack(1)))
	r.await(t, in.JobID, "commit 1")
	r.signal(t, wid, contract.TaskReportSignal, bothClosed())
	if end := closedEvent(t, r.c, wid, second); end.GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED {
		t.Fatalf("the second run ended with %s", end.GetEventType())
	}
	r.write(t, "pipeline_continued", wid, first)
	r.write(t, "pipeline_resumed", wid, second)
}

// savepointAtContinueAsNew: the savepoint is asked for while checkpoint 1, the run's last
// event before continue-as-new, is written; the run takes it and ends SAVEPOINT_DONE.
func (r *recorder) savepointAtContinueAsNew(t *testing.T) {
	r.grants = oneRunnerGrants()
	in := checkpointingInput()
	in.JobID, in.Job.ID = 72, 72
	wid := contract.PipelineWorkflowID(in.JobID, in.Pipeline.ID)
	r.persisted = func(p contract.PersistInput) {
		if p.Manifest.Job == in.JobID && p.Manifest.Checkpoint == 1 {
			// the job asks while checkpoint 1 is written
			if err := r.c.SignalWorkflow(context.Background(), wid, "", contract.SavepointSignal, nil); err != nil {
				t.Error(err)
			}
		}
	}
	_, runID := r.start(t, in)
	r.await(t, in.JobID, "deploy r1")
	r.signal(t, wid, contract.TaskReportSignal, bothRunning())
	r.await(t, in.JobID, "trigger 1")
	r.signal(t, wid, contract.TaskReportSignal, ackReport(1, ack(0), ack(1)))
	r.await(t, in.JobID, "trigger 2")
	r.signal(t, wid, contract.TaskReportSignal, ackReport(2, ack(0), ack(1)))
	r.await(t, in.JobID, "cancel r1")
	r.signal(t, wid, contract.TaskReportSignal, contract.TaskReport{RunnerID: "r1", Epoch: 1, Tasks: []contract.TaskStatus{
		{Task: contract.TaskID{Group: 1, Subtask: 0}, State: contract.TaskCanceled},
		{Task: contract.TaskID{Group: 1, Subtask: 1}, State: contract.TaskCanceled}}})
	if end := closedEvent(t, r.c, wid, runID); end.GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED {
		t.Fatalf("the run ended with %s", end.GetEventType())
	}
	r.write(t, "pipeline_savepoint_at_continue", wid, runID)
}

// runnerLostWhileStopping: a task fails; while its pipeline stops the tasks, runner r2
// (whose queue nobody polls any more) is declared lost; the pipeline fails without waiting
// for it.
func (r *recorder) runnerLostWhileStopping(t *testing.T) {
	r.grants, r.persisted = twoRunnerGrants(), nil
	r2 := r.startWorker(contract.RunnerQueue("r2"), false)
	defer r2.Stop()
	in := twoRunnerInput()
	in.JobID, in.Job.ID = 73, 73
	wid, runID := r.start(t, in)
	r.await(t, in.JobID, "deploy r2")
	r2.Stop() // the runner dies
	r.signal(t, wid, contract.TaskReportSignal, contract.TaskReport{RunnerID: "r1", Epoch: 1,
		Tasks: []contract.TaskStatus{{Task: contract.TaskID{Group: 1}, State: contract.TaskRunning}}})
	r.signal(t, wid, contract.TaskReportSignal, contract.TaskReport{RunnerID: "r2", Epoch: 1,
		Tasks: []contract.TaskStatus{{Task: contract.TaskID{Group: 2}, State: contract.TaskRunning}}})
	r.signal(t, wid, contract.TaskReportSignal, contract.TaskReport{RunnerID: "r1", Epoch: 1,
		Tasks: []contract.TaskStatus{{Task: contract.TaskID{Group: 1}, State: contract.TaskFailed, Error: "connection to r2 reset"}}})
	r.await(t, in.JobID, "cancel r1")
	r.signal(t, wid, contract.RunnerLostSignal, contract.RunnerLost{RunnerID: "r2", Reason: "lease expired"})
	started := time.Now()
	if end := closedEvent(t, r.c, wid, runID); end.GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED {
		t.Fatalf("the run ended with %s", end.GetEventType())
	}
	if took := time.Since(started); took > 20*time.Second {
		t.Fatalf("the pipeline took %s to stop after r2 was lost", took)
	}
	r.write(t, "pipeline_lost_while_stopping", wid, runID)
}
