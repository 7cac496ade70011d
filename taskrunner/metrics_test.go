package taskrunner_test

import (
	"context"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/console"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/internal/promtest"
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

// ranMetricsJob is a runner, closed when the test ends, that ran metricsJob to its end in
// batches of batchSize rows, with its reporter.
func ranMetricsJob(t *testing.T, batchSize int) (*taskrunner.Runner, *collect) {
	console.SetOutput(io.Discard)
	c := &collect{}
	r := taskrunner.New(taskrunner.Config{ID: "r1", Slots: 4, BatchSize: batchSize}, c)
	t.Cleanup(r.Close)
	deployEpoch(t, r, c, metricsJob, 1)
	return r, c
}

// deployEpoch runs the first pipeline of a job's plan on r as the given epoch and waits for
// its tasks to end and for the runner to retire them.
func deployEpoch(t *testing.T, r *taskrunner.Runner, c *collect, text string, epoch int) {
	t.Helper()
	d := firstPipeline(t, text, connector.Job{ID: 7})
	d.Epoch = epoch
	c.mu.Lock()
	c.ended, c.want, c.done = make(chan struct{}), len(d.Tasks), 0
	c.mu.Unlock()
	if err := r.Deploy(context.Background(), d); err != nil {
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
	return promtest.Gather(t, taskrunner.NewCollector(r))
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
	r, _ := ranMetricsJob(t, 10)
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
		{"strait_source_rows_failed_total", task, 1, func(ms []*dto.Metric) bool { return sum(ms) == 0 }},
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
	r, c := ranMetricsJob(t, 50)
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

func TestCheckpointMetrics(t *testing.T) {
	console.SetOutput(io.Discard)
	d := firstPipeline(t, `
env { job.mode = STREAMING, checkpoint.interval = 2000 }
source { FakeSource { plugin_output = "fake", row.num = 10, schema = { fields { id = bigint } } } }
sink { Console { plugin_input = "fake", log.print.data = false } }`, connector.Job{ID: 9})
	store := tempStore(t)
	r, c := storeRunner(t, "r1", store, 1)
	if err := r.Deploy(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	until := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: never", what)
			}
			time.Sleep(5 * time.Millisecond) // polling a condition, bounded by the deadline
		}
	}
	until("the task runs", func() bool { ts := r.Tasks(); return len(ts) == 1 && ts[0].State == contract.TaskRunning })
	acked := func(n int) func() bool {
		return func() bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			got := 0
			for _, rep := range c.reports {
				if rep.Checkpoint != nil {
					got++
				}
			}
			return got >= n
		}
	}
	// checkpoint 1 is triggered; checkpoint 2 tells that none completed, so 1 failed;
	// checkpoint 3 tells that 2 completed
	for i, tr := range []contract.TriggerRequest{{CheckpointID: 1}, {CheckpointID: 2}, {CheckpointID: 3, Completed: 2}} {
		tr.JobID, tr.Pipeline, tr.Epoch = 9, 1, 1
		if err := r.Trigger(tr); err != nil {
			t.Fatal(err)
		}
		until("the checkpoint is acknowledged", acked(i+1))
	}
	until("the duration is known", func() bool {
		for _, pm := range r.PipelineMetrics() {
			if pm.LastDuration > 0 {
				return true
			}
		}
		return false
	})
	got := scrape(t, r)
	tests := []struct {
		family string
		check  func(v float64) bool
	}{
		{"strait_checkpoints_failed_total", func(v float64) bool { return v == 1 }},
		{"strait_checkpoint_interval_seconds", func(v float64) bool { return v == 2 }},
		{"strait_checkpoint_duration_seconds", func(v float64) bool { return v > 0 && v < 30 }},
		{"strait_checkpoint_size_bytes", func(v float64) bool { return v > 0 }},
		{"strait_task_checkpoint_size_bytes", func(v float64) bool { return v > 0 }},
		{"strait_task_checkpoint_duration_seconds", func(v float64) bool { return v > 0 && v < 30 }},
	}
	for _, tt := range tests {
		t.Run(tt.family, func(t *testing.T) {
			ms := got[tt.family]
			if len(ms) != 1 {
				t.Fatalf("%d series, want 1", len(ms))
			}
			want := "job,pipeline,runner"
			if strings.HasPrefix(tt.family, "strait_task_") {
				want = "job,pipeline,runner,task"
			}
			if labelNames(ms[0]) != want {
				t.Fatalf("labels %s, want %s", labelNames(ms[0]), want)
			}
			if !tt.check(value(ms[0])) {
				t.Fatalf("value %v", value(ms[0]))
			}
		})
	}
}
