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
