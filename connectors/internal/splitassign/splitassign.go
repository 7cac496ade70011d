// Package splitassign is the split enumerator of sources whose splits are known once, at
// the start (an index, a server to scan): each is handed to a reader in turn, once, and
// every reader is told there are no more. A failed reader's splits go back to it when it
// registers again. A source embeds Static in its enumerator and gives it the splits in Run.
package splitassign

import (
	"context"
	"encoding/json"
	"fmt"
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
func Restore(state []byte) (State, error) { return RestoreAs[State](state) }

// RestoreAs reads an enumerator's JSON snapshot of a source's own shape; an empty one is a
// fresh start, the zero T.
func RestoreAs[T any](state []byte) (T, error) {
	var st T
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

// Queue is a reader's side of Static: the splits handed to it, each decoded from its JSON
// data into a T, read one after the other. A reader embeds it for AddSplits and
// NoMoreSplits.
type Queue[T any] struct {
	where   string
	valid   func(*T) bool
	pending []T
	noMore  bool
	err     error
}

// NewQueue makes a reader's queue; where names the plugin in errors, and valid says
// whether a decoded split is one of the source's.
func NewQueue[T any](where string, valid func(*T) bool) Queue[T] {
	return Queue[T]{where: where, valid: valid}
}

// AddSplits queues the splits; one that does not decode or is not valid is kept as Err.
func (q *Queue[T]) AddSplits(splits []connector.Split) {
	for _, sp := range splits {
		var st T
		if err := json.Unmarshal(sp.Data, &st); err != nil || !q.valid(&st) {
			q.err = fmt.Errorf("%s: bad split %q", q.where, sp.ID)
			continue
		}
		q.pending = append(q.pending, st)
	}
}

// NoMoreSplits records that the enumerator hands out no more splits.
func (q *Queue[T]) NoMoreSplits() { q.noMore = true }

// Err is the error of a split that was bad, nil when none was.
func (q *Queue[T]) Err() error { return q.err }

// Next takes the next split to read. When none is queued, ok is false and ended says
// whether the reader has read all it will get.
func (q *Queue[T]) Next() (st T, ok, ended bool) {
	if len(q.pending) == 0 {
		return st, false, q.noMore
	}
	st = q.pending[0]
	q.pending = q.pending[1:]
	return st, true, false
}

// Current is a poll's read under way: *cur, or one opened with open on the next split when
// *cur is nil. A bad split's error is err; with nothing to read, ok is false and ended says
// whether the reader has read all it will get.
func Current[T, C any](q *Queue[T], cur **C, open func(T) *C) (c *C, ok, ended bool, err error) {
	if err := q.Err(); err != nil {
		return nil, false, false, err
	}
	if *cur == nil {
		st, ok, ended := q.Next()
		if !ok {
			return nil, false, ended, nil
		}
		*cur = open(st)
	}
	return *cur, true, false, nil
}

// Pending lists the splits queued and not taken yet, in their order.
func (q *Queue[T]) Pending() []T { return q.pending }
