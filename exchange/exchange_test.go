package exchange

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strait-dev/strait/row/rowtest"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	exchangev1 "github.com/strait-dev/strait/proto/exchange/v1"
	"github.com/strait-dev/strait/row"
)

func key(producer, consumer int) Key {
	return Key{Job: 7, Pipeline: 1, Epoch: 2, Edge: 3, Producer: producer, Consumer: consumer}
}

func accept(s *Server, consumer int, q *queue) func() {
	return s.Accept(7, 1, 2, 3, consumer, q.deliver)
}

// TestManyProducersOneConsumer: every producer's batches and markers arrive in order, each
// channel ends with End, and all channels share one connection.
func TestManyProducersOneConsumer(t *testing.T) {
	s, lis := startServer(t)
	q := newQueue(4)
	defer accept(s, 0, q)()
	c := newClient(t)
	const producers, batches, rows = 8, 40, 100
	ctx := context.Background()
	errs := make(chan error, producers)
	for p := 0; p < producers; p++ {
		go func() {
			errs <- func() error {
				snd, err := c.Open(ctx, lis.Addr().String(), key(p, 0))
				if err != nil {
					return err
				}
				for i := 0; i < batches; i++ {
					b := seqBatch(p, i*rows, rows, "x")
					err := snd.Send(ctx, b)
					b.Release()
					if err != nil {
						return err
					}
					if i%10 == 9 {
						if err := snd.Mark(ctx, Marker{ID: int64(i), Kind: "barrier"}); err != nil {
							return err
						}
					}
				}
				return snd.Close(ctx)
			}()
		}()
	}
	next := make([]int, producers) // next expected seq per producer
	markers := make([]int, producers)
	for ends := 0; ends < producers; {
		r := q.next(t, 10*time.Second)
		p := r.producer
		switch {
		case r.m.Batch != nil:
			for _, rw := range r.m.Batch.Rows {
				if got := rw.Fields[0].Int(); got != int64(p) {
					t.Fatalf("producer %d delivered a row of producer %d", p, got)
				}
				if got := rw.Fields[1].Int(); got != int64(next[p]) {
					t.Fatalf("producer %d: seq %d, want %d", p, got, next[p])
				}
				next[p]++
			}
			r.m.Batch.Release()
		case r.m.Marker != nil:
			// a marker follows exactly the batch it was sent after
			if want := (int(r.m.Marker.ID) + 1) * rows; next[p] != want || r.m.Marker.Kind != "barrier" {
				t.Fatalf("producer %d: marker %+v after %d rows, want after %d", p, *r.m.Marker, next[p], want)
			}
			markers[p]++
		case r.m.End:
			if next[p] != batches*rows {
				t.Fatalf("producer %d: End after %d rows, want %d", p, next[p], batches*rows)
			}
			ends++
		case r.m.Failed != nil:
			t.Fatalf("producer %d failed: %v", p, r.m.Failed)
		}
	}
	for p := 0; p < producers; p++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		if markers[p] != batches/10 {
			t.Errorf("producer %d: %d markers, want %d", p, markers[p], batches/10)
		}
	}
	if n := lis.accepted(); n != 1 {
		t.Errorf("%d connections for %d channels, want 1", n, producers)
	}
}

// TestManyConsumers: channels to different consumers and edges go to their own registrations.
func TestManyConsumers(t *testing.T) {
	s, lis := startServer(t)
	c := newClient(t)
	ctx := context.Background()
	qs := []*queue{newQueue(1), newQueue(1), newQueue(1)}
	for i, q := range qs {
		defer accept(s, i, q)()
	}
	other := newQueue(1)
	defer s.Accept(7, 1, 2, 4, 0, other.deliver)() // another edge
	var wg sync.WaitGroup
	for i := range qs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			snd, err := c.Open(ctx, lis.Addr().String(), key(0, i))
			if err != nil {
				t.Error(err)
				return
			}
			b := seqBatch(0, i*1000, 1, "")
			defer b.Release()
			if err := snd.Send(ctx, b); err != nil {
				t.Error(err)
			}
			if err := snd.Close(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	for i, q := range qs {
		r := q.next(t, 5*time.Second)
		if r.m.Batch == nil || r.m.Batch.Rows[0].Fields[1].Int() != int64(i*1000) {
			t.Fatalf("consumer %d got %+v", i, r.m)
		}
		if r := q.next(t, 5*time.Second); !r.m.End {
			t.Fatalf("consumer %d: %+v, want End", i, r.m)
		}
	}
	wg.Wait()
	select {
	case r := <-other.ch:
		t.Fatalf("the other edge received %+v", r.m)
	default:
	}
}

// TestBackpressure: a consumer that does not read stops the producer once the windows fill,
// with a bounded number of bytes in flight; when it reads again everything arrives.
func TestBackpressure(t *testing.T) {
	const window = 256 << 10
	_, q, snd := openLink(t, 1, []Option{WithWindow(window)})
	ctx := context.Background()
	b := seqBatch(0, 0, 64, strings.Repeat("p", 1000)) // about 64 KB encoded
	defer b.Release()
	var sent atomic.Int64
	done := make(chan error, 1)
	const total = 200
	go func() {
		for i := 0; i < total; i++ {
			if err := snd.Send(ctx, b); err != nil {
				done <- err
				return
			}
			sent.Add(1)
		}
		done <- snd.Close(ctx)
	}()
	// wait until the producer stalls
	last, stable := int64(-1), 0
	for stable < 5 {
		time.Sleep(100 * time.Millisecond)
		if n := sent.Load(); n == last {
			stable++
		} else {
			last, stable = n, 0
		}
	}
	// In flight: the queue's one batch, one in deliver, the receiver's window, the sender's
	// write quota (64 KiB) and the frame being sent.
	batchBytes := int64(65 << 10)
	bound := (window + 64<<10 + 6*batchBytes) / batchBytes
	t.Logf("producer stalled after %d batches of ~%d KiB (bound %d)", last, batchBytes>>10, bound)
	if last >= total || last > bound {
		t.Fatalf("producer sent %d batches to a consumer that reads nothing, want at most %d", last, bound)
	}
	for i := 0; i < total; i++ {
		r := q.next(t, 10*time.Second)
		if r.m.Batch == nil {
			t.Fatalf("message %d: %+v, want a batch", i, r.m)
		}
		r.m.Batch.Release()
	}
	if r := q.next(t, 10*time.Second); !r.m.End {
		t.Fatalf("%+v, want End", r.m)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestServerKilled: a receiving runner that dies makes Send and Close fail within seconds, both
// while data flows and while the producer is blocked by backpressure.
func TestServerKilled(t *testing.T) {
	for _, blocked := range []bool{false, true} {
		t.Run(fmt.Sprintf("blocked=%v", blocked), func(t *testing.T) {
			s, lis := startServer(t, WithWindow(64<<10))
			q := newQueue(1)
			defer accept(s, 0, q)()
			if !blocked {
				go func() {
					for r := range q.ch {
						r.m.Batch.Release()
					}
				}()
			}
			c := newClient(t)
			ctx := context.Background()
			snd := mustOpen(t, ctx, c, lis.Addr().String(), key(0, 0))
			sent, failed := sendForever(ctx, snd, "k")
			for deadline := time.Now().Add(10 * time.Second); sent.Load() == 0; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("nothing sent within 10 s")
				}
			}
			killed := time.Now()
			lis.kill()
			select {
			case err := <-failed:
				t.Logf("Send failed %s after the kill: %v", time.Since(killed).Round(time.Millisecond), err)
				if !strings.Contains(err.Error(), "exchange: channel") {
					t.Errorf("error %q does not name the channel", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Send still blocked 5 s after the receiver died")
			}
			start := time.Now()
			if err := snd.Close(ctx); err == nil {
				t.Fatal("Close succeeded on a dead channel")
			}
			if d := time.Since(start); d > time.Second {
				t.Fatalf("Close took %s on a dead channel", d)
			}
		})
	}
}

// TestServerStopped: Stop fails open channels (with a goodbye this time).
func TestServerStopped(t *testing.T) {
	s, _, snd := openLink(t, 1, nil)
	ctx := context.Background()
	s.Stop()
	deadline := time.Now().Add(5 * time.Second)
	b := seqBatch(0, 0, 1, "")
	defer b.Release()
	for {
		if err := snd.Send(ctx, b); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Send keeps succeeding after Stop")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := snd.Close(ctx); err == nil {
		t.Fatal("Close succeeded after Stop")
	}
}

// TestUnregisteredKey: a channel nobody accepts fails after the registration timeout; one
// accepted late, within the timeout, works.
func TestUnregisteredKey(t *testing.T) {
	s, lis := startServer(t, WithRegistrationTimeout(300*time.Millisecond))
	c := newClient(t)
	ctx := context.Background()

	snd := mustOpen(t, ctx, c, lis.Addr().String(), key(0, 9))
	b := seqBatch(0, 0, 1, "")
	defer b.Release()
	start := time.Now()
	_ = snd.Send(ctx, b) // may succeed: it only has to reach the window
	err := snd.Close(ctx)
	if err == nil || !strings.Contains(err.Error(), "no consumer registered for channel job 7 pipeline 1 epoch 2 edge 3 subtask 0->9 within 300ms") {
		t.Fatalf("error %v, want no consumer registered", err)
	}
	if status.Code(errors.Unwrap(err)) != codes.NotFound {
		t.Errorf("code %v, want NotFound", status.Code(errors.Unwrap(err)))
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("failing took %s", d)
	}

	late, err := c.Open(ctx, lis.Addr().String(), key(1, 9))
	if err != nil {
		t.Fatal(err)
	}
	if err := late.Send(ctx, b); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	q := newQueue(4)
	defer accept(s, 9, q)()
	if err := late.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if r := q.next(t, time.Second); r.m.Batch == nil {
		t.Fatalf("%+v, want the batch", r.m)
	}
	if r := q.next(t, time.Second); !r.m.End {
		t.Fatalf("%+v, want End", r.m)
	}
}

// TestConsumerLearnsOfFailures: a channel that breaks before End reaches the consumer as Failed.
func TestConsumerLearnsOfFailures(t *testing.T) {
	cases := []struct {
		name  string
		abort func(t *testing.T, c *Client, cancel context.CancelFunc, snd *Sender)
	}{
		{"producer runner gone", func(_ *testing.T, c *Client, _ context.CancelFunc, _ *Sender) { c.Close() }},
		{"producer context canceled", func(_ *testing.T, _ *Client, cancel context.CancelFunc, _ *Sender) { cancel() }},
		{"close with a done context", func(t *testing.T, _ *Client, _ context.CancelFunc, snd *Sender) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := snd.Close(ctx); err == nil {
				t.Error("Close with a done context succeeded")
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, lis := startServer(t)
			q := newQueue(4)
			defer accept(s, 0, q)()
			c := NewClient(testLogger(t))
			defer c.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			snd := mustOpen(t, ctx, c, lis.Addr().String(), key(5, 0))
			b := seqBatch(5, 0, 10, "")
			defer b.Release()
			if err := snd.Send(ctx, b); err != nil {
				t.Fatal(err)
			}
			if r := q.next(t, 5*time.Second); r.m.Batch == nil || r.producer != 5 {
				t.Fatalf("%+v, want a batch of producer 5", r)
			}
			tc.abort(t, c, cancel, snd)
			r := q.next(t, 5*time.Second)
			if r.m.Failed == nil || r.producer != 5 {
				t.Fatalf("%+v, want Failed of producer 5", r)
			}
			t.Logf("consumer saw: %v", r.m.Failed)
			if err := snd.Send(context.Background(), b); err == nil {
				t.Fatal("Send succeeded on an aborted channel")
			}
			snd.Close(context.Background())
		})
	}
}

// TestConsumerDeadPeerDetected: a producer's host that freezes (no FIN, no RST) is detected by
// the receiving runner's keep-alive, and the consumer sees Failed.
func TestConsumerDeadPeerDetected(t *testing.T) {
	s, lis := startServer(t, WithKeepalive(500*time.Millisecond, 500*time.Millisecond))
	q := newQueue(4)
	defer accept(s, 0, q)()
	proxy := newBlackhole(t, lis.Addr().String())
	c := newClient(t)
	ctx := context.Background()
	snd := mustOpen(t, ctx, c, proxy.addr(), key(0, 0))
	defer func() {
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		snd.Close(ctx) // aborts: the frozen peer would take the client's keep-alive to notice
	}()
	mustSendOne(t, ctx, snd)
	q.next(t, 5*time.Second)
	proxy.freeze()
	start := time.Now()
	r := q.next(t, 10*time.Second)
	if r.m.Failed == nil {
		t.Fatalf("%+v, want Failed", r.m)
	}
	t.Logf("consumer saw the dead producer after %s: %v", time.Since(start).Round(time.Millisecond), r.m.Failed)
}

// TestProducerDeadPeerDetected: a receiving runner that freezes is detected by the producer's
// keep-alive within about 15 s (gRPC clients ping at most every 10 s).
func TestProducerDeadPeerDetected(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a keep-alive timeout of about 12 s")
	}
	s, lis := startServer(t)
	q := newQueue(1)
	defer accept(s, 0, q)()
	proxy := newBlackhole(t, lis.Addr().String())
	c := newClient(t, WithKeepalive(time.Second, 2*time.Second)) // 10 s + 2 s in effect
	ctx := context.Background()
	snd := mustOpen(t, ctx, c, proxy.addr(), key(0, 0))
	mustSendOne(t, ctx, snd)
	proxy.freeze()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- snd.Close(ctx) }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Close succeeded through a frozen peer")
		}
		t.Logf("producer saw the dead receiver after %s: %v", time.Since(start).Round(time.Millisecond), err)
	case <-time.After(20 * time.Second):
		t.Fatal("Close still waiting 20 s after the receiver froze")
	}
}

// TestConsumerGone: a consumer that refuses messages or unregisters fails its producers, also
// one blocked by backpressure.
func TestConsumerGone(t *testing.T) {
	t.Run("refuses", func(t *testing.T) {
		s, lis := startServer(t)
		defer s.Accept(7, 1, 2, 3, 0, func(ctx context.Context, producer int, m Message) error {
			return errors.New("task canceled")
		})()
		c := newClient(t)
		ctx := context.Background()
		snd := mustOpen(t, ctx, c, lis.Addr().String(), key(0, 0))
		b := seqBatch(0, 0, 1, "")
		defer b.Release()
		_ = snd.Send(ctx, b)
		err := snd.Close(ctx)
		if err == nil || !strings.Contains(err.Error(), "the consumer refused a message: task canceled") {
			t.Fatalf("error %v, want the consumer's refusal", err)
		}
	})
	t.Run("unregisters while the producer is blocked", func(t *testing.T) {
		s, lis := startServer(t, WithWindow(64<<10))
		q := newQueue(1)
		unregister := accept(s, 0, q)
		c := newClient(t)
		ctx := context.Background()
		snd := mustOpen(t, ctx, c, lis.Addr().String(), key(0, 0))
		sent, failed := sendForever(ctx, snd, "u")
		for last := int64(-1); sent.Load() != last; {
			last = sent.Load()
			time.Sleep(200 * time.Millisecond)
		}
		unregister()
		defer q.leave()
		select {
		case err := <-failed:
			if !strings.Contains(err.Error(), ErrConsumerGone.Error()) {
				t.Fatalf("error %v, want %v", err, ErrConsumerGone)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Send still blocked 5 s after the consumer unregistered")
		}
		snd.Close(ctx)
	})
}

// TestProtocolErrors: a corrupt batch, a channel opened twice, a frame before Open.
func TestProtocolErrors(t *testing.T) {
	s, lis := startServer(t)
	q := newQueue(4)
	defer accept(s, 0, q)()
	cc, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	raw := exchangev1.NewExchangeClient(cc)
	ctx := context.Background()
	open := func(p int) *exchangev1.Frame {
		return &exchangev1.Frame{Kind: &exchangev1.Frame_Open{Open: &exchangev1.Open{JobId: 7, Pipeline: 1, Epoch: 2, Edge: 3, ProducerSubtask: int32(p)}}}
	}
	finish := func(st exchangev1.Exchange_TransferClient) error {
		st.CloseSend()
		for {
			if _, err := st.Recv(); err != nil {
				return err
			}
		}
	}

	t.Run("corrupt batch", func(t *testing.T) {
		st, _ := raw.Transfer(ctx)
		st.Send(open(0))
		st.Send(&exchangev1.Frame{Kind: &exchangev1.Frame_Batch{Batch: &exchangev1.Batch{Data: []byte{1, 5, 0}}}})
		err := finish(st)
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "corrupt batch: row codec:") {
			t.Fatalf("error %v, want InvalidArgument corrupt batch", err)
		}
		r := q.next(t, time.Second)
		if r.m.Failed == nil || !strings.Contains(r.m.Failed.Error(), "corrupt batch") {
			t.Fatalf("%+v, want Failed corrupt batch", r.m)
		}
	})
	t.Run("reopen after failure", func(t *testing.T) {
		st, _ := raw.Transfer(ctx)
		st.Send(open(0))
		if err := finish(st); status.Code(err) != codes.FailedPrecondition {
			t.Fatalf("error %v, want FailedPrecondition", err)
		}
	})
	t.Run("opened twice", func(t *testing.T) {
		first, _ := raw.Transfer(ctx)
		first.Send(open(1))
		first.Header() // the server sends headers once the channel is joined
		second, _ := raw.Transfer(ctx)
		second.Send(open(1))
		if err := finish(second); status.Code(err) != codes.AlreadyExists {
			t.Fatalf("error %v, want AlreadyExists", err)
		}
		first.Send(&exchangev1.Frame{Kind: &exchangev1.Frame_End{End: &exchangev1.End{}}})
		first.CloseSend()
		if ack, err := first.Recv(); err != nil || ack.GetEnd() == nil {
			t.Fatalf("ack %v, error %v, want the End ack", ack, err)
		}
		if r := q.next(t, time.Second); !r.m.End || r.producer != 1 {
			t.Fatalf("%+v, want End of producer 1", r)
		}
	})
	t.Run("no Open", func(t *testing.T) {
		st, _ := raw.Transfer(ctx)
		st.Send(&exchangev1.Frame{Kind: &exchangev1.Frame_End{End: &exchangev1.End{}}})
		if err := finish(st); status.Code(err) != codes.InvalidArgument {
			t.Fatalf("error %v, want InvalidArgument", err)
		}
	})
	t.Run("no End", func(t *testing.T) {
		st, _ := raw.Transfer(ctx)
		st.Send(open(2))
		if err := finish(st); status.Code(err) != codes.InvalidArgument {
			t.Fatalf("error %v, want InvalidArgument", err)
		}
		if r := q.next(t, time.Second); r.m.Failed == nil || r.producer != 2 {
			t.Fatalf("%+v, want Failed of producer 2", r)
		}
	})
}

// TestLargeBatchSplit: a batch above the frame limit arrives whole, as several batches.
func TestLargeBatchSplit(t *testing.T) {
	_, q, snd := openLink(t, 1000, []Option{WithMaxFrame(16 << 10)}, WithMaxFrame(16<<10))
	ctx := context.Background()
	b := seqBatch(0, 0, 1000, strings.Repeat("s", 100)) // ~110 KB
	defer b.Release()
	if err := snd.Send(ctx, b); err != nil {
		t.Fatal(err)
	}
	huge := seqBatch(0, 1000, 1, strings.Repeat("h", 20<<10))
	defer huge.Release()
	if err := snd.Send(ctx, huge); err == nil || !strings.Contains(err.Error(), "exceeds the frame limit") {
		t.Fatalf("error %v, want a frame limit error", err)
	}
	if err := snd.Close(ctx); err != nil {
		t.Fatal(err)
	}
	seq, frames := 0, 0
	for {
		r := q.next(t, time.Second)
		if r.m.End {
			break
		}
		frames++
		for _, rw := range r.m.Batch.Rows {
			if rw.Fields[1].Int() != int64(seq) {
				t.Fatalf("seq %d, want %d", rw.Fields[1].Int(), seq)
			}
			seq++
		}
	}
	if seq != 1000 || frames < 7 {
		t.Fatalf("%d rows in %d frames, want 1000 rows in at least 7", seq, frames)
	}
}

func TestOpenUnreachable(t *testing.T) {
	c := newClient(t, WithConnectTimeout(300*time.Millisecond))
	start := time.Now()
	_, err := c.Open(context.Background(), "127.0.0.1:1", key(0, 0))
	if err == nil || !strings.Contains(err.Error(), "no connection within 300ms") {
		t.Fatalf("error %v, want a connect timeout", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Open took %s", d)
	}
}

func TestMetrics(t *testing.T) {
	m, err := NewMetrics(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, snd := openLink(t, 4, []Option{WithMetrics(m)}, WithMetrics(m))
	ctx := context.Background()
	b := seqBatch(0, 0, 10, "abc")
	defer b.Release()
	for i := 0; i < 3; i++ {
		if err := snd.Send(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := snd.Close(ctx); err != nil {
		t.Fatal(err)
	}
	sent, recv := counterValue(t, m.BatchesSent), counterValue(t, m.BatchesReceived)
	if sent != 3 || recv != 3 {
		t.Fatalf("batches sent %v, received %v, want 3", sent, recv)
	}
	if counterValue(t, m.BytesSent) != counterValue(t, m.BytesReceived) || counterValue(t, m.BytesSent) == 0 {
		t.Fatal("bytes sent and received differ")
	}
}

// BenchmarkTransfer pushes 1,024-row batches of five columns through one channel on loopback.
// BenchmarkBoundedMemory sends 1 GiB to a slow consumer per iteration; the heap stays under
// 100 MiB (the target: bounded by the window and the queues, not by what is sent).
func BenchmarkBoundedMemory(b *testing.B) {
	for i := 0; i < b.N; i++ {
		boundedMemory(b)
	}
}

func boundedMemory(t *testing.B) {
	s, lis := startServer(t)
	q := newQueue(4)
	defer accept(s, 0, q)()
	c := newClient(t)
	ctx := context.Background()
	payload := strings.Repeat("m", 1000)
	b := seqBatch(0, 0, 1024, payload) // ~1 MiB encoded, one string shared by every row
	defer b.Release()
	const total = 1024 // batches: 1 GiB
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	consumed := make(chan int64, 1)
	go func() {
		var bytes int64
		for {
			r := <-q.ch
			if r.m.End || r.m.Failed != nil {
				consumed <- bytes
				return
			}
			bytes += int64(r.m.Batch.Len()) * int64(len(payload))
			r.m.Batch.Release()
			time.Sleep(time.Millisecond) // slow
		}
	}()
	start := time.Now()
	snd := mustOpen(t, ctx, c, lis.Addr().String(), key(0, 0))
	for i := 0; i < total; i++ {
		if err := snd.Send(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := snd.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got := <-consumed
	close(stop)
	sampler.Wait()
	t.ReportMetric(float64(peak.Load()>>20), "peak-heap-MiB")
	t.Logf("%d MiB through a slow consumer in %s; peak heap %d MiB", got>>20, time.Since(start).Round(time.Millisecond), peak.Load()>>20)
	if got != int64(total)*1024*int64(len(payload)) {
		t.Fatalf("consumed %d bytes of strings, want %d", got, int64(total)*1024*int64(len(payload)))
	}
	if peak.Load() > 100<<20 {
		t.Fatalf("peak heap %d MiB, want under 100 MiB", peak.Load()>>20)
	}
}

func BenchmarkTransfer(b *testing.B) {
	s, lis := startServer(b)
	q := newQueue(4)
	defer accept(s, 0, q)()
	c := newClient(b)
	ctx := context.Background()
	batch := rowtest.Batch(row.DefaultBatchSize)
	defer batch.Release()
	consumed := make(chan int, 1)
	go func() {
		n := 0
		for r := range q.ch {
			if r.m.Batch == nil {
				break
			}
			n += r.m.Batch.Len()
			r.m.Batch.Release()
		}
		consumed <- n
	}()
	snd, err := c.Open(ctx, lis.Addr().String(), key(0, 0))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		if err := snd.Send(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	if err := snd.Close(ctx); err != nil {
		b.Fatal(err)
	}
	n := <-consumed
	b.StopTimer()
	cpu := processCPU() - cpu0
	if n != b.N*batch.Len() {
		b.Fatalf("consumed %d rows, want %d", n, b.N*batch.Len())
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rows/s")
	// CPU time of the whole process (sender, receiver, consumer, GC) per row: what the hop
	// costs whatever else runs on the machine.
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/row")
}

func TestOpenInvalidKey(t *testing.T) {
	c := newClient(t)
	for _, k := range []Key{{Job: -1}, {Producer: -2}, {Edge: 1 << 40}} {
		if _, err := c.Open(context.Background(), "127.0.0.1:1", k); err == nil || !strings.Contains(err.Error(), "invalid key") {
			t.Errorf("Open(%v): error %v, want invalid key", k, err)
		}
	}
}

// TestStopTellsConsumers: channels broken by Stop reach their consumers as Failed.
func TestStopTellsConsumers(t *testing.T) {
	s, q, snd := openLink(t, 4, nil)
	ctx := context.Background()
	defer snd.Close(ctx)
	mustSendOne(t, ctx, snd)
	q.next(t, 5*time.Second)
	s.Stop()
	if r := q.next(t, time.Second); r.m.Failed == nil {
		t.Fatalf("%+v, want Failed", r.m)
	}
}
