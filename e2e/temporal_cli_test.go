package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// temporalCLI is Temporal's own CLI, built by scripts/temporal-cli.sh (make test runs it).
func temporalCLI(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "bin", "tools", "temporal"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the Temporal CLI is not built: run scripts/temporal-cli.sh (make test does): %v", err)
	}
	return p
}

func temporal(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "TEMPORAL_CONFIG_FILE="+filepath.Join(t.TempDir(), "none.toml"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	} else if err != nil {
		t.Fatalf("temporal %v: %v", args, err)
	}
	return 0, out.String()
}

// readmeInput is the input the README shows for `temporal workflow start`: a whole job on
// one line, its sections separated by commas as HOCON wants them on one line.
const readmeInput = `{"config": "env { parallelism = 1, job.mode = BATCH }, source { FakeSource { row.num = 7, schema = { fields { id = bigint } } } }, sink { Console {} }"}`

var workflowIDLine = regexp.MustCompile(`WorkflowId\s+(\S+)`)

// A job started with Temporal's CLI, under a workflow id of Temporal's choosing, runs and is
// reachable by its job id from strait; a terminated job reads as CANCELED everywhere.
func TestTemporalCLI(t *testing.T) {
	t.Parallel()
	cli := temporalCLI(t)
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	start(t, "dev", "dev", "--headless", "--gateway", "", "--port", strconv.Itoa(port))
	awaitListening(t, addr, "dev server up")

	if !strings.Contains(readme(t), "--input \\\n'"+readmeInput+"'") {
		t.Fatalf("README.md no longer shows the input this test runs:\n%s", readmeInput)
	}
	code, out := temporal(t, cli, "workflow", "start", "--address", addr, "--type", "JobWorkflow",
		"--task-queue", "strait-jobs", "--input", readmeInput)
	if code != 0 {
		t.Fatalf("temporal workflow start: exit %d\n%s", code, out)
	}
	m := workflowIDLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no workflow id in:\n%s", out)
	}
	wid := m[1]
	if code, out := temporal(t, cli, "workflow", "result", "--address", addr, "--workflow-id", wid); code != 0 {
		t.Fatalf("temporal workflow result: exit %d\n%s", code, out)
	}
	id := jobIDOf(t, addr, wid)
	if st := jobStatus(t, addr, id); st.State != "FINISHED" || st.Counters.RowsRead != 7 {
		t.Errorf("job %s (workflow %s): %+v", id, wid, st)
	}
	if code, out := run(t, "job", "wait", "--address", addr, id); code != 0 {
		t.Errorf("job wait %s: exit %d\n%s", id, code, out)
	}

	t.Run("terminated", func(t *testing.T) {
		input := `{"config": "env { parallelism = 1, job.mode = STREAMING }, source { FakeSource { row.num = 10, split.read-interval = 1000, schema = { fields { id = bigint } } } }, sink { Console {} }"}`
		code, out := temporal(t, cli, "workflow", "start", "--address", addr, "--type", "JobWorkflow",
			"--task-queue", "strait-jobs", "--workflow-id", "hand-made-stream", "--input", input)
		if code != 0 {
			t.Fatalf("start: exit %d\n%s", code, out)
		}
		id := jobIDOf(t, addr, "hand-made-stream")
		eventually(t, 60*time.Second, "the job running", func() bool { return jobStatus(t, addr, id).State == "RUNNING" })
		if code, out := temporal(t, cli, "workflow", "terminate", "--address", addr, "--workflow-id", "hand-made-stream", "--reason", "test"); code != 0 {
			t.Fatalf("terminate: exit %d\n%s", code, out)
		}
		if ids := listed(t, addr, "RUNNING"); ids[id] {
			t.Errorf("a terminated job is listed as RUNNING")
		}
		eventually(t, 30*time.Second, "the job listed as CANCELED", func() bool { return listed(t, addr, "CANCELED")[id] })
		if st := jobStatus(t, addr, id); st.State != "CANCELED" {
			t.Errorf("status of the terminated job: %+v", st)
		}
	})
}

// jobIDOf finds the job id strait gives the job of workflow wid, in its job list.
func jobIDOf(t *testing.T, addr, wid string) string {
	t.Helper()
	var id string
	eventually(t, 30*time.Second, "workflow "+wid+" listed", func() bool {
		code, out := run(t, "job", "list", "--address", addr, "-o", "json")
		var jobs []struct {
			ID       int64  `json:"jobId"`
			Workflow string `json:"workflowId"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &jobs) != nil {
			return false
		}
		for _, j := range jobs {
			if j.Workflow == wid {
				id = strconv.FormatInt(j.ID, 10)
				if j.ID > 1<<53 {
					t.Fatalf("job id %d of workflow %s does not survive a JSON double", j.ID, wid)
				}
				return true
			}
		}
		return false
	})
	return id
}

func listed(t *testing.T, addr, state string) map[string]bool {
	t.Helper()
	code, out := run(t, "job", "list", "--address", addr, "--state", state, "-o", "json")
	if code != 0 {
		t.Fatalf("job list --state %s: exit %d\n%s", state, code, out)
	}
	var jobs []struct {
		ID int64 `json:"jobId"`
	}
	if err := json.Unmarshal([]byte(out), &jobs); err != nil {
		t.Fatalf("job list: %v\n%s", err, out)
	}
	m := map[string]bool{}
	for _, j := range jobs {
		m[strconv.FormatInt(j.ID, 10)] = true
	}
	return m
}

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
