// Package console is the Console sink: it prints every row it receives, one line per row,
// in the layout of SeaTunnel's ConsoleSinkWriter:
//
//	subtaskIndex=0  rowIndex=1:  SeaTunnelRow#tableId=fake SeaTunnelRow#kind=INSERT : 1, abc, 3
//
// Options: log.print.data (default true) turns printing off; log.print.delay.ms (default
// 0) pauses after every row. The sink has no commit phase.
//
// A change of an input table's columns (a schema change) is printed as SeaTunnel's writer
// logs it, the table's fields before and after it:
//
//	changed rowType before: id<INT>, name<STRING>
//	changed rowType after: id<INT>, name<STRING>, score<INT>
package console

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func init() {
	connector.RegisterSink("Console", "Prints every row it receives, one line per row, in the layout of SeaTunnel's Console sink.", New)
}

var (
	outMu sync.Mutex
	out   io.Writer = os.Stdout
)

// SetOutput sends what every Console writer prints to w (os.Stdout by default) and returns
// the previous output. Each batch is written with one Write call under a lock, so lines of
// parallel writers never interleave.
func SetOutput(w io.Writer) io.Writer {
	outMu.Lock()
	defer outMu.Unlock()
	prev := out
	out = w
	return prev
}

func write(b []byte) error {
	outMu.Lock()
	defer outMu.Unlock()
	_, err := out.Write(b)
	return err
}

// Sink is a configured Console sink.
type Sink struct {
	print  bool
	delay  time.Duration
	inputs []*catalog.Table
}

// Config is the Console sink's options.
type Config struct {
	Print   bool  `opt:"log.print.data" default:"true" doc:"print the rows; false counts them only"`
	DelayMS int64 `opt:"log.print.delay.ms" default:"0" doc:"milliseconds to wait after each row"`
}

// New builds a Console sink from its options.
func New(ctx *connector.SinkContext, c *Config) (connector.Sink, error) {
	if c.DelayMS < 0 {
		return nil, ctx.Options.Errorf("log.print.delay.ms", "must not be negative, got %d", c.DelayMS)
	}
	return &Sink{print: c.Print, delay: time.Duration(c.DelayMS) * time.Millisecond, inputs: ctx.Inputs}, nil
}

// CreateWriter makes the writer of one subtask.
func (s *Sink) CreateWriter(ctx connector.WriterContext, _ [][]byte) (connector.Writer, error) {
	w := &writer{sink: s, tables: map[string]*catalog.Table{}}
	for _, t := range s.inputs {
		w.tables[t.ID()] = t
	}
	w.prefix = strconv.AppendInt([]byte("subtaskIndex="), int64(ctx.Index), 10)
	w.prefix = append(w.prefix, "  rowIndex="...)
	return w, nil
}

// CreateCommitter returns nil: Console has nothing to commit.
func (s *Sink) CreateCommitter() (connector.Committer, error) { return nil, nil }

type writer struct {
	sink   *Sink
	prefix []byte
	rows   int64
	buf    []byte
	// tables are the input tables by id, as the schema changes received so far left them
	tables map[string]*catalog.Table
}

// ApplySchemaChange prints the table's fields before and after the change, as SeaTunnel's
// writer logs them (when printing is on), and takes the table's new columns.
func (w *writer) ApplySchemaChange(_ context.Context, c *connector.SchemaChange) error {
	before := w.tables[c.Table]
	if before == nil {
		before = &catalog.Table{} // a table the plan did not name: its change alone is known
	}
	after, err := c.Apply(before)
	if err != nil {
		// a table the writer knows otherwise (a restore's plan has the database's columns of
		// now, the change replayed came before them): the change is printed as it is
		delete(w.tables, c.Table)
		if !w.sink.print {
			return nil
		}
		w.buf = append(append(w.buf[:0], "changed rowType of "...), c.String()...)
		w.buf = append(w.buf, '\n')
		return write(w.buf)
	}
	w.tables[c.Table] = after
	if !w.sink.print {
		return nil
	}
	buf := append(w.buf[:0], "changed rowType before: "...)
	buf = appendFields(buf, before)
	buf = append(buf, "\nchanged rowType after: "...)
	buf = appendFields(buf, after)
	w.buf = append(buf, '\n')
	return write(w.buf)
}

// appendFields writes a table's fields as name<TYPE>, comma separated.
func appendFields(buf []byte, t *catalog.Table) []byte {
	for i, c := range t.Columns {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = append(buf, c.Name...)
		buf = append(buf, '<')
		buf = append(buf, strings.ToUpper(c.Type.String())...)
		buf = append(buf, '>')
	}
	return buf
}

// appendLine appends one row as SeaTunnel logs it. Top-level nulls print as nothing, as
// Java's StringUtils.join renders them; nested ones as null.
func (w *writer) appendLine(buf []byte, r *row.Row) []byte {
	w.rows++
	buf = append(buf, w.prefix...)
	buf = strconv.AppendInt(buf, w.rows, 10)
	buf = append(buf, ":  SeaTunnelRow#tableId="...)
	buf = append(buf, r.Table...)
	buf = append(buf, " SeaTunnelRow#kind="...)
	buf = append(buf, r.Kind.String()...)
	buf = append(buf, " : "...)
	for i := range r.Fields {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		if r.Fields[i].T != types.Null {
			buf = row.AppendText(buf, r.Fields[i])
		}
	}
	return append(buf, '\n')
}

// Write prints the batch with one write, or row by row when a delay is set.
func (w *writer) Write(ctx context.Context, b *row.Batch) error {
	if w.sink.delay > 0 {
		return w.writeSlowly(ctx, b)
	}
	if !w.sink.print || b.Len() == 0 {
		return nil
	}
	buf := w.buf[:0]
	for i := range b.Rows {
		buf = w.appendLine(buf, &b.Rows[i])
	}
	w.buf = buf
	if cap(w.buf) > 1<<22 {
		w.buf = nil // do not keep a huge buffer after one huge batch
	}
	return write(buf)
}

func (w *writer) writeSlowly(ctx context.Context, b *row.Batch) error {
	t := time.NewTimer(w.sink.delay)
	defer t.Stop()
	for i := range b.Rows {
		if w.sink.print {
			w.buf = w.appendLine(w.buf[:0], &b.Rows[i])
			if err := write(w.buf); err != nil {
				return err
			}
		}
		if i > 0 {
			t.Reset(w.sink.delay)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

func (w *writer) PrepareCommit(context.Context, int64) ([]byte, error) { return nil, nil }
func (w *writer) SnapshotState(int64) ([]byte, error)                  { return nil, nil }
func (w *writer) Close(context.Context) error                          { return nil }
