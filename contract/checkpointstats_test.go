package contract

import (
	"strings"
	"testing"
	"time"
)

func TestCheckpointStatsHistory(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var s CheckpointStats
	s.Begin(1, false, t0)
	s.Complete(1, t0.Add(40*time.Millisecond), 300, 3)
	s.Begin(2, false, t0.Add(time.Second))
	s.Begin(2, false, t0.Add(2*time.Second)) // a repeated trigger keeps the first time
	s.Fail(2, t0.Add(3*time.Second), "checkpoint 2 expired")
	s.Begin(3, true, t0.Add(4*time.Second))
	s.Discard(3, t0.Add(5*time.Second))
	s.Discard(1, t0.Add(5*time.Second)) // a completed checkpoint stays completed
	if s.Completed != 1 || s.Failed != 1 || len(s.Recent) != 3 {
		t.Fatalf("stats %+v", s)
	}
	want := []CheckpointRecord{
		{ID: 1, State: CheckpointCompleted, Triggered: t0, Duration: 40 * time.Millisecond, Bytes: 300, Acks: 3},
		{ID: 2, State: CheckpointFailed, Triggered: t0.Add(time.Second), Duration: 2 * time.Second, Failure: "checkpoint 2 expired"},
		{ID: 3, Savepoint: true, State: CheckpointDiscarded, Triggered: t0.Add(4 * time.Second), Duration: time.Second},
	}
	for i, w := range want {
		if s.Recent[i] != w {
			t.Errorf("record %d: %+v, want %+v", i, s.Recent[i], w)
		}
	}
	c := s.Copy()
	c.Recent[0].Bytes = 1
	if s.Recent[0].Bytes != 300 {
		t.Error("a copy shares its records")
	}
	for id := int64(4); id < 4+2*RecentCheckpoints; id++ {
		s.Begin(id, false, t0)
	}
	if len(s.Recent) != RecentCheckpoints || s.Recent[len(s.Recent)-1].ID != 3+2*RecentCheckpoints {
		t.Errorf("kept %d, newest %d", len(s.Recent), s.Recent[len(s.Recent)-1].ID)
	}
}

func TestAddFailoverKeepsNewestClipped(t *testing.T) {
	var fs []Failover
	for i := 0; i < RecentFailovers+3; i++ {
		fs = AddFailover(fs, Failover{Epoch: i, Cause: strings.Repeat("é", failureText)})
	}
	if len(fs) != RecentFailovers || fs[0].Epoch != 3 {
		t.Fatalf("kept %d from epoch %d", len(fs), fs[0].Epoch)
	}
	if c := fs[0].Cause; len(c) > failureText+len("…") || !strings.HasSuffix(c, "…") || !strings.HasPrefix(c, "éé") {
		t.Errorf("clipped cause %q…", c[:8])
	}
}
