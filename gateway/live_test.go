package gateway

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

const runnerMetrics = `# TYPE strait_task_rows_in_total counter
strait_task_rows_in_total{job="7",pipeline="1",runner="r1",task="g1-0"} 100
strait_task_rows_in_total{job="7",pipeline="1",runner="r1",task="g1-1"} 50
strait_task_rows_in_total{job="8",pipeline="1",runner="r1",task="g1-0"} 9
strait_task_rows_in_total{job="x",pipeline="1",runner="r1",task="g1-0"} 9
# TYPE strait_source_bytes_read_total counter
strait_source_bytes_read_total{job="7",pipeline="1",runner="r1",task="g1-0"} 1000
# TYPE strait_sink_bytes_written_total counter
strait_sink_bytes_written_total{job="7",pipeline="2",runner="r1",task="g3-0"} 70
# TYPE strait_task_busy_seconds_total counter
strait_task_busy_seconds_total{job="7",pipeline="1",runner="r1",task="g1-0"} 1.5
# TYPE strait_exchange_queue_depth gauge
strait_exchange_queue_depth{job="7",pipeline="1",runner="r1",task="g1-0"} 3
# TYPE strait_runner_slots gauge
strait_runner_slots{runner="r1"} 4
`

func TestTasksOf(t *testing.T) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(runnerMetrics))
	if err != nil {
		t.Fatal(err)
	}
	got := tasksOf(fams)
	if len(got) != 2 || len(got[7]) != 3 || len(got[8]) != 1 {
		t.Fatalf("tasks by job: %+v", got)
	}
	a := got[7][0]
	if a.task != "g1-0" || a.pipeline != 1 || a.runner != "r1" || a.rowsIn != 100 || a.bytesRead != 1000 || !a.source || a.busy != 1.5 || a.queued != 3 {
		t.Errorf("g1-0: %+v", a)
	}
	if s := got[7][2]; s.task != "g3-0" || s.pipeline != 2 || !s.sink || s.bytesWritten != 70 {
		t.Errorf("g3-0: %+v", s)
	}
}

// Rates are taken against a sample at least rateMin older, never one past rateWindow.
func TestRatesBase(t *testing.T) {
	r := newRates()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration, rows float64) jobSample {
		return jobSample{at: t0.Add(d), groups: map[groupKey]totals{{1, 1}: {rowsIn: rows}}}
	}
	if b := r.observe(1, at(0, 0)); b != nil {
		t.Fatalf("a base with one sample: %+v", b)
	}
	if b := r.observe(1, at(500*time.Millisecond, 50)); b != nil {
		t.Fatalf("a base half a second old: %+v", b)
	}
	if b := r.observe(1, at(2*time.Second, 200)); b == nil || !b.at.Equal(t0) {
		t.Fatalf("base %+v, want the first sample", b)
	}
	if b := r.observe(1, at(11*time.Second, 1100)); b == nil || !b.at.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("base %+v, want the sample at 2 s (the first is past the window)", b)
	}
	if b := r.observe(2, at(11*time.Second, 0)); b != nil {
		t.Fatalf("another job shares samples: %+v", b)
	}
}

func TestOwnerJobAndTaskGroup(t *testing.T) {
	for owner, want := range map[string]RunnerJob{
		"strait-job-42-p2#3": {JobID: "42", Pipeline: 2},
		"strait-job-42-p1":   {JobID: "42", Pipeline: 1},
		"custom#1":           {JobID: "custom"},
	} {
		if got := ownerJob(owner); got != want {
			t.Errorf("ownerJob(%q) = %+v, want %+v", owner, got, want)
		}
	}
	for task, want := range map[string]int{"g1-0": 1, "g12-3": 12, "x1-0": -1, "g-1": -1, "g1": -1} {
		g, ok := groupOfTask(task)
		if (want < 0) == ok || (ok && g != want) {
			t.Errorf("groupOfTask(%q) = %d %v, want %d", task, g, ok, want)
		}
	}
}
