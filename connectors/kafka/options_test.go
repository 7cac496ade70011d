package kafka

import (
	"context"
	"strings"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
)

// unknownOptions builds the plugin as the planner does (offline: neither factory reaches
// the broker) and returns the warnings about options its spec does not know.
func unknownOptions(t *testing.T, kind, block string) []string {
	t.Helper()
	var o *config.Options
	var err error
	switch kind {
	case "source":
		_, o, err = conntest.BuildSourceIn(t, "Kafka", block, connector.SourceContext{Job: connector.Job{Mode: connector.Batch}, Parallelism: 1})
	case "sink":
		_, o, err = conntest.BuildSinkIn(t, "Kafka", block, connector.SinkContext{Inputs: []*catalog.Table{sinkTable()}})
	default:
		t.Fatalf("no plugin of kind %q", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	return conntest.Unknown(t, kind, "Kafka", o, "plugin_output", "result_table_name", "plugin_input", "source_table_name", "parallelism")
}

func TestUnknownOptionsAreWarned(t *testing.T) {
	for _, tc := range []struct {
		name, kind, src string
		want            []string
	}{
		{"source options", "source", "bootstrap.servers = b\ntopic = t\nresult_table_name = x\nstart_mode = specific_offsets\nstart_mode.offsets = { t-0 = 5 }\nkafka.config = { client.id = c }", nil},
		{"a misspelt source option", "source", "bootstrap.servers = b\ntopic = t\nconsumer.gruop = g", []string{`unknown option "consumer.gruop" (did you mean "consumer.group"?) at job.conf:3:18`}},
		{"a misspelt option of a table", "source", "bootstrap.servers = b\ntables_configs = [{ topic = t, fromat = json }]", []string{`unknown option "tables_configs[0].fromat" (did you mean "tables_configs[0].format"?) at job.conf:2:41`}},
		{"sink options", "sink", "bootstrap.servers = b\ntopic = t\nsemantics = EXACTLY_ONCE\npartition_key_fields = [id]\nsource_table_name = x", nil},
		{"a misspelt sink option", "sink", "bootstrap.servers = b\ntopic = t\nsemantic = EXACTLY_ONCE", []string{`unknown option "semantic" (did you mean "semantics"?) at job.conf:3:12`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conntest.Warnings(t, unknownOptions(t, tc.kind, tc.src), tc.want)
		})
	}
}

func TestOptionErrors(t *testing.T) {
	for _, tc := range []struct{ kind, src, want string }{
		{"source", "topic = t", "source[0] Kafka: bootstrap.servers: option is required (at job.conf:1:1)"},
		{"source", "bootstrap.servers = b", "source[0] Kafka: topic: option is required (or tables_configs)"},
		{"source", "bootstrap.servers = b\ntopic = t\nstart_mode = sometime", `source[0] Kafka: start_mode: unknown value "sometime"`},
		{"source", "bootstrap.servers = b\ntopic = t\nstart_mode = timestamp", "source[0] Kafka: start_mode.timestamp: option is required with start_mode = timestamp"},
		{"source", "bootstrap.servers = b\ntopic = t\nformat = avro\nschema = { fields { a = time } }", "source[0] Kafka: format: field a: type time has no avro type"},
		{"source", "bootstrap.servers = b\ntopic = t\nformat = protobuf\nschema = { fields { a = int } }", "source[0] Kafka: protobuf_schema: format protobuf needs the .proto text of the records"},
		{"source", "bootstrap.servers = b\ntopic = t\nformat = compatible_debezium_json\nschema = { fields { a = int } }", "source[0] Kafka: format: format compatible_debezium_json is written by the sink only"},
		{"sink", "bootstrap.servers = b\ntopic = t\nformat = protobuf", "sink[0] Kafka: protobuf_schema: table in: format protobuf needs the .proto text of the records"},
		{"sink", "bootstrap.servers = b\ntopic = t\nformat = compatible_debezium_json", "sink[0] Kafka: format: table in: format compatible_debezium_json needs the fields topic, key and value"},
		{"source", "bootstrap.servers = b\ntopic = t\nformat_error_handle_way = ignore", `source[0] Kafka: format_error_handle_way: unknown value "ignore"`},
		{"source", "bootstrap.servers = b\ntopic = t\nkafka.config = { acks = 1, isolation.level = dirty }", "source[0] Kafka: kafka.config: kafka.config.isolation.level: want read_committed or read_uncommitted"},
		{"sink", "bootstrap.servers = b", "sink[0] Kafka: topic: option is required (at job.conf:1:1)"},
		{"sink", "bootstrap.servers = b\ntopic = t\nsemantics = TWICE", `sink[0] Kafka: semantics: unknown value "TWICE"`},
		{"sink", "bootstrap.servers = b\ntopic = t\npartition_key_fields = [nope]", `sink[0] Kafka: partition_key_fields: table in has no field "nope"`},
		{"sink", "bootstrap.servers = b\ntopic = \"t_${nope}\"", `sink[0] Kafka: topic: table in has no field "nope"`},
		{"sink", "bootstrap.servers = b\ntopic = t\npartition = 1\nassign_partitions = [a]", "sink[0] Kafka: assign_partitions: set either partition or assign_partitions"},
	} {
		o := conntest.Options(t, tc.src, tc.kind+"[0] Kafka")
		var err error
		if tc.kind == "source" {
			f, _, _ := connector.LookupSource("Kafka")
			_, err = f(&connector.SourceContext{Context: context.Background(), Options: o, Job: connector.Job{Mode: connector.Batch}, Parallelism: 1})
		} else {
			f, _, _ := connector.LookupSink("Kafka")
			_, err = f(&connector.SinkContext{Context: context.Background(), Options: o, Inputs: []*catalog.Table{sinkTable()}})
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s %q:\n  error %v\n  want  %s...", tc.kind, tc.src, err, tc.want)
		}
	}
}
