// Package exchange moves row batches between Strait task runners over gRPC.
//
// A channel is one producer subtask's output towards one consumer subtask over one exchange
// edge of a deployed pipeline (job, pipeline, epoch). Each channel is one bidirectional stream
// of the Exchange service (proto/exchange/v1): Open, then batches (row/codec) and markers in
// order, then End, which the receiving runner acknowledges. Every runner runs one Server and
// one Client; the Client keeps one connection per remote runner and multiplexes all channels
// towards that runner on it, so a pipeline of parallelism P over R runners opens at most R²
// connections.
//
// Backpressure is end to end with bounded memory: the Server hands each frame to the consumer
// through the deliver function given to Accept, which blocks while the consumer's queue is
// full. While it blocks, the stream is not read, its HTTP/2 flow-control window (fixed, see
// WithWindow) fills, and the producer's Send blocks. So at most a window of encoded bytes per
// channel, plus the consumer's own queue, is ever in flight.
//
// Failures end both sides promptly. A producer learns of a broken connection, a dead peer
// (keep-alive pings, within about 15 s), a consumer that went away or a receiver-side error
// through the error of Send, Mark or Close. A consumer learns that a channel broke before End
// through a Message whose Failed field is set: for every channel accepted for it, deliver
// receives either End or Failed as the channel's last message (unless deliver itself refused
// a message, the consumer unregistered, or the server stopped).
//
// Security: without WithTLS the exchange is plain gRPC, for trusted networks. With it (a TLS
// from a runner's certificate, key and CA files) it is mutual TLS: the Server requires a
// client certificate the CA signed, the Client verifies the server's certificate against the
// CA for the peer's host or TLSFiles.ServerName, and both read their files again when they
// change.
package exchange

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/strait-dev/strait/row"
)

// Key names a channel.
type Key struct {
	Job                int64
	Pipeline, Epoch    int
	Edge               int
	Producer, Consumer int
}

func (k Key) String() string {
	return fmt.Sprintf("job %d pipeline %d epoch %d edge %d subtask %d->%d", k.Job, k.Pipeline, k.Epoch, k.Edge, k.Producer, k.Consumer)
}

// valid reports whether every part is non-negative and the subtask numbers fit the wire.
func (k Key) valid() bool {
	for _, n := range []int{k.Pipeline, k.Edge, k.Producer, k.Consumer} {
		if n < 0 || n > math.MaxInt32 {
			return false
		}
	}
	return k.Job >= 0 && k.Epoch >= 0 // both travel as 64 bits
}

// Message is what a consumer receives from one producer: exactly one field is set.
type Message struct {
	// Batch is a decoded batch; it belongs to the consumer, which should Release it when done.
	Batch *row.Batch
	// Marker travels in order with the batches (checkpoint barriers use it).
	Marker *Marker
	// End is the end of the producer's stream.
	End bool
	// Failed says that the channel broke before End (the connection, the producer, a corrupt
	// frame): nothing more comes from that producer, and rows it sent may be missing, so the
	// consumer should fail its task and let the pipeline recover from a checkpoint.
	Failed error
}

// Marker is an in-band control record: a checkpoint barrier (its id), a schema change (its
// encoding in Data), or any other kind the two ends agree on.
type Marker struct {
	ID   int64
	Kind string
	// Data is what a marker of its kind carries; it travels as Marker.data, which a
	// receiver that knows no data ignores.
	Data []byte
}

// ErrConsumerGone is the cause given to a channel whose consumer unregistered.
var ErrConsumerGone = errors.New("the consumer unregistered")

// Default settings; Options change them.
const (
	DefaultRegistrationTimeout = 30 * time.Second
	DefaultConnectTimeout      = 10 * time.Second
	// DefaultWindow is the receiver's HTTP/2 flow-control window per channel: the bound on
	// encoded bytes in flight on one channel, about 20 batches of 1,024 narrow rows.
	DefaultWindow = 1 << 20
	// DefaultMaxFrame is the largest encoded batch sent as one frame; Send splits bigger ones.
	DefaultMaxFrame = 16 << 20
	// DefaultKeepaliveTime and DefaultKeepaliveTimeout: a peer that answers no ping for
	// Time+Timeout is dead (gRPC does not let a client ping more often than every 10 s).
	DefaultKeepaliveTime    = 10 * time.Second
	DefaultKeepaliveTimeout = 5 * time.Second
)

// Option changes a Server's or a Client's settings.
type Option func(*options)

type options struct {
	registrationTimeout time.Duration
	connectTimeout      time.Duration
	window              int32
	maxFrame            int
	keepaliveTime       time.Duration
	keepaliveTimeout    time.Duration
	metrics             *Metrics
	tls                 *TLS // nil: plain gRPC
}

func newOptions(opts []Option) options {
	o := options{
		registrationTimeout: DefaultRegistrationTimeout,
		connectTimeout:      DefaultConnectTimeout,
		window:              DefaultWindow,
		maxFrame:            DefaultMaxFrame,
		keepaliveTime:       DefaultKeepaliveTime,
		keepaliveTimeout:    DefaultKeepaliveTimeout,
	}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// WithRegistrationTimeout sets how long a Server holds a channel whose consumer has not called
// Accept yet before failing it.
func WithRegistrationTimeout(d time.Duration) Option {
	return func(o *options) { o.registrationTimeout = d }
}

// WithConnectTimeout sets how long Client.Open waits for a connection to the remote runner
// (it rides out a restart of that runner within this time).
func WithConnectTimeout(d time.Duration) Option {
	return func(o *options) { o.connectTimeout = d }
}

// WithWindow sets a Server's per-channel flow-control window in bytes (at least 64 KiB); the
// connection window is eight times as large.
func WithWindow(bytes int) Option {
	return func(o *options) { o.window = int32(max(min(bytes, 1<<27), 64<<10)) }
}

// WithMaxFrame sets the largest encoded batch a Client sends as one frame and a Server
// accepts; a Client splits bigger batches (a single row bigger than this cannot be sent).
// Both ends of a channel need the same value.
func WithMaxFrame(bytes int) Option {
	return func(o *options) { o.maxFrame = max(bytes, 1<<10) }
}

// WithKeepalive sets the keep-alive ping interval and timeout. A Client pings at most every
// 10 s whatever the setting.
func WithKeepalive(interval, timeout time.Duration) Option {
	return func(o *options) { o.keepaliveTime, o.keepaliveTimeout = interval, timeout }
}

// WithMetrics counts bytes and batches per edge into m.
func WithMetrics(m *Metrics) Option {
	return func(o *options) { o.metrics = m }
}
