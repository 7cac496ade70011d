package e2e

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Every command's help exits 0 and prints to stdout.
func TestCLIHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--help"}, {"help"},
		{"run", "--help"}, {"plan", "--help"}, {"dev", "--help"}, {"worker", "--help"}, {"runner", "--help"},
		{"gateway", "--help"}, {"plugins", "--help"},
		{"job", "--help"}, {"job", "-h"}, {"job", "submit", "--help"}, {"job", "status", "--help"}, {"job", "list", "--help"},
		{"job", "wait", "--help"}, {"job", "cancel", "--help"}, {"job", "savepoint", "--help"}, {"job", "restore", "--help"},
		{"schedule", "--help"}, {"schedule", "create", "--help"}, {"schedule", "list", "--help"},
		{"schedule", "trigger", "--help"}, {"schedule", "delete", "--help"},
		{"cluster", "--help"}, {"cluster", "status", "--help"},
	} {
		code, out := run(t, args...)
		if code != 0 || !strings.Contains(out, "Usage") {
			t.Errorf("strait %s: exit %d\n%s", strings.Join(args, " "), code, tail(out, 5))
		}
	}
	// a flag that does not exist is still an error, naming the way to the help
	if code, out := run(t, "job", "status", "--no-such-flag", "1"); code != 2 || !strings.Contains(out, "strait job status --help") {
		t.Errorf("a bad flag: exit %d\n%s", code, out)
	}
}

// `strait plugins Jdbc` describes both sides for every database the connector speaks.
func TestPluginsDescribesJdbc(t *testing.T) {
	t.Parallel()
	code, out := run(t, "plugins", "Jdbc")
	if code != 0 || !strings.Contains(out, "Jdbc (source)") || !strings.Contains(out, "Jdbc (sink)") {
		t.Fatalf("exit %d\n%s", code, tail(out, 10))
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "Writes rows") && !strings.Contains(line, "MySQL") {
			t.Errorf("the sink's summary names no MySQL: %s", line)
		}
	}
}

const cliJob = `
env { parallelism = 1, job.mode = BATCH }
source { FakeSource { row.num = 10, schema = { fields { id = bigint } } } }
sink { Assert { rules { row_rules = [ { rule_type = MAX_ROW, rule_value = 10 }, { rule_type = MIN_ROW, rule_value = 10 } ] } } }`

// strait run takes SeaTunnel's client flags.
func TestCLISeaTunnelFlags(t *testing.T) {
	t.Parallel()
	job := writeJob(t, cliJob)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"-c and --check", []string{"run", "-c", job, "--check"}, 0, "config OK"},
		{"--config, local mode", []string{"run", "--config", job, "-m", "local"}, 0, "Total Read Count"},
		{"-e is -m", []string{"run", "-c", job, "-e", "local"}, 0, "Total Read Count"},
		{"an unknown mode", []string{"run", "-c", job, "-m", "yarn"}, 2, `-m "yarn"`},
		{"the config twice, differently", []string{"run", "-c", job, "other.conf"}, 2, "give the job config once"},
		{"--async without a cluster", []string{"run", "-c", job, "--async"}, 2, "--async needs a cluster"},
		{"--check of a bad config", []string{"run", "-c", writeJob(t, "source { Nope {} }\nsink { Console {} }"), "--check"}, 2, "Nope"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out := run(t, c.args...)
			if code != c.code || !strings.Contains(out, c.want) {
				t.Fatalf("exit %d (want %d), output lacks %q:\n%s", code, c.code, c.want, tail(out, 10))
			}
		})
	}
}

// Against a cluster: --async submits and returns, SeaTunnel's -j/-l/--metrics/-can reach
// the job, and -o json works where a command prints a status or a listing.
func TestCLIAgainstCluster(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	start(t, "dev", "dev", "--headless", "--gateway", "", "--port", strconv.Itoa(port))
	awaitListening(t, addr, "dev server up")
	code, out := run(t, "run", "-m", "cluster", "--address", addr, "--async", "-c", writeJob(t, cliJob))
	if code != 0 {
		t.Fatalf("--async: exit %d\n%s", code, out)
	}
	id := strings.Fields(out)[0]
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		t.Fatalf("--async printed %q first, want the job id:\n%s", id, out)
	}
	awaitFinished(t, addr, id)
	if code, out := run(t, "run", "--address", addr, "-j", id); code != 0 || !strings.Contains(out, "FINISHED") {
		t.Errorf("run -j: exit %d\n%s", code, out)
	}
	code, out = run(t, "run", "--address", addr, "--metrics", id)
	var st struct {
		State    string `json:"state"`
		Counters struct {
			RowsRead int64 `json:"rowsRead"`
		} `json:"counters"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.State != "FINISHED" || st.Counters.RowsRead != 10 {
		t.Errorf("run --metrics: exit %d, %+v\n%s", code, st, out)
	}
	code, out = run(t, "run", "--address", addr, "-l")
	if code != 0 || !strings.Contains(out, id) {
		t.Errorf("run -l: exit %d\n%s", code, out)
	}
	var jobs []struct {
		ID int64 `json:"jobId"`
	}
	code, out = run(t, "job", "list", "--address", addr, "-o", "json")
	if code != 0 || json.Unmarshal([]byte(out), &jobs) != nil || len(jobs) == 0 {
		t.Errorf("job list -o json: exit %d\n%s", code, out)
	}
	if code, out := run(t, "cluster", "status", "--address", addr, "--output", "json"); code != 0 || !json.Valid([]byte(out)) {
		t.Errorf("cluster status --output json: exit %d\n%s", code, out)
	}
	if code, out := run(t, "job", "status", "--address", addr, "-o", "yaml", id); code != 2 || !strings.Contains(out, "text and json") {
		t.Errorf("-o yaml: exit %d\n%s", code, out)
	}

	streaming := writeJob(t, `
env { parallelism = 1, job.mode = STREAMING }
source { FakeSource { row.num = 10, split.num = 1, split.read-interval = 1000, schema = { fields { id = bigint } } } }
sink { Console {} }`)
	code, out = run(t, "run", "--address", addr, "--async", "-c", streaming)
	if code != 0 {
		t.Fatalf("--async streaming: exit %d\n%s", code, out)
	}
	sid := strings.Fields(out)[0]
	eventually(t, 60*time.Second, "the streaming job running", func() bool { return jobStatus(t, addr, sid).State == "RUNNING" })
	if code, out := run(t, "run", "--address", addr, "-can", sid); code != 0 {
		t.Fatalf("run -can: exit %d\n%s", code, out)
	}
	if code, _ := run(t, "job", "wait", "--address", addr, sid); code == 0 {
		t.Errorf("a canceled job waited with exit 0")
	}
	if st := jobStatus(t, addr, sid); st.State != "CANCELED" {
		t.Errorf("after -can the job is %s", st.State)
	}
}
