// Package assert is the Assert sink, which checks the rows it receives against rules and
// fails the job when one is broken, with SeaTunnel's semantics:
//
//   - field_rules are checked on every row as it is written: the value's exact type first
//     (field_type), then each field_value entry (rule_type NULL, NOT_NULL, MIN, MAX,
//     MIN_LENGTH, MAX_LENGTH, and equals_to compared deeply when the value is not null);
//   - row_rules (MIN_ROW, MAX_ROW) count the rows of a table across all parallel writers:
//     each writer reports its counts as commit info and the committer adds them up, checking
//     MAX_ROW at every commit and MIN_ROW and table-names at the final one;
//   - catalog_table_rule is checked against the input tables when the sink is created;
//   - tables_configs gives rules per table_path.
package assert

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

func init() {
	connector.RegisterSink("Assert", "Checks the rows it receives against rules of row counts, field types and values, and the input table's schema, and fails the job when one is broken, as SeaTunnel's Assert sink does.", New)
}

// Sink is a configured Assert sink.
type Sink struct {
	where         string
	inputs        []*catalog.Table
	rules         []*tableRules
	tablesConfigs bool
	tableNames    []string
	hasMaxRow     bool
	// compiled field rules per input table id
	compiled map[string]*compiled
}

// New checks the rules, and catalog_table_rule against the inputs.
func New(ctx *connector.SinkContext, c *Config) (connector.Sink, error) {
	o := ctx.Options
	s := &Sink{where: o.Where(), inputs: ctx.Inputs, compiled: map[string]*compiled{}}
	rules := &c.Rules
	ro := rules.At
	if ro.Has("tables_configs") {
		s.tablesConfigs = true
		for i := range rules.TablesConfigs {
			e := &rules.TablesConfigs[i]
			tr, err := parseTableRules(&e.TableRules, e.TablePath)
			if err != nil {
				return nil, err
			}
			s.rules = append(s.rules, tr)
		}
	} else {
		tr, err := parseTableRules(&rules.TableRules, "")
		if err != nil {
			return nil, err
		}
		if tr.hasRowRules || tr.hasFieldRules || tr.catalog != nil {
			s.rules = append(s.rules, tr)
		}
	}
	s.tableNames = rules.TableNames
	if len(s.rules) == 0 && len(s.tableNames) == 0 {
		if ro.Has("table-names") {
			return nil, ro.Errorf("table-names", "is empty and there is no other rule")
		}
		return nil, o.Errorf("rules", "Assert rule config is empty, please add rule config (row_rules, field_rules, catalog_table_rule, table-names or tables_configs)")
	}
	for _, tr := range s.rules {
		for _, r := range tr.rowRules {
			if r.typ == ruleMaxRow {
				s.hasMaxRow = true
			}
		}
		if tr.catalog != nil {
			tables, err := s.tablesOf(tr)
			if err != nil {
				return nil, err
			}
			for _, t := range tables {
				if err := tr.catalog.check(t); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, t := range s.inputs {
		tr := s.fieldRulesFor(t.ID())
		if tr == nil {
			continue
		}
		c, err := compile(tr, t)
		if err != nil {
			return nil, err
		}
		s.compiled[t.ID()] = c
	}
	if len(s.inputs) == 0 {
		for _, tr := range s.rules {
			if tr.hasFieldRules && len(tr.fieldRules) > 0 {
				return nil, tr.opts.Errorf("field_rules", "the sink does not know the schema of its input, so field rules cannot be checked")
			}
		}
	}
	return s, nil
}

// tablesOf are the input tables a rule set describes: every input without tables_configs;
// with it, the input named by table_path, or the only input.
func (s *Sink) tablesOf(tr *tableRules) ([]*catalog.Table, error) {
	if tr.path == "" {
		if len(s.inputs) == 0 {
			return nil, tr.opts.Errorf("catalog_table_rule", "the sink does not know its input table")
		}
		return s.inputs, nil
	}
	for _, t := range s.inputs {
		if t.ID() == tr.path {
			return []*catalog.Table{t}, nil
		}
	}
	if len(s.inputs) == 1 {
		return s.inputs, nil
	}
	return nil, tr.opts.Errorf("table_path", "table %q is not among the sink's input tables (%s)", tr.path, strings.Join(s.inputIDs(), ", "))
}

func (s *Sink) inputIDs() []string {
	ids := make([]string, len(s.inputs))
	for i, t := range s.inputs {
		ids[i] = t.ID()
	}
	return ids
}

// fieldRulesFor picks the field rules that apply to rows of a table, as SeaTunnel's writer
// does: the table's own rules, else the only set of field rules there is.
func (s *Sink) fieldRulesFor(table string) *tableRules {
	var only *tableRules
	n := 0
	for _, tr := range s.rules {
		if !tr.hasFieldRules {
			continue
		}
		n++
		only = tr
		if tr.path != "" && tr.path == table {
			return tr
		}
	}
	if n == 1 {
		return only
	}
	return nil
}

// CreateWriter makes the writer of one subtask; states are the snapshots of the writers it
// replaces (their counts carry over).
func (s *Sink) CreateWriter(ctx connector.WriterContext, states [][]byte) (connector.Writer, error) {
	w := &writer{sink: s, counts: map[string]int64{}}
	for _, st := range states {
		if len(st) == 0 {
			continue
		}
		var in info
		if err := json.Unmarshal(st, &in); err != nil {
			return nil, fmt.Errorf("%s: bad writer state: %v", s.where, err)
		}
		for k, n := range in.Counts {
			w.counts[k] += n
		}
	}
	return w, nil
}

// CreateCommitter returns the committer that adds up the writers' counts and checks the
// row rules and table-names.
func (s *Sink) CreateCommitter() (connector.Committer, error) { return &committer{sink: s}, nil }

// info is a writer's commit info and state: rows written per table id since it started.
type info struct {
	Counts map[string]int64 `json:"counts"`
}

type writer struct {
	sink   *Sink
	counts map[string]int64
	// the table of the previous batch run, to find its rules without a lookup per row
	lastTable string
	last      *compiled
	lastOK    bool
	err       error
}

func (w *writer) rulesFor(table string) (*compiled, error) {
	if w.lastOK && table == w.lastTable {
		return w.last, nil
	}
	s := w.sink
	c, ok := s.compiled[table]
	if !ok {
		switch {
		case len(s.inputs) == 1:
			c = s.compiled[s.inputs[0].ID()]
		case s.fieldRulesFor(table) != nil:
			return nil, fmt.Errorf("%s: rows of table %s reached the sink, whose input tables are %s; its field rules cannot be checked", s.where, table, strings.Join(s.inputIDs(), ", "))
		}
	}
	w.lastTable, w.last, w.lastOK = table, c, true
	return c, nil
}

// Write counts the rows and checks the field rules on each; the first broken rule fails it.
func (w *writer) Write(_ context.Context, b *row.Batch) error {
	if w.err != nil {
		return w.err
	}
	runTable, run := "", int64(0)
	flush := func() {
		if run > 0 {
			w.counts[runTable] += run
		}
		run = 0
	}
	for i := range b.Rows {
		r := &b.Rows[i]
		if r.Table != runTable || run == 0 {
			flush()
			runTable = r.Table
		}
		run++
		c, err := w.rulesFor(r.Table)
		if err != nil {
			w.err = err
			break
		}
		if c == nil || len(c.fields) == 0 {
			continue
		}
		if f := c.check(r); f != nil {
			w.err = w.sink.fieldError(r, f)
			break
		}
	}
	flush()
	if w.err == nil && w.sink.hasMaxRow {
		w.err = w.sink.checkCounts(w.counts, false)
	}
	// a broken rule is the data's verdict: running the job again cannot change it
	w.err = connector.Permanent(w.err)
	return w.err
}

func (s *Sink) fieldError(r *row.Row, f *failure) error {
	buf := appendRow([]byte("row :"), r.Table, r.Kind.Short(), r.Fields)
	return fmt.Errorf("%s: table %s: %s fail rule: %s (%s)", s.where, r.Table, buf, f.field.rule, f.describe())
}

func (w *writer) state() ([]byte, error) {
	return json.Marshal(info{Counts: w.counts})
}

// PrepareCommit reports the writer's row counts so far.
func (w *writer) PrepareCommit(context.Context, int64) ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	return w.state()
}

// SnapshotState saves the counts, so a restored writer goes on counting from them.
func (w *writer) SnapshotState(int64) ([]byte, error) { return w.state() }

func (w *writer) Close(context.Context) error { return nil }

type committer struct{ sink *Sink }

// Commit adds up the counts of every writer and checks MAX_ROW; at the final commit also
// MIN_ROW and table-names. Checking is idempotent; a broken rule is permanent, so the job
// fails at once instead of retrying the commit.
func (c *committer) Commit(_ context.Context, req connector.CommitRequest) error {
	return connector.Permanent(c.check(req))
}

func (c *committer) check(req connector.CommitRequest) error {
	total := map[string]int64{}
	for _, b := range req.Infos {
		if len(b) == 0 {
			continue
		}
		var in info
		if err := json.Unmarshal(b, &in); err != nil {
			return fmt.Errorf("%s: bad commit info: %v", c.sink.where, err)
		}
		for k, n := range in.Counts {
			total[k] += n
		}
	}
	if err := c.sink.checkCounts(total, req.Final); err != nil {
		return err
	}
	if req.Final && len(c.sink.tableNames) > 0 {
		seen := make([]string, 0, len(total))
		for k, n := range total {
			if n > 0 {
				seen = append(seen, k)
			}
		}
		sort.Strings(seen)
		want := append([]string(nil), c.sink.tableNames...)
		if !sameSet(seen, want) {
			return fmt.Errorf("%s: table names: [%s] is not equal to [%s]", c.sink.where, strings.Join(seen, ", "), strings.Join(want, ", "))
		}
	}
	return nil
}

func sameSet(a, b []string) bool {
	m := map[string]bool{}
	for _, x := range a {
		m[x] = true
	}
	n := map[string]bool{}
	for _, x := range b {
		if !m[x] {
			return false
		}
		n[x] = true
	}
	return len(m) == len(n)
}

func (c *committer) Abort(context.Context, [][]byte) error { return nil }

// checkCounts checks the row rules on counts per table id: MAX_ROW always, MIN_ROW when
// final. With one input table every row counts for it, whatever its table id.
func (s *Sink) checkCounts(counts map[string]int64, final bool) error {
	var total int64
	for _, n := range counts {
		total += n
	}
	countOf := func(table string) int64 {
		if len(s.inputs) == 1 && (table == "" || table == s.inputs[0].ID()) {
			return total
		}
		if table == "" {
			return total
		}
		return counts[table]
	}
	for _, tr := range s.rules {
		if len(tr.rowRules) == 0 {
			continue
		}
		targets := []string{tr.path}
		if tr.path == "" && len(s.inputs) > 0 {
			targets = s.inputIDs()
		}
		for _, table := range targets {
			n := countOf(table)
			for i := range tr.rowRules {
				r := &tr.rowRules[i]
				broken := false
				switch r.typ {
				case ruleMaxRow:
					broken = float64(n) > r.value
				case ruleMinRow:
					broken = final && float64(n) < r.value
				}
				if broken {
					name := table
					if name == "" {
						name = "(all input)"
					}
					return fmt.Errorf("%s: table %s: row num :%d fail rule: %s", s.where, name, n, r)
				}
			}
		}
	}
	return nil
}
