// Package http is SeaTunnel's Http source and sink.
//
// The source requests a URL (GET, or POST with a JSON body or form parameters) and reads the
// answer as rows: without a schema every answer is one row of a string column named content;
// with one (format = json) the answer is an object per row or an array of them, or the part
// of it content_field selects, or the columns json_field's paths select. With pageing it
// requests page after page, the page number in a request parameter, until total_page_size
// pages are read or a page has fewer than batch_size rows. A BATCH job reads the URL once (all
// its pages) and ends; a STREAMING job reads it again every poll_interval_millis. One reader
// does the requests; its state is the page it reads next.
//
// The sink POSTs every row as a JSON object, one request per row as SeaTunnel does, and fails
// naming the URL and the status when the server refuses it after the retries.
package http

import (
	"context"
	"encoding/json"
	"fmt"
	nethttp "net/http"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/sourcekit"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/jsonpath"
	"github.com/strait-dev/strait/types"
)

func init() {
	connector.RegisterSource("Http", "Reads rows from an HTTP endpoint: GET or POST, the answer as JSON rows (an array, the part content_field selects, "+
		"or columns by json_field paths) or as one text column; page after page with pageing; once in BATCH mode, every poll_interval_millis in STREAMING mode.", NewSource)
	connector.RegisterSink("Http", "POSTs every row as a JSON object to a URL (a webhook), retrying refused requests and failing with the URL and status when they stay refused.", NewSink)
}

// Source is a configured Http source.
type Source struct {
	job      connector.Job
	where    string
	cfg      *SourceConfig
	table    *catalog.Table
	paging   bool
	interval time.Duration
	dec      decoder
}

// NewSource builds an Http source from its options.
func NewSource(ctx *connector.SourceContext, c *SourceConfig) (connector.Source, error) {
	o := c.At
	if err := c.RequestConfig.check(o); err != nil {
		return nil, err
	}
	if c.PollIntervalMS < 0 {
		return nil, o.Errorf("poll_interval_millis", "must not be negative, got %d", c.PollIntervalMS)
	}
	s := &Source{job: ctx.Job, where: o.Where(), cfg: c, paging: o.Has("pageing"),
		interval: time.Duration(c.PollIntervalMS) * time.Millisecond}
	s.dec.multiLines = c.MultiLines
	if c.Schema == nil {
		s.table = &catalog.Table{Path: catalog.TablePath{Table: "default"},
			Columns: []catalog.Column{{Name: "content", Type: types.Of(types.String), Nullable: true}}}
		s.dec.raw = true
	} else {
		if c.Format != formatJSON {
			return nil, o.Errorf("format", "with a schema the Http source reads json only, as SeaTunnel's does; got %s", c.Format)
		}
		t, err := catalog.ParseSchema(o, "schema", "default")
		if err != nil {
			return nil, err
		}
		s.table = t
		s.dec.rt = t.RowType()
		if c.ContentField != "" {
			p, err := jsonpath.Compile(c.ContentField)
			if err != nil {
				return nil, o.Errorf("content_field", "%v", err)
			}
			s.dec.content = p
		} else if len(c.JSONField) > 0 {
			names, paths, err := newFieldPaths(c.JSONField)
			if err != nil {
				return nil, o.Errorf("json_field", "%v", err)
			}
			for _, n := range names {
				if s.dec.rt.Index(n) < 0 {
					return nil, o.Errorf("json_field", "%s is not a field of the schema", n)
				}
			}
			s.dec.fieldNames, s.dec.fieldPaths = names, paths
		}
	}
	if s.paging {
		p := &c.Paging
		switch {
		case p.PageField == "":
			return nil, o.Errorf("pageing.page_field", "must not be empty")
		case p.TotalPages < 0:
			return nil, o.Errorf("pageing.total_page_size", "must not be negative, got %d", p.TotalPages)
		case p.TotalPages == 0 && p.BatchSize <= 0:
			return nil, o.Errorf("pageing.batch_size", "must be positive when total_page_size is not set, got %d", p.BatchSize)
		}
	}
	return s, nil
}

// Boundedness: BATCH jobs read the URL once.
func (s *Source) Boundedness() connector.Boundedness { return sourcekit.Boundedness(s.job.Mode) }

// Tables is the one table the source reads.
func (s *Source) Tables() []*catalog.Table { return []*catalog.Table{s.table} }

// splitState is the progress of the one split: the page read next (0 without pageing), and
// in BATCH mode whether every page is read.
type splitState struct {
	Page int64 `json:"page"`
	Done bool  `json:"done,omitempty"`
}

const splitID = "http"

func (s *Source) firstState() splitState {
	if s.paging {
		return splitState{Page: s.cfg.Paging.StartPage}
	}
	return splitState{}
}

// CreateEnumerator makes the enumerator: one split, for reader 0.
func (s *Source) CreateEnumerator(ctx connector.EnumeratorContext, state []byte) (connector.Enumerator, error) {
	e := &enumerator{src: s, ctx: ctx}
	if len(state) > 0 {
		if err := json.Unmarshal(state, &e.assigned); err != nil {
			return nil, fmt.Errorf("%s: bad enumerator state: %v", s.where, err)
		}
	}
	return e, nil
}

type enumerator struct {
	src      *Source
	ctx      connector.EnumeratorContext
	assigned bool
	back     *connector.Split // a split a failed reader gave back
}

func (e *enumerator) Open(context.Context) error { return nil }

func (e *enumerator) Run(context.Context) error {
	for _, r := range e.ctx.RegisteredReaders() {
		e.assign(r)
	}
	return nil
}

func (e *enumerator) assign(reader int) {
	if reader != 0 {
		e.ctx.SignalNoMoreSplits(reader)
		return
	}
	switch {
	case e.back != nil:
		e.ctx.Assign(0, *e.back)
		e.back = nil
	case !e.assigned:
		b, _ := json.Marshal(e.src.firstState())
		e.ctx.Assign(0, connector.Split{ID: splitID, Data: b})
	}
	e.assigned = true
	e.ctx.SignalNoMoreSplits(0)
}

func (e *enumerator) RegisterReader(reader int) error { e.assign(reader); return nil }
func (e *enumerator) HandleSplitRequest(int) error    { return nil }

func (e *enumerator) AddSplitsBack(splits []connector.Split, _ int) error {
	for i := range splits {
		sp := splits[i]
		e.back = &sp
	}
	return nil
}

func (e *enumerator) Snapshot(int64) ([]byte, error) {
	return json.Marshal(e.assigned && e.back == nil)
}
func (e *enumerator) Close() error { return nil }

// CreateReader makes the reader of one subtask; only subtask 0 gets the split.
func (s *Source) CreateReader(ctx connector.ReaderContext) (connector.Reader, error) {
	c, err := newClient(&s.cfg.RequestConfig)
	if err != nil {
		return nil, err
	}
	return &reader{src: s, client: c, tableID: s.table.ID()}, nil
}

type reader struct {
	src     *Source
	client  *client
	tableID string
	has     bool       // the split is assigned
	state   splitState // the progress once pending is emitted
	next    splitState // the progress after the page in pending
	pending [][]row.Value
	noMore  bool
	due     time.Time // STREAMING: when to read again
}

func (r *reader) Open(context.Context) error { return nil }

func (r *reader) AddSplits(splits []connector.Split) {
	for _, sp := range splits {
		var st splitState
		if len(sp.Data) > 0 {
			_ = json.Unmarshal(sp.Data, &st)
		}
		r.has, r.state, r.next = true, st, st
	}
}

func (r *reader) NoMoreSplits() { r.noMore = true }

// PollNext emits the rows of the page read last, then reads the next page.
func (r *reader) PollNext(ctx context.Context, out *row.Batch) (bool, error) {
	if len(r.pending) > 0 {
		n := min(len(r.pending), max(out.Cap()-out.Len(), 1))
		for _, fields := range r.pending[:n] {
			rw := out.Add(row.Insert, r.tableID, len(fields))
			copy(rw.Fields, fields)
		}
		r.pending = r.pending[n:]
		if len(r.pending) == 0 {
			r.pending = nil
			r.state = r.next
		}
		return false, nil
	}
	if !r.has {
		if r.noMore {
			return true, nil
		}
		return false, sourcekit.Sleep(ctx, 10*time.Millisecond)
	}
	if r.state.Done {
		return true, nil
	}
	if !r.due.IsZero() {
		if d := time.Until(r.due); d > 0 {
			return false, sourcekit.Sleep(ctx, min(d, 100*time.Millisecond))
		}
	}
	rows, err := r.fetch(ctx, r.state.Page)
	if err != nil {
		return false, fmt.Errorf("%s: %w", r.src.where, err)
	}
	r.next = r.after(r.state, len(rows))
	if len(rows) == 0 {
		r.state = r.next
	}
	r.pending = rows
	return false, nil
}

// after is the progress once a page of n rows is read.
func (r *reader) after(st splitState, n int) splitState {
	if r.src.paging {
		p := &r.src.cfg.Paging
		more := n >= int(p.BatchSize)
		if p.TotalPages > 0 {
			more = st.Page < p.TotalPages
		}
		if more {
			return splitState{Page: st.Page + 1}
		}
	}
	if r.src.job.Mode != connector.Streaming {
		return splitState{Page: st.Page, Done: true}
	}
	// STREAMING: read the URL again, from its first page, after the interval
	r.due = time.Now().Add(r.src.interval)
	return r.src.firstState()
}

// fetch reads one page (page is ignored without pageing).
func (r *reader) fetch(ctx context.Context, page int64) ([][]row.Value, error) {
	c := r.src.cfg
	u, body := c.URL, c.Body
	params, headers := c.Params, c.Headers
	if r.src.paging {
		num := strconv.FormatInt(page, 10)
		if c.Paging.Placeholder {
			ph := "${" + c.Paging.PageField + "}"
			u, body = strings.ReplaceAll(u, ph, num), strings.ReplaceAll(body, ph, num)
			params, headers = replaceAll(params, ph, num), replaceAll(headers, ph, num)
		} else {
			params = withEntry(params, c.Paging.PageField, num)
		}
	}
	req := &request{method: c.Method, headers: headers}
	var err error
	switch {
	case c.Method == nethttp.MethodPost && len(params) > 0:
		req.url, req.body, req.contentType = u, formBody(params), "application/x-www-form-urlencoded; charset=UTF-8"
	case c.Method == nethttp.MethodPost:
		req.url, req.body, req.contentType = u, []byte(body), "application/json"
	default:
		req.url, err = withParams(u, params)
		if err != nil {
			return nil, fmt.Errorf("url %s: %v", u, err)
		}
	}
	b, err := r.client.do(ctx, req)
	if err != nil {
		return nil, err
	}
	rows, err := r.src.dec.decode(b, nil)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", req.method, req.url, err)
	}
	return rows, nil
}

func replaceAll(m map[string]string, old, new string) map[string]string {
	if len(m) == 0 {
		return m
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = strings.ReplaceAll(v, old, new)
	}
	return out
}

func withEntry(m map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for kk, vv := range m {
		out[kk] = vv
	}
	out[k] = v
	return out
}

// SnapshotState is the split with the page read next: the rows of a page not yet all
// emitted are read again after a restore.
func (r *reader) SnapshotState(int64) ([]connector.Split, error) {
	if !r.has {
		return nil, nil
	}
	b, err := json.Marshal(r.state)
	if err != nil {
		return nil, err
	}
	return []connector.Split{{ID: splitID, Data: b}}, nil
}

func (r *reader) Close() error {
	r.client.close()
	return nil
}
