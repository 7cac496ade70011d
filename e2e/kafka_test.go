package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafkaBroker is the broker of the Kafka tests (kfake, which `make test` starts with
// scripts/kafka.sh), or a skip without it, as the PostgreSQL tests do.
func kafkaBroker(t *testing.T) (string, *kadm.Client) {
	t.Helper()
	addr := os.Getenv("STRAIT_TEST_KAFKA")
	if addr == "" {
		t.Skip("STRAIT_TEST_KAFKA is not set: `make test` starts the broker (scripts/kafka.sh) and sets it")
	}
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ends, err := adm.ListCommittedOffsets(ctx, topic)
	if err != nil {
		t.Fatalf("stable offsets of %s: %v", topic, err)
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []string
	for len(want) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %s: %v", topic, ctx.Err())
		}
		fs.EachRecord(func(r *kgo.Record) {
			end, ok := want[r.Partition]
			if !ok || r.Offset >= end {
				return
			}
			if !r.Attrs.IsControl() {
				out = append(out, string(r.Value))
			}
			if r.Offset+1 >= end {
				delete(want, r.Partition)
			}
		})
	}
	return out
}

// openTxns lists the transactions of a prefix the broker holds open.
func openTxns(t *testing.T, adm *kadm.Client, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	listed, err := adm.ListTransactions(ctx, nil, []string{"Ongoing"})
	if err != nil {
		t.Fatalf("list transactions: %v", err)
	}
	var out []string
	listed.Each(func(tx kadm.ListedTransaction) {
		if strings.HasPrefix(tx.TxnID, prefix) {
			out = append(out, tx.TxnID)
		}
	})
	return out
}

// A STREAMING Kafka → Kafka job with EXACTLY_ONCE, its runner killed (SIGKILL) mid-way:
// the job fails over to the other runner from its latest checkpoint, and a read_committed
// consumer of the output sees every input record exactly once, compared record by record;
// after the job is canceled no transaction of it is left open.
func TestKafkaExactlyOnceRunnerKilled(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	addr, adm := kafkaBroker(t)
	in := kafkaTopic(t, adm, "e2e_in", 3)
	out := kafkaTopic(t, adm, "e2e_out", 3)
	const n = 900
	var want []string
	prod, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	var recs []*kgo.Record
	for i := 1; i <= n; i++ {
		v := fmt.Sprintf(`{"id":%d,"name":"row %d"}`, i, i)
		want = append(want, v)
		recs = append(recs, &kgo.Record{Topic: in, Key: []byte(fmt.Sprint(i)), Value: []byte(v)})
	}
	if err := prod.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	prod.Close()

	c := startCluster(t, t.TempDir())
	runners := map[string]*proc{"q1": c.runner(t, "q1", 1), "q2": c.runner(t, "q2", 1)}
	id := submit(t, c.addr, writeJob(t, fmt.Sprintf(`
env { job.mode = STREAMING, parallelism = 1, checkpoint.interval = 1000, job.retry.interval.seconds = 1,
  read_limit.rows_per_second = 60 }
source { Kafka { plugin_output = "in", bootstrap.servers = %[1]q, topic = %[2]q, start_mode = earliest,
  consumer.group = %[2]q, kafka.config = { max.poll.records = 5 }, schema = { fields { id = bigint, name = string } } } }
sink { Kafka { plugin_input = "in", bootstrap.servers = %[1]q, topic = %[3]q, semantics = EXACTLY_ONCE,
  transaction_prefix = %[3]q, partition_key_fields = [id] } }`, addr, in, out)))
	victim := c.runningOn(t, id)
	untilCommitted(t, func() int { return len(committedValues(t, addr, adm, out)) })
	if got := len(committedValues(t, addr, adm, out)); got >= n {
		t.Fatalf("all %d records were committed before the kill: slow the input down", got)
	}
	// rows flow in small batches: the victim always holds a transaction open, which its
	// successor must abort for the read_committed consumer to see anything after it
	eventually(t, 30*time.Second, "a transaction open", func() bool { return len(openTxns(t, adm, out)) > 0 })
	runners[victim].kill(t)
	killed := time.Now()
	took := eventually(t, 3*time.Minute, "every record committed to the output", func() bool {
		return len(committedValues(t, addr, adm, out)) >= n
	})
	t.Logf("runner %s killed; every record committed %s later", victim, took.Round(100*time.Millisecond))
	if st := c.status(t, id); st.State != "RUNNING" {
		t.Fatalf("job %s is %s, want RUNNING", id, st.State)
	}
	if code, o := run(t, "job", "cancel", "--address", c.addr, id); code != 0 {
		t.Fatalf("cancel: exit %d\n%s", code, o)
	}
	eventually(t, 90*time.Second, "the job is canceled", func() bool { return c.status(t, id).State == "CANCELED" })
	t.Logf("canceled %s after the kill", time.Since(killed).Round(100*time.Millisecond))

	got := committedValues(t, addr, adm, out)
	sort.Strings(got)
	sort.Strings(want)
	if len(got) != len(want) {
		t.Errorf("%d records committed, want %d", len(got), len(want))
	}
	seen := map[string]int{}
	for _, v := range got {
		seen[v]++
	}
	for _, v := range want {
		if seen[v] != 1 {
			t.Errorf("record %s committed %d times", v, seen[v])
		}
		delete(seen, v)
	}
	for v := range seen {
		t.Errorf("record %s committed and never read", v)
	}
	if open := openTxns(t, adm, out); len(open) > 0 {
		t.Errorf("transactions left open after the cancel: %v", open)
	}
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
