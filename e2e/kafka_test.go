package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strait-dev/strait/internal/kafkatest"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafkaBroker is the broker of the Kafka tests (kfake, which `make test` starts with
// scripts/kafka.sh), or a skip without it, as the PostgreSQL tests do.
func kafkaBroker(t *testing.T) (string, *kadm.Client) {
	t.Helper()
	addr := testServer(t, "STRAIT_TEST_KAFKA", "the broker (scripts/kafka.sh)")
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.Ping(ctx); err != nil {
		t.Fatalf("no Kafka broker at %s: %v", addr, err)
	}
	return addr, kadm.NewClient(cl)
}

// kafkaTopic creates a topic of the test's own, deleted when it ends.
func kafkaTopic(t *testing.T, adm *kadm.Client, name string, partitions int32) string {
	t.Helper()
	name = fmt.Sprintf("%s_%d", name, time.Now().UnixNano())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := adm.CreateTopic(ctx, partitions, 1, nil, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("create topic %s: %v", name, err)
	}
	t.Cleanup(func() { _, _ = adm.DeleteTopics(context.Background(), name) })
	return name
}

// committedValues reads a topic as a read_committed consumer, to its last stable offsets.
func committedValues(t *testing.T, addr string, adm *kadm.Client, topic string) []string {
	t.Helper()
	var out []string
	for _, r := range readTopic(t, addr, adm, topic, true) {
		out = append(out, string(r.Value))
	}
	return out
}

// openTxns lists the transactions of a prefix the broker holds open.
func openTxns(t *testing.T, adm *kadm.Client, prefix string) []string {
	t.Helper()
	return kafkatest.OpenTransactions(t, adm, prefix)
}

// exactlyOnceRecords is the input of the kill tests: n JSON records on a topic of three
// partitions, keyed by id; the output topic is empty.
type exactlyOnceRecords struct {
	addr    string
	adm     *kadm.Client
	in, out string
	want    []string
}

func prepareExactlyOnce(t *testing.T, n int) *exactlyOnceRecords {
	t.Helper()
	addr, adm := kafkaBroker(t)
	e := &exactlyOnceRecords{addr: addr, adm: adm, in: kafkaTopic(t, adm, "e2e_in", 3), out: kafkaTopic(t, adm, "e2e_out", 3)}
	prod, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	var recs []*kgo.Record
	for i := 1; i <= n; i++ {
		v := fmt.Sprintf(`{"id":%d,"name":"row %d"}`, i, i)
		e.want = append(e.want, v)
		recs = append(recs, &kgo.Record{Topic: e.in, Key: []byte(fmt.Sprint(i)), Value: []byte(v)})
	}
	if err := prod.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return e
}

// job is the STREAMING Kafka → Kafka EXACTLY_ONCE job, slowed so that it runs through the
// disruption: small polls, 60 rows a second, a checkpoint every second. Keyed by id, the
// sink writes each record from the row's fields; without a key, the input's records, which
// are in the sink's own form, pass to it as they were read.
func (e *exactlyOnceRecords) job(t *testing.T, keyed bool) string {
	key := ""
	if keyed {
		key = ", partition_key_fields = [id]"
	}
	return writeJob(t, fmt.Sprintf(`
env { job.mode = STREAMING, parallelism = 1, checkpoint.interval = 1000, job.retry.interval.seconds = 1,
  read_limit.rows_per_second = 60 }
source { Kafka { plugin_output = "in", bootstrap.servers = %[1]q, topic = %[2]q, start_mode = earliest,
  consumer.group = %[2]q, kafka.config = { max.poll.records = 5 }, schema = { fields { id = bigint, name = string } } } }
sink { Kafka { plugin_input = "in", bootstrap.servers = %[1]q, topic = %[3]q, semantics = EXACTLY_ONCE,
  transaction_prefix = %[3]q %[4]s } }`, e.addr, e.in, e.out, key))
}

// written counts the records written to the output, committed or not.
func (e *exactlyOnceRecords) written(t *testing.T) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ends, err := e.adm.ListEndOffsets(ctx, e.out)
	if err != nil {
		t.Fatalf("end offsets of %s: %v", e.out, err)
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n
}

func (e *exactlyOnceRecords) committed(t *testing.T) int {
	return len(committedValues(t, e.addr, e.adm, e.out))
}

// submitMidway submits the job to the cluster, keyed or not, and waits for the moment to
// disrupt it (midway); it returns the job's id and the runner its tasks run on.
func (e *exactlyOnceRecords) submitMidway(t *testing.T, c *cluster, keyed bool) (id, runner string) {
	t.Helper()
	id = submit(t, c.addr, e.job(t, keyed))
	runner = c.runningOn(t, id)
	e.midway(t)
	return id, runner
}

// midway waits until part of the input is committed to the output while a transaction is
// open: the moment the tests disrupt the job.
func (e *exactlyOnceRecords) midway(t *testing.T) {
	t.Helper()
	untilCommitted(t, func() int { return e.committed(t) })
	if got := e.committed(t); got >= len(e.want) {
		t.Fatalf("all %d records were committed before the disruption: slow the input down", got)
	}
	// rows flow in small batches: a transaction is always open, which must be aborted (or
	// committed) for the read_committed consumer to see anything after it
	eventually(t, 30*time.Second, "a transaction open", func() bool { return len(openTxns(t, e.adm, e.out)) > 0 })
}

// awaitCanceled waits until the job is CANCELED; past 3 minutes it fails showing the job's
// status (its pipelines' states and tasks), which says where the cancel stopped.
func awaitCanceled(t *testing.T, c *cluster, id string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for c.status(t, id).State != "CANCELED" {
		if time.Now().After(deadline) {
			_, st := run(t, "job", "status", id, "--json", "--address", c.addr)
			t.Fatalf("the job is not canceled within 3m0s; its status:\n%s", st)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// finish waits until every record is committed to the output, cancels the job and checks,
// record by record, that the output holds each input record exactly once and that no
// transaction of the job is left open.
func (e *exactlyOnceRecords) finish(t *testing.T, c *cluster, id string, since time.Time) {
	t.Helper()
	took := eventually(t, 3*time.Minute, "every record committed to the output", func() bool { return e.committed(t) >= len(e.want) })
	t.Logf("every record committed %s after the disruption (%s of waiting)", time.Since(since).Round(100*time.Millisecond), took.Round(100*time.Millisecond))
	if st := c.status(t, id); st.State != "RUNNING" {
		t.Fatalf("job %s is %s, want RUNNING", id, st.State)
	}
	if code, o := run(t, "job", "cancel", "--address", c.addr, id); code != 0 {
		t.Fatalf("cancel: exit %d\n%s", code, o)
	}
	awaitCanceled(t, c, id)
	got := committedValues(t, e.addr, e.adm, e.out)
	if len(got) != len(e.want) {
		t.Errorf("%d records committed, want %d", len(got), len(e.want))
	}
	seen := map[string]int{}
	for _, v := range got {
		seen[v]++
	}
	for _, v := range e.want {
		if seen[v] != 1 {
			t.Errorf("record %s committed %d times", v, seen[v])
		}
		delete(seen, v)
	}
	for v := range seen {
		t.Errorf("record %s committed and never read", v)
	}
	if open := openTxns(t, e.adm, e.out); len(open) > 0 {
		t.Errorf("transactions left open after the cancel: %v", open)
	}
}

// A STREAMING Kafka → Kafka job with EXACTLY_ONCE, its runner killed (SIGKILL) mid-way:
// the job fails over to the other runner from its latest checkpoint, and a read_committed
// consumer of the output sees every input record exactly once, compared record by record;
// after the job is canceled no transaction of it is left open. The records pass to the sink
// as they were read (no key), so the failover is shown on that path too.
func TestKafkaExactlyOnceRunnerKilled(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	e := prepareExactlyOnce(t, 900)
	c := startCluster(t, t.TempDir())
	runners := map[string]*proc{"q1": c.runner(t, "q1", 1), "q2": c.runner(t, "q2", 1)}
	id, victim := e.submitMidway(t, c, false)
	runners[victim].kill(t)
	e.finish(t, c, id, time.Now())
	var restarts struct {
		Pipelines []struct {
			Restarts int `json:"restarts"`
		} `json:"pipelines"`
	}
	_, so := run(t, "job", "status", id, "--json", "--address", c.addr)
	if !strings.Contains(so, `"restarts"`) || json.Unmarshal([]byte(so), &restarts) != nil || len(restarts.Pipelines) != 1 || restarts.Pipelines[0].Restarts < 1 {
		t.Errorf("the job did not fail over: %s", so)
	}
}

// temporalCluster is a Temporal dev server keeping its state in a SQLite file (so it can be
// stopped and started again), a worker and a runner, each its own process.
type temporalCluster struct {
	*cluster
	port   int
	db     string
	server *proc
	worker *proc
}

func startTemporalCluster(t *testing.T) *temporalCluster {
	t.Helper()
	port := freePort(t)
	tc := &temporalCluster{cluster: &cluster{addr: fmt.Sprintf("127.0.0.1:%d", port), ckpt: t.TempDir()}, port: port,
		db: filepath.Join(t.TempDir(), "temporal.db")}
	tc.startServer(t)
	tc.startWorker(t)
	tc.runner(t, "k1", 1)
	return tc
}

func (tc *temporalCluster) startServer(t *testing.T) {
	t.Helper()
	tc.server = start(t, "temporal", "dev", "--only-temporal", "--headless", "--port", strconv.Itoa(tc.port), "--db", tc.db)
	awaitListening(t, tc.addr, "temporal dev server up")
}

func (tc *temporalCluster) startWorker(t *testing.T) {
	t.Helper()
	tc.worker = start(t, "worker", "worker", "--address", tc.addr, "--checkpoint-dir", tc.ckpt)
}

// The same job, its worker (the host of the job's workflows and of the committer) killed
// with SIGKILL mid-way and another started: the workflows resume from their history on the
// new worker, the runner's tasks keep running, and the output holds every record once.
func TestKafkaExactlyOnceWorkerKilled(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	e := prepareExactlyOnce(t, 900)
	tc := startTemporalCluster(t)
	id, _ := e.submitMidway(t, tc.cluster, true)
	tc.worker.kill(t)
	killed := time.Now()
	// the tasks write on without a coordinator (into the open transaction: no checkpoint is
	// taken), and their reports wait in Temporal
	at := e.written(t)
	eventually(t, 30*time.Second, "records written without a worker", func() bool { return e.written(t) >= at+30 })
	tc.startWorker(t)
	e.finish(t, tc.cluster, id, killed)
}

// The same job, the Temporal server stopped mid-way and started again from its database:
// the runner keeps its tasks and retries its reports, checkpoints go on once the server is
// back, and the output holds every record once (records passed as they were read).
func TestKafkaExactlyOnceTemporalRestart(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	e := prepareExactlyOnce(t, 900)
	tc := startTemporalCluster(t)
	id, _ := e.submitMidway(t, tc.cluster, false)
	if err := tc.server.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = tc.server.cmd.Wait()
	stopped := time.Now()
	tc.startServer(t)
	e.finish(t, tc.cluster, id, stopped)
}

// The same job cancelled mid-way, while rows flow and a transaction is open: every
// transaction of the job is ended as its tasks stop (the open one and one a checkpoint may
// have prepared), within seconds rather than the broker's transaction timeout of minutes, and
// the output holds no record twice.
func TestKafkaExactlyOnceCancelledMidJob(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	e := prepareExactlyOnce(t, 900)
	c := startCluster(t, t.TempDir())
	c.runner(t, "c1", 1)
	id, _ := e.submitMidway(t, c, true)
	if code, o := run(t, "job", "cancel", "--address", c.addr, id); code != 0 {
		t.Fatalf("cancel: exit %d\n%s", code, o)
	}
	eventually(t, 3*time.Minute, "the job is canceled", func() bool { return c.status(t, id).State == "CANCELED" })
	took := eventually(t, 15*time.Second, "no transaction open", func() bool { return len(openTxns(t, e.adm, e.out)) == 0 })
	t.Logf("no transaction open %s after the job was canceled", took.Round(100*time.Millisecond))
	got := committedValues(t, e.addr, e.adm, e.out)
	if len(got) == 0 || len(got) >= len(e.want) {
		t.Fatalf("%d records committed, want some of the %d", len(got), len(e.want))
	}
	seen := map[string]bool{}
	for _, v := range got {
		if seen[v] {
			t.Errorf("record %s committed twice", v)
		}
		seen[v] = true
	}
}
