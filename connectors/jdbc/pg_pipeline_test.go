package jdbc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

// scoreRows is n INSERT rows of scoreTable, keys from 1; the row with key bad (if any)
// has score -1.
func scoreRows(n, bad int) *row.Batch {
	var rows []any
	for i := 1; i <= n; i++ {
		score := i
		if i == bad {
			score = -1
		}
		rows = append(rows, row.Insert, i, fmt.Sprintf("n%d", i), score)
	}
	return scoreBatch(rows...)
}

func count(t *testing.T, conn *pgx.Conn, query string) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestSinkPipelinedFlushError: a flush the server refuses while later flushes are in
// flight fails the writer naming the table and the flush's rows, and no flush after it is
// applied, through each write path (one INSERT of arrays, COPY, statements per row).
// use_copy_statement writes a batch_size under copyMinRows as the INSERT of arrays.
func TestSinkPipelinedFlushError(t *testing.T) {
	for _, tc := range []struct {
		name, opts string
		batch      int
		copy       bool // the flushes go as COPY
	}{
		{"bulk insert", "primary_keys = []", 10, false},
		{"use_copy_statement, small batches", "use_copy_statement = true", 10, false},
		{"copy", "use_copy_statement = true", copyMinRows, true},
		{"no key, large batches", "primary_keys = []", copyMinRows, true},
		{"per-row statements", "primary_keys = [pk_id]\nenable_upsert = false", 10, false},
		{"bulk upsert", "primary_keys = [pk_id]", 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, conn := testDB(t)
			ctx := context.Background()
			mustExec(t, conn, "CREATE TABLE sink (pk_id BIGINT PRIMARY KEY, name TEXT, score INT CHECK (score >= 0))")
			_, w := openWriter(t, genConf(url, "sink")+fmt.Sprintf("batch_size = %d\n", tc.batch)+tc.opts+"\n", scoreTable(), connector.WriterContext{Job: connector.Job{ID: 42}})
			if pw, ok := w.(*writer); !ok || (pw.copy != "") != tc.copy {
				t.Fatalf("the writer (%T) does not write its flushes as COPY = %v", w, tc.copy)
			}
			// five flushes; a row of the second breaks the check
			b := tc.batch
			err := w.Write(ctx, scoreRows(5*b, b+5))
			if err == nil {
				_, err = w.PrepareCommit(ctx, 1)
			}
			if err == nil {
				t.Fatal("a refused flush was not reported")
			}
			for _, want := range []string{fmt.Sprintf("write rows %d to %d (%d rows) to sink:", b+1, 2*b, b), "check constraint"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %s", err, want)
				}
			}
			if !connector.IsPermanent(err) {
				t.Errorf("a refused flush is not permanent: %v", err)
			}
			if got, want := dump(t, conn, "SELECT min(pk_id), max(pk_id), count(*) FROM sink"), fmt.Sprintf("(1,%d,%d)", b, b); got != want {
				t.Errorf("applied rows (min, max, count) = %s, want the first flush's only: %s", got, want)
			}
			if _, err := w.PrepareCommit(ctx, 2); err == nil {
				t.Error("the writer took a checkpoint after a failed flush")
			}
		})
	}
}

// lockTable takes an exclusive lock on table in a transaction of conn, so that the
// writer's flushes wait on the server; it returns the table's oid and a func that releases
// the lock.
func lockTable(t *testing.T, conn *pgx.Conn, table string) (uint32, func()) {
	t.Helper()
	ctx := context.Background()
	var oid uint32
	if err := conn.QueryRow(ctx, "SELECT $1::regclass::oid", table).Scan(&oid); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE "+table+" IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	return oid, func() {
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// waitFor polls cond (every few milliseconds, for at most 30 s) until it holds, failing
// the test if done yields first.
func waitFor(t *testing.T, what string, done <-chan error, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		select {
		case err := <-done:
			t.Fatalf("returned (%v) before %s", err, what)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitBlocked waits until a backend waits for the lock on the table of oid, failing if
// done yields first, and returns the backend's pid.
func waitBlocked(t *testing.T, oid uint32, done <-chan error) int32 {
	t.Helper()
	// a second connection: the locking one is in its transaction
	_, watcher := testDB(t)
	var pid int32
	waitFor(t, "a flush waits for the lock", done, func() bool {
		err := watcher.QueryRow(context.Background(), "SELECT pid FROM pg_locks WHERE NOT granted AND relation = $1", oid).Scan(&pid)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
		return err == nil
	})
	return pid
}

// TestSinkCheckpointWaitsForFlushes: flushes are in flight when a checkpoint is taken; the
// checkpoint returns only once the server applied them, so every row is in the table
// when it does.
func TestSinkCheckpointWaitsForFlushes(t *testing.T) {
	ctx := context.Background()
	w, conn := keylessWriter(t, "batch_size = 10", connector.WriterContext{Job: connector.Job{ID: 42}})
	oid, release := lockTable(t, conn, "sink")
	// two flushes sent (as many as may be in flight), nothing buffered: the checkpoint
	// has nothing to send, only flushes to wait for
	if err := w.Write(ctx, scoreRows(20, 0)); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := w.PrepareCommit(ctx, 1)
		done <- err
	}()
	waitBlocked(t, oid, done)
	select {
	case err := <-done:
		t.Fatalf("the checkpoint returned (%v) before its flushes were applied", err)
	default:
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := count(t, conn, "SELECT count(*) FROM sink"); n != 20 {
		t.Errorf("%d rows in the table when the checkpoint returned, want 20", n)
	}
}

// TestSinkExactlyOnceCancelMidFlush: cancelling a checkpoint while its flushes wait on the
// server leaves nothing of them in the table and no transaction prepared.
func TestSinkExactlyOnceCancelMidFlush(t *testing.T) {
	ctx := context.Background()
	w, conn := keylessWriter(t, "batch_size = 10\nis_exactly_once = true", connector.WriterContext{Job: connector.Job{ID: 4242}, Epoch: 1})
	oid, release := lockTable(t, conn, "sink")
	if err := w.Write(ctx, scoreRows(25, 0)); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := w.PrepareCommit(cctx, 1)
		done <- err
	}()
	pid := waitBlocked(t, oid, done)
	cancel()
	if err := <-done; err == nil || !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("cancelled checkpoint: %v", err)
	}
	release()
	// the writer's backend ends once it finds its client gone
	waitFor(t, "the writer's backend ends", nil, func() bool {
		return count(t, conn, fmt.Sprintf("SELECT count(*) FROM pg_stat_activity WHERE pid = %d", pid)) == 0
	})
	if n := count(t, conn, "SELECT count(*) FROM sink"); n != 0 {
		t.Errorf("%d rows of a cancelled exactly-once checkpoint in the table", n)
	}
	if n := count(t, conn, "SELECT count(*) FROM pg_prepared_xacts WHERE gid LIKE 'strait-4242-%'"); n != 0 {
		t.Errorf("%d transactions of a cancelled checkpoint prepared", n)
	}
}

// TestSinkExactlyOnceCopyError: with is_exactly_once a checkpoint's flushes of an
// append-only table stream into one COPY; a refused row fails the checkpoint naming the
// checkpoint's rows and the row's line in the COPY, and nothing is prepared or applied.
func TestSinkExactlyOnceCopyError(t *testing.T) {
	for _, opts := range []string{"primary_keys = []", "use_copy_statement = true"} {
		t.Run(opts, func(t *testing.T) {
			url, conn := testDB(t)
			ctx := context.Background()
			mustExec(t, conn, "CREATE TABLE sink (pk_id BIGINT, name TEXT, score INT CHECK (score >= 0))")
			s, w := openWriter(t, genConf(url, "sink")+"batch_size = 10\nis_exactly_once = true\n"+opts+"\n", scoreTable(), connector.WriterContext{Job: connector.Job{ID: 4343}, Epoch: 1})
			// a good checkpoint first: the rows of the second are counted on from it
			info := conntest.WritePrepare(ctx, t, w, 1, scoreRows(5, 0))
			com, _ := s.CreateCommitter()
			if err := com.Commit(ctx, connector.CommitRequest{CheckpointID: 1, Infos: [][]byte{info}}); err != nil {
				t.Fatal(err)
			}
			b := scoreRows(50, 15)
			for i := range b.Rows {
				b.Rows[i].Fields[0] = row.BigIntValue(int64(100 + i))
			}
			err := w.Write(ctx, b)
			if err == nil {
				_, err = w.PrepareCommit(ctx, 2)
			}
			if err == nil {
				t.Fatal("a refused row was not reported")
			}
			for _, want := range []string{"write rows 6 to 55 (50 rows) to sink:", "check constraint", "line 15"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %s", err, want)
				}
			}
			if got := dump(t, conn, "SELECT count(*), max(pk_id) FROM sink"); got != "(5,5)" {
				t.Errorf("rows (count, max key) = %s, want the first checkpoint's only: (5,5)", got)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_prepared_xacts WHERE gid LIKE 'strait-4343-%'"); n != 0 {
				t.Errorf("%d transactions prepared", n)
			}
		})
	}
}
