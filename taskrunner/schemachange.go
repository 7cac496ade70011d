package taskrunner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/exchange"
	"github.com/strait-dev/strait/planvertex"
)

// Schema changes in the record stream.
//
// A source reader that follows its tables' DDL (connector.SchemaChangeReader) ends a batch
// at a change; after pushing the batch's rows, the source task takes the changes and hands
// each through its chain as it hands a batch: every transform maps it
// (connector.SchemaChangeTransform), then the sink's writer applies it
// (connector.SchemaChangeApplier), or the outlet sends it to every consumer of every
// output edge (a hash or round-robin edge's rows of the table may go to any of them), in
// order with the batches: to a local consumer as an inbox message, to another runner as an
// exchange marker of kind "schema-change" carrying the change as JSON. A consumer hands the
// change through its own chain when it arrives; while it aligns a checkpoint's barriers, a
// change from a producer whose barrier came is held with that producer's batches, so the
// change stays on its side of the barrier. A change that reaches a task twice (through two
// paths) is followed once, by its id. A transform or a sink that cannot follow a change fails
// the task, naming the plugin and the statement: writing rows of a shape it does not know
// would be worse.
//
// The writers of a sink that all receive every change (its inputs are hash, round-robin or
// broadcast edges) first prepare it (connector.SchemaChangePreparer: write the rows before
// it) and meet, and only then apply it, so none changes the target while another still
// holds rows of its old columns. A hash edge's key positions follow each change; a source
// task's hash edges start from the tables its reader reads (a restored reader's are its
// checkpoint's, the plan's the database's of now).
//
// The change is applied in the order of the stream, never across a checkpoint barrier, so a
// checkpoint's states are all from one side of it: the source's state holds the table as it
// is after every change before the barrier, and a sink's writer (which applies a change only
// after every row before it) has applied exactly those.

// markerSchemaChange is the kind of an exchange marker that carries a schema change.
const markerSchemaChange = "schema-change"

// changeTarget is a target that takes schema changes in order with its batches.
type changeTarget interface {
	change(ctx context.Context, c *connector.SchemaChange) error
}

func (l localTarget) change(ctx context.Context, c *connector.SchemaChange) error {
	return l.send(ctx, message{change: c})
}

func (r remoteTarget) change(ctx context.Context, c *connector.SchemaChange) error {
	data, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("schema change of table %s: %w", c.Table, err)
	}
	return r.s.Mark(ctx, exchange.Marker{Kind: markerSchemaChange, Data: data})
}

// changeOfMarker decodes the schema change of an exchange marker of kind "schema-change".
func changeOfMarker(m *exchange.Marker) (*connector.SchemaChange, error) {
	var c connector.SchemaChange
	if err := json.Unmarshal(m.Data, &c); err != nil {
		return nil, fmt.Errorf("a schema change from the exchange: %w", err)
	}
	return &c, nil
}

// sendChange sends a schema change to every consumer the outlet may send rows to; a hash
// edge's keys follow the change first, so the rows after it keep reaching the consumer of
// their key.
func (o *outlet) sendChange(ctx context.Context, c *connector.SchemaChange) error {
	for _, e := range o.edges {
		if e.hash != nil {
			if err := e.hash.follow(c); err != nil {
				return err
			}
		}
		for _, t := range e.targets {
			ct, ok := t.(changeTarget)
			if !ok {
				return fmt.Errorf("schema change of table %s: a target of the exchange takes none", c.Table)
			}
			if err := ct.change(ctx, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// takeChanges hands on the schema changes a source reader passed after its last rows; took
// says there were some.
func (t *task) takeChanges(ctx context.Context, c *chain) (took bool, err error) {
	sr, ok := c.reader.(connector.SchemaChangeReader)
	if !ok {
		return false, nil
	}
	changes := sr.SchemaChanges()
	for _, ch := range changes {
		if err := t.pushChange(ctx, c, ch); err != nil {
			return true, err
		}
	}
	return len(changes) > 0, nil
}

// pushChange hands a schema change through the chain: the transforms, then the sink's
// writer or the outlet. A change is shared by every task it reaches, so nothing changes it:
// a transform that maps it returns a new one.
func (t *task) pushChange(ctx context.Context, c *chain, ch *connector.SchemaChange) error {
	if to, ok := c.aliases[ch.Table]; ok {
		relabelled := *ch
		relabelled.Table = to
		ch = &relabelled
	}
	if c.changes == nil {
		c.changes = map[string]bool{}
	}
	if ch.ID != "" {
		if c.changes[ch.ID] {
			return nil
		}
		c.changes[ch.ID] = true
	}
	t.ex.r.log.Info("schema change", "job", t.ex.d.Job.ID, "task", t.id.String(), "change", ch.String())
	transforms := t.vertices(contract.TransformVertex)
	for i, tr := range c.transforms {
		st, ok := tr.(connector.SchemaChangeTransform)
		if !ok {
			return connector.Permanent(fmt.Errorf("%s: the transform cannot follow a schema change of %s", transforms[i].Where, ch))
		}
		next, err := st.ApplySchemaChange(ctx, ch)
		if err != nil {
			return fmt.Errorf("%s: schema change of %s: %w", transforms[i].Where, ch, err)
		}
		if next == nil {
			return nil // the transform's output does not change
		}
		ch = next
	}
	if c.writer != nil {
		return t.applyChange(ctx, c, ch)
	}
	return c.out.sendChange(ctx, ch)
}

// applyChange has the sink's writer apply a change. When every subtask of the task group
// receives every change (no input edge forwards), the writers first prepare it (write the
// rows before it) and meet, so none alters the table while another still holds rows of its
// old columns; the subtasks of a group all run on this runner.
func (t *task) applyChange(ctx context.Context, c *chain, ch *connector.SchemaChange) error {
	sink := t.ex.vertices[c.sinkVertex]
	sa, ok := c.writer.(connector.SchemaChangeApplier)
	if !ok {
		return connector.Permanent(fmt.Errorf("%s: the sink cannot follow a schema change of %s", sink.Where, ch))
	}
	if err := t.ex.r.checkLease(); err != nil {
		return err // a fenced runner changes nothing more
	}
	if sp, ok := c.writer.(connector.SchemaChangePreparer); ok && t.group.Parallelism > 1 && t.everyChange() {
		if err := sp.PrepareSchemaChange(ctx, ch); err != nil {
			return fmt.Errorf("%s: schema change of %s: %w", sink.Where, ch, err)
		}
		if err := t.ex.meet(ctx, fmt.Sprintf("%d/%s", t.group.ID, ch.ID), t.group.Parallelism); err != nil {
			return err
		}
	}
	if err := sa.ApplySchemaChange(ctx, ch); err != nil {
		return fmt.Errorf("%s: schema change of %s: %w", sink.Where, ch, err)
	}
	return nil
}

// everyChange reports whether every subtask of the task's group receives every change: its
// inputs come over edges that are not forward ones (a change goes to every consumer of a
// hash, round-robin or broadcast edge).
func (t *task) everyChange() bool {
	if len(t.group.Inputs) == 0 {
		return false
	}
	for _, eid := range t.group.Inputs {
		if t.ex.d.Pipeline.Edge(eid).Partitioning == contract.PartitionForward {
			return false
		}
	}
	return true
}

// meetings are the subtasks waiting for their siblings at a schema change, by execution and
// key (task group and change).
var meetings sync.Map // meetingKey -> *meeting

type meetingKey struct {
	ex  *execution
	key string
}

type meeting struct {
	mu      sync.Mutex
	arrived int
	all     chan struct{}
}

// meet waits until n subtasks of the execution arrived at key; the last to arrive releases
// them all.
func (ex *execution) meet(ctx context.Context, key string, n int) error {
	k := meetingKey{ex, key}
	v, _ := meetings.LoadOrStore(k, &meeting{all: make(chan struct{})})
	m := v.(*meeting)
	m.mu.Lock()
	m.arrived++
	if m.arrived == n {
		close(m.all)
		meetings.Delete(k)
	}
	m.mu.Unlock()
	select {
	case <-m.all:
		return nil
	case <-ctx.Done():
		meetings.Delete(k)
		return ctx.Err()
	}
}

// vertices are the task group's vertices of a kind, in chain order.
func (t *task) vertices(kind contract.VertexKind) []*planvertex.Vertex {
	var out []*planvertex.Vertex
	for _, id := range t.group.Vertices {
		if v := t.ex.vertices[id]; v.Kind == kind {
			out = append(out, v)
		}
	}
	return out
}

// follow moves a table's key positions where a schema change puts its key fields (a
// renamed one keeps being the key under its new name). A change that drops a key field
// fails: the rows after it could not be routed by their key.
func (h *hasher) follow(c *connector.SchemaChange) error {
	t := h.tables[c.Table]
	if t == nil {
		return nil // a table the plan did not name: routed by the layout of another
	}
	next, err := c.Apply(t)
	if err != nil {
		return fmt.Errorf("partition_by: %w", err)
	}
	names := append([]string(nil), h.names[c.Table]...)
	for _, cc := range c.Columns {
		for i, n := range names {
			if cc.Op == connector.ChangeColumn && strings.EqualFold(n, cc.Name) {
				names[i] = cc.Column.Name
			}
		}
	}
	idx := make([]int, len(names))
	for i, n := range names {
		if idx[i] = connector.ColumnIndexFold(next, n); idx[i] < 0 {
			return connector.Permanent(fmt.Errorf("partition_by: the schema change of %s drops key field %q", c, n))
		}
	}
	h.tables[c.Table], h.names[c.Table], h.keys[c.Table] = next, names, idx
	return nil
}

// rebase gives the hash edges of a source task the tables its reader reads (a restored
// reader's are its checkpoint's, the plan's the database's of now), before its first rows
// are routed.
func (t *task) rebase(c *chain) {
	sr, ok := c.reader.(connector.SchemaChangeReader)
	if !ok || c.out == nil {
		return
	}
	for _, tb := range sr.Tables() {
		for _, e := range c.out.edges {
			if e.hash != nil {
				e.hash.rebase(tb)
			}
		}
	}
}

// rebase takes a table's columns for its key positions; a table whose key fields it lacks
// keeps the plan's.
func (h *hasher) rebase(t *catalog.Table) {
	names, ok := h.names[t.ID()]
	if !ok {
		return
	}
	idx := make([]int, len(names))
	for i, n := range names {
		if idx[i] = connector.ColumnIndexFold(t, n); idx[i] < 0 {
			return
		}
	}
	h.tables[t.ID()], h.keys[t.ID()] = t, idx
}
