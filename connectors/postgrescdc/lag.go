package postgrescdc

import "sync/atomic"

// streamLag is how far the change stream's reader is behind the server's end of the WAL: the
// receiving goroutine stores the newest end the server told of, the reader the position it
// emitted up to; the metrics read both from another goroutine.
type streamLag struct {
	end, read atomic.Uint64
	known     atomic.Bool
}

// observe takes the stream's positions after a poll.
func (l *streamLag) observe(s *stream) {
	end := s.walEnd.Load()
	if end == 0 {
		return // the server told of no position yet
	}
	l.end.Store(end)
	l.read.Store(uint64(s.pos))
	l.known.Store(true)
}

// BytesBehind is the WAL between what the reader emitted and the server's end, once the
// reader reads the change stream and the server told of its end.
func (r *reader) BytesBehind() (int64, bool) {
	if !r.lag.known.Load() {
		return 0, false
	}
	end, read := r.lag.end.Load(), r.lag.read.Load()
	if read >= end {
		return 0, true
	}
	return int64(end - read), true
}
