package node_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/checkpointstore"
	"github.com/strait-dev/strait/connector"
	_ "github.com/strait-dev/strait/connectors/all"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/jobclient"
	"github.com/strait-dev/strait/node"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
	"github.com/strait-dev/strait/workflows"
)

// Test plugins: a source of n sequential ints split over its readers, and a sink that keeps
// what it received per job so the test can compare it with what was sent.

type seqSource struct {
	n, par     int
	table      *catalog.Table
	block      bool
	perPoll    int
	delay      time.Duration
	failAfter  int // fail once, in the first run, after this many rows (0: never)
	failAlways bool
	failKey    string
}

// failed remembers which jobs' sources already threw their one failure.
var failed sync.Map

// restoredReaders counts readers that resumed from checkpointed offsets.
var restoredReaders atomic.Int64

func (s *seqSource) Boundedness() connector.Boundedness { return connector.Bounded }
func (s *seqSource) Tables() []*catalog.Table           { return []*catalog.Table{s.table} }
func (s *seqSource) CreateEnumerator(ctx connector.EnumeratorContext, state []byte) (connector.Enumerator, error) {
	return &seqEnum{ctx: ctx, restored: state != nil}, nil
}
func (s *seqSource) CreateReader(ctx connector.ReaderContext) (connector.Reader, error) {
	return &seqReader{src: s, idx: ctx.Index, job: ctx.Job.ID}, nil
}

// seqEnum gives each reader one split; a restored one gives none (the readers resume theirs).
type seqEnum struct {
	ctx      connector.EnumeratorContext
	restored bool
}

func (e *seqEnum) Open(context.Context) error { return nil }
func (e *seqEnum) Run(context.Context) error {
	for i := 0; i < e.ctx.Parallelism(); i++ {
		if !e.restored {
			e.ctx.Assign(i, connector.Split{ID: fmt.Sprint(i)})
		}
		e.ctx.SignalNoMoreSplits(i)
	}
	return nil
}
func (e *seqEnum) RegisterReader(int) error                   { return nil }
func (e *seqEnum) HandleSplitRequest(int) error               { return nil }
func (e *seqEnum) AddSplitsBack([]connector.Split, int) error { return nil }
func (e *seqEnum) Snapshot(int64) ([]byte, error)             { return nil, nil }
func (e *seqEnum) Close() error                               { return nil }

type seqReader struct {
	src      *seqSource
	job      int64
	idx      int
	next     int
	splits   int
	noMore   bool
	restored bool
	emitted  int
}

func (r *seqReader) Open(context.Context) error {
	if !r.restored {
		r.next = r.idx
	}
	return nil
}

func (r *seqReader) AddSplits(s []connector.Split) {
	for _, sp := range s {
		r.splits++
		if len(sp.Data) > 0 { // restored: resume after the checkpointed offset
			_ = json.Unmarshal(sp.Data, &r.next)
			r.restored = true
			restoredReaders.Add(1)
		}
	}
}

func (r *seqReader) NoMoreSplits() { r.noMore = true }

func (r *seqReader) SnapshotState(int64) ([]connector.Split, error) {
	b, _ := json.Marshal(r.next)
	return []connector.Split{{ID: fmt.Sprint(r.idx), Data: b}}, nil
}
func (r *seqReader) Close() error { return nil }
func (r *seqReader) PollNext(ctx context.Context, out *row.Batch) (bool, error) {
	if r.src.block {
		<-ctx.Done()
		return false, ctx.Err()
	}
	if r.splits == 0 {
		return r.noMore, nil
	}
	if r.src.delay > 0 {
		select {
		case <-time.After(r.src.delay):
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	if f := r.src.failAfter; f > 0 && r.idx == 0 && r.emitted >= f {
		if _, done := failed.LoadOrStore(r.src.failKey, true); !done || r.src.failAlways {
			return false, fmt.Errorf("injected failure after %d rows", r.emitted)
		}
	}
	limit := out.Cap()
	if r.src.perPoll > 0 {
		limit = r.src.perPoll
	}
	for n := 0; r.next < r.src.n && n < limit; n++ {
		rw := out.Add(row.Insert, r.src.table.ID(), 1)
		rw.Fields[0] = row.BigIntValue(int64(r.next))
		r.next += r.src.par
		r.emitted++
	}
	polled.Add(r.job, int64(out.Len()))
	return r.next >= r.src.n, nil
}

// polled counts the rows SeqSource's readers emitted, by job.
var polled counters

type counters struct {
	mu sync.Mutex
	n  map[int64]int64
}

func (c *counters) Add(job, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[int64]int64{}
	}
	c.n[job] += n
}

func (c *counters) Get(job int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[job]
}

var (
	sinkMu     sync.Mutex
	received   = map[int64][]int64{}
	commits    atomic.Int64
	midCommits atomic.Int64
)

type keepSink struct {
	failAt int64
}

func (k *keepSink) CreateWriter(ctx connector.WriterContext, _ [][]byte) (connector.Writer, error) {
	return &keepWriter{job: ctx.Job.ID, failAt: k.failAt}, nil
}
func (k *keepSink) CreateCommitter() (connector.Committer, error) { return keepCommitter{}, nil }

type keepWriter struct {
	job    int64
	failAt int64
	n      int
}

func (w *keepWriter) Write(_ context.Context, b *row.Batch) error {
	sinkMu.Lock()
	defer sinkMu.Unlock()
	for i := range b.Rows {
		v := b.Rows[i].Fields[0].I
		if w.failAt >= 0 && v == w.failAt {
			return fmt.Errorf("row %d is poisoned", v)
		}
		received[w.job] = append(received[w.job], v)
		w.n++
	}
	return nil
}
func (w *keepWriter) PrepareCommit(context.Context, int64) ([]byte, error) {
	return json.Marshal(w.n)
}
func (w *keepWriter) SnapshotState(int64) ([]byte, error) { return nil, nil }
func (w *keepWriter) Close(context.Context) error         { return nil }

type keepCommitter struct{}

func (keepCommitter) Commit(_ context.Context, req connector.CommitRequest) error {
	if req.Final {
		commits.Add(1)
	} else {
		midCommits.Add(1)
	}
	return nil
}
func (keepCommitter) Abort(context.Context, [][]byte) error { return nil }

type seqOptions struct {
	Rows       int64 `opt:"rows" default:"10" doc:"the ids 0 to rows-1, spread over the readers"`
	Block      bool  `opt:"block" default:"false" doc:"emit nothing and wait until cancelled"`
	PerPoll    int64 `opt:"rows_per_poll" default:"0" doc:"rows per poll; 0 fills the batch"`
	DelayMS    int64 `opt:"poll_delay_ms" default:"0" doc:"milliseconds to wait before each poll"`
	FailAfter  int64 `opt:"fail_once_after" default:"0" doc:"the first reader fails once, after this many rows; 0 never"`
	FailAlways int64 `opt:"fail_always_after" default:"0" doc:"the first reader fails every attempt after this many rows; 0 never"`
}

type keepOptions struct {
	FailAt int64 `opt:"fail_at" default:"-1" doc:"fail the write of the row with this id; -1 never"`
}

type noOptions struct{}

func init() {
	connector.RegisterSource("SeqSource", "Emits a sequence of ids, optionally failing or blocking.", func(ctx *connector.SourceContext, c *seqOptions) (connector.Source, error) {
		failAfter := c.FailAfter
		if c.FailAlways > 0 {
			failAfter = c.FailAlways
		}
		rt := &types.RowType{Names: []string{"id"}, Types: []types.DataType{types.Of(types.BigInt)}}
		return &seqSource{n: int(c.Rows), par: ctx.Parallelism, block: c.Block, perPoll: int(c.PerPoll), delay: time.Duration(c.DelayMS) * time.Millisecond,
			failAfter: int(failAfter), failAlways: c.FailAlways > 0, failKey: fmt.Sprint(ctx.Job.ID),
			table: catalog.FromRowType(catalog.TablePath{Table: "seq"}, rt)}, nil
	})
	connector.RegisterSink("TxnSink", "A two-phase sink whose commits make rows visible once.", func(ctx *connector.SinkContext, _ *noOptions) (connector.Sink, error) {
		return txnSink{}, nil
	})
	connector.RegisterSink("KeepSink", "Keeps the rows it receives.", func(ctx *connector.SinkContext, c *keepOptions) (connector.Sink, error) {
		return &keepSink{failAt: c.FailAt}, nil
	})
}

// txnSink is a two-phase sink: writers keep their rows until PrepareCommit hands them over
// as the commit info; the committer makes a checkpoint's rows visible once, whatever the
// retries.
type txnSink struct{}

func (txnSink) CreateWriter(ctx connector.WriterContext, _ [][]byte) (connector.Writer, error) {
	return &txnWriter{job: ctx.Job.ID, sub: ctx.Index}, nil
}
func (txnSink) CreateCommitter() (connector.Committer, error) { return txnCommitter{}, nil }

type txnWriter struct {
	job  int64
	sub  int
	rows []int64
}

type txnInfo struct {
	Job  int64   `json:"job"`
	Sub  int     `json:"sub"`
	Txn  int64   `json:"txn"`
	Rows []int64 `json:"rows"`
}

func (w *txnWriter) Write(_ context.Context, b *row.Batch) error {
	for i := range b.Rows {
		w.rows = append(w.rows, b.Rows[i].Fields[0].I)
	}
	return nil
}
func (w *txnWriter) PrepareCommit(_ context.Context, id int64) ([]byte, error) {
	b, err := json.Marshal(txnInfo{Job: w.job, Sub: w.sub, Txn: id, Rows: w.rows})
	w.rows = nil
	return b, err
}
func (w *txnWriter) SnapshotState(int64) ([]byte, error) { return nil, nil }
func (w *txnWriter) Close(context.Context) error         { return nil }

var committedTxns sync.Map

type txnCommitter struct{}

func (txnCommitter) Commit(_ context.Context, req connector.CommitRequest) error {
	for _, raw := range req.Infos {
		var in txnInfo
		if err := json.Unmarshal(raw, &in); err != nil {
			return err
		}
		if _, dup := committedTxns.LoadOrStore(fmt.Sprintf("%d/%d/%d", in.Job, in.Sub, in.Txn), true); dup {
			continue // committed before: idempotent
		}
		sinkMu.Lock()
		received[in.Job] = append(received[in.Job], in.Rows...)
		sinkMu.Unlock()
	}
	return nil
}
func (txnCommitter) Abort(context.Context, [][]byte) error { return nil }

var (
	setupOnce sync.Once
	shared    *node.Node
	setupErr  error
	ckptDir   string
)

// cluster starts one embedded server, a worker and a runner for all tests of the package.
func cluster(t *testing.T) *node.Node {
	t.Helper()
	setupOnce.Do(func() {
		log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		if ckptDir, setupErr = os.MkdirTemp("", "strait-node-test"); setupErr != nil {
			return
		}
		shared, _, setupErr = node.New(context.Background(), node.Config{Worker: true, Runners: []node.RunnerSpec{{ID: "test", Slots: 8}},
			Logger: log, CheckpointDir: ckptDir})
	})
	if setupErr != nil {
		t.Fatal(setupErr)
	}
	return shared
}

func runJob(t *testing.T, n *node.Node, text string) (*contract.JobStatus, int64) {
	t.Helper()
	return runJobWith(t, n, text, contract.Tunables{})
}

// runJobWith runs a job with the given tunables to its end.
func runJobWith(t *testing.T, n *node.Node, text string, tunables contract.Tunables) (*contract.JobStatus, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id, run, err := jobclient.Start(ctx, n.Client, jobclient.StartRequest{Source: contract.ConfigSource{File: "job.conf", Text: text},
		Name: "test", Tunables: tunables})
	if err != nil {
		t.Fatal(err)
	}
	st, err := jobclient.Wait(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	return st, id
}

func TestJobRunsToTheEnd(t *testing.T) {
	n := cluster(t)
	before := commits.Load()
	st, id := runJob(t, n, `
env { parallelism = 3, job.mode = BATCH }
source { SeqSource { rows = 10000 } }
sink { KeepSink {} }`)
	if st.State != contract.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	sinkMu.Lock()
	got := append([]int64(nil), received[id]...)
	sinkMu.Unlock()
	seen := make([]bool, 10000)
	for _, v := range got {
		if seen[v] {
			t.Fatalf("row %d written twice", v)
		}
		seen[v] = true
	}
	if len(got) != 10000 {
		t.Fatalf("sink got %d rows, want 10000", len(got))
	}
	if st.Counters.RowsRead != 10000 || st.Counters.RowsWritten != 10000 {
		t.Fatalf("counters %+v", st.Counters)
	}
	if commits.Load() != before+1 {
		t.Fatalf("the committer ran %d times", commits.Load()-before)
	}
}

func TestTwoPipelinesAndAnExchange(t *testing.T) {
	n := cluster(t)
	st, id := runJob(t, n, `
env { parallelism = 2 }
source {
  SeqSource { rows = 500, plugin_output = "a" }
  SeqSource { rows = 300, plugin_output = "b", parallelism = 3 }
}
sink {
  KeepSink { plugin_input = "a" }
  KeepSink { plugin_input = "b" }
}`)
	if st.State != contract.JobFinished || len(st.Pipelines) != 2 {
		t.Fatalf("state %s pipelines %d: %s", st.State, len(st.Pipelines), st.Error)
	}
	sinkMu.Lock()
	got := len(received[id])
	sinkMu.Unlock()
	if got != 800 {
		t.Fatalf("sink got %d rows, want 800", got)
	}
}

func TestFailingTaskFailsTheJobWithItsCause(t *testing.T) {
	n := cluster(t)
	st, _ := runJob(t, n, `
source { SeqSource { rows = 1000 } }
sink { KeepSink { fail_at = 500 } }`)
	if st.State != contract.JobFailed {
		t.Fatalf("state %s", st.State)
	}
	if !strings.Contains(st.Error, "row 500 is poisoned") {
		t.Fatalf("error %q does not name the cause", st.Error)
	}
}

func TestConfigErrorFailsTheJob(t *testing.T) {
	n := cluster(t)
	st, _ := runJob(t, n, `
source { SeqSource { rows = lots } }
sink { KeepSink {} }`)
	if st.State != contract.JobFailed || !strings.Contains(st.Error, `rows: "lots" is not an integer`) {
		t.Fatalf("state %s error %q", st.State, st.Error)
	}
}

func TestCancelStopsTheJob(t *testing.T) {
	n := cluster(t)
	id := jobclient.NewJobID()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := jobclient.Submit(ctx, n.Client, id, contract.ConfigSource{File: "job.conf", Text: `
source { SeqSource { block = true } }
sink { KeepSink {} }`}, "blocked")
	if err != nil {
		t.Fatal(err)
	}
	// wait until the task runs, then cancel the workflow as `temporal workflow cancel` does
	deadline := time.Now().Add(30 * time.Second)
	for {
		running := false
		for _, ti := range n.Runner.Tasks() {
			if ti.Job == id && ti.State == contract.TaskRunning {
				running = true
			}
		}
		if running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the task never started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := n.Client.CancelWorkflow(ctx, run.GetID(), ""); err != nil {
		t.Fatal(err)
	}
	st, err := jobclient.Wait(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != contract.JobCanceled {
		t.Fatalf("state %s", st.State)
	}
	for _, ti := range n.Runner.Tasks() {
		if ti.Job == id {
			t.Fatalf("task %s still hosted in state %s", ti.Task, ti.State)
		}
	}
}

// TestHistoriesReplay replays the histories of a finished job's workflows against the
// current workflow code: a change that breaks determinism fails here. With
// STRAIT_RECORD_HISTORY=dir the histories are also written there (workflows/testdata keeps a
// recorded set that the workflows package replays on every run).
func TestHistoriesReplay(t *testing.T) {
	n := cluster(t)
	// a job that checkpoints, so the coordinator's commands are in the recorded history
	st, id := runJob(t, n, `
env { parallelism = 2, checkpoint.interval = 100 }
source { SeqSource { rows = 20000, plugin_output = "a", rows_per_poll = 50, poll_delay_ms = 10 } }
sink { TxnSink { plugin_input = "a" } }`)
	if st.State != contract.JobFinished {
		t.Fatalf("state %s", st.State)
	}
	for name, wid := range map[string]string{
		"job":      contract.JobWorkflowID(id),
		"pipeline": contract.PipelineWorkflowID(id, 1),
	} {
		replayAndRecord(t, n, name, wid)
	}
}

// eachRowOnce checks that the sink received every row of job id, 0 to rows-1, exactly
// once; also says more of the run in a failure.
func eachRowOnce(t *testing.T, id int64, rows int, also string) {
	t.Helper()
	sinkMu.Lock()
	got := append([]int64(nil), received[id]...)
	sinkMu.Unlock()
	seen := make([]int, rows)
	for _, v := range got {
		if v < 0 || v >= int64(rows) {
			t.Fatalf("the sink received row %d, outside the input's %d rows", v, rows)
		}
		seen[v]++
	}
	for v, c := range seen {
		if c != 1 {
			t.Fatalf("row %d is in the sink %d times (%d rows in all) %s", v, c, len(got), also)
		}
	}
}

// replayAndRecord replays a workflow's latest run with the registered workflows and, when
// STRAIT_RECORD_HISTORY names a directory, writes it there as <name>_history.json.
func replayAndRecord(t *testing.T, n *node.Node, name, wid string) {
	t.Helper()
	hist, err := fetchHistory(context.Background(), n, wid)
	if err != nil {
		t.Fatal(err)
	}
	replayHistory(t, name, hist)
}

// fetchHistory is a workflow's latest run's history.
func fetchHistory(ctx context.Context, n *node.Node, wid string) (*historypb.History, error) {
	return fetchRun(ctx, n, wid, "")
}

func TestCheckpointsCompleteAndCommit(t *testing.T) {
	n := cluster(t)
	before := midCommits.Load()
	st, id := runJob(t, n, `
env { job.mode = BATCH, parallelism = 2, checkpoint.interval = 200 }
source { FakeSource { row.num = 50, split.num = 5, split.read-interval = 300, schema = { fields { id = bigint } } } }
sink { KeepSink {} }`)
	if st.State != contract.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	sinkMu.Lock()
	got := len(received[id])
	sinkMu.Unlock()
	if got != 100 {
		t.Fatalf("sink got %d rows, want 100", got)
	}
	store, err := checkpointstore.New(ckptDir)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := checkpointstore.Completed(context.Background(), store, id, 1)
	if err != nil || len(ids) == 0 {
		t.Fatalf("no completed checkpoint: %v %v", ids, err)
	}
	if len(ids) > workflows.DefaultRetained {
		t.Fatalf("%d checkpoints kept, retention is %d", len(ids), workflows.DefaultRetained)
	}
	m, err := checkpointstore.Latest(context.Background(), store, id, 1)
	if err != nil || len(m.Tasks) != 2 {
		t.Fatalf("manifest %+v %v", m, err)
	}
	for _, ts := range m.Tasks {
		if _, err := store.Get(context.Background(), ts.Key); err != nil {
			t.Fatalf("state of %s: %v", ts.Task, err)
		}
	}
	if midCommits.Load() == before {
		t.Fatal("no checkpoint committed the sink")
	}
}

// TestFailoverRestoresFromTheCheckpoint: a source task throws once mid-job; the pipeline
// cancels its tasks, restores them from the latest checkpoint and finishes, and the
// transactional sink holds every row exactly once.
func TestFailoverRestoresFromTheCheckpoint(t *testing.T) {
	n := cluster(t)
	restoredBefore := restoredReaders.Load()
	const rows = 40000
	st, id := runJob(t, n, fmt.Sprintf(`
env { parallelism = 2, checkpoint.interval = 100, job.retry.times = 2, job.retry.interval.seconds = 0 }
source { SeqSource { rows = %d, rows_per_poll = 50, poll_delay_ms = 10, fail_once_after = 10000 } }
sink { TxnSink {} }`, rows))
	if st.State != contract.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	if st.Pipelines[0].Restarts != 1 || !strings.Contains(st.Pipelines[0].LastFailure, "injected failure") {
		t.Fatalf("restarts %d, last failure %q", st.Pipelines[0].Restarts, st.Pipelines[0].LastFailure)
	}
	// the pipeline's status keeps the restart's cause and its checkpoints
	if fs := st.Pipelines[0].Failovers; len(fs) != 1 || !strings.Contains(fs[0].Cause, "injected failure") || fs[0].At.IsZero() {
		t.Fatalf("failovers %+v", fs)
	}
	cps := st.Pipelines[0].Checkpoints
	if cps == nil || cps.Completed == 0 || len(cps.Recent) == 0 {
		t.Fatalf("checkpoints %+v", cps)
	}
	completed := 0
	for _, c := range cps.Recent {
		if c.State == contract.CheckpointCompleted {
			completed++
			if c.Bytes <= 0 || c.Acks != 2 || c.Duration <= 0 {
				t.Errorf("completed checkpoint %+v", c)
			}
		}
		if c.State == contract.CheckpointInProgress {
			t.Errorf("a finished pipeline shows checkpoint %d in progress", c.ID)
		}
	}
	if completed == 0 {
		t.Errorf("no completed checkpoint among %+v", cps.Recent)
	}
	store, _ := checkpointstore.New(ckptDir)
	ids, _ := checkpointstore.Completed(context.Background(), store, id, 1)
	t.Logf("completed checkpoints kept: %v", ids)
	if restoredReaders.Load()-restoredBefore != 2 {
		t.Fatalf("%d readers resumed from a checkpoint, want both", restoredReaders.Load()-restoredBefore)
	}
	eachRowOnce(t, id, rows, "")
}

func TestRetriesRunOut(t *testing.T) {
	n := cluster(t)
	st, _ := runJob(t, n, `
env { job.retry.times = 0 }
source { SeqSource { rows = 1000, rows_per_poll = 10, fail_once_after = 100 } }
sink { TxnSink {} }`)
	if st.State != contract.JobFailed || !strings.Contains(st.Error, "injected failure") {
		t.Fatalf("state %s error %q", st.State, st.Error)
	}
}

// TestSavepointAndRestore stops a running job with a savepoint and starts it again under the
// same id: it goes on where it stopped and the sink holds every row exactly once.
func TestSavepointAndRestore(t *testing.T) {
	n := cluster(t)
	const rows = 30000
	src := contract.ConfigSource{File: "job.conf", Text: fmt.Sprintf(`
env { parallelism = 2, checkpoint.interval = 600000 }
source { SeqSource { rows = %d, rows_per_poll = 50, poll_delay_ms = 10 } }
sink { TxnSink {} }`, rows)}
	id := jobclient.NewJobID()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := jobclient.Submit(ctx, n.Client, id, src, "savepoint"); err != nil {
		t.Fatal(err)
	}
	// some rows read before the savepoint, so it has state to restore from
	for polled.Get(id) == 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("the job read nothing: %v", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	run, err := jobclient.Savepoint(ctx, n.Client, id)
	if err != nil {
		t.Fatal(err)
	}
	st, err := jobclient.Wait(ctx, run)
	if err != nil || st.State != contract.JobSavepointDone {
		t.Fatalf("after the savepoint: %+v %v", st, err)
	}
	sinkMu.Lock()
	mid := len(received[id])
	sinkMu.Unlock()
	if mid == 0 || mid >= rows {
		t.Fatalf("%d rows committed at the savepoint, want some but not all", mid)
	}
	run, err = jobclient.Restore(ctx, n.Client, id, src, "savepoint")
	if err != nil {
		t.Fatal(err)
	}
	if st, err = jobclient.Wait(ctx, run); err != nil || st.State != contract.JobFinished {
		t.Fatalf("after the restore: %+v %v", st, err)
	}
	eachRowOnce(t, id, rows, fmt.Sprintf("%d at the savepoint", mid))
}

// TestManyContinueAsNewCycles forces a pipeline to continue as new every few events while
// its tasks run and checkpoint: the job ends with every row exactly once.
func TestManyContinueAsNewCycles(t *testing.T) {
	n := cluster(t)
	const rows = 20000
	st, id := runJobWith(t, n, fmt.Sprintf(`
env { parallelism = 2, checkpoint.interval = 100 }
source { SeqSource { rows = %d, rows_per_poll = 50, poll_delay_ms = 10 } }
sink { TxnSink {} }`, rows), contract.Tunables{PipelineEventsBeforeContinue: 4})
	if st.State != contract.JobFinished {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	// the pipeline's first run's history ends in continue-as-new when it handed over
	hist, err := fetchHistory(context.Background(), n, contract.PipelineWorkflowID(id, 1))
	if err != nil {
		t.Fatal(err)
	}
	first := hist.Events[0].GetWorkflowExecutionStartedEventAttributes()
	store, _ := checkpointstore.New(ckptDir)
	ids, _ := checkpointstore.Completed(context.Background(), store, id, 1)
	t.Logf("last run started after %q; %d events in it; checkpoints kept %v", first.GetContinuedExecutionRunId(), len(hist.Events), ids)
	if first.GetContinuedExecutionRunId() == "" {
		t.Fatal("the pipeline never continued as new")
	}
	eachRowOnce(t, id, rows, "")
}

// TestKeepsFailingUntilRetriesRunOut: a task that fails every time is restarted
// job.retry.times times, then the job fails with the cause in its status.
func TestKeepsFailingUntilRetriesRunOut(t *testing.T) {
	n := cluster(t)
	st, id := runJob(t, n, `
env { job.retry.times = 2, job.retry.interval.seconds = 0 }
source { SeqSource { rows = 1000, rows_per_poll = 10, fail_always_after = 100 } }
sink { TxnSink {} }`)
	if st.State != contract.JobFailed || !strings.Contains(st.Error, "injected failure") {
		t.Fatalf("state %s error %q", st.State, st.Error)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	status, err := jobclient.Status(ctx, n.Client, id)
	if err != nil {
		t.Fatal(err)
	}
	if p := status.Pipelines[0]; p.Restarts != 2 || !strings.Contains(p.Error, "injected failure") {
		t.Fatalf("pipeline %+v", p)
	}
}
