package binlog

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// maxPayload is the largest payload of one packet; a longer one continues in the next.
const maxPayload = 1<<24 - 1

// packets reads and writes the protocol's packets: a 3-byte length and a sequence number,
// then the payload.
type packets struct {
	conn    net.Conn
	r       *bufio.Reader
	seq     uint8
	buf     []byte // the last payload read, reused
	timeout time.Duration
}

func newPackets(c net.Conn) *packets {
	return &packets{conn: c, r: bufio.NewReaderSize(c, 64<<10)}
}

// read returns the next payload, joined from as many packets as it takes. It is valid until
// the next read.
func (p *packets) read() ([]byte, error) {
	if p.timeout > 0 {
		_ = p.conn.SetReadDeadline(time.Now().Add(p.timeout))
	}
	p.buf = p.buf[:0]
	var hdr [4]byte
	for {
		if _, err := io.ReadFull(p.r, hdr[:]); err != nil {
			return nil, fmt.Errorf("read packet: %w", err)
		}
		n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
		p.seq = hdr[3] + 1
		start := len(p.buf)
		if cap(p.buf)-start < n {
			grown := make([]byte, start, start+n+start/2)
			copy(grown, p.buf)
			p.buf = grown
		}
		p.buf = p.buf[:start+n]
		if _, err := io.ReadFull(p.r, p.buf[start:]); err != nil {
			return nil, fmt.Errorf("read packet: %w", err)
		}
		if n < maxPayload {
			return p.buf, nil
		}
	}
}

// write sends payload as one or more packets, numbered from the current sequence.
func (p *packets) write(payload []byte) error {
	if p.timeout > 0 {
		_ = p.conn.SetWriteDeadline(time.Now().Add(p.timeout))
		defer p.conn.SetWriteDeadline(time.Time{})
	}
	for {
		n := min(len(payload), maxPayload)
		hdr := [4]byte{byte(n), byte(n >> 8), byte(n >> 16), p.seq}
		p.seq++
		if _, err := p.conn.Write(append(hdr[:], payload[:n]...)); err != nil {
			return fmt.Errorf("write packet: %w", err)
		}
		payload = payload[n:]
		if n < maxPayload {
			return nil
		}
	}
}

// command sends a command packet: the sequence starts again at 0.
func (p *packets) command(payload []byte) error {
	p.seq = 0
	return p.write(payload)
}

// errShort is the error of a field that runs past the end of its packet or event.
var errShort = errors.New("truncated")

// reader reads the fields of a payload; the first error sticks and later reads return zero.
type reader struct {
	b   []byte
	pos int
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errShort
	}
	r.pos = len(r.b)
}

func (r *reader) left() int { return len(r.b) - r.pos }

func (r *reader) bytes(n int) []byte {
	if n < 0 || r.left() < n {
		r.fail()
		return nil
	}
	b := r.b[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return b
}

func (r *reader) rest() []byte { return r.bytes(r.left()) }

func (r *reader) skip(n int) { r.bytes(n) }

func (r *reader) u8() uint8 {
	b := r.bytes(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (r *reader) u16() uint16 {
	b := r.bytes(2)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint16(b)
}

func (r *reader) u24() uint32 {
	b := r.bytes(3)
	if b == nil {
		return 0
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
}

func (r *reader) u32() uint32 {
	b := r.bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (r *reader) u48() uint64 {
	b := r.bytes(6)
	if b == nil {
		return 0
	}
	return uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint16(b[4:]))<<32
}

func (r *reader) u64() uint64 {
	b := r.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// uintN reads an n-byte little-endian integer (n at most 8).
func (r *reader) uintN(n int) uint64 {
	b := r.bytes(n)
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// lenenc reads a length-encoded integer; null reports the NULL marker (0xFB).
func (r *reader) lenenc() (v uint64, null bool) {
	switch c := r.u8(); {
	case c < 0xFB:
		return uint64(c), false
	case c == 0xFB:
		return 0, true
	case c == 0xFC:
		return uint64(r.u16()), false
	case c == 0xFD:
		return uint64(r.u24()), false
	case c == 0xFE:
		return r.u64(), false
	default:
		r.fail()
		return 0, false
	}
}

// count reads a length-encoded count that must fit what is left of the payload.
func (r *reader) count() int {
	v, _ := r.lenenc()
	if v > uint64(r.left()) {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *reader) lenencBytes() []byte {
	v, null := r.lenenc()
	if null {
		return nil
	}
	if v > uint64(r.left()) {
		r.fail()
		return nil
	}
	return r.bytes(int(v))
}

// cstring reads a NUL-terminated string (or the rest when no NUL follows).
func (r *reader) cstring() string {
	for i := r.pos; i < len(r.b); i++ {
		if r.b[i] == 0 {
			s := string(r.b[r.pos:i])
			r.pos = i + 1
			return s
		}
	}
	return string(r.rest())
}

func appendLenenc(b []byte, v uint64) []byte {
	switch {
	case v < 0xFB:
		return append(b, byte(v))
	case v < 1<<16:
		return append(b, 0xFC, byte(v), byte(v>>8))
	case v < 1<<24:
		return append(b, 0xFD, byte(v), byte(v>>8), byte(v>>16))
	default:
		return binary.LittleEndian.AppendUint64(append(b, 0xFE), v)
	}
}
