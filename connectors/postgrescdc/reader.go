package postgrescdc

import (
	"context"
	"fmt"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/connectors/internal/snapshot"
	"github.com/strait-dev/strait/row"
)

// reader reads the snapshot splits it is given, one after the other, asking the enumerator
// for the next one when it has read them all; reader 0 also reads the change stream once
// the enumerator hands it the stream split.
type reader struct {
	src *Source
	rc  connector.ReaderContext

	// snapshot splits
	snap      snapshot.Reader
	seen      map[string]bool // snapshot splits read or queued since the reader started
	requested bool            // asked the enumerator for a split and got none yet
	noMore    bool

	// the change stream
	parked *position // a stream position taken from a checkpoint, not yet to be read
	stream *stream   // the stream being read
	saved  []savedPosition

	dec pgwire.Decoder
	err error
	lag streamLag // for the metrics
}

// savedPosition is the stream position a checkpoint saved.
type savedPosition struct {
	checkpoint int64
	pos        position
}

// CreateReader makes the reader of one subtask.
func (s *Source) CreateReader(rc connector.ReaderContext) (connector.Reader, error) {
	return &reader{src: s, rc: rc, seen: map[string]bool{}, snap: snapshot.Reader{Where: s.where, Connect: s.connect}}, nil
}

func (r *reader) Open(context.Context) error { return nil }

// AddSplits takes snapshot splits to read (ignoring those it has already) and the stream
// split: one restored from a checkpoint waits until the enumerator hands out the stream,
// which happens once every snapshot split is read; then the later of the two positions is
// read from.
func (r *reader) AddSplits(splits []connector.Split) {
	for _, sp := range splits {
		d, err := decodeSplit(sp)
		if err != nil {
			r.setErr(fmt.Errorf("%s: bad split %q: %v", r.src.where, sp.ID, err))
			continue
		}
		if d.Stream != nil {
			r.addStream(sp, d.Stream)
			continue
		}
		t := r.src.byID[d.Snapshot.Table]
		if r.seen[sp.ID] || t == nil {
			// a split this reader has (handed out again after a restore), or one of a table
			// no longer in table-names: nothing to read, so the reader asks again
			r.requested = false
			continue
		}
		r.seen[sp.ID] = true
		r.requested = false
		r.snap.Add(snapshot.Split{Split: sp, Table: t.id, SQL: statement(d.Snapshot, t), Cols: t.cols})
	}
}

func (r *reader) addStream(sp connector.Split, st *streamSplit) {
	p, err := st.position()
	if err != nil {
		r.setErr(fmt.Errorf("%s: split %q: %v", r.src.where, sp.ID, err))
		return
	}
	if r.stream != nil {
		return // reading already: the enumerator's split carries no later position
	}
	if r.parked != nil && r.parked.lsn >= p.lsn {
		p = *r.parked
	}
	if st.Parked {
		r.parked = &p
		return
	}
	r.parked = nil
	r.stream = newStream(r.src, p)
}

func (r *reader) NoMoreSplits() { r.noMore = true }

func (r *reader) setErr(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *reader) fail(err error) error {
	r.setErr(err)
	r.snap.Close()
	return err
}

// PollNext fills out with snapshot rows while there are snapshot splits, then with the
// changes of the stream, if this reader reads it. It does not wait for the stream longer
// than a few milliseconds.
func (r *reader) PollNext(ctx context.Context, out *row.Batch) (bool, error) {
	if r.err != nil {
		return false, r.err
	}
	r.dec.Batch = out
	defer func() { r.dec.Batch = nil }()
	// Ask for the next split only once the rows of the last one were handed on (they left
	// with the batch of the previous call): the stream starts when every reader asked, and
	// its changes must come after every snapshot row.
	if !r.snap.Busy() {
		r.snap.Close()
		if !r.requested && !r.noMore && r.rc.RequestSplit != nil {
			r.requested = true
			r.rc.RequestSplit()
		}
	}
	if err := r.snap.Read(ctx, out, &r.dec); err != nil {
		if err == ctx.Err() {
			return false, err // cancelled between splits: nothing failed
		}
		return false, r.fail(err)
	}
	if r.snap.Busy() {
		return false, nil
	}
	if r.stream != nil {
		if err := r.stream.poll(ctx, out, &r.dec); err != nil {
			r.setErr(err)
			return false, err
		}
		r.lag.observe(r.stream)
		return false, nil
	}
	return r.noMore && r.parked == nil && out.Len() == 0, nil
}

// SnapshotState returns the unfinished snapshot splits (the one being read starts again
// from its beginning after a restore) and the stream position.
func (r *reader) SnapshotState(checkpoint int64) ([]connector.Split, error) {
	out := r.snap.Unfinished(nil)
	var p *position
	switch {
	case r.stream != nil:
		pos := r.stream.position()
		p = &pos
		r.saved = append(r.saved, savedPosition{checkpoint: checkpoint, pos: pos})
	case r.parked != nil:
		p = r.parked
	}
	if p != nil {
		sp := streamSplitOf(*p)
		d, _ := decodeSplit(sp)
		d.Stream.Parked = true
		out = append(out, d.Encode(streamSplitID))
	}
	return out, nil
}

// NotifyCheckpointComplete lets the replication slot drop the log before the position the
// completed checkpoint saved: a restore starts from there at the earliest.
func (r *reader) NotifyCheckpointComplete(_ context.Context, checkpoint int64) error {
	var done *position
	kept := r.saved[:0]
	for _, sv := range r.saved {
		if sv.checkpoint <= checkpoint {
			p := sv.pos
			done = &p
			continue
		}
		kept = append(kept, sv)
	}
	r.saved = kept
	if done != nil && r.stream != nil {
		r.stream.confirm(done.lsn)
	}
	return nil
}

func (r *reader) Close() error {
	r.snap.Close()
	if r.stream != nil {
		r.stream.stop()
	}
	return nil
}
