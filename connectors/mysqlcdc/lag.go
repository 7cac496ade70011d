package mysqlcdc

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// logLag is how far the binlog reader is behind the end of the server's log, in bytes: the
// reader records the position it emitted up to after every poll, and the server's log files
// and their sizes (SHOW BINARY LOGS) are listed when the lag is asked for (a metrics scrape)
// and the last listing is older than lagPoll: in the background, on a connection opened for
// the listing and closed after it, so the source holds one connection to the server (its
// binary log's) between scrapes, as SeaTunnel's does.
type logLag struct {
	mu      sync.Mutex
	read    position
	files   []logFile // as the server listed them last, oldest first
	known   bool      // the reader's position is known
	listed  time.Time // when files were asked for last
	src     *Source
	ctx     context.Context
	cancel  context.CancelFunc
	pending sync.WaitGroup
}

type logFile struct {
	name string
	size int64
}

// lagPoll is how often the server's log files are listed at most.
const lagPoll = 5 * time.Second

// watch lets the lag list src's log files when asked; stop ends it.
func (l *logLag) watch(src *Source) {
	l.mu.Lock()
	l.src = src
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.mu.Unlock()
}

func (l *logLag) stop() {
	l.mu.Lock()
	cancel := l.cancel
	l.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	l.pending.Wait()
}

// refresh lists the server's log files in the background if the last listing is older
// than lagPoll; the caller holds l.mu.
func (l *logLag) refresh() {
	if l.src == nil || l.ctx.Err() != nil || time.Since(l.listed) < lagPoll {
		return
	}
	l.listed = time.Now()
	src, ctx := l.src, l.ctx
	l.pending.Add(1)
	go func() {
		defer l.pending.Done()
		files, err := listLogFiles(ctx, src)
		if err != nil {
			if ctx.Err() == nil {
				slog.Debug("MySQL-CDC: the binary log files could not be listed for the lag", "plugin", src.where, "error", err)
			}
			return
		}
		l.mu.Lock()
		l.files = files
		l.mu.Unlock()
	}()
}

// setRead records the position the reader emitted up to.
func (l *logLag) setRead(p position) {
	l.mu.Lock()
	l.read, l.known = p, p.File != ""
	l.mu.Unlock()
}

// behind is the log between the reader's position and the end of the server's newest file,
// as last listed; asking for it lists the files again when the listing is old.
func (l *logLag) behind() (int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refresh()
	if !l.known || len(l.files) == 0 {
		return 0, false
	}
	at := fileIndex(l.read.File)
	var n int64
	for _, f := range l.files {
		switch i := fileIndex(f.name); {
		case i > at:
			n += f.size
		case i == at && f.size > int64(l.read.Pos):
			n += f.size - int64(l.read.Pos)
		}
	}
	return n, true
}

// listLogFiles lists the server's binary log files with their sizes, on a connection of its
// own that it closes.
func listLogFiles(ctx context.Context, src *Source) ([]logFile, error) {
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	db, err := src.open(qctx)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(qctx, "SHOW BINARY LOGS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals, ptrs := textRow(len(cols))
	var out []logFile
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		var size int64
		if len(vals) > 1 {
			size, _ = strconv.ParseInt(vals[1].String, 10, 64)
		}
		out = append(out, logFile{name: vals[0].String, size: size})
	}
	return out, rows.Err()
}

// BytesBehind is the binary log between what the reader emitted and the end of the server's
// log, once the reader reads the log and the server listed its files.
func (r *reader) BytesBehind() (int64, bool) { return r.lag.behind() }
