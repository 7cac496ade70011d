package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/strait-dev/strait/internal/freeport"
)

// proc is a strait process of a multi-process test, its output kept for the test to read.
type proc struct {
	name string
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func start(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	return startEnv(t, name, nil, args...)
}

// startEnv starts a strait process with env added to the test's environment; it is stopped
// (SIGTERM, then SIGKILL after 20 s) when the test ends, and its output logged if it failed.
func startEnv(t *testing.T, name string, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(strait, args...)
	cmd.Env = append(append(os.Environ(), "TEMPORAL_ADDRESS="), env...)
	return startCmd(t, name, cmd)
}

// startCmd starts a process of the test as startEnv does.
func startCmd(t *testing.T, name string, cmd *exec.Cmd) *proc {
	t.Helper()
	p := &proc{name: name, cmd: cmd}
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan struct{})
			go func() { _ = p.cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				_ = p.cmd.Process.Kill()
				<-done
			}
		}
		if t.Failed() {
			t.Logf("--- %s output:\n%s", p.name, tail(p.output(), 40))
		}
		if logs := os.Getenv("STRAIT_TEST_LOGS"); logs != "" {
			// every process's whole output, kept where the test's caller asked
			name := fmt.Sprintf("%s-%d.log", strings.ReplaceAll(p.name, "/", "-"), p.cmd.Process.Pid)
			if err := os.MkdirAll(logs, 0o755); err == nil {
				_ = os.WriteFile(filepath.Join(logs, name), []byte(p.output()), 0o644)
			}
		}
	})
	return p
}

func (p *proc) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
}

var metricsLine = regexp.MustCompile(`Metrics: (http://\S+/metrics)`)

// scrape sums a runner's counter over the tasks of a job whose task label has the prefix.
func scrape(t *testing.T, p *proc, name, job, taskPrefix string) float64 {
	t.Helper()
	m := metricsLine.FindStringSubmatch(p.output())
	if m == nil {
		return 0 // a runner that is gone
	}
	resp, err := http.Get(m[1])
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	sum := 0.0
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, name+"{") || !strings.Contains(line, `job="`+job+`"`) || !strings.Contains(line, `task="`+taskPrefix) {
			continue
		}
		f := strings.Fields(line)
		v, _ := strconv.ParseFloat(f[len(f)-1], 64)
		sum += v
	}
	return sum
}

func freePort(t *testing.T) int {
	t.Helper()
	p, err := freeport.Pick("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// eventually polls cond every 200 ms until it holds, failing past the bound; it returns how
// long it took.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	return pollUntil(t, within, 200*time.Millisecond, what, cond)
}

// pollUntil polls cond every interval until it holds, failing past the bound; it returns how
// long it took.
func pollUntil(t *testing.T, within, interval time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	began := time.Now()
	for !cond() {
		if time.Since(began) > within {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(interval)
	}
	return time.Since(began)
}

// awaitFinished waits for a job with `strait job wait`, failing the test unless the job
// finishes.
func awaitFinished(t *testing.T, addr, id string) {
	t.Helper()
	if code, out := run(t, "job", "wait", "--address", addr, id); code != 0 {
		t.Fatalf("job wait %s: exit %d\n%s", id, code, out)
	}
}

// awaitJobDiff polls diff every 200 ms until it says nothing, for at most within; a job that
// stops running fails the wait at once (its state is read every tenth poll), with what diff
// said last.
func awaitJobDiff(t *testing.T, addr, id string, within time.Duration, diff func() string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for n := 0; ; n++ {
		d := diff()
		if d == "" {
			return
		}
		if n%10 == 9 {
			if st := jobStatus(t, addr, id); st.State != "RUNNING" {
				t.Fatalf("job %s is %s (%s): %s", id, st.State, st.Error, d)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", within, d)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

type runnerView struct {
	ID     string            `json:"id"`
	State  string            `json:"state"`
	Slots  int               `json:"slots"`
	Free   int               `json:"free"`
	Tags   map[string]string `json:"tags"`
	Owners []string          `json:"owners"`
}

func clusterStatus(t *testing.T, addr string) map[string]runnerView {
	t.Helper()
	code, out := run(t, "cluster", "status", "--json", "--address", addr)
	if code != 0 {
		return nil
	}
	var cs struct {
		Runners []runnerView `json:"runners"`
	}
	if err := json.Unmarshal([]byte(out), &cs); err != nil {
		return nil
	}
	m := map[string]runnerView{}
	for _, r := range cs.Runners {
		m[r.ID] = r
	}
	return m
}

type taskView struct {
	Task   struct{ Group, Subtask int } `json:"task"`
	Runner string                       `json:"runner"`
	State  string                       `json:"state"`
}

type jobView struct {
	State    string `json:"state"`
	Error    string `json:"error"`
	Counters struct {
		RowsRead int64 `json:"rowsRead"`
	} `json:"counters"`
	Pipelines []struct {
		Runners []string   `json:"runners"`
		Tasks   []taskView `json:"tasks"`
	} `json:"pipelines"`
}

func jobStatus(t *testing.T, addr, id string) jobView {
	t.Helper()
	code, out := run(t, "job", "status", id, "--json", "--address", addr)
	if code != 0 {
		t.Fatalf("job status %s: exit %d\n%s", id, code, out)
	}
	var jv jobView
	if err := json.Unmarshal([]byte(out), &jv); err != nil {
		t.Fatalf("job status: %v\n%s", err, out)
	}
	return jv
}

func writeJob(t *testing.T, text string) string {
	t.Helper()
	return writeFile(t, "job.conf", text)
}

func submit(t *testing.T, addr, job string) string {
	t.Helper()
	code, out := run(t, "job", "submit", "--address", addr, job)
	if code != 0 {
		t.Fatalf("submit: exit %d\n%s", code, out)
	}
	lines := strings.Fields(strings.TrimSpace(out))
	return lines[len(lines)-1]
}

var consoleID = regexp.MustCompile(`SeaTunnelRow#kind=INSERT : (-?\d+),`)

// eachConsoleRowOnce checks that the Console sinks of the processes printed want rows in
// all, no id twice.
func eachConsoleRowOnce(t *testing.T, want int, procs ...*proc) {
	t.Helper()
	seen := map[string]int{}
	for _, p := range procs {
		sc := bufio.NewScanner(strings.NewReader(p.output()))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if m := consoleID.FindStringSubmatch(sc.Text()); m != nil {
				seen[m[1]]++
			}
		}
	}
	total := 0
	for k, n := range seen {
		total += n
		if n != 1 {
			t.Fatalf("row %s arrived %d times", k, n)
		}
	}
	if total != want {
		t.Fatalf("%d rows arrived, want %d", total, want)
	}
}

// hashExchangeOnce runs a FakeSource → Console job of parallelism readers of perReader rows
// each, its Console sink partitioned by id: every row reaches the sink on one of the
// processes once, and the reading and writing task groups ran on different runners.
func hashExchangeOnce(t *testing.T, addr string, parallelism, perReader int, procs ...*proc) {
	t.Helper()
	id := submit(t, addr, writeJob(t, fmt.Sprintf(`
env { parallelism = %d, job.mode = BATCH }
source { FakeSource { plugin_output = "fake", row.num = %d, schema = { fields { id = bigint, name = string } } } }
sink { Console { plugin_input = "fake", partition_by = [id] } }`, parallelism, perReader)))
	awaitFinished(t, addr, id)
	eachConsoleRowOnce(t, parallelism*perReader, procs...)
	if source, sink := groupRunners(t, addr, id); source == sink {
		t.Fatalf("both task groups ran on %s: the exchange never crossed runners", source)
	}
}

// TestCluster runs Strait as separate processes: a Temporal dev server, a worker and three
// runners, one of them tagged.
func TestCluster(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	addr := startTemporal(t)
	// two workers: the workflows and coordinator activities run on whichever polls first
	start(t, "worker-1", "worker", "--address", addr)
	start(t, "worker-2", "worker", "--address", addr)
	runners := map[string]*proc{}
	for _, r := range []struct{ id, tag string }{{"r1", ""}, {"r2", ""}, {"r3", "zone=db-zone"}} {
		args := []string{"runner", "--address", addr, "--id", r.id, "--slots", "3", "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0"}
		if r.tag != "" {
			args = append(args, "--tag", r.tag)
		}
		runners[r.id] = start(t, r.id, args...)
	}
	eventually(t, 60*time.Second, "three runners registered", func() bool {
		cs := clusterStatus(t, addr)
		return len(cs) == 3 && cs["r1"].State == "ALIVE" && cs["r2"].State == "ALIVE" && cs["r3"].State == "ALIVE"
	})

	t.Run("hash exchange across runners delivers every row once", func(t *testing.T) {
		hashExchangeOnce(t, addr, 3, 2000, slices.Collect(maps.Values(runners))...)
	})

	t.Run("tag filter lands on the tagged runner", func(t *testing.T) {
		id := submit(t, addr, writeJob(t, `
env { parallelism = 2, tag_filter { zone = "db-zone" } }
source { FakeSource { row.num = 10, schema = { fields { id = int } } } }
sink { Console { log.print.data = false } }`))
		awaitFinished(t, addr, id)
		for _, task := range jobStatus(t, addr, id).Pipelines[0].Tasks {
			if task.Runner != "r3" {
				t.Fatalf("task %+v ran on %s, not on the tagged runner", task.Task, task.Runner)
			}
		}
	})

	t.Run("an unmatched tag filter fails clearly", func(t *testing.T) {
		id := submit(t, addr, writeJob(t, `
env { tag_filter { zone = "nowhere" } }
source { FakeSource { row.num = 10, schema = { fields { id = int } } } }
sink { Console {} }`))
		code, out := run(t, "job", "wait", "--address", addr, id)
		if code != 1 || !strings.Contains(out, "not enough resources") || !strings.Contains(out, "zone=nowhere") {
			t.Fatalf("exit %d\n%s", code, out)
		}
	})

	t.Run("a slow sink slows the source", func(t *testing.T) {
		// the source could emit 10 M rows in seconds; the sink, on another runner behind the
		// exchange, takes one row per millisecond
		id := submit(t, addr, writeJob(t, `
env { parallelism = 1 }
source { FakeSource { plugin_output = "fake", row.num = 10000000, schema = { fields { id = bigint, name = string, pad = string } }, string.length = 200 } }
sink { Console { plugin_input = "fake", partition_by = [id], log.print.data = false, log.print.delay.ms = 1 } }`))
		// the runners' own counters, from their Prometheus endpoints
		counts := func() (read, received float64) {
			for _, p := range runners {
				read += scrape(t, p, "strait_task_rows_in_total", id, "g1-")
				received += scrape(t, p, "strait_task_rows_in_total", id, "g2-")
			}
			return read, received
		}
		var read, received float64
		eventually(t, 60*time.Second, "the sink receives 3000 rows", func() bool {
			read, received = counts()
			return received >= 3000
		})
		state := jobStatus(t, addr, id).State
		if code, out := run(t, "job", "cancel", id, "--address", addr); code != 0 {
			t.Fatalf("cancel: exit %d\n%s", code, out)
		}
		code, out := run(t, "job", "wait", "--address", addr, id)
		if code != 1 || !strings.Contains(out, "CANCELED") {
			t.Fatalf("wait after cancel: exit %d\n%s", code, out)
		}
		t.Logf("source read %.0f rows when the sink had received %.0f", read, received)
		// what is in flight is bounded by the exchange's window and queues, not by the source
		if state != "RUNNING" || read > received+100_000 {
			t.Fatalf("the source was not held back by the sink: state %s, read %.0f, received %.0f", state, read, received)
		}
	})

	t.Run("a killed runner is declared lost and avoided", func(t *testing.T) {
		runners["r2"].kill(t)
		took := eventually(t, 15*time.Second, "r2 declared lost", func() bool {
			return clusterStatus(t, addr)["r2"].State == "LOST"
		})
		t.Logf("r2 declared lost %s after SIGKILL", took.Round(100*time.Millisecond))
		for i := 0; i < 3; i++ {
			id := submit(t, addr, writeJob(t, `
env { parallelism = 3 }
source { FakeSource { row.num = 10, schema = { fields { id = int } } } }
sink { Console { log.print.data = false } }`))
			awaitFinished(t, addr, id)
			for _, task := range jobStatus(t, addr, id).Pipelines[0].Tasks {
				if task.Runner == "r2" {
					t.Fatalf("task %+v was placed on the lost runner", task.Task)
				}
			}
		}
	})
	_ = context.Background
}

// TestSeaTunnelStreamingSavepoint runs SeaTunnel's streaming checkpoint test as its README
// describes: the STREAMING FakeSource → LocalFile job (100 rows in 5 splits read 3 s apart)
// under a fixed job id, a savepoint mid-way, a restore under the same id, a stop once every
// row is committed, then the Assert job counts exactly 100 rows in the sink folder.
func TestSeaTunnelStreamingSavepoint(t *testing.T) {
	const sinkDir = "/tmp/seatunnel/config/checkpoint-streaming-enable-test-resources"
	if err := os.RemoveAll(sinkDir); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	start(t, "dev", "dev", "--headless", "--port", strconv.Itoa(port), "--checkpoint-dir", t.TempDir())
	eventually(t, 60*time.Second, "dev server up", func() bool {
		cs := clusterStatus(t, addr)
		return len(cs) == 1
	})
	job := seatunnel("checkpoint", "streaming", "stream_fakesource_to_localfile.conf")
	const id = "20260101"
	if code, out := run(t, "job", "submit", "--address", addr, "--job-id", id, job); code != 0 {
		t.Fatalf("submit: exit %d\n%s", code, out)
	}
	eventually(t, 60*time.Second, "the job reads its first split", func() bool { return jobStatus(t, addr, id).Counters.RowsRead > 0 })
	code, out := run(t, "job", "savepoint", "--address", addr, id)
	if code != 0 || !strings.Contains(out, "SAVEPOINT_DONE") {
		t.Fatalf("savepoint: exit %d\n%s", code, out)
	}
	if code, out := run(t, "job", "restore", "--address", addr, id, job); code != 0 {
		t.Fatalf("restore: exit %d\n%s", code, out)
	}
	// the rows are committed by the checkpoints (every 30 s in a STREAMING job)
	eventually(t, 90*time.Second, "100 rows committed", func() bool { return countLines(sinkDir+"/sinkfile") >= 100 })
	if code, out := run(t, "job", "cancel", "--address", addr, id); code != 0 {
		t.Fatalf("cancel: exit %d\n%s", code, out)
	}
	if code, out := run(t, "run", seatunnel("checkpoint", "streaming", "sink_file_text_to_assert.conf")); code != 0 {
		t.Fatalf("assert: exit %d (%d lines)\n%s", code, countLines(sinkDir+"/sinkfile"), tail(out, 20))
	}
}

func countLines(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil && len(b) > 0 {
			// SeaTunnel's text files put the row delimiter between rows, not after the last
			n += bytes.Count(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) + 1
		}
		return nil
	})
	return n
}

// TestRunnerKilledMidJob SIGKILLs one of two workers, then the runner hosting a job's tasks
// mid-way: the surviving worker carries on, the runner is declared lost, the pipeline
// restarts once from its latest checkpoint on the other runner, and the transactional
// LocalFile sink ends with exactly the rows the source produced.
func TestRunnerKilledMidJob(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	addr := startTemporal(t)
	ckpt := t.TempDir()
	start(t, "worker", "worker", "--address", addr, "--checkpoint-dir", ckpt)
	spare := start(t, "worker-2", "worker", "--address", addr, "--checkpoint-dir", ckpt)
	runners := map[string]*proc{}
	for _, id := range []string{"k1", "k2"} {
		runners[id] = start(t, id, "runner", "--address", addr, "--id", id, "--slots", "1", "--checkpoint-dir", ckpt)
	}
	eventually(t, 60*time.Second, "two runners registered", func() bool { return len(clusterStatus(t, addr)) == 2 })
	out := t.TempDir()
	id := submit(t, addr, writeJob(t, fmt.Sprintf(`
env { job.mode = BATCH, parallelism = 1, checkpoint.interval = 1000, job.retry.interval.seconds = 3 }
source { FakeSource { plugin_output = "fake", row.num = 300, split.num = 30, split.read-interval = 1000,
  schema = { fields { id = bigint, name = string } } } }
sink { LocalFile { plugin_input = "fake", path = "%s/sink", tmp_path = "%s/tmp", file_format_type = json } }`, out, out)))
	// the job reads a split a second for 30 s: the kills below land while it runs even when
	// a loaded machine takes seconds over each checkpoint
	var victim string
	eventually(t, 30*time.Second, "the job runs", func() bool {
		jv := jobStatus(t, addr, id)
		if len(jv.Pipelines) == 0 || len(jv.Pipelines[0].Tasks) == 0 || jv.Pipelines[0].Tasks[0].State != "RUNNING" {
			return false
		}
		victim = jv.Pipelines[0].Tasks[0].Runner
		return true
	})
	sink := filepath.Join(out, "sink")
	untilCommitted(t, func() int { return countLines(sink) })
	// a worker dies: the other one takes the workflows over from their history; no task
	// restarts for it (the restart counted below is the runner's)
	spare.kill(t)
	before := countLines(sink)
	eventually(t, 60*time.Second, "a checkpoint after the worker died commits rows", func() bool { return countLines(sink) > before })
	runners[victim].kill(t)
	killed := time.Now()
	// the time from the SIGKILL to the job running again elsewhere
	back := eventually(t, 60*time.Second, "the job runs again on the other runner", func() bool {
		jv := jobStatus(t, addr, id)
		if len(jv.Pipelines) == 0 || len(jv.Pipelines[0].Tasks) == 0 {
			return jv.State == "FINISHED"
		}
		task := jv.Pipelines[0].Tasks[0]
		return jv.State == "FINISHED" || (task.Runner != victim && task.State == "RUNNING")
	})
	t.Logf("runner %s killed; the job ran again %s later", victim, back.Round(100*time.Millisecond))
	awaitFinished(t, addr, id)
	t.Logf("runner %s killed; job finished %s later", victim, time.Since(killed).Round(100*time.Millisecond))
	var st struct {
		Pipelines []struct {
			Restarts    int    `json:"restarts"`
			LastFailure string `json:"lastFailure"`
			Runners     []string
		} `json:"pipelines"`
	}
	_, so := run(t, "job", "status", id, "--json", "--address", addr)
	if err := json.Unmarshal([]byte(so), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Pipelines) != 1 || st.Pipelines[0].Restarts != 1 || !strings.Contains(st.Pipelines[0].LastFailure, "lost") {
		t.Fatalf("status %+v", st)
	}
	// exactly the 300 rows, each once
	ids, total := jsonIDs(t, filepath.Join(out, "sink"))
	for k, n := range ids {
		if n != 1 {
			t.Fatalf("row %d written %d times", k, n)
		}
	}
	if total != 300 {
		t.Fatalf("%d rows in the sink, want 300", total)
	}
}

// TestTemporalRestartMidJob stops the Temporal dev server (state in a SQLite file) mid-job and
// starts it again: the runner keeps its tasks and retries its reports, and the job finishes
// with exactly its rows and no restart.
func TestTemporalRestartMidJob(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	db := filepath.Join(t.TempDir(), "temporal.db")
	ckpt := t.TempDir()
	up := func() *proc {
		p := start(t, "temporal", "dev", "--only-temporal", "--headless", "--port", strconv.Itoa(port), "--db", db)
		awaitListening(t, addr, "temporal dev server up")
		return p
	}
	temporal := up()
	start(t, "worker", "worker", "--address", addr, "--checkpoint-dir", ckpt)
	start(t, "runner", "runner", "--address", addr, "--id", "t1", "--slots", "2", "--checkpoint-dir", ckpt)
	eventually(t, 60*time.Second, "runner registered", func() bool { return len(clusterStatus(t, addr)) == 1 })
	out := t.TempDir()
	id := submit(t, addr, writeJob(t, fmt.Sprintf(`
env { job.mode = BATCH, parallelism = 1, checkpoint.interval = 1000 }
source { FakeSource { plugin_output = "fake", row.num = 100, split.num = 10, split.read-interval = 1000,
  schema = { fields { id = bigint, name = string } } } }
sink { LocalFile { plugin_input = "fake", path = "%s/sink", tmp_path = "%s/tmp", file_format_type = json } }`, out, out)))
	eventually(t, 30*time.Second, "the job runs", func() bool {
		jv := jobStatus(t, addr, id)
		return len(jv.Pipelines) > 0 && len(jv.Pipelines[0].Tasks) > 0 && jv.Pipelines[0].Tasks[0].State == "RUNNING"
	})
	untilCommitted(t, func() int { return countLines(filepath.Join(out, "sink")) })
	if err := temporal.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = temporal.cmd.Wait()
	temporal = up()
	awaitFinished(t, addr, id)
	var st struct {
		Pipelines []struct {
			Restarts int `json:"restarts"`
		} `json:"pipelines"`
	}
	_, so := run(t, "job", "status", id, "--json", "--address", addr)
	if err := json.Unmarshal([]byte(so), &st); err != nil {
		t.Fatal(err)
	}
	total, twice := sinkLines(t, filepath.Join(out, "sink"))
	t.Logf("restarts %d, rows %d, rows written twice %d", st.Pipelines[0].Restarts, total, len(twice))
	if total != 100 || len(twice) > 0 {
		t.Fatalf("%d rows in the sink, want 100; written twice: %v", total, twice)
	}
}

// awaitListening waits until something accepts connections on addr: a Temporal server (or
// another process of the test) that is starting.
func awaitListening(t *testing.T, addr, what string) {
	t.Helper()
	eventually(t, 60*time.Second, what, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// startTemporal starts a Temporal dev server alone (`strait dev --only-temporal`) on a free
// port and waits until it accepts connections; it returns its address.
func startTemporal(t *testing.T) string {
	t.Helper()
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	start(t, "temporal", "dev", "--only-temporal", "--headless", "--port", strconv.Itoa(port))
	awaitListening(t, addr, "temporal dev server up")
	return addr
}
