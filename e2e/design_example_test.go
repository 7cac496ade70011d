package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The design's own example, end to end: a MySQL-CDC source of orders and a Kafka source of
// events, a Sql transform each, an Elasticsearch sink of the orders and a Jdbc (PostgreSQL,
// exactly once) sink of the events: two pipelines, STREAMING, checkpoints every two seconds,
// on a Temporal server, a worker and two runners as processes. While the orders change and
// events arrive, the runner hosting the orders' pipeline is SIGKILLed; the pipelines it
// hosted restart on the other from their checkpoints, and at the end every document equals
// its order as the Sql makes it and every event is one row, compared one by one.
func TestDesignExample(t *testing.T) {
	dsn := sharedMariaDB(t)
	kafka, adm := kafkaBroker(t)
	es := testServer(t, "STRAIT_TEST_ELASTICSEARCH", "ZincSearch (scripts/zincsearch.sh)")
	seed := cdcKillSeed(t)
	c := &cluster{ckpt: t.TempDir()}
	c.addr = startTemporal(t)
	start(t, "worker", "worker", "--address", c.addr, "--checkpoint-dir", c.ckpt)
	runners := map[string]*proc{"d1": c.runner(t, "d1", 2), "d2": c.runner(t, "d2", 2)}

	n := time.Now().UnixNano() % 1_000_000_000
	// the orders: a MariaDB table that a writer changes while the job runs
	src := newMySQLDatabase(t, dsn, fmt.Sprintf("design_%d", n))
	src.exec(t, "CREATE TABLE orders (id BIGINT PRIMARY KEY, name VARCHAR(255), score INT)")
	var values []string
	for i := 1; i <= cdcKillInitial; i++ {
		values = append(values, fmt.Sprintf("(%d, 'row %d', %d)", i, i, i))
	}
	src.exec(t, "INSERT INTO orders VALUES "+strings.Join(values, ", "))
	// the events: a topic of deterministic records, more produced while the job runs
	topic := kafkaTopic(t, adm, "design_events", 1)
	const events, eventsFirst = 600, 200
	event := func(i int) string { return fmt.Sprintf(`{"id":%d,"kind":"k%d","value":%d}`, i, i%3, i*7) }
	produceEvents(t, kafka, topic, 0, eventsFirst, event)
	// the sinks: an index and a PostgreSQL table of their own
	index := fmt.Sprintf("design-orders-%d", n)
	pg := connectTo(t, os.Getenv("STRAIT_TEST_POSTGRES"))
	schema := fmt.Sprintf("design_%d", n)
	if _, err := pg.Exec(context.Background(), fmt.Sprintf("CREATE SCHEMA %[1]s; CREATE TABLE %[1]s.events (id bigint PRIMARY KEY, kind text, value int)", schema)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = pg.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE") })

	job := writeJob(t, fmt.Sprintf(`
env {
  job.name = "design-example"
  job.mode = "STREAMING"
  parallelism = 1
  checkpoint.interval = 2000
  job.retry.times = 10
  job.retry.interval.seconds = 1
}
source {
  MySQL-CDC {
    plugin_output = "orders_cdc"
    base-url = %q
    username = "test"
    password = "test"
    table-names = ["%s.orders"]
    snapshot.split.size = 16
    connect.max-retries = 60
  }
  Kafka {
    plugin_output = "events_raw"
    bootstrap.servers = %q
    topic = %q
    start_mode = earliest
    format = json
    schema = { fields { id = bigint, kind = string, value = int } }
  }
}
transform {
  Sql {
    plugin_input = "orders_cdc"
    plugin_output = "orders"
    query = "select id, name, score, score * 2 as doubled from orders_cdc"
  }
  Sql {
    plugin_input = "events_raw"
    plugin_output = "events"
    query = "select id, upper(kind) as kind, value + 1 as value from events_raw"
  }
}
sink {
  Elasticsearch {
    plugin_input = "orders"
    hosts = [%q]
    index = %q
    primary_keys = ["id"]
    max_batch_size = 10000
  }
  Jdbc {
    plugin_input = "events"
    url = "jdbc:postgresql://%s/test"
    driver = "org.postgresql.Driver"
    user = "test"
    password = "test"
    database = test
    table = "%s.events"
    primary_keys = ["id"]
    generate_sink_sql = true
    is_exactly_once = true
    xa_data_source_class_name = "org.postgresql.xa.PGXADataSource"
  }
}`, src.jdbcURL(), src.name, kafka, topic, es, index, testServerHost(t), schema))
	id := submit(t, c.addr, job)
	t.Cleanup(func() { _, _ = run(t, "job", "cancel", "--address", c.addr, id) })

	ordersWant := func() map[string]string {
		out := map[string]string{}
		for _, r := range mysqlRows(t, src.DB, "orders") {
			// (id,name,score) as mysqlRows prints it
			f := strings.SplitN(strings.Trim(r, "()"), ",", 3)
			score, doubled := "null", "null"
			if f[2] != "NULL" {
				score = f[2]
				v, _ := strconv.Atoi(f[2])
				doubled = strconv.Itoa(2 * v)
			}
			name, _ := json.Marshal(f[1])
			out[f[0]] = fmt.Sprintf(`{"doubled":%s,"id":%s,"name":%s,"score":%s}`, doubled, f[0], name, score)
		}
		return out
	}
	eventsWant := func(upTo int) []string {
		var out []string
		for i := 0; i < upTo; i++ {
			out = append(out, fmt.Sprintf("(%d,K%d,%d)", i, i%3, i*7+1))
		}
		return out
	}
	eventRows := func() []string { return pgTriples(t, pg, "SELECT id, kind, value FROM "+schema+".events ORDER BY id") }
	converged := func(what string, within time.Duration, events int) {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			want, got := ordersWant(), esDocs(t, es, index)
			od := mapDiff(want, got)
			ed := firstDiff(eventsWant(events), eventRows())
			if od == "" && ed == "" {
				t.Logf("%s: %d documents equal the orders, %d rows the events", what, len(want), events)
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not equal after %s: orders %s; events %s", what, within, od, ed)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	converged("the snapshot and the first events", 2*time.Minute, eventsFirst)

	// the orders' pipeline and its runner
	var victim string
	eventually(t, time.Minute, "the pipelines placed", func() bool {
		jv := jobStatus(t, c.addr, id)
		if len(jv.Pipelines) != 2 || len(jv.Pipelines[0].Tasks) == 0 {
			return false
		}
		victim = jv.Pipelines[0].Tasks[0].Runner
		return victim != ""
	})
	wait := runWriter(t, newCDCWriter(src.DB, "orders", seed))
	produced := make(chan error, 1)
	go func() {
		for i := eventsFirst; i < events; i += 20 {
			if err := produceEventsErr(kafka, topic, i, i+20, event); err != nil {
				produced <- err
				return
			}
			time.Sleep(300 * time.Millisecond)
		}
		produced <- nil
	}()
	at := killMoment(seed)
	// the writer may delete an order or change its key right after inserting it, so the
	// index shows progress by its highest id, not by that one document
	eventually(t, 2*time.Minute, fmt.Sprintf("the index holds an order from %d on", at), func() bool {
		for k := range esDocs(t, es, index) {
			if id, err := strconv.ParseInt(k, 10, 64); err == nil && id >= at {
				return true
			}
		}
		return false
	})
	runners[victim].kill(t)
	t.Logf("runner %s killed once the index held an order from %d on", victim, at)
	wait()
	if err := <-produced; err != nil {
		t.Fatalf("produce events: %v", err)
	}
	converged("after the kill", 3*time.Minute, events)
	st := c.status(t, id)
	if st.State != "RUNNING" || len(st.Pipelines) != 2 || st.Pipelines[0].Restarts < 1 {
		t.Fatalf("want both pipelines running, the orders' restarted: %+v", st)
	}
}

// produceEvents writes the records lo..hi-1 of a topic's partition 0.
func produceEvents(t *testing.T, addr, topic string, lo, hi int, encode func(int) string) {
	t.Helper()
	if err := produceEventsErr(addr, topic, lo, hi, encode); err != nil {
		t.Fatal(err)
	}
}

func produceEventsErr(addr, topic string, lo, hi int, encode func(int) string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		return err
	}
	defer cl.Close()
	recs := make([]*kgo.Record, 0, hi-lo)
	for i := lo; i < hi; i++ {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: 0, Value: []byte(encode(i))})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return cl.ProduceSync(ctx, recs...).FirstErr()
}

// esDocs reads every document of an index, by id, as JSON with sorted keys (ZincSearch's own
// @timestamp left out); none when the index does not exist yet.
func esDocs(t *testing.T, base, index string) map[string]string {
	t.Helper()
	resp := esDo(t, base, http.MethodPost, "/"+index+"/_search", `{"query":{"match_all":{}},"size":10000}`)
	defer resp.Body.Close()
	var r esSearchResult
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&r) != nil {
		return map[string]string{}
	}
	out := map[string]string{}
	for _, h := range r.Hits.Hits {
		delete(h.Source, "@timestamp")
		b, _ := json.Marshal(h.Source) // map keys sorted
		out[h.ID] = string(b)
	}
	return out
}

// mapDiff describes the first key whose value differs, or "".
func mapDiff(want, got map[string]string) string {
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, _ := strconv.Atoi(keys[i])
		b, _ := strconv.Atoi(keys[j])
		return a < b
	})
	for _, k := range keys {
		if want[k] != got[k] {
			return fmt.Sprintf("document %s: want %q, got %q (%d wanted, %d there)", k, want[k], got[k], len(want), len(got))
		}
	}
	return ""
}
