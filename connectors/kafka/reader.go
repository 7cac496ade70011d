package kafka

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// pollWait is how long one PollNext waits for records: short, so checkpoints are not held up.
const pollWait = 100 * time.Millisecond

// partState is a partition the reader reads: its split, the decoder of its topic and the
// table its rows belong to.
type partState struct {
	split
	dec   decoder
	table string
	done  bool
	// canon, when the task hands this table's records on encoded (EmitEncoded), matches the
	// records that go as they are
	canon *canonicalJSON
}

// reader reads the partitions assigned to one subtask with one franz-go client, each from
// its split's offset; in BATCH mode a partition is done at its end offset.
type reader struct {
	src   *Source
	index int

	cl  *kgo.Client
	adm *kadm.Client

	parts   map[string]map[int32]*partState
	active  int
	waiting []split // added before Open
	noMore  bool

	// offsets to commit to the group per checkpoint taken, committed when it completes
	pending   map[int64]kadm.Offsets
	committed bool

	lag partitionLag // for the metrics
	// skipped counts the records skipped with format_error_handle_way = skip (RowsFailed)
	skipped atomic.Int64
	// encoded are the tables whose canonical records are handed on as they are (EmitEncoded)
	encoded map[string]bool
}

// RowsFailed is how many records the reader skipped because they did not parse
// (format_error_handle_way = skip); the task runner counts them as the task's failed rows.
func (r *reader) RowsFailed() int64 { return r.skipped.Load() }

func newReader(s *Source, ctx connector.ReaderContext) (*reader, error) {
	return &reader{src: s, index: ctx.Index, parts: map[string]map[int32]*partState{}, pending: map[int64]kadm.Offsets{}}, nil
}

func (r *reader) Open(ctx context.Context) error {
	opts := append([]kgo.Opt{kgo.KeepControlRecords()}, r.src.client.opts...)
	if r.src.client.readCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("%s: kafka client: %w", r.src.where, err)
	}
	r.cl, r.adm = cl, kadm.NewClient(cl)
	waiting := r.waiting
	r.waiting = nil
	return r.add(waiting)
}

// AddSplits starts reading the partitions from their offsets.
func (r *reader) AddSplits(splits []connector.Split) {
	for _, cs := range splits {
		s, err := decodeSplit(cs)
		if err != nil {
			slog.Error("kafka: split dropped", "source", r.src.where, "error", err)
			continue
		}
		r.waiting = append(r.waiting, s)
	}
	if r.cl != nil {
		waiting := r.waiting
		r.waiting = nil
		if err := r.add(waiting); err != nil {
			slog.Error("kafka: splits not added", "source", r.src.where, "error", err)
		}
	}
}

func (r *reader) add(splits []split) error {
	consume := map[string]map[int32]kgo.Offset{}
	for _, s := range splits {
		set, _ := r.src.setOf(s.Topic)
		if set == nil {
			return fmt.Errorf("%s: split of topic %q, which the source does not read", r.src.where, s.Topic)
		}
		dec, err := setDecoder(set)
		if err != nil {
			return fmt.Errorf("%s: topic %s: %w", r.src.where, s.Topic, err)
		}
		ps := &partState{split: s, dec: dec, table: set.table.ID()}
		if r.encoded[ps.table] {
			ps.canon = setCanonical(set)
		}
		if r.parts[s.Topic] == nil {
			r.parts[s.Topic] = map[int32]*partState{}
		}
		r.parts[s.Topic][s.Partition] = ps
		if s.End >= 0 && s.Offset >= s.End {
			ps.done = true
			continue
		}
		r.active++
		if consume[s.Topic] == nil {
			consume[s.Topic] = map[int32]kgo.Offset{}
		}
		consume[s.Topic][s.Partition] = kgo.NewOffset().At(s.Offset)
	}
	if len(consume) > 0 {
		r.cl.AddConsumePartitions(consume)
	}
	return nil
}

func (r *reader) NoMoreSplits() { r.noMore = true }

// PollNext appends the rows of the records fetched, up to out's capacity.
func (r *reader) PollNext(ctx context.Context, out *row.Batch) (bool, error) {
	if r.active == 0 {
		if r.noMore && len(r.waiting) == 0 {
			return true, r.finish(ctx)
		}
		return false, nil
	}
	want := out.Cap() - out.Len()
	if m := r.src.client.maxPollRecords; m > 0 && m < want {
		want = m
	}
	pctx, cancel := context.WithTimeout(ctx, pollWait)
	fetches := r.cl.PollRecords(pctx, max(want, 1))
	cancel()
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err := fetchError(fetches); err != nil {
		return false, fmt.Errorf("%s: fetch from %s: %w", r.src.where, r.src.bootstrap, err)
	}
	err := r.records(fetches, out)
	r.lag.observe(fetches, r.parts, r.src.client.readCommitted)
	return false, err
}

// records turns the records fetched into rows, a partition at a time: its state is looked
// up once per fetch, not once per record.
func (r *reader) records(fetches kgo.Fetches, out *row.Batch) error {
	for i := range fetches {
		for j := range fetches[i].Topics {
			ft := &fetches[i].Topics[j]
			for k := range ft.Partitions {
				fp := &ft.Partitions[k]
				ps := r.parts[ft.Topic][fp.Partition]
				for _, rec := range fp.Records {
					if err := r.record(ps, rec, out); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// fetchError is the first error of the fetches that is not a poll's own timeout.
func fetchError(f kgo.Fetches) error {
	var first error
	f.EachError(func(_ string, _ int32, err error) {
		if first == nil && err != context.DeadlineExceeded && err != context.Canceled {
			first = err
		}
	})
	return first
}

// record turns one record of partition ps into rows and moves the partition on.
func (r *reader) record(ps *partState, rec *kgo.Record, out *row.Batch) error {
	if ps == nil || ps.done || rec.Offset < ps.Offset {
		return nil
	}
	if ps.End >= 0 && rec.Offset >= ps.End {
		r.finishPart(ps)
		return nil
	}
	switch {
	case rec.Attrs.IsControl():
	case ps.canon != nil && ps.canon.match(rec.Value):
		// the record is what the sink writes for its row: it goes as it is (the client
		// allocates each fetch's buffers afresh, so the bytes stay the record's)
		out.AddEncoded(row.Insert, ps.table, rec.Value)
	default:
		if _, err := ps.dec.decode(rec.Value, ps.table, out); err != nil {
			werr := fmt.Errorf("%s: topic %s partition %d offset %d: %w", r.src.where, rec.Topic, rec.Partition, rec.Offset, err)
			if !r.src.skipBad {
				return connector.Permanent(werr)
			}
			r.skipped.Add(1)
			slog.Warn("kafka: record skipped (format_error_handle_way = skip)", "error", werr)
		}
	}
	ps.Offset = rec.Offset + 1
	if ps.End >= 0 && ps.Offset >= ps.End {
		r.finishPart(ps)
	}
	return nil
}

// Encodings are the json encodings of the tables the reader reads (connector.EncodedReader).
func (r *reader) Encodings() map[string]string {
	m := map[string]string{}
	for _, set := range r.src.sets {
		if setCanonical(set) != nil {
			m[set.table.ID()] = jsonEncoding(set.table.RowType())
		}
	}
	return m
}

// EmitEncoded has the reader hand the canonical records of table on as they are.
func (r *reader) EmitEncoded(table string) {
	if r.encoded == nil {
		r.encoded = map[string]bool{}
	}
	r.encoded[table] = true
	for topic, parts := range r.parts {
		set, _ := r.src.setOf(topic)
		for _, ps := range parts {
			if ps.table == table && set != nil {
				ps.canon = setCanonical(set)
			}
		}
	}
}

// setCanonical is the matcher of the set's canonical records, or nil when its records are
// not json of a row type canonicalJSON checks.
func setCanonical(set *topicSet) *canonicalJSON {
	if set.raw || set.format != formatJSON {
		return nil
	}
	return newCanonicalJSON(set.table.RowType())
}

func (r *reader) finishPart(ps *partState) {
	ps.done = true
	r.active--
	r.cl.RemoveConsumePartitions(map[string][]int32{ps.Topic: {ps.Partition}})
}

// finish commits, in BATCH mode, the end offsets to the group once everything is read.
func (r *reader) finish(ctx context.Context) error {
	if r.committed || !r.src.commit || r.src.job.Mode == connector.Streaming {
		return nil
	}
	r.committed = true
	r.commitOffsets(ctx, r.offsets())
	return nil
}

// offsets are the next offsets of every partition the reader holds.
func (r *reader) offsets() kadm.Offsets {
	os := kadm.Offsets{}
	for _, m := range r.parts {
		for _, ps := range m {
			os.Add(kadm.Offset{Topic: ps.Topic, Partition: ps.Partition, At: ps.Offset, LeaderEpoch: -1})
		}
	}
	return os
}

func (r *reader) commitOffsets(ctx context.Context, os kadm.Offsets) {
	if len(os) == 0 {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, r.src.client.requestTimeout)
	defer cancel()
	resp, err := r.adm.CommitOffsets(cctx, r.src.group, os)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		// the offsets are in the checkpoint: a failed commit loses nothing
		slog.Warn("kafka: offsets not committed to the consumer group", "source", r.src.where, "group", r.src.group, "error", err)
	}
}

// SnapshotState returns the partitions not done, with their next offsets, and keeps the
// offsets to commit when this checkpoint completes.
func (r *reader) SnapshotState(checkpointID int64) ([]connector.Split, error) {
	var out []connector.Split
	for _, s := range r.waiting {
		out = append(out, s.encode())
	}
	for _, m := range r.parts {
		for _, ps := range m {
			if !ps.done {
				out = append(out, ps.split.encode())
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if r.src.commit {
		r.pending[checkpointID] = r.offsets()
	}
	return out, nil
}

// NotifyCheckpointComplete commits the offsets of the checkpoint to the consumer group.
func (r *reader) NotifyCheckpointComplete(ctx context.Context, checkpointID int64) error {
	var best int64 = -1
	for id := range r.pending {
		if id <= checkpointID && id > best {
			best = id
		}
	}
	if best < 0 {
		return nil
	}
	os := r.pending[best]
	for id := range r.pending {
		if id <= checkpointID {
			delete(r.pending, id)
		}
	}
	r.commitOffsets(ctx, os)
	return nil
}

func (r *reader) Close() error {
	if r.cl != nil {
		r.cl.Close()
	}
	return nil
}
