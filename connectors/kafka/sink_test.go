package kafka

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/internal/kafkatest"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// sinkTable is the input of the sink tests: an id, a name, a topic suffix and a map.
func sinkTable() *catalog.Table {
	return catalog.FromRowType(catalog.TablePath{Table: "in"}, &types.RowType{
		Names: []string{"id", "name", "dest", "tags", "at"},
		Types: []types.DataType{types.Of(types.BigInt), types.Of(types.String), types.Of(types.String),
			types.MapOf(types.Of(types.String), types.Of(types.Int)), types.Of(types.Timestamp)},
	})
}

func sinkRows(lo, hi int) *row.Batch {
	b := row.NewBatch(hi - lo)
	for i := lo; i < hi; i++ {
		r := b.Add(row.Insert, "in", 5)
		r.Fields[0] = row.BigIntValue(int64(i))
		r.Fields[1] = row.StringValue(fmt.Sprintf("n%d", i))
		r.Fields[2] = row.StringValue([]string{"a", "b"}[i%2])
		r.Fields[3] = row.MapOfValues(&row.MapValue{Keys: []row.Value{row.StringValue("k")}, Vals: []row.Value{row.IntValue(int32(i))}})
		r.Fields[4] = row.TimestampOf(time.Date(2024, 1, 1, 12, 59, 23, 0, time.UTC))
	}
	return b
}

func buildSink(t testing.TB, mode connector.JobMode, block string) (connector.Sink, error) {
	t.Helper()
	f, _, ok := connector.LookupSink("Kafka")
	if !ok {
		t.Fatal("Kafka sink not registered")
	}
	o := conntest.Options(t, block, "sink[0] Kafka")
	return f(&connector.SinkContext{Context: context.Background(), Options: o, Job: connector.Job{ID: 7, Name: "test", Mode: mode},
		Inputs: []*catalog.Table{sinkTable()}})
}

func mustSink(t testing.TB, mode connector.JobMode, block string) connector.Sink {
	t.Helper()
	s, err := buildSink(t, mode, block)
	if err != nil {
		t.Fatalf("sink: %v", err)
	}
	return s
}

func mustWriter(t testing.TB, s connector.Sink, index, epoch int, states [][]byte) connector.Writer {
	t.Helper()
	w, err := s.CreateWriter(connector.WriterContext{Index: index, Parallelism: 1, Job: connector.Job{ID: 7}, Epoch: epoch}, states)
	if err != nil {
		t.Fatalf("writer: %v", err)
	}
	return w
}

func write(t testing.TB, w connector.Writer, b *row.Batch) {
	t.Helper()
	defer b.Release()
	if err := w.Write(context.Background(), b); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func values(recs []consumed) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Value
	}
	return out
}

// The sink writes SeaTunnel's json and text records, keys from partition_key_fields in the
// same format, and spreads keyed records by key.
func TestSinkFormatsAndKeys(t *testing.T) {
	addr := testBroker(t)
	cases := []struct {
		name, extra string
		value, key  string // of row 1
	}{
		{"json", "format = json", `{"id":1,"name":"n1","dest":"b","tags":{"k":1},"at":"2024-01-01T12:59:23"}`, ""},
		{"json key", "format = json\npartition_key_fields = [id, name]", `{"id":1,"name":"n1","dest":"b","tags":{"k":1},"at":"2024-01-01T12:59:23"}`, `{"id":1,"name":"n1"}`},
		{"text", "format = text\nfield_delimiter = \"|\"", "1|n1|b|k\x031|2024-01-01 12:59:23", ""},
		{"text key", "format = text\npartition_key_fields = [name, id]", "1,n1,b,k\x031,2024-01-01 12:59:23", "n1,1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			topic := newTopic(t, addr, 1)
			for _, sem := range []string{semanticsNone, semanticsAtLeastOnce} {
				s := mustSink(t, connector.Streaming, fmt.Sprintf("bootstrap.servers = %q\ntopic = %q\nsemantics = %s\n%s", addr, topic, sem, c.extra))
				w := mustWriter(t, s, 0, 1, nil)
				write(t, w, sinkRows(0, 3))
				if _, err := w.PrepareCommit(context.Background(), 1); err != nil {
					t.Fatal(err)
				}
				if err := w.Close(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			got := consumeAll(t, addr, topic, false)
			if len(got) != 6 {
				t.Fatalf("%d records, want 3 per semantics: %v", len(got), got)
			}
			if got[1].Value != c.value || got[1].Key != c.key {
				t.Fatalf("record 1: key %q value %q\nwant key %q value %q", got[1].Key, got[1].Value, c.key, c.value)
			}
		})
	}
}

// The topic may come from a field; partition sends everything to one partition and
// assign_partitions by the value's content.
// checkpoint prepares checkpoint cp of w and commits it with c; an error, or nothing to
// commit, fails the test.
func checkpoint(ctx context.Context, t *testing.T, w connector.Writer, c connector.Committer, cp int64) {
	t.Helper()
	info, err := w.PrepareCommit(ctx, cp)
	if err != nil || info == nil {
		t.Fatalf("prepare %d: %v %v", cp, info, err)
	}
	if err := c.Commit(ctx, connector.CommitRequest{CheckpointID: cp, Infos: [][]byte{info}}); err != nil {
		t.Fatal(err)
	}
}

func TestSinkTopicAndPartitions(t *testing.T) {
	addr := testBroker(t)
	base := newTopic(t, addr, 1)
	createTopic(t, addr, base+"_a", 3)
	createTopic(t, addr, base+"_b", 3)
	t.Cleanup(func() { deleteTopic(t, addr, base+"_a"); deleteTopic(t, addr, base+"_b") })
	cases := []struct {
		name, extra string
		check       func(t *testing.T)
	}{
		{"topic from a field and a fixed partition", fmt.Sprintf("topic = \"%s_${dest}\"\npartition = 2", base), func(t *testing.T) {
			for _, suffix := range []string{"a", "b"} {
				got := consumeAll(t, addr, base+"_"+suffix, false)
				if len(got) != 5 {
					t.Fatalf("topic %s_%s: %d records, want 5", base, suffix, len(got))
				}
				for _, r := range got {
					if r.Partition != 2 || !strings.Contains(r.Value, `"dest":"`+suffix+`"`) {
						t.Fatalf("record %+v in partition %d of %s_%s", r, r.Partition, base, suffix)
					}
				}
			}
		}},
		{"assign_partitions", fmt.Sprintf("topic = \"%s_a\"\nassign_partitions = [\"n3\", \"n7\"]", base), func(t *testing.T) {
			for _, r := range consumeAll(t, addr, base+"_a", false) {
				want := int32(2)
				switch {
				case strings.Contains(r.Value, `"n3"`):
					want = 0
				case strings.Contains(r.Value, `"n7"`):
					want = 1
				}
				if r.Partition != want {
					t.Fatalf("record %s in partition %d, want %d", r.Value, r.Partition, want)
				}
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := mustSink(t, connector.Batch, fmt.Sprintf("bootstrap.servers = %q\n%s", addr, c.extra))
			w := mustWriter(t, s, 0, 1, nil)
			write(t, w, sinkRows(0, 10))
			if _, err := w.PrepareCommit(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			c.check(t)
		})
	}
}

// openTransactions lists the transactions of a sink's prefix the broker holds open.
func openTransactions(t testing.TB, addr, prefix string) []string {
	t.Helper()
	return kafkatest.OpenTransactions(t, adminClient(t, addr), prefix)
}

// EXACTLY_ONCE: a checkpoint's records stay invisible to a read_committed consumer until
// a committer of its own (as in another process) ends the transaction by the commit info's
// producer id and epoch; the writer goes on in the next transaction meanwhile, and a
// commit repeated is harmless.
func TestSinkExactlyOnceCommit(t *testing.T) {
	addr := testBroker(t)
	topic := newTopic(t, addr, 2)
	block := fmt.Sprintf("bootstrap.servers = %q\ntopic = %q\nsemantics = EXACTLY_ONCE\ntransaction_prefix = %s\npartition_key_fields = [id]", addr, topic, topic)
	s := mustSink(t, connector.Streaming, block)
	w := mustWriter(t, s, 0, 1, nil)
	ctx := context.Background()
	write(t, w, sinkRows(0, 10))
	info1, err := w.PrepareCommit(ctx, 1)
	if err != nil || info1 == nil {
		t.Fatalf("prepare: %v %v", info1, err)
	}
	write(t, w, sinkRows(10, 15)) // the next checkpoint's transaction
	if err := w.(*txnWriter).cur.flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := consumeAll(t, addr, topic, true); len(got) != 0 {
		t.Fatalf("read_committed sees %d records before the commit", len(got))
	}
	if n := len(consumeAll(t, addr, topic, false)); n < 15 {
		t.Fatalf("read_uncommitted sees %d records, want the 15 written", n)
	}
	// the committer is built again from the options, as the control plane does
	c, err := mustSink(t, connector.Streaming, block).CreateCommitter()
	if err != nil || c == nil {
		t.Fatalf("committer: %v %v", c, err)
	}
	req := connector.CommitRequest{CheckpointID: 1, Infos: [][]byte{info1}}
	for i := 0; i < 2; i++ {
		if err := c.Commit(ctx, req); err != nil {
			t.Fatalf("commit %d: %v", i+1, err)
		}
	}
	if got := consumeAll(t, addr, topic, true); len(got) != 10 {
		t.Fatalf("read_committed sees %d records after the commit, want 10", len(got))
	}
	checkpoint(ctx, t, w, c, 2)
	if got := consumeAll(t, addr, topic, true); len(got) != 15 {
		t.Fatalf("read_committed sees %d records, want 15", len(got))
	}
	// nothing written since: nothing to commit, and closing leaves nothing open
	if info, err := w.PrepareCommit(ctx, 3); err != nil || info != nil {
		t.Fatalf("prepare without rows: %s %v", info, err)
	}
	write(t, w, sinkRows(15, 20))
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if open := openTransactions(t, addr, topic); len(open) != 0 {
		t.Fatalf("transactions left open after close: %v", open)
	}
	if got := consumeAll(t, addr, topic, true); len(got) != 15 {
		t.Fatalf("read_committed sees %d records after the abort, want 15", len(got))
	}
}

// A writer restored from a checkpoint commits the transaction the checkpoint lists (the
// committer may not have) and aborts the ones an attempt that died opened after it; a
// read_committed consumer then sees every row of the checkpoint once and none after it.
func TestSinkExactlyOnceRestore(t *testing.T) {
	addr := testBroker(t)
	topic := newTopic(t, addr, 1)
	block := fmt.Sprintf("bootstrap.servers = %q\ntopic = %q\nsemantics = EXACTLY_ONCE\ntransaction_prefix = %s", addr, topic, topic)
	s := mustSink(t, connector.Streaming, block)
	ctx := context.Background()

	// attempt 1: checkpoint 1 is taken; checkpoint 2 is prepared but never completes; the
	// rows after it are in an open transaction; then the process dies (no Close)
	w1 := mustWriter(t, s, 0, 1, nil)
	write(t, w1, sinkRows(0, 10))
	if _, err := w1.PrepareCommit(ctx, 1); err != nil {
		t.Fatal(err)
	}
	state1, err := w1.SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	write(t, w1, sinkRows(10, 20))
	if _, err := w1.PrepareCommit(ctx, 2); err != nil {
		t.Fatal(err)
	}
	write(t, w1, sinkRows(20, 30))
	if err := w1.(*txnWriter).cur.flush(ctx); err != nil {
		t.Fatal(err)
	}
	if open := openTransactions(t, addr, topic); len(open) != 3 {
		t.Fatalf("open before the restore: %v, want checkpoint 1's and 2's and the one after", open)
	}

	// attempt 2 restores checkpoint 1; a failed attempt 2 leaves one more open, which
	// attempt 3, restoring the same checkpoint, aborts too
	w2 := mustWriter(t, s, 0, 2, [][]byte{state1})
	write(t, w2, sinkRows(100, 105))
	if err := w2.(*txnWriter).cur.flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := consumeAll(t, addr, topic, true); len(got) != 10 {
		t.Fatalf("read_committed sees %d records after the restore, want checkpoint 1's 10", len(got))
	}
	w3 := mustWriter(t, s, 0, 3, [][]byte{state1})
	if open := openTransactions(t, addr, topic); len(open) != 0 {
		t.Fatalf("open after the restores: %v", open)
	}
	write(t, w3, sinkRows(10, 20))
	info, err := w3.PrepareCommit(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := s.CreateCommitter()
	if err := c.Commit(ctx, connector.CommitRequest{CheckpointID: 2, Infos: [][]byte{info}}); err != nil {
		t.Fatal(err)
	}
	got := values(consumeAll(t, addr, topic, true))
	if len(got) != 20 {
		t.Fatalf("read_committed sees %d records, want 20", len(got))
	}
	for i, v := range got {
		if want := fmt.Sprintf(`{"id":%d,`, i); !strings.HasPrefix(v, want) {
			t.Fatalf("record %d is %s, want id %d: every row once, in order", i, v, i)
		}
	}
}

// Transactional ids carry the prefix, job, sink, subtask, attempt and sequence: writers of
// two subtasks, two attempts or two sinks never share one.
func TestTransactionalIDs(t *testing.T) {
	a := &Sink{prefix: transactionPrefix("p", 7, "sink[0] Kafka")}
	b := &Sink{prefix: transactionPrefix("p", 7, "sink[1] Kafka")}
	ids := map[string]bool{}
	for _, s := range []*Sink{a, b} {
		for sub := 0; sub < 2; sub++ {
			for epoch := 1; epoch < 3; epoch++ {
				for seq := int64(0); seq < 2; seq++ {
					id := s.txnID(sub, epoch, seq)
					if ids[id] {
						t.Fatalf("id %s twice", id)
					}
					ids[id] = true
				}
			}
		}
	}
	if got := a.txnID(1, 2, 3); got != "p-7-sink0Kafka-1-2-3" {
		t.Fatalf("id %s", got)
	}
	if got := transactionPrefix("", 9, "sink[0] Kafka"); got != "strait-9-sink0Kafka" {
		t.Fatalf("default prefix %s", got)
	}
}

// A writer stopped between a checkpoint's prepare and its commit, by a cancel or by a
// failure elsewhere, aborts only the rows no checkpoint prepared: the prepared transaction is
// the coordinator's, which may be committing its checkpoint at that moment. The committer
// then commits it, or aborts it when the checkpoint will never complete; an abort finds a
// committed one unchanged.
func TestSinkExactlyOnceStoppedLeavesPrepared(t *testing.T) {
	addr := testBroker(t)
	for _, c := range []struct {
		name      string
		cancel    bool
		committed bool // the coordinator committed the checkpoint before the writer closed
		commit    bool // after the close, the coordinator commits (true) or aborts it
		want      int  // records read_committed sees in the end
	}{
		{"cancelled, then its checkpoint committed", true, false, true, 5},
		{"cancelled, then its checkpoint aborted", true, false, false, 0},
		{"committed, then cancelled and aborted", true, true, false, 5},
		{"ended by itself, then committed", false, false, true, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			topic := newTopic(t, addr, 1)
			block := fmt.Sprintf("bootstrap.servers = %q\ntopic = %q\nsemantics = EXACTLY_ONCE\ntransaction_prefix = %s", addr, topic, topic)
			s := mustSink(t, connector.Streaming, block)
			w := mustWriter(t, s, 0, 1, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b := sinkRows(0, 5)
			if err := w.Write(ctx, b); err != nil {
				t.Fatal(err)
			}
			b.Release()
			info, err := w.PrepareCommit(ctx, 1)
			if err != nil || info == nil {
				t.Fatalf("prepare: %s %v", info, err)
			}
			// rows after the checkpoint: their transaction is the writer's to abort
			b = sinkRows(5, 8)
			if err := w.Write(ctx, b); err != nil {
				t.Fatal(err)
			}
			b.Release()
			cm, _ := s.CreateCommitter()
			if c.committed {
				if err := cm.Commit(context.Background(), connector.CommitRequest{CheckpointID: 1, Infos: [][]byte{info}}); err != nil {
					t.Fatal(err)
				}
			}
			if c.cancel {
				cancel()
			}
			if err := w.Close(context.Background()); err != nil {
				t.Fatalf("close: %v", err)
			}
			wantOpen := 1
			if c.committed {
				wantOpen = 0
			}
			if open := openTransactions(t, addr, topic); len(open) != wantOpen {
				t.Fatalf("transactions open after close: %v, want %d", open, wantOpen)
			}
			if c.commit {
				err = cm.Commit(context.Background(), connector.CommitRequest{CheckpointID: 1, Infos: [][]byte{info}})
			} else {
				err = cm.Abort(context.Background(), [][]byte{info})
			}
			if err != nil {
				t.Fatal(err)
			}
			if open := openTransactions(t, addr, topic); len(open) != 0 {
				t.Fatalf("transactions open after the coordinator ended the checkpoint: %v", open)
			}
			if got := consumeAll(t, addr, topic, true); len(got) != c.want {
				t.Fatalf("read_committed sees %d records, want %d", len(got), c.want)
			}
		})
	}
}

// A checkpoint that fails while the job goes on (checkpoint.tolerable-failures) never
// commits its transaction; the next checkpoint's source offsets lie past its records, so the
// next commit info carries it and commits it too. A transaction committed already is not
// carried, and a restore commits what the checkpoint carried.
func TestSinkExactlyOnceFailedCheckpointCarried(t *testing.T) {
	addr := testBroker(t)
	topic := newTopic(t, addr, 1)
	block := fmt.Sprintf("bootstrap.servers = %q\ntopic = %q\nsemantics = EXACTLY_ONCE\ntransaction_prefix = %s", addr, topic, topic)
	s := mustSink(t, connector.Streaming, block)
	cm, _ := s.CreateCommitter()
	w := mustWriter(t, s, 0, 1, nil)
	ctx := context.Background()
	defer w.Close(ctx)
	write(t, w, sinkRows(0, 4))
	if _, err := w.PrepareCommit(ctx, 1); err != nil { // checkpoint 1 fails: never committed
		t.Fatal(err)
	}
	write(t, w, sinkRows(4, 6))
	checkpoint(ctx, t, w, cm, 2)
	if got := consumeAll(t, addr, topic, true); len(got) != 6 {
		t.Fatalf("read_committed sees %d records after checkpoint 2, want the 6 of checkpoints 1 and 2", len(got))
	}
	// both committed: checkpoint 3 carries nothing, and has nothing of its own
	if info, err := w.PrepareCommit(ctx, 3); err != nil || info != nil {
		t.Fatalf("checkpoint 3: %s %v", info, err)
	}
	// checkpoint 4 fails, 5 is taken and the job fails before its commit: the restore commits both
	write(t, w, sinkRows(6, 7))
	if _, err := w.PrepareCommit(ctx, 4); err != nil {
		t.Fatal(err)
	}
	write(t, w, sinkRows(7, 9))
	if _, err := w.PrepareCommit(ctx, 5); err != nil {
		t.Fatal(err)
	}
	state, err := w.SnapshotState(5)
	if err != nil {
		t.Fatal(err)
	}
	restored := mustWriter(t, mustSink(t, connector.Streaming, block), 0, 2, [][]byte{state})
	defer restored.Close(ctx)
	if got := consumeAll(t, addr, topic, true); len(got) != 9 {
		t.Fatalf("read_committed sees %d records after the restore, want 9", len(got))
	}
	if open := openTransactions(t, addr, topic); len(open) != 0 {
		t.Fatalf("transactions open after the restore: %v", open)
	}
}
