package node_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/jobclient"
	"github.com/strait-dev/strait/node"
	"github.com/strait-dev/strait/worker"
)

// waitFor polls cond every 20 ms until it holds, failing after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ownStatus is the job workflow's own answer to the status query (what `temporal workflow
// query --type status` prints), not the sum jobclient.Status makes of the pipelines'.
func ownStatus(ctx context.Context, n *node.Node, id int64) (*contract.JobStatus, error) {
	v, err := n.Client.QueryWorkflow(ctx, contract.JobWorkflowID(id), "", contract.StatusQuery)
	if err != nil {
		return nil, err
	}
	var st contract.JobStatus
	return &st, v.Get(&st)
}

// TestJobContinuesAsNewWhileItsPipelinesRun: a job that continues as new every few events
// while its pipeline runs and checkpoints still ends with every row once; its own status
// query counts the rows while it runs; every run's history replays.
func TestJobContinuesAsNewWhileItsPipelinesRun(t *testing.T) {
	n := cluster(t)
	const rows = 20000
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id, run, err := jobclient.Start(ctx, n.Client, jobclient.StartRequest{Source: contract.ConfigSource{File: "job.conf", Text: `
env { parallelism = 2, checkpoint.interval = 100 }
source { SeqSource { rows = 20000, rows_per_poll = 50, poll_delay_ms = 10 } }
sink { TxnSink {} }`}, Name: "test", Tunables: contract.Tunables{JobEventsBeforeContinue: 3, ProgressInterval: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	var live *contract.JobStatus
	waitFor(t, time.Minute, "the job's own status query counts rows while it runs", func() bool {
		st, err := ownStatus(ctx, n, id)
		if err != nil || st.State.Terminal() {
			return err == nil // ended before the poll saw it run: checked below
		}
		if st.State == contract.JobRunning && st.Counters.RowsRead > 0 {
			live = st
		}
		return live != nil
	})
	st, err := jobclient.Wait(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != contract.JobFinished || st.Counters.RowsWritten != rows {
		t.Fatalf("state %s, %d rows written: %s", st.State, st.Counters.RowsWritten, st.Error)
	}
	if live == nil {
		t.Fatal("the job's status query never counted a row while it ran")
	}
	eachRowOnce(t, id, rows, "")
	last, err := fetchHistory(ctx, n, contract.JobWorkflowID(id))
	if err != nil {
		t.Fatal(err)
	}
	runs := 1
	first := last
	for prev := startOf(first).GetContinuedExecutionRunId(); prev != ""; prev = startOf(first).GetContinuedExecutionRunId() {
		if first, err = fetchRun(ctx, n, contract.JobWorkflowID(id), prev); err != nil {
			t.Fatal(err)
		}
		runs++
	}
	t.Logf("the job ran in %d runs", runs)
	if runs < 2 {
		t.Fatal("the job never continued as new")
	}
	replayHistory(t, "job_followed", first)
	replayHistory(t, "job_followed_resumed", last)
	replayAndRecord(t, n, "pipeline_followed", contract.PipelineWorkflowID(id, 1))
}

// TestTerminatedJobStopsItsPipelines: a job workflow terminated by hand (no cancel, no
// cleanup of its own) leaves no pipeline running: each finds its job gone at its next
// progress signal, stops its tasks and ends CANCELED.
func TestTerminatedJobStopsItsPipelines(t *testing.T) {
	n := cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id, _, err := jobclient.Start(ctx, n.Client, jobclient.StartRequest{Source: contract.ConfigSource{File: "job.conf", Text: `
env { parallelism = 2, job.mode = STREAMING, checkpoint.interval = 200 }
source { SeqSource { rows = 100000000, rows_per_poll = 10, poll_delay_ms = 20 } }
sink { TxnSink {} }`}, Name: "test", Tunables: contract.Tunables{ProgressHeartbeat: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, "the job RUNNING", func() bool {
		st, err := ownStatus(ctx, n, id)
		return err == nil && st.State == contract.JobRunning
	})
	if err := n.Client.TerminateWorkflow(ctx, contract.JobWorkflowID(id), "", "terminated by the test"); err != nil {
		t.Fatal(err)
	}
	pipeline := contract.PipelineWorkflowID(id, 1)
	waitFor(t, time.Minute, "the pipeline closed after its job was terminated", func() bool {
		d, err := n.Client.DescribeWorkflowExecution(ctx, pipeline, "")
		return err == nil && d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	})
	err = n.Client.GetWorkflow(ctx, pipeline, "").Get(ctx, nil)
	var ce *temporal.CanceledError
	if !errors.As(err, &ce) {
		t.Fatalf("the pipeline ended with %v, want canceled", err)
	}
	for _, task := range n.Runners[0].Tasks() {
		if task.Job == id && !task.State.Terminal() {
			t.Fatalf("task %+v of the terminated job still runs", task)
		}
	}
}

func startOf(h *historypb.History) *historypb.WorkflowExecutionStartedEventAttributes {
	return h.Events[0].GetWorkflowExecutionStartedEventAttributes()
}

// fetchRun is one run's history.
func fetchRun(ctx context.Context, n *node.Node, wid, runID string) (*historypb.History, error) {
	it := n.Client.GetWorkflowHistory(ctx, wid, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, err
		}
		h.Events = append(h.Events, ev)
	}
	return h, nil
}

// replayHistory replays a history with the registered workflows and, when
// STRAIT_RECORD_HISTORY names a directory, writes it there as <name>_history.json.
func replayHistory(t *testing.T, name string, hist *historypb.History) {
	t.Helper()
	replayer := sdkworker.NewWorkflowReplayer()
	worker.RegisterWorkflows(replayer)
	if err := replayer.ReplayWorkflowHistory(nil, hist); err != nil {
		t.Fatalf("replay %s: %v", name, err)
	}
	if dir := os.Getenv("STRAIT_RECORD_HISTORY"); dir != "" {
		b, err := protojson.MarshalOptions{Indent: "  "}.Marshal(hist)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+"_history.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
