package elasticsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/sourcekit"
	"github.com/strait-dev/strait/connectors/internal/splitassign"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func init() {
	connector.RegisterSource("Elasticsearch", "Reads the documents of Elasticsearch (7, 8) or OpenSearch indexes once, as SeaTunnel does: a query's hits, page by page "+
		"(a scroll where the server keeps one), their fields by the schema, or by the index's mapping.", NewSource)
}

// IndexConfig is one index a source reads.
type IndexConfig struct {
	Index       string            `opt:"index" doc:"the index (a pattern with * reads every index it matches)"`
	Source      []string          `opt:"source" doc:"the fields read, _id the document's id; without a schema their types come from the index's mapping"`
	Query       *hocon.Value      `opt:"query" doc:"the query DSL of the documents read (an object, or its JSON text); default match_all"`
	ScrollTime  string            `opt:"scroll_time" default:"1m" doc:"how long the server keeps a scroll between two pages"`
	ScrollSize  int               `opt:"scroll_size" default:"100" doc:"documents per page"`
	Schema      *hocon.Value      `opt:"schema" doc:"the fields and types of the rows (SeaTunnel's schema); without it, source and the mapping make them"`
	ArrayColumn map[string]string `opt:"array_column" doc:"fields to read as arrays, with their types ({tags = \"array<string>\"}): a mapping has no arrays"`
	At          *config.Options   `opt:"."`
}

// SourceConfig is the Elasticsearch source's options.
type SourceConfig struct {
	ConnOptions
	IndexConfig
	IndexList []IndexConfig `opt:"index_list" doc:"several indexes, each with its index, query, source or schema, scroll_time and scroll_size: one table each"`
}

// Source reads indexes page by page.
type Source struct {
	where   string
	client  *client
	indexes []*indexRead
}

// indexRead is one index as the source reads it: its table and its search.
type indexRead struct {
	cfg    *IndexConfig
	table  *catalog.Table
	rt     *types.RowType
	names  []string // the _source fields requested, _id left out
	query  json.RawMessage
	scroll time.Duration
}

// NewSource checks the options and, without a schema, reads the index's mapping.
func NewSource(ctx *connector.SourceContext, c *SourceConfig) (connector.Source, error) {
	o := ctx.Options
	s := &Source{where: o.Where()}
	var err error
	if s.client, err = newClient(&c.ConnOptions); err != nil {
		return nil, o.Errorf("hosts", "%v", err)
	}
	configs := c.IndexList
	if len(configs) == 0 {
		if strings.TrimSpace(c.Index) == "" {
			return nil, o.Errorf("index", "option is required (or index_list)")
		}
		c.IndexConfig.At = o
		configs = []IndexConfig{c.IndexConfig}
	}
	for i := range configs {
		ir, err := s.plan(ctx.Context, &configs[i])
		if err != nil {
			return nil, err
		}
		s.indexes = append(s.indexes, ir)
	}
	return s, nil
}

func (s *Source) plan(ctx context.Context, c *IndexConfig) (*indexRead, error) {
	o := c.At
	if strings.TrimSpace(c.Index) == "" {
		return nil, o.Errorf("index", "option is required")
	}
	if c.ScrollSize < 1 {
		return nil, o.Errorf("scroll_size", "must be at least 1, got %d", c.ScrollSize)
	}
	ir := &indexRead{cfg: c, query: json.RawMessage(`{"match_all":{}}`)}
	var err error
	if ir.scroll, err = esDuration(c.ScrollTime); err != nil {
		return nil, o.Errorf("scroll_time", "%v", err)
	}
	if q := c.Query; q != nil && q.Kind != hocon.Null {
		text := q.Str
		if q.Kind != hocon.String {
			b, err := q.MarshalJSON()
			if err != nil {
				return nil, o.Errorf("query", "%v", err)
			}
			text = string(b)
		}
		if !json.Valid([]byte(text)) {
			return nil, o.Errorf("query", "is not a JSON object: %s", text)
		}
		ir.query = json.RawMessage(text)
	}
	if c.Schema != nil {
		if ir.table, err = catalog.ParseSchema(o, "schema", c.Index); err != nil {
			return nil, err
		}
	} else {
		if ir.table, err = s.mappedTable(ctx, c); err != nil {
			return nil, o.Errorf("source", "%v", err)
		}
	}
	ir.rt = ir.table.RowType()
	for _, n := range ir.rt.Names {
		if n != "_id" {
			ir.names = append(ir.names, n)
		}
	}
	return ir, nil
}

// mappedTable is the table of the source fields (every field of the mapping without them),
// typed by the index's mapping and array_column.
func (s *Source) mappedTable(ctx context.Context, c *IndexConfig) (*catalog.Table, error) {
	var m map[string]struct {
		Mappings struct {
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
		} `json:"mappings"`
	}
	if err := s.client.json(ctx, http.MethodGet, indexPath(c.Index)+"/_mapping", nil, &m); err != nil {
		return nil, fmt.Errorf("the mapping of %s (a schema or source is needed without one): %w", c.Index, err)
	}
	// ZincSearch's mappings list its own fields, every document's _id and the @timestamp
	// of its indexing (a field of the hit, not of _source): not the documents' fields
	zinc := false
	if len(c.Source) == 0 {
		zinc, _ = s.client.isZinc(ctx)
	}
	typeOf := map[string]string{}
	var all []string
	for _, idx := range m {
		for f, p := range idx.Mappings.Properties {
			if zinc && (f == "_id" || f == "@timestamp") {
				continue
			}
			if _, seen := typeOf[f]; !seen {
				all = append(all, f)
			}
			typeOf[f] = p.Type
		}
	}
	sort.Strings(all)
	fields := c.Source
	if len(fields) == 0 {
		fields = all
	}
	path, err := catalog.ParsePath(c.Index, false)
	if err != nil {
		return nil, err
	}
	t := &catalog.Table{Path: path}
	for _, f := range fields {
		dt := types.Of(types.String)
		if at, ok := c.ArrayColumn[f]; ok {
			if dt, err = types.Parse(at); err != nil {
				return nil, fmt.Errorf("array_column %s: %w", f, err)
			}
		} else if f != "_id" {
			mt, ok := typeOf[f]
			if !ok {
				return nil, fmt.Errorf("the mapping of %s has no field %q", c.Index, f)
			}
			dt = esType(mt)
		}
		t.Columns = append(t.Columns, catalog.Column{Name: f, Type: dt, Nullable: true})
	}
	return t, nil
}

// esType is the row type of a mapping type, as SeaTunnel maps them.
func esType(t string) types.DataType {
	switch t {
	case "long":
		return types.Of(types.BigInt)
	case "integer":
		return types.Of(types.Int)
	case "short":
		return types.Of(types.SmallInt)
	case "byte":
		return types.Of(types.TinyInt)
	case "double", "scaled_float", "half_float", "numeric", "unsigned_long":
		return types.Of(types.Double)
	case "float":
		return types.Of(types.Float)
	case "boolean":
		return types.Of(types.Boolean)
	case "date", "date_nanos":
		return types.Of(types.Timestamp)
	case "binary":
		return types.Of(types.Bytes)
	}
	return types.Of(types.String) // text, keyword, ip, objects (as JSON text) ...
}

// esDuration reads Elasticsearch's time units: 30s, 1m, 2h, 1d, 500ms.
func esDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	for _, u := range []struct {
		suffix string
		unit   time.Duration
	}{{"ms", time.Millisecond}, {"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}, {"d", 24 * time.Hour}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			if v, err := strconv.Atoi(n); err == nil && v > 0 {
				return time.Duration(v) * u.unit, nil
			}
		}
	}
	return 0, fmt.Errorf("%q is not a time such as 1m, 30s or 500ms", s)
}

func (s *Source) Boundedness() connector.Boundedness { return connector.Bounded }

func (s *Source) Tables() []*catalog.Table {
	return sourcekit.Tables(s.indexes, func(ir *indexRead) *catalog.Table { return ir.table })
}

// splitState is a split: the index (by its place among the source's) and how many of its
// hits were emitted, which a restored read skips.
type splitState struct {
	Index   int   `json:"index"`
	Emitted int64 `json:"emitted"`
}

func (st splitState) split() connector.Split {
	b, _ := json.Marshal(st)
	return connector.Split{ID: "index-" + strconv.Itoa(st.Index), Data: b}
}

// CreateEnumerator hands each index to a reader, in turn.
func (s *Source) CreateEnumerator(ctx connector.EnumeratorContext, state []byte) (connector.Enumerator, error) {
	assigned, err := splitassign.RestoreAs[[]string](state)
	if err != nil {
		return nil, fmt.Errorf("%s: enumerator state: %w", s.where, err)
	}
	return &enumerator{Static: splitassign.New(ctx, assigned), src: s}, nil
}

type enumerator struct {
	*splitassign.Static
	src *Source
}

func (e *enumerator) Run(context.Context) error {
	splits := make([]connector.Split, len(e.src.indexes))
	for i := range e.src.indexes {
		splits[i] = splitState{Index: i}.split()
	}
	e.Start(splits)
	return nil
}

func (e *enumerator) Snapshot(int64) ([]byte, error) { return json.Marshal(e.Assigned()) }

// CreateReader makes the reader of one subtask.
func (s *Source) CreateReader(connector.ReaderContext) (connector.Reader, error) {
	valid := func(st *splitState) bool { return st.Index >= 0 && st.Index < len(s.indexes) }
	return &reader{Queue: splitassign.NewQueue(s.where, valid), src: s}, nil
}

// reader reads its indexes one after the other, a page per poll.
type reader struct {
	splitassign.Queue[splitState]
	src  *Source
	cur  *cursor
	conv literal.Converter
}

// cursor is the read of one index under way.
type cursor struct {
	st       splitState
	ir       *indexRead
	scrollID string // set while the server keeps a scroll
	paging   bool   // the server keeps no scroll: pages by from and size
	from     int64
	skip     int64 // hits to pass over (emitted before a restore)
	done     bool
}

func (r *reader) Open(context.Context) error { return nil }

// PollNext reads one page of the current index.
func (r *reader) PollNext(ctx context.Context, out *row.Batch) (bool, error) {
	c, ok, ended, err := splitassign.Current(&r.Queue, &r.cur, func(st splitState) *cursor {
		return &cursor{st: st, ir: r.src.indexes[st.Index], skip: st.Emitted}
	})
	if !ok {
		return ended, err
	}
	page, err := r.page(ctx, c)
	if err != nil {
		return false, fmt.Errorf("%s: index %s: %w", r.src.where, c.ir.cfg.Index, err)
	}
	hits := page.Get("hits").Get("hits")
	n := 0
	if hits != nil && hits.Kind == hocon.Array {
		n = len(hits.Elems)
		for _, h := range hits.Elems {
			if c.skip > 0 {
				c.skip--
				continue
			}
			if err := r.emit(c.ir, h, out); err != nil {
				return false, fmt.Errorf("%s: index %s, document %s: %w", r.src.where, c.ir.cfg.Index, h.Get("_id").Str, err)
			}
			c.st.Emitted++
		}
	}
	c.from += int64(n)
	if n == 0 || (c.paging && n < c.ir.cfg.ScrollSize) {
		r.finish(c)
		r.cur = nil
	}
	return false, nil
}

// page asks for the next page: the first search, then the scroll's next page, or the next
// from when the server keeps no scroll.
func (r *reader) page(ctx context.Context, c *cursor) (*hocon.Value, error) {
	ir := c.ir
	var path string
	var body map[string]any
	switch {
	case c.scrollID != "":
		path = "/_search/scroll"
		body = map[string]any{"scroll": durationText(ir.scroll), "scroll_id": c.scrollID}
	default:
		path = indexPath(ir.cfg.Index) + "/_search"
		body = map[string]any{"query": ir.query, "size": ir.cfg.ScrollSize, "_source": ir.names}
		if c.paging {
			body["from"] = c.from
			body["sort"] = []any{map[string]any{"_id": "asc"}}
		} else {
			path += "?scroll=" + durationText(ir.scroll)
		}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if err := r.src.client.do(ctx, http.MethodPost, path, b, "application/json", &raw); err != nil {
		return nil, err
	}
	v, err := hocon.Parse(raw, hocon.Options{File: "response"})
	if err != nil {
		return nil, fmt.Errorf("the answer does not read: %w", err)
	}
	if c.scrollID == "" && !c.paging {
		if id := v.Get("_scroll_id"); id != nil && id.Str != "" {
			c.scrollID = id.Str
		} else {
			// a server that keeps no scroll (ZincSearch): the same pages by from and
			// size, ordered by id; this first page is asked again in that order
			c.paging, c.from = true, 0
			return r.page(ctx, c)
		}
	} else if id := v.Get("_scroll_id"); id != nil && id.Str != "" {
		c.scrollID = id.Str
	}
	return v, nil
}

func durationText(d time.Duration) string {
	if d%time.Second != 0 {
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	}
	return strconv.FormatInt(int64(d/time.Second), 10) + "s"
}

// finish releases the server's scroll of a read index.
func (r *reader) finish(c *cursor) {
	if c.scrollID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = r.src.client.json(ctx, http.MethodDelete, "/_search/scroll", map[string]any{"scroll_id": []string{c.scrollID}}, nil)
}

// emit converts a hit into a row of the index's table.
func (r *reader) emit(ir *indexRead, hit *hocon.Value, out *row.Batch) error {
	src := hit.Get("_source")
	rt := ir.rt
	rw := out.Add(row.Insert, ir.table.ID(), rt.Len())
	for i, name := range rt.Names {
		var v *hocon.Value
		if name == "_id" {
			v = hit.Get("_id")
		} else {
			v = src.Lookup(name)
		}
		t := rt.Types[i]
		if t.Kind == types.Array && v != nil && v.Kind != hocon.Array && v.Kind != hocon.Null {
			v = &hocon.Value{Kind: hocon.Array, Elems: []*hocon.Value{v}, Pos: v.Pos} // one value of a multi-valued field
		}
		if (t.Kind == types.Timestamp || t.Kind == types.Date) && v != nil && v.Kind == hocon.Number {
			// an Elasticsearch date held as epoch milliseconds (its epoch_millis format)
			ms, err := strconv.ParseInt(v.Str, 10, 64)
			if err != nil {
				out.Rows = out.Rows[:len(out.Rows)-1]
				return fmt.Errorf("%s: %s is not epoch milliseconds", name, v.Str)
			}
			if t.Kind == types.Date {
				rw.Fields[i] = row.DateOf(time.UnixMilli(ms).UTC())
			} else {
				rw.Fields[i] = row.TimestampOf(time.UnixMilli(ms).UTC())
			}
			continue
		}
		if t.Kind == types.String && v != nil && (v.Kind == hocon.Object || v.Kind == hocon.Array) {
			b, _ := v.MarshalJSON()
			rw.Fields[i] = row.StringValue(string(b))
			continue
		}
		fv, err := r.conv.Convert(v, t)
		if err != nil {
			out.Rows = out.Rows[:len(out.Rows)-1]
			return fmt.Errorf("%s: %w", name, err)
		}
		rw.Fields[i] = fv
	}
	return nil
}

func (r *reader) SnapshotState(int64) ([]connector.Split, error) {
	var out []connector.Split
	if r.cur != nil {
		out = append(out, r.cur.st.split())
	}
	for _, st := range r.Pending() {
		out = append(out, st.split())
	}
	return out, nil
}

func (r *reader) Close() error {
	if r.cur != nil {
		r.finish(r.cur)
	}
	return nil
}
