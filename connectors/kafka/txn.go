package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// EXACTLY_ONCE: every checkpoint's records of a subtask are one Kafka transaction with a
// transactional id of its own, prefix-job-sink-subtask-attempt-sequence. PrepareCommit
// flushes the transaction and hands its id, producer id and epoch to the committer, which
// ends it with EndTxn when the checkpoint completes, from whatever process it runs in; the
// writer meanwhile writes the next checkpoint's records under the next sequence number. The
// committer never opens a producer of its own, so it never fences the writer.
//
// A writer restored from a checkpoint commits the transaction the checkpoint lists (again:
// EndTxn of a committed transaction succeeds) and aborts every transaction a failed attempt
// opened after it, by initialising the ids that may have been used until it meets one the
// broker has never seen.

// txnInfo is the commit info of one transaction; Also lists the transactions earlier
// checkpoints prepared that the broker has not seen committed (their checkpoint failed, and
// the job went on): the commit of this checkpoint commits them too, since its source offsets
// lie past their records.
type txnInfo struct {
	TransactionalID string    `json:"transactional_id"`
	ProducerID      int64     `json:"producer_id"`
	ProducerEpoch   int16     `json:"producer_epoch"`
	Checkpoint      int64     `json:"checkpoint"`
	Also            []txnInfo `json:"also,omitempty"`
}

// all is the transaction and those it carries.
func (t *txnInfo) all() []txnInfo {
	out := make([]txnInfo, 0, len(t.Also)+1)
	out = append(out, t.Also...)
	one := *t
	one.Also = nil
	return append(out, one)
}

// txnState is a writer's snapshot: its attempt, the sequence number of the transaction it
// writes next, and the transaction the checkpoint prepared.
type txnState struct {
	Epoch   int      `json:"epoch"`
	Seq     int64    `json:"seq"`
	Pending *txnInfo `json:"pending,omitempty"`
}

// maxProbe bounds the ids an abort looks at per attempt.
const maxProbe = 100000

type txnWriter struct {
	sink    *Sink
	subtask int
	epoch   int
	seq     int64

	cur     *producer // the open transaction, nil before the first row after a checkpoint
	pending *txnInfo  // the commit info of the last checkpoint, what it carries included
	// prepared are the transactions prepared and not yet seen committed, oldest first
	prepared []txnInfo
	adm      *kadm.Client // asks the broker which of them it committed
	admCl    *kgo.Client
}

func (s *Sink) txnID(subtask, epoch int, seq int64) string {
	return fmt.Sprintf("%s-%d-%d-%d", s.prefix, subtask, epoch, seq)
}

func newTxnWriter(s *Sink, ctx connector.WriterContext, states [][]byte) (*txnWriter, error) {
	w := &txnWriter{sink: s, subtask: ctx.Index, epoch: max(ctx.Epoch, 1)}
	var st *txnState
	if len(states) > 0 && len(states[0]) > 0 {
		st = &txnState{}
		if err := json.Unmarshal(states[0], st); err != nil {
			return nil, fmt.Errorf("%s: writer state: %w", s.where, err)
		}
		w.seq = st.Seq
	}
	rctx, cancel := context.WithTimeout(context.Background(), 4*s.client.requestTimeout)
	defer cancel()
	if err := w.recover(rctx, st); err != nil {
		return nil, err
	}
	return w, nil
}

// recover commits the restored checkpoint's transaction and aborts those opened after it.
func (w *txnWriter) recover(ctx context.Context, st *txnState) error {
	from, seq := 1, int64(0)
	if st != nil {
		from, seq = st.Epoch, st.Seq
	}
	if st == nil && w.epoch <= 1 {
		return nil // the first attempt of a fresh job: nothing before it
	}
	cl, err := kgo.NewClient(w.sink.client.opts...)
	if err != nil {
		return fmt.Errorf("%s: kafka client: %w", w.sink.where, err)
	}
	defer cl.Close()
	if st != nil && st.Pending != nil {
		for _, info := range st.Pending.all() {
			if err := endTxn(ctx, cl, w.sink, &info, true); err != nil {
				return err
			}
		}
	}
	for e := from; e < w.epoch; e++ {
		n, err := w.abortFrom(ctx, cl, e, seq)
		if err != nil {
			return err
		}
		if n > 0 {
			slog.Info("kafka: transactions of an earlier attempt aborted", "sink", w.sink.where, "subtask", w.subtask, "attempt", e, "count", n)
		}
	}
	return nil
}

// abortFrom fences and aborts the ids of attempt e from sequence seq on, until one the
// broker had never seen. It returns how many existed.
func (w *txnWriter) abortFrom(ctx context.Context, cl *kgo.Client, e int, seq int64) (int, error) {
	for n := 0; n < maxProbe; n++ {
		id := w.sink.txnID(w.subtask, e, seq+int64(n))
		_, epoch, err := initProducerID(ctx, cl, id, w.sink.txTimeout)
		if err != nil {
			return n, fmt.Errorf("%s: abort transaction %s: %w", w.sink.where, id, err)
		}
		if epoch == 0 {
			return n, nil // a new id: nothing was written under it, nor later
		}
	}
	return maxProbe, nil
}

// initProducerID initialises a transactional id, which aborts a transaction left open
// under it; the epoch is 0 when the broker had never seen the id.
func initProducerID(ctx context.Context, cl *kgo.Client, id string, timeout time.Duration) (int64, int16, error) {
	for {
		req := kmsg.NewPtrInitProducerIDRequest()
		req.TransactionalID = &id
		req.TransactionTimeoutMillis = int32(timeout.Milliseconds())
		req.ProducerID, req.ProducerEpoch = -1, -1
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return 0, 0, err
		}
		err = kerr.ErrorForCode(resp.ErrorCode)
		if err == nil {
			return resp.ProducerID, resp.ProducerEpoch, nil
		}
		if !errors.Is(err, kerr.ConcurrentTransactions) && !kerr.IsRetriable(err) {
			return 0, 0, err
		}
		// the broker is still ending the transaction it found: ask again shortly
		select {
		case <-ctx.Done():
			return 0, 0, fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// begin opens the next transaction.
func (w *txnWriter) begin(ctx context.Context) error {
	id := w.sink.txnID(w.subtask, w.epoch, w.seq)
	p, err := newProducer(w.sink, kgo.TransactionalID(id), kgo.TransactionTimeout(w.sink.txTimeout))
	if err != nil {
		return err
	}
	if err := p.cl.BeginTransaction(); err != nil {
		p.cl.Close()
		return fmt.Errorf("%s: begin transaction %s: %w", w.sink.where, id, err)
	}
	w.cur = p
	return nil
}

// Encoding is the encoding the writer writes encoded rows of table in (connector.EncodedWriter).
func (w *txnWriter) Encoding(table string) string { return w.sink.encoding(table) }

func (w *txnWriter) Write(ctx context.Context, b *row.Batch) error {
	if b.Len() == 0 {
		return nil
	}
	if w.cur == nil {
		if err := w.begin(ctx); err != nil {
			return err
		}
	}
	return w.cur.write(ctx, b)
}

// PrepareCommit flushes the open transaction and returns its commit info; the next rows go
// to a new transaction. The info carries the transactions of earlier checkpoints the broker
// has not committed, if any. Without rows since the last checkpoint and nothing carried
// there is nothing to commit.
func (w *txnWriter) PrepareCommit(ctx context.Context, checkpointID int64) ([]byte, error) {
	w.pending = nil
	carried, err := w.uncommitted(ctx)
	if err != nil {
		return nil, err
	}
	w.prepared = carried
	if w.cur != nil {
		info, err := w.prepare(ctx, checkpointID)
		if err != nil {
			return nil, err
		}
		w.prepared = append(w.prepared, *info)
	}
	if len(w.prepared) == 0 {
		return nil, nil
	}
	last := w.prepared[len(w.prepared)-1]
	last.Also = w.prepared[: len(w.prepared)-1 : len(w.prepared)-1]
	w.pending = &last
	return json.Marshal(w.pending)
}

// prepare flushes the open transaction and leaves it open for the committer.
func (w *txnWriter) prepare(ctx context.Context, checkpointID int64) (*txnInfo, error) {
	p := w.cur
	id := w.sink.txnID(w.subtask, w.epoch, w.seq)
	if err := p.flush(ctx); err != nil {
		return nil, err
	}
	pid, epoch, err := p.cl.ProducerID(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: producer id of transaction %s: %w", w.sink.where, id, err)
	}
	// the transaction stays open on the broker: closing the client does not end it
	p.cl.Close()
	w.cur = nil
	w.seq++
	return &txnInfo{TransactionalID: id, ProducerID: pid, ProducerEpoch: epoch, Checkpoint: checkpointID}, nil
}

// uncommitted are the transactions prepared before that the broker still holds open: their
// checkpoint failed (or has not completed yet; committing one twice is harmless). Those it
// committed, or is committing, are done; one it aborted on its own (its timeout passed)
// cannot be committed any more.
func (w *txnWriter) uncommitted(ctx context.Context) ([]txnInfo, error) {
	if len(w.prepared) == 0 {
		return nil, nil
	}
	if w.adm == nil {
		cl, err := kgo.NewClient(w.sink.client.opts...)
		if err != nil {
			return nil, fmt.Errorf("%s: kafka client: %w", w.sink.where, err)
		}
		w.admCl, w.adm = cl, kadm.NewClient(cl)
	}
	ids := make([]string, len(w.prepared))
	for i, t := range w.prepared {
		ids[i] = t.TransactionalID
	}
	dctx, cancel := context.WithTimeout(ctx, w.sink.client.requestTimeout)
	defer cancel()
	described, err := w.adm.DescribeTransactions(dctx, ids...)
	if err != nil {
		return nil, fmt.Errorf("%s: state of transactions %v: %w", w.sink.where, ids, err)
	}
	var out []txnInfo
	for _, t := range w.prepared {
		if d, ok := described[t.TransactionalID]; !ok || d.Err != nil || d.State == "Ongoing" {
			out = append(out, t)
		}
	}
	if len(out) > 0 {
		slog.Warn("kafka: transactions of earlier checkpoints not committed yet; the next commit carries them", "sink", w.sink.where,
			"subtask", w.subtask, "count", len(out), "oldest", out[0].TransactionalID)
	}
	return out, nil
}

func (w *txnWriter) SnapshotState(int64) ([]byte, error) {
	return json.Marshal(txnState{Epoch: w.epoch, Seq: w.seq, Pending: w.pending})
}

// Close aborts the transaction of rows no checkpoint prepared. A prepared one is left to
// the checkpoint coordinator, the only one that knows whether its checkpoint completed: a
// writer stopped between a checkpoint's prepare and its commit cannot tell (its task may be
// stopped by a failure elsewhere while the coordinator commits that very checkpoint), so
// ending it here could lose a committed checkpoint's rows. The coordinator commits it with
// its checkpoint, aborts it when the job is cancelled or fails, and a restored writer
// aborts what its checkpoint did not include.
func (w *txnWriter) Close(ctx context.Context) error {
	if w.admCl != nil {
		defer w.admCl.Close()
	}
	if w.cur == nil {
		return nil
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.sink.client.requestTimeout)
	defer cancel()
	return w.abortOpen(actx)
}

// abortOpen aborts the transaction of the rows written since the last checkpoint.
func (w *txnWriter) abortOpen(ctx context.Context) error {
	p := w.cur
	w.cur = nil
	defer p.cl.Close()
	if err := p.cl.AbortBufferedRecords(ctx); err != nil {
		return fmt.Errorf("%s: abort: %w", w.sink.where, err)
	}
	if err := p.cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
		return fmt.Errorf("%s: abort transaction %s: %w", w.sink.where, w.sink.txnID(w.subtask, w.epoch, w.seq), err)
	}
	return nil
}

// committer ends the transactions writers prepared, by EndTxn with the producer id and
// epoch recorded in their commit infos.
type committer struct {
	sink *Sink
}

func (c *committer) Commit(ctx context.Context, req connector.CommitRequest) error {
	return c.end(ctx, req.Infos, true)
}

func (c *committer) Abort(ctx context.Context, infos [][]byte) error {
	return c.end(ctx, infos, false)
}

func (c *committer) end(ctx context.Context, infos [][]byte, commit bool) error {
	if len(infos) == 0 {
		return nil
	}
	cl, err := kgo.NewClient(c.sink.client.opts...)
	if err != nil {
		return fmt.Errorf("%s: kafka client: %w", c.sink.where, err)
	}
	defer cl.Close()
	for _, raw := range infos {
		var info txnInfo
		if err := json.Unmarshal(raw, &info); err != nil {
			return connector.Permanent(fmt.Errorf("%s: commit info: %w", c.sink.where, err))
		}
		txns := info.all()
		if !commit {
			// only the checkpoint's own transaction: those it carries belong to earlier
			// checkpoints, which a manifest may hold (their commit failed after it) or which
			// are aborted as infos of their own
			txns = txns[len(txns)-1:]
		}
		for _, t := range txns {
			err := endTxn(ctx, cl, c.sink, &t, commit)
			if !commit && (errors.Is(err, kerr.InvalidTxnState) || errors.Is(err, kerr.ProducerFenced) ||
				errors.Is(err, kerr.InvalidProducerEpoch) || errors.Is(err, kerr.InvalidProducerIDMapping)) {
				continue // ended already: committed with an earlier checkpoint, or by a restored writer
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// endTxn commits or aborts one transaction. Ending it again the same way succeeds, so a
// retried commit is harmless; a transaction the broker aborted already (its timeout passed)
// can never be committed, and that is a permanent failure naming it.
func endTxn(ctx context.Context, cl *kgo.Client, s *Sink, info *txnInfo, commit bool) error {
	what := "commit"
	if !commit {
		what = "abort"
	}
	for {
		req := kmsg.NewPtrEndTxnRequest()
		req.TransactionalID = info.TransactionalID
		req.ProducerID = info.ProducerID
		req.ProducerEpoch = info.ProducerEpoch
		req.Commit = commit
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return fmt.Errorf("%s: %s transaction %s at %s: %w", s.where, what, info.TransactionalID, s.bootstrap, err)
		}
		err = kerr.ErrorForCode(resp.ErrorCode)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, kerr.ConcurrentTransactions) || kerr.IsRetriable(err):
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s: %s transaction %s: %w (last: %v)", s.where, what, info.TransactionalID, ctx.Err(), err)
			case <-time.After(50 * time.Millisecond):
			}
		case errors.Is(err, kerr.InvalidTxnState), errors.Is(err, kerr.ProducerFenced),
			errors.Is(err, kerr.InvalidProducerIDMapping), errors.Is(err, kerr.InvalidProducerEpoch):
			return connector.Permanent(fmt.Errorf("%s: %s transaction %s of checkpoint %d (producer %d, epoch %d): %w; "+
				"the broker ended it otherwise, likely after transaction.timeout.ms", s.where, what, info.TransactionalID,
				info.Checkpoint, info.ProducerID, info.ProducerEpoch, err))
		default:
			return fmt.Errorf("%s: %s transaction %s: %w", s.where, what, info.TransactionalID, err)
		}
	}
}
