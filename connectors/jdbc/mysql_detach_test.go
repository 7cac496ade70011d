package jdbc

import (
	"context"
	"fmt"
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// TestMySQLPreparedIsCommittableAtOnce: once PrepareCommit returns, the session that
// prepared the XA transaction is gone from the server, so a committer in another session
// commits it at once, every time. The server ends a session some time after its client
// closed it, longer on a loaded machine; a commit that came before (a checkpoint completes
// within milliseconds) found no such transaction, took it for committed, and left it
// prepared with its rows. On an idle server the race is rarely lost; this test holds the
// writer to the order that excludes it.
func TestMySQLPreparedIsCommittableAtOnce(t *testing.T) {
	d := newMyDB(t)
	ctx := context.Background()
	conf := d.exactlyOnceSink(t, "")
	s, err := newSink(t, conf, scoreTable())
	if err != nil {
		t.Fatal(err)
	}
	tag := s.cfg.tag
	t.Cleanup(func() {
		live, _ := xaRecover(ctx, d.DB, "strait-42-"+tag)
		for x := range live {
			_ = xaRollback(ctx, d.DB, x)
		}
	})
	w, err := s.CreateWriter(connector.WriterContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: 42}, Epoch: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	com, _ := s.CreateCommitter()
	const checkpoints = 20
	for cp := int64(1); cp <= checkpoints; cp++ {
		if err := w.Write(ctx, scoreBatch(row.Insert, int(cp), "A", int(cp))); err != nil {
			t.Fatal(err)
		}
		preparing := w.(*myWriter).connID
		info, err := w.PrepareCommit(ctx, cp)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.dump(t, fmt.Sprintf("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = %d", preparing)); got != "(0)" {
			t.Fatalf("checkpoint %d: PrepareCommit returned while its session %d was still on the server", cp, preparing)
		}
		if err := com.Commit(ctx, connector.CommitRequest{CheckpointID: cp, Infos: [][]byte{info}}); err != nil {
			t.Fatalf("commit of checkpoint %d: %v", cp, err)
		}
		if left := d.xaLeft(t, tag); left != "" {
			t.Fatalf("checkpoint %d committed at once, yet %s is still prepared", cp, left)
		}
	}
	if got := d.dump(t, "SELECT COUNT(*) FROM sink"); got != "(20)" {
		t.Fatalf("the table holds %s rows, want 20", got)
	}
}
