package jdbc

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/connector"
)

// srcSplit is what a split of the Jdbc source carries: the table (its id) and the part of
// it the split covers. A split without Key reads every row of its table. Otherwise it is
// one of:
//
//   - an integer range: Lo and Hi are inclusive bounds, nil leaving that side open;
//   - a range of any other split type: From (inclusive) and To (exclusive, inclusive with
//     ToIncl) are the bounds as SQL literals, nil leaving that side open;
//   - a hash bucket of a string column: the rows whose hashed text is Hash modulo Mod.
//
// Nulls adds the rows whose split column is NULL. A split holds no progress: it is read
// from its beginning whenever it is read.
type srcSplit struct {
	Table  string  `json:"table"`
	Key    string  `json:"key,omitempty"`
	Lo     *int64  `json:"lo,omitempty"`
	Hi     *int64  `json:"hi,omitempty"`
	From   *string `json:"from,omitempty"`
	To     *string `json:"to,omitempty"`
	ToIncl bool    `json:"to_incl,omitempty"`
	Hash   *int    `json:"hash,omitempty"`
	Mod    int     `json:"mod,omitempty"`
	Nulls  bool    `json:"nulls,omitempty"`
}

// split encodes the split; its id is <table id>-<index>, as SeaTunnel names splits.
func (d *srcSplit) split(index int) connector.Split {
	b, _ := json.Marshal(d)
	return connector.Split{ID: d.Table + "-" + strconv.Itoa(index), Data: b}
}

// statement is the SQL that reads the split's rows of table t, in db's SQL.
func (d *srcSplit) statement(db database, t *srcTable) string {
	cond := d.condition(db, t)
	if cond == "" {
		return t.sql
	}
	return "SELECT * FROM (" + t.sql + "\n) st_jdbc_splitter WHERE " + cond
}

// condition is the WHERE condition of the split's rows of table t, "" for all of them.
func (d *srcSplit) condition(db database, t *srcTable) string {
	if d.Key == "" {
		return ""
	}
	col := db.quoteIdent(d.Key)
	var conds []string
	switch {
	case d.Lo != nil || d.Hi != nil:
		if d.Lo != nil {
			conds = append(conds, col+" >= "+strconv.FormatInt(*d.Lo, 10))
		}
		if d.Hi != nil {
			conds = append(conds, col+" <= "+strconv.FormatInt(*d.Hi, 10))
		}
	case d.Hash != nil:
		conds = append(conds, db.hashCondition(col, d.Mod, *d.Hash))
	default:
		expr, kind := col, keyString
		if t != nil && t.key == d.Key {
			expr, kind = db.boundExpr(t), t.split.kind
		}
		if d.From != nil {
			conds = append(conds, expr+" >= "+db.literal(kind, *d.From))
		}
		if d.To != nil {
			op := " < "
			if d.ToIncl {
				op = " <= "
			}
			conds = append(conds, expr+op+db.literal(kind, *d.To))
		}
	}
	if len(conds) == 0 {
		return "" // the NULLs too
	}
	cond := strings.Join(conds, " AND ")
	if d.Nulls {
		cond = "(" + cond + ") OR " + col + " IS NULL"
	}
	return cond
}

func rangeSplits(table, key string, ranges [][2]int64) []srcSplit {
	out := make([]srcSplit, len(ranges))
	for i, r := range ranges {
		lo, hi := r[0], r[1]
		out[i] = srcSplit{Table: table, Key: key, Lo: &lo, Hi: &hi}
	}
	return out
}

// ---- enumerator ----

// srcEnumState is the enumerator's snapshot: whether the splits were planned, and those not
// yet handed to their reader. Splits already handed out live in the readers' state.
type srcEnumState struct {
	Planned bool                      `json:"planned"`
	Pending map[int][]connector.Split `json:"pending,omitempty"`
}

// sourceEnumerator plans the splits of every table once, when the job starts, and hands
// split i (counting over all tables in order) to reader i mod parallelism.
type sourceEnumerator struct {
	where   string
	planFn  func(ctx context.Context) ([]connector.Split, error)
	ctx     connector.EnumeratorContext
	pending map[int][]connector.Split
	planned bool
}

// CreateEnumerator makes the enumerator; a restored one hands out only the splits it had not
// handed out, without planning again.
func (s *Source) CreateEnumerator(ctx connector.EnumeratorContext, state []byte) (connector.Enumerator, error) {
	e := &sourceEnumerator{where: s.where, planFn: s.plan, ctx: ctx, pending: map[int][]connector.Split{}}
	if len(state) > 0 {
		var st srcEnumState
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, fmt.Errorf("%s: bad enumerator state: %v", s.where, err)
		}
		e.planned = st.Planned
		for r, splits := range st.Pending {
			e.pending[r] = splits
		}
	}
	return e, nil
}

func (e *sourceEnumerator) Open(context.Context) error { return nil }

func (e *sourceEnumerator) parallelism() int { return max(1, e.ctx.Parallelism()) }

// Run plans the splits (reading each split column's range and the row counts) and assigns
// them to the registered readers.
func (e *sourceEnumerator) Run(ctx context.Context) error {
	p := e.parallelism()
	if !e.planned {
		splits, err := e.planFn(ctx)
		if err != nil {
			return err
		}
		for i, sp := range splits {
			e.pending[i%p] = append(e.pending[i%p], sp)
		}
		e.planned = true
	}
	// splits of readers a restored job no longer has
	var orphans []int
	for r := range e.pending {
		if r >= p {
			orphans = append(orphans, r)
		}
	}
	sort.Ints(orphans)
	for i, r := range orphans {
		e.pending[i%p] = append(e.pending[i%p], e.pending[r]...)
		delete(e.pending, r)
	}
	for _, r := range e.ctx.RegisteredReaders() {
		e.assign(r)
	}
	return nil
}

// plan plans the splits of every table, in the order of the options, on one connection.
func (s *Source) plan(ctx context.Context) ([]connector.Split, error) {
	var conn sourceConn
	defer func() {
		if conn != nil {
			conn.close()
		}
	}()
	var out []connector.Split
	for _, t := range s.tables {
		if t.key != "" && conn == nil {
			var err error
			if conn, err = s.db.openSource(ctx); err != nil {
				return nil, fmt.Errorf("%s: %w", s.where, err)
			}
		}
		splits, err := s.planSplits(ctx, conn, t)
		if err != nil {
			return nil, err
		}
		for i := range splits {
			out = append(out, splits[i].split(i))
		}
	}
	return out, nil
}

func (e *sourceEnumerator) assign(reader int) {
	if !e.planned {
		return
	}
	if splits := e.pending[reader]; len(splits) > 0 {
		delete(e.pending, reader)
		e.ctx.Assign(reader, splits...)
	}
	e.ctx.SignalNoMoreSplits(reader)
}

// RegisterReader hands a late reader its splits.
func (e *sourceEnumerator) RegisterReader(reader int) error {
	e.assign(reader)
	return nil
}

// HandleSplitRequest does nothing: splits are handed out when readers register.
func (e *sourceEnumerator) HandleSplitRequest(int) error { return nil }

// AddSplitsBack takes back a failed reader's splits, for when it registers again.
func (e *sourceEnumerator) AddSplitsBack(splits []connector.Split, reader int) error {
	e.pending[reader] = append(e.pending[reader], splits...)
	return nil
}

func (e *sourceEnumerator) Snapshot(int64) ([]byte, error) {
	st := srcEnumState{Planned: e.planned}
	for r, splits := range e.pending {
		if len(splits) > 0 {
			if st.Pending == nil {
				st.Pending = map[int][]connector.Split{}
			}
			st.Pending[r] = splits
		}
	}
	return json.Marshal(st)
}

func (e *sourceEnumerator) Close() error { return nil }
