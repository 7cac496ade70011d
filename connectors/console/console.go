// Package console is the Console sink: it prints every row it receives, one line per row,
// in the layout of SeaTunnel's ConsoleSinkWriter:
//
//	subtaskIndex=0  rowIndex=1:  SeaTunnelRow#tableId=fake SeaTunnelRow#kind=INSERT : 1, abc, 3
//
// Options: log.print.data (default true) turns printing off; log.print.delay.ms (default
// 0) pauses after every row. The sink has no commit phase.
package console

import (
	"context"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

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
	print bool
	delay time.Duration
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
	return &Sink{print: c.Print, delay: time.Duration(c.DelayMS) * time.Millisecond}, nil
}

// CreateWriter makes the writer of one subtask.
func (s *Sink) CreateWriter(ctx connector.WriterContext, _ [][]byte) (connector.Writer, error) {
	w := &writer{sink: s}
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
