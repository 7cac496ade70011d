package postgrescdc

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/cdc"
)

// enumState is the enumerator's snapshot.
type enumState struct {
	// Prepared says the publication, the slot and the snapshot splits were made.
	Prepared bool `json:"prepared"`
	// Start is where the change stream starts when no reader saved a later position.
	Start string `json:"start,omitempty"`
	// Tables are the ids of the tables captured so far.
	Tables []string `json:"tables,omitempty"`
	// Pending are the snapshot splits not handed out yet; Inflight those handed out whose
	// reader has not asked for more since, by reader: a restored enumerator hands them out
	// again.
	Pending  []connector.Split         `json:"pending,omitempty"`
	Inflight map[int][]connector.Split `json:"inflight,omitempty"`
}

// enumerator hands snapshot splits to readers one at a time, as they ask for them, and the
// stream split to reader 0 once every snapshot split is read: when no split is left and
// every reader has asked for more.
type enumerator struct {
	src      *Source
	ctx      connector.EnumeratorContext
	prepared bool
	start    pglogrepl.LSN
	tables   map[string]bool
	pending  []connector.Split
	inflight map[int][]connector.Split
	// owed are the splits a restored enumerator had handed out and not heard of since, by
	// reader: they are handed out again, first to the same reader, which skips those it
	// has read (its checkpoint may hold them, or they may have been on their way to it).
	owed       map[int][]connector.Split
	idle       map[int]bool // readers that asked and got nothing
	streamSent bool
}

// CreateEnumerator makes the enumerator; state is its snapshot when restoring.
func (s *Source) CreateEnumerator(ctx connector.EnumeratorContext, state []byte) (connector.Enumerator, error) {
	e := &enumerator{src: s, ctx: ctx, tables: map[string]bool{}, inflight: map[int][]connector.Split{},
		owed: map[int][]connector.Split{}, idle: map[int]bool{}}
	if len(state) > 0 {
		var st enumState
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, fmt.Errorf("%s: bad enumerator state: %v", s.where, err)
		}
		e.prepared = st.Prepared
		if st.Start != "" {
			lsn, err := pglogrepl.ParseLSN(st.Start)
			if err != nil {
				return nil, fmt.Errorf("%s: bad enumerator state: %v", s.where, err)
			}
			e.start = lsn
		}
		for _, id := range st.Tables {
			e.tables[id] = true
		}
		e.pending = st.Pending
		for r, splits := range st.Inflight {
			e.owed[r] = splits
		}
	}
	return e, nil
}

func (e *enumerator) Open(context.Context) error { return nil }

func (e *enumerator) parallelism() int { return max(1, e.ctx.Parallelism()) }

// Run prepares the job on a fresh start: in a STREAMING job the publication and the
// replication slot, and the snapshot splits unless startup.mode skips the snapshot. A
// restored enumerator captures the tables added to table-names since its checkpoint:
// it adds them to the publication and plans their snapshot. A table altered since the job
// was planned fails a fresh start (cdc.Unchanged).
func (e *enumerator) Run(ctx context.Context) error {
	s := e.src
	if !e.prepared {
		if err := cdc.Unchanged(s.where, s.planned, s.Tables()); err != nil {
			return err
		}
	}
	var fresh []*cdcTable
	for _, t := range s.tables {
		if !e.tables[t.id] {
			fresh = append(fresh, t)
		}
	}
	if len(fresh) > 0 || !e.prepared {
		pg, err := s.connect(ctx)
		if err != nil {
			return err
		}
		defer pg.Close(context.Background())
		if !e.prepared && s.streaming {
			if e.start, err = s.prepareStream(ctx, pg); err != nil {
				return err
			}
		} else if s.streaming {
			if err := s.ensurePublication(ctx, pg, fresh); err != nil {
				return err
			}
		}
		if err := e.plan(ctx, pg, fresh); err != nil {
			return err
		}
		e.prepared = true
	}
	// splits owed to readers a restored job no longer has
	p := e.parallelism()
	var gone []int
	for r := range e.owed {
		if r >= p {
			gone = append(gone, r)
		}
	}
	sort.Ints(gone)
	for _, r := range gone {
		e.pending = append(e.owed[r], e.pending...)
		delete(e.owed, r)
	}
	return nil
}

// plan adds the snapshot splits of tables (none when startup.mode skips the snapshot).
func (e *enumerator) plan(ctx context.Context, pg *pgx.Conn, tables []*cdcTable) error {
	for _, t := range tables {
		e.tables[t.id] = true
		if e.src.streaming && e.src.startup != startInitial {
			continue
		}
		splits, err := e.src.planSnapshot(ctx, pg, t)
		if err != nil {
			return err
		}
		e.pending = append(e.pending, splits...)
	}
	return nil
}

// RegisterReader does nothing: readers ask for splits.
func (e *enumerator) RegisterReader(int) error { return nil }

// HandleSplitRequest answers a reader that has read every split it was given: the next
// snapshot split, or nothing. In a BATCH job a reader that gets nothing is done; in a
// STREAMING job, once every reader asked and no split is left, reader 0 gets the stream.
func (e *enumerator) HandleSplitRequest(reader int) error {
	delete(e.inflight, reader)
	var next []connector.Split
	if owed := e.owed[reader]; len(owed) > 0 {
		next = owed[:1]
		if len(owed) == 1 {
			delete(e.owed, reader)
		} else {
			e.owed[reader] = owed[1:]
		}
	} else if len(e.pending) > 0 {
		next = e.pending[:1]
		e.pending = e.pending[1:]
	}
	if len(next) > 0 {
		e.inflight[reader] = next
		delete(e.idle, reader)
		e.ctx.Assign(reader, next...)
		return nil
	}
	e.idle[reader] = true
	if !e.src.streaming {
		e.ctx.SignalNoMoreSplits(reader)
		return nil
	}
	if e.streamSent || len(e.inflight) > 0 || len(e.owed) > 0 {
		return nil
	}
	for r := 0; r < e.parallelism(); r++ {
		if !e.idle[r] {
			return nil
		}
	}
	e.streamSent = true
	e.ctx.Assign(0, streamSplitOf(position{lsn: e.start}))
	return nil
}

// AddSplitsBack takes back the splits of a failed reader: snapshot splits are handed out
// again, the stream split once the readers are idle again.
func (e *enumerator) AddSplitsBack(splits []connector.Split, reader int) error {
	delete(e.inflight, reader)
	delete(e.idle, reader)
	for _, sp := range splits {
		if sp.ID == streamSplitID {
			e.streamSent = false
			continue
		}
		e.pending = append([]connector.Split{sp}, e.pending...)
	}
	return nil
}

func (e *enumerator) Snapshot(int64) ([]byte, error) {
	st := enumState{Prepared: e.prepared, Pending: e.pending}
	if e.start != 0 {
		st.Start = e.start.String()
	}
	for id := range e.tables {
		st.Tables = append(st.Tables, id)
	}
	sort.Strings(st.Tables)
	for _, m := range []map[int][]connector.Split{e.owed, e.inflight} {
		for r, splits := range m {
			if st.Inflight == nil {
				st.Inflight = map[int][]connector.Split{}
			}
			st.Inflight[r] = append(st.Inflight[r], splits...)
		}
	}
	return json.Marshal(st)
}

func (e *enumerator) Close() error { return nil }
