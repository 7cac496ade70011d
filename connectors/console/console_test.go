package console

import (
	"bytes"
	"context"
	"io"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/benchwrite"
	"github.com/strait-dev/strait/row"
)

func newSink(t testing.TB, src string) (connector.Sink, error) {
	t.Helper()
	root, err := hocon.Parse([]byte(src), hocon.Options{File: "console.conf"})
	if err != nil {
		t.Fatal(err)
	}
	build, _, _ := connector.LookupSink("Console")
	return build(&connector.SinkContext{Options: config.New(root, "sink[0] Console")})
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	n  int // writes
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func capture(t *testing.T) *syncBuffer {
	buf := &syncBuffer{}
	prev := SetOutput(buf)
	t.Cleanup(func() { SetOutput(prev) })
	return buf
}

func TestFormat(t *testing.T) {
	out := capture(t)
	s, err := newSink(t, "")
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.CreateWriter(connector.WriterContext{Index: 1, Parallelism: 2}, nil)
	b := row.NewBatch(8)
	r := b.Add(row.Insert, "fake", 4)
	r.Fields[0] = row.IntValue(1)
	r.Fields[1] = row.StringValue("abc")
	r.Fields[2] = row.NullValue()
	r.Fields[3] = row.ArrayValue([]row.Value{row.IntValue(1), row.NullValue()})
	r = b.Add(row.UpdateAfter, "db.t", 4)
	r.Fields[0] = row.DecimalValue(big.NewInt(12345), 2)
	r.Fields[1] = row.MapOfValues(&row.MapValue{Keys: []row.Value{row.StringValue("k")}, Vals: []row.Value{row.StringValue("v")}})
	r.Fields[2] = row.RowValue([]row.Value{row.BoolValue(true), row.DoubleValue(1.5)})
	r.Fields[3] = row.BytesValue([]byte{1, 255})
	r = b.Add(row.Delete, "db.t", 2)
	r.Fields[0] = row.FloatValue(3.1)
	r.Fields[1] = row.TimestampValue(time.Date(2012, 12, 21, 12, 34, 56, 0, time.UTC).UnixNano())
	if err := w.Write(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	want := "subtaskIndex=1  rowIndex=1:  SeaTunnelRow#tableId=fake SeaTunnelRow#kind=INSERT : 1, abc, , [1, null]\n" +
		"subtaskIndex=1  rowIndex=2:  SeaTunnelRow#tableId=db.t SeaTunnelRow#kind=UPDATE_AFTER : 123.45, {\"k\":\"v\"}, [true, 1.5], [1, -1]\n" +
		"subtaskIndex=1  rowIndex=3:  SeaTunnelRow#tableId=db.t SeaTunnelRow#kind=DELETE : 3.1, 2012-12-21T12:34:56\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if out.n != 1 {
		t.Errorf("%d writes for one batch, want 1", out.n)
	}
	// the row index continues across batches
	b.Reset()
	b.Add(row.Insert, "fake", 1).Fields[0] = row.IntValue(9)
	_ = w.Write(context.Background(), b)
	if !strings.HasSuffix(out.String(), "subtaskIndex=1  rowIndex=4:  SeaTunnelRow#tableId=fake SeaTunnelRow#kind=INSERT : 9\n") {
		t.Errorf("second batch: %q", out.String())
	}
	for _, f := range []func() error{
		func() error { _, err := w.PrepareCommit(context.Background(), 1); return err },
		func() error { _, err := w.SnapshotState(1); return err },
		func() error { return w.Close(context.Background()) },
	} {
		if err := f(); err != nil {
			t.Error(err)
		}
	}
	if c, err := s.CreateCommitter(); c != nil || err != nil {
		t.Errorf("committer %v %v", c, err)
	}
}

func TestNoPrint(t *testing.T) {
	out := capture(t)
	s, err := newSink(t, `log.print.data = "false"`)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	b := row.NewBatch(8)
	b.Add(row.Insert, "fake", 1).Fields[0] = row.IntValue(1)
	if err := w.Write(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if out.String() != "" {
		t.Errorf("printed %q", out.String())
	}
}

func TestDelay(t *testing.T) {
	out := capture(t)
	s, err := newSink(t, `log.print.delay.ms = 20`)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	b := row.NewBatch(8)
	for i := 0; i < 3; i++ {
		b.Add(row.Insert, "fake", 1).Fields[0] = row.IntValue(int32(i))
	}
	start := time.Now()
	if err := w.Write(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 60*time.Millisecond {
		t.Errorf("3 rows with 20 ms delay took %v", el)
	}
	if strings.Count(out.String(), "\n") != 3 {
		t.Errorf("output %q", out.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Write(ctx, b); err == nil {
		t.Error("cancelled write should fail")
	}
}

func TestOptionErrors(t *testing.T) {
	for src, want := range map[string]string{
		`log.print.data = maybe`:      "log.print.data: expected true or false",
		`log.print.delay.ms = -1`:     "log.print.delay.ms: must not be negative",
		`log.print.delay.ms = "soon"`: `log.print.delay.ms: "soon" is not an integer`,
	} {
		_, err := newSink(t, src)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "sink[0] Console") {
			t.Errorf("%s: error %v, want %q", src, err, want)
		}
	}
}

func TestParallelWritersDoNotInterleave(t *testing.T) {
	out := capture(t)
	s, _ := newSink(t, "")
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			w, _ := s.CreateWriter(connector.WriterContext{Index: i, Parallelism: 4}, nil)
			for k := 0; k < 50; k++ {
				b := row.NewBatch(16)
				for j := 0; j < 16; j++ {
					b.Add(row.Insert, "t", 1).Fields[0] = row.StringValue(strings.Repeat("x", 100))
				}
				_ = w.Write(context.Background(), b)
				b.Release()
			}
		}(i)
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4*50*16 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "subtaskIndex=") || !strings.HasSuffix(l, " : "+strings.Repeat("x", 100)) {
			t.Fatalf("mangled line %q", l)
		}
	}
}

func TestRegistered(t *testing.T) {
	if _, name, ok := connector.LookupSink("console"); !ok || name != "Console" {
		t.Fatal("Console not registered")
	}
}

func benchBatch() *row.Batch {
	b := row.NewBatch(row.DefaultBatchSize)
	for i := 0; i < row.DefaultBatchSize; i++ {
		r := b.Add(row.Insert, "fake", 5)
		r.Fields[0] = row.BigIntValue(int64(i) * 7919)
		r.Fields[1] = row.StringValue("abcde")
		r.Fields[2] = row.IntValue(int32(i))
		r.Fields[3] = row.DoubleValue(float64(i) / 3)
		r.Fields[4] = row.TimestampValue(int64(i) * 1e12)
	}
	return b
}

func benchWrite(b *testing.B, src string) {
	prev := SetOutput(io.Discard)
	defer SetOutput(prev)
	s, err := newSink(b, src)
	if err != nil {
		b.Fatal(err)
	}
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	batch := benchBatch()
	benchwrite.Batches(b, w, batch)
}

// BenchmarkConsolePrint formats five columns per row into a discarded output.
func BenchmarkConsolePrint(b *testing.B) { benchWrite(b, "") }

// BenchmarkConsoleNoPrint is the cost of a Console sink with log.print.data = false.
func BenchmarkConsoleNoPrint(b *testing.B) { benchWrite(b, "log.print.data = false") }
