package kafka

import (
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
)

// The record formats, as SeaTunnel names them.
const (
	formatJSON               = "json"
	formatText               = "text"
	formatKafkaConnect       = "compatible_kafka_connect_json"
	formatCompatibleDebezium = "compatible_debezium_json"
)

// TopicConfig is what SeaTunnel reads per topic: the options of the source's block, or of
// one entry of tables_configs.
type TopicConfig struct {
	Topic          string            `opt:"topic" doc:"the topic to read; several separated by commas; a regular expression with pattern = true"`
	Pattern        bool              `opt:"pattern" default:"false" doc:"topic is a regular expression: every topic whose name matches it is read"`
	Schema         *hocon.Value      `opt:"schema" doc:"the fields of a record; without it, each record is one string column named content"`
	Format         string            `opt:"format" default:"json" enum:"json,text,canal_json,debezium_json,compatible_debezium_json,compatible_kafka_connect_json,maxwell_json,ogg_json,avro,protobuf" doc:"how record values are read: json (an object per row, or an array of them), text (fields split at field_delimiter), avro (a binary record of the schema, as SeaTunnel derives it), compatible_kafka_connect_json (the payload of Kafka Connect's JSON records), or the change records of canal_json, debezium_json, maxwell_json and ogg_json (inserts, updates as before and after rows, deletes; debezium_json reads Debezium's numeric forms as SeaTunnel does: dates as epoch days, timestamps as epoch milliseconds, times as microseconds of the day, decimals as the base64 bytes of their unscaled value, or in the unit the record's schema names, io.debezium.time.MicroTimestamp say), or protobuf (a message of protobuf_message_name, declared in protobuf_schema)"`
	FieldDelimiter string            `opt:"field_delimiter" default:"," doc:"the separator of text fields"`
	StartMode      *hocon.Value      `opt:"start_mode" default:"group_offsets" doc:"where reading starts: earliest, latest, group_offsets (the consumer group's committed offsets; where it has none, kafka.config's auto.offset.reset, latest by default), specific_offsets (start_mode.offsets) or timestamp (start_mode.timestamp)"`
	StartOffsets   map[string]string `opt:"start_mode.offsets" doc:"for specific_offsets: the offset to start at per partition, written topic-partition = offset"`
	StartTimestamp *int64            `opt:"start_mode.timestamp" doc:"for timestamp: the epoch milliseconds; reading starts at the first record written at or after it"`
	KeySchema      bool              `opt:"key_converter_schema_enabled,noeffect" default:"true" doc:"for compatible_kafka_connect_json, whether keys carry Kafka Connect's schema; keys are not read"`
	// ValueSchemaEnabled: compatible_kafka_connect_json values are {"schema":...,"payload":...}
	ValueSchemaEnabled bool            `opt:"value_converter_schema_enabled" default:"true" doc:"for compatible_kafka_connect_json: the values carry Kafka Connect's schema, {\"schema\": ..., \"payload\": ...}; false reads values holding only a payload field"`
	ProtobufMessage    string          `opt:"protobuf_message_name" doc:"for protobuf: the message each record is, a top-level message of protobuf_schema (or its full name)"`
	ProtobufSchema     string          `opt:"protobuf_schema" doc:"for protobuf: the .proto text (proto2 or proto3) declaring the message; the schema's fields are the message's by name (a field's name in lower case matches too), nested rows its message fields, arrays its repeated ones, maps its maps"`
	At                 *config.Options `opt:"."`
}

// SourceConfig is the Kafka source's options.
type SourceConfig struct {
	TopicConfig
	Tables             []TopicConfig     `opt:"tables_configs" fallback:"table_list" doc:"several topics at once, each with its own topic, schema, format and start_mode; instead of topic"`
	Bootstrap          string            `opt:"bootstrap.servers,required" doc:"the brokers to connect to first, host:port separated by commas"`
	Group              string            `opt:"consumer.group" default:"SeaTunnel-Consumer-Group" doc:"the consumer group whose offsets group_offsets starts from and that checkpoints commit to"`
	CommitOnCheckpoint bool              `opt:"commit_on_checkpoint" default:"true" doc:"commit the offsets read to the consumer group when a checkpoint completes (in BATCH mode, once everything is read)"`
	KafkaConfig        map[string]string `opt:"kafka.config" doc:"Kafka consumer settings (client.id, isolation.level, fetch.max.bytes, max.poll.records, auto.offset.reset, security.protocol ...); those without a meaning here are logged and ignored"`
	DiscoveryMillis    int64             `opt:"partition-discovery.interval-millis" default:"-1" doc:"in STREAMING mode, how often to look for new partitions and topics (matching the pattern), in milliseconds; -1 never"`
	PollTimeoutMillis  int64             `opt:"poll.timeout,noeffect" default:"10000" doc:"accepted for SeaTunnel's configs; a read here waits at most 100 milliseconds for records, so checkpoints are never held up"`
	ErrorHandleWay     string            `opt:"format_error_handle_way" default:"fail" enum:"fail,skip" doc:"a record that does not parse: fail fails the job naming its topic, partition and offset; skip logs it and goes on"`
	DebeziumSchema     bool              `opt:"debezium_record_include_schema,noeffect" default:"true" doc:"for debezium_json, whether records carry Kafka Connect's schema and payload wrapper; accepted for SeaTunnel's configs, the wrapper is recognised either way"`
}

// Semantics are the sink's delivery guarantees.
const (
	semanticsNone        = "NON"
	semanticsAtLeastOnce = "AT_LEAST_ONCE"
	semanticsExactlyOnce = "EXACTLY_ONCE"
)

// SinkConfig is the Kafka sink's options.
type SinkConfig struct {
	Bootstrap          string            `opt:"bootstrap.servers,required" doc:"the brokers to connect to first, host:port separated by commas"`
	Topic              string            `opt:"topic,required" doc:"the topic to write to; ${field} takes it from a field of each row"`
	PartitionKeyFields []string          `opt:"partition_key_fields" doc:"the fields that make a record's key, written in the sink's format; records with equal keys go to the same partition"`
	Partition          *int32            `opt:"partition" doc:"write every record to this partition"`
	AssignPartitions   []string          `opt:"assign_partitions" doc:"a record whose value contains the i-th text goes to partition i; the others are spread over the remaining partitions by a hash of the value"`
	TransactionPrefix  string            `opt:"transaction_prefix" doc:"for EXACTLY_ONCE, the start of the transactional ids; the job id, sink, subtask and attempt follow it, so ids never collide"`
	Format             string            `opt:"format" default:"json" enum:"json,text,canal_json,debezium_json,compatible_debezium_json,compatible_kafka_connect_json,maxwell_json,ogg_json,avro,protobuf" doc:"how rows are written: json (an object per row), text (fields joined with field_delimiter), avro (a binary record per row), canal_json, debezium_json, maxwell_json or ogg_json (a change record per row, an INSERT or a DELETE by its kind), compatible_debezium_json (the value, key and topic fields of Debezium's records, as they are), or protobuf (a message of protobuf_message_name, declared in protobuf_schema)"`
	FieldDelimiter     string            `opt:"field_delimiter" default:"," doc:"the separator of text fields"`
	Semantics          string            `opt:"semantics" default:"NON" enum:"NON,AT_LEAST_ONCE,EXACTLY_ONCE" doc:"NON sends without waiting; AT_LEAST_ONCE waits at each checkpoint until every record is acknowledged; EXACTLY_ONCE writes each checkpoint's records in a Kafka transaction committed when the checkpoint completes"`
	KafkaConfig        map[string]string `opt:"kafka.config" doc:"Kafka producer settings (client.id, acks, compression.type, linger.ms, batch.size, max.request.size, transaction.timeout.ms ...); those without a meaning here are logged and ignored"`
	ProtobufMessage    string            `opt:"protobuf_message_name" doc:"for protobuf: the message each record is written as, a top-level message of protobuf_schema (or its full name)"`
	ProtobufSchema     string            `opt:"protobuf_schema" doc:"for protobuf: the .proto text (proto2 or proto3) declaring the message; a row field is written to the message field of its name in lower case, a field the message lacks is not written"`
	At                 *config.Options   `opt:"."`
}
