package taskrunner_test

import (
	"context"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/console"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/planner"
	"github.com/strait-dev/strait/taskrunner"
)

// metricsJob reads 200 rows of a table in one source task and hands them over an exchange to
// two sink tasks that take a millisecond a row, so the source waits on their full queues.
const metricsJob = `
env { parallelism = 1 }
source {
  FakeSource { plugin_output = "fake", row.num = 200, schema = { table = "shop.orders", fields { id = bigint, name = string } } }
}
transform {
  Filter { plugin_input = "fake", plugin_output = "kept", parallelism = 2, include_fields = [id, name] }
}
sink {
  Console { plugin_input = "kept", log.print.data = false, log.print.delay.ms = 1 }
}`

// deployEpoch runs the first pipeline of a job's plan on r as the given epoch and waits for
// its tasks to end and for the runner to retire them.
func deployEpoch(t *testing.T, r *taskrunner.Runner, c *collect, text string, epoch int) {
	t.Helper()
	plan, err := planner.Plan(planner.Source{File: "job.conf", Text: text}, connector.Job{ID: 7})
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Pipelines[0]
	var tasks []contract.TaskID
	for _, g := range p.TaskGroups {
		for i := 0; i < g.Parallelism; i++ {
			tasks = append(tasks, contract.TaskID{Group: g.ID, Subtask: i})
		}
	}
	var vs []*planner.Vertex
	for _, id := range p.Vertices {
		vs = append(vs, plan.Vertex(id))
	}
	c.mu.Lock()
	c.ended, c.want, c.done = make(chan struct{}), len(tasks), 0
	c.mu.Unlock()
	err = r.Deploy(context.Background(), taskrunner.Deployment{Job: plan.Job, Pipeline: p, Vertices: vs, Epoch: epoch,
		ReportTo: "w", Tasks: tasks, Env: plan.Env})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, c)
	deadline := time.Now().Add(time.Minute)
	for !allEnded(r.TaskMetrics()) {
		if time.Now().After(deadline) {
			t.Fatal("the runner did not retire the ended tasks")
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, bounded by the deadline
	}
}

func allEnded(ms []taskrunner.TaskMetrics) bool {
	for _, m := range ms {
		if !m.Ended {
			return false
		}
	}
	return len(ms) > 0
}

// scrape gathers a registry with the runner's collector into family name -> series.
func scrape(t *testing.T, r *taskrunner.Runner) map[string][]*dto.Metric {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(taskrunner.NewCollector(r))
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]*dto.Metric{}
	for _, f := range fams {
		out[f.GetName()] = f.GetMetric()
	}
	return out
}

func labelNames(m *dto.Metric) string {
	var ns []string
	for _, l := range m.GetLabel() {
		ns = append(ns, l.GetName())
	}
	sort.Strings(ns)
	return strings.Join(ns, ",")
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	}
	return 0
}

func sum(ms []*dto.Metric) float64 {
	s := 0.0
	for _, m := range ms {
		s += value(m)
	}
	return s
}

func TestCollectorFamilies(t *testing.T) {
	console.SetOutput(io.Discard)
	c := &collect{}
	r := taskrunner.New(taskrunner.Config{ID: "r1", Slots: 4, BatchSize: 10}, c)
	defer r.Close()
	deployEpoch(t, r, c, metricsJob, 1)
	got := scrape(t, r)
	task := "job,pipeline,runner,task"
	tests := []struct {
		family string
		labels string
		series int
		check  func(ms []*dto.Metric) bool
	}{
		{"strait_runner_slots", "runner", 1, func(ms []*dto.Metric) bool { return sum(ms) == 4 }},
		{"strait_runner_slots_used", "runner", 1, func(ms []*dto.Metric) bool { return sum(ms) == 0 }},
		{"strait_runner_tasks", "runner,state", 10, func(ms []*dto.Metric) bool { return sum(ms) == 0 }},
		{"strait_runner_batches_in_flight", "runner", 1, func(ms []*dto.Metric) bool { return sum(ms) == 0 }},
		{"strait_pipeline_restarts", "job,pipeline,runner", 1, func(ms []*dto.Metric) bool { return sum(ms) == 0 }},
		{"strait_task_rows_in_total", task, 3, func(ms []*dto.Metric) bool { return sum(ms) == 400 }},
		{"strait_task_rows_out_total", task, 3, func(ms []*dto.Metric) bool { return sum(ms) == 200 }},
		{"strait_exchange_queue_depth", task, 3, func(ms []*dto.Metric) bool { return sum(ms) == 0 }},
		{"strait_source_rows_read_total", task, 1, func(ms []*dto.Metric) bool { return sum(ms) == 200 }},
		{"strait_source_bytes_read_total", task, 1, func(ms []*dto.Metric) bool { return sum(ms) > 200*8 }},
		{"strait_sink_rows_written_total", task, 2, func(ms []*dto.Metric) bool { return sum(ms) == 200 }},
		{"strait_sink_bytes_written_total", task, 2, func(ms []*dto.Metric) bool { return sum(ms) > 200*8 }},
		{"strait_table_rows_read_total", "job,pipeline,runner,table,task", 1, func(ms []*dto.Metric) bool { return sum(ms) == 200 }},
		{"strait_table_bytes_read_total", "job,pipeline,runner,table,task", 1, func(ms []*dto.Metric) bool { return sum(ms) > 200*8 }},
		{"strait_table_rows_written_total", "job,pipeline,runner,table,task", 2, func(ms []*dto.Metric) bool { return sum(ms) == 200 }},
		{"strait_table_bytes_written_total", "job,pipeline,runner,table,task", 2, func(ms []*dto.Metric) bool { return sum(ms) > 200*8 }},
		// the sinks take 200 ms over the rows: the source spends most of it waiting on them
		{"strait_task_busy_seconds_total", task, 3, func(ms []*dto.Metric) bool { return sum(ms) > 0.1 }},
		{"strait_task_backpressured_seconds_total", task, 3, func(ms []*dto.Metric) bool { return sum(ms) > 0.02 }},
	}
	for _, tt := range tests {
		t.Run(tt.family, func(t *testing.T) {
			ms := got[tt.family]
			if len(ms) != tt.series {
				t.Fatalf("%d series, want %d", len(ms), tt.series)
			}
			for _, m := range ms {
				if labelNames(m) != tt.labels {
					t.Fatalf("labels %s, want %s", labelNames(m), tt.labels)
				}
			}
			if !tt.check(ms) {
				t.Fatalf("unexpected values: %v", ms)
			}
		})
	}
	for _, m := range got["strait_table_rows_read_total"] {
		for _, l := range m.GetLabel() {
			if l.GetName() == "table" && l.GetValue() != "shop.orders" {
				t.Fatalf("table label %q", l.GetValue())
			}
		}
	}
}

func TestCountersSurviveTheTaskEnd(t *testing.T) {
	console.SetOutput(io.Discard)
	c := &collect{}
	r := taskrunner.New(taskrunner.Config{ID: "r1", Slots: 4, BatchSize: 50}, c)
	defer r.Close()
	deployEpoch(t, r, c, metricsJob, 1)
	if live := r.Tasks(); len(live) != 0 {
		t.Fatalf("the runner still hosts %d tasks", len(live))
	}
	first := scrape(t, r)
	if n := sum(first["strait_source_rows_read_total"]); n != 200 {
		t.Fatalf("after the task ended, rows read %v, want 200", n)
	}
	if n := sum(first["strait_sink_rows_written_total"]); n != 200 {
		t.Fatalf("after the task ended, rows written %v, want 200", n)
	}
	// a failover deploys the pipeline again: its counters go on from the last values
	deployEpoch(t, r, c, metricsJob, 2)
	second := scrape(t, r)
	if n := sum(second["strait_source_rows_read_total"]); n != 400 {
		t.Fatalf("after a second deployment, rows read %v, want 400", n)
	}
	if n := sum(second["strait_table_rows_written_total"]); n != 400 {
		t.Fatalf("after a second deployment, table rows written %v, want 400", n)
	}
	if len(second["strait_sink_rows_written_total"]) != 2 {
		t.Fatalf("series %v, want one per sink task", second["strait_sink_rows_written_total"])
	}
	if n := sum(second["strait_pipeline_restarts"]); n != 1 {
		t.Fatalf("restarts %v, want 1", n)
	}
	if b := sum(second["strait_task_busy_seconds_total"]); b <= sum(first["strait_task_busy_seconds_total"]) {
		t.Fatalf("busy time went from %v to %v", sum(first["strait_task_busy_seconds_total"]), b)
	}
}
