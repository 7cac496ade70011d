// Package multitable lets a sink written for one table receive several, as Zeta's
// MultiTableSink does: the sink is built once per input table, from its options with the
// table placeholders replaced for that table (${table_name} in a path, say), and rows go to
// the writer of their table. Writers' commit infos and snapshots are kept per table, and the
// committer hands each table's infos to that table's committer.
package multitable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// Build makes one sink per input table with build, each from options whose table
// placeholders are replaced for its table. With one input table it returns that sink as
// it is; with none, build decides.
func Build(ctx *connector.SinkContext, build connector.SinkFactory) (connector.Sink, error) {
	if len(ctx.Inputs) == 0 {
		return build(ctx)
	}
	s := &Sink{sinks: map[string]connector.Sink{}}
	for _, t := range ctx.Inputs {
		id := t.ID()
		if _, dup := s.sinks[id]; dup {
			return nil, ctx.Options.Errorf("", "receives table %s from two inputs; give each source its own table name", id)
		}
		o := ctx.Options.Rewritten(func(_ string, v *hocon.Value) *hocon.Value { return replaceValue(v, t) })
		one, err := build(&connector.SinkContext{Context: ctx.Context, Options: o, Job: ctx.Job, Inputs: []*catalog.Table{t}})
		ctx.Options.MarkUsedFrom(o)
		if err != nil {
			if len(ctx.Inputs) > 1 {
				return nil, fmt.Errorf("table %s: %w", id, err)
			}
			return nil, err
		}
		if len(ctx.Inputs) == 1 {
			return one, nil
		}
		s.ids = append(s.ids, id)
		s.sinks[id] = one
	}
	return s, nil
}

// BuildDecoded is Build for a sink whose options are the struct C (see config.Spec): each
// table's options, its placeholders replaced, are decoded into a C of their own, which
// build receives with the table's context.
func BuildDecoded[C any](ctx *connector.SinkContext, build func(ctx *connector.SinkContext, c *C) (connector.Sink, error)) (connector.Sink, error) {
	return Build(ctx, func(ctx *connector.SinkContext) (connector.Sink, error) {
		c, err := config.Decode[C](ctx.Options)
		if err != nil {
			return nil, err
		}
		return build(ctx, c)
	})
}

// RegisterSink registers the sink name, whose options are the struct C (see config.Spec),
// built by build once per input table (BuildDecoded).
func RegisterSink[C any](name, doc string, build func(ctx *connector.SinkContext, c *C) (connector.Sink, error)) {
	connector.RegisterSink(name, doc, func(ctx *connector.SinkContext, _ *C) (connector.Sink, error) {
		return BuildDecoded(ctx, build)
	})
}

// Sink writes each table with a sink of its own.
type Sink struct {
	ids   []string // the tables, in input order
	sinks map[string]connector.Sink
}

// stored is the form of a writer's commit info and snapshot: each table's, by table id.
type stored map[string][]byte

func decode(b []byte) (stored, error) {
	var m stored
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("multi-table state: %w", err)
	}
	return m, nil
}

// Setup prepares every table's target whose sink has a setup, in input order.
func (s *Sink) Setup(ctx context.Context) error {
	for _, id := range s.ids {
		if su, ok := s.sinks[id].(connector.SinkSetup); ok {
			if err := su.Setup(ctx); err != nil {
				return fmt.Errorf("table %s: %w", id, err)
			}
		}
	}
	return nil
}

// CreateWriter makes a writer per table, each restored from its table's part of states.
func (s *Sink) CreateWriter(ctx connector.WriterContext, states [][]byte) (connector.Writer, error) {
	per := map[string][][]byte{}
	for _, st := range states {
		m, err := decode(st)
		if err != nil {
			// the state of the sink of one table, before the job was given more
			id, ok := s.ownerOf(st)
			if !ok {
				return nil, err
			}
			per[id] = append(per[id], st)
			continue
		}
		for id, b := range m {
			if _, ok := s.sinks[id]; !ok {
				return nil, fmt.Errorf("restoring a writer: the snapshot has table %s, which the sink no longer receives", id)
			}
			per[id] = append(per[id], b)
		}
	}
	w := &writer{s: s, subs: make(map[string]connector.Writer, len(s.ids))}
	for _, id := range s.ids {
		sub, err := s.sinks[id].CreateWriter(ctx, per[id])
		if err != nil {
			_ = w.Close(context.Background())
			return nil, fmt.Errorf("table %s: %w", id, err)
		}
		w.subs[id] = sub
	}
	return w, nil
}

// CreateCommitter returns a committer over the tables' committers, or nil when no table's
// sink has one.
func (s *Sink) CreateCommitter() (connector.Committer, error) {
	c := &committer{subs: map[string]connector.Committer{}}
	for _, id := range s.ids {
		sub, err := s.sinks[id].CreateCommitter()
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", id, err)
		}
		if sub != nil {
			c.ids = append(c.ids, id)
			c.subs[id] = sub
		}
	}
	if len(c.ids) == 0 {
		return nil, nil
	}
	return c, nil
}

type writer struct {
	s     *Sink
	subs  map[string]connector.Writer
	split map[string]*row.Batch // a mixed batch's rows by table, reused
}

// Write hands the batch to the writer of its table; a batch of several tables is split.
func (w *writer) Write(ctx context.Context, b *row.Batch) error {
	if len(b.Rows) == 0 {
		return nil
	}
	first := b.Rows[0].Table
	mixed := false
	for i := range b.Rows {
		if b.Rows[i].Table != first {
			mixed = true
			break
		}
	}
	if !mixed {
		sub, err := w.sub(first)
		if err != nil {
			return err
		}
		return sub.Write(ctx, b)
	}
	if w.split == nil {
		w.split = map[string]*row.Batch{}
	}
	for i := range b.Rows {
		r := &b.Rows[i]
		part := w.split[r.Table]
		if part == nil {
			if _, err := w.sub(r.Table); err != nil {
				return err
			}
			part = row.NewBatch(b.Cap())
			w.split[r.Table] = part
		}
		part.AddRow(r)
	}
	// in input order, so tables are written in the same order every time
	var err error
	for _, id := range w.s.ids {
		part := w.split[id]
		if part == nil {
			continue
		}
		delete(w.split, id)
		if err == nil {
			err = w.subs[id].Write(ctx, part)
		}
		part.Release()
	}
	return err
}

func (w *writer) sub(id string) (connector.Writer, error) {
	sub := w.subs[id]
	if sub == nil {
		return nil, fmt.Errorf("a row of table %s, which the sink does not receive (it writes %v)", id, w.s.ids)
	}
	return sub, nil
}

// PrepareCommit prepares every table's writer; the info holds the tables that have one.
func (w *writer) PrepareCommit(ctx context.Context, checkpointID int64) ([]byte, error) {
	m := stored{}
	for _, id := range w.s.ids {
		info, err := w.subs[id].PrepareCommit(ctx, checkpointID)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", id, err)
		}
		if info != nil {
			m[id] = info
		}
	}
	if len(m) == 0 {
		return nil, nil
	}
	return json.Marshal(m)
}

// SnapshotState keeps every table's writer snapshot.
func (w *writer) SnapshotState(checkpointID int64) ([]byte, error) {
	m := stored{}
	for _, id := range w.s.ids {
		st, err := w.subs[id].SnapshotState(checkpointID)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", id, err)
		}
		if st != nil {
			m[id] = st
		}
	}
	return json.Marshal(m)
}

// Close closes every table's writer.
func (w *writer) Close(ctx context.Context) error {
	var errs []error
	for _, id := range w.s.ids {
		if sub := w.subs[id]; sub != nil {
			if err := sub.Close(ctx); err != nil {
				errs = append(errs, fmt.Errorf("table %s: %w", id, err))
			}
		}
	}
	for id, part := range w.split {
		part.Release()
		delete(w.split, id)
	}
	return errors.Join(errs...)
}

type committer struct {
	ids  []string
	subs map[string]connector.Committer
}

// split sorts the writers' infos by table, keeping their order.
func (c *committer) split(infos [][]byte) (map[string][][]byte, error) {
	per := map[string][][]byte{}
	for _, info := range infos {
		m, err := decode(info)
		if err != nil {
			return nil, err
		}
		for id, b := range m {
			if _, ok := c.subs[id]; !ok {
				return nil, fmt.Errorf("a commit info of table %s, which has no committer here", id)
			}
			per[id] = append(per[id], b)
		}
	}
	return per, nil
}

// Commit commits each table's infos with its committer; every committer is called, with
// the checkpoint's final flag, even when its table wrote nothing.
func (c *committer) Commit(ctx context.Context, req connector.CommitRequest) error {
	per, err := c.split(req.Infos)
	if err != nil {
		return err
	}
	for _, id := range c.ids {
		sub := connector.CommitRequest{CheckpointID: req.CheckpointID, Final: req.Final, Infos: per[id]}
		if err := c.subs[id].Commit(ctx, sub); err != nil {
			return fmt.Errorf("table %s: %w", id, err)
		}
	}
	return nil
}

// Abort aborts each table's infos.
func (c *committer) Abort(ctx context.Context, infos [][]byte) error {
	per, err := c.split(infos)
	if err != nil {
		return err
	}
	var errs []error
	for _, id := range c.ids {
		if len(per[id]) == 0 {
			continue
		}
		if err := c.subs[id].Abort(ctx, per[id]); err != nil {
			errs = append(errs, fmt.Errorf("table %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}
