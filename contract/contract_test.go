package contract

import (
	"reflect"
	"testing"
	"time"
)

func TestJobIDFor(t *testing.T) {
	cases := []struct {
		name       string
		in         JobInput
		workflowID string
		want       int64
	}{
		{"the input's", JobInput{JobID: 5}, JobWorkflowID(9), 5},
		{"the workflow id's", JobInput{}, "strait-job-123", 123},
		{"a pipeline's id is not a job's", JobInput{}, PipelineWorkflowID(123, 1), -1},
		{"a negative number is not a job id", JobInput{}, "strait-job--4", -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := JobIDFor(c.in, c.workflowID)
			if c.want > 0 && got != c.want {
				t.Fatalf("got %d, want %d", got, c.want)
			}
			if got <= 0 {
				t.Fatalf("got %d, not a job number", got)
			}
			if again := JobIDFor(c.in, c.workflowID); again != got {
				t.Fatalf("%d, then %d: not stable", got, again)
			}
		})
	}
	if JobIDFor(JobInput{}, "my-job") == JobIDFor(JobInput{}, "my-other-job") {
		t.Fatal("two workflow ids got one job number")
	}
}

func TestJobNumber(t *testing.T) {
	at := time.UnixMilli(1_700_000_000_123)
	cases := []struct {
		salt, want int64
	}{
		{0, 1_700_000_000_123_000},
		{42, 1_700_000_000_123_042},
		{1999, 1_700_000_000_123_999},
	}
	for _, c := range cases {
		if got := JobNumber(at, c.salt); got != c.want {
			t.Errorf("JobNumber(salt %d) = %d, want %d", c.salt, got, c.want)
		}
	}
}

func TestTerminalStates(t *testing.T) {
	jobs := map[JobState]bool{JobCreated: false, JobRunning: false, JobDoingSavepoint: false, PipelineDeploying: false,
		PipelineCommitting: false, PipelineRestarting: false, JobFailing: false, JobCanceling: false,
		JobFinished: true, JobFailed: true, JobCanceled: true, JobSavepointDone: true}
	for s, want := range jobs {
		if s.Terminal() != want {
			t.Errorf("%s terminal: %v, want %v", s, s.Terminal(), want)
		}
	}
	tasks := map[TaskState]bool{TaskCreated: false, TaskRunning: false, TaskPrepareClose: false, TaskCanceling: false,
		TaskClosed: true, TaskCanceled: true, TaskFailed: true}
	for s, want := range tasks {
		if s.Terminal() != want {
			t.Errorf("%s terminal: %v, want %v", s, s.Terminal(), want)
		}
	}
}

func TestCountersAdd(t *testing.T) {
	a := Counters{RowsRead: 1, Tables: map[string]TableCounters{"t": {RowsRead: 1}}}
	var sum Counters
	sum.Add(a)
	sum.Add(Counters{RowsRead: 2, RowsWritten: 3, RowsFailed: 4, RowsReceived: 5, BytesRead: 6, BytesWritten: 7,
		Tables: map[string]TableCounters{"t": {RowsRead: 2, BytesRead: 3, RowsWritten: 4, BytesWritten: 5}, "u": {RowsRead: 1}}})
	want := Counters{RowsRead: 3, RowsWritten: 3, RowsFailed: 4, RowsReceived: 5, BytesRead: 6, BytesWritten: 7,
		Tables: map[string]TableCounters{"t": {RowsRead: 3, BytesRead: 3, RowsWritten: 4, BytesWritten: 5}, "u": {RowsRead: 1}}}
	if !reflect.DeepEqual(sum, want) {
		t.Fatalf("sum %+v, want %+v", sum, want)
	}
	if a.Tables["t"].RowsRead != 1 {
		t.Fatal("the sum shares the table map it was added from")
	}
}

func TestPlanLookups(t *testing.T) {
	p := Pipeline{ID: 1, TaskGroups: []TaskGroup{{ID: 1, Parallelism: 2}, {ID: 3, Parallelism: 1}}}
	if p.Slots() != 3 || p.Group(3) == nil || p.Group(3).Parallelism != 1 || p.Group(2) != nil {
		t.Fatalf("slots %d, groups %+v", p.Slots(), p.TaskGroups)
	}
	plan := Plan{Vertices: []*Vertex{{ID: 2, Where: "sink[0] Console"}, {ID: 1}}}
	in := PipelineInput{Vertices: plan.Vertices}
	if plan.Vertex(2).Where != "sink[0] Console" || plan.Vertex(5) != nil || in.Vertex(1) != plan.Vertices[1] || in.Vertex(5) != nil {
		t.Fatal("vertex lookups")
	}
	req := AllocateRequest{Groups: []GroupNeed{{Group: 1, Slots: 2}, {Group: 3, Slots: 1}}}
	if req.Total() != 3 {
		t.Fatalf("total %d", req.Total())
	}
}

func TestFreeSlots(t *testing.T) {
	cases := []struct {
		name string
		r    RunnerSlots
		want int
	}{
		{"alive", RunnerSlots{State: RunnerStateAlive, Owners: []string{"", "p#1", ""}}, 2},
		{"lost", RunnerSlots{State: RunnerStateLost, Owners: []string{"", ""}}, 0},
	}
	for _, c := range cases {
		if got := c.r.Free(); got != c.want {
			t.Errorf("%s: %d free, want %d", c.name, got, c.want)
		}
	}
}

// A job started under a workflow id of Temporal's choosing gets a number that survives JSON
// readers holding numbers as doubles; replayed jobs keep the number they had.
func TestJobIDForFitsJSON(t *testing.T) {
	for _, wid := range []string{"0198d3c4-5b7a-7e2f-9c1d-3f4e5a6b7c8d", "strait-scheduled-nightly-2026-12-01T02:00:00Z", "my-job", "strait-job-x"} {
		id := JobIDFor(JobInput{}, wid)
		if id <= 0 || id > 1<<53 {
			t.Errorf("%s: %d is not a positive 53-bit number", wid, id)
		}
		if id != JobIDFor(JobInput{}, wid) {
			t.Errorf("%s: not stable", wid)
		}
		if LegacyJobIDFor(JobInput{}, wid) == id {
			t.Errorf("%s: the legacy number equals the new one", wid)
		}
	}
	if JobIDFor(JobInput{}, "strait-job-42") != 42 || LegacyJobIDFor(JobInput{}, "strait-job-42") != 42 || JobIDFor(JobInput{JobID: 7}, "x") != 7 {
		t.Error("a canonical id is not kept")
	}
}
