package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// stallUntil stops a process (SIGSTOP) until cond holds, then lets it run on (SIGCONT).
func (p *proc) stallUntil(t *testing.T, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	took := eventually(t, within, what, cond)
	if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	return took
}

// untilCommitted waits until a checkpoint has committed rows to the sink (committed counts
// them), so that what follows happens mid-job with a checkpoint to restore from.
func untilCommitted(t *testing.T, committed func() int) {
	t.Helper()
	eventually(t, 60*time.Second, "a checkpoint commits rows", func() bool { return committed() > 0 })
}

// slowInput writes n json lines (a multiple of 10), ids 1..n, in ten files under dir/in.
func slowInput(t *testing.T, dir string, n int) string {
	t.Helper()
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	for f := 0; f < 10; f++ {
		var b strings.Builder
		for i := 1; i <= n/10; i++ {
			id := f*(n/10) + i
			fmt.Fprintf(&b, "{\"id\": %d, \"name\": \"row %d\"}\n", id, id)
		}
		if err := os.WriteFile(filepath.Join(in, fmt.Sprintf("part-%02d.json", f)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return in
}

// exactlyOnceSink is one of the exactly-once sinks a kill test checks: its config block,
// and after the job the ids it holds and what a dead attempt may have left behind.
type exactlyOnceSink struct {
	name  string
	block func(t *testing.T, dir string) string
	ids   func(t *testing.T, dir string) map[int64]int
	left  func(t *testing.T, dir, job string) []string
}

func localFileSink() exactlyOnceSink {
	return exactlyOnceSink{
		name: "LocalFile",
		block: func(t *testing.T, dir string) string {
			return fmt.Sprintf(`LocalFile { plugin_input = "in", path = "%s/sink", tmp_path = "%s/tmp", file_format_type = json }`, dir, dir)
		},
		ids: func(t *testing.T, dir string) map[int64]int {
			ids, _ := jsonIDs(t, filepath.Join(dir, "sink"))
			return ids
		},
		left: func(t *testing.T, dir, _ string) []string {
			var staged []string
			_ = filepath.WalkDir(filepath.Join(dir, "tmp"), func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					staged = append(staged, p)
				}
				return nil
			})
			return staged
		},
	}
}

func jdbcSink(conn *pgx.Conn) exactlyOnceSink {
	table := func(dir string) string {
		return fmt.Sprintf("fence_%d", len(dir)*7919+int(time.Now().UnixNano()%100000))
	}
	var name string
	return exactlyOnceSink{
		name: "Jdbc",
		block: func(t *testing.T, dir string) string {
			name = table(dir)
			if _, err := conn.Exec(context.Background(), fmt.Sprintf("DROP TABLE IF EXISTS public.%[1]s; CREATE TABLE public.%[1]s (id bigint PRIMARY KEY, name text)", name)); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _, _ = conn.Exec(context.Background(), "DROP TABLE IF EXISTS public."+name) })
			return fmt.Sprintf(`Jdbc { plugin_input = "in", url = "jdbc:postgresql://127.0.0.1:5432/test", driver = "org.postgresql.Driver",
  user = test, password = test, generate_sink_sql = true, database = test, table = "public.%s", primary_keys = [id],
  is_exactly_once = true, xa_data_source_class_name = "org.postgresql.xa.PGXADataSource" }`, name)
		},
		ids: func(t *testing.T, dir string) map[int64]int {
			rows, err := conn.Query(context.Background(), "SELECT id FROM public."+name)
			if err != nil {
				t.Fatal(err)
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				t.Fatal(err)
			}
			m := map[int64]int{}
			for _, id := range ids {
				m[id]++
			}
			return m
		},
		left: func(t *testing.T, dir, job string) []string {
			rows, err := conn.Query(context.Background(), "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, $1)", "strait-"+job+"-")
			if err != nil {
				t.Fatal(err)
			}
			gids, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			return gids
		},
	}
}

// fenceJob reads 100 lines at 10 rows a second with a checkpoint every second into the
// sink.
func fenceJob(t *testing.T, dir string, sink exactlyOnceSink) string {
	t.Helper()
	return fenceJobOf(t, dir, 100, sink)
}

// fenceJobOf is fenceJob of n lines.
func fenceJobOf(t *testing.T, dir string, n int, sink exactlyOnceSink) string {
	t.Helper()
	return writeJob(t, fmt.Sprintf(`
env { job.mode = BATCH, parallelism = 1, checkpoint.interval = 1000, job.retry.interval.seconds = 1,
  read_limit.rows_per_second = 10 }
source { LocalFile { plugin_output = "in", path = "%s", file_format_type = json,
  schema = { fields { id = bigint, name = string } } } }
sink { %s }`, slowInput(t, dir, n), sink.block(t, dir)))
}

func checkExactlyOnce(t *testing.T, sink exactlyOnceSink, dir, job string) {
	t.Helper()
	eachIDOnce(t, sink.name, sink.ids(t, dir), 100)
	if left := sink.left(t, dir, job); len(left) > 0 {
		t.Errorf("%s: a dead attempt left %v", sink.name, left)
	}
}

// A runner stopped (SIGSTOP) past its lease while its job writes to an exactly-once sink:
// the resource manager declares it lost and the job fails over to the other runner; the
// stopped runner, let go on, fences itself before it writes anything more and registers
// again. Every row is written once, and nothing the dead attempt staged or prepared is
// left.
func TestStalledRunnerFencesItself(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	conn := postgres(t)
	for _, sink := range []exactlyOnceSink{localFileSink(), jdbcSink(conn)} {
		t.Run(sink.name, func(t *testing.T) {
			c := startCluster(t, t.TempDir())
			runners := map[string]*proc{"s1": c.runner(t, "s1", 1), "s2": c.runner(t, "s2", 1)}
			dir := t.TempDir()
			id := submit(t, c.addr, fenceJob(t, dir, sink))
			victim := c.runningOn(t, id)
			untilCommitted(t, func() int { return len(sink.ids(t, dir)) })
			// stopped past its lease: until the resource manager has declared it lost
			took := runners[victim].stallUntil(t, 60*time.Second, "the stopped runner is declared lost", func() bool {
				return clusterStatus(t, c.addr)[victim].State == "LOST"
			})
			stalled := time.Now()
			t.Logf("runner %s declared lost %s after it stopped", victim, took.Round(100*time.Millisecond))
			awaitFinished(t, c.addr, id)
			t.Logf("the job finished %s after runner %s ran again", time.Since(stalled).Round(100*time.Millisecond), victim)
			checkExactlyOnce(t, sink, dir, id)
			if st := c.status(t, id); len(st.Pipelines) != 1 || st.Pipelines[0].Restarts < 1 || st.Counters.RowsWritten != 100 {
				t.Errorf("status %+v", st)
			}
			back := eventually(t, 30*time.Second, "the stalled runner registered again", func() bool {
				return clusterStatus(t, c.addr)[victim].State == "ALIVE"
			})
			t.Logf("runner %s ALIVE again %s after the job ended", victim, back.Round(100*time.Millisecond))
			if !strings.Contains(runners[victim].output(), "fencing") {
				t.Errorf("runner %s did not fence itself:\n%s", victim, tail(runners[victim].output(), 20))
			}
		})
	}
}

// Temporal killed (SIGKILL) mid-job and started again on its database: the runner keeps or
// regains its lease (never LOST for good), the job finishes with every row once, and a new
// job runs.
func TestTemporalKilledAndRestarted(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	conn := postgres(t)
	for _, sink := range []exactlyOnceSink{localFileSink(), jdbcSink(conn)} {
		t.Run(sink.name, func(t *testing.T) {
			port := freePort(t)
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			db := filepath.Join(t.TempDir(), "temporal.db")
			ckpt := t.TempDir()
			up := func() (*proc, time.Duration) {
				began := time.Now()
				p := start(t, "temporal", "dev", "--only-temporal", "--headless", "--port", strconv.Itoa(port), "--db", db)
				awaitListening(t, addr, "temporal dev server up")
				return p, time.Since(began)
			}
			temporal, _ := up()
			start(t, "worker", "worker", "--address", addr, "--checkpoint-dir", ckpt)
			start(t, "runner", "runner", "--address", addr, "--id", "t1", "--slots", "2", "--checkpoint-dir", ckpt)
			eventually(t, 60*time.Second, "runner registered", func() bool { return clusterStatus(t, addr)["t1"].State == "ALIVE" })
			c := &cluster{addr: addr, ckpt: ckpt}
			dir := t.TempDir()
			id := submit(t, addr, fenceJob(t, dir, sink))
			c.runningOn(t, id)
			untilCommitted(t, func() int { return len(sink.ids(t, dir)) })
			temporal.kill(t) // returns once the process is gone
			_, took := up()
			answered := time.Now()
			t.Logf("Temporal answered %s after its start", took.Round(100*time.Millisecond))
			// the job moves again: its written count grows past the first one read now
			first := int64(-1)
			moving := eventually(t, 90*time.Second, "the job moves again", func() bool {
				// a status read fails while the worker has not polled the restarted server yet
				code, out := run(t, "job", "status", id, "--json", "--address", addr)
				var st statusCounts
				if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
					return false
				}
				if first < 0 {
					first = st.Counters.RowsWritten
				}
				return st.State == "FINISHED" || st.Counters.RowsWritten > first
			})
			t.Logf("the job moved again %s after Temporal answered", moving.Round(100*time.Millisecond))
			awaitFinished(t, addr, id)
			t.Logf("the job finished %s after Temporal answered", time.Since(answered).Round(100*time.Millisecond))
			checkExactlyOnce(t, sink, dir, id)
			eventually(t, 30*time.Second, "the runner is alive", func() bool { return clusterStatus(t, addr)["t1"].State == "ALIVE" })
			second := t.TempDir()
			id2 := submit(t, addr, fenceJob(t, second, sink))
			if code, o := run(t, "job", "wait", "--address", addr, id2); code != 0 {
				t.Fatalf("a new job after the restart: exit %d\n%s", code, o)
			}
		})
	}
}
