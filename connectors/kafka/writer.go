package kafka

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// producer sends records and remembers the first failure of any of them.
type producer struct {
	sink *Sink
	cl   *kgo.Client

	mu  sync.Mutex
	err error

	promise func(*kgo.Record, error)
}

func newProducer(s *Sink, extra ...kgo.Opt) (*producer, error) {
	opts := append([]kgo.Opt{kgo.RecordPartitioner(s.partitioner()), kgo.AllowAutoTopicCreation()}, s.client.opts...)
	opts = append(opts, extra...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: kafka client: %w", s.where, err)
	}
	p := &producer{sink: s, cl: cl}
	p.promise = func(r *kgo.Record, err error) {
		if err != nil {
			p.mu.Lock()
			if p.err == nil {
				p.err = fmt.Errorf("%s: write to topic %s at %s: %w", s.where, r.Topic, s.bootstrap, err)
			}
			p.mu.Unlock()
		}
		s.recycle(r)
	}
	return p, nil
}

func (p *producer) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// write sends the rows of a batch; it returns the first failure seen so far.
func (p *producer) write(ctx context.Context, b *row.Batch) error {
	if err := p.failed(); err != nil {
		return err
	}
	s := p.sink
	table, tc := "", s.first
	for i := range b.Rows {
		r := &b.Rows[i]
		if i == 0 || r.Table != table { // a batch is mostly of one table: one look-up
			table, tc = r.Table, s.codecOf(r.Table)
		}
		rec := s.newRecord()
		if enc := b.EncodedOf(i); enc != nil {
			// a record read as it is written (Encoding): its bytes go unchanged
			rec.Topic, rec.Key, rec.Value = tc.topic[0].text, nil, append(rec.Value[:0], enc...)
			if s.partition != nil {
				rec.Partition = *s.partition
			}
			p.cl.Produce(ctx, rec, p.promise)
			continue
		}
		if err := s.record(tc, r, rec); err != nil {
			s.recycle(rec)
			return fmt.Errorf("%s: row of %s: %w", s.where, r.Table, err)
		}
		p.cl.Produce(ctx, rec, p.promise)
	}
	return ctx.Err()
}

// encoding is the encoding in which the sink writes the rows of table
// (connector.EncodedWriter): the json encoding of their row type when each row's record is
// its json value alone, to a topic that does not depend on its fields, without a key.
func (s *Sink) encoding(table string) string {
	tc := s.codecOf(table)
	je, ok := tc.value.(*jsonEncoder)
	if !ok || tc.key != nil || tc.rowKey != nil || len(tc.topic) != 1 || tc.topic[0].field >= 0 {
		return ""
	}
	return jsonEncoding(je.rt)
}

// flush waits until every record sent is acknowledged.
func (p *producer) flush(ctx context.Context) error {
	if err := p.cl.Flush(ctx); err != nil {
		return fmt.Errorf("%s: flush to %s: %w", p.sink.where, p.sink.bootstrap, err)
	}
	return p.failed()
}

// plainWriter is the writer of NON and AT_LEAST_ONCE: one idempotent producer. AT_LEAST_ONCE
// waits at every checkpoint until what was sent is acknowledged; NON only when the job ends.
type plainWriter struct {
	p *producer
}

func newPlainWriter(s *Sink) (*plainWriter, error) {
	p, err := newProducer(s)
	if err != nil {
		return nil, err
	}
	return &plainWriter{p: p}, nil
}

func (w *plainWriter) Write(ctx context.Context, b *row.Batch) error { return w.p.write(ctx, b) }

// Encoding is the encoding the writer writes encoded rows of table in (connector.EncodedWriter).
func (w *plainWriter) Encoding(table string) string { return w.p.sink.encoding(table) }

// PrepareCommit flushes under AT_LEAST_ONCE, and under NON in a BATCH job, whose last
// checkpoint ends it. There is nothing to commit.
func (w *plainWriter) PrepareCommit(ctx context.Context, _ int64) ([]byte, error) {
	if w.p.sink.semantics == semanticsAtLeastOnce || w.p.sink.job.Mode != connector.Streaming {
		return nil, w.p.flush(ctx)
	}
	return nil, w.p.failed()
}

func (w *plainWriter) SnapshotState(int64) ([]byte, error) { return nil, nil }

// Close sends what is still buffered, within the request timeout.
func (w *plainWriter) Close(ctx context.Context) error {
	defer w.p.cl.Close()
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.p.sink.client.requestTimeout)
	defer cancel()
	if err := w.p.flush(fctx); err != nil {
		slog.Warn("kafka: records not sent before close", "sink", w.p.sink.where, "error", err)
		return err
	}
	return nil
}
