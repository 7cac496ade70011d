package taskrunner

import (
	"time"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/row"
)

// readLimiter paces one source reader to the job's read_limit.rows_per_second and
// read_limit.bytes_per_second, as SeaTunnel limits each reader subtask: what was read is
// paid for at the limit's rate, and the reader polls again only once it is paid. A poll asks
// for at most one second's worth (of rows, or of bytes at the size rows had so far; a
// single row first), so a slow limit reads smoothly rather than a full batch and a long
// pause.
type readLimiter struct {
	rows, bytes float64   // per second; 0: no limit
	paid        time.Time // when everything read so far is paid for
	// with a bytes limit, what was read so far: its mean row size sizes the next poll
	readRows, readBytes int64
}

// newReadLimiter returns the reader's limiter, or nil when the job sets no limit.
func newReadLimiter(env contract.Env) *readLimiter {
	if env.ReadLimitRows <= 0 && env.ReadLimitBytes <= 0 {
		return nil
	}
	return &readLimiter{rows: float64(env.ReadLimitRows), bytes: float64(env.ReadLimitBytes)}
}

// batchSize caps a poll's batch at one second's worth.
func (l *readLimiter) batchSize(size int) int {
	if l == nil {
		return size
	}
	if l.rows > 0 {
		size = min(size, int(l.rows))
	}
	if l.bytes > 0 {
		if l.readRows == 0 {
			return 1
		}
		rowSize := max(float64(l.readBytes)/float64(l.readRows), 1)
		size = min(size, int(l.bytes/rowSize))
	}
	return max(size, 1)
}

// wait is how long the reader must still wait before it polls.
func (l *readLimiter) wait(now time.Time) time.Duration { return l.paid.Sub(now) }

// took records a batch read at now.
func (l *readLimiter) took(b *row.Batch, now time.Time) {
	if b.Len() == 0 {
		return
	}
	var cost float64 // seconds
	if l.rows > 0 {
		cost = float64(b.Len()) / l.rows
	}
	if l.bytes > 0 {
		n := 0
		for i := range b.Rows {
			n += b.RowSize(i)
		}
		cost = max(cost, float64(n)/l.bytes)
		l.readRows += int64(b.Len())
		l.readBytes += int64(n)
	}
	if l.paid.Before(now) {
		l.paid = now
	}
	l.paid = l.paid.Add(time.Duration(cost * float64(time.Second)))
}
