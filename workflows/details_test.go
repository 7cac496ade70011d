package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/contract"
)

func TestJobDetails(t *testing.T) {
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	st := &contract.JobStatus{JobID: 42, Name: "nightly", Mode: "BATCH", State: contract.JobRunning, Started: start,
		Pipelines: []contract.PipelineStatus{{ID: 1, State: contract.JobRunning, Restarts: 1, Counters: contract.Counters{RowsRead: 10, RowsWritten: 9}}}}
	d := jobDetails(st, start.Add(90*time.Second))
	for _, want := range []string{"**Job 42** nightly: **RUNNING** (BATCH)", "started 2026-12-01 10:00:00 UTC (1m30s before this update)",
		"| 1 | RUNNING | 10 | 9 | 1 | strait-job-42-p1 |"} {
		if !strings.Contains(d, want) {
			t.Errorf("job details lack %q:\n%s", want, d)
		}
	}
	st.State, st.Error, st.Finished = contract.JobFailed, "pipeline 1: boom", start.Add(time.Minute)
	if d := jobDetails(st, start.Add(time.Hour)); !strings.Contains(d, "ran for 1m0s") || !strings.Contains(d, "Error: pipeline 1: boom") {
		t.Errorf("an ended job's details:\n%s", d)
	}
}

func TestPipelineDetails(t *testing.T) {
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	s := &contract.PipelineStatus{ID: 2, State: contract.JobRunning, Runners: []string{"r1", "r2"}, RestoredFrom: 3,
		Restarts: 1, LastFailure: "runner r3 lost", Counters: contract.Counters{RowsRead: 1000, RowsWritten: 990},
		Tasks: []contract.TaskStatus{{Task: contract.TaskID{Group: 1, Subtask: 0}, Runner: "r1", State: contract.TaskRunning,
			Counters: contract.Counters{RowsRead: 1000, RowsWritten: 990}}}}
	cp := &coordinator{completed: 7, completedAt: start.Add(8 * time.Second), interval: time.Second}
	d := pipelineDetails(s, cp, start, start.Add(10*time.Second))
	for _, want := range []string{"**Pipeline 2**: **RUNNING**", "rows read **1000**, written **990** (100 rows/s on average)",
		"checkpoint 7 completed 2s ago", "restored from checkpoint 3", "restarts 1, last failure: runner r3 lost",
		"runners: r1, r2", "| 1/0 | r1 | RUNNING | 1000 | 990 |"} {
		if !strings.Contains(d, want) {
			t.Errorf("pipeline details lack %q:\n%s", want, d)
		}
	}
	if d := pipelineDetails(s, &coordinator{interval: 5 * time.Second}, start, start); !strings.Contains(d, "no checkpoint completed yet (every 5s)") {
		t.Errorf("before the first checkpoint:\n%s", d)
	}
}
