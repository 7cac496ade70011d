package file

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

// prepared writes n rows, one file each, and returns the sink and the commit info.
func prepared(t *testing.T, dir string, n int) (*Sink, *catalog.Table, []byte) {
	t.Helper()
	tbl := table("t", "id", "int")
	s := mustSink(t, sinkConf(dir, "batch_size = 1"), tbl)
	batches := make([]*row.Batch, n)
	for i := range batches {
		batches[i] = batchOf(tbl, []row.Value{row.IntValue(int32(i))})
	}
	return s, tbl, conntest.Prepare(t, s, 5, batches...)
}

func decodeInfo(t testing.TB, raw []byte) commitInfo {
	t.Helper()
	var ci commitInfo
	if err := json.Unmarshal(raw, &ci); err != nil {
		t.Fatal(err)
	}
	return ci
}

func commit(t *testing.T, s *Sink, infos ...[]byte) error {
	t.Helper()
	c, err := s.CreateCommitter()
	if err != nil {
		t.Fatal(err)
	}
	return c.Commit(context.Background(), connector.CommitRequest{CheckpointID: 1, Infos: infos})
}

func checkPublished(t *testing.T, dir string, n int) {
	t.Helper()
	got := files(t, filepath.Join(dir, "out"))
	if len(got) != n {
		t.Errorf("published %v, want %d files", names(got), n)
	}
	if left := files(t, filepath.Join(dir, "tmp")); len(left) > 0 {
		t.Errorf("staging left %v", names(left))
	}
}

func TestCommitTwice(t *testing.T) {
	dir := t.TempDir()
	s, _, info := prepared(t, dir, 3)
	if err := commit(t, s, info); err != nil {
		t.Fatal(err)
	}
	checkPublished(t, dir, 3)
	if err := commit(t, s, info); err != nil {
		t.Fatalf("second commit: %v", err)
	}
	checkPublished(t, dir, 3)
	// the emptied staging directories of the writer and the job are gone too
	if _, err := os.Stat(filepath.Join(dir, "tmp", "seatunnel", "5")); !os.IsNotExist(err) {
		t.Errorf("job staging directory: %v", err)
	}
}

func TestCommitAfterPartialMove(t *testing.T) {
	dir := t.TempDir()
	s, _, info := prepared(t, dir, 3)
	ci := decodeInfo(t, info)
	// an earlier attempt moved the first file and died
	os.MkdirAll(filepath.Join(dir, "out"), 0o777)
	if err := os.Rename(ci.Moves[0].From, ci.Moves[0].To); err != nil {
		t.Fatal(err)
	}
	if err := commit(t, s, info); err != nil {
		t.Fatal(err)
	}
	checkPublished(t, dir, 3)
	for _, m := range ci.Moves {
		if _, err := os.Stat(m.To); err != nil {
			t.Error(err)
		}
	}
}

func TestCommitByAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	_, tbl, info := prepared(t, dir, 2)
	// a sink built afresh from the same options, as the control plane does
	other := mustSink(t, sinkConf(dir, "batch_size = 1"), tbl)
	if err := commit(t, other, nil, info); err != nil {
		t.Fatal(err)
	}
	checkPublished(t, dir, 2)
}

func TestAbort(t *testing.T) {
	dir := t.TempDir()
	s, _, info := prepared(t, dir, 2)
	c, _ := s.CreateCommitter()
	if err := c.Abort(context.Background(), [][]byte{info}); err != nil {
		t.Fatal(err)
	}
	checkPublished(t, dir, 0)
	if err := c.Abort(context.Background(), [][]byte{info}); err != nil {
		t.Fatalf("second abort: %v", err)
	}
	// committing an aborted transaction cannot succeed quietly
	conntest.PermanentErr(t, "commit after abort", commit(t, s, info), "was aborted or its files removed")
}

func TestCommitWithAStagedFileGone(t *testing.T) {
	dir := t.TempDir()
	s, _, info := prepared(t, dir, 2)
	ci := decodeInfo(t, info)
	os.Remove(ci.Moves[1].From)
	conntest.PermanentErr(t, "commit", commit(t, s, info), "is missing and")
}

func TestCommitRefusesForeignPaths(t *testing.T) {
	dir := t.TempDir()
	s, _, info := prepared(t, dir, 1)
	ci := decodeInfo(t, info)
	for name, mutate := range map[string]func(c *commitInfo){
		"target outside path":   func(c *commitInfo) { c.Moves[0].To = filepath.Join(dir, "elsewhere", "f") },
		"target climbs out":     func(c *commitInfo) { c.Moves[0].To = filepath.Join(dir, "out", "..", "x") },
		"source not staged":     func(c *commitInfo) { c.Moves[0].From = "/etc/passwd" },
		"staging outside":       func(c *commitInfo) { c.TransactionDir = dir },
		"transaction name":      func(c *commitInfo) { c.TransactionID = "T_other" },
		"no transaction":        func(c *commitInfo) { c.TransactionID = "" },
		"target is path itself": func(c *commitInfo) { c.Moves[0].To = filepath.Join(dir, "out") },
	} {
		bad := ci
		bad.Moves = append([]move(nil), ci.Moves...)
		mutate(&bad)
		raw, _ := json.Marshal(bad)
		if err := commit(t, s, raw); err == nil || !connector.IsPermanent(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := commit(t, s, []byte("{nope")); err == nil || !connector.IsPermanent(err) || !strings.Contains(err.Error(), "bad commit info") {
		t.Errorf("garbage: %v", err)
	}
	if err := commit(t, s, info); err != nil {
		t.Fatal(err)
	}
}

func TestCommitAcrossFileSystems(t *testing.T) {
	dir := t.TempDir()
	s, _, info := prepared(t, dir, 2)
	defer func(r func(string, string) error) { rename = r }(rename)
	rename = func(from, to string) error {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: syscall.EXDEV}
	}
	if err := commit(t, s, info); err != nil {
		t.Fatal(err)
	}
	checkPublished(t, dir, 2)
	got := files(t, filepath.Join(dir, "out"))
	for n, c := range got {
		if strings.HasPrefix(filepath.Base(n), ".") || (c != "0" && c != "1") {
			t.Errorf("%s: %q", n, c)
		}
	}
}

func TestWriterRestore(t *testing.T) {
	dir := t.TempDir()
	tbl := table("t", "id", "int")
	s := mustSink(t, sinkConf(dir, ""), tbl)
	ctx := context.Background()
	wc := connector.WriterContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: 3}}
	a, _ := s.CreateWriter(wc, nil)
	info1, state1 := conntest.Barrier(ctx, t, a, 1, batchOf(tbl, []row.Value{row.IntValue(1)}))
	// rows after the checkpoint, staged but never prepared; then the writer dies
	a.Write(ctx, batchOf(tbl, []row.Value{row.IntValue(2)}))
	a.(*writer).finishAll()
	uuid := a.(*writer).uuid
	if n := len(files(t, filepath.Join(dir, "tmp"))); n != 2 {
		t.Fatalf("%d staged files", n)
	}

	b, err := s.CreateWriter(wc, [][]byte{state1})
	if err != nil {
		t.Fatal(err)
	}
	bw := b.(*writer)
	if bw.uuid != uuid || bw.txnCP != 2 {
		t.Errorf("restored writer uuid %s (was %s), transaction %d", bw.uuid, uuid, bw.txnCP)
	}
	got := files(t, filepath.Join(dir, "out"))
	if len(got) != 1 || !strings.Contains(names(got)[0], "T_3_"+uuid+"_0_1_0") {
		t.Errorf("after restore published %v", got)
	}
	if left := files(t, filepath.Join(dir, "tmp")); len(left) > 0 {
		t.Errorf("after restore staged %v", names(left))
	}
	// the control plane's own commit of checkpoint 1 still succeeds
	if err := commit(t, s, info1); err != nil {
		t.Fatal(err)
	}
	// and the restored writer goes on
	info2 := conntest.WritePrepare(ctx, t, b, 2, batchOf(tbl, []row.Value{row.IntValue(2)}))
	if err := commit(t, s, info2); err != nil {
		t.Fatal(err)
	}
	st, _ := b.SnapshotState(2)
	var ws writerState
	json.Unmarshal(st, &ws)
	if len(ws.Pending) != 0 || ws.NextCheckpoint != 3 {
		t.Errorf("state after commit %s", st)
	}
	b.Close(ctx)
	checkPublished(t, dir, 2)

	if _, err := s.CreateWriter(wc, [][]byte{[]byte("{")}); err == nil || !strings.Contains(err.Error(), "bad writer state") {
		t.Errorf("bad state: %v", err)
	}
}

// A writer of an attempt that was given up (its runner cut off) goes on as a zombie after
// the next attempt restored its checkpoint: it stages under its own attempt's directory, so
// the new attempt's transaction of the same checkpoint neither shares nor publishes its
// files, and the next recovery removes what it left.
func TestZombieAttemptStagesApart(t *testing.T) {
	dir := t.TempDir()
	tbl := table("t", "id", "int")
	s := mustSink(t, sinkConf(dir, ""), tbl)
	ctx := context.Background()
	attempt := func(epoch int) connector.WriterContext {
		return connector.WriterContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: 3}, Epoch: epoch}
	}
	zombie, _ := s.CreateWriter(attempt(1), nil)
	_, state1 := conntest.Barrier(ctx, t, zombie, 1, batchOf(tbl, []row.Value{row.IntValue(1)}))
	next, err := s.CreateWriter(attempt(2), [][]byte{state1})
	if err != nil {
		t.Fatal(err)
	}
	// both write their checkpoint 2
	conntest.WritePrepare(ctx, t, zombie, 2, batchOf(tbl, []row.Value{row.IntValue(99)}))
	info2 := conntest.WritePrepare(ctx, t, next, 2, batchOf(tbl, []row.Value{row.IntValue(2)}))
	if err := commit(t, s, info2); err != nil {
		t.Fatal(err)
	}
	published := func() {
		t.Helper()
		got := files(t, filepath.Join(dir, "out"))
		all := ""
		for _, content := range got {
			all += content
		}
		if len(got) != 2 || strings.Contains(all, "99") || !strings.Contains(all, "1") || !strings.Contains(all, "2") {
			t.Fatalf("published %v: %q, want the files of rows 1 and 2 only", names(got), all)
		}
	}
	published()
	state2, err := next.SnapshotState(2)
	if err != nil {
		t.Fatal(err)
	}
	zombie.Close(ctx)
	next.Close(ctx)
	if left := files(t, filepath.Join(dir, "tmp")); len(left) == 0 {
		t.Fatal("the zombie staged nothing: the test does not test the recovery")
	}
	again, err := s.CreateWriter(attempt(3), [][]byte{state2})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close(ctx)
	if left := files(t, filepath.Join(dir, "tmp")); len(left) > 0 {
		t.Errorf("after the next recovery staged %v", names(left))
	}
	published()
}
