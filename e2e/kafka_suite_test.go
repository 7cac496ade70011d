package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/internal/kafkatest"
)

// SeaTunnel's own Kafka end-to-end configs (connector-kafka-e2e), kept unchanged in
// connectors/kafka/testdata/seatunnel, run by strait run against the topics and records their
// Java test (KafkaIT) prepares, with the checks it makes. They reach the broker as
// kafkaCluster:9092, the host name scripts/kafka.sh maps; the broker must listen on port 9092.

// kafkaSuite names a config of the suite.
func kafkaSuite(name string) string { return connectorSuite("kafka", name) }

// seatunnelKafka is the broker the configs name; it must be the test broker.
func seatunnelKafka(t *testing.T) (string, *kadm.Client) {
	t.Helper()
	addr, adm := kafkaBroker(t)
	if !strings.HasSuffix(addr, ":9092") {
		t.Fatalf("SeaTunnel's configs reach the broker at kafkaCluster:9092; STRAIT_TEST_KAFKA is %s", addr)
	}
	return addr, adm
}

// prepareTopic creates a topic of a fixed name afresh (one an earlier run left is deleted
// first), with one partition as the broker of SeaTunnel's test creates it, holding the records
// of ids lo..hi-1 in the given encoding; it is deleted when the test ends.
func prepareTopic(t *testing.T, addr string, adm *kadm.Client, topic string, lo, hi int, encode func(int) string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = adm.DeleteTopics(ctx, topic)
	resp, err := adm.CreateTopic(ctx, 1, 1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
	t.Cleanup(func() { _, _ = adm.DeleteTopics(context.Background(), topic) })
	if hi <= lo {
		return
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	recs := make([]*kgo.Record, 0, hi-lo)
	for i := lo; i < hi; i++ {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: 0, Value: []byte(encode(i))})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce to %s: %v", topic, err)
	}
}

// topicRecords reads a topic from its start to the end offsets it has now.
func topicRecords(t *testing.T, addr string, adm *kadm.Client, topic string) []*kgo.Record {
	t.Helper()
	return readTopic(t, addr, adm, topic, false)
}

// readTopic reads a topic from its start to the end offsets it has now, or, committed, as a
// read_committed consumer to its last stable offsets, leaving out the transactions' control
// records.
func readTopic(t *testing.T, addr string, adm *kadm.Client, topic string, committed bool) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, what := adm.ListEndOffsets, "end offsets"
	opts := []kgo.Opt{kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}
	if committed {
		list, what = adm.ListCommittedOffsets, "stable offsets"
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	}
	ends, err := list(ctx, topic)
	if err != nil {
		t.Fatalf("%s of %s: %v", what, topic, err)
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []*kgo.Record
	for len(want) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %s: %v (still waiting for %v)", topic, ctx.Err(), want)
		}
		fs.EachRecord(func(r *kgo.Record) {
			end, ok := want[r.Partition]
			if !ok || r.Offset >= end {
				return
			}
			if !r.Attrs.IsControl() {
				out = append(out, r)
			}
			if r.Offset+1 >= end {
				delete(want, r.Partition)
			}
		})
	}
	return out
}

// kafkaSourceCase is a source config of KafkaIT, the topic it reads and the records KafkaIT
// puts there first; want is what the run's output holds besides FINISHED (or FAILED, exit 1,
// when code is 1).
type kafkaSourceCase struct {
	config, topic string
	lo, hi        int
	encode        func(int) string
	code          int
	want          []string
}

var kafkaSourceCases = []kafkaSourceCase{
	// testSourceKafka: the 100 json records of startUp, read from each start mode (latest,
	// in a BATCH job, stops where it starts and reads none)
	{config: "kafka/kafkasource_earliest_to_console.conf", topic: "test_topic_source", hi: 100, encode: kafkatest.RecordJSON, want: []string{"Total Read Count : 100"}},
	{config: "kafka/kafkasource_latest_to_console.conf", topic: "test_topic_source", hi: 100, encode: kafkatest.RecordJSON},
	{config: "kafka/kafkasource_specific_offsets_to_console.conf", topic: "test_topic_source", hi: 100, encode: kafkatest.RecordJSON, want: []string{"Total Read Count : 50"}},
	{config: "kafka/kafkasource_timestamp_to_console.conf", topic: "test_topic_source", hi: 100, encode: kafkatest.RecordJSON, want: []string{"Total Read Count : 100"}},
	// testSourceKafkaStartConfig: without an offset of the group on the fresh topic, reading
	// starts at its end (auto.offset.reset is latest)
	{config: "kafka/kafkasource_group_offset_to_console.conf", topic: "test_topic_group", lo: 100, hi: 150, encode: kafkatest.RecordJSON},
	// testSourceKafkaJsonToConsole, the text tests and max.poll.records = 1
	{config: "jsonFormatIT/kafka_source_json_to_console.conf", topic: "test_topic_json", hi: 100, encode: kafkatest.RecordJSON, want: []string{"Total Read Count : 100"}},
	{config: "textFormatIT/kafka_source_text_to_console.conf", topic: "test_topic_text", hi: 100, encode: kafkatest.RecordText, want: []string{"Total Read Count : 100"}},
	{config: "textFormatIT/kafka_source_text_to_console_assert_catalog_table.conf", topic: "test_topic_text", hi: 100, encode: kafkatest.RecordText, want: []string{"Total Read Count : 100"}},
	// testKafkaAvroToAssert: SeaTunnel's avro records of the same rows
	{config: "avro/kafka_avro_to_assert.conf", topic: "test_avro_topic", hi: 100, encode: kafkatest.RecordAvro, want: []string{"Total Read Count : 100"}},
	{config: "kafka/kafka_source_to_assert_with_max_poll_records_1.conf", topic: "test_topic_text_max_poll_records_1", hi: 100, encode: kafkatest.RecordText, want: []string{"Total Read Count : 100"}},
	// json records read as text do not parse: skip reads none and counts the 100 skipped as
	// failed, fail fails the job naming the first record
	{config: "kafka/kafkasource_format_error_handle_way_skip_to_console.conf", topic: "test_topic_error_message", hi: 100, encode: kafkatest.RecordJSON,
		want: []string{"Total Read Count : 0", "Total Failed Count : 100"}},
	{config: "kafka/kafkasource_format_error_handle_way_fail_to_console.conf", topic: "test_topic_error_message", hi: 100, encode: kafkatest.RecordJSON,
		code: 1, want: []string{"topic test_topic_error_message partition 0 offset 0"}},
}

// runKafkaSourceCases runs the cases, those of one topic one after the other (each prepares
// the topic afresh) and the topics in parallel.
func runKafkaSourceCases(t *testing.T, addr string, adm *kadm.Client, cases []kafkaSourceCase, check func(t *testing.T, c kafkaSourceCase)) {
	var topics []string
	byTopic := map[string][]kafkaSourceCase{}
	for _, c := range cases {
		if byTopic[c.topic] == nil {
			topics = append(topics, c.topic)
		}
		byTopic[c.topic] = append(byTopic[c.topic], c)
	}
	for _, topic := range topics {
		t.Run(topic, func(t *testing.T) {
			t.Parallel()
			for _, c := range byTopic[topic] {
				t.Run(c.config, func(t *testing.T) {
					prepareTopic(t, addr, adm, c.topic, c.lo, c.hi, c.encode)
					check(t, c)
				})
			}
		})
	}
}

// KafkaIT's source tests: each config reads the records prepared and its Assert passes, or
// the job fails as KafkaIT expects.
func TestSeaTunnelKafkaSource(t *testing.T) {
	addr, adm := seatunnelKafka(t)
	runKafkaSourceCases(t, addr, adm, kafkaSourceCases, func(t *testing.T, c kafkaSourceCase) {
		code, out := run(t, "run", kafkaSuite(c.config))
		checkRun(t, c.config, code, out, c.code, c.want...)
	})
}

// Copies of the source configs with a bound of their Assert moved past the records prepared
// fail, naming the rule: the rules see the records read.
func TestSeaTunnelKafkaSourceBrokenCopies(t *testing.T) {
	addr, adm := seatunnelKafka(t)
	broken := map[string]breakage{
		"kafka/kafkasource_earliest_to_console.conf": {old: "rule_type = MAX\n                rule_value = 99", new: "rule_type = MAX\n                rule_value = 98",
			code: 1, want: []string{"breaks rule_type MAX with rule_value 98"}},
		"kafka/kafkasource_specific_offsets_to_console.conf": {old: "rule_type = MIN\n                rule_value = 50", new: "rule_type = MIN\n                rule_value = 51",
			code: 1, want: []string{"breaks rule_type MIN with rule_value 51"}},
		"textFormatIT/kafka_source_text_to_console.conf": {old: "rule_type = MAX\n                rule_value = 99", new: "rule_type = MAX\n                rule_value = 98",
			code: 1, want: []string{"breaks rule_type MAX with rule_value 98"}},
		"kafka/kafka_source_to_assert_with_max_poll_records_1.conf": {old: "rule_type = MIN_ROW\n          rule_value = 100", new: "rule_type = MIN_ROW\n          rule_value = 101",
			code: 1, want: []string{"MIN_ROW"}},
	}
	var cases []kafkaSourceCase
	for _, c := range kafkaSourceCases {
		if _, ok := broken[c.config]; ok {
			cases = append(cases, c)
		}
	}
	if len(cases) != len(broken) {
		t.Fatalf("%d of the %d broken configs are source cases", len(cases), len(broken))
	}
	runKafkaSourceCases(t, addr, adm, cases, func(t *testing.T, c kafkaSourceCase) {
		b, err := os.ReadFile(kafkaSuite(c.config))
		if err != nil {
			t.Fatal(err)
		}
		runBroken(t, c.config, string(b), broken[c.config])
	})
}

// testSourceKafkaStartConfigWithCommitOffset: a BATCH job reading from the group's offsets
// (none yet: it starts at the end) commits the offset it reached, 100.
func TestSeaTunnelKafkaCommitOffset(t *testing.T) {
	addr, adm := seatunnelKafka(t)
	const topic, group = "test_topic_group_with_commit_offset", "SeaTunnel-Consumer-Group"
	const config = "kafka/kafkasource_group_offset_to_console_with_commit_offset.conf"
	prepareTopic(t, addr, adm, topic, 0, 100, kafkatest.RecordJSON)
	ctx := context.Background()
	if _, err := adm.DeleteGroup(ctx, group); err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
		t.Fatalf("delete group: %v", err)
	}
	code, out := run(t, "run", kafkaSuite(config))
	checkRun(t, config, code, out, 0)
	resp, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := resp.Lookup(topic, 0); !ok || o.At != 100 {
		t.Fatalf("committed %+v, want 100", o)
	}
}

// runToTopic runs a config of the suite that writes to topic, made afresh first, and returns
// the records it wrote there, which must be n.
func runToTopic(t *testing.T, addr string, adm *kadm.Client, config, topic string, n int) []*kgo.Record {
	t.Helper()
	prepareTopic(t, addr, adm, topic, 0, 0, nil)
	code, out := run(t, "run", kafkaSuite(config))
	checkRun(t, config, code, out, 0)
	got := topicRecords(t, addr, adm, topic)
	if len(got) != n {
		t.Fatalf("%d records in %s, want %d", len(got), topic, n)
	}
	return got
}

// KafkaIT's sink tests: FakeSource's 10 rows reach the topic, keyed by c_map and c_string
// where the config says so.
func TestSeaTunnelKafkaSink(t *testing.T) {
	addr, adm := seatunnelKafka(t)
	for _, c := range []struct {
		config, topic string
		keyed         bool
	}{
		{"kafka_sink_fake_to_kafka.conf", "test_topic", true},
		{"textFormatIT/fake_source_to_text_sink_kafka.conf", "test_text_topic", false},
		{"kafka_default_sink_fake_to_kafka.conf", "topic_default_sink_test", false},
	} {
		t.Run(c.config, func(t *testing.T) {
			t.Parallel()
			got := runToTopic(t, addr, adm, c.config, c.topic, 10)
			if !c.keyed {
				return
			}
			var key map[string]any
			if err := json.Unmarshal(got[0].Key, &key); err != nil {
				t.Fatalf("key %q: %v", got[0].Key, err)
			}
			for _, field := range []string{"c_map", "c_string"} {
				if _, ok := key[field]; !ok {
					t.Errorf("key %q has no %s", got[0].Key, field)
				}
			}
		})
	}
}

// fakeAvroSchema is the schema SeaTunnel's avro format derives from the FakeSource row of
// fake_source_to_kafka_avro_format.conf, written out.
const fakeAvroFields = `{"name":"c_map","type":{"type":"map","values":"string"}},
{"name":"c_array","type":{"type":"array","items":"int"}},{"name":"c_string","type":"string"},
{"name":"c_boolean","type":"boolean"},{"name":"c_tinyint","type":"int"},{"name":"c_smallint","type":"int"},
{"name":"c_int","type":"int"},{"name":"c_bigint","type":"long"},{"name":"c_float","type":"float"},
{"name":"c_double","type":"double"},{"name":"c_bytes","type":"bytes"},
{"name":"c_date","type":{"type":"int","logicalType":"date"}},
{"name":"c_decimal","type":{"type":"bytes","logicalType":"decimal","precision":38,"scale":18}},
{"name":"c_timestamp","type":{"type":"long","logicalType":"local-timestamp-millis"}}`

// testFakeSourceToKafkaAvroFormat: FakeSource's 90 rows reach the topic as avro records that
// SeaTunnel's schema (decoded here by hamba/avro, not by Strait) reads, nested row included.
func TestSeaTunnelKafkaAvroSink(t *testing.T) {
	addr, adm := seatunnelKafka(t)
	const config, topic = "avro/fake_source_to_kafka_avro_format.conf", "test_avro_topic_fake_source"
	schema := avro.MustParse(`{"type":"record","name":"SeaTunnelRecord","fields":[` + fakeAvroFields +
		`,{"name":"c_row","type":{"type":"record","name":"c_row","fields":[` + fakeAvroFields + `]}}]}`)
	got := runToTopic(t, addr, adm, config, topic, 90)
	for _, r := range got {
		var v map[string]any
		if err := avro.Unmarshal(schema, r.Value, &v); err != nil {
			t.Fatalf("offset %d: %v", r.Offset, err)
		}
		nested, _ := v["c_row"].(map[string]any)
		if v["c_string"] != "fake_source_avro" || nested == nil || nested["c_string"] != "fake_source_avro" {
			t.Fatalf("offset %d: %v", r.Offset, v)
		}
		if _, ok := v["c_timestamp"].(time.Time); !ok {
			t.Fatalf("offset %d: c_timestamp %T", r.Offset, v["c_timestamp"])
		}
	}
}

// testFakeSourceToKafkaProtobufFormat and testKafkaProtobufToAssert: FakeSource's 16 rows
// reach the topic as Person messages of the config's .proto text (read back here by
// protocompile and dynamicpb, not by Strait), and the source reads them into rows its Assert
// rules accept.
func TestSeaTunnelKafkaProtobuf(t *testing.T) {
	addr, adm := seatunnelKafka(t)
	const sinkConfig, topic = "protobuf/fake_to_kafka_protobuf.conf", "test_protobuf_topic_fake_source"
	got := runToTopic(t, addr, adm, sinkConfig, topic, 16)
	b, err := os.ReadFile(kafkaSuite(sinkConfig))
	if err != nil {
		t.Fatal(err)
	}
	root, err := hocon.Parse(b, hocon.Options{File: sinkConfig})
	if err != nil {
		t.Fatal(err)
	}
	sink := root.Get("sink").Get("kafka")
	files, err := (&protocompile.Compiler{Resolver: &protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(
		map[string]string{"person.proto": sink.Get("protobuf_schema").Str})}}).Compile(context.Background(), "person.proto")
	if err != nil {
		t.Fatal(err)
	}
	md := files[0].Messages().ByName(protoreflect.Name(sink.Get("protobuf_message_name").Str))
	for _, r := range got {
		m := dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(r.Value, m); err != nil {
			t.Fatalf("offset %d: %v", r.Offset, err)
		}
		a := m.Get(md.Fields().ByName("address")).Message()
		if m.Get(md.Fields().ByName("c_string")).String() == "" || a.Get(a.Descriptor().Fields().ByName("city")).String() == "" ||
			m.Get(md.Fields().ByName("phone_numbers")).List().Len() == 0 || m.Get(md.Fields().ByName("attributes")).Map().Len() == 0 {
			t.Fatalf("offset %d: a Person without its fields: %v", r.Offset, m)
		}
	}
	const sourceConfig = "protobuf/kafka_protobuf_to_assert.conf"
	code, out := run(t, "run", kafkaSuite(sourceConfig))
	checkRun(t, sourceConfig, code, out, 0)
}
