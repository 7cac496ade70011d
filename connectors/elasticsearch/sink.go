package elasticsearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connector/multitable"
	"github.com/strait-dev/strait/connectors/internal/fieldtemplate"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func init() {
	multitable.RegisterSink("Elasticsearch", "Writes rows as Elasticsearch (7, 8) or OpenSearch documents with the bulk API: the index may name fields (${field}), "+
		"primary_keys make the document ids, so CDC rows upsert and delete; save modes create, recreate or clear the index first.", NewSink)
}

// SinkConfig is the Elasticsearch sink's options, SeaTunnel's.
type SinkConfig struct {
	ConnOptions
	Index          string   `opt:"index,required" doc:"the index; ${field} is replaced by a field's value per row (seatunnel_${age}), ${table_name} by the table's name; an unknown field's placeholder stays as written"`
	IndexType      string   `opt:"index_type" doc:"the document type of Elasticsearch 6 and older; not sent to 7 and later, which have none"`
	PrimaryKeys    []string `opt:"primary_keys" doc:"the fields whose values, joined by key_delimiter, are a document's _id: a row with the id of an existing document replaces it, and CDC deletes remove it; without them documents get ids of the server's choosing and deletes are refused"`
	KeyDelimiter   string   `opt:"key_delimiter" default:"_" doc:"what joins the primary key's values into an _id"`
	MaxRetryCount  int      `opt:"max_retry_count" default:"3" doc:"attempts of a bulk request that the server does not take (unreachable, 429 or 5xx), a growing pause apart"`
	MaxBatchSize   int      `opt:"max_batch_size" default:"10" doc:"documents per bulk request; a checkpoint sends what is buffered"`
	SchemaSaveMode string   `opt:"schema_save_mode" default:"CREATE_SCHEMA_WHEN_NOT_EXIST" enum:"RECREATE_SCHEMA,CREATE_SCHEMA_WHEN_NOT_EXIST,ERROR_WHEN_SCHEMA_NOT_EXIST,IGNORE" doc:"before the job's first run: RECREATE_SCHEMA deletes the index and creates it with a mapping of the table's fields, CREATE_SCHEMA_WHEN_NOT_EXIST creates it when missing, ERROR_WHEN_SCHEMA_NOT_EXIST fails when it is missing, IGNORE does nothing; an index that names fields is not prepared"`
	DataSaveMode   string   `opt:"data_save_mode" default:"APPEND_DATA" enum:"DROP_DATA,APPEND_DATA,ERROR_WHEN_DATA_EXISTS" doc:"before the job's first run: DROP_DATA deletes the index's documents, APPEND_DATA keeps them, ERROR_WHEN_DATA_EXISTS fails when it holds any"`
}

// Sink writes one table's rows to Elasticsearch.
type Sink struct {
	cfg    *SinkConfig
	where  string
	table  *catalog.Table
	rt     *types.RowType
	index  fieldtemplate.Template
	keys   []int // the fields of the _id
	client *client
}

// NewSink checks the options of one table's sink.
func NewSink(ctx *connector.SinkContext, c *SinkConfig) (connector.Sink, error) {
	o := ctx.Options
	if len(ctx.Inputs) != 1 {
		return nil, o.Errorf("", "receives %d tables; it writes one per sink (give each its index)", len(ctx.Inputs))
	}
	t := ctx.Inputs[0]
	s := &Sink{cfg: c, where: o.Where(), table: t, rt: t.RowType()}
	if strings.TrimSpace(c.Index) == "" {
		return nil, o.Errorf("index", "option is required")
	}
	if c.MaxBatchSize < 1 {
		return nil, o.Errorf("max_batch_size", "must be at least 1, got %d", c.MaxBatchSize)
	}
	if c.MaxRetryCount < 0 {
		return nil, o.Errorf("max_retry_count", "must not be negative, got %d", c.MaxRetryCount)
	}
	s.index = fieldtemplate.Parse(c.Index, s.rt, false)
	for _, k := range c.PrimaryKeys {
		i := s.rt.Index(k)
		if i < 0 {
			return nil, o.Errorf("primary_keys", "table %s has no field %q (it has %s)", t.ID(), k, strings.Join(s.rt.Names, ", "))
		}
		s.keys = append(s.keys, i)
	}
	var err error
	if s.client, err = newClient(&c.ConnOptions); err != nil {
		return nil, o.Errorf("hosts", "%v", err)
	}
	return s, nil
}

// Setup applies the save modes to an index that names no field.
func (s *Sink) Setup(ctx context.Context) error {
	index, ok := s.index.Static()
	if !ok {
		return nil
	}
	if err := s.setup(ctx, index); err != nil {
		return fmt.Errorf("%s: index %s: %w", s.where, index, err)
	}
	return nil
}

func (s *Sink) setup(ctx context.Context, index string) error {
	c := s.cfg
	if c.SchemaSaveMode == "IGNORE" && c.DataSaveMode == "APPEND_DATA" {
		return nil
	}
	exists, err := s.client.exists(ctx, index)
	if err != nil {
		return err
	}
	switch c.SchemaSaveMode {
	case "RECREATE_SCHEMA":
		if exists {
			if err := s.client.deleteIndex(ctx, index); err != nil {
				return fmt.Errorf("delete the index: %w", err)
			}
		}
		if err := s.create(ctx, index); err != nil {
			return err
		}
		exists = true
	case "CREATE_SCHEMA_WHEN_NOT_EXIST":
		if !exists {
			if err := s.create(ctx, index); err != nil {
				return err
			}
			exists = true
		}
	case "ERROR_WHEN_SCHEMA_NOT_EXIST":
		if !exists {
			return errors.New("the index does not exist (schema_save_mode = ERROR_WHEN_SCHEMA_NOT_EXIST)")
		}
	}
	if !exists {
		return nil
	}
	switch c.DataSaveMode {
	case "DROP_DATA":
		q := map[string]any{"query": map[string]any{"match_all": map[string]any{}}}
		if err := s.client.json(ctx, http.MethodPost, indexPath(index)+"/_delete_by_query?refresh=true", q, nil); err != nil {
			return fmt.Errorf("delete its documents: %w", err)
		}
	case "ERROR_WHEN_DATA_EXISTS":
		n, err := s.client.count(ctx, index)
		if err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("the index holds %d documents (data_save_mode = ERROR_WHEN_DATA_EXISTS)", n)
		}
	}
	return nil
}

// create makes the index with a mapping of the table's fields.
func (s *Sink) create(ctx context.Context, index string) error {
	zinc, err := s.client.isZinc(ctx)
	if err != nil {
		return err
	}
	body := map[string]any{"mappings": map[string]any{"properties": mappingOf(s.rt, zinc)}}
	if err := s.client.json(ctx, http.MethodPut, indexPath(index), body, nil); err != nil {
		var se *statusError
		if errors.As(err, &se) && strings.Contains(se.body, "resource_already_exists") {
			return nil // created meanwhile
		}
		return fmt.Errorf("create the index: %w", err)
	}
	return nil
}

// CreateWriter makes the writer of one subtask.
func (s *Sink) CreateWriter(ctx connector.WriterContext, _ [][]byte) (connector.Writer, error) {
	w := &writer{s: s}
	var info struct {
		Version struct {
			Number string `json:"number"`
		} `json:"version"`
	}
	if s.cfg.IndexType != "" {
		// the type goes in the bulk actions of Elasticsearch 6 and older only
		if err := s.client.json(context.Background(), http.MethodGet, "/", nil, &info); err == nil {
			major, _, _ := strings.Cut(info.Version.Number, ".")
			if n, err := strconv.Atoi(major); err == nil && n >= 1 && n < 7 {
				w.typ = s.cfg.IndexType
			}
		}
	}
	return w, nil
}

// CreateCommitter returns nil: documents are written at each checkpoint, and written again
// with the same ids when a checkpoint is replayed.
func (s *Sink) CreateCommitter() (connector.Committer, error) { return nil, nil }

// writer buffers the bulk request of a subtask's rows and sends it every max_batch_size
// documents and at each checkpoint. A checkpoint completes only after what it covers is
// acknowledged, so nothing is lost; with primary keys a replay after a failure writes the
// same documents again (at least once, idempotent by id).
type writer struct {
	s       *Sink
	typ     string
	pending []byte // the buffered actions, one after the other
	entries []entry
	last    map[string]int // by index and id: the entry of the document's latest action
	docs    int            // live entries
	body    []byte         // the bulk request being sent
	ids     []string       // its documents' ids, for error messages
	buf     []byte
}

// entry is one buffered action: its bytes in pending, and whether a later action on the
// same document replaced it.
type entry struct {
	start, end int
	id         string
	dead       bool
}

func (w *writer) Write(ctx context.Context, b *row.Batch) error {
	for i := range b.Rows {
		r := &b.Rows[i]
		if err := w.add(r); err != nil {
			return err
		}
		if w.docs >= w.s.cfg.MaxBatchSize {
			if err := w.flush(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *writer) add(r *row.Row) error {
	s := w.s
	var op string
	switch r.Kind {
	case row.Insert, row.UpdateAfter:
		op = "index"
	case row.Delete:
		op = "delete"
		if len(s.keys) == 0 {
			return connector.Permanent(fmt.Errorf("%s: a DELETE row, but primary_keys are not set: without them a document cannot be found to delete", s.where))
		}
	default:
		return nil // the before image of an update: its after image replaces the document
	}
	id := w.id(r.Fields)
	index, static := s.index.Static()
	if !static {
		w.buf, _ = s.index.Append(w.buf[:0], r.Fields)
		index = string(w.buf)
	}
	start := len(w.pending)
	w.pending = append(w.pending, `{"`...)
	w.pending = append(w.pending, op...)
	w.pending = append(w.pending, `":{"_index":`...)
	w.pending = row.AppendJSONString(w.pending, index)
	if w.typ != "" {
		w.pending = append(w.pending, `,"_type":`...)
		w.pending = row.AppendJSONString(w.pending, w.typ)
	}
	if id != "" {
		w.pending = append(w.pending, `,"_id":`...)
		w.pending = row.AppendJSONString(w.pending, id)
	}
	w.pending = append(w.pending, "}}\n"...)
	if op == "index" {
		w.pending = row.AppendJSONObject(w.pending, r.Fields, s.rt)
		w.pending = append(w.pending, '\n')
	}
	if id != "" {
		// a document's later action within one request replaces its earlier one: the
		// result is the same, and servers that index in the background (ZincSearch)
		// could apply a delete before an index still queued
		key := index + "\x00" + id
		if w.last == nil {
			w.last = map[string]int{}
		}
		if i, ok := w.last[key]; ok && !w.entries[i].dead {
			w.entries[i].dead = true
			w.docs--
		}
		w.last[key] = len(w.entries)
	}
	w.entries = append(w.entries, entry{start: start, end: len(w.pending), id: id})
	w.docs++
	return nil
}

// id is a row's document id: its primary key's values joined by key_delimiter.
func (w *writer) id(fields []row.Value) string {
	if len(w.s.keys) == 0 {
		return ""
	}
	w.buf = w.buf[:0]
	for j, k := range w.s.keys {
		if j > 0 {
			w.buf = append(w.buf, w.s.cfg.KeyDelimiter...)
		}
		w.buf = row.AppendText(w.buf, fields[k])
	}
	return string(w.buf)
}

// bulkResponse is the bulk API's answer.
type bulkResponse struct {
	Errors bool                         `json:"errors"`
	Items  []map[string]bulkItemOutcome `json:"items"`
	// Error is ZincSearch's report of the document it did not index (a value its mapping
	// cannot parse): the last item, whose status says it did; the documents after it are
	// not answered and not indexed
	Error json.RawMessage `json:"error"`
}

type bulkItemOutcome struct {
	Index  string          `json:"_index"`
	ID     string          `json:"_id"`
	Status int             `json:"status"`
	Error  json.RawMessage `json:"error"`
}

// flush sends the buffered documents in one bulk request, again while the server does not
// take it, up to max_retry_count attempts.
func (w *writer) flush(ctx context.Context) error {
	if len(w.entries) == 0 {
		return nil
	}
	w.body, w.ids = w.body[:0], w.ids[:0]
	for _, e := range w.entries {
		if !e.dead {
			w.body = append(w.body, w.pending[e.start:e.end]...)
			w.ids = append(w.ids, e.id)
		}
	}
	s := w.s
	attempts := max(1, s.cfg.MaxRetryCount)
	var err error
	for a := 1; a <= attempts; a++ {
		var resp bulkResponse
		err = s.client.do(ctx, http.MethodPost, "/_bulk", w.body, "application/x-ndjson", &resp)
		if err == nil {
			if err = w.outcome(&resp); err == nil {
				w.pending, w.entries, w.docs = w.pending[:0], w.entries[:0], 0
				clear(w.last)
				return nil
			}
		}
		if !retryable(err) || a == attempts || ctx.Err() != nil {
			break
		}
		pause := time.Duration(a) * 200 * time.Millisecond
		slog.Warn("Elasticsearch sink: bulk request not taken, trying again", "plugin", s.where, "attempt", a, "error", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
	return fmt.Errorf("%s: bulk request of %d documents: %w", s.where, w.docs, err)
}

// retryError is a failure worth another attempt (the server was busy or away).
type retryError struct{ error }

func (e retryError) Unwrap() error { return e.error }

func retryable(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		return se.status == http.StatusTooManyRequests || se.status >= 500
	}
	var re retryError
	if errors.As(err, &re) {
		return true
	}
	return err != nil && !connector.IsPermanent(err)
}

// outcome checks each document's result: a document the server refuses fails the job,
// naming its index, id and the server's reason; a delete of a missing document is done.
func (w *writer) outcome(r *bulkResponse) error {
	if e := strings.TrimSpace(string(r.Error)); e != "" && e != "null" && e != "{}" && e != `""` {
		// ZincSearch stops at the document it cannot index and reports it here; its item,
		// the last one answered, says "created"
		for op, o := range lastItem(r.Items) {
			return connector.Permanent(fmt.Errorf("the server refused the %s of document %q in index %s: %s",
				op, o.ID, o.Index, reason(r.Error)))
		}
		return connector.Permanent(fmt.Errorf("the server refused the bulk request: %s", reason(r.Error)))
	}
	var busy int
	for i, item := range r.Items {
		for op, o := range item {
			switch {
			case o.Status < 300, op == "delete" && o.Status == http.StatusNotFound:
				continue
			case o.Status == http.StatusTooManyRequests || o.Status >= 500:
				busy++
				continue
			}
			id := o.ID
			if id == "" && i < len(w.ids) {
				id = w.ids[i]
			}
			return connector.Permanent(fmt.Errorf("the server refused the %s of document %q in index %s (status %d): %s",
				op, id, o.Index, o.Status, reason(o.Error)))
		}
	}
	if busy > 0 {
		return retryError{fmt.Errorf("%d documents not taken: the server is busy", busy)}
	}
	return nil
}

func lastItem(items []map[string]bulkItemOutcome) map[string]bulkItemOutcome {
	if len(items) == 0 {
		return nil
	}
	return items[len(items)-1]
}

// reason is the text of a bulk item's error: its type and reason.
func reason(raw json.RawMessage) string {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text
	}
	var e struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	}
	if json.Unmarshal(raw, &e) == nil && (e.Type != "" || e.Reason != "") {
		return strings.TrimSpace(e.Type + ": " + e.Reason)
	}
	return string(raw)
}

// PrepareCommit sends what is buffered: the checkpoint completes once the server has it.
func (w *writer) PrepareCommit(ctx context.Context, _ int64) ([]byte, error) {
	return nil, w.flush(ctx)
}

func (w *writer) SnapshotState(int64) ([]byte, error) { return nil, nil }

func (w *writer) Close(context.Context) error { return nil }

// mappingOf is an index mapping of a row type's fields, as SeaTunnel's type converter
// maps them.
// On ZincSearch, whose date type reads RFC 3339 text only and which has no binary type,
// dates, timestamps and bytes map to keyword.
func mappingOf(rt *types.RowType, zinc bool) map[string]any {
	props := map[string]any{}
	for i, name := range rt.Names {
		if m := fieldMapping(rt.Types[i], zinc); m != nil {
			props[name] = m
		}
	}
	return props
}

func fieldMapping(t types.DataType, zinc bool) map[string]any {
	switch t.Kind {
	case types.String:
		return map[string]any{"type": "text", "fields": map[string]any{"keyword": map[string]any{"type": "keyword", "ignore_above": 256}}}
	case types.Boolean:
		return map[string]any{"type": "boolean"}
	case types.TinyInt:
		return map[string]any{"type": "byte"}
	case types.SmallInt:
		return map[string]any{"type": "short"}
	case types.Int:
		return map[string]any{"type": "integer"}
	case types.BigInt:
		return map[string]any{"type": "long"}
	case types.Float:
		return map[string]any{"type": "float"}
	case types.Double, types.Decimal:
		return map[string]any{"type": "double"}
	case types.Date, types.Timestamp:
		if zinc {
			return map[string]any{"type": "keyword"}
		}
		return map[string]any{"type": "date"} // strict_date_optional_time||epoch_millis reads both
	case types.Time:
		return map[string]any{"type": "keyword"}
	case types.Bytes:
		if zinc {
			return map[string]any{"type": "keyword"} // it has no binary type: the base64 text
		}
		return map[string]any{"type": "binary"}
	case types.Array:
		if t.Elem != nil {
			return fieldMapping(*t.Elem, zinc)
		}
	case types.Row:
		if t.Row != nil {
			return map[string]any{"type": "object", "properties": mappingOf(t.Row, zinc)}
		}
	case types.Map:
		return map[string]any{"type": "object"}
	}
	return nil
}
