package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestRunnerLogMasksSecrets runs a cluster of processes and a job whose Jdbc sink connects
// with a password and writes one row holding the same text (a table of credentials copied
// along) into an integer column; the error that refuses the value quotes it. The runner
// logs the task's failure: the line is there, with the password masked.
func TestRunnerLogMasksSecrets(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	pg := postgres(t)
	suffix := randomHex(t, 6)
	password := "Runner-Log-Pw-" + suffix
	schema := "runner_log_" + suffix
	pgExec(t, pg, fmt.Sprintf(`CREATE SCHEMA %[1]s;
CREATE TABLE %[1]s.dst (id int PRIMARY KEY, name int);`, schema))
	t.Cleanup(func() { _, _ = pg.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE") })

	addr := startTemporal(t)
	ckpt := t.TempDir()
	start(t, "worker", "worker", "--address", addr, "--checkpoint-dir", ckpt)
	runner := start(t, "runner", "runner", "--address", addr, "--id", "log1", "--slots", "2",
		"--listen", "127.0.0.1:0", "--checkpoint-dir", ckpt)
	eventually(t, 90*time.Second, "runner log1 alive", func() bool { return clusterStatus(t, addr)["log1"].State == "ALIVE" })

	jdbc := pgJdbcURL(t)
	job := writeJob(t, fmt.Sprintf(`env { job.mode = BATCH, job.name = "runner-log" }
source {
  FakeSource {
    plugin_output = "rows"
    schema = { fields { id = int, name = string } }
    rows = [{ kind = INSERT, fields = [1, "%[3]s"] }]
  }
}
sink {
  Jdbc {
    plugin_input = "rows"
    url = "%[1]s"
    driver = "org.postgresql.Driver"
    user = "%[2]s"
    password = "%[3]s"
    query = "insert into %[4]s.dst (id, name) values (?, ?)"
  }
}
`, jdbc.url, jdbc.user, password, schema))
	id := submit(t, addr, job)
	var jv jobView
	eventually(t, 3*time.Minute, "the job failed", func() bool {
		jv = jobStatus(t, addr, id)
		if jv.State == "FINISHED" || jv.State == "CANCELED" {
			t.Fatalf("job %s: %s, want it refused by the check constraint", id, jv.State)
		}
		return jv.State == "FAILED"
	})
	// the sink's error quotes the value it could not write (the runner's report masks it
	// on its way into the job's status)
	if !strings.Contains(jv.Error, "integer") || !strings.Contains(jv.Error, "******") {
		t.Fatalf("job %s failed with %q, not the sink's refusal of the value", id, jv.Error)
	}
	var failed string
	eventually(t, 30*time.Second, "the runner logged the task's failure", func() bool {
		for _, l := range strings.Split(runner.output(), "\n") {
			if strings.Contains(l, "task failed") && strings.Contains(l, "job="+id) {
				failed = l
			}
		}
		return failed != ""
	})
	if !strings.Contains(failed, "integer") || !strings.Contains(failed, "******") {
		t.Fatalf("the runner's line does not show the value masked: %s", failed)
	}
	noSecret(t, "the runner's log", runner.output(), []string{password})
}
