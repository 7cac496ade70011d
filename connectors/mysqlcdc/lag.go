package mysqlcdc

import (
	"context"
	"database/sql"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// logLag is how far the binlog reader is behind the end of the server's log, in bytes: the
// reader records the position it emitted up to after every poll, and a watcher asks the
// server for its log files and their sizes (SHOW BINARY LOGS) every lagPoll on a connection
// of its own; the metrics read both from another goroutine.
type logLag struct {
	mu    sync.Mutex
	read  position
	files []logFile // as the server listed them last, oldest first
	known bool      // both sides are known

	cancel context.CancelFunc
	done   chan struct{}
}

type logFile struct {
	name string
	size int64
}

// lagPoll is how often the watcher lists the server's log files.
const lagPoll = 5 * time.Second

// watch starts the watcher; stop ends it.
func (l *logLag) watch(src *Source) {
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel, l.done = cancel, make(chan struct{})
	go func() {
		defer close(l.done)
		var db *sql.DB
		defer func() {
			if db != nil {
				db.Close()
			}
		}()
		t := time.NewTicker(lagPoll)
		defer t.Stop()
		for {
			if db == nil {
				if d, err := src.open(ctx); err == nil {
					d.SetMaxOpenConns(1)
					db = d
				}
			}
			if db != nil {
				if files, err := listLogFiles(ctx, db); err == nil {
					l.mu.Lock()
					l.files = files
					l.mu.Unlock()
				} else if ctx.Err() == nil {
					slog.Debug("MySQL-CDC: the binary log files could not be listed for the lag", "plugin", src.where, "error", err)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

func (l *logLag) stop() {
	if l.cancel != nil {
		l.cancel()
		<-l.done
	}
}

// setRead records the position the reader emitted up to.
func (l *logLag) setRead(p position) {
	l.mu.Lock()
	l.read, l.known = p, p.File != ""
	l.mu.Unlock()
}

// behind is the log between the reader's position and the end of the server's newest file.
func (l *logLag) behind() (int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
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

// listLogFiles lists the server's binary log files with their sizes.
func listLogFiles(ctx context.Context, db *sql.DB) ([]logFile, error) {
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rows, err := db.QueryContext(qctx, "SHOW BINARY LOGS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
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
