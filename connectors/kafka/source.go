package kafka

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/sourcekit"
	"github.com/strait-dev/strait/types"
)

func init() {
	connector.RegisterSource("Kafka", "Reads records of Kafka topics (one, a list, a pattern, or several with tables_configs) as rows, "+
		"in the json, text, avro, protobuf, Kafka Connect or change-record formats; one split per topic partition whose offset is the checkpointed state, offsets committed to the "+
		"consumer group when a checkpoint completes. BATCH jobs read to the end offsets seen at start; STREAMING jobs run until cancelled.", NewSource)
	connector.RegisterSink("Kafka", "Writes rows as Kafka records, in the json, text, avro, protobuf or change-record formats, to a topic (taken from a field with ${field}), "+
		"keyed by partition_key_fields or sent to fixed partitions; EXACTLY_ONCE writes each checkpoint's records in a transaction "+
		"that is committed, by its producer id and epoch, when the checkpoint completes.", NewSink)
}

// topicSet is one topic configuration: the topics it reads and how their records become
// rows of its table.
type topicSet struct {
	topics    []string       // the names, when not a pattern
	pattern   *regexp.Regexp // the pattern, when one
	table     *catalog.Table
	raw       bool // no schema: the whole value is the content column
	format    string
	delimiter string
	start     startMode
	// connectSchema: compatible_kafka_connect_json values carry their schema
	connectSchema bool
	// protoSchema and protoMessage are the protobuf format's .proto text and message
	protoSchema, protoMessage string
}

type startMode struct {
	mode      string
	offsets   map[string]map[int32]int64 // specific_offsets
	timestamp int64                      // timestamp, epoch milliseconds
}

// matches reports whether the set reads topic.
func (s *topicSet) matches(topic string) bool {
	if s.pattern != nil {
		return s.pattern.MatchString(topic)
	}
	for _, t := range s.topics {
		if t == topic {
			return true
		}
	}
	return false
}

// Source is a configured Kafka source.
type Source struct {
	job       connector.Job
	where     string
	bootstrap string
	client    *clientConfig
	sets      []*topicSet
	group     string
	commit    bool
	discovery time.Duration // 0: no discovery
	skipBad   bool
}

// NewSource builds a Kafka source from its options.
func NewSource(ctx *connector.SourceContext, c *SourceConfig) (connector.Source, error) {
	cc, err := parseClientConfig(c.Bootstrap, c.KafkaConfig, false)
	if err != nil {
		return nil, ctx.Options.Errorf("kafka.config", "%v", err)
	}
	s := &Source{job: ctx.Job, where: ctx.Options.Where(), bootstrap: c.Bootstrap, client: cc, group: c.Group,
		commit: c.CommitOnCheckpoint, skipBad: c.ErrorHandleWay == "skip"}
	if c.Group == "" {
		return nil, ctx.Options.Errorf("consumer.group", "must not be empty")
	}
	if c.DiscoveryMillis > 0 && ctx.Job.Mode == connector.Streaming {
		s.discovery = time.Duration(c.DiscoveryMillis) * time.Millisecond
	}
	configs := c.Tables
	switch {
	case len(configs) > 0 && c.Topic != "":
		return nil, ctx.Options.Errorf("tables_configs", "set either topic or tables_configs, not both")
	case len(configs) == 0:
		if c.Topic == "" {
			return nil, ctx.Options.Errorf("topic", "option is required (or tables_configs)")
		}
		configs = []TopicConfig{c.TopicConfig}
	}
	for i := range configs {
		set, err := newTopicSet(&configs[i], ctx.OutputName)
		if err != nil {
			return nil, err
		}
		s.sets = append(s.sets, set)
	}
	return s, nil
}

func newTopicSet(tc *TopicConfig, output string) (*topicSet, error) {
	o := tc.At
	if strings.TrimSpace(tc.Topic) == "" {
		return nil, o.Errorf("topic", "option is required")
	}
	set := &topicSet{format: tc.Format, delimiter: tc.FieldDelimiter, connectSchema: tc.ValueSchemaEnabled,
		protoSchema: tc.ProtobufSchema, protoMessage: tc.ProtobufMessage}
	if tc.Pattern {
		re, err := regexp.Compile("^(?:" + tc.Topic + ")$")
		if err != nil {
			return nil, o.Errorf("topic", "not a regular expression: %v", err)
		}
		set.pattern = re
	} else {
		set.topics = splitList(tc.Topic)
	}
	table, err := topicTable(tc, output)
	if err != nil {
		return nil, err
	}
	set.table, set.raw = table, tc.Schema == nil
	if _, err := setDecoder(set); err != nil {
		key, msg := optionOf(err)
		if tc.Format == formatText {
			key = "field_delimiter"
		}
		return nil, o.Errorf(key, "%s", msg)
	}
	if set.start, err = parseStartMode(tc); err != nil {
		return nil, err
	}
	return set, nil
}

// topicTable is the table of a topic configuration: its schema, named after the topic (as
// SeaTunnel names it), or the single content column.
func topicTable(tc *TopicConfig, output string) (*catalog.Table, error) {
	path, err := catalog.ParsePath(tc.Topic, false)
	if err != nil {
		return nil, tc.At.Errorf("topic", "%v", err)
	}
	if tc.Schema == nil {
		return &catalog.Table{Path: path, Columns: []catalog.Column{{Name: "content", Type: types.Of(types.String), Nullable: true}}}, nil
	}
	t, err := catalog.ParseSchema(tc.At, "schema", tc.Topic)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// startModes are the values of start_mode.
var startModes = []string{"earliest", "group_offsets", "latest", "specific_offsets", "timestamp"}

// startModeOf reads start_mode. In HOCON `start_mode.offsets = {...}` after `start_mode =
// specific_offsets` makes start_mode an object holding offsets (SeaTunnel's own reader keeps
// both keys): the object's content then says the mode it came with.
func startModeOf(tc *TopicConfig) (string, error) {
	v := tc.StartMode
	switch {
	case v == nil || v.Kind == hocon.Null:
		return "group_offsets", nil
	case v.Kind == hocon.Object && v.Get("offsets") != nil:
		return "specific_offsets", nil
	case v.Kind == hocon.Object && v.Get("timestamp") != nil:
		return "timestamp", nil
	case v.Kind == hocon.String:
		for _, m := range startModes {
			if strings.EqualFold(strings.TrimSpace(v.Str), m) {
				return m, nil
			}
		}
	}
	return "", tc.At.Errorf("start_mode", "unknown value %s; expected one of %s", describeValue(v), strings.Join(startModes, ", "))
}

func describeValue(v *hocon.Value) string {
	if v.Kind == hocon.String {
		return strconv.Quote(v.Str)
	}
	return v.Kind.String()
}

func parseStartMode(tc *TopicConfig) (startMode, error) {
	o := tc.At
	mode, err := startModeOf(tc)
	if err != nil {
		return startMode{}, err
	}
	sm := startMode{mode: mode}
	switch mode {
	case "timestamp":
		if tc.StartTimestamp == nil {
			return sm, o.Errorf("start_mode.timestamp", "option is required with start_mode = timestamp")
		}
		ts := *tc.StartTimestamp
		if ts < 0 || ts > time.Now().UnixMilli() {
			return sm, o.Errorf("start_mode.timestamp", "must lie between 0 and now, got %d", ts)
		}
		sm.timestamp = ts
	case "specific_offsets":
		if len(tc.StartOffsets) == 0 {
			return sm, o.Errorf("start_mode.offsets", "option is required with start_mode = specific_offsets")
		}
		sm.offsets = map[string]map[int32]int64{}
		for key, val := range tc.StartOffsets {
			topic, part, off, err := parseSpecificOffset(key, val)
			if err != nil {
				return sm, o.Errorf("start_mode.offsets", "%s: %v", key, err)
			}
			if sm.offsets[topic] == nil {
				sm.offsets[topic] = map[int32]int64{}
			}
			sm.offsets[topic][part] = off
		}
	}
	return sm, nil
}

// parseSpecificOffset reads `topic-partition = offset`.
func parseSpecificOffset(key, val string) (string, int32, int64, error) {
	i := strings.LastIndexByte(key, '-')
	if i <= 0 {
		return "", 0, 0, fmt.Errorf("want topic-partition")
	}
	p, err := strconv.ParseInt(key[i+1:], 10, 32)
	if err != nil || p < 0 {
		return "", 0, 0, fmt.Errorf("want topic-partition, the partition a number")
	}
	off, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
	if err != nil || off < 0 {
		return "", 0, 0, fmt.Errorf("the offset must be a number, got %q", val)
	}
	return key[:i], int32(p), off, nil
}

// Boundedness: BATCH jobs read to the end offsets seen at start.
func (s *Source) Boundedness() connector.Boundedness { return sourcekit.Boundedness(s.job.Mode) }

// Tables are the tables of the topic configurations.
func (s *Source) Tables() []*catalog.Table {
	return sourcekit.Tables(s.sets, func(set *topicSet) *catalog.Table { return set.table })
}

// setOf returns the topic configuration that reads topic.
func (s *Source) setOf(topic string) (*topicSet, int) {
	for i, set := range s.sets {
		if set.matches(topic) {
			return set, i
		}
	}
	return nil, -1
}

// CreateEnumerator makes the enumerator that finds the partitions and hands them out.
func (s *Source) CreateEnumerator(ctx connector.EnumeratorContext, state []byte) (connector.Enumerator, error) {
	return newEnumerator(s, ctx, state)
}

// CreateReader makes the reader of one subtask.
func (s *Source) CreateReader(ctx connector.ReaderContext) (connector.Reader, error) {
	return newReader(s, ctx)
}
