package kafka

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
)

// envKafka names the broker the tests use: kfake, which `make test` starts with
// scripts/kafka.sh and names here. Without it the tests skip, as the PostgreSQL ones do.
const envKafka = "STRAIT_TEST_KAFKA"

// testBroker returns the broker's address once it answers.
func testBroker(t testing.TB) string {
	t.Helper()
	addr := os.Getenv(envKafka)
	if addr == "" {
		t.Fatalf("%s is not set: start the broker with scripts/kafka.sh start", envKafka)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.Ping(ctx); err != nil {
		t.Fatalf("no broker at %s (%s): %v", addr, envKafka, err)
	}
	return addr
}

func adminClient(t testing.TB, addr string) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

var unsafeTopic = regexp.MustCompile(`[^a-zA-Z0-9_]+`)

// newTopic creates a topic of its own for the test, removed when it ends.
func newTopic(t testing.TB, addr string, partitions int32) string {
	t.Helper()
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := strings.ToLower(unsafeTopic.ReplaceAllString(t.Name(), "_")) + "_" + hex.EncodeToString(b[:])
	createTopic(t, addr, name, partitions)
	t.Cleanup(func() { deleteTopic(t, addr, name) })
	return name
}

// createTopic creates a topic of a fixed name afresh: one an earlier run left is deleted first.
func createTopic(t testing.TB, addr, name string, partitions int32) {
	t.Helper()
	adm := adminClient(t, addr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	deleteTopic(t, addr, name)
	resp, err := adm.CreateTopic(ctx, partitions, 1, nil, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("create topic %s: %v", name, err)
	}
}

func deleteTopic(t testing.TB, addr, name string) {
	t.Helper()
	adm := adminClient(t, addr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = adm.DeleteTopics(ctx, name)
}

// produce writes values (keys nil) to one partition of a topic and waits for them.
func produce(t testing.TB, addr, topic string, partition int32, values ...string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	recs := make([]*kgo.Record, len(values))
	for i, v := range values {
		recs[i] = &kgo.Record{Topic: topic, Partition: partition, Value: []byte(v)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce to %s: %v", topic, err)
	}
}

// consumed is a record as a test reads it back.
type consumed struct {
	Partition int32
	Offset    int64
	Key       string
	Value     string
}

// consumeAll reads a topic to the end offsets it has now; readCommitted reads as a
// read_committed consumer does (to the last stable offset, without aborted records).
func consumeAll(t testing.TB, addr, topic string, readCommitted bool) []consumed {
	t.Helper()
	adm := adminClient(t, addr)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var ends kadm.ListedOffsets
	var err error
	if readCommitted {
		ends, err = adm.ListCommittedOffsets(ctx, topic)
	} else {
		ends, err = adm.ListEndOffsets(ctx, topic)
	}
	if err != nil {
		t.Fatalf("end offsets of %s: %v", topic, err)
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	opts := []kgo.Opt{kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.KeepControlRecords()}
	if readCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []consumed
	for len(want) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consume %s: %v (still waiting for %v)", topic, ctx.Err(), want)
		}
		fs.EachRecord(func(r *kgo.Record) {
			end, ok := want[r.Partition]
			if !ok || r.Offset >= end {
				return
			}
			if !r.Attrs.IsControl() {
				out = append(out, consumed{Partition: r.Partition, Offset: r.Offset, Key: string(r.Key), Value: string(r.Value)})
			}
			if r.Offset+1 >= end {
				delete(want, r.Partition)
			}
		})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Partition != out[j].Partition {
			return out[i].Partition < out[j].Partition
		}
		return out[i].Offset < out[j].Offset
	})
	return out
}

// pluginOptions reads a plugin block written in HOCON.
func pluginOptions(t testing.TB, block string) *config.Options {
	t.Helper()
	return conntest.Options(t, block, "source[0] Kafka")
}

// buildSource builds the source through the registry, as the planner does.
func buildSource(t testing.TB, mode connector.JobMode, parallelism int, block string) (connector.Source, error) {
	t.Helper()
	f, _, ok := connector.LookupSource("Kafka")
	if !ok {
		t.Fatal("Kafka source not registered")
	}
	return f(&connector.SourceContext{Context: context.Background(), Options: pluginOptions(t, block),
		Job: connector.Job{ID: 7, Name: "test", Mode: mode}, Parallelism: parallelism})
}

func mustSource(t testing.TB, mode connector.JobMode, parallelism int, block string) connector.Source {
	t.Helper()
	s, err := buildSource(t, mode, parallelism, block)
	if err != nil {
		t.Fatalf("source: %v", err)
	}
	return s
}

// enumerate creates, opens and runs src's enumerator against ec, which then holds the
// splits assigned; the enumerator is closed when the test ends.
func enumerate(t testing.TB, src connector.Source, ec connector.EnumeratorContext) {
	t.Helper()
	en, err := src.CreateEnumerator(ec, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := en.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { en.Close() })
	if err := en.Run(ctx); err != nil {
		t.Fatal(err)
	}
}
