package exchange

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/experimental"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	exchangev1 "github.com/strait-dev/strait/proto/exchange/v1"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/row/codec"
)

// frameSlack is what a frame may hold beyond its encoded batch (protobuf framing).
const frameSlack = 64 << 10

// Server receives channels from other runners and hands their messages to local consumers.
// One runs per runner process.
type Server struct {
	log  *slog.Logger
	opts options
	gs   *grpc.Server

	// ctx ends at Stop; it bounds the delivery of failures, which happens after a channel's
	// own context has ended.
	ctx    context.Context
	cancel context.CancelFunc

	handlers sync.WaitGroup // running Transfer calls

	mu      sync.Mutex
	regs    map[regKey]*registration
	changed chan struct{} // closed and replaced at every Accept
}

type regKey struct {
	job                             int64
	pipeline, epoch, edge, consumer int
}

// registration is one consumer's Accept.
type registration struct {
	deliver func(ctx context.Context, producer int, m Message) error
	// guarded by Server.mu
	gone   bool
	active map[int]context.CancelCauseFunc // producers with an open channel
	ended  map[int]bool                    // producers whose channel delivered End or Failed
}

type handler struct {
	exchangev1.UnimplementedExchangeServer
	s *Server
}

// NewServer creates a runner's exchange server; Serve starts it.
func NewServer(log *slog.Logger, opts ...Option) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	o := newOptions(opts)
	s := &Server{
		log:     log,
		opts:    o,
		regs:    map[regKey]*registration{},
		changed: make(chan struct{}),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.gs = grpc.NewServer(
		grpc.Creds(transportCredentials(o.tls, log)),
		// Fixed windows: they are the bound on bytes in flight per channel and connection.
		grpc.StaticStreamWindowSize(o.window),
		grpc.StaticConnWindowSize(8*o.window),
		grpc.MaxRecvMsgSize(o.maxFrame+frameSlack),
		grpc.ReadBufferSize(256<<10),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: o.keepaliveTime, Timeout: o.keepaliveTimeout}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: time.Second, PermitWithoutStream: true}),
		grpc.ForceServerCodecV2(wireCodec{}),
		experimental.BufferPool(bufPool),
	)
	exchangev1.RegisterExchangeServer(s.gs, &handler{s: s})
	return s
}

// Serve accepts connections on lis until Stop; it returns nil after Stop.
func (s *Server) Serve(lis net.Listener) error {
	if err := s.gs.Serve(lis); err != nil {
		return fmt.Errorf("exchange: serve on %s: %w", lis.Addr(), err)
	}
	return nil
}

// stopGrace is how long Stop lets broken channels report to their consumers.
const stopGrace = 2 * time.Second

// Stop closes the listeners and every connection at once: producers' channels fail. Consumers
// are told of the channels that broke, for as long as stopGrace; failures still waiting for a
// full consumer queue after that are dropped.
func (s *Server) Stop() {
	s.gs.Stop()
	done := make(chan struct{})
	go func() {
		s.handlers.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(stopGrace):
	}
	s.cancel()
}

// Accept registers where the channels of one consumer subtask go: every producer's channel
// for (job, pipeline, epoch, edge, consumer) delivers into deliver. deliver is called from
// the channel's stream goroutine, so in order per producer and concurrently across producers;
// it blocks to apply backpressure and returns an error when the consumer is gone, which fails
// the channel towards its producer (a message deliver returns an error for was not taken: a
// batch in it is released). deliver must return promptly once ctx is done. Call unregister
// when the consumer task ends; it fails the channels still open.
func (s *Server) Accept(job int64, pipeline, epoch, edge, consumer int, deliver func(ctx context.Context, producer int, m Message) error) (unregister func()) {
	k := regKey{job: job, pipeline: pipeline, epoch: epoch, edge: edge, consumer: consumer}
	reg := &registration{deliver: deliver, active: map[int]context.CancelCauseFunc{}, ended: map[int]bool{}}
	s.mu.Lock()
	if old := s.regs[k]; old != nil {
		s.log.Warn("exchange: a consumer registered twice; the newer registration replaces the older",
			"job", job, "pipeline", pipeline, "epoch", epoch, "edge", edge, "consumer", consumer)
		s.retireLocked(old)
	}
	s.regs[k] = reg
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			if s.regs[k] == reg {
				delete(s.regs, k)
			}
			s.retireLocked(reg)
			s.mu.Unlock()
		})
	}
}

func (s *Server) retireLocked(reg *registration) {
	reg.gone = true
	for _, cancel := range reg.active {
		cancel(ErrConsumerGone)
	}
}

func (h *handler) Transfer(stream exchangev1.Exchange_TransferServer) error {
	return h.s.transfer(stream)
}

func (s *Server) transfer(stream exchangev1.Exchange_TransferServer) error {
	s.handlers.Add(1)
	defer s.handlers.Done()
	ctx, cancel := context.WithCancelCause(stream.Context())
	defer cancel(nil)
	var in inFrame
	if err := stream.RecvMsg(&in); err != nil {
		if errors.Is(err, io.EOF) {
			return status.Error(codes.InvalidArgument, "exchange: the stream ended before Open")
		}
		return err
	}
	if in.buf != nil {
		bufPool.Put(in.buf)
	}
	open := in.frame.GetOpen()
	if open == nil {
		return status.Error(codes.InvalidArgument, "exchange: the first frame is not Open")
	}
	from := "an unknown address"
	if p, ok := peer.FromContext(stream.Context()); ok && p.Addr != nil {
		from = p.Addr.String()
	}
	k := Key{Job: open.JobId, Pipeline: int(open.Pipeline), Epoch: int(open.Epoch), Edge: int(open.Edge),
		Producer: int(open.ProducerSubtask), Consumer: int(open.ConsumerSubtask)}
	if k.Job < 0 || k.Pipeline < 0 || k.Epoch < 0 || k.Edge < 0 || k.Producer < 0 || k.Consumer < 0 {
		return status.Errorf(codes.InvalidArgument, "exchange: invalid channel %s", k)
	}
	reg, err := s.await(ctx, k)
	if err != nil {
		return err
	}
	if err := s.join(reg, k, cancel); err != nil {
		return err
	}
	defer s.leave(reg, k.Producer)
	// Headers tell the producer the channel is connected to its consumer.
	if err := stream.SendHeader(nil); err != nil {
		s.fail(reg, k, fmt.Errorf("exchange: channel %s broke: %w", k, err))
		return err
	}
	return s.receive(ctx, stream, reg, k, from)
}

// await waits for the channel's consumer to register, at most the registration timeout.
func (s *Server) await(ctx context.Context, k Key) (*registration, error) {
	rk := regKey{job: k.Job, pipeline: k.Pipeline, epoch: k.Epoch, edge: k.Edge, consumer: k.Consumer}
	timer := time.NewTimer(s.opts.registrationTimeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		reg, changed := s.regs[rk], s.changed
		s.mu.Unlock()
		if reg != nil {
			return reg, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			s.log.Warn("exchange: no consumer registered for a channel", "channel", k, "waited", s.opts.registrationTimeout)
			return nil, status.Errorf(codes.NotFound, "exchange: no consumer registered for channel %s within %s", k, s.opts.registrationTimeout)
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
}

func (s *Server) join(reg *registration, k Key, cancel context.CancelCauseFunc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case reg.gone:
		return status.Errorf(codes.Aborted, "exchange: channel %s: %v", k, ErrConsumerGone)
	case reg.active[k.Producer] != nil:
		return status.Errorf(codes.AlreadyExists, "exchange: channel %s is already open", k)
	case reg.ended[k.Producer]:
		return status.Errorf(codes.FailedPrecondition, "exchange: channel %s already ended", k)
	}
	reg.active[k.Producer] = cancel
	return nil
}

func (s *Server) leave(reg *registration, producer int) {
	s.mu.Lock()
	delete(reg.active, producer)
	reg.ended[producer] = true
	s.mu.Unlock()
}

// fail tells the consumer that the channel broke, unless it is gone.
func (s *Server) fail(reg *registration, k Key, err error) {
	s.mu.Lock()
	gone := reg.gone
	s.mu.Unlock()
	if gone {
		return
	}
	s.log.Warn("exchange: channel failed", "channel", k, "error", err)
	if derr := reg.deliver(s.ctx, k.Producer, Message{Failed: err}); derr != nil {
		s.log.Debug("exchange: the consumer did not take a channel failure", "channel", k, "error", derr)
	}
}

// receive hands the channel's frames to the consumer until End.
func (s *Server) receive(ctx context.Context, stream exchangev1.Exchange_TransferServer, reg *registration, k Key, from string) error {
	counters := s.opts.metrics.received(k)
	var in inFrame
	for {
		if err := stream.RecvMsg(&in); err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("exchange: channel %s: the producer closed the stream without End", k)
				s.fail(reg, k, err)
				return status.Error(codes.InvalidArgument, err.Error())
			}
			if cause := context.Cause(ctx); errors.Is(cause, ErrConsumerGone) {
				return status.Errorf(codes.Aborted, "exchange: channel %s: %v", k, cause)
			}
			s.fail(reg, k, fmt.Errorf("exchange: channel %s from %s broke (connection lost, peer dead or producer aborted): %w", k, from, err))
			return err
		}
		m, err := message(&in, &counters)
		if err != nil {
			err = fmt.Errorf("exchange: channel %s: %w", k, err)
			s.fail(reg, k, err)
			return status.Error(codes.InvalidArgument, err.Error())
		}
		if err := reg.deliver(ctx, k.Producer, m); err != nil {
			m.Batch.Release()
			if cause := context.Cause(ctx); cause != nil {
				if errors.Is(cause, ErrConsumerGone) {
					return status.Errorf(codes.Aborted, "exchange: channel %s: %v", k, cause)
				}
				s.fail(reg, k, fmt.Errorf("exchange: channel %s from %s broke (connection lost, peer dead or producer aborted): %w", k, from, cause))
				return status.FromContextError(ctx.Err()).Err()
			}
			return status.Errorf(codes.Aborted, "exchange: channel %s: the consumer refused a message: %v", k, err)
		}
		switch {
		case m.Marker != nil:
			if err := stream.Send(&exchangev1.Ack{Kind: &exchangev1.Ack_Marker{Marker: &exchangev1.MarkerAck{Id: m.Marker.ID}}}); err != nil {
				s.fail(reg, k, fmt.Errorf("exchange: channel %s broke: %w", k, err))
				return err
			}
		case m.End:
			// The consumer has everything; a failure to ack is the producer's to see.
			return stream.Send(&exchangev1.Ack{Kind: &exchangev1.Ack_End{End: &exchangev1.EndAck{}}})
		}
	}
}

// message turns a received frame into a consumer's message, decoding a batch.
func message(in *inFrame, counters *edgeCounters) (Message, error) {
	var data []byte
	if in.buf != nil {
		data = in.batch
		defer func() {
			bufPool.Put(in.buf)
			in.batch, in.buf = nil, nil
		}()
	} else {
		switch x := in.frame.Kind.(type) {
		case *exchangev1.Frame_Batch:
			data = x.Batch.GetData()
		case *exchangev1.Frame_Marker:
			return Message{Marker: &Marker{ID: x.Marker.GetId(), Kind: x.Marker.GetKind(), Data: x.Marker.GetData()}}, nil
		case *exchangev1.Frame_End:
			return Message{End: true}, nil
		case *exchangev1.Frame_Open:
			return Message{}, errors.New("unexpected Open frame")
		default:
			return Message{}, errors.New("empty frame")
		}
	}
	b := row.NewBatch(0)
	if err := codec.DecodeBatch(data, b); err != nil {
		b.Release()
		return Message{}, fmt.Errorf("corrupt batch: %w", err)
	}
	counters.add(len(data))
	return Message{Batch: b}, nil
}
