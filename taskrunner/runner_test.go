package taskrunner_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strait-dev/strait/checkpointstore"
	"github.com/strait-dev/strait/connector"
	_ "github.com/strait-dev/strait/connectors/all"
	"github.com/strait-dev/strait/connectors/console"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/planner"
	"github.com/strait-dev/strait/planvertex"
	"github.com/strait-dev/strait/taskrunner"
	_ "github.com/strait-dev/strait/transform/all"
)

// fusedPair is the id of the pipeline's one task group, which must run two subtasks.
func fusedPair(t *testing.T, p contract.Pipeline) int {
	t.Helper()
	if len(p.TaskGroups) != 1 || p.TaskGroups[0].Parallelism != 2 {
		t.Fatalf("want one fused group of two subtasks, got %+v", p.TaskGroups)
	}
	return p.TaskGroups[0].ID
}

// pairRunner is a runner with store as its checkpoint store whose reporter waits for the
// ends of two tasks; it closes when the test ends.
func pairRunner(t *testing.T, store checkpointstore.Store) (*taskrunner.Runner, *collect) {
	return storeRunner(t, "t", store, 2)
}

// storeRunner is a runner named id with store as its checkpoint store whose reporter waits
// for the ends of want tasks; it closes when the test ends.
func storeRunner(t *testing.T, id string, store checkpointstore.Store, want int) (*taskrunner.Runner, *collect) {
	c := &collect{ended: make(chan struct{}), want: want}
	r := taskrunner.New(taskrunner.Config{ID: id, Slots: 4, Store: store}, c)
	t.Cleanup(r.Close)
	return r, c
}

// tempStore is a checkpoint store in a folder of the test's own.
func tempStore(t *testing.T) *checkpointstore.FS {
	t.Helper()
	store, err := checkpointstore.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// collect is a Reporter that keeps reports in memory.
type collect struct {
	mu      sync.Mutex
	reports []contract.TaskReport
	ended   chan struct{}
	want    int
	done    int
}

func (c *collect) Report(_ context.Context, _ contract.ReportTo, r contract.TaskReport) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reports = append(c.reports, r)
	for _, s := range r.Tasks {
		if s.State.Terminal() {
			c.done++
		}
	}
	if c.done == c.want {
		close(c.ended)
	}
	return nil
}

func (c *collect) final() map[contract.TaskID]contract.TaskStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[contract.TaskID]contract.TaskStatus{}
	for _, r := range c.reports {
		for _, s := range r.Tasks {
			out[s.Task] = s
		}
	}
	return out
}

// firstPipeline plans a job and makes the deployment of its first pipeline as the pipeline
// workflow would: epoch 1, every task on one runner.
func firstPipeline(t testing.TB, text string, job connector.Job) contract.Deployment {
	t.Helper()
	plan, err := planner.Plan(contract.ConfigSource{File: "job.conf", Text: text}, job)
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Pipelines[0]
	d := contract.Deployment{Job: plan.Job, Pipeline: p, Env: plan.Env, Epoch: 1, ReportTo: "w"}
	for _, id := range p.Vertices {
		d.Vertices = append(d.Vertices, plan.Vertex(id))
	}
	for _, g := range p.TaskGroups {
		for i := 0; i < g.Parallelism; i++ {
			d.Tasks = append(d.Tasks, contract.TaskID{Group: g.ID, Subtask: i})
		}
	}
	return d
}

// sinkOf builds the deployment's sink, as the committer does.
func sinkOf(t testing.TB, d contract.Deployment) connector.Sink {
	t.Helper()
	for _, cv := range d.Vertices {
		if cv.Kind != contract.SinkVertex {
			continue
		}
		v, err := planvertex.Decode(cv)
		if err != nil {
			t.Fatal(err)
		}
		s, err := v.Sink(d.Job)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	t.Fatal("the deployment has no sink")
	return nil
}

// deploy plans a job and runs its first pipeline on a runner, without Temporal.
func deploy(t testing.TB, text string) (*collect, *taskrunner.Runner) {
	t.Helper()
	d := firstPipeline(t, text, connector.Job{ID: 1})
	c := &collect{ended: make(chan struct{}), want: len(d.Tasks)}
	r := taskrunner.New(taskrunner.Config{ID: "t", Slots: 16}, c)
	if err := r.Deploy(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	return c, r
}

func wait(t testing.TB, c *collect) {
	t.Helper()
	select {
	case <-c.ended:
	case <-time.After(time.Minute):
		t.Fatal("tasks did not end")
	}
}

func TestFusedChainAndExchanges(t *testing.T) {
	console.SetOutput(io.Discard)
	c, r := deploy(t, `
env { parallelism = 2 }
source {
  FakeSource { plugin_output = "a", row.num = 1000, schema = { fields { id = bigint } } }
  FakeSource { plugin_output = "b", row.num = 500, parallelism = 3, schema = { fields { id = bigint } } }
}
sink {
  Assert { plugin_input = ["a", "b"], rules { row_rules = [{ rule_type = MIN_ROW, rule_value = 3500 }] } }
  Console { plugin_input = "b", log.print.data = false }
}`)
	defer r.Close()
	wait(t, c)
	var read, written int64
	commits := 0
	for id, s := range c.final() {
		if s.State != contract.TaskClosed {
			t.Fatalf("task %s ended %s: %s", id, s.State, s.Error)
		}
		read += s.Counters.RowsRead
		written += s.Counters.RowsWritten
		commits += len(s.Commits)
	}
	// sources read 2x1000 + 3x500 rows; the Assert writers get all 3500 and Console 1500;
	// rows taken over exchanges are not read again
	if read != 3500 {
		t.Fatalf("read %d", read)
	}
	if written != 3500+1500 {
		t.Fatalf("written %d", written)
	}
	if commits != 2 { // the Assert sink's two writers prepared their commit
		t.Fatalf("commits %d", commits)
	}
}

// A union takes its first input's table, as SeaTunnel's: Assert's row rules count every row
// of both inputs under it, and its field rules apply to the rows of the second input too,
// which arrive over exchanges from sources of another table and parallelism.
func TestUnionSinkSeesTheFirstInputsTable(t *testing.T) {
	c, r := deploy(t, `
env { parallelism = 2 }
source {
  FakeSource { plugin_output = "a", row.num = 100, schema = { table = "db.a", fields { id = bigint, name = string } } }
  FakeSource { plugin_output = "b", row.num = 50, parallelism = 3, schema = { table = "db.b", fields { id = bigint, name = string } } }
}
sink {
  Assert {
    plugin_input = ["a", "b"]
    rules {
      row_rules = [{ rule_type = MIN_ROW, rule_value = 350 }, { rule_type = MAX_ROW, rule_value = 350 }]
      field_rules = [{ field_name = name, field_type = string, field_value = [{ rule_type = NOT_NULL }] }]
    }
  }
}`)
	defer r.Close()
	wait(t, c)
	var written int64
	tables := map[string]contract.TableCounters{}
	for id, s := range c.final() {
		if s.State != contract.TaskClosed {
			t.Fatalf("task %s ended %s: %s", id, s.State, s.Error)
		}
		written += s.Counters.RowsWritten
		for tbl, n := range s.Counters.Tables {
			x := tables[tbl]
			x.RowsRead += n.RowsRead
			x.RowsWritten += n.RowsWritten
			tables[tbl] = x
		}
	}
	if written != 350 {
		t.Fatalf("written %d", written)
	}
	want := map[string]contract.TableCounters{"db.a": {RowsRead: 200, RowsWritten: 350}, "db.b": {RowsRead: 150}}
	if fmt.Sprint(tables) != fmt.Sprint(want) {
		t.Fatalf("per table %v, want %v", tables, want)
	}
}

func TestTaskFailureCancelsTheOthers(t *testing.T) {
	c, r := deploy(t, `
env { parallelism = 2 }
source { FakeSource { row.num = 100, schema = { fields { id = int } } } }
sink { Assert { rules { field_rules = [{ field_name = id, field_type = int, field_value = [{ rule_type = MAX, rule_value = -1 }] }] } } }`)
	defer r.Close()
	wait(t, c)
	failed := 0
	for _, s := range c.final() {
		switch s.State {
		case contract.TaskFailed:
			failed++
			if !strings.Contains(s.Error, "MAX") {
				t.Errorf("error %q does not name the rule", s.Error)
			}
		case contract.TaskCanceled, contract.TaskClosed:
		default:
			t.Errorf("task %s ended %s", s.Task, s.State)
		}
	}
	if failed == 0 {
		t.Fatal("no task failed")
	}
}

func TestCancelStopsAnUnboundedSource(t *testing.T) {
	c, r := deploy(t, `
env { job.mode = STREAMING }
source { FakeSource { row.num = 10, schema = { fields { id = int } } } }
sink { Console { log.print.data = false } }`)
	defer r.Close()
	deadline := time.Now().Add(10 * time.Second)
	for len(r.Tasks()) == 0 || r.Tasks()[0].State != contract.TaskRunning {
		if time.Now().After(deadline) {
			t.Fatal("the task never ran")
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.Cancel(contract.CancelRequest{JobID: 1, Pipeline: 1, Epoch: 1})
	wait(t, c)
	for _, s := range c.final() {
		if s.State != contract.TaskCanceled {
			t.Fatalf("task %s ended %s", s.Task, s.State)
		}
	}
}

const benchRows = 2_000_000

// BenchmarkFusedChain runs FakeSource → Console (log.print.data = false) fused in one task,
// five columns, without Temporal: the data path alone.
func BenchmarkFusedChain(b *testing.B) {
	benchJob(b, fmt.Sprintf(`
env { parallelism = 1 }
source { FakeSource { row.num = %d, schema = { fields { id = bigint, name = string, age = int, score = double, created = timestamp } } } }
sink { Console { log.print.data = false } }`, benchRows))
}

// BenchmarkFusedChainSql puts a Sql transform in the chain: a WHERE on two columns and
// three computed projections. Compare its rows/s with BenchmarkFusedChain's.
func BenchmarkFusedChainSql(b *testing.B) {
	benchJob(b, fmt.Sprintf(`
env { parallelism = 1 }
source { FakeSource { row.num = %d, int.min = 1, int.max = 100, schema = { fields { id = bigint, name = string, age = int, score = double, created = timestamp } } } }
transform { Sql { query = "select id, name, age * 2 as a2, score + 1.5 as s, upper(name) as un from t where age > 10 and id %% 2 = 0" } }
sink { Console { log.print.data = false } }`, benchRows))
}

func benchJob(b *testing.B, job string) {
	console.SetOutput(io.Discard)
	const rows = benchRows
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		c, r := deploy(b, job)
		wait(b, c)
		r.Close()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/time.Since(start).Seconds(), "rows/s")
}

func TestHashExchangeKeepsKeysTogether(t *testing.T) {
	c, r := deploy(t, `
env { parallelism = 2 }
source { FakeSource { plugin_output = "a", row.num = 500, int.template = [1, 2, 3, 4, 5, 6, 7], schema = { fields { k = int } } } }
sink { Assert { plugin_input = "a", parallelism = 3, partition_by = [k], rules { field_rules = [{ field_name = k, field_type = int }] } } }`)
	defer r.Close()
	wait(t, c)
	var written int64
	for id, s := range c.final() {
		if s.State != contract.TaskClosed {
			t.Fatalf("task %s ended %s: %s", id, s.State, s.Error)
		}
		written += s.Counters.RowsWritten
	}
	if written != 1000 {
		t.Fatalf("written %d", written)
	}
}

// TestReadLimit: read_limit.rows_per_second and bytes_per_second pace each reader; every row
// still arrives. 30 rows at 10 a second take two seconds at least (the first second's rows
// go at once); 20 rows of 100 bytes at 1,000 bytes a second take one.
func TestReadLimit(t *testing.T) {
	cases := []struct {
		name, env, fields string
		rows              int
		least             time.Duration
	}{
		{"rows", "read_limit.rows_per_second = 10", "id = bigint", 30, 2 * time.Second},
		{"bytes", "read_limit.bytes_per_second = 1000", "s = string", 20, time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			c, r := deploy(t, fmt.Sprintf(`
env { parallelism = 1, %s }
source { FakeSource { row.num = %d, string.length = 100, schema = { fields { %s } } } }
sink { Assert { rules { row_rules = [{ rule_type = MIN_ROW, rule_value = %d }, { rule_type = MAX_ROW, rule_value = %d }] } } }`, tc.env, tc.rows, tc.fields, tc.rows, tc.rows))
			defer r.Close()
			wait(t, c)
			for id, s := range c.final() {
				if s.State != contract.TaskClosed {
					t.Fatalf("task %s ended %s: %s", id, s.State, s.Error)
				}
			}
			if took := time.Since(start); took < tc.least {
				t.Fatalf("read %d rows in %v, faster than the limit allows (%v)", tc.rows, took, tc.least)
			}
		})
	}
}
