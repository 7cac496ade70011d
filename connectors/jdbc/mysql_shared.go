package jdbc

import (
	"context"
	"database/sql"
	"sync"

	"github.com/strait-dev/strait/connector"
)

// The writers of one subtask of a MySQL sink that write in auto-commit share one session:
// a multi-table sink has a writer per table, and SeaTunnel's writer keeps one connection for
// all of them. The session is opened at the first flush, so a subtask that is given no rows
// (a change source's subtasks but the one reading the log) holds no connection at all.
// Writers with a transaction of their own (is_exactly_once, auto_commit = false) keep a
// session each: a session holds one transaction.

// mySession is what a writer runs its statements on: its own session (*sql.Conn) or the
// subtask's shared one (*sql.DB of one connection).
type mySession interface {
	execer
	queryer
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// sharedKey names a subtask's shared session: the sink, the server and user, the job's
// attempt and the subtask.
type sharedKey struct {
	where, dsn string
	job        int64
	epoch      int
	index      int
}

type sharedDB struct {
	db   *sql.DB
	refs int
}

var sharedDBs = struct {
	sync.Mutex
	m map[sharedKey]*sharedDB
}{m: map[sharedKey]*sharedDB{}}

// shared returns the subtask's shared pool of one connection, opening it for the first of
// its writers, and the func that gives it back (the last closes it).
func (mc *myConn) shared(ctx context.Context, where string, wc connector.WriterContext) (*sql.DB, func(), error) {
	k := sharedKey{where: where, dsn: mc.cfg.FormatDSN(), job: wc.Job.ID, epoch: wc.Epoch, index: wc.Index}
	sharedDBs.Lock()
	defer sharedDBs.Unlock()
	s := sharedDBs.m[k]
	if s == nil {
		db, err := mc.open(ctx, 1)
		if err != nil {
			return nil, nil, err
		}
		s = &sharedDB{db: db}
		sharedDBs.m[k] = s
	}
	s.refs++
	var once sync.Once
	return s.db, func() {
		once.Do(func() {
			sharedDBs.Lock()
			defer sharedDBs.Unlock()
			if s.refs--; s.refs == 0 {
				delete(sharedDBs.m, k)
				s.db.Close()
			}
		})
	}, nil
}

// idleUntilWritten lets the shared session's connection go once the writer is set up: the
// first flush of any of the subtask's writers opens it again.
func idleUntilWritten(db *sql.DB) {
	db.SetMaxIdleConns(0) // closes the idle connection
	db.SetMaxIdleConns(1)
}

// sharedSession reports whether a writer of c writes through its subtask's shared session.
func sharedSession(c *sinkConfig) bool { return !c.exactlyOnce && c.autoCommit }
