package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/strait-dev/strait/contract"
)

// SeaTunnel's ClusterFaultToleranceIT and ClusterFaultToleranceTwoPipelineIT run a
// FakeSource → LocalFile job on a two-node cluster and take nodes down mid-job. Here each
// SeaTunnel node is a `strait worker` (the JobMaster's half: the workflows) and a `strait
// runner` (the task half: slots), beside a Temporal dev server on a SQLite file and one
// checkpoint folder that all of them share.
//
// A node down is a SIGKILL of its worker and its runner. SeaTunnel spreads one job's tasks
// over both nodes, so whichever node it stops takes tasks down; Strait keeps a task group's
// instances on one runner, so the runner of the node killed is the one that hosts the
// job's (first pipeline's) tasks. The worker of the node killed is the master's, the one
// running the pipeline's workflow (the checkpoint coordinator) as its history says, when
// the master goes down, and the other worker when a worker node goes down. "All nodes down"
// kills every process, Temporal included, and starts them again on the same files.

// ftCase is one of SeaTunnel's tests, with its parameters and its Awaitility bounds.
type ftCase struct {
	it          string // SeaTunnel's test, Class.method
	pipelines   int    // 1: the template, 2: the two-pipeline template (one folder)
	mode        string // BATCH or STREAMING
	parallelism int    // FakeSource's parallelism; 1000 rows per reader
	down        string // "", "worker", "master" or "all"
	// firstRows bounds the wait for the job RUNNING with rows committed (more than one line),
	// the moment SeaTunnel takes its node down.
	firstRows time.Duration
	// settle is the Java test's 5 s pause between the first rows and the kill: one more
	// checkpoint (the template checkpoints every 5 s).
	settle bool
	// done bounds the wait for the end: a BATCH job FINISHED, a STREAMING job RUNNING with
	// every row in the folder (after the restart for "all").
	done time.Duration
	// cancel bounds the wait for a canceled STREAMING job to end CANCELED.
	cancel time.Duration
}

const (
	ftRowsPerReader = 1000
	// ftRejoin bounds the wait for both nodes of a restarted cluster to have joined, as
	// testStreamJobRestoreInAllNodeDown waits for two members.
	ftRejoin = 60 * time.Second
	// ftQuiet bounds the wait for two more checkpoints once every row is in: the Java
	// tests' "sleep 10s and expect the job don't write more rows" is two checkpoints of 5 s.
	ftQuiet = time.Minute
)

var ftCases = []ftCase{
	{it: "ClusterFaultToleranceIT.testBatchJobRunOkIn2Node", pipelines: 1, mode: "BATCH", parallelism: 6,
		done: 600 * time.Second},
	{it: "ClusterFaultToleranceIT.testStreamJobRunOkIn2Node", pipelines: 1, mode: "STREAMING", parallelism: 6,
		done: 2 * time.Minute, cancel: 600 * time.Second},
	{it: "ClusterFaultToleranceIT.testBatchJobRestoreIn2NodeWorkerDown", pipelines: 1, mode: "BATCH", parallelism: 2,
		down: "worker", firstRows: 180 * time.Second, done: 600 * time.Second},
	{it: "ClusterFaultToleranceIT.testStreamJobRestoreIn2NodeWorkerDown", pipelines: 1, mode: "STREAMING", parallelism: 6,
		down: "worker", firstRows: 60 * time.Second, settle: true, done: 600 * time.Second, cancel: 600 * time.Second},
	{it: "ClusterFaultToleranceIT.testBatchJobRestoreIn2NodeMasterDown", pipelines: 1, mode: "BATCH", parallelism: 6,
		down: "master", firstRows: 60 * time.Second, done: 600 * time.Second},
	{it: "ClusterFaultToleranceIT.testStreamJobRestoreIn2NodeMasterDown", pipelines: 1, mode: "STREAMING", parallelism: 6,
		down: "master", firstRows: 60 * time.Second, done: 600 * time.Second, cancel: 600 * time.Second},
	// the Java test sleeps 10 s once both nodes are back, then waits at most 100 s
	{it: "ClusterFaultToleranceIT.testStreamJobRestoreInAllNodeDown", pipelines: 1, mode: "STREAMING", parallelism: 6,
		down: "all", firstRows: 600 * time.Second, settle: true, done: 110 * time.Second, cancel: 600 * time.Second},

	{it: "ClusterFaultToleranceTwoPipelineIT.testTwoPipelineBatchJobRunOkIn2Node", pipelines: 2, mode: "BATCH", parallelism: 6,
		done: 600 * time.Second},
	{it: "ClusterFaultToleranceTwoPipelineIT.testTwoPipelineStreamJobRunOkIn2Node", pipelines: 2, mode: "STREAMING", parallelism: 6,
		done: 6 * time.Minute, cancel: 600 * time.Second},
	{it: "ClusterFaultToleranceTwoPipelineIT.testTwoPipelineBatchJobRestoreIn2NodeWorkerDown", pipelines: 2, mode: "BATCH", parallelism: 6,
		down: "worker", firstRows: 60 * time.Second, done: 600 * time.Second},
	{it: "ClusterFaultToleranceTwoPipelineIT.testTwoPipelineStreamJobRestoreIn2NodeWorkerDown", pipelines: 2, mode: "STREAMING", parallelism: 6,
		down: "worker", firstRows: 360 * time.Second, settle: true, done: 360 * time.Second, cancel: 600 * time.Second},
	{it: "ClusterFaultToleranceTwoPipelineIT.testTwoPipelineBatchJobRestoreIn2NodeMasterDown", pipelines: 2, mode: "BATCH", parallelism: 6,
		down: "master", firstRows: 360 * time.Second, done: 600 * time.Second},
	{it: "ClusterFaultToleranceTwoPipelineIT.testTwoPipelineStreamJobRestoreIn2NodeMasterDown", pipelines: 2, mode: "STREAMING", parallelism: 6,
		down: "master", firstRows: 360 * time.Second, done: 600 * time.Second, cancel: 360 * time.Second},
}

// TestSeaTunnelClusterFaultTolerance runs SeaTunnel's cluster fault-tolerance tests on
// separate processes, each on a cluster of its own, as each Java test starts its own. The
// clusters mostly wait (split.read-interval, checkpoints, leases), so the cases run in
// parallel with each other and with the other kill tests.
func TestSeaTunnelClusterFaultTolerance(t *testing.T) {
	t.Parallel() // clusters of their own processes, mostly waiting
	for _, tc := range ftCases {
		t.Run(tc.it, func(t *testing.T) {
			t.Parallel()
			runFTCase(t, tc)
		})
	}
}

func runFTCase(t *testing.T, tc ftCase) {
	class, method, _ := strings.Cut(tc.it, ".")
	// the sink folder is named after the Java test's cluster (Class_method): the
	// single-worker runs of the same methods in TestSeaTunnelSuiteCluster write under the
	// method's name, so the two never share a folder
	caseName := class + "_" + method
	dir := "/tmp/hive/warehouse/" + caseName
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	template := "cluster_batch_fake_to_localfile_template.conf"
	if tc.pipelines == 2 {
		template = "cluster_batch_fake_to_localfile_two_pipeline_template.conf"
	}
	job := fromTemplate(t, "engine/"+template, map[string]string{
		"dynamic_test_case_name":               caseName,
		"dynamic_job_mode":                     tc.mode,
		"dynamic_test_row_num_per_parallelism": strconv.Itoa(ftRowsPerReader),
		"dynamic_test_parallelism":             strconv.Itoa(tc.parallelism),
	})
	want := ftRowsPerReader * tc.parallelism * tc.pipelines
	// each runner has the slots of the whole job, as SeaTunnel's dynamic slots let one node
	// run everything once the other is gone
	c := startFTCluster(t, tc.parallelism*tc.pipelines)
	id := c.submit(t, method, job)
	// deferred, so that it runs (on a failure too) while the processes are still up
	defer func() {
		if t.Failed() {
			if code, out := run(t, "job", "status", id, "--json", "--address", c.addr); code == 0 {
				t.Logf("--- job %s status:\n%s", id, out)
			}
			if code, out := run(t, "cluster", "status", "--address", c.addr); code == 0 {
				t.Logf("--- cluster status:\n%s", out)
			}
		}
	}()
	ft := &ftRun{c: c, tc: tc, id: id, dir: dir, want: want}
	ft.play(t)
	ft.checkSink(t)
}

// play runs the Java test's steps: the failure once rows are committed, then its end.
func (r *ftRun) play(t *testing.T) {
	t.Helper()
	switch r.tc.down {
	case "":
		r.finish(t, time.Now())
	case "worker", "master":
		r.firstRows(t)
		killed := r.nodeDown(t)
		r.runningAgain(t, killed)
		r.finish(t, killed)
	case "all":
		r.firstRows(t)
		killed := time.Now()
		r.c.allDown(t)
		r.c.up(t)
		t.Logf("every process killed; the cluster was back %s later", time.Since(killed).Round(100*time.Millisecond))
		r.runningAgain(t, killed)
		r.finish(t, killed)
	default:
		t.Fatalf("unknown node failure %q", r.tc.down)
	}
}

// ftCluster is Temporal on a SQLite file and two nodes: workers worker-1, worker-2 and
// runners r1, r2, all on one checkpoint folder.
type ftCluster struct {
	cluster
	port     int
	db       string
	slots    int
	temporal *proc
	workers  map[string]*proc
	runners  map[string]*proc
	history  client.Client
}

func startFTCluster(t *testing.T, slots int) *ftCluster {
	t.Helper()
	port := freePort(t)
	c := &ftCluster{
		cluster: cluster{addr: fmt.Sprintf("127.0.0.1:%d", port), ckpt: t.TempDir()},
		port:    port,
		db:      filepath.Join(t.TempDir(), "temporal.db"),
		slots:   slots,
	}
	c.up(t)
	hc, err := client.Dial(client.Options{HostPort: c.addr, Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		t.Fatalf("Temporal client: %v", err)
	}
	t.Cleanup(hc.Close)
	c.history = hc
	return c
}

// up starts Temporal on the cluster's database, then both nodes, and waits until both
// workers poll and both runners are ALIVE.
func (c *ftCluster) up(t *testing.T) {
	t.Helper()
	began := time.Now()
	c.temporal = start(t, "temporal", "dev", "--only-temporal", "--headless", "--port", strconv.Itoa(c.port), "--db", c.db)
	awaitListening(t, c.addr, "temporal dev server up")
	c.workers, c.runners = map[string]*proc{}, map[string]*proc{}
	for _, n := range []string{"1", "2"} {
		c.workers["worker-"+n] = start(t, "worker-"+n, "worker", "--address", c.addr, "--checkpoint-dir", c.ckpt)
		c.runners["r"+n] = start(t, "r"+n, "runner", "--address", c.addr, "--id", "r"+n, "--slots", strconv.Itoa(c.slots),
			"--listen", "127.0.0.1:0", "--checkpoint-dir", c.ckpt)
	}
	// SeaTunnel waits 10 s (60 s after a restart) for the members of nodes it started in its
	// own JVM; these are processes that start and dial Temporal first
	eventually(t, ftRejoin, "both nodes joined", func() bool {
		for _, w := range c.workers {
			if !strings.Contains(w.output(), "Worker connected") {
				return false
			}
		}
		cs := clusterStatus(t, c.addr)
		return cs["r1"].State == "ALIVE" && cs["r2"].State == "ALIVE"
	})
	t.Logf("cluster up in %s", time.Since(began).Round(100*time.Millisecond))
}

// allDown kills every process of the cluster, Temporal last.
func (c *ftCluster) allDown(t *testing.T) {
	t.Helper()
	for _, m := range []map[string]*proc{c.runners, c.workers} {
		for _, p := range m {
			p.kill(t)
		}
	}
	c.temporal.kill(t)
}

func (c *ftCluster) submit(t *testing.T, name, job string) string {
	t.Helper()
	code, out := run(t, "job", "submit", "--address", c.addr, "-n", name, job)
	if code != 0 {
		t.Fatalf("submit: exit %d\n%s", code, out)
	}
	f := strings.Fields(strings.TrimSpace(out))
	return f[len(f)-1]
}

// workflowWorker names the worker that ran the latest workflow task of a workflow: the
// worker holding it in its cache, where its next tasks go. A worker's identity begins with
// its process id.
func (c *ftCluster) workflowWorker(t *testing.T, wid string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	it := c.history.GetWorkflowHistory(ctx, wid, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	identity := ""
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatalf("history of %s: %v", wid, err)
		}
		if a := ev.GetWorkflowTaskStartedEventAttributes(); a != nil {
			identity = a.GetIdentity()
		}
	}
	pid, _, _ := strings.Cut(identity, "@")
	for name, w := range c.workers {
		if strconv.Itoa(w.cmd.Process.Pid) == pid {
			return name
		}
	}
	t.Fatalf("%s: its last workflow task ran on %q, none of the workers", wid, identity)
	return ""
}

// ftStatus is the part of `strait job status --json` these tests read.
type ftStatus struct {
	State    string `json:"state"`
	Error    string `json:"error"`
	Counters struct {
		RowsRead    int64 `json:"rowsRead"`
		RowsWritten int64 `json:"rowsWritten"`
	} `json:"counters"`
	Pipelines []struct {
		ID           int        `json:"id"`
		State        string     `json:"state"`
		Restarts     int        `json:"restarts"`
		LastFailure  string     `json:"lastFailure"`
		RestoredFrom int64      `json:"restoredFrom"`
		Tasks        []taskView `json:"tasks"`
	} `json:"pipelines"`
}

// jobState asks for the job's status; ok is false while no worker or no Temporal answers
// (a node down, the cluster restarting).
func (c *ftCluster) jobState(t *testing.T, id string) (ftStatus, bool) {
	t.Helper()
	var st ftStatus
	code, out := run(t, "job", "status", id, "--json", "--address", c.addr)
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		return st, false
	}
	return st, true
}

// await polls cond once a second (each poll of the job's status is a process; the machine
// is shared) until it holds, failing past the bound; it returns how long it took.
func await(t *testing.T, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	return pollUntil(t, within, time.Second, what, cond)
}

// ftRun is one run of a case on its cluster.
type ftRun struct {
	c    *ftCluster
	tc   ftCase
	id   string
	dir  string // the sink folder
	want int    // the rows the folder must hold in the end
	// victim is the runner killed and hit the pipelines whose tasks it hosted
	victim string
	hit    map[int]bool
}

// lines counts the lines in the sink folder, failing at once past the rows the job has:
// an exactly-once sink never holds more.
func (r *ftRun) lines(t *testing.T) int {
	t.Helper()
	n := countLines(r.dir)
	if n > r.want {
		t.Fatalf("%d lines in %s, more than the %d rows of the job", n, r.dir, r.want)
	}
	return n
}

// firstRows waits, as every restore test does before it takes a node down, for the job
// RUNNING with committed rows, then (settle) for one more checkpoint.
func (r *ftRun) firstRows(t *testing.T) {
	t.Helper()
	took := await(t, r.tc.firstRows, "the job RUNNING with committed rows", func() bool {
		if r.lines(t) <= 1 {
			return false
		}
		st, ok := r.c.jobState(t, r.id)
		return ok && st.State == "RUNNING"
	})
	t.Logf("job %s RUNNING with %d lines committed %s after its submission", r.id, countLines(r.dir), took.Round(100*time.Millisecond))
	if r.tc.settle {
		r.checkpoints(t, 1)
	}
}

// checkpoints waits until every pipeline of the job has completed n more checkpoints.
func (r *ftRun) checkpoints(t *testing.T, n int64) {
	t.Helper()
	base := newestCheckpoints(r.c.ckpt, r.id)
	await(t, ftQuiet, fmt.Sprintf("%d more checkpoints after %v", n, base), func() bool {
		now := newestCheckpoints(r.c.ckpt, r.id)
		for p := 1; p <= r.tc.pipelines; p++ {
			if now[p] < base[p]+n {
				return false
			}
		}
		return true
	})
}

// newestCheckpoints reads the newest completed checkpoint of each pipeline of a job from
// the checkpoint folder (<root>/<job>/<pipeline>/<checkpoint>/manifest.json).
func newestCheckpoints(root, job string) map[int]int64 {
	newest := map[int]int64{}
	manifests, _ := filepath.Glob(filepath.Join(root, job, "*", "*", "manifest.json"))
	for _, m := range manifests {
		cp, _ := strconv.ParseInt(filepath.Base(filepath.Dir(m)), 10, 64)
		p, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(m))))
		newest[p] = max(newest[p], cp)
	}
	return newest
}

// nodeDown kills the worker and the runner of the node the case takes down and returns
// when.
func (r *ftRun) nodeDown(t *testing.T) time.Time {
	t.Helper()
	st, ok := r.c.jobState(t, r.id)
	if !ok || len(st.Pipelines) == 0 {
		t.Fatalf("job %s: no status before the kill", r.id)
	}
	r.hit = map[int]bool{}
	var placement []string
	for _, p := range st.Pipelines {
		on := map[string]bool{}
		for _, task := range p.Tasks {
			on[task.Runner] = true
		}
		if r.victim == "" && len(p.Tasks) > 0 {
			r.victim = p.Tasks[0].Runner
		}
		r.hit[p.ID] = on[r.victim]
		on1 := r.c.workflowWorker(t, contract.PipelineWorkflowID(mustID(t, r.id), p.ID))
		placement = append(placement, fmt.Sprintf("pipeline %d: tasks on %v, workflow on %s", p.ID, slices.Sorted(maps.Keys(on)), on1))
	}
	// the master is the worker of the first pipeline's workflow, its checkpoint coordinator
	master := r.c.workflowWorker(t, contract.PipelineWorkflowID(mustID(t, r.id), st.Pipelines[0].ID))
	worker := master
	if r.tc.down == "worker" {
		for name := range r.c.workers {
			if name != master {
				worker = name
			}
		}
	}
	t.Logf("job workflow on %s; %s", r.c.workflowWorker(t, contract.JobWorkflowID(mustID(t, r.id))), strings.Join(placement, "; "))
	t.Logf("%s node down: SIGKILL of %s and runner %s, %d lines committed", r.tc.down, worker, r.victim, countLines(r.dir))
	r.c.workers[worker].kill(t)
	r.c.runners[r.victim].kill(t)
	return time.Now()
}

// runningAgain waits until the pipelines that lost their tasks run again, every task
// RUNNING on a live runner (or the job is over), and logs the time from the kill.
func (r *ftRun) runningAgain(t *testing.T, killed time.Time) {
	t.Helper()
	var where []string
	await(t, r.tc.done, "the job running again", func() bool {
		st, ok := r.c.jobState(t, r.id)
		if !ok {
			return false
		}
		if st.State == "FINISHED" {
			where = []string{"the job FINISHED"}
			return true
		}
		where = where[:0]
		for _, p := range st.Pipelines {
			if !r.lostTasks(p.ID) {
				continue
			}
			if p.Restarts < 1 || len(p.Tasks) == 0 {
				return false
			}
			for _, task := range p.Tasks {
				if task.State != "RUNNING" || task.Runner == r.victim {
					return false
				}
			}
			where = append(where, fmt.Sprintf("pipeline %d on %s from checkpoint %d", p.ID, p.Tasks[0].Runner, p.RestoredFrom))
		}
		return st.State == "RUNNING"
	})
	t.Logf("killed → running again: %s (%s)", time.Since(killed).Round(100*time.Millisecond), strings.Join(where, ", "))
}

// lostTasks reports whether the pipeline's tasks died in the failure: those on the killed
// runner, or every pipeline when every node went down.
func (r *ftRun) lostTasks(pipeline int) bool {
	return r.tc.down == "all" || r.hit[pipeline]
}

// finish waits for the end as the Java test does: a BATCH job FINISHED; a STREAMING job
// RUNNING with every row in the folder, then two more checkpoints that add none, then
// canceled and CANCELED.
func (r *ftRun) finish(t *testing.T, since time.Time) {
	t.Helper()
	if r.tc.mode == "BATCH" {
		code, out := waitJob(t, r.c.addr, r.id, r.tc.done)
		if code != 0 || !strings.Contains(out, "FINISHED") {
			t.Fatalf("job wait: exit %d, want FINISHED\n%s", code, tail(out, 20))
		}
		t.Logf("→ FINISHED: %s", time.Since(since).Round(100*time.Millisecond))
		return
	}
	await(t, r.tc.done, fmt.Sprintf("the job RUNNING with its %d rows committed", r.want), func() bool {
		if r.lines(t) != r.want {
			return false
		}
		st, ok := r.c.jobState(t, r.id)
		return ok && st.State == "RUNNING"
	})
	t.Logf("→ every row committed: %s", time.Since(since).Round(100*time.Millisecond))
	r.checkpoints(t, 2)
	if n := r.lines(t); n != r.want {
		t.Fatalf("%d lines after two more checkpoints, want %d", n, r.want)
	}
	if code, out := run(t, "job", "cancel", "--address", r.c.addr, r.id); code != 0 {
		t.Fatalf("cancel: exit %d\n%s", code, out)
	}
	code, out := waitJob(t, r.c.addr, r.id, r.tc.cancel)
	if code != 1 || !strings.Contains(out, "CANCELED") {
		t.Fatalf("job wait after cancel: exit %d, want CANCELED\n%s", code, tail(out, 20))
	}
}

// waitJob runs `strait job wait` for at most the bound.
func waitJob(t *testing.T, addr, id string, within time.Duration) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	cmd := exec.CommandContext(ctx, strait, "job", "wait", "--address", addr, id)
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS=")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("job %s not over within %s\n%s", id, within, tail(string(out), 20))
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	}
	t.Fatalf("job wait: %v", err)
	return -1, ""
}

// checkSink checks what every Java test checks last, the line count of the folder, and that
// the exactly-once sink wrote no row twice: FakeSource's values are random, so each of the
// job's rows is a distinct line. It checks which pipelines restarted, and that a FINISHED
// job left nothing staged.
func (r *ftRun) checkSink(t *testing.T) {
	t.Helper()
	total, dups := sinkLines(t, r.dir)
	if total != r.want {
		t.Errorf("%d lines in %s, want %d", total, r.dir, r.want)
	}
	if len(dups) > 0 {
		t.Errorf("%d lines written more than once, such as %.120q", len(dups), dups[0])
	}
	st, ok := r.c.jobState(t, r.id)
	if !ok {
		t.Fatalf("job %s: no status at the end", r.id)
	}
	t.Logf("job %s %s: rows read %d, written %d", r.id, st.State, st.Counters.RowsRead, st.Counters.RowsWritten)
	for _, p := range st.Pipelines {
		t.Logf("pipeline %d %s: %d restarts, restored from checkpoint %d, last failure %q", p.ID, p.State, p.Restarts, p.RestoredFrom, p.LastFailure)
		switch {
		case r.tc.down != "" && r.lostTasks(p.ID) && p.Restarts < 1:
			t.Errorf("pipeline %d lost its tasks and never restarted", p.ID)
		case !r.lostTasks(p.ID) && p.Restarts != 0:
			t.Errorf("pipeline %d kept its tasks yet restarted %d times (%s)", p.ID, p.Restarts, p.LastFailure)
		}
	}
	if r.tc.mode == "BATCH" {
		if left := staged(r.id); len(left) > 0 {
			t.Errorf("the FINISHED job left %d staged files, such as %s", len(left), left[0])
		}
	}
}

// sinkLines reads every line of every file under dir: how many, and those seen twice.
func sinkLines(t *testing.T, dir string) (int, []string) {
	t.Helper()
	seen := map[string]int{}
	total := 0
	for _, content := range localFileFiles(t, dir) {
		sc := bufio.NewScanner(strings.NewReader(content))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			seen[sc.Text()]++
			total++
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("sink folder %s: %v", dir, err)
		}
	}
	var dups []string
	for line, n := range seen {
		if n > 1 {
			dups = append(dups, line)
		}
	}
	sort.Strings(dups)
	return total, dups
}

// staged lists the files a job's LocalFile writers left under the default tmp_path.
func staged(job string) []string {
	var left []string
	_ = filepath.WalkDir(filepath.Join("/tmp/seatunnel/seatunnel", job), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	return left
}

func mustID(t *testing.T, id string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		t.Fatalf("job id %q: %v", id, err)
	}
	return n
}
