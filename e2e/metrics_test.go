package e2e

import (
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sample is one series of a scrape: its labels and value.
type sample struct {
	labels map[string]string
	value  float64
}

var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)
var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// scrapeAll reads every series a process serves on the metrics address it printed.
func scrapeAll(t *testing.T, p *proc) map[string][]sample {
	t.Helper()
	m := metricsLine.FindStringSubmatch(p.output())
	if m == nil {
		t.Fatalf("%s printed no metrics address:\n%s", p.name, tail(p.output(), 20))
	}
	resp, err := http.Get(m[1])
	if err != nil {
		t.Fatalf("scrape %s: %v", p.name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("scrape %s: %v", p.name, err)
	}
	out := map[string][]sample{}
	for _, line := range strings.Split(string(body), "\n") {
		f := sampleLine.FindStringSubmatch(line)
		if f == nil || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			continue
		}
		s := sample{labels: map[string]string{}, value: v}
		for _, lp := range labelPair.FindAllStringSubmatch(f[2], -1) {
			s.labels[lp[1]] = lp[2]
		}
		out[f[1]] = append(out[f[1]], s)
	}
	return out
}

// total sums a family's series whose labels include want.
func total(series map[string][]sample, name string, want map[string]string) (float64, int) {
	sum, n := 0.0, 0
	for _, s := range series[name] {
		ok := true
		for k, v := range want {
			ok = ok && s.labels[k] == v
		}
		if ok {
			sum += s.value
			n++
		}
	}
	return sum, n
}

// TestMetricsOfARunningJob scrapes a worker and a runner, as Prometheus would, while a
// streaming job runs and after it was canceled: the job's rows, task times, checkpoints and
// the jobs and runners by state are there, and the task counters outlive the tasks.
func TestMetricsOfARunningJob(t *testing.T) {
	t.Parallel()
	addr := startTemporal(t)
	worker := start(t, "worker", "worker", "--address", addr, "--metrics", "127.0.0.1:0")
	runner := start(t, "runner", "runner", "--address", addr, "--id", "m1", "--slots", "4", "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0")
	eventually(t, 60*time.Second, "the runner registered", func() bool {
		cs := clusterStatus(t, addr)
		return cs["m1"].State == "ALIVE"
	})
	eventually(t, 30*time.Second, "both print their metrics address", func() bool {
		return metricsLine.MatchString(worker.output()) && metricsLine.MatchString(runner.output())
	})
	// 50 splits of 100 rows, one every 200 ms: rows flow for about ten seconds, then the
	// streaming source idles and goes on checkpointing
	id := submit(t, addr, writeJob(t, `
env { job.mode = STREAMING, checkpoint.interval = 1000, parallelism = 1 }
source { FakeSource { plugin_output = "fake", row.num = 5000, split.num = 50, split.read-interval = 200,
  schema = { table = "shop.orders", fields { id = bigint, name = string } } } }
sink { Console { plugin_input = "fake", log.print.data = false } }`))
	job := map[string]string{"job": id}

	var rs, ws map[string][]sample
	eventually(t, 90*time.Second, "rows read and checkpoints completed", func() bool {
		rs, ws = scrapeAll(t, runner), scrapeAll(t, worker)
		read, _ := total(rs, "strait_source_rows_read_total", job)
		done, _ := total(ws, "strait_checkpoints_completed_total", job)
		return read > 0 && done >= 2
	})
	// the worker counts jobs in visibility at most every 15 s
	eventually(t, 60*time.Second, "one job RUNNING and one runner ALIVE", func() bool {
		ws = scrapeAll(t, worker)
		running, _ := total(ws, "strait_jobs", map[string]string{"state": "RUNNING"})
		alive, _ := total(ws, "strait_runners", map[string]string{"state": "ALIVE"})
		return running == 1 && alive == 1
	})
	runnerFamilies := []struct {
		name   string
		labels string // the label names every series has
		check  func(v float64) bool
	}{
		{"strait_source_rows_read_total", "job,pipeline,runner,task", func(v float64) bool { return v > 0 }},
		{"strait_source_bytes_read_total", "job,pipeline,runner,task", func(v float64) bool { return v > 0 }},
		{"strait_sink_rows_written_total", "job,pipeline,runner,task", func(v float64) bool { return v > 0 }},
		{"strait_table_rows_read_total", "job,pipeline,runner,table,task", func(v float64) bool { return v > 0 }},
		{"strait_task_busy_seconds_total", "job,pipeline,runner,task", func(v float64) bool { return v > 0 }},
		{"strait_task_backpressured_seconds_total", "job,pipeline,runner,task", func(v float64) bool { return v >= 0 }},
		{"strait_pipeline_restarts", "job,pipeline,runner", func(v float64) bool { return v == 0 }},
		{"strait_checkpoint_interval_seconds", "job,pipeline,runner", func(v float64) bool { return v == 1 }},
		{"strait_checkpoint_duration_seconds", "job,pipeline,runner", func(v float64) bool { return v > 0 && v < 30 }},
		{"strait_checkpoint_size_bytes", "job,pipeline,runner", func(v float64) bool { return v > 0 }},
		{"strait_checkpoints_failed_total", "job,pipeline,runner", func(v float64) bool { return v >= 0 }},
	}
	for _, f := range runnerFamilies {
		v, n := total(rs, f.name, job)
		if n == 0 {
			t.Errorf("runner: no %s of job %s", f.name, id)
			continue
		}
		for _, s := range rs[f.name] {
			if s.labels["job"] == id && labelNames(s) != f.labels {
				t.Errorf("runner: %s has labels %s, want %s", f.name, labelNames(s), f.labels)
			}
		}
		if !f.check(v) {
			t.Errorf("runner: %s of job %s is %v", f.name, id, v)
		}
	}
	if tables := rs["strait_table_rows_read_total"]; len(tables) == 0 || tables[0].labels["table"] != "shop.orders" {
		t.Errorf("table series %v", tables)
	}
	if age, n := total(ws, "strait_checkpoint_age_seconds", job); n != 1 || age > 30 {
		t.Errorf("worker: checkpoint age %v (%d series)", age, n)
	}
	if last, n := total(ws, "strait_checkpoint_last_completed_timestamp_seconds", job); n != 1 || time.Since(time.Unix(int64(last), 0)) > time.Minute {
		t.Errorf("worker: last completed at %v (%d series)", last, n)
	}

	if code, out := run(t, "job", "cancel", "--address", addr, id); code != 0 {
		t.Fatalf("cancel: exit %d\n%s", code, out)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		ws = scrapeAll(t, worker)
		if canceled, _ := total(ws, "strait_jobs", map[string]string{"state": "CANCELED"}); canceled == 1 {
			break
		}
		if time.Now().After(deadline) {
			// where the cancel stopped, for a recurrence to say
			t.Fatalf("the job reads CANCELED in the metrics: not within 1m0s; the job: %+v", jobStatus(t, addr, id))
		}
		time.Sleep(200 * time.Millisecond)
	}
	eventually(t, 30*time.Second, "the runner hosts no task of the job", func() bool {
		rs = scrapeAll(t, runner)
		used, _ := total(rs, "strait_runner_slots_used", nil)
		return used == 0
	})
	before, _ := total(rs, "strait_source_rows_read_total", job)
	written, _ := total(rs, "strait_sink_rows_written_total", job)
	if before == 0 || written == 0 {
		t.Fatalf("after the tasks ended: rows read %v, written %v; the counters must keep their last values", before, written)
	}
	again := scrapeAll(t, runner)
	if v, _ := total(again, "strait_source_rows_read_total", job); v != before {
		t.Fatalf("rows read went from %v to %v after the job ended", before, v)
	}
}

func labelNames(s sample) string {
	var ns []string
	for k := range s.labels {
		ns = append(ns, k)
	}
	sort.Strings(ns)
	return strings.Join(ns, ",")
}
