package exchange

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/strait-dev/strait/row"
)

func testLogger(t testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(&testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

type testWriter struct{ t testing.TB }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// trackingListener records the connections it accepts, so a test can cut them as a crash would.
type trackingListener struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

func (l *trackingListener) accepted() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// kill closes the listener and every accepted connection, without any goodbye.
func (l *trackingListener) kill() {
	l.Listener.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0) // reset, as a dead process's kernel would
		}
		c.Close()
	}
}

func startServer(t testing.TB, opts ...Option) (*Server, *trackingListener) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tl := &trackingListener{Listener: lis}
	s := NewServer(testLogger(t), opts...)
	go s.Serve(tl)
	t.Cleanup(s.Stop)
	return s, tl
}

func newClient(t testing.TB, opts ...Option) *Client {
	c := NewClient(testLogger(t), opts...)
	t.Cleanup(func() { c.Close() })
	return c
}

// openLink starts a server with serverOpts and a client with clientOpts and opens the channel
// key(0, 0) from the client to the server, whose consumer 0 queues up to depth messages on q
// until the test ends.
func openLink(t testing.TB, depth int, serverOpts []Option, clientOpts ...Option) (*Server, *queue, *Sender) {
	t.Helper()
	s, lis := startServer(t, serverOpts...)
	c := newClient(t, clientOpts...)
	q := newQueue(depth)
	t.Cleanup(accept(s, 0, q))
	snd := mustOpen(t, context.Background(), c, lis.Addr().String(), key(0, 0))
	return s, q, snd
}

// mustOpen opens the channel k with c to the server at addr; a failure fails the test.
func mustOpen(t testing.TB, ctx context.Context, c *Client, addr string, k Key) *Sender {
	t.Helper()
	snd, err := c.Open(ctx, addr, k)
	if err != nil {
		t.Fatal(err)
	}
	return snd
}

// mustSendOne sends a batch of one row on snd, failing the test when Send does.
func mustSendOne(t testing.TB, ctx context.Context, snd *Sender) {
	t.Helper()
	b := seqBatch(0, 0, 1, "")
	defer b.Release()
	if err := snd.Send(ctx, b); err != nil {
		t.Fatal(err)
	}
}

// sendForever sends a batch of 100 rows, their payload fill repeated 100 times, on snd
// until a Send fails, in a goroutine of its own; sent counts the batches sent, and failed
// receives the error that stopped it.
func sendForever(ctx context.Context, snd *Sender, fill string) (sent *atomic.Int64, failed <-chan error) {
	sent = new(atomic.Int64)
	errs := make(chan error, 1)
	b := seqBatch(0, 0, 100, strings.Repeat(fill, 100))
	go func() {
		defer b.Release()
		for {
			if err := snd.Send(ctx, b); err != nil {
				errs <- err
				return
			}
			sent.Add(1)
		}
	}()
	return sent, errs
}

type received struct {
	producer int
	m        Message
}

// queue is a consumer's bounded input queue, as a consumer task would keep.
type queue struct {
	ch   chan received
	gone chan struct{}
	once sync.Once
}

func newQueue(depth int) *queue {
	return &queue{ch: make(chan received, depth), gone: make(chan struct{})}
}

func (q *queue) deliver(ctx context.Context, producer int, m Message) error {
	select {
	case q.ch <- received{producer, m}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-q.gone:
		return errors.New("consumer task ended")
	}
}

func (q *queue) leave() { q.once.Do(func() { close(q.gone) }) }

// next waits for the next message, failing the test after a while.
func (q *queue) next(t testing.TB, within time.Duration) received {
	t.Helper()
	select {
	case r := <-q.ch:
		return r
	case <-time.After(within):
		t.Fatalf("no message within %s", within)
		return received{}
	}
}

// seqBatch holds n rows (producer, seq+i, payload).
func seqBatch(producer, seq, n int, payload string) *row.Batch {
	b := row.NewBatch(n)
	for i := 0; i < n; i++ {
		r := b.Add(row.Insert, "t", 3)
		r.Fields[0] = row.IntValue(int32(producer))
		r.Fields[1] = row.BigIntValue(int64(seq + i))
		r.Fields[2] = row.StringValue(payload)
	}
	return b
}

// blackhole is a TCP proxy that can freeze: it stops forwarding but keeps both sockets open,
// as a network partition or a frozen host would.
type blackhole struct {
	lis    net.Listener
	target string
	mu     sync.Mutex
	frozen bool
	conns  []net.Conn
}

func newBlackhole(t testing.TB, target string) *blackhole {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &blackhole{lis: lis, target: target}
	t.Cleanup(p.close)
	go p.serve()
	return p
}

func (p *blackhole) addr() string { return p.lis.Addr().String() }

func (p *blackhole) serve() {
	for {
		in, err := p.lis.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go p.pipe(in, out)
		go p.pipe(out, in)
	}
}

func (p *blackhole) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		p.mu.Lock()
		frozen := p.frozen
		p.mu.Unlock()
		if frozen {
			io.Copy(io.Discard, src) // swallow everything from now on
			return
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

func (p *blackhole) freeze() {
	p.mu.Lock()
	p.frozen = true
	p.mu.Unlock()
}

func (p *blackhole) close() {
	p.lis.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// counterValue sums a counter vector over its labels.
func counterValue(t testing.TB, c *prometheus.CounterVec) float64 {
	t.Helper()
	ch := make(chan prometheus.Metric, 16)
	go func() { c.Collect(ch); close(ch) }()
	var sum float64
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		sum += d.GetCounter().GetValue()
	}
	return sum
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
