package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cluster is a Temporal dev server and a worker as separate processes, sharing a checkpoint
// store; runners are started by the test.
type cluster struct {
	addr, ckpt string
}

func startCluster(t *testing.T, ckpt string) *cluster {
	t.Helper()
	c := &cluster{addr: startTemporal(t), ckpt: ckpt}
	start(t, "worker", "worker", "--address", c.addr, "--checkpoint-dir", ckpt)
	return c
}

func (c *cluster) runner(t *testing.T, id string, slots int) *proc {
	t.Helper()
	p := start(t, id, "runner", "--address", c.addr, "--id", id, "--slots", strconv.Itoa(slots), "--checkpoint-dir", c.ckpt)
	eventually(t, 60*time.Second, "runner "+id+" registered", func() bool { return clusterStatus(t, c.addr)[id].State == "ALIVE" })
	return p
}

// runningOn waits until every task of the job runs and returns the runner of the first.
func (c *cluster) runningOn(t *testing.T, id string) string {
	t.Helper()
	var on string
	eventually(t, 60*time.Second, "job "+id+" runs", func() bool {
		jv := jobStatus(t, c.addr, id)
		if len(jv.Pipelines) == 0 || len(jv.Pipelines[0].Tasks) == 0 {
			return false
		}
		for _, task := range jv.Pipelines[0].Tasks {
			if task.State != "RUNNING" {
				return false
			}
		}
		on = jv.Pipelines[0].Tasks[0].Runner
		return true
	})
	return on
}

type statusCounts struct {
	State    string   `json:"state"`
	Warnings []string `json:"warnings"`
	Counters struct {
		RowsRead    int64 `json:"rowsRead"`
		RowsWritten int64 `json:"rowsWritten"`
	} `json:"counters"`
	Pipelines []struct {
		Restarts     int    `json:"restarts"`
		LastFailure  string `json:"lastFailure"`
		RestoredFrom int64  `json:"restoredFrom"`
	} `json:"pipelines"`
}

func (c *cluster) status(t *testing.T, id string) statusCounts {
	t.Helper()
	_, out := run(t, "job", "status", id, "--json", "--address", c.addr)
	var st statusCounts
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("job status %s: %v\n%s", id, err, out)
	}
	return st
}

// jsonIDs reads the id field of every json line under dir, counting each.
func jsonIDs(t *testing.T, dir string) (map[int64]int, int) {
	t.Helper()
	ids := map[int64]int{}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return ids, 0 // nothing committed yet
	}
	rows := jsonLines[struct {
		ID int64 `json:"id"`
	}](t, dir)
	for _, r := range rows {
		ids[r.ID]++
	}
	return ids, len(rows)
}

// jsonLines decodes every line of every file under dir, the files in the order of their
// names.
func jsonLines[T any](t *testing.T, dir string) []T {
	t.Helper()
	files := localFileFiles(t, dir)
	var out []T
	for _, name := range slices.Sorted(maps.Keys(files)) {
		for _, line := range strings.Split(strings.TrimSpace(files[name]), "\n") {
			if line == "" {
				continue
			}
			var r T
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%s: %v", filepath.Join(dir, name), err)
			}
			out = append(out, r)
		}
	}
	return out
}

// exactlyOnce checks that the sink under dir holds the ids 1..n, each once.
func exactlyOnce(t *testing.T, dir string, n int) {
	t.Helper()
	ids, total := jsonIDs(t, dir)
	eachIDOnce(t, dir, ids, n)
	if total != n {
		t.Fatalf("%d rows in %s, want %d", total, dir, n)
	}
}

// eachIDOnce checks that ids counts each of the ids 1..n once and no other id; what names
// the sink in the errors.
func eachIDOnce(t *testing.T, what string, ids map[int64]int, n int) {
	t.Helper()
	for i := int64(1); i <= int64(n); i++ {
		if ids[i] != 1 {
			t.Errorf("%s: row %d written %d times", what, i, ids[i])
		}
	}
	if len(ids) != n {
		t.Errorf("%s: %d distinct rows, want %d", what, len(ids), n)
	}
}

// slowJob is a job of a deterministic input: 100 json lines with ids 1..100 in ten files,
// read at 10 rows a second with a checkpoint every second, into an exactly-once LocalFile
// sink under dir.
func slowJob(t *testing.T, dir string) string {
	t.Helper()
	return slowJobOf(t, dir, 100)
}

// slowJobOf is slowJob of n rows (a multiple of 10).
func slowJobOf(t *testing.T, dir string, n int) string {
	t.Helper()
	return fenceJobOf(t, dir, n, localFileSink())
}

// With the only runner dead the job fails; restored once another runner is up, its tasks go
// to the live runner, never to the one that was lost.
func TestRestoreAfterTheOnlyRunnerDied(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	c := startCluster(t, t.TempDir())
	first := c.runner(t, "dead", 1)
	out := t.TempDir()
	job := slowJob(t, out)
	code, o := run(t, "job", "submit", "--address", c.addr, "--job-id", "7301", job)
	if code != 0 {
		t.Fatalf("submit: exit %d\n%s", code, o)
	}
	c.runningOn(t, "7301")
	untilCommitted(t, func() int { ids, _ := jsonIDs(t, filepath.Join(out, "sink")); return len(ids) })
	first.kill(t)
	eventually(t, 90*time.Second, "the job fails without a runner", func() bool { return c.status(t, "7301").State == "FAILED" })
	c.runner(t, "alive", 1)
	if code, o := run(t, "job", "restore", "--address", c.addr, "7301", job); code != 0 {
		t.Fatalf("restore: exit %d\n%s", code, o)
	}
	if on := c.runningOn(t, "7301"); on != "alive" {
		t.Fatalf("the restored job runs on %q, want the live runner", on)
	}
	awaitFinished(t, c.addr, "7301")
	exactlyOnce(t, filepath.Join(out, "sink"), 100)
}

// A job id that ran before, run afresh on a new cluster with the same checkpoint store,
// starts clean and says so; a failover then restores this run's checkpoint, not the earlier
// run's, and the counts are the job's across both attempts.
func TestFreshRunOfAKnownIDStartsClean(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	ckpt := t.TempDir()
	firstOut, secondOut := t.TempDir(), t.TempDir()
	const id = "424243"
	{
		c := startCluster(t, ckpt)
		c.runner(t, "a1", 1)
		code, o := run(t, "job", "submit", "--address", c.addr, "--job-id", id, slowJob(t, firstOut))
		if code != 0 {
			t.Fatalf("submit: exit %d\n%s", code, o)
		}
		if code, o := run(t, "job", "wait", "--address", c.addr, id); code != 0 {
			t.Fatalf("first run: exit %d\n%s", code, o)
		}
	}
	c := startCluster(t, ckpt)
	runners := map[string]*proc{"b1": c.runner(t, "b1", 1), "b2": c.runner(t, "b2", 1)}
	code, o := run(t, "job", "submit", "--address", c.addr, "--job-id", id, slowJob(t, secondOut))
	if code != 0 {
		t.Fatalf("submit: exit %d\n%s", code, o)
	}
	victim := c.runningOn(t, id)
	st := c.status(t, id)
	if len(st.Warnings) == 0 || !strings.Contains(strings.Join(st.Warnings, "\n"), "ran before") {
		t.Errorf("a fresh run of a known id does not say it starts clean: warnings %q", st.Warnings)
	}
	untilCommitted(t, func() int { ids, _ := jsonIDs(t, filepath.Join(secondOut, "sink")); return len(ids) })
	runners[victim].kill(t)
	if code, o := run(t, "job", "wait", "--address", c.addr, id); code != 0 {
		t.Fatalf("second run: exit %d\n%s", code, o)
	}
	st = c.status(t, id)
	if len(st.Pipelines) != 1 || st.Pipelines[0].Restarts != 1 || st.Pipelines[0].RestoredFrom == 0 {
		t.Fatalf("want one failover from a checkpoint of this run: %+v", st.Pipelines)
	}
	exactlyOnce(t, filepath.Join(secondOut, "sink"), 100)
	exactlyOnce(t, filepath.Join(firstOut, "sink"), 100)
	if st.Counters.RowsRead != 100 || st.Counters.RowsWritten != 100 {
		t.Fatalf("the job read %d and wrote %d rows across its attempts, want 100 and 100", st.Counters.RowsRead, st.Counters.RowsWritten)
	}
}

// A worker and a runner started before their Temporal server wait for it, and run jobs once
// it answers.
func TestWorkerAndRunnerWaitForTemporal(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	ckpt := t.TempDir()
	worker := start(t, "worker", "worker", "--address", addr, "--checkpoint-dir", ckpt)
	runner := start(t, "runner", "runner", "--address", addr, "--id", "early", "--slots", "1", "--checkpoint-dir", ckpt)
	eventually(t, 30*time.Second, "both say they wait for Temporal", func() bool {
		return strings.Contains(worker.output(), "Temporal does not answer yet") && strings.Contains(runner.output(), "Temporal does not answer yet")
	})
	for _, p := range []*proc{worker, runner} {
		if p.cmd.ProcessState != nil {
			t.Fatalf("%s exited before Temporal started:\n%s", p.name, p.output())
		}
	}
	start(t, "temporal", "dev", "--only-temporal", "--headless", "--port", strconv.Itoa(port))
	eventually(t, 90*time.Second, "the runner registered", func() bool { return clusterStatus(t, addr)["early"].State == "ALIVE" })
	out := t.TempDir()
	id := submit(t, addr, slowJobOf(t, out, 20))
	awaitFinished(t, addr, id)
	exactlyOnce(t, filepath.Join(out, "sink"), 20)
}
