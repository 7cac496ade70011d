package exchange

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	exchangev1 "github.com/strait-dev/strait/proto/exchange/v1"
)

// The exchange's gRPC codec. It speaks the protobuf wire format of proto/exchange/v1 (any
// protobuf client or server interoperates), and moves batch frames without the copies and
// the buffer clearing of gRPC's generic codec:
//
//   - sending, a Sender encodes a batch straight into a pooled buffer and hands it to gRPC as
//     an outBatch; the codec only prepends the few bytes of protobuf framing, and gRPC returns
//     the buffer to the pool once it is written to the connection;
//   - receiving, the codec copies the message into one pooled buffer and, for a batch frame,
//     points at the encoded batch inside it (an inFrame); the Server returns the buffer to
//     the pool once the batch is decoded.
//
// Every other message goes through the protobuf library as usual.

// outBatch is a batch frame on its way out: data holds the encoded batch and belongs to
// bufPool; gRPC frees it.
type outBatch struct {
	data *[]byte
}

// inFrame is a received frame: either a batch (batch, inside buf, which belongs to bufPool and
// must be put back after use) or any other frame (frame).
type inFrame struct {
	frame exchangev1.Frame
	batch []byte
	buf   *[]byte
}

type wireCodec struct{}

// Name keeps gRPC's content subtype of protobuf: the wire format is exactly protobuf.
func (wireCodec) Name() string { return "proto" }

const (
	tagFrameBatch = 2<<3 | 2 // Frame.batch, length-delimited
	tagBatchData  = 1<<3 | 2 // Batch.data, length-delimited
)

func (wireCodec) Marshal(v any) (mem.BufferSlice, error) {
	switch m := v.(type) {
	case *outBatch:
		n := len(*m.data)
		inner := 1 + uvarintLen(uint64(n)) + n
		hdr := make([]byte, 0, 2+2*binary.MaxVarintLen64)
		hdr = append(hdr, tagFrameBatch)
		hdr = binary.AppendUvarint(hdr, uint64(inner))
		hdr = append(hdr, tagBatchData)
		hdr = binary.AppendUvarint(hdr, uint64(n))
		return mem.BufferSlice{mem.SliceBuffer(hdr), mem.NewBuffer(m.data, bufPool)}, nil
	case proto.Message:
		b, err := proto.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("exchange: marshal %T: %w", v, err)
		}
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	return nil, fmt.Errorf("exchange: cannot marshal %T", v)
}

func (wireCodec) Unmarshal(data mem.BufferSlice, v any) error {
	switch m := v.(type) {
	case *inFrame:
		bp := bufPool.Get(data.Len())
		buf := *bp
		data.CopyTo(buf)
		if batch, ok := batchPayload(buf); ok {
			m.frame.Reset()
			m.batch, m.buf = batch, bp
			return nil
		}
		m.batch, m.buf = nil, nil
		err := proto.Unmarshal(buf, &m.frame) // copies what it keeps
		bufPool.Put(bp)
		if err != nil {
			return fmt.Errorf("exchange: unmarshal a frame: %w", err)
		}
		return nil
	case proto.Message:
		if err := proto.Unmarshal(data.Materialize(), m); err != nil {
			return fmt.Errorf("exchange: unmarshal %T: %w", v, err)
		}
		return nil
	}
	return fmt.Errorf("exchange: cannot unmarshal into %T", v)
}

// batchPayload recognises the one layout a batch frame has when nothing but its data is set,
// and returns that data. Anything else is left to the protobuf library.
func batchPayload(b []byte) ([]byte, bool) {
	if len(b) < 2 || b[0] != tagFrameBatch {
		return nil, false
	}
	inner, n := binary.Uvarint(b[1:])
	if n <= 0 || inner != uint64(len(b)-1-n) {
		return nil, false
	}
	b = b[1+n:]
	if len(b) < 2 || b[0] != tagBatchData {
		return nil, false
	}
	size, n := binary.Uvarint(b[1:])
	if n <= 0 || size != uint64(len(b)-1-n) {
		return nil, false
	}
	return b[1+n:], true
}

func uvarintLen(x uint64) int {
	return (bits.Len64(x|1) + 6) / 7
}

// pool is a tiered pool of byte buffers that, unlike gRPC's default pool, does not clear what
// it hands out: every user overwrites the bytes it then reads. Tier k holds buffers of at
// least 2^k bytes.
type pool struct {
	tiers [maxTier + 1]sync.Pool
}

const (
	minTier = 10 // 1 KiB
	maxTier = 26 // 64 MiB
)

var bufPool = &pool{}

// Get returns a buffer of length n.
func (p *pool) Get(n int) *[]byte {
	t := max(bits.Len(uint(n-1)), minTier) // smallest k with 2^k >= n
	if n <= 0 {
		t = minTier
	}
	if t > maxTier {
		b := make([]byte, n)
		return &b
	}
	if bp, ok := p.tiers[t].Get().(*[]byte); ok {
		*bp = (*bp)[:n]
		return bp
	}
	b := make([]byte, n, 1<<t)
	return &b
}

// Put returns a buffer; any capacity is accepted.
func (p *pool) Put(bp *[]byte) {
	c := cap(*bp)
	if c < 1<<minTier {
		return
	}
	t := bits.Len(uint(c)) - 1 // largest k with 2^k <= c
	if t > maxTier {
		return
	}
	p.tiers[t].Put(bp)
}
