package workflows

import (
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// declineReport is r1's decline of checkpoint id: subtask 0's state was not stored, with
// the acknowledgements its other tasks gave.
func declineReport(id int64, acks ...contract.TaskAck) contract.TaskReport {
	r := ackReport(id, acks...)
	r.Checkpoint.Declined = "task g1-0: state not written: the store does not answer"
	return r
}

// TestDeclinedCheckpointIsAbortedAtOnce: a runner declines checkpoint 1 (subtask 0's state
// could not be stored) while subtask 1 had acknowledged it. The coordinator aborts it when
// the decline arrives, not at its minute's timeout: checkpoint 2 is triggered at the next
// tick, and what subtask 1 prepared for checkpoint 1 is committed with it.
func TestDeclinedCheckpointIsAbortedAtOnce(t *testing.T) {
	h := newHarness(t)
	h.env.SetStartTime(t0)
	in := checkpointingInput()
	in.Env.TolerableCheckpointFailures = 1
	var ids []int64
	var at []time.Duration
	h.trigger = func(req contract.TriggerRequest) {
		ids = append(ids, req.CheckpointID)
		at = append(at, h.env.Now().Sub(t0))
	}
	h.at(500*time.Millisecond, contract.TaskReportSignal, bothRunning())
	h.at(1200*time.Millisecond, contract.TaskReportSignal, declineReport(1, taskAck(1, "cp1-b")))
	h.at(2500*time.Millisecond, contract.TaskReportSignal, ackReport(2, taskAck(0, "cp2-a"), taskAck(1, "cp2-b")))
	h.at(2700*time.Millisecond, contract.TaskReportSignal, bothClosed())
	h.runPipeline(t, in)
	if !slices.Equal(ids, []int64{1, 2}) || at[1] > 2500*time.Millisecond {
		t.Fatalf("triggered %v at %v: want checkpoint 2 at the tick after the decline (1.2 s)", ids, at)
	}
	if len(h.persisted) != 1 || h.persisted[0].Manifest.Checkpoint != 2 {
		t.Fatalf("%d manifests: want checkpoint 2's only", len(h.persisted))
	}
	want := []string{"cp1-b", "cp2-a", "cp2-b"}
	if len(h.commits) != 2 {
		t.Fatalf("%d commits, want checkpoint 2's and the final one", len(h.commits))
	}
	if got := infoSet(h.commits[0]); h.commits[0].CheckpointID != 2 || !slices.Equal(got, want) {
		t.Fatalf("checkpoint %d committed %v, want checkpoint 2 committing %v", h.commits[0].CheckpointID, got, want)
	}
	if got := infoSet(h.commits[1]); !h.commits[1].Final || !slices.Equal(got, []string{"final-a", "final-b"}) {
		t.Fatalf("final commit of %v, want the final transactions only", got)
	}
}

// TestDeclinedCheckpointPastTheToleranceFailsThePipeline: with no tolerable failures, a
// declined checkpoint fails the pipeline when the decline arrives, naming the runner and its
// reason.
func TestDeclinedCheckpointPastTheToleranceFailsThePipeline(t *testing.T) {
	h := runningHarness(t)
	h.stopsOnCancel()
	h.at(1200*time.Millisecond, contract.TaskReportSignal, declineReport(1))
	h.env.ExecuteWorkflow(contract.PipelineWorkflowName, checkpointingInput())
	err := h.env.GetWorkflowError()
	want := "checkpoint 1 declined by runner r1: task g1-0: state not written: the store does not answer"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
	if len(h.canceled) == 0 || h.env.Now().Sub(t0) > 10*time.Second {
		t.Fatalf("the pipeline ended %s after its start, %d cancels: want the tasks stopped at the decline, long before the minute's timeout",
			h.env.Now().Sub(t0), len(h.canceled))
	}
}

// TestDeclineInAnEarlierHistoryWaitsForTheTimeout: a run recorded before declines were
// acted on (no version marker) takes a decline as the acknowledgements it carries, and the
// checkpoint expires at its timeout as it did then, so such a history replays unchanged.
func TestDeclineInAnEarlierHistoryWaitsForTheTimeout(t *testing.T) {
	h := newHarness(t)
	h.env.SetStartTime(t0)
	h.env.OnGetVersion("abort-declined-checkpoint", workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	h.stopsOnCancel()
	h.at(500*time.Millisecond, contract.TaskReportSignal, bothRunning())
	h.at(1200*time.Millisecond, contract.TaskReportSignal, declineReport(1))
	h.env.ExecuteWorkflow(contract.PipelineWorkflowName, checkpointingInput())
	if err := h.env.GetWorkflowError(); err == nil || !strings.Contains(err.Error(), "checkpoint 1 expired before completing") {
		t.Fatalf("error %v, want the checkpoint expired", err)
	}
}
