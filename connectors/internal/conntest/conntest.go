// Package conntest drives connectors' own parts for their tests: a source's enumerator and
// readers in one goroutine, and the registered Assert sink's type check of rows. Whole jobs
// run through the strait binary in e2e/.
package conntest

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	_ "github.com/strait-dev/strait/connectors/assert" // the Assert sink, for AssertTypes
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// EnumContext records what an enumerator does.
type EnumContext struct {
	P          int
	Registered []int
	Assigned   map[int][]connector.Split
	NoMore     map[int]bool
}

// NewEnumContext returns a context for p readers, all registered.
func NewEnumContext(p int) *EnumContext {
	c := &EnumContext{P: p, Assigned: map[int][]connector.Split{}, NoMore: map[int]bool{}}
	for i := 0; i < p; i++ {
		c.Registered = append(c.Registered, i)
	}
	return c
}

func (c *EnumContext) Parallelism() int         { return c.P }
func (c *EnumContext) RegisteredReaders() []int { return c.Registered }
func (c *EnumContext) Assign(reader int, splits ...connector.Split) {
	c.Assigned[reader] = append(c.Assigned[reader], splits...)
}
func (c *EnumContext) SignalNoMoreSplits(reader int) { c.NoMore[reader] = true }

// Parse reads a job config as the planner does: source, transform and sink keep every
// plugin block in file order.
func Parse(src []byte, file string, vars map[string]string) (*hocon.Value, error) {
	return hocon.Parse(src, hocon.Options{File: file, Vars: vars, ListSections: []string{"source", "transform", "sink"}})
}

// ReadAll runs a source with p readers until every bounded reader is done, handing each
// batch to emit (which must not keep it).
func ReadAll(ctx context.Context, src connector.Source, job connector.Job, p int, batchSize int, emit func(reader int, b *row.Batch) error) error {
	ec := NewEnumContext(p)
	en, err := src.CreateEnumerator(ec, nil)
	if err != nil {
		return err
	}
	if err := en.Open(ctx); err != nil {
		return err
	}
	if err := en.Run(ctx); err != nil {
		return err
	}
	readers := make([]connector.Reader, p)
	for i := range readers {
		r, err := src.CreateReader(connector.ReaderContext{Index: i, Parallelism: p, Job: job})
		if err != nil {
			return err
		}
		if err := r.Open(ctx); err != nil {
			return err
		}
		r.AddSplits(ec.Assigned[i])
		if ec.NoMore[i] {
			r.NoMoreSplits()
		}
		readers[i] = r
	}
	done := make([]bool, p)
	left := p
	for left > 0 {
		for i, r := range readers {
			if done[i] {
				continue
			}
			b := row.NewBatch(batchSize)
			d, err := r.PollNext(ctx, b)
			if err == nil && b.Len() > 0 {
				err = emit(i, b)
			}
			b.Release()
			if err != nil {
				return err
			}
			if d {
				done[i] = true
				left--
				if err := r.Close(); err != nil {
					return err
				}
			}
		}
	}
	return en.Close()
}

// Rows reads a whole bounded source and returns deep copies of its rows per reader.
func Rows(ctx context.Context, src connector.Source, p int) ([][]row.Row, error) {
	out := make([][]row.Row, p)
	err := ReadAll(ctx, src, connector.Job{Mode: connector.Batch}, p, row.DefaultBatchSize, func(i int, b *row.Batch) error {
		for j := range b.Rows {
			out[i] = append(out[i], b.Rows[j].Clone())
		}
		return nil
	})
	return out, err
}

// ---- jobs ----

type plugin struct {
	name   string
	where  string
	opts   *config.Options
	input  []string
	output string
}

func pluginsOf(root *hocon.Value, section string) []*plugin {
	sec := root.Get(section)
	if sec == nil {
		return nil
	}
	var out []*plugin
	add := func(name string, v *hocon.Value) {
		i := len(out)
		p := &plugin{name: name, where: fmt.Sprintf("%s[%d] %s", section, i, name)}
		p.opts = config.New(v, p.where)
		for _, k := range []string{"plugin_output", "result_table_name"} {
			if s, _ := p.opts.String(k, ""); s != "" && p.output == "" {
				p.output = s
			}
		}
		for _, k := range []string{"plugin_input", "source_table_name"} {
			if l, _ := p.opts.StringList(k); len(l) > 0 && p.input == nil {
				p.input = l
			}
		}
		out = append(out, p)
	}
	switch sec.Kind {
	case hocon.Object:
		for _, f := range sec.Fields {
			add(f.Key, f.Value)
		}
	case hocon.Array:
		for _, e := range sec.Elems {
			n, _ := config.New(e, "").String("plugin_name", "")
			add(n, e)
		}
	}
	return out
}

// dataset is what a source or transform produces.
type dataset struct {
	src     *source
	tables  []*catalog.Table
	project func(*row.Batch) *row.Batch // nil: rows pass unchanged
}

type source struct {
	plugin *plugin
	src    connector.Source
	p      int
	out    *dataset
	sinks  []*sink
}

type sink struct {
	plugin  *plugin
	sink    connector.Sink
	inputs  []*dataset
	writers []connector.Writer
}

// RunJob runs a BATCH job config: every source to its end, rows through the supported
// transforms (Filter, Sql `select * from t`) to the sinks (each set up first, when it has
// save modes), then a final PrepareCommit of every writer and one final commit per sink.
// It returns the first error.
//
// Deprecated: run whole jobs through the binary in e2e/.
func RunJob(ctx context.Context, root *hocon.Value) error {
	env := config.New(root.Get("env"), "env")
	mode, err := env.Enum("job.mode", "BATCH", "BATCH", "STREAMING")
	if err != nil {
		return err
	}
	if mode != "BATCH" {
		return fmt.Errorf("conntest runs BATCH jobs only")
	}
	job := connector.Job{ID: 1, Name: "test", Mode: connector.Batch}
	par, err := env.Int("parallelism", 1)
	if err != nil {
		return err
	}
	datasets := map[string]*dataset{}
	var last *dataset
	var sources []*source
	for _, p := range pluginsOf(root, "source") {
		f, _, ok := connector.LookupSource(p.name)
		if !ok {
			return fmt.Errorf("%s: unknown source", p.where)
		}
		sp, err := p.opts.Int("parallelism", par)
		if err != nil {
			return err
		}
		if sp < 1 {
			sp = 1
		}
		s, err := f(&connector.SourceContext{Options: p.opts, Job: job, Parallelism: int(sp), OutputName: p.output})
		if err != nil {
			return err
		}
		src := &source{plugin: p, src: s, p: int(sp)}
		src.out = &dataset{src: src, tables: s.Tables()}
		sources = append(sources, src)
		datasets[nameOr(p.output)] = src.out
		last = src.out
	}
	for _, p := range pluginsOf(root, "transform") {
		in := resolve(datasets, p.input, last)
		if in == nil {
			return fmt.Errorf("%s: no input", p.where)
		}
		out, err := transform(p, in)
		if err != nil {
			return err
		}
		datasets[nameOr(p.output)] = out
		last = out
	}
	var sinks []*sink
	for _, p := range pluginsOf(root, "sink") {
		f, _, ok := connector.LookupSink(p.name)
		if !ok {
			return fmt.Errorf("%s: unknown sink", p.where)
		}
		var ins []*dataset
		if len(p.input) == 0 {
			ins = []*dataset{last}
		}
		for _, n := range p.input {
			d := datasets[n]
			if d == nil {
				d = last
			}
			ins = append(ins, d)
		}
		var tables []*catalog.Table
		for _, d := range ins {
			tables = append(tables, d.tables...)
		}
		s, err := f(&connector.SinkContext{Options: p.opts, Job: job, Inputs: tables})
		if err != nil {
			return err
		}
		// the save modes, as the engine applies them once a job is planned
		if su, ok := s.(connector.SinkSetup); ok {
			if err := su.Setup(ctx); err != nil {
				return err
			}
		}
		sk := &sink{plugin: p, sink: s, inputs: ins}
		w := 1
		for _, d := range ins {
			w = max(w, d.src.p)
			d.src.sinks = append(d.src.sinks, sk)
		}
		for i := 0; i < w; i++ {
			wr, err := s.CreateWriter(connector.WriterContext{Index: i, Parallelism: w, Job: job}, nil)
			if err != nil {
				return err
			}
			sk.writers = append(sk.writers, wr)
		}
		sinks = append(sinks, sk)
	}
	for _, src := range sources {
		err := ReadAll(ctx, src.src, job, src.p, row.DefaultBatchSize, func(reader int, b *row.Batch) error {
			for _, sk := range src.sinks {
				for _, d := range sk.inputs {
					if d.src != src {
						continue
					}
					in := b
					if d.project != nil {
						in = d.project(b)
					}
					err := sk.writers[reader%len(sk.writers)].Write(ctx, in)
					if in != b {
						in.Release()
					}
					if err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, sk := range sinks {
		var infos [][]byte
		for _, w := range sk.writers {
			info, err := w.PrepareCommit(ctx, 1)
			if err != nil {
				return err
			}
			if info != nil {
				infos = append(infos, info)
			}
			if err := w.Close(ctx); err != nil {
				return err
			}
		}
		c, err := sk.sink.CreateCommitter()
		if err != nil {
			return err
		}
		if c != nil {
			if err := c.Commit(ctx, connector.CommitRequest{CheckpointID: 1, Final: true, Infos: infos}); err != nil {
				return err
			}
		}
	}
	return nil
}

func nameOr(n string) string {
	if n == "" {
		return "default-identifier"
	}
	return n
}

func resolve(ds map[string]*dataset, input []string, last *dataset) *dataset {
	for _, n := range input {
		if d := ds[n]; d != nil {
			return d
		}
	}
	return last
}

// transform emulates the transforms e2e configs use as pass-throughs or projections.
func transform(p *plugin, in *dataset) (*dataset, error) {
	switch strings.ToLower(p.name) {
	case "sql":
		q, _ := p.opts.String("query", "")
		f := strings.Fields(strings.ToLower(q))
		if len(f) == 4 && f[0] == "select" && f[1] == "*" && f[2] == "from" {
			return &dataset{src: in.src, tables: in.tables, project: in.project}, nil
		}
		return nil, fmt.Errorf("%s: conntest only runs `select * from t`", p.where)
	case "filter":
		fields, _ := p.opts.StringList("include_fields")
		if len(fields) == 0 {
			fields, _ = p.opts.StringList("fields")
		}
		if len(in.tables) != 1 {
			return nil, fmt.Errorf("%s: one input table expected", p.where)
		}
		t := in.tables[0]
		idx := make([]int, len(fields))
		out := t.Copy()
		out.Columns = nil
		for i, f := range fields {
			idx[i] = t.ColumnIndex(f)
			if idx[i] < 0 {
				return nil, fmt.Errorf("%s: unknown field %q", p.where, f)
			}
			out.Columns = append(out.Columns, t.Columns[idx[i]])
		}
		prev := in.project
		return &dataset{src: in.src, tables: []*catalog.Table{out}, project: func(b *row.Batch) *row.Batch {
			if prev != nil {
				b = prev(b)
			}
			nb := row.NewBatch(b.Cap())
			for i := range b.Rows {
				r := &b.Rows[i]
				n := nb.Add(r.Kind, r.Table, len(idx))
				for j, k := range idx {
					n.Fields[j] = r.Fields[k]
				}
			}
			return nb
		}}, nil
	}
	return nil, fmt.Errorf("%s: transform not supported by conntest", p.where)
}

// Kinds counts rows per kind, for assertions.
func Kinds(rows []row.Row) map[row.Kind]int {
	m := map[row.Kind]int{}
	for _, r := range rows {
		m[r.Kind]++
	}
	return m
}

// Tables lists the distinct table ids of rows, sorted.
func Tables(rows []row.Row) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rows {
		if !seen[r.Table] {
			seen[r.Table] = true
			out = append(out, r.Table)
		}
	}
	sort.Strings(out)
	return out
}

// CheckType reports whether v has exactly type t (element-wise for composites; nulls pass).
//
// Deprecated: use AssertTypes, the Assert sink's own type check.
func CheckType(v row.Value, t types.DataType) bool {
	if v.IsNull() {
		return true
	}
	if v.T != t.Kind {
		return false
	}
	switch t.Kind {
	case types.Decimal:
		return v.DecimalScale() == t.Scale && len(strings.TrimPrefix(v.Unscaled().String(), "-")) <= t.Precision
	case types.Array:
		for _, e := range v.Elems() {
			if !CheckType(e, *t.Elem) {
				return false
			}
		}
	case types.Map:
		m := v.Map()
		for i := range m.Keys {
			if !CheckType(m.Keys[i], *t.Key) || !CheckType(m.Vals[i], *t.Elem) {
				return false
			}
		}
	case types.Row:
		f := v.Fields()
		if len(f) != t.Row.Len() {
			return false
		}
		for i := range f {
			if !CheckType(f[i], t.Row.Types[i]) {
				return false
			}
		}
	}
	return true
}

// AssertTypes writes rows of table through the registered Assert sink with a field rule per
// column declaring the column's type (every column, or those named), so a value whose type is
// not exactly its column's fails as it fails a job: a null passes only the null type, a decimal
// needs the column's scale. It returns the Assert sink's error, naming the row and the field.
func AssertTypes(ctx context.Context, table *catalog.Table, rows []row.Row, columns ...string) error {
	if len(columns) == 0 {
		for _, c := range table.Columns {
			columns = append(columns, c.Name)
		}
	}
	var rules strings.Builder
	rules.WriteString("rules { field_rules = [\n")
	for _, name := range columns {
		i := table.ColumnIndex(name)
		if i < 0 {
			return fmt.Errorf("assert types: column %q is not in table %s", name, table.ID())
		}
		typ := table.Columns[i].Type
		if back, err := types.Parse(typ.String()); err != nil || !back.Equal(typ) {
			return fmt.Errorf("assert types: column %s: type %s does not read back as itself (%v)", name, typ, err)
		}
		fmt.Fprintf(&rules, "  { field_name = %s, field_type = %s }\n", strconv.Quote(name), strconv.Quote(typ.String()))
	}
	rules.WriteString("] }\n")
	w, err := assertWriter(table, rules.String())
	if err != nil {
		return err
	}
	b := row.NewBatch(len(rows) + 1)
	defer b.Release()
	for i := range rows {
		r := b.Add(rows[i].Kind, rows[i].Table, len(rows[i].Fields))
		copy(r.Fields, rows[i].Fields)
	}
	if err := w.Write(ctx, b); err != nil {
		return err
	}
	return w.Close(ctx)
}

// assertWriter makes the writer of an Assert sink with the rules text on table.
func assertWriter(table *catalog.Table, rules string) (connector.Writer, error) {
	f, _, ok := connector.LookupSink("Assert")
	if !ok {
		return nil, fmt.Errorf("assert types: the Assert sink is not registered")
	}
	root, err := hocon.Parse([]byte(rules), hocon.Options{File: "assert-types.conf"})
	if err != nil {
		return nil, fmt.Errorf("assert types: rules: %w", err)
	}
	job := connector.Job{ID: 1, Name: "assert-types", Mode: connector.Batch}
	s, err := f(&connector.SinkContext{Options: config.New(root, "sink[0] Assert"), Job: job, Inputs: []*catalog.Table{table}})
	if err != nil {
		return nil, err
	}
	return s.CreateWriter(connector.WriterContext{Index: 0, Parallelism: 1, Job: job}, nil)
}
