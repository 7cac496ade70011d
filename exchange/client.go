package exchange

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/experimental"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	exchangev1 "github.com/strait-dev/strait/proto/exchange/v1"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/row/codec"
)

// Client opens channels to other runners. It keeps one connection per remote address, shared
// by every channel towards that runner.
type Client struct {
	log  *slog.Logger
	opts options

	mu     sync.Mutex
	conns  map[string]*grpc.ClientConn
	closed bool
}

// NewClient creates a runner's exchange client.
func NewClient(log *slog.Logger, opts ...Option) *Client {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Client{log: log, opts: newOptions(opts), conns: map[string]*grpc.ClientConn{}}
}

// Close closes every connection: channels still open fail.
func (c *Client) Close() error {
	c.mu.Lock()
	conns := c.conns
	c.conns, c.closed = nil, true
	c.mu.Unlock()
	var errs []error
	for addr, cc := range conns {
		if err := cc.Close(); err != nil {
			errs = append(errs, fmt.Errorf("exchange: close connection to %s: %w", addr, err))
		}
	}
	return errors.Join(errs...)
}

func (c *Client) conn(addr string) (*grpc.ClientConn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("the client is closed")
	}
	if cc := c.conns[addr]; cc != nil {
		return cc, nil
	}
	cc, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(transportCredentials(c.opts.tls, c.log)),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: c.opts.keepaliveTime, Timeout: c.opts.keepaliveTimeout}),
		// reconnect quickly: a runner that restarts is back within seconds
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 3 * time.Second},
			MinConnectTimeout: 5 * time.Second,
		}),
		grpc.WithWriteBufferSize(256<<10),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(c.opts.maxFrame+frameSlack), grpc.ForceCodecV2(wireCodec{})),
		experimental.WithBufferPool(bufPool),
		// A channel is never retried: its frames only make sense once, in order.
		grpc.WithDisableRetry(),
	)
	if err != nil {
		return nil, err
	}
	c.conns[addr] = cc
	return cc, nil
}

// Sender is the producer's end of a channel. It is not safe for concurrent use. Close must be
// called once, whatever happened, to release the stream.
type Sender struct {
	key    Key
	addr   string
	opts   *options
	stream exchangev1.Exchange_TransferClient
	cancel context.CancelCauseFunc

	recvDone chan struct{} // closed when the stream's acks end
	recvErr  error         // why they ended; read after recvDone
	endAcked atomic.Bool

	err      error // the first failure; every later call returns it
	closed   bool
	closeErr error

	out      outBatch
	sizeHint int // the size of the last encoded batch, to size the next buffer
	counters edgeCounters
}

var errSenderClosed = errors.New("the sender is closed")

// Open opens the channel k to the runner at addr. ctx governs the channel's whole life: when
// it ends, the channel is aborted (its consumer sees Failed). Open waits for a connection to
// addr for at most the connect timeout; it does not wait for the consumer to register, which
// the receiving runner waits for on its side.
func (c *Client) Open(ctx context.Context, addr string, k Key) (*Sender, error) {
	if !k.valid() {
		return nil, fmt.Errorf("exchange: open channel %s to %s: invalid key (negative or beyond 32 bits)", k, addr)
	}
	cc, err := c.conn(addr)
	if err != nil {
		return nil, fmt.Errorf("exchange: open channel %s to %s: %w", k, addr, err)
	}
	sctx, cancel := context.WithCancelCause(ctx)
	connectTimeout := c.opts.connectTimeout
	timer := time.AfterFunc(connectTimeout, func() {
		cancel(fmt.Errorf("no connection within %s%s", connectTimeout, lastFailure(cc, c.opts.tls != nil)))
	})
	// Wait for the connection here, not with WaitForReady on the stream: a stream that waits
	// for readiness would, after the receiver stopped before taking it (a transparent retry),
	// wait for a new connection for as long as the channel lives, blocking Send forever.
	var stream exchangev1.Exchange_TransferClient
	err = waitReady(sctx, cc)
	if err == nil {
		stream, err = exchangev1.NewExchangeClient(cc).Transfer(sctx)
	}
	if !timer.Stop() || err != nil {
		if cause := context.Cause(sctx); cause != nil {
			err = cause
		}
		cancel(err)
		return nil, fmt.Errorf("exchange: open channel %s to %s: %w", k, addr, err)
	}
	s := &Sender{key: k, addr: addr, opts: &c.opts, stream: stream, cancel: cancel,
		recvDone: make(chan struct{}), counters: c.opts.metrics.sent(k)}
	go s.receiveAcks()
	open := &exchangev1.Frame{Kind: &exchangev1.Frame_Open{Open: &exchangev1.Open{
		JobId: k.Job, Pipeline: int32(k.Pipeline), Epoch: int64(k.Epoch), Edge: int32(k.Edge),
		ProducerSubtask: int32(k.Producer), ConsumerSubtask: int32(k.Consumer),
	}}}
	if err := s.send(ctx, open); err != nil {
		s.closed, s.closeErr = true, err
		cancel(err)
		return nil, err
	}
	return s, nil
}

// waitReady waits until cc has a ready connection, connecting it if idle.
func waitReady(ctx context.Context, cc *grpc.ClientConn) error {
	for {
		st := cc.GetState()
		switch st {
		case connectivity.Ready:
			return nil
		case connectivity.Idle:
			cc.Connect()
		case connectivity.Shutdown:
			return errors.New("the connection is closed")
		}
		if !cc.WaitForStateChange(ctx, st) {
			if cause := context.Cause(ctx); cause != nil {
				return cause
			}
			return ctx.Err()
		}
	}
}

// lastFailure says why cc's latest connection attempt failed (a refused TLS handshake, a
// peer that is down), when it is failing, as " (last attempt: ...)". A plain client whose
// peer closed the connection at once is told the peer may require TLS.
func lastFailure(cc *grpc.ClientConn, secure bool) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	// an attempt under way is let finish (on a reachable host, within milliseconds)
	for st := cc.GetState(); st == connectivity.Connecting; st = cc.GetState() {
		if !cc.WaitForStateChange(ctx, st) {
			return ""
		}
	}
	if cc.GetState() != connectivity.TransientFailure {
		return ""
	}
	// a stream that does not wait for readiness fails at once with the connection's error
	if _, err := exchangev1.NewExchangeClient(cc).Transfer(ctx); err != nil {
		msg := status.Convert(err).Message()
		if !secure && strings.Contains(msg, "server preface") {
			msg += "; the peer may require TLS: it closed the connection before speaking gRPC"
		}
		return fmt.Sprintf(" (last attempt: %s)", msg)
	}
	return "" // it connected meanwhile; cancel drops the stream
}

func (s *Sender) receiveAcks() {
	defer close(s.recvDone)
	var ack exchangev1.Ack
	for {
		if err := s.stream.RecvMsg(&ack); err != nil {
			if errors.Is(err, io.EOF) {
				if s.endAcked.Load() {
					return
				}
				err = errors.New("the receiver ended the stream before acknowledging End")
			}
			s.recvErr = err
			return
		}
		if ack.GetEnd() != nil {
			s.endAcked.Store(true)
		}
	}
}

// failure returns the channel's failure, if it has failed, without blocking.
func (s *Sender) failure() error {
	if s.err != nil {
		return s.err
	}
	select {
	case <-s.recvDone:
		err := s.recvErr
		if err == nil {
			err = errors.New("the receiver ended the stream")
		}
		s.setErr(err)
		return s.err
	default:
		return nil
	}
}

func (s *Sender) setErr(cause error) {
	if s.err == nil {
		s.err = fmt.Errorf("exchange: channel %s to %s: %w", s.key, s.addr, cause)
		s.cancel(s.err)
	}
}

// broken records why a stream operation failed. The stream's own error is often only io.EOF;
// the status the receiver ended it with, or the context that aborted it, is the real cause.
func (s *Sender) broken(ctx context.Context, err error) error {
	if s.err != nil {
		return s.err
	}
	if cerr := ctx.Err(); cerr != nil {
		s.setErr(context.Cause(ctx))
		return s.err
	}
	if errors.Is(err, io.EOF) {
		select {
		case <-s.recvDone:
			if s.recvErr != nil {
				err = s.recvErr
			}
		case <-time.After(5 * time.Second):
		}
	}
	s.setErr(err)
	return s.err
}

// send writes one frame (a *exchangev1.Frame or an *outBatch). If ctx ends while the frame
// waits for flow control, the channel is aborted.
func (s *Sender) send(ctx context.Context, f any) error {
	if err := s.failure(); err != nil {
		return err
	}
	if ctx.Done() != nil {
		if ctx.Err() != nil {
			s.setErr(context.Cause(ctx))
			return s.err
		}
		stop := context.AfterFunc(ctx, func() { s.cancel(context.Cause(ctx)) })
		defer stop()
	}
	// gRPC marshals the frame before SendMsg returns (this package installs no stats
	// handlers, which could keep it), so f may be reused afterwards.
	if err := s.stream.SendMsg(f); err != nil {
		return s.broken(ctx, err)
	}
	return nil
}

// Send encodes b and sends it. It blocks while the channel's flow-control window is full
// (the consumer is behind). b stays the caller's: it is neither kept nor released. A batch
// whose encoding exceeds the frame limit goes as several frames; an empty batch is not sent.
func (s *Sender) Send(ctx context.Context, b *row.Batch) error {
	if s.closed {
		return fmt.Errorf("exchange: channel %s to %s: %w", s.key, s.addr, errSenderClosed)
	}
	if b.Len() == 0 {
		return s.failure()
	}
	return s.sendRows(ctx, b)
}

// sendRows encodes b into a pooled buffer, which gRPC returns to the pool once written.
func (s *Sender) sendRows(ctx context.Context, b *row.Batch) error {
	bp := bufPool.Get(max(s.sizeHint, 4<<10))
	*bp = codec.AppendBatch((*bp)[:0], b)
	n := len(*bp)
	if n > s.opts.maxFrame {
		bufPool.Put(bp)
		if len(b.Rows) == 1 {
			return fmt.Errorf("exchange: channel %s to %s: a row of %d encoded bytes exceeds the frame limit of %d bytes", s.key, s.addr, n, s.opts.maxFrame)
		}
		half := len(b.Rows) / 2
		for _, part := range [][]row.Row{b.Rows[:half], b.Rows[half:]} {
			if err := s.sendRows(ctx, &row.Batch{Rows: part}); err != nil {
				return err
			}
		}
		return nil
	}
	s.sizeHint = min(n+n/8, s.opts.maxFrame)
	s.out.data = bp
	err := s.send(ctx, &s.out)
	s.out.data = nil
	if err != nil {
		return err
	}
	s.counters.add(n)
	return nil
}

// Mark sends a marker, in order with the batches.
func (s *Sender) Mark(ctx context.Context, m Marker) error {
	if s.closed {
		return fmt.Errorf("exchange: channel %s to %s: %w", s.key, s.addr, errSenderClosed)
	}
	return s.send(ctx, &exchangev1.Frame{Kind: &exchangev1.Frame_Marker{Marker: &exchangev1.Marker{Id: m.ID, Kind: m.Kind, Data: m.Data}}})
}

// Close sends End and waits until the receiving runner acknowledges that the consumer has it.
// With a ctx that is already done, or ends while waiting, Close aborts the channel instead
// (the consumer sees Failed). After a failure Close returns that failure. Later calls return
// what the first returned.
func (s *Sender) Close(ctx context.Context) error {
	if s.closed {
		return s.closeErr
	}
	s.closed = true
	s.closeErr = s.close(ctx)
	s.cancel(errSenderClosed) // releases the stream; no effect on one that ended cleanly
	return s.closeErr
}

func (s *Sender) close(ctx context.Context) error {
	if err := s.send(ctx, &exchangev1.Frame{Kind: &exchangev1.Frame_End{End: &exchangev1.End{}}}); err != nil {
		return err
	}
	if err := s.stream.CloseSend(); err != nil {
		return s.broken(ctx, err)
	}
	select {
	case <-s.recvDone:
		if s.recvErr != nil {
			s.setErr(s.recvErr)
			return s.err
		}
		return nil
	case <-ctx.Done():
		s.setErr(context.Cause(ctx))
		return s.err
	}
}
