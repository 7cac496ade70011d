package redis

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"sort"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/splitassign"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func init() {
	connector.RegisterSource("Redis", "Reads the keys of Redis (a server or every master of a Redis Cluster) that match a pattern once, as SeaTunnel does: "+
		"a row per string value, per list, set or sorted set element, per hash (or per hash field); the values as text, or read as json or text by a schema.", NewSource)
}

// SourceConfig is the Redis source's options, SeaTunnel's.
type SourceConfig struct {
	ConnOptions
	Keys             string       `opt:"keys" fallback:"key_pattern" doc:"the pattern of the keys read (SCAN MATCH: key_test*); the keys it matches must hold data_type"`
	DataType         string       `opt:"data_type,required" enum:"key,string,hash,list,set,zset" doc:"the type of the keys read: key (or string) a row per key, hash a row per hash (per field with hash_key_parse_mode kv), list, set and zset a row per element"`
	BatchSize        int          `opt:"batch_size" default:"10" doc:"keys asked for per SCAN step (its COUNT)"`
	Format           string       `opt:"format" default:"json" enum:"json,text" doc:"how a value is read into the schema's fields: json, an object of the fields by name; text, the fields joined by field_delimiter. Without a schema a value is one text column"`
	FieldDelimiter   string       `opt:"field_delimiter" default:"," doc:"what separates the fields in format text"`
	Schema           *hocon.Value `opt:"schema" doc:"the fields and types of the rows (SeaTunnel's schema); required when format is set"`
	HashKeyParseMode string       `opt:"hash_key_parse_mode" default:"all" enum:"all,kv" doc:"data_type hash with a schema: all reads a hash as one row, its fields by name; kv makes a row of each hash field, the schema's first field its name and the others read from its value"`
	ReadKeyEnabled   bool         `opt:"read_key_enabled" default:"false" doc:"add the Redis key to each row, in the field key_field_name"`
	KeyFieldName     string       `opt:"key_field_name" default:"key" doc:"the field that holds the key with read_key_enabled: the schema's field of that name, else a string field put first"`
	SingleFieldName  string       `opt:"single_field_name" doc:"the name of the value's field without a schema (default content)"`
}

// Source reads the matching keys of the server or of every master of the cluster.
type Source struct {
	cfg   *SourceConfig
	where string
	table *catalog.Table
	rt    *types.RowType
	// keyAt is the field of the Redis key (read_key_enabled), -1 without it; valueAt the first
	// field of the value, schema the fields the value is read into (nil: one text field)
	keyAt   int
	valueAt int
	schema  *types.RowType
}

// NewSource checks the options and makes the source's table.
func NewSource(ctx *connector.SourceContext, c *SourceConfig) (connector.Source, error) {
	o := ctx.Options
	if err := c.check(o); err != nil {
		return nil, err
	}
	if strings.TrimSpace(c.Keys) == "" {
		return nil, o.Errorf("keys", "option is required: the pattern of the keys read")
	}
	if err := checkValues(o, c.BatchSize, c.Format, c.FieldDelimiter); err != nil {
		return nil, err
	}
	if c.ReadKeyEnabled && strings.TrimSpace(c.KeyFieldName) == "" {
		return nil, o.Errorf("key_field_name", "must not be empty with read_key_enabled")
	}
	s := &Source{cfg: c, where: o.Where(), keyAt: -1}
	name := ctx.OutputName
	if name == "" {
		name = "default"
	}
	path, err := catalog.ParsePath(name, false)
	if err != nil {
		return nil, o.Errorf("plugin_output", "%v", err)
	}
	if c.Schema == nil {
		if o.Has("format") {
			return nil, o.Errorf("schema", "is required when format is set (the fields the values are read into)")
		}
		single := c.SingleFieldName
		if single == "" {
			single = "content"
		}
		t := &catalog.Table{Path: path}
		if c.ReadKeyEnabled {
			t.Columns = append(t.Columns, catalog.Column{Name: c.KeyFieldName, Type: types.Of(types.String), Nullable: true})
			s.keyAt = 0
		}
		s.valueAt = len(t.Columns)
		t.Columns = append(t.Columns, catalog.Column{Name: single, Type: types.Of(types.String), Nullable: true})
		s.table = t
	} else {
		t, err := catalog.ParseSchema(o, "schema", name)
		if err != nil {
			return nil, err
		}
		value := t.RowType()
		if c.ReadKeyEnabled {
			if i := value.Index(c.KeyFieldName); i >= 0 {
				s.keyAt = i
			} else {
				t.Columns = append([]catalog.Column{{Name: c.KeyFieldName, Type: types.Of(types.String), Nullable: true}}, t.Columns...)
				s.keyAt, s.valueAt = 0, 1
			}
		}
		s.table = t
		s.schema = value
		if c.DataType == typeHash && c.HashKeyParseMode == "kv" && value.Len() < 1 {
			return nil, o.Errorf("schema", "hash_key_parse_mode kv needs a first field for the hash field's name")
		}
	}
	s.rt = s.table.RowType()
	return s, nil
}

func (s *Source) Boundedness() connector.Boundedness { return connector.Bounded }

func (s *Source) Tables() []*catalog.Table { return []*catalog.Table{s.table} }

// splitState is a split: a server (a cluster's master) scanned from a cursor, and how many
// rows of the step begun at that cursor were emitted, which a restored read skips.
type splitState struct {
	Node    string `json:"node"`
	Cursor  uint64 `json:"cursor"`
	Emitted int64  `json:"emitted"`
}

func (st splitState) split() connector.Split {
	b, _ := json.Marshal(st)
	return connector.Split{ID: "node-" + st.Node, Data: b}
}

// CreateEnumerator hands each server to scan to a reader, in turn.
func (s *Source) CreateEnumerator(ctx connector.EnumeratorContext, state []byte) (connector.Enumerator, error) {
	st, err := splitassign.RestoreAs[enumState](state)
	if err != nil {
		return nil, fmt.Errorf("%s: enumerator state: %w", s.where, err)
	}
	return &enumerator{Static: splitassign.New(ctx, st.Assigned), src: s, nodes: st.Nodes}, nil
}

// enumState is the enumerator's snapshot: the servers scanned and the splits handed out.
type enumState struct {
	Nodes    []string `json:"nodes"`
	Assigned []string `json:"assigned"`
}

type enumerator struct {
	*splitassign.Static
	src   *Source
	nodes []string // the servers scanned: found once, kept in the snapshot
}

func (e *enumerator) Run(ctx context.Context) error {
	if e.nodes == nil {
		nodes, err := e.src.cfg.masters(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", e.src.where, err)
		}
		e.nodes = nodes
	}
	splits := make([]connector.Split, len(e.nodes))
	for i, n := range e.nodes {
		splits[i] = splitState{Node: n}.split()
	}
	e.Start(splits)
	return nil
}

func (e *enumerator) Snapshot(int64) ([]byte, error) {
	return json.Marshal(enumState{Nodes: e.nodes, Assigned: e.Assigned()})
}

// CreateReader makes the reader of one subtask.
func (s *Source) CreateReader(connector.ReaderContext) (connector.Reader, error) {
	valid := func(st *splitState) bool { return st.Node != "" }
	return &reader{Queue: splitassign.NewQueue(s.where, valid), src: s}, nil
}

// reader scans its servers one after the other, a SCAN step per poll: the step's keys'
// values are fetched in one pipeline and emitted as rows, up to a batch at a time.
type reader struct {
	splitassign.Queue[splitState]
	src  *Source
	cur  *scan
	conv literal.Converter
}

// scan is the read of one server under way.
type scan struct {
	st      splitState
	client  *goredis.Client
	next    uint64        // the cursor after the step whose rows are pending
	rows    [][]row.Value // the step's rows not emitted yet
	skip    int64         // rows of the first step to pass over (emitted before a restore)
	stepped bool          // a step was taken: next is known
	noType  bool          // the server has no SCAN TYPE (before Redis 6): keys' types are checked
	seen    keySet        // the keys read so far: SCAN returns a key again when the keyspace shrinks
}

// keySet remembers keys by a 128-bit hash, about 32 bytes a key however long the key.
type keySet struct {
	seeds [2]maphash.Seed
	m     map[[2]uint64]struct{}
}

// add reports whether key is new to the set, and remembers it.
func (s *keySet) add(key string) bool {
	if s.m == nil {
		s.seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
		s.m = make(map[[2]uint64]struct{})
	}
	h := [2]uint64{maphash.String(s.seeds[0], key), maphash.String(s.seeds[1], key)}
	if _, ok := s.m[h]; ok {
		return false
	}
	s.m[h] = struct{}{}
	return true
}

func (r *reader) Open(context.Context) error { return nil }

// PollNext emits pending rows, or takes the next SCAN step.
func (r *reader) PollNext(ctx context.Context, out *row.Batch) (bool, error) {
	c, ok, ended, err := splitassign.Current(&r.Queue, &r.cur, func(st splitState) *scan {
		c := &scan{st: st, client: r.src.cfg.nodeClient(st.Node), skip: st.Emitted}
		c.st.Emitted = 0
		return c
	})
	if !ok {
		return ended, err
	}
	if len(c.rows) == 0 {
		if c.stepped {
			if c.next == 0 {
				_ = c.client.Close()
				r.cur = nil
				return false, nil
			}
			c.st.Cursor, c.st.Emitted = c.next, 0
		}
		if err := r.step(ctx, c); err != nil {
			return false, fmt.Errorf("%s: %s, keys %q from cursor %d: %w", r.src.where, c.st.Node, r.src.cfg.Keys, c.st.Cursor, err)
		}
	}
	room := max(1, out.Cap()-out.Len())
	id := r.src.table.ID()
	n := min(room, len(c.rows))
	for _, fields := range c.rows[:n] {
		rw := out.Add(row.Insert, id, len(fields))
		copy(rw.Fields, fields)
	}
	c.rows = c.rows[n:]
	c.st.Emitted += int64(n)
	return false, nil
}

// scanType is the type SCAN filters the keys by.
func (r *reader) scanType() string {
	switch t := r.src.cfg.DataType; t {
	case typeKey:
		return typeString
	default:
		return t
	}
}

// step takes one SCAN step from the split's cursor and reads its keys' values into rows.
func (r *reader) step(ctx context.Context, c *scan) error {
	cfg := r.src.cfg
	var keys []string
	var next uint64
	var err error
	if !c.noType {
		keys, next, err = c.client.ScanType(ctx, c.st.Cursor, cfg.Keys, int64(cfg.BatchSize), r.scanType()).Result()
		var re goredis.Error
		if err != nil && errors.As(err, &re) && strings.Contains(strings.ToLower(re.Error()), "syntax") {
			c.noType = true
		} else if err != nil {
			return fmt.Errorf("SCAN: %w", err)
		}
	}
	if c.noType {
		if keys, next, err = c.client.Scan(ctx, c.st.Cursor, cfg.Keys, int64(cfg.BatchSize)).Result(); err != nil {
			return fmt.Errorf("SCAN: %w", err)
		}
		if keys, err = r.ofType(ctx, c, keys); err != nil {
			return err
		}
	}
	c.next, c.stepped = next, true
	c.rows = c.rows[:0]
	fresh := keys[:0]
	for _, k := range keys {
		if c.seen.add(k) {
			fresh = append(fresh, k)
		}
	}
	keys = fresh
	if len(keys) == 0 {
		return nil
	}
	p := c.client.Pipeline()
	cmds := make([]goredis.Cmder, len(keys))
	for i, k := range keys {
		switch cfg.DataType {
		case typeKey, typeString:
			cmds[i] = p.Get(ctx, k)
		case typeHash:
			cmds[i] = p.HGetAll(ctx, k)
		case typeList:
			cmds[i] = p.LRange(ctx, k, 0, -1)
		case typeSet:
			cmds[i] = p.SMembers(ctx, k)
		case typeZSet:
			cmds[i] = p.ZRange(ctx, k, 0, -1)
		}
	}
	if _, err := p.Exec(ctx); err != nil && !errors.Is(err, goredis.Nil) {
		for i, cmd := range cmds {
			if e := cmd.Err(); e != nil && !errors.Is(e, goredis.Nil) {
				return fmt.Errorf("%s of key %q (data_type %s): %w", strings.ToUpper(cmd.Name()), keys[i], cfg.DataType, e)
			}
		}
		return err
	}
	for i, k := range keys {
		var err error
		switch cmd := cmds[i].(type) {
		case *goredis.StringCmd:
			if cmd.Err() == nil { // a key gone since the scan has no value
				err = r.addValue(c, k, cmd.Val())
			}
		case *goredis.StringSliceCmd:
			for _, v := range cmd.Val() {
				if err = r.addValue(c, k, v); err != nil {
					break
				}
			}
		case *goredis.MapStringStringCmd:
			if len(cmd.Val()) > 0 {
				err = r.addHash(c, k, cmd.Val())
			}
		}
		if err != nil {
			return connector.Permanent(fmt.Errorf("key %q: %w", k, err))
		}
	}
	if c.skip > 0 {
		n := min(c.skip, int64(len(c.rows)))
		c.rows = c.rows[n:]
		c.skip -= n
		c.st.Emitted += n
	}
	return nil
}

// ofType keeps the keys of the data type, for servers whose SCAN has no TYPE.
func (r *reader) ofType(ctx context.Context, c *scan, keys []string) ([]string, error) {
	if len(keys) == 0 {
		return keys, nil
	}
	p := c.client.Pipeline()
	cmds := make([]*goredis.StatusCmd, len(keys))
	for i, k := range keys {
		cmds[i] = p.Type(ctx, k)
	}
	if _, err := p.Exec(ctx); err != nil {
		return nil, fmt.Errorf("TYPE: %w", err)
	}
	want := r.scanType()
	out := keys[:0]
	for i, k := range keys {
		if cmds[i].Val() == want {
			out = append(out, k)
		}
	}
	return out, nil
}

// newRow starts a row of the key: its fields, the key's field set.
func (r *reader) newRow(key string) []row.Value {
	fields := make([]row.Value, r.src.rt.Len())
	if r.src.keyAt >= 0 {
		fields[r.src.keyAt] = row.StringValue(key)
	}
	return fields
}

// addValue makes the row of one value: the value as text, or read by the schema.
func (r *reader) addValue(c *scan, key, value string) error {
	s := r.src
	fields := r.newRow(key)
	if s.schema == nil {
		fields[s.valueAt] = row.StringValue(value)
		c.rows = append(c.rows, fields)
		return nil
	}
	var v *hocon.Value
	if s.cfg.Format == "text" {
		v = textFields(value, s.cfg.FieldDelimiter)
	} else {
		var err error
		if v, err = parseJSON(value); err != nil {
			return err
		}
		if v == nil || v.Kind != hocon.Object {
			return fmt.Errorf("the value is not a JSON object: %.200s", value)
		}
	}
	if err := r.fill(fields, v); err != nil {
		return err
	}
	c.rows = append(c.rows, fields)
	return nil
}

// fill converts a value read by the schema into the row's value fields.
func (r *reader) fill(fields []row.Value, v *hocon.Value) error {
	s := r.src
	vals, err := r.conv.ConvertFields(v, s.schema)
	if err != nil {
		return err
	}
	for i, fv := range vals {
		if s.valueAt+i != s.keyAt || fv.T != types.Null {
			fields[s.valueAt+i] = fv
		}
	}
	return nil
}

// addHash makes the rows of a hash: without a schema its JSON text; with one, the hash read
// as one object (all), or a row per hash field (kv).
func (r *reader) addHash(c *scan, key string, h map[string]string) error {
	s := r.src
	names := make([]string, 0, len(h))
	for n := range h {
		names = append(names, n)
	}
	sort.Strings(names)
	if s.schema == nil {
		buf := []byte{'{'}
		for i, n := range names {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = row.AppendJSONString(buf, n)
			buf = append(buf, ':')
			buf = row.AppendJSONString(buf, h[n])
		}
		fields := r.newRow(key)
		fields[s.valueAt] = row.StringValue(string(append(buf, '}')))
		c.rows = append(c.rows, fields)
		return nil
	}
	if s.cfg.HashKeyParseMode == "kv" {
		for _, n := range names {
			fields := r.newRow(key)
			rest := &types.RowType{Names: s.schema.Names[1:], Types: s.schema.Types[1:]}
			fields[s.valueAt] = row.StringValue(n)
			var v *hocon.Value
			if s.cfg.Format == "text" {
				v = textFields(h[n], s.cfg.FieldDelimiter)
			} else {
				var err error
				if v, err = parseJSON(h[n]); err != nil {
					return fmt.Errorf("hash field %q: %w", n, err)
				}
				if v == nil || v.Kind != hocon.Object {
					return fmt.Errorf("hash field %q: the value is not a JSON object: %.200s", n, h[n])
				}
			}
			vals, err := r.conv.ConvertFields(v, rest)
			if err != nil {
				return fmt.Errorf("hash field %q: %w", n, err)
			}
			copy(fields[s.valueAt+1:], vals)
			c.rows = append(c.rows, fields)
		}
		return nil
	}
	obj := &hocon.Value{Kind: hocon.Object}
	for _, n := range names {
		fv := &hocon.Value{Kind: hocon.String, Str: h[n]}
		if i := s.schema.Index(n); i >= 0 {
			switch s.schema.Types[i].Kind {
			case types.Row, types.Map, types.Array:
				// a nested value is held as its JSON text
				if pv, err := parseJSON(h[n]); err == nil && pv != nil {
					fv = pv
				}
			}
		}
		obj.Fields = append(obj.Fields, hocon.Field{Key: n, Value: fv})
	}
	fields := r.newRow(key)
	if err := r.fill(fields, obj); err != nil {
		return err
	}
	c.rows = append(c.rows, fields)
	return nil
}

// textFields splits a text value into its fields (empty ones null), by position.
func textFields(s, delim string) *hocon.Value {
	parts := strings.Split(s, delim)
	v := &hocon.Value{Kind: hocon.Array, Elems: make([]*hocon.Value, len(parts))}
	for i, p := range parts {
		if p == "" {
			v.Elems[i] = &hocon.Value{Kind: hocon.Null}
		} else {
			v.Elems[i] = &hocon.Value{Kind: hocon.String, Str: p}
		}
	}
	return v
}

func (r *reader) SnapshotState(int64) ([]connector.Split, error) {
	var out []connector.Split
	if c := r.cur; c != nil && !(c.stepped && c.next == 0 && len(c.rows) == 0) {
		st := c.st
		if c.stepped && len(c.rows) == 0 {
			st.Cursor, st.Emitted = c.next, 0
		}
		out = append(out, st.split())
	}
	for _, st := range r.Pending() {
		out = append(out, st.split())
	}
	return out, nil
}

func (r *reader) Close() error {
	if r.cur != nil {
		_ = r.cur.client.Close()
		r.cur = nil
	}
	return nil
}

// parseJSON reads one JSON text into a value tree, objects keeping their fields in order.
// An empty text is nil.
func parseJSON(b string) (*hocon.Value, error) {
	if strings.TrimSpace(b) == "" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(b)))
	dec.UseNumber()
	v, err := jsonTree(dec, 0)
	if err != nil {
		return nil, fmt.Errorf("the value is not JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the value is not JSON: more than one value")
	}
	return v, nil
}

func jsonTree(dec *json.Decoder, depth int) (*hocon.Value, error) {
	if depth > 200 {
		return nil, errors.New("nested too deeply")
	}
	tok, err := dec.Token()
	if err == io.EOF {
		return nil, io.ErrUnexpectedEOF
	} else if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		v := &hocon.Value{Kind: hocon.Array}
		if t == '{' {
			v.Kind = hocon.Object
		}
		for dec.More() {
			var key string
			if v.Kind == hocon.Object {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ = kt.(string)
			}
			e, err := jsonTree(dec, depth+1)
			if err != nil {
				return nil, err
			}
			if v.Kind == hocon.Object {
				v.Fields = append(v.Fields, hocon.Field{Key: key, Value: e})
			} else {
				v.Elems = append(v.Elems, e)
			}
		}
		_, err := dec.Token() // the closing delimiter
		return v, err
	case string:
		return &hocon.Value{Kind: hocon.String, Str: t}, nil
	case json.Number:
		return &hocon.Value{Kind: hocon.Number, Str: string(t)}, nil
	case bool:
		return &hocon.Value{Kind: hocon.Bool, Bool: t}, nil
	}
	return &hocon.Value{Kind: hocon.Null}, nil
}
