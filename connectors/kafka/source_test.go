package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/internal/freeport"
	"github.com/strait-dev/strait/internal/kafkatest"
	"github.com/strait-dev/strait/row"
)

const seatunnelSchema = `schema = { fields {
  id = bigint
  c_map = "map<string, smallint>"
  c_array = "array<tinyint>"
  c_string = string
  c_boolean = boolean
  c_tinyint = tinyint
  c_smallint = smallint
  c_int = int
  c_bigint = bigint
  c_float = float
  c_double = double
  c_decimal = "decimal(2, 1)"
  c_bytes = bytes
  c_date = date
  c_timestamp = timestamp
} }`

// the row both formats decode to, as Console prints it
const seatunnelRowText = "{\"key\":1} [1] string false 1 1 1 1 1.1 1.1 1.1 [116, 101, 115, 116] 2024-01-01 2024-01-01T12:59:23"

func rowText(r row.Row) string {
	parts := make([]string, len(r.Fields))
	for i, v := range r.Fields {
		parts[i] = v.String()
	}
	return strings.Join(parts, " ")
}

func ids(rows []row.Row) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.Fields[0].I
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func span(lo, hi int) []int64 {
	var out []int64
	for i := lo; i < hi; i++ {
		out = append(out, int64(i))
	}
	return out
}

// Both formats read SeaTunnel's records back to the same typed row, over every partition
// and with several readers, in BATCH mode to the end offsets seen at start.
func TestSourceFormatsBatch(t *testing.T) {
	addr := testBroker(t)
	cases := []struct {
		format string
		encode func(int) string
		extra  string
	}{
		{"json", kafkatest.RecordJSON, ""},
		{"text", kafkatest.RecordText, `field_delimiter = ","`},
		{"avro", kafkatest.RecordAvro, ""},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			topic := newTopic(t, addr, 3)
			for p := int32(0); p < 3; p++ {
				var vals []string
				for i := int(p) * 10; i < int(p)*10+10; i++ {
					vals = append(vals, c.encode(i))
				}
				produce(t, addr, topic, p, vals...)
			}
			src := mustSource(t, connector.Batch, 2, fmt.Sprintf(`bootstrap.servers = "%s"
topic = "%s"
format = %s
start_mode = earliest
%s
%s`, addr, topic, c.format, c.extra, seatunnelSchema))
			rows := conntest.AllRows(t, src, 2)
			if got := ids(rows); !slices.Equal(got, span(0, 30)) {
				t.Fatalf("ids %v, want 0..29", got)
			}
			for _, r := range rows {
				if r.Table != topic || r.Kind != row.Insert {
					t.Fatalf("row of table %q kind %v", r.Table, r.Kind)
				}
				if got := rowText(r); !strings.HasSuffix(got, seatunnelRowText) {
					t.Fatalf("row %s\nwant   ... %s", got, seatunnelRowText)
				}
			}
		})
	}
}

// Without a schema each record is one string column, content, holding the whole value.
func TestSourceWithoutSchema(t *testing.T) {
	addr := testBroker(t)
	topic := newTopic(t, addr, 1)
	produce(t, addr, topic, 0, "a,b", `{"x":1}`)
	src := mustSource(t, connector.Batch, 1, fmt.Sprintf(`bootstrap.servers = "%s"
topic = "%s"
start_mode = earliest`, addr, topic))
	if cols := src.Tables()[0].Columns; len(cols) != 1 || cols[0].Name != "content" {
		t.Fatalf("columns %+v", cols)
	}
	rows := conntest.AllRows(t, src, 1)
	if len(rows) != 2 || rows[0].Fields[0].S != "a,b" || rows[1].Fields[0].S != `{"x":1}` {
		t.Fatalf("rows %v", rows)
	}
}

// Each start mode starts where SeaTunnel's does; BATCH reads to the end seen at start.
func TestSourceStartModes(t *testing.T) {
	addr := testBroker(t)
	topic := newTopic(t, addr, 1)
	for i := 0; i < 20; i++ {
		produce(t, addr, topic, 0, kafkatest.RecordJSON(i))
	}
	// the records' timestamps are when they were written: the 11th of 20 starts a second half
	adm := adminClient(t, addr)
	ctx := context.Background()
	half := time.Now()
	for i := 20; i < 30; i++ {
		produce(t, addr, topic, 0, kafkatest.RecordJSON(i))
	}
	after, err := adm.ListOffsetsAfterMilli(ctx, half.UnixMilli(), topic)
	if err != nil {
		t.Fatal(err)
	}
	firstAfter := after[topic][0].Offset
	group := "g_" + topic
	commit := kadm.Offsets{}
	commit.Add(kadm.Offset{Topic: topic, Partition: 0, At: 25, LeaderEpoch: -1})
	if resp, err := adm.CommitOffsets(ctx, group, commit); err != nil || resp.Error() != nil {
		t.Fatalf("commit: %v %v", err, resp.Error())
	}
	cases := []struct {
		name  string
		extra string
		want  []int64
	}{
		{"earliest", "start_mode = earliest", span(0, 30)},
		{"latest", "start_mode = latest", nil},
		{"specific_offsets", fmt.Sprintf("start_mode = specific_offsets\nstart_mode.offsets = { %s-0 = 12 }", topic), span(12, 30)},
		{"timestamp", fmt.Sprintf("start_mode = timestamp\nstart_mode.timestamp = %d", half.UnixMilli()), span(int(firstAfter), 30)},
		{"group_offsets", fmt.Sprintf("start_mode = group_offsets\nconsumer.group = %s\ncommit_on_checkpoint = false", group), span(25, 30)},
		{"group_offsets without commits", "start_mode = group_offsets\nconsumer.group = never_used_" + topic, nil},
		{"group_offsets without commits, reset to earliest", "start_mode = group_offsets\nconsumer.group = never_used_either_" + topic + "\nkafka.config = { auto.offset.reset = earliest }", span(0, 30)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := mustSource(t, connector.Batch, 1, fmt.Sprintf("bootstrap.servers = %q\ntopic = %q\nschema = { fields { id = bigint } }\n%s", addr, topic, c.extra))
			if got := ids(conntest.AllRows(t, src, 1)); !slices.Equal(got, c.want) {
				t.Fatalf("ids %v, want %v", got, c.want)
			}
		})
	}
}

// readUntil polls a reader until it holds n rows.
func readUntil(t *testing.T, r connector.Reader, n int) []row.Row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []row.Row
	for len(out) < n {
		b := row.NewBatch(n - len(out))
		conntest.Poll(ctx, t, r, b)
		for i := range b.Rows {
			out = append(out, b.Rows[i].Clone())
		}
		b.Release()
	}
	return out
}

func streamingReader(t *testing.T, src connector.Source, splits []connector.Split) connector.Reader {
	t.Helper()
	r, err := src.CreateReader(connector.ReaderContext{Index: 0, Parallelism: 1, Job: connector.Job{Mode: connector.Streaming}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	r.AddSplits(splits)
	return r
}

// A STREAMING reader's snapshot is its partitions' next offsets: a reader restored from it
// reads exactly the records after the last one read before, none twice and none lost. The
// offsets reach the consumer group only when the checkpoint completes.
func TestSourceRestoreAndCommitOnCheckpoint(t *testing.T) {
	addr := testBroker(t)
	topic := newTopic(t, addr, 2)
	group := "g_" + topic
	for p := int32(0); p < 2; p++ {
		var vals []string
		for i := 0; i < 10; i++ {
			vals = append(vals, kafkatest.RecordJSON(int(p)*100+i))
		}
		produce(t, addr, topic, p, vals...)
	}
	block := fmt.Sprintf("bootstrap.servers = %q\ntopic = %q\nstart_mode = earliest\nconsumer.group = %s\nschema = { fields { id = bigint } }", addr, topic, group)
	src := mustSource(t, connector.Streaming, 1, block)
	ec := conntest.NewEnumContext(1)
	enumerate(t, src, ec)
	ctx := context.Background()
	if len(ec.Assigned[0]) != 2 {
		t.Fatalf("assigned %v, want both partitions", ec.Assigned[0])
	}
	r1 := streamingReader(t, src, ec.Assigned[0])
	first := readUntil(t, r1, 7)
	state, err := r1.SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	adm := adminClient(t, addr)
	committed := func() map[int32]int64 {
		resp, err := adm.FetchOffsets(ctx, group)
		if errors.Is(err, kerr.GroupIDNotFound) {
			return map[int32]int64{}
		}
		if err != nil {
			t.Fatal(err)
		}
		out := map[int32]int64{}
		resp.Each(func(o kadm.OffsetResponse) {
			if o.Topic == topic {
				out[o.Partition] = o.At
			}
		})
		return out
	}
	if c := committed(); len(c) != 0 {
		t.Fatalf("offsets committed before the checkpoint completed: %v", c)
	}
	// rows read after the snapshot are not part of it
	_ = readUntil(t, r1, 3)
	if err := r1.(connector.CheckpointListener).NotifyCheckpointComplete(ctx, 1); err != nil {
		t.Fatal(err)
	}
	want := map[int32]int64{}
	for _, s := range state {
		var sp split
		if err := json.Unmarshal(s.Data, &sp); err != nil {
			t.Fatal(err)
		}
		want[sp.Partition] = sp.Offset
	}
	if c := committed(); fmt.Sprint(c) != fmt.Sprint(want) {
		t.Fatalf("committed %v, want the checkpoint's %v", c, want)
	}
	r1.Close()

	for p := int32(0); p < 2; p++ {
		produce(t, addr, topic, p, kafkatest.RecordJSON(int(p)*100+10))
	}
	r2 := streamingReader(t, src, state)
	rest := readUntil(t, r2, 22-7)
	all := append(ids(first), ids(rest)...)
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	wantIDs := append(span(0, 11), span(100, 111)...)
	if !slices.Equal(all, wantIDs) {
		t.Fatalf("before and after the restore: %v, want each of %v once", all, wantIDs)
	}
}

// A record that does not parse fails the read naming topic, partition and offset, or is
// skipped with format_error_handle_way = skip.
func TestSourceBadRecord(t *testing.T) {
	addr := testBroker(t)
	topic := newTopic(t, addr, 1)
	produce(t, addr, topic, 0, kafkatest.RecordJSON(0), `{"id": "not a number"}`, `{"id":`, kafkatest.RecordJSON(3))
	block := fmt.Sprintf("bootstrap.servers = %q\ntopic = %q\nstart_mode = earliest\nschema = { fields { id = bigint } }\n", addr, topic)
	src := mustSource(t, connector.Batch, 1, block+"format_error_handle_way = fail")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := conntest.Rows(ctx, src, 1)
	want := fmt.Sprintf("topic %s partition 0 offset 1", topic)
	if err == nil || !strings.Contains(err.Error(), want) || !connector.IsPermanent(err) {
		t.Fatalf("error %v, want a permanent one naming %q", err, want)
	}
	src = mustSource(t, connector.Batch, 1, block+"format_error_handle_way = skip")
	if got := ids(conntest.AllRows(t, src, 1)); !slices.Equal(got, []int64{0, 3}) {
		t.Fatalf("ids %v, want 0 and 3", got)
	}
}

// A broker that does not answer fails the start within the request timeout, naming the
// address; a topic that does not exist fails it naming the topic.
func TestSourceBrokerAndTopicErrors(t *testing.T) {
	addr := testBroker(t)
	port, err := freeport.Pick("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	dead := fmt.Sprintf("127.0.0.1:%d", port)
	cases := []struct {
		name, block, want string
		bound             time.Duration
	}{
		{"unreachable", fmt.Sprintf("bootstrap.servers = %q\ntopic = t\nkafka.config = { request.timeout.ms = 2000 }", dead), dead, 15 * time.Second},
		{"unknown topic", fmt.Sprintf("bootstrap.servers = %q\ntopic = no_such_topic_here", addr), `topic "no_such_topic_here" does not exist`, 30 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := mustSource(t, connector.Batch, 1, c.block)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			_, err := conntest.Rows(ctx, src, 1)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one naming %s", err, c.want)
			}
			if d := time.Since(start); d > c.bound {
				t.Fatalf("failed after %s, want within %s", d, c.bound)
			}
		})
	}
}

// tables_configs reads several topics at once, each as a table of its own with its own
// format and start mode.
func TestSourceTablesConfigs(t *testing.T) {
	addr := testBroker(t)
	a, b := newTopic(t, addr, 1), newTopic(t, addr, 2)
	produce(t, addr, a, 0, kafkatest.RecordJSON(1), kafkatest.RecordJSON(2), kafkatest.RecordJSON(3))
	produce(t, addr, b, 1, kafkatest.RecordText(10), kafkatest.RecordText(11))
	src := mustSource(t, connector.Batch, 2, fmt.Sprintf(`bootstrap.servers = %q
tables_configs = [
  { topic = %q, format = json, start_mode = specific_offsets, start_mode.offsets = { %s-0 = 1 }, schema = { fields { id = bigint } } }
  { topic = %q, format = text, start_mode = earliest, schema = { fields { id = bigint, c_map = "map<string, smallint>" } } }
]`, addr, a, a, b))
	if tables := src.Tables(); len(tables) != 2 || tables[0].ID() != a || tables[1].ID() != b || len(tables[1].Columns) != 2 {
		t.Fatalf("tables %+v", tables)
	}
	byTable := map[string][]int64{}
	for _, r := range conntest.AllRows(t, src, 2) {
		byTable[r.Table] = append(byTable[r.Table], r.Fields[0].I)
	}
	if fmt.Sprint(byTable[a]) != "[2 3]" || fmt.Sprint(byTable[b]) != "[10 11]" {
		t.Fatalf("rows by table %v", byTable)
	}
}

// lockedEnum is an enumerator context the discovery goroutine may assign through.
type lockedEnum struct {
	mu sync.Mutex
	*conntest.EnumContext
}

func (l *lockedEnum) Assign(reader int, splits ...connector.Split) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.EnumContext.Assign(reader, splits...)
}

func (l *lockedEnum) assigned() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.Assigned {
		n += len(s)
	}
	return n
}

// With partition-discovery.interval-millis a STREAMING source hands out the partitions a
// topic gains, and the topics a pattern comes to match, while it runs; without it, it
// tells every reader that no more will come.
func TestSourcePartitionDiscovery(t *testing.T) {
	addr := testBroker(t)
	topic := newTopic(t, addr, 1)
	block := fmt.Sprintf("bootstrap.servers = %q\ntopic = \"%s.*\"\npattern = true\nstart_mode = earliest\n", addr, topic)
	ec := &lockedEnum{EnumContext: conntest.NewEnumContext(2)}
	enumerate(t, mustSource(t, connector.Streaming, 2, block+"partition-discovery.interval-millis = 100"), ec)
	ctx := context.Background()
	if n := ec.assigned(); n != 1 || len(ec.NoMore) != 0 {
		t.Fatalf("%d splits assigned, no more to %v: want 1, and more to come", n, ec.NoMore)
	}
	adm := adminClient(t, addr)
	if _, err := adm.CreatePartitions(ctx, 2, topic); err != nil {
		t.Fatal(err)
	}
	createTopic(t, addr, topic+"_later", 2)
	t.Cleanup(func() { deleteTopic(t, addr, topic+"_later") })
	deadline := time.Now().Add(30 * time.Second)
	for ec.assigned() < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("%d splits assigned, want 5: 3 partitions of the topic and 2 of the new one", ec.assigned())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// without discovery the readers learn at once that no more will come
	plain := conntest.NewEnumContext(2)
	enumerate(t, mustSource(t, connector.Streaming, 2, block), plain)
	if len(plain.NoMore) != 2 {
		t.Fatalf("no more splits told to %v, want both readers", plain.NoMore)
	}
}
