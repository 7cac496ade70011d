package workflows

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/strait-dev/strait/contract"
)

// taskAck is subtask sub's acknowledgement with its sink's commit info.
func taskAck(sub int, info string) contract.TaskAck {
	return contract.TaskAck{Task: contract.TaskID{Group: 1, Subtask: sub}, StateKey: "state-" + info,
		Commits: []contract.CommitInfo{{Vertex: 2, Subtask: sub, Info: []byte(info)}}}
}

func infoSet(in contract.CommitInput) []string {
	out := make([]string, len(in.Infos))
	for i, b := range in.Infos {
		out[i] = string(b)
	}
	slices.Sort(out)
	return out
}

// TestCheckpointInFlightWhenTheTasksEndIsCommittedFinally: a bounded pipeline's tasks end
// while a checkpoint waits for an acknowledgement that never comes (subtask 0 ended before
// its barrier). Subtask 1's writer prepared its transaction at that checkpoint and went on
// to a final one: the final commit commits both. Before, the prepared one was dropped with
// the checkpoint, and its rows were lost although the job finished.
func TestCheckpointInFlightWhenTheTasksEndIsCommittedFinally(t *testing.T) {
	h := runningHarness(t)
	h.at(1500*time.Millisecond, contract.TaskReportSignal, ackReport(1, taskAck(1, "cp1-b")))
	h.at(1700*time.Millisecond, contract.TaskReportSignal, bothClosed())
	h.runPipeline(t, checkpointingInput())
	if h.triggers != 1 || len(h.persisted) != 0 {
		t.Fatalf("triggers %d, manifests %d: want checkpoint 1 triggered and never completed", h.triggers, len(h.persisted))
	}
	if len(h.commits) != 1 || !h.commits[0].Final {
		t.Fatalf("commits %+v, want the final one", h.commits)
	}
	if got, want := infoSet(h.commits[0]), []string{"cp1-b", "final-a", "final-b"}; !slices.Equal(got, want) {
		t.Fatalf("final commit of %v, want %v", got, want)
	}
}

// TestExpiredCheckpointsCommitsGoWithTheNext: with a tolerable failure, a checkpoint expires
// with one acknowledgement and the other arrives late; the writers went on, so what both
// prepared for it is committed with the next checkpoint that completes (and recorded in its
// manifest, so a restore commits it too), and not again by the final commit.
func TestExpiredCheckpointsCommitsGoWithTheNext(t *testing.T) {
	h := newHarness(t)
	h.env.SetStartTime(t0)
	in := checkpointingInput()
	in.Env.CheckpointTimeout, in.Env.TolerableCheckpointFailures = 1500, 1
	var ids []int64
	h.trigger = func(req contract.TriggerRequest) { ids = append(ids, req.CheckpointID) }
	h.at(500*time.Millisecond, contract.TaskReportSignal, bothRunning())
	h.at(1200*time.Millisecond, contract.TaskReportSignal, ackReport(1, taskAck(0, "cp1-a")))
	// checkpoint 1 expires at 2.5 s; subtask 1's acknowledgement comes after
	h.at(2700*time.Millisecond, contract.TaskReportSignal, ackReport(1, taskAck(1, "cp1-b")))
	h.at(3500*time.Millisecond, contract.TaskReportSignal, ackReport(2, taskAck(0, "cp2-a"), taskAck(1, "cp2-b")))
	h.at(3700*time.Millisecond, contract.TaskReportSignal, bothClosed())
	h.runPipeline(t, in)
	if !slices.Equal(ids, []int64{1, 2}) || len(h.persisted) != 1 || h.persisted[0].Manifest.Checkpoint != 2 {
		t.Fatalf("triggered %v, %d manifests: want 1 and 2 triggered, 2 completed", ids, len(h.persisted))
	}
	var inManifest []string
	for _, b := range h.persisted[0].Manifest.Commits[2] {
		inManifest = append(inManifest, string(b))
	}
	slices.Sort(inManifest)
	want := []string{"cp1-a", "cp1-b", "cp2-a", "cp2-b"}
	if !slices.Equal(inManifest, want) {
		t.Fatalf("manifest of checkpoint 2 lists %v, want %v", inManifest, want)
	}
	if len(h.commits) != 2 || h.commits[0].CheckpointID != 2 || !h.commits[1].Final {
		t.Fatalf("commits %+v, want checkpoint 2's and the final one", h.commits)
	}
	if got := infoSet(h.commits[0]); !slices.Equal(got, want) {
		t.Fatalf("checkpoint 2 committed %v, want %v", got, want)
	}
	if got := infoSet(h.commits[1]); !slices.Equal(got, []string{"final-a", "final-b"}) {
		t.Fatalf("final commit of %v, want the final transactions only", got)
	}
}

// TestFailoverDropsWhatTheGivenUpAttemptPrepared: what an attempt's writers prepared for a
// checkpoint that never completed is not committed after a failover: the restored writers
// abort it and the rows are read again, so committing it would write them twice.
func TestFailoverDropsWhatTheGivenUpAttemptPrepared(t *testing.T) {
	h := runningHarness(t)
	h.at(1500*time.Millisecond, contract.TaskReportSignal, ackReport(1, taskAck(1, "cp1-b")))
	h.at(1700*time.Millisecond, contract.TaskReportSignal, contract.TaskReport{RunnerID: "r1", Epoch: 1,
		Tasks: []contract.TaskStatus{{Task: contract.TaskID{Group: 1, Subtask: 0}, State: contract.TaskFailed, Error: "boom"},
			{Task: contract.TaskID{Group: 1, Subtask: 1}, State: contract.TaskCanceled}}})
	h.deploy = func(_ context.Context, d contract.Deployment) error {
		if d.Epoch == 2 {
			h.env.RegisterDelayedCallback(func() {
				h.env.SignalWorkflow(contract.TaskReportSignal, contract.TaskReport{RunnerID: "r1", Epoch: 2,
					Tasks: []contract.TaskStatus{closed(0, 3, "final-a"), closed(1, 4, "final-b")}})
			}, time.Second)
		}
		return nil
	}
	in := checkpointingInput()
	in.Env.RetryTimes, in.Env.RetryIntervalSeconds = 1, 1
	h.runPipeline(t, in)
	if len(h.commits) != 1 || !h.commits[0].Final {
		t.Fatalf("commits %+v, want the final one", h.commits)
	}
	if got := infoSet(h.commits[0]); !slices.Equal(got, []string{"final-a", "final-b"}) {
		t.Fatalf("final commit of %v, want the second attempt's transactions only", got)
	}
}

// TestCancelAbortsWhatTheUncompletedCheckpointPrepared: a job cancelled while a checkpoint
// waits for its last acknowledgement aborts what the acknowledged writers prepared for it
// (a writer cannot: it does not know whether its checkpoint completed), so no prepared
// transaction keeps its locks, or a Kafka partition's last stable offset, after the job.
func TestCancelAbortsWhatTheUncompletedCheckpointPrepared(t *testing.T) {
	h := runningHarness(t)
	h.stopsOnCancel()
	h.at(1500*time.Millisecond, contract.TaskReportSignal, ackReport(1, taskAck(1, "cp1-b")))
	h.env.RegisterDelayedCallback(h.env.CancelWorkflow, 1700*time.Millisecond)
	h.env.ExecuteWorkflow(contract.PipelineWorkflowName, checkpointingInput())
	if err := h.env.GetWorkflowError(); !temporal.IsCanceledError(err) {
		t.Fatalf("error %v, want canceled", err)
	}
	if len(h.commits) != 1 || !h.commits[0].Abort {
		t.Fatalf("commits %+v, want one abort", h.commits)
	}
	if got := infoSet(h.commits[0]); !slices.Equal(got, []string{"cp1-b"}) {
		t.Fatalf("aborted %v, want what checkpoint 1's acknowledged writer prepared", got)
	}
}

// TestFailureAbortsNothingAManifestHolds: a checkpoint whose manifest was written (the
// commit point) but whose commit failed is not aborted when the pipeline then fails for
// good: a restore from the store commits it again. What a later checkpoint prepared and
// never completed is aborted.
func TestFailureAbortsNothingAManifestHolds(t *testing.T) {
	h := newHarness(t)
	h.env.SetStartTime(t0)
	h.stopsOnCancel()
	h.commit = func(in contract.CommitInput) error {
		if !in.Abort && in.CheckpointID == 1 {
			return temporal.NewNonRetryableApplicationError("broker unreachable", contract.CommitFailedType, nil)
		}
		return nil
	}
	in := checkpointingInput()
	in.Env.TolerableCheckpointFailures = 1
	h.at(500*time.Millisecond, contract.TaskReportSignal, bothRunning())
	h.at(1500*time.Millisecond, contract.TaskReportSignal, ackReport(1, taskAck(0, "cp1-a"), taskAck(1, "cp1-b")))
	h.at(2500*time.Millisecond, contract.TaskReportSignal, ackReport(2, taskAck(1, "cp2-b")))
	h.at(2700*time.Millisecond, contract.TaskReportSignal, contract.TaskReport{RunnerID: "r1", Epoch: 1,
		Tasks: []contract.TaskStatus{{Task: contract.TaskID{Group: 1, Subtask: 0}, State: contract.TaskFailed, Error: "boom"}, running(1)}})
	h.env.ExecuteWorkflow(contract.PipelineWorkflowName, in)
	if err := h.env.GetWorkflowError(); err == nil || temporal.IsCanceledError(err) {
		t.Fatalf("error %v, want the pipeline failed", err)
	}
	if len(h.persisted) != 1 || h.persisted[0].Manifest.Checkpoint != 1 {
		t.Fatalf("manifests %+v, want checkpoint 1's", h.persisted)
	}
	var aborts []contract.CommitInput
	for _, c := range h.commits {
		if c.Abort {
			aborts = append(aborts, c)
		}
	}
	if len(aborts) != 1 {
		t.Fatalf("aborts %+v, want one", aborts)
	}
	if got := infoSet(aborts[0]); !slices.Equal(got, []string{"cp2-b"}) {
		t.Fatalf("aborted %v, want checkpoint 2's only", got)
	}
}

// TestOneCommitActivityACheckpoint: a checkpoint of a pipeline with two sinks commits both
// in one CommitCheckpoint activity, each sink with its own writers' infos in subtask order.
func TestOneCommitActivityACheckpoint(t *testing.T) {
	h := newHarness(t)
	h.env.SetStartTime(t0)
	in := checkpointingInput()
	second := &contract.Vertex{ID: 3, Kind: contract.SinkVertex, Plugin: "Console", Inputs: []int{1}, Parallelism: 2}
	in.Vertices = append(in.Vertices, second)
	in.Pipeline.Vertices = append(in.Pipeline.Vertices, 3)
	in.Pipeline.TaskGroups[0].Vertices = append(in.Pipeline.TaskGroups[0].Vertices, 3)
	twoSinks := func(sub int, name string) contract.TaskAck {
		a := taskAck(sub, name+"-s2")
		a.Commits = append(a.Commits, contract.CommitInfo{Vertex: 3, Subtask: sub, Info: []byte(name + "-s3")})
		return a
	}
	h.at(500*time.Millisecond, contract.TaskReportSignal, bothRunning())
	h.at(1500*time.Millisecond, contract.TaskReportSignal, ackReport(1, twoSinks(1, "b"), twoSinks(0, "a")))
	h.at(1700*time.Millisecond, contract.TaskReportSignal, bothClosed())
	h.runPipeline(t, in)
	if h.checkpointCommits != 2 {
		t.Fatalf("%d CommitCheckpoint activities, want 2 (checkpoint 1 and the final commit)", h.checkpointCommits)
	}
	if len(h.commits) != 3 || h.commits[0].Vertex.ID != 2 || h.commits[1].Vertex.ID != 3 {
		t.Fatalf("commits %+v, want checkpoint 1's of sinks 2 and 3, then the final one", h.commits)
	}
	for i, want := range [][]string{{"a-s2", "b-s2"}, {"a-s3", "b-s3"}} {
		got := make([]string, len(h.commits[i].Infos))
		for j, b := range h.commits[i].Infos {
			got[j] = string(b)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("sink %d committed %v, want %v in subtask order", h.commits[i].Vertex.ID, got, want)
		}
	}
}

// TestCheckpointExpiresAtAnIntervalTick: with a timeout of ten intervals or more a checkpoint
// has no timer of its own: the interval timer's first tick at or past its deadline expires
// it, and the next checkpoint starts at that tick.
func TestCheckpointExpiresAtAnIntervalTick(t *testing.T) {
	h := newHarness(t)
	h.env.SetStartTime(t0)
	in := checkpointingInput()
	in.Env.CheckpointInterval, in.Env.CheckpointTimeout, in.Env.TolerableCheckpointFailures = 1000, 10500, 1
	type trig struct {
		id int64
		at time.Duration
	}
	var got []trig
	h.trigger = func(req contract.TriggerRequest) {
		got = append(got, trig{req.CheckpointID, h.env.Now().Sub(t0).Round(100 * time.Millisecond)})
	}
	h.at(500*time.Millisecond, contract.TaskReportSignal, bothRunning())
	h.at(1200*time.Millisecond, contract.TaskReportSignal, ackReport(1, taskAck(0, "cp1-a")))
	h.at(12500*time.Millisecond, contract.TaskReportSignal, ackReport(2, taskAck(0, "cp2-a"), taskAck(1, "cp2-b")))
	h.at(12700*time.Millisecond, contract.TaskReportSignal, bothClosed())
	h.runPipeline(t, in)
	// checkpoint 1 at the tick of 1 s, its deadline 11.5 s: the tick of 12 s expires it and
	// triggers checkpoint 2
	want := []trig{{1, time.Second}, {2, 12 * time.Second}}
	if !slices.Equal(got, want) {
		t.Fatalf("triggers %v, want %v", got, want)
	}
	if len(h.persisted) != 1 || h.persisted[0].Manifest.Checkpoint != 2 {
		t.Fatalf("manifests %+v, want checkpoint 2's", h.persisted)
	}
	if got := infoSet(h.commits[0]); !slices.Equal(got, []string{"cp1-a", "cp2-a", "cp2-b"}) {
		t.Fatalf("checkpoint 2 committed %v, want what the expired checkpoint 1 prepared too", got)
	}
}
