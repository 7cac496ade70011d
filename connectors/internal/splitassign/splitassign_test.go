package splitassign

import (
	"reflect"
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
)

func splits(ids ...string) []connector.Split {
	out := make([]connector.Split, len(ids))
	for i, id := range ids {
		out[i] = connector.Split{ID: id}
	}
	return out
}

func ids(sp []connector.Split) []string {
	var out []string
	for _, s := range sp {
		out = append(out, s.ID)
	}
	return out
}

// Splits go round robin to the readers, each once, before and after the readers register;
// a restored snapshot's splits are not handed out again; a failed reader gets its back.
func TestStatic(t *testing.T) {
	ec := conntest.NewEnumContext(2)
	ec.Registered = []int{0}
	s := New(ec, []string{"c"})
	s.Start(splits("a", "b", "c", "d"))
	if got := ids(ec.Assigned[0]); !reflect.DeepEqual(got, []string{"a"}) || !ec.NoMore[0] {
		t.Fatalf("reader 0 got %v (no more: %v)", got, ec.NoMore[0])
	}
	if err := s.RegisterReader(1); err != nil {
		t.Fatal(err)
	}
	if got := ids(ec.Assigned[1]); !reflect.DeepEqual(got, []string{"b", "d"}) || !ec.NoMore[1] {
		t.Fatalf("reader 1 got %v", got)
	}
	if got := s.Assigned(); !reflect.DeepEqual(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("assigned %v", got)
	}
	_ = s.AddSplitsBack(splits("b"), 1)
	if got := s.Assigned(); !reflect.DeepEqual(got, []string{"a", "c", "d"}) {
		t.Fatalf("assigned after a failure %v", got)
	}
	_ = s.RegisterReader(1)
	if got := ids(ec.Assigned[1]); !reflect.DeepEqual(got, []string{"b", "d", "b"}) {
		t.Fatalf("reader 1 after registering again got %v", got)
	}
}

// The State snapshot is the {"assigned": [...]} object LocalFile, S3File and FakeSource kept
// before they shared the assigner, so a checkpoint taken by either reads in the other; StartBy
// hands split i to the reader owner(i) says.
func TestStateAndStartBy(t *testing.T) {
	st, err := Restore([]byte(`{"assigned":["t_1","t_0"]}`))
	if err != nil || !reflect.DeepEqual(st.Assigned, []string{"t_1", "t_0"}) {
		t.Fatalf("restored %+v %v", st, err)
	}
	if st, err := Restore(nil); err != nil || st.Assigned != nil {
		t.Fatalf("a fresh start restored %+v %v", st, err)
	}
	if _, err := Restore([]byte(`["t_1"]`)); err == nil {
		t.Fatal("a list read as the object state")
	}
	ec := conntest.NewEnumContext(2)
	ec.Registered = []int{0, 1}
	s := New(ec, st.Assigned)
	s.StartBy(splits("t_0", "t_1", "t_2", "t_3"), func(i int) int { return []int{1, 1, 0, 1}[i] })
	if got := ids(ec.Assigned[0]); !reflect.DeepEqual(got, []string{"t_2"}) {
		t.Fatalf("reader 0 got %v", got)
	}
	if got := ids(ec.Assigned[1]); !reflect.DeepEqual(got, []string{"t_3"}) {
		t.Fatalf("reader 1 got %v", got)
	}
	b, err := s.SnapshotState()
	if err != nil || string(b) != `{"assigned":["t_0","t_1","t_2","t_3"]}` {
		t.Fatalf("snapshot %s %v", b, err)
	}
}

// A reader's queue hands its splits out in order, keeps a bad one as its error, and ends
// once told there are no more and all were taken.
func TestQueue(t *testing.T) {
	type state struct {
		N int `json:"n"`
	}
	q := NewQueue("Src", func(st *state) bool { return st.N > 0 })
	q.AddSplits([]connector.Split{{ID: "a", Data: []byte(`{"n":1}`)}, {ID: "b", Data: []byte(`{"n":2}`)}})
	if q.Err() != nil {
		t.Fatal(q.Err())
	}
	if st, ok, _ := q.Next(); !ok || st.N != 1 {
		t.Fatalf("first: %v %v", st, ok)
	}
	if got := q.Pending(); len(got) != 1 || got[0].N != 2 {
		t.Fatalf("pending: %v", got)
	}
	q.Next()
	if _, ok, ended := q.Next(); ok || ended {
		t.Fatalf("empty before NoMoreSplits: ok %v ended %v", ok, ended)
	}
	q.NoMoreSplits()
	if _, ok, ended := q.Next(); ok || !ended {
		t.Fatalf("empty after NoMoreSplits: ok %v ended %v", ok, ended)
	}
	q.AddSplits([]connector.Split{{ID: "c", Data: []byte(`{"n":0}`)}, {ID: "d", Data: []byte(`{`)}})
	if err := q.Err(); err == nil || err.Error() != `Src: bad split "d"` {
		t.Fatalf("bad split: %v", err)
	}
}

// Current keeps the read under way, opens the next split's when there is none, says when
// the reader has ended, and reports a bad split before anything else.
func TestCurrent(t *testing.T) {
	type state struct {
		N int `json:"n"`
	}
	type read struct{ n, polls int }
	q := NewQueue("Src", func(st *state) bool { return st.N > 0 })
	q.AddSplits([]connector.Split{{ID: "a", Data: []byte(`{"n":1}`)}})
	var cur *read
	opened := 0
	open := func(st state) *read { opened++; return &read{n: st.N} }
	for range 2 {
		c, ok, ended, err := Current(&q, &cur, open)
		if !ok || ended || err != nil || c.n != 1 {
			t.Fatalf("read of split 1: %v %v %v %v", c, ok, ended, err)
		}
		c.polls++
	}
	if opened != 1 || cur.polls != 2 {
		t.Fatalf("opened %d reads, polled %d times, want 1 and 2", opened, cur.polls)
	}
	cur = nil
	if _, ok, ended, err := Current(&q, &cur, open); ok || ended || err != nil {
		t.Fatalf("nothing queued: ok %v ended %v err %v", ok, ended, err)
	}
	q.NoMoreSplits()
	if _, ok, ended, err := Current(&q, &cur, open); ok || !ended || err != nil {
		t.Fatalf("after NoMoreSplits: ok %v ended %v err %v", ok, ended, err)
	}
	q.AddSplits([]connector.Split{{ID: "b", Data: []byte(`{`)}})
	if _, ok, _, err := Current(&q, &cur, open); ok || err == nil {
		t.Fatalf("bad split: ok %v err %v", ok, err)
	}
}
