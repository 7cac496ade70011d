package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connector/multitable"
	"github.com/strait-dev/strait/connectors/internal/fieldtemplate"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func init() {
	multitable.RegisterSink("Redis", "Writes rows to Redis (a server or a Redis Cluster) as SeaTunnel does: each row's value set as a key, "+
		"its fields in a hash, or pushed to a list, set or sorted set; the key may name fields, writes go in pipelines of batch_size rows.", NewSink)
}

// SinkConfig is the Redis sink's options, SeaTunnel's.
type SinkConfig struct {
	ConnOptions
	Key              string `opt:"key,required" doc:"the key written: a field's name uses that field's value, anything else is the key as written; with support_custom_key, ${field} (or {field}) placeholders are replaced by fields' values (user:${id})"`
	DataType         string `opt:"data_type,required" enum:"key,string,hash,list,set,zset" doc:"key (or string): SET the key to the row's value, the last row wins; hash: HSET the row's fields (or hash_key_field -> hash_value_field); list: LPUSH the value; set: SADD it; zset: ZADD it with score 1"`
	BatchSize        int    `opt:"batch_size" default:"10" doc:"rows sent in one pipeline; a checkpoint sends what is buffered"`
	Format           string `opt:"format" default:"json" enum:"json,text" doc:"the value written: json, an object of the row's fields by name; text, the fields' text joined by field_delimiter"`
	FieldDelimiter   string `opt:"field_delimiter" default:"," doc:"what joins the fields in format text"`
	Expire           int64  `opt:"expire" default:"-1" doc:"seconds each written key lives; 0 or less keeps it for ever"`
	SupportCustomKey bool   `opt:"support_custom_key" default:"false" doc:"replace ${field} and {field} placeholders in key by the row's field values"`
	ValueField       string `opt:"value_field" doc:"the field whose value is written instead of the whole row (key, string, list, set, zset); a name that is no field is written as it is"`
	HashKeyField     string `opt:"hash_key_field" doc:"data_type hash: the field whose value is the hash field written (a name that is no field is written as it is)"`
	HashValueField   string `opt:"hash_value_field" doc:"data_type hash: the field whose value is the hash value written; without it the whole row"`
}

// Sink writes one table's rows to Redis.
type Sink struct {
	cfg   *SinkConfig
	where string
	rt    *types.RowType
	key   fieldtemplate.Template
	value int // the value_field's index, -1 when not a field
	hashK int // hash_key_field's index, -1 when not a field
	hashV int // hash_value_field's index, -1 when not a field
}

// NewSink checks the options of one table's sink.
func NewSink(ctx *connector.SinkContext, c *SinkConfig) (connector.Sink, error) {
	o := ctx.Options
	if len(ctx.Inputs) != 1 {
		return nil, o.Errorf("", "receives %d tables; it writes one per sink", len(ctx.Inputs))
	}
	if err := c.check(o); err != nil {
		return nil, err
	}
	if strings.TrimSpace(c.Key) == "" {
		return nil, o.Errorf("key", "option is required")
	}
	if err := checkValues(o, c.BatchSize, c.Format, c.FieldDelimiter); err != nil {
		return nil, err
	}
	if c.HashValueField != "" && c.HashKeyField == "" {
		return nil, o.Errorf("hash_key_field", "is required with hash_value_field")
	}
	if (c.HashKeyField != "" || c.HashValueField != "") && c.DataType != typeHash {
		return nil, o.Errorf("hash_key_field", "applies to data_type hash only, not %s", c.DataType)
	}
	rt := ctx.Inputs[0].RowType()
	s := &Sink{cfg: c, where: o.Where(), rt: rt, value: -1, hashK: -1, hashV: -1}
	s.key = parseKey(c.Key, c.SupportCustomKey, rt)
	if !c.SupportCustomKey && strings.Contains(c.Key, "${") {
		slog.Warn("Redis sink: key has a ${...} placeholder but support_custom_key is false: the key is written as it is",
			"plugin", s.where, "key", c.Key)
	}
	if c.ValueField != "" {
		s.value = rt.Index(c.ValueField)
	}
	if c.HashKeyField != "" {
		s.hashK = rt.Index(c.HashKeyField)
	}
	if c.HashValueField != "" {
		s.hashV = rt.Index(c.HashValueField)
	}
	return s, nil
}

// parseKey reads the key option. Without custom keys, a key that is a field's name is that
// field's value; with them, ${field} and {field} placeholders of fields are replaced (others
// stay as written).
func parseKey(s string, custom bool, rt *types.RowType) fieldtemplate.Template {
	if custom {
		return fieldtemplate.Parse(s, rt, true)
	}
	if i := rt.Index(s); i >= 0 {
		return fieldtemplate.Field(i, s)
	}
	return fieldtemplate.Literal(s)
}

// CreateWriter makes the writer of one subtask.
func (s *Sink) CreateWriter(connector.WriterContext, [][]byte) (connector.Writer, error) {
	return &writer{s: s, client: s.cfg.client()}, nil
}

// CreateCommitter returns nil: rows are written at each checkpoint at the latest.
func (s *Sink) CreateCommitter() (connector.Committer, error) { return nil, nil }

// op is one buffered write: its key, hash field and value.
type op struct {
	key, field, value string
}

// writer buffers a subtask's writes and sends them in one pipeline every batch_size rows and
// at each checkpoint. A checkpoint completes only once the server has taken what it covers,
// so nothing is lost; rows replayed after a failure are written again (at least once).
type writer struct {
	s      *Sink
	client goredis.UniversalClient
	ops    []op
	buf    []byte
}

func (w *writer) Write(ctx context.Context, b *row.Batch) error {
	for i := range b.Rows {
		if err := w.add(b.Rows[i].Fields); err != nil {
			return err
		}
		if len(w.ops) >= w.s.cfg.BatchSize {
			if err := w.flush(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// add buffers a row's write. Every row kind is written, as SeaTunnel's sink does.
func (w *writer) add(fields []row.Value) error {
	s := w.s
	var null string
	if w.buf, null = s.key.Append(w.buf[:0], fields); null != "" {
		return connector.Permanent(fmt.Errorf("%s: option key %q: field %s of the key is null", s.where, s.cfg.Key, null))
	}
	o := op{key: string(w.buf)}
	switch {
	case s.cfg.DataType == typeHash && s.cfg.HashKeyField != "":
		o.field = w.fieldOr(fields, s.hashK, s.cfg.HashKeyField)
		if s.cfg.HashValueField != "" {
			o.value = w.fieldOr(fields, s.hashV, s.cfg.HashValueField)
		} else {
			o.value = string(w.encode(fields))
		}
		w.ops = append(w.ops, o)
		return nil
	case s.cfg.DataType == typeHash:
		// the row's fields, each its own hash field; nulls are left out
		for i, name := range s.rt.Names {
			v := fields[i]
			if v.IsNull() {
				continue
			}
			w.ops = append(w.ops, op{key: o.key, field: name, value: fieldText(v, s.rt.Types[i])})
		}
		return nil
	case s.cfg.ValueField != "" && s.value < 0:
		o.value = s.cfg.ValueField // not a field: written as it is
	case s.cfg.ValueField != "" && !fields[s.value].IsNull():
		o.value = fieldText(fields[s.value], s.rt.Types[s.value])
	default:
		o.value = string(w.encode(fields))
	}
	w.ops = append(w.ops, o)
	return nil
}

// fieldOr is a field's text, or name itself when it names no field.
func (w *writer) fieldOr(fields []row.Value, i int, name string) string {
	if i < 0 {
		return name
	}
	if fields[i].IsNull() {
		return ""
	}
	return fieldText(fields[i], w.s.rt.Types[i])
}

// encode is a row's value in the format.
func (w *writer) encode(fields []row.Value) []byte {
	if w.s.cfg.Format == "text" {
		return appendTextRow(w.buf[:0], fields, w.s.cfg.FieldDelimiter)
	}
	return row.AppendJSONObject(w.buf[:0], fields, w.s.rt)
}

// fieldText is a field's value as text: strings as they are, dates and times in ISO form,
// bytes in base64, nested values as JSON (as SeaTunnel's json values read back as text).
func fieldText(v row.Value, t types.DataType) string {
	switch v.T {
	case types.String:
		return v.S
	case types.Boolean, types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Float, types.Double, types.Decimal:
		return string(row.AppendText(nil, v))
	}
	b := row.AppendJSONAs(nil, v, t)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) == nil {
			return s
		}
	}
	return string(b)
}

// flush sends the buffered writes in one pipeline: consecutive writes to one key go in one
// command, then each key written gets its time to live.
func (w *writer) flush(ctx context.Context) error {
	if len(w.ops) == 0 {
		return nil
	}
	s := w.s
	expire := s.cfg.Expire
	type sent struct {
		cmd goredis.Cmder
		key string
	}
	cmds := make([]sent, 0, len(w.ops))
	// the keys of a collection type get their time to live after their writes, once each
	keyTTL := expire > 0 && s.cfg.DataType != typeKey && s.cfg.DataType != typeString
	var keys map[string]bool
	if keyTTL {
		keys = map[string]bool{}
	}
	var order []string
	p := w.client.Pipeline()
	for i := 0; i < len(w.ops); {
		o := w.ops[i]
		j := i + 1
		for j < len(w.ops) && w.ops[j].key == o.key && s.cfg.DataType != typeKey && s.cfg.DataType != typeString {
			j++
		}
		run := w.ops[i:j]
		var c goredis.Cmder
		switch s.cfg.DataType {
		case typeKey, typeString:
			if expire > 0 {
				c = p.SetArgs(ctx, o.key, o.value, goredis.SetArgs{TTL: secs(expire)})
			} else {
				c = p.Set(ctx, o.key, o.value, 0)
			}
		case typeHash:
			args := make([]any, 0, 2*len(run))
			for _, r := range run {
				args = append(args, r.field, r.value)
			}
			c = p.HSet(ctx, o.key, args...)
		case typeList:
			c = p.LPush(ctx, o.key, values(run)...)
		case typeSet:
			c = p.SAdd(ctx, o.key, values(run)...)
		case typeZSet:
			zs := make([]goredis.Z, len(run))
			for k, r := range run {
				zs[k] = goredis.Z{Score: 1, Member: r.value}
			}
			c = p.ZAdd(ctx, o.key, zs...)
		}
		cmds = append(cmds, sent{c, o.key})
		if keyTTL && !keys[o.key] {
			keys[o.key] = true
			order = append(order, o.key)
		}
		i = j
	}
	if keyTTL {
		for _, k := range order {
			cmds = append(cmds, sent{p.Expire(ctx, k, secs(expire)), k})
		}
	}
	_, err := p.Exec(ctx)
	if err != nil {
		for _, c := range cmds {
			if e := c.cmd.Err(); e != nil {
				err = fmt.Errorf("%s of key %q (data_type %s): %w", strings.ToUpper(c.cmd.Name()), c.key, s.cfg.DataType, e)
				if isRefusal(e) {
					err = connector.Permanent(err)
				}
				break
			}
		}
		return fmt.Errorf("%s: %s: %w", s.where, s.cfg.where(), err)
	}
	w.ops = w.ops[:0]
	return nil
}

func secs(n int64) time.Duration { return time.Duration(n) * time.Second }

func values(run []op) []any {
	out := make([]any, len(run))
	for i, r := range run {
		out[i] = r.value
	}
	return out
}

// isRefusal is an error the server answered (a key of another type, a refused login):
// trying again does not help. Connection failures are not.
func isRefusal(err error) bool {
	var re goredis.Error
	if errors.As(err, &re) {
		msg := re.Error()
		return strings.HasPrefix(msg, "WRONGTYPE") || strings.HasPrefix(msg, "ERR") || strings.HasPrefix(msg, "NOAUTH") ||
			strings.HasPrefix(msg, "WRONGPASS") || strings.HasPrefix(msg, "NOPERM")
	}
	return false
}

// PrepareCommit sends what is buffered: the checkpoint completes once the server has it.
func (w *writer) PrepareCommit(ctx context.Context, _ int64) ([]byte, error) {
	return nil, w.flush(ctx)
}

func (w *writer) SnapshotState(int64) ([]byte, error) { return nil, nil }

func (w *writer) Close(context.Context) error { return w.client.Close() }

// appendTextRow appends a row in the text format: each field's text (nothing for null,
// timestamps as yyyy-MM-dd HH:mm:ss, bytes as they are) joined by the delimiter.
func appendTextRow(buf []byte, fields []row.Value, delim string) []byte {
	for i, v := range fields {
		if i > 0 {
			buf = append(buf, delim...)
		}
		switch v.T {
		case types.Null:
		case types.Bytes:
			buf = append(buf, v.S...)
		case types.Timestamp:
			start := len(buf)
			buf = row.AppendTimestamp(buf, v.I)
			if k := start + 10; k < len(buf) && buf[k] == 'T' {
				buf[k] = ' '
			}
		default:
			buf = row.AppendText(buf, v)
		}
	}
	return buf
}
