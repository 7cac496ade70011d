package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	_ "github.com/strait-dev/strait/connectors/assert"
	_ "github.com/strait-dev/strait/connectors/console"
	_ "github.com/strait-dev/strait/connectors/fake"
	"github.com/strait-dev/strait/connectors/internal/conntest"
)

// SeaTunnel's own Kafka end-to-end configs (connector-kafka-e2e), kept unchanged in
// testdata/seatunnel, run in-process against the topics and records their Java test
// (KafkaIT) prepares, with the checks it makes. They reach the broker as kafkaCluster:9092,
// the host name scripts/kafka.sh maps; the broker must listen on port 9092.

// seatunnelBroker is the broker the configs name; it must be the test broker.
func seatunnelBroker(t *testing.T) string {
	t.Helper()
	addr := testBroker(t)
	if !strings.HasSuffix(addr, ":9092") {
		t.Fatalf("SeaTunnel's configs reach the broker at kafkaCluster:9092; %s is %s", envKafka, addr)
	}
	return addr
}

// runSeaTunnelConf runs one of the configs in testdata/seatunnel as a BATCH job.
func runSeaTunnelConf(t *testing.T, name string) error {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "seatunnel", name))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	root, err := conntest.Parse(src, name, nil)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return conntest.RunJob(ctx, root)
}

// prepare creates a topic afresh, with one partition as the broker of SeaTunnel's test
// creates it, holding the records of ids lo..hi-1 in the given encoding.
func prepare(t *testing.T, addr, topic string, lo, hi int, encode func(int) string) {
	t.Helper()
	createTopic(t, addr, topic, 1)
	t.Cleanup(func() { deleteTopic(t, addr, topic) })
	var vals []string
	for i := lo; i < hi; i++ {
		vals = append(vals, encode(i))
	}
	if len(vals) > 0 {
		produce(t, addr, topic, 0, vals...)
	}
}

// KafkaIT's source tests: each config reads the records prepared and its Assert passes.
func TestSeaTunnelKafkaSource(t *testing.T) {
	addr := seatunnelBroker(t)
	for _, c := range []struct {
		name    string
		prepare func(t *testing.T)
		fails   bool
	}{
		// testSourceKafka: the 100 json records of startUp, read from each start mode
		{"kafka/kafkasource_earliest_to_console.conf", func(t *testing.T) { prepare(t, addr, "test_topic_source", 0, 100, seatunnelJSON) }, false},
		{"kafka/kafkasource_latest_to_console.conf", func(t *testing.T) { prepare(t, addr, "test_topic_source", 0, 100, seatunnelJSON) }, false},
		{"kafka/kafkasource_specific_offsets_to_console.conf", func(t *testing.T) { prepare(t, addr, "test_topic_source", 0, 100, seatunnelJSON) }, false},
		{"kafka/kafkasource_timestamp_to_console.conf", func(t *testing.T) { prepare(t, addr, "test_topic_source", 0, 100, seatunnelJSON) }, false},
		// testSourceKafkaStartConfig
		{"kafka/kafkasource_group_offset_to_console.conf", func(t *testing.T) { prepare(t, addr, "test_topic_group", 100, 150, seatunnelJSON) }, false},
		// testSourceKafkaJsonToConsole, the text tests and max.poll.records = 1
		{"jsonFormatIT/kafka_source_json_to_console.conf", func(t *testing.T) { prepare(t, addr, "test_topic_json", 0, 100, seatunnelJSON) }, false},
		{"textFormatIT/kafka_source_text_to_console.conf", func(t *testing.T) { prepare(t, addr, "test_topic_text", 0, 100, seatunnelText) }, false},
		{"textFormatIT/kafka_source_text_to_console_assert_catalog_table.conf", func(t *testing.T) { prepare(t, addr, "test_topic_text", 0, 100, seatunnelText) }, false},
		{"kafka/kafka_source_to_assert_with_max_poll_records_1.conf", func(t *testing.T) {
			prepare(t, addr, "test_topic_text_max_poll_records_1", 0, 100, seatunnelText)
		}, false},
		// json records read as text do not parse: skip reads none, fail fails the job
		{"kafka/kafkasource_format_error_handle_way_skip_to_console.conf", func(t *testing.T) { prepare(t, addr, "test_topic_error_message", 0, 100, seatunnelJSON) }, false},
		{"kafka/kafkasource_format_error_handle_way_fail_to_console.conf", func(t *testing.T) { prepare(t, addr, "test_topic_error_message", 0, 100, seatunnelJSON) }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.prepare(t)
			err := runSeaTunnelConf(t, c.name)
			if c.fails {
				if err == nil || !strings.Contains(err.Error(), "topic test_topic_error_message partition 0 offset 0") {
					t.Fatalf("error %v, want one naming the first record", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// testSourceKafkaStartConfigWithCommitOffset: a BATCH job reading from the group's offsets
// (none yet: it starts at the end) commits the offset it reached, 100.
func TestSeaTunnelKafkaCommitOffset(t *testing.T) {
	addr := seatunnelBroker(t)
	const topic, group = "test_topic_group_with_commit_offset", "SeaTunnel-Consumer-Group"
	prepare(t, addr, topic, 0, 100, seatunnelJSON)
	adm := adminClient(t, addr)
	ctx := context.Background()
	if _, err := adm.DeleteGroup(ctx, group); err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
		t.Fatalf("delete group: %v", err)
	}
	if err := runSeaTunnelConf(t, "kafka/kafkasource_group_offset_to_console_with_commit_offset.conf"); err != nil {
		t.Fatal(err)
	}
	resp, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := resp.Lookup(topic, 0); !ok || o.At != 100 {
		t.Fatalf("committed %+v, want 100", o)
	}
}

// KafkaIT's sink tests: FakeSource's 10 rows reach the topic, keyed by c_map and c_string
// where the config says so.
func TestSeaTunnelKafkaSink(t *testing.T) {
	addr := seatunnelBroker(t)
	for _, c := range []struct {
		name, topic string
		keyed       bool
	}{
		{"kafka_sink_fake_to_kafka.conf", "test_topic", true},
		{"textFormatIT/fake_source_to_text_sink_kafka.conf", "test_text_topic", false},
		{"kafka_default_sink_fake_to_kafka.conf", "topic_default_sink_test", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			prepare(t, addr, c.topic, 0, 0, nil)
			if err := runSeaTunnelConf(t, c.name); err != nil {
				t.Fatal(err)
			}
			got := consumeAll(t, addr, c.topic, false)
			if len(got) != 10 {
				t.Fatalf("%d records in %s, want 10", len(got), c.topic)
			}
			if !c.keyed {
				return
			}
			var key map[string]any
			if err := json.Unmarshal([]byte(got[0].Key), &key); err != nil {
				t.Fatalf("key %q: %v", got[0].Key, err)
			}
			if _, ok := key["c_map"]; !ok {
				t.Fatalf("key %q has no c_map", got[0].Key)
			}
			if _, ok := key["c_string"]; !ok {
				t.Fatalf("key %q has no c_string", got[0].Key)
			}
		})
	}
}
