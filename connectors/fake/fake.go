// Package fake is FakeSource: a source that generates random rows for a declared schema, or
// emits rows written in the config, as SeaTunnel's FakeSource does.
//
// Work is cut into splits per reader: for each table, reader i gets splits of
// ceil(row.num / split.num) rows until it has row.num rows. A split emits that many random
// rows, or, when `rows` is set, all of `rows`. Readers pause split.read-interval
// milliseconds between splits. In BATCH jobs the source ends when every split is read; in
// STREAMING jobs the readers idle once their splits are done.
package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/sourcekit"
	"github.com/strait-dev/strait/connectors/internal/splitassign"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
)

func init() {
	connector.RegisterSource("FakeSource", "Generates random rows for a declared schema, or emits rows written in the config, as SeaTunnel's FakeSource does.", New)
}

// Source is a configured FakeSource.
type Source struct {
	tables []*tableConfig
	byID   map[string]*tableConfig
	mode   connector.JobMode
	where  string
}

// New builds a FakeSource from its options.
func New(ctx *connector.SourceContext, c *Config) (connector.Source, error) {
	tables, err := parseSource(c, ctx.OutputName)
	if err != nil {
		return nil, err
	}
	s := &Source{tables: tables, byID: map[string]*tableConfig{}, mode: ctx.Job.Mode, where: ctx.Options.Where()}
	for _, t := range tables {
		s.byID[t.id] = t
	}
	return s, nil
}

// Boundedness is bounded in BATCH jobs and unbounded in STREAMING ones.
func (s *Source) Boundedness() connector.Boundedness { return sourcekit.Boundedness(s.mode) }

// Tables lists the tables the source emits rows of.
func (s *Source) Tables() []*catalog.Table {
	return sourcekit.Tables(s.tables, func(t *tableConfig) *catalog.Table { return t.table })
}

// splitData is what a split carries: which rows it covers and how many were emitted.
type splitData struct {
	Table   string `json:"table"`
	Index   int    `json:"index"`
	Rows    int    `json:"rows"`
	Emitted int    `json:"emitted,omitempty"`
}

func splitID(table string, index int) string { return table + "_" + strconv.Itoa(index) }

func (d *splitData) split() connector.Split {
	b, _ := json.Marshal(d)
	return connector.Split{ID: splitID(d.Table, d.Index), Data: b}
}

// ---- enumerator ----

type enumerator struct {
	*splitassign.Static
	src *Source
}

// CreateEnumerator makes the split enumerator. A restored one does not hand out again the
// splits it had assigned: their progress lives in the readers' state.
func (s *Source) CreateEnumerator(ctx connector.EnumeratorContext, state []byte) (connector.Enumerator, error) {
	st, err := splitassign.Restore(state)
	if err != nil {
		return nil, fmt.Errorf("%s: bad enumerator state: %v", s.where, err)
	}
	return &enumerator{Static: splitassign.New(ctx, st.Assigned), src: s}, nil
}

// Run cuts each table's rows into splits of split.num rows' share, split index going to
// reader index mod parallelism.
func (e *enumerator) Run(context.Context) error {
	p := e.Parallelism()
	var splits []connector.Split
	var owners []int
	for _, t := range e.src.tables {
		per := max(1, (t.rowNum+t.splitNum-1)/t.splitNum)
		for i := 0; i < p; i++ {
			index := i
			for num := 0; num < t.rowNum; num += per {
				d := splitData{Table: t.id, Index: index, Rows: min(per, t.rowNum-num)}
				splits = append(splits, d.split())
				owners = append(owners, index%p)
				index += p
			}
		}
	}
	e.StartBy(splits, func(i int) int { return owners[i] })
	return nil
}

func (e *enumerator) Snapshot(int64) ([]byte, error) { return e.SnapshotState() }

// ---- reader ----

// readerTable is a table as one reader generates it.
type readerTable struct {
	cfg   *tableConfig
	id    string
	width int
	ops   []colOp
	rows  []row.Row // converted `rows`, when set
}

type split struct {
	d     splitData
	t     *readerTable
	total int // rows this split emits
}

type reader struct {
	src      *Source
	index    int
	bounded  bool
	rng      *rng
	tables   map[string]*readerTable
	splits   []*split
	cur      *split
	noMore   bool
	started  bool
	last     time.Time
	interval time.Duration
	err      error
}

// How long PollNext waits when it has nothing to emit: idleWait once every split is read
// (STREAMING), maxPollWait at most while the next split's read interval runs.
const (
	idleWait    = 100 * time.Millisecond
	maxPollWait = 50 * time.Millisecond
)

// CreateReader makes the reader of one parallel subtask. Its generators are built here,
// once: the row loop only calls them.
func (s *Source) CreateReader(ctx connector.ReaderContext) (connector.Reader, error) {
	r := &reader{
		src:     s,
		index:   ctx.Index,
		bounded: s.Boundedness() == connector.Bounded,
		rng:     newRNG(rand.Uint64(), uint64(ctx.Index)<<32|rand.Uint64()>>32),
		tables:  map[string]*readerTable{},
	}
	now := time.Now
	b := &genBuilder{year: int64(time.Now().Year()), now: now}
	conv := literal.Converter{Now: now}
	first := true
	for _, t := range s.tables {
		rt := &readerTable{cfg: t, id: t.id, width: len(t.table.Columns)}
		if t.hasRows {
			rowType := t.table.RowType()
			for _, fr := range t.rows {
				fields, err := conv.ConvertFields(fr.fields, rowType)
				if err != nil {
					return nil, literalError(fr.opts, "fields", err)
				}
				rt.rows = append(rt.rows, row.Row{Kind: fr.kind, Table: t.id, Fields: fields})
			}
		} else {
			b.g = &t.gen
			rt.ops = make([]colOp, len(t.table.Columns))
			for i, c := range t.table.Columns {
				rt.ops[i] = b.op(c.Type, &t.colGen[i])
			}
		}
		r.tables[t.id] = rt
		if iv := time.Duration(t.readInterval) * time.Millisecond; first || iv < r.interval {
			r.interval = iv
		}
		first = false
	}
	return r, nil
}

func (r *reader) Open(context.Context) error { return nil }

// AddSplits queues splits, restored ones resuming after the rows they had emitted.
func (r *reader) AddSplits(splits []connector.Split) {
	for _, sp := range splits {
		var d splitData
		if err := json.Unmarshal(sp.Data, &d); err != nil {
			r.err = fmt.Errorf("%s: bad split %q: %v", r.src.where, sp.ID, err)
			continue
		}
		t := r.tables[d.Table]
		if t == nil {
			r.err = fmt.Errorf("%s: split %q is for table %q, which this source does not produce", r.src.where, sp.ID, d.Table)
			continue
		}
		total := d.Rows
		if t.cfg.hasRows {
			total = len(t.rows)
		}
		r.splits = append(r.splits, &split{d: d, t: t, total: total})
	}
}

func (r *reader) NoMoreSplits() { r.noMore = true }

// PollNext emits rows of the current split, up to the batch's capacity. A new split starts
// only split.read-interval after the previous one started.
func (r *reader) PollNext(ctx context.Context, out *row.Batch) (bool, error) {
	if r.err != nil {
		return false, r.err
	}
	if r.cur == nil {
		if len(r.splits) == 0 {
			if r.noMore && r.bounded {
				return true, nil
			}
			wait := idleWait
			if !r.noMore {
				wait = 10 * time.Millisecond
			}
			return false, sourcekit.Sleep(ctx, wait)
		}
		if r.started {
			if wait := time.Until(r.last.Add(r.interval)); wait > 0 {
				if wait > maxPollWait {
					return false, sourcekit.Sleep(ctx, maxPollWait)
				}
				if err := sourcekit.Sleep(ctx, wait); err != nil {
					return false, err
				}
			}
		}
		r.cur = r.splits[0]
		r.splits[0] = nil
		r.splits = r.splits[1:]
		r.started = true
		r.last = time.Now()
	}
	s := r.cur
	n := max(s.total-s.d.Emitted, 0)
	if room := out.Cap() - out.Len(); n > room {
		n = max(room, 0)
	}
	t := s.t
	if t.cfg.hasRows {
		for i := 0; i < n; i++ {
			src := &t.rows[s.d.Emitted+i]
			dst := out.Add(src.Kind, t.id, t.width)
			for j := range dst.Fields {
				dst.Fields[j] = src.Fields[j].Clone()
			}
		}
	} else {
		ops, rg := t.ops, r.rng
		for i := 0; i < n; i++ {
			fillRow(out.Add(row.Insert, t.id, t.width).Fields, ops, rg)
		}
		if rg.err != nil {
			r.err = fmt.Errorf("%s: table %s: %w", r.src.where, t.id, rg.err)
			return false, r.err
		}
	}
	s.d.Emitted += n
	if s.d.Emitted >= s.total {
		r.cur = nil
		if len(r.splits) == 0 && r.noMore && r.bounded {
			return true, nil
		}
	}
	return false, nil
}

// SnapshotState returns the unfinished splits with how many rows of each were emitted.
func (r *reader) SnapshotState(int64) ([]connector.Split, error) {
	out := make([]connector.Split, 0, len(r.splits)+1)
	if r.cur != nil {
		out = append(out, r.cur.d.split())
	}
	for _, s := range r.splits {
		out = append(out, s.d.split())
	}
	return out, nil
}

func (r *reader) Close() error { return nil }
