// Package splitassign is the split enumerator of sources whose splits are known once, at
// the start (an index, a server to scan): each is handed to a reader in turn, once, and
// every reader is told there are no more. A failed reader's splits go back to it when it
// registers again. A source embeds Static in its enumerator and gives it the splits in Run.
package splitassign

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/strait-dev/strait/connector"
)

// Static hands out a fixed list of splits.
type Static struct {
	ctx      connector.EnumeratorContext
	pending  map[int][]connector.Split
	assigned map[string]bool
	started  bool
}

// New makes the assigner; assigned are the split ids a restored snapshot says were handed
// out already (Assigned's list).
func New(ctx connector.EnumeratorContext, assigned []string) *Static {
	s := &Static{ctx: ctx, pending: map[int][]connector.Split{}, assigned: map[string]bool{}}
	for _, id := range assigned {
		s.assigned[id] = true
	}
	return s
}

// Parallelism is the number of readers (at least one).
func (s *Static) Parallelism() int { return max(1, s.ctx.Parallelism()) }

// Start queues the splits not handed out yet, round robin over the readers, and hands them
// to the readers registered so far.
func (s *Static) Start(splits []connector.Split) {
	p := s.Parallelism()
	s.StartBy(splits, func(i int) int { return i % p })
}

// StartBy queues the splits not handed out yet, split i for reader owner(i) (a reader of
// the job's parallelism), and hands them to the readers registered so far.
func (s *Static) StartBy(splits []connector.Split, owner func(i int) int) {
	for i, sp := range splits {
		if !s.assigned[sp.ID] {
			r := owner(i)
			s.pending[r] = append(s.pending[r], sp)
		}
	}
	s.started = true
	for _, r := range s.ctx.RegisteredReaders() {
		s.assign(r)
	}
}

func (s *Static) assign(reader int) {
	if !s.started {
		return
	}
	sp := s.pending[reader]
	delete(s.pending, reader)
	for _, x := range sp {
		s.assigned[x.ID] = true
	}
	if len(sp) > 0 {
		s.ctx.Assign(reader, sp...)
	}
	s.ctx.SignalNoMoreSplits(reader)
}

func (s *Static) Open(context.Context) error { return nil }

func (s *Static) RegisterReader(reader int) error {
	s.assign(reader)
	return nil
}

func (s *Static) HandleSplitRequest(int) error { return nil }

// AddSplitsBack keeps a failed reader's splits for it until it registers again.
func (s *Static) AddSplitsBack(splits []connector.Split, reader int) error {
	for _, x := range splits {
		delete(s.assigned, x.ID)
	}
	s.pending[reader] = append(s.pending[reader], splits...)
	return nil
}

// Assigned lists the ids of the splits handed out, sorted: what a snapshot keeps.
func (s *Static) Assigned() []string {
	ids := make([]string, 0, len(s.assigned))
	for id := range s.assigned {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func (s *Static) Close() error { return nil }

// State is the enumerator state of the sources that keep the assigned splits' ids in an
// object (LocalFile, S3File, FakeSource): {"assigned": [...]}.
type State struct {
	Assigned []string `json:"assigned"`
}

// Restore reads a State snapshot; an empty one is a fresh start.
func Restore(state []byte) (State, error) {
	var st State
	if len(state) == 0 {
		return st, nil
	}
	err := json.Unmarshal(state, &st)
	return st, err
}

// SnapshotState is the assigner's State snapshot.
func (s *Static) SnapshotState() ([]byte, error) {
	return json.Marshal(State{Assigned: s.Assigned()})
}
