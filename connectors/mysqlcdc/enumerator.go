package mysqlcdc

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/cdc"
)

// enumState is the enumerator's snapshot.
type enumState struct {
	Prepared bool              `json:"prepared"`
	Pending  []connector.Split `json:"pending,omitempty"`
	// Sent are the splits handed to reader 0 in a STREAMING job: a restored enumerator
	// hands them out again, and the reader skips those it has read.
	Sent []connector.Split `json:"sent,omitempty"`
}

// enumerator plans the snapshot splits and hands them out. In a BATCH job any reader reads
// them, one at a time as it asks. In a STREAMING job reader 0 gets them all and then the log
// split: it alone knows the high watermarks of the splits it read, which the switch to the
// log needs.
type enumerator struct {
	src      *Source
	ctx      connector.EnumeratorContext
	prepared bool
	pending  []connector.Split
	sent     []connector.Split
	resend   bool
}

// CreateEnumerator makes the enumerator; state is its snapshot when restoring.
func (s *Source) CreateEnumerator(ctx connector.EnumeratorContext, state []byte) (connector.Enumerator, error) {
	e := &enumerator{src: s, ctx: ctx}
	if len(state) > 0 {
		var st enumState
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, fmt.Errorf("%s: bad enumerator state: %v", s.where, err)
		}
		e.prepared, e.pending, e.sent = st.Prepared, st.Pending, st.Sent
		e.resend = len(e.sent) > 0
	}
	return e, nil
}

func (e *enumerator) Open(context.Context) error { return nil }

// Run plans the job on a fresh start: the snapshot splits unless startup.mode skips the
// snapshot and, in a STREAMING job, where the log is read from. A table altered since the
// job was planned fails it (cdc.Unchanged).
func (e *enumerator) Run(ctx context.Context) error {
	if e.prepared {
		return nil
	}
	s := e.src
	if err := cdc.Unchanged(s.where, s.planned, s.Tables()); err != nil {
		return err
	}
	db, err := s.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if !s.streaming || s.startup == startInitial {
		for _, t := range s.tables {
			splits, err := s.planSnapshot(ctx, db, t)
			if err != nil {
				return err
			}
			e.pending = append(e.pending, splits...)
		}
	}
	if s.streaming {
		st := &streamSplit{}
		switch s.startup {
		case startLatest:
			st.At, err = s.masterPosition(ctx, db)
		case startEarliest, startTimestamp:
			st.At, err = s.firstPosition(ctx, db)
		case startSpecific:
			st.At = s.specific
		}
		if err != nil {
			return err
		}
		if st.Stop, err = e.stopAt(ctx, db); err != nil {
			return err
		}
		st.Started = s.startup != startInitial
		e.pending = append(e.pending, splitData{Stream: st}.Encode(streamSplitID))
	}
	e.prepared = true
	return nil
}

// stopAt is where the log stops being read: nowhere (stop.mode never), the end of the log
// when the job starts (latest), or stop.specific-offset.file and .pos (specific).
func (e *enumerator) stopAt(ctx context.Context, db *sql.DB) (*position, error) {
	switch e.src.stopMode {
	case stopLatest:
		p, err := e.src.masterPosition(ctx, db)
		return &p, err
	case stopSpecific:
		p := e.src.stopAt
		return &p, nil
	}
	return nil, nil
}

// RegisterReader does nothing: readers ask for splits.
func (e *enumerator) RegisterReader(int) error { return nil }

// HandleSplitRequest answers a reader that has read every split it was given.
func (e *enumerator) HandleSplitRequest(reader int) error {
	if e.src.streaming {
		if reader != 0 {
			if e.src.stops() {
				e.ctx.SignalNoMoreSplits(reader) // a bounded job ends without them
			}
			return nil
		}
		var out []connector.Split
		if e.resend {
			out, e.resend = append(out, e.sent...), false
		}
		out = append(out, e.pending...)
		e.sent, e.pending = append(e.sent, e.pending...), nil
		if len(out) > 0 {
			e.ctx.Assign(0, out...)
		}
		return nil
	}
	if len(e.pending) == 0 {
		e.ctx.SignalNoMoreSplits(reader)
		return nil
	}
	next := e.pending[0]
	e.pending = e.pending[1:]
	e.ctx.Assign(reader, next)
	return nil
}

// AddSplitsBack takes back the splits of a failed reader, to hand them out again.
func (e *enumerator) AddSplitsBack(splits []connector.Split, reader int) error {
	if e.src.streaming {
		e.resend = true
		return nil
	}
	e.pending = append(append([]connector.Split(nil), splits...), e.pending...)
	return nil
}

func (e *enumerator) Snapshot(int64) ([]byte, error) {
	return json.Marshal(enumState{Prepared: e.prepared, Pending: e.pending, Sent: e.sent})
}

func (e *enumerator) Close() error { return nil }
