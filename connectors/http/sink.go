package http

import (
	"context"
	"errors"
	"fmt"
	nethttp "net/http"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// Sink is a configured Http sink.
type Sink struct {
	where  string
	cfg    *SinkConfig
	inputs map[string]*catalog.Table // by table id
}

// NewSink builds an Http sink from its options.
func NewSink(ctx *connector.SinkContext, c *SinkConfig) (connector.Sink, error) {
	o := c.At
	if err := c.RequestConfig.check(o); err != nil {
		return nil, err
	}
	s := &Sink{where: o.Where(), cfg: c, inputs: map[string]*catalog.Table{}}
	for _, t := range ctx.Inputs {
		s.inputs[t.ID()] = t
	}
	return s, nil
}

// CreateWriter makes the writer of one subtask.
func (s *Sink) CreateWriter(connector.WriterContext, [][]byte) (connector.Writer, error) {
	c, err := newClient(&s.cfg.RequestConfig)
	if err != nil {
		return nil, err
	}
	return &writer{sink: s, client: c, urls: map[string]string{}}, nil
}

// CreateCommitter returns nil: every row is sent when it is written.
func (s *Sink) CreateCommitter() (connector.Committer, error) { return nil, nil }

type writer struct {
	sink   *Sink
	client *client
	urls   map[string]string // by table id: the URL with the table's names filled in
	buf    []byte
}

// url is the sink's URL for rows of a table: ${database_name}, ${schema_name} and
// ${table_name} are the table's, as SeaTunnel's multi-table sink fills them in.
func (w *writer) url(table string) (string, error) {
	if u, ok := w.urls[table]; ok {
		return u, nil
	}
	var path catalog.TablePath
	if t := w.sink.inputs[table]; t != nil {
		path = t.Path
	} else if p, err := catalog.ParsePath(table, false); err == nil {
		path = p
	}
	u := strings.NewReplacer("${database_name}", path.Database, "${schema_name}", path.Schema, "${table_name}", path.Table).Replace(w.sink.cfg.URL)
	u, err := withParams(u, w.sink.cfg.Params)
	if err != nil {
		return "", fmt.Errorf("url %s: %v", u, err)
	}
	w.urls[table] = u
	return u, nil
}

// Write POSTs each row, one request per row.
func (w *writer) Write(ctx context.Context, b *row.Batch) error {
	for i := range b.Rows {
		r := &b.Rows[i]
		u, err := w.url(r.Table)
		if err != nil {
			return connector.Permanent(fmt.Errorf("%s: %v", w.sink.where, err))
		}
		t := w.sink.inputs[r.Table]
		if t == nil || len(t.Columns) != len(r.Fields) {
			return connector.Permanent(fmt.Errorf("%s: a row of table %s, which is not among the sink's inputs", w.sink.where, r.Table))
		}
		w.buf = row.AppendJSONObject(w.buf[:0], r.Fields, t.RowType())
		req := &request{method: nethttp.MethodPost, url: u, headers: w.sink.cfg.Headers,
			body: w.buf, contentType: "application/json"}
		if _, err := w.client.do(ctx, req); err != nil {
			err = fmt.Errorf("%s: %w", w.sink.where, err)
			var se *StatusError
			if errors.As(err, &se) && !retryable(se.Status) {
				return connector.Permanent(err)
			}
			return err
		}
	}
	return nil
}

func (w *writer) PrepareCommit(context.Context, int64) ([]byte, error) { return nil, nil }
func (w *writer) SnapshotState(int64) ([]byte, error)                  { return nil, nil }
func (w *writer) Close(context.Context) error {
	w.client.close()
	return nil
}
