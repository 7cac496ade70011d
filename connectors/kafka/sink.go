package kafka

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// defaultTransactionTimeout is how long a broker keeps a transaction open before it aborts
// it on its own: long enough for a checkpoint interval and its commit, within a broker's
// default transaction.max.timeout.ms (15 minutes).
const defaultTransactionTimeout = 10 * time.Minute

// Sink is a configured Kafka sink.
type Sink struct {
	job       connector.Job
	where     string
	bootstrap string
	client    *clientConfig
	semantics string
	prefix    string // of the transactional ids: prefix-job-sink
	txTimeout time.Duration

	topic     topicTemplate
	partition *int32
	assign    []string
	tables    map[string]*tableCodec
	first     *tableCodec
}

// tableCodec writes the rows of one input table.
type tableCodec struct {
	value   encoder
	key     encoder // of the key fields; nil without partition_key_fields
	rowKey  encoder // of the whole row (compatible_debezium_json's key field)
	keyIdx  []int
	topic   []topicPart
	keyBuf  []row.Value
	scratch []byte
}

// topicTemplate is the topic option: text with ${field} placeholders.
type topicTemplate struct {
	text   string
	fields []string
}

// topicPart is a piece of the topic: literal text, or the field at index.
type topicPart struct {
	text  string
	field int // -1 for text
}

var placeholder = regexp.MustCompile(`\$\{(.*?)\}`)

// NewSink builds a Kafka sink from its options.
func NewSink(ctx *connector.SinkContext, c *SinkConfig) (connector.Sink, error) {
	cc, err := parseClientConfig(c.Bootstrap, c.KafkaConfig, true)
	if err != nil {
		return nil, ctx.Options.Errorf("kafka.config", "%v", err)
	}
	s := &Sink{job: ctx.Job, where: ctx.Options.Where(), bootstrap: c.Bootstrap, client: cc, semantics: c.Semantics,
		partition: c.Partition, assign: c.AssignPartitions, tables: map[string]*tableCodec{}, txTimeout: defaultTransactionTimeout}
	if t, ok := c.KafkaConfig["transaction.timeout.ms"]; ok {
		if d, err := millis(strings.TrimSpace(t)); err == nil && d > 0 {
			s.txTimeout = d
		}
	}
	if c.Partition != nil && *c.Partition < 0 {
		return nil, ctx.Options.Errorf("partition", "must not be negative, got %d", *c.Partition)
	}
	if c.Partition != nil && len(c.AssignPartitions) > 0 {
		return nil, ctx.Options.Errorf("assign_partitions", "set either partition or assign_partitions, not both")
	}
	if c.Format == formatText && c.FieldDelimiter == "" {
		return nil, ctx.Options.Errorf("field_delimiter", "must not be empty")
	}
	s.topic = topicTemplate{text: c.Topic}
	for _, m := range placeholder.FindAllStringSubmatch(c.Topic, -1) {
		s.topic.fields = append(s.topic.fields, m[1])
	}
	s.prefix = transactionPrefix(c.TransactionPrefix, ctx.Job.ID, s.where)
	inputs := ctx.Inputs
	if len(inputs) == 0 {
		return nil, fmt.Errorf("%s: no input table", s.where)
	}
	for _, t := range inputs {
		tc, err := s.codec(ctx, c, t)
		if err != nil {
			return nil, err
		}
		s.tables[t.ID()] = tc
		if s.first == nil {
			s.first = tc
		}
	}
	return s, nil
}

// transactionPrefix names a sink's transactions: the prefix (Strait's own by default), the
// job id and the sink's place in the job, so two sinks or two jobs never share an id.
func transactionPrefix(prefix string, job int64, where string) string {
	if prefix == "" {
		prefix = "strait"
	}
	var b strings.Builder
	for _, r := range where {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return fmt.Sprintf("%s-%d-%s", prefix, job, b.String())
}

func (s *Sink) codec(ctx *connector.SinkContext, c *SinkConfig, t *catalog.Table) (*tableCodec, error) {
	rt := t.RowType()
	if c.Format == formatCompatibleDebezium {
		return compatibleCodec(ctx, t)
	}
	var value encoder
	var err error
	if c.Format == formatProtobuf {
		if value, err = newProtoCodec(c.ProtobufSchema, c.ProtobufMessage, rt); err != nil {
			key, msg := optionOf(err)
			return nil, ctx.Options.Errorf(key, "table %s: %s", t.ID(), msg)
		}
	} else if value, err = newEncoder(c.Format, c.FieldDelimiter, rt); err != nil {
		return nil, ctx.Options.Errorf("format", "table %s: %v", t.ID(), err)
	}
	tc := &tableCodec{value: value}
	if len(c.PartitionKeyFields) > 0 {
		if err := tc.keyCodec(ctx, c, t); err != nil {
			return nil, err
		}
	}
	if tc.topic, err = s.topicParts(rt); err != nil {
		return nil, ctx.Options.Errorf("topic", "table %s %v", t.ID(), err)
	}
	return tc, nil
}

// keyCodec makes the encoder of partition_key_fields, in the sink's format.
func (tc *tableCodec) keyCodec(ctx *connector.SinkContext, c *SinkConfig, t *catalog.Table) error {
	rt := t.RowType()
	krt := &types.RowType{}
	for _, f := range c.PartitionKeyFields {
		i := rt.Index(f)
		if i < 0 {
			return ctx.Options.Errorf("partition_key_fields", "table %s has no field %q", t.ID(), f)
		}
		tc.keyIdx = append(tc.keyIdx, i)
		krt.Names = append(krt.Names, f)
		krt.Types = append(krt.Types, rt.Types[i])
	}
	var err error
	if c.Format == formatProtobuf {
		// the key is a message of the same type holding the key fields, as SeaTunnel writes it
		tc.key, err = newProtoCodec(c.ProtobufSchema, c.ProtobufMessage, krt)
	} else {
		tc.key, err = newEncoder(c.Format, c.FieldDelimiter, krt)
	}
	if err != nil {
		return ctx.Options.Errorf("format", "table %s: key: %v", t.ID(), err)
	}
	tc.keyBuf = make([]row.Value, len(tc.keyIdx))
	return nil
}

// compatibleCodec writes compatible_debezium_json: the row's value and key fields as they
// are, to the topic its topic field names (SeaTunnel ignores the topic option then).
func compatibleCodec(ctx *connector.SinkContext, t *catalog.Table) (*tableCodec, error) {
	idx, err := compatibleFields(t.RowType())
	if err != nil {
		return nil, ctx.Options.Errorf("format", "table %s: %v", t.ID(), err)
	}
	return &tableCodec{
		value:  &fieldEncoder{index: idx[2], name: "value"},
		rowKey: &fieldEncoder{index: idx[1], name: "key", key: true},
		topic:  []topicPart{{field: idx[0]}},
	}, nil
}

// topicParts splits the topic option into text and the fields of its placeholders.
func (s *Sink) topicParts(rt *types.RowType) ([]topicPart, error) {
	var parts []topicPart
	pos := 0
	for _, m := range placeholder.FindAllStringSubmatchIndex(s.topic.text, -1) {
		if m[0] > pos {
			parts = append(parts, topicPart{text: s.topic.text[pos:m[0]], field: -1})
		}
		name := s.topic.text[m[2]:m[3]]
		fi := rt.Index(name)
		if fi < 0 {
			return nil, fmt.Errorf("has no field %q for ${%s}", name, name)
		}
		parts = append(parts, topicPart{field: fi})
		pos = m[1]
	}
	if pos < len(s.topic.text) {
		parts = append(parts, topicPart{text: s.topic.text[pos:], field: -1})
	}
	return parts, nil
}

// codecOf returns the codec of a row's table.
func (s *Sink) codecOf(table string) *tableCodec {
	if tc, ok := s.tables[table]; ok {
		return tc
	}
	return s.first
}

// record fills rec from r: topic, key, value and, when fixed, partition.
func (s *Sink) record(tc *tableCodec, r *row.Row, rec *kgo.Record) error {
	topic, err := tc.topicOf(r)
	if err != nil {
		return err
	}
	rec.Topic = topic
	if rec.Value, err = tc.value.encode(rec.Value[:0], r.Kind, r.Fields); err != nil {
		return err
	}
	switch {
	case tc.key != nil:
		for i, k := range tc.keyIdx {
			tc.keyBuf[i] = r.Fields[k]
		}
		if rec.Key, err = tc.key.encode(rec.Key[:0], row.Insert, tc.keyBuf); err != nil {
			return fmt.Errorf("key: %w", err)
		}
	case tc.rowKey != nil:
		if rec.Key, err = tc.rowKey.encode(rec.Key[:0], r.Kind, r.Fields); err == errNoKey {
			rec.Key = nil
		} else if err != nil {
			return err
		}
	}
	if s.partition != nil {
		rec.Partition = *s.partition
	}
	return nil
}

func (tc *tableCodec) topicOf(r *row.Row) (string, error) {
	if len(tc.topic) == 1 && tc.topic[0].field < 0 {
		return tc.topic[0].text, nil
	}
	b := tc.scratch[:0]
	for _, p := range tc.topic {
		if p.field < 0 {
			b = append(b, p.text...)
			continue
		}
		v := r.Fields[p.field]
		if v.IsNull() {
			return "", fmt.Errorf("the topic's field %d is null", p.field)
		}
		b = row.AppendText(b, v)
	}
	tc.scratch = b
	return string(b), nil
}

// partitioner is the records' partitioner: fixed, by assign_partitions, or Kafka's default
// (murmur2 of the key, sticky for records without one).
func (s *Sink) partitioner() kgo.Partitioner {
	switch {
	case s.partition != nil:
		return kgo.ManualPartitioner()
	case len(s.assign) > 0:
		return assignPartitioner{assign: s.assign}
	}
	return kgo.StickyKeyPartitioner(nil)
}

// assignPartitioner sends a record whose value contains the i-th text to partition i and
// the others by the Java hash of the value over the partitions after those, as SeaTunnel's
// MessageContentPartitioner does.
type assignPartitioner struct{ assign []string }

func (p assignPartitioner) ForTopic(string) kgo.TopicPartitioner { return p }

func (p assignPartitioner) RequiresConsistency(*kgo.Record) bool { return true }

func (p assignPartitioner) Partition(r *kgo.Record, n int) int {
	msg := string(r.Value)
	for i, a := range p.assign {
		if strings.Contains(msg, a) && i < n {
			return i
		}
	}
	rest := n - len(p.assign)
	if rest <= 0 {
		return n - 1
	}
	return int(javaHash(msg)&0x7fffffff)%rest + len(p.assign)
}

// javaHash is Java's String.hashCode, over UTF-16 code units.
func javaHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			h = 31*h + int32(r1)
			h = 31*h + int32(r2)
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// CreateWriter makes the writer of one subtask; states are its snapshots when restoring.
func (s *Sink) CreateWriter(ctx connector.WriterContext, states [][]byte) (connector.Writer, error) {
	if s.semantics == semanticsExactlyOnce {
		return newTxnWriter(s, ctx, states)
	}
	return newPlainWriter(s)
}

// CreateCommitter returns the committer of EXACTLY_ONCE transactions; the other semantics
// have nothing to commit.
func (s *Sink) CreateCommitter() (connector.Committer, error) {
	if s.semantics != semanticsExactlyOnce {
		return nil, nil
	}
	return &committer{sink: s}, nil
}

// records are the sink's records, reused with their key and value buffers once the client
// has finished with them, so a row costs no allocation of its own.
var records = sync.Pool{New: func() any { return &kgo.Record{} }}

// newRecord returns an empty record to fill.
func (s *Sink) newRecord() *kgo.Record { return records.Get().(*kgo.Record) }

// recycle takes back a record the client is done with (its promise ran).
func (s *Sink) recycle(r *kgo.Record) {
	*r = kgo.Record{Key: r.Key[:0], Value: r.Value[:0]}
	records.Put(r)
}
