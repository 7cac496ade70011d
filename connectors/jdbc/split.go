package jdbc

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// srcSplit is what a split of the Jdbc source carries: the table (its id) and the range of
// the split column it covers. Lo and Hi are inclusive bounds, nil leaving that side open;
// Nulls adds the rows whose split column is NULL. A split without Key reads every row of its
// table. A split holds no progress: it is read from its beginning whenever it is read.
type srcSplit struct {
	Table string `json:"table"`
	Key   string `json:"key,omitempty"`
	Lo    *int64 `json:"lo,omitempty"`
	Hi    *int64 `json:"hi,omitempty"`
	Nulls bool   `json:"nulls,omitempty"`
}

// split encodes the split; its id is <table id>-<index>, as SeaTunnel names splits.
func (d *srcSplit) split(index int) connector.Split {
	b, _ := json.Marshal(d)
	return connector.Split{ID: d.Table + "-" + strconv.Itoa(index), Data: b}
}

// statement is the SQL that reads the split's rows of table t.
func (d *srcSplit) statement(t *srcTable) string {
	if d.Key == "" || (d.Lo == nil && d.Hi == nil) {
		return t.sql
	}
	cond := pgwire.RangeCondition(d.Key, d.Lo, d.Hi, d.Nulls)
	return "SELECT * FROM (" + t.sql + "\n) st_jdbc_splitter WHERE " + cond
}

// planSplits cuts one table into splits, as the Source documentation describes.
func (s *Source) planSplits(ctx context.Context, pg *pgx.Conn, t *srcTable) ([]srcSplit, error) {
	whole := []srcSplit{{Table: t.id}}
	if t.key == "" {
		return whole, nil
	}
	k := pgwire.QuoteIdent(t.key)
	nullable := true
	if i := t.table.ColumnIndex(t.key); i >= 0 {
		nullable = t.table.Columns[i].Nullable
	}
	var minK, maxK pgtype.Int8
	if !(t.fixed && t.lower != nil && t.upper != nil) {
		err := pg.QueryRow(ctx, "SELECT min("+k+")::int8, max("+k+")::int8 FROM ("+t.sql+"\n) st_jdbc_bounds").Scan(&minK, &maxK)
		if err != nil {
			return nil, fmt.Errorf("%s: table %s: read the range of %s: %s", s.where, t.id, t.key, pgwire.ErrorText(err))
		}
	}

	if t.fixed {
		if t.lower != nil {
			minK = pgtype.Int8{Int64: *t.lower, Valid: true}
		}
		if t.upper != nil {
			maxK = pgtype.Int8{Int64: *t.upper, Valid: true}
		}
		if !minK.Valid || !maxK.Valid {
			return whole, nil // no rows, and a bound to take from them
		}
		splits := rangeSplits(t.id, t.key, pgwire.EvenRanges(minK.Int64, maxK.Int64, t.parts))
		if t.lower == nil {
			splits[0].Lo, splits[0].Nulls = nil, nullable
		}
		if t.upper == nil {
			splits[len(splits)-1].Hi = nil
		}
		return splits, nil
	}

	if !minK.Valid || minK.Int64 == maxK.Int64 {
		return whole, nil
	}
	rows, err := s.rowCount(ctx, pg, t)
	if err != nil {
		return nil, err
	}
	if rows <= s.splitSize {
		return whole, nil
	}
	n := (rows + s.splitSize - 1) / s.splitSize
	splits := rangeSplits(t.id, t.key, pgwire.EvenRanges(minK.Int64, maxK.Int64, int(min(n, 1<<20))))
	splits[0].Lo, splits[0].Nulls = nil, nullable
	splits[len(splits)-1].Hi = nil
	return splits, nil
}

// rowCount estimates the rows of a table: from the statistics of a table read whole
// (counting when it was never analyzed), else by counting.
func (s *Source) rowCount(ctx context.Context, pg *pgx.Conn, t *srcTable) (int64, error) {
	if t.rel != 0 {
		var n float64
		err := pg.QueryRow(ctx, "SELECT reltuples FROM pg_catalog.pg_class WHERE oid = $1", t.rel).Scan(&n)
		if err != nil {
			return 0, fmt.Errorf("%s: table %s: read its statistics: %s", s.where, t.id, pgwire.ErrorText(err))
		}
		if n > 0 {
			return int64(n), nil
		}
	}
	var n int64
	if err := pg.QueryRow(ctx, "SELECT count(*) FROM ("+t.sql+"\n) st_jdbc_count").Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: table %s: count its rows: %s", s.where, t.id, pgwire.ErrorText(err))
	}
	return n, nil
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
	src     *Source
	ctx     connector.EnumeratorContext
	pending map[int][]connector.Split
	planned bool
}

// CreateEnumerator makes the enumerator; a restored one hands out only the splits it had not
// handed out, without planning again.
func (s *Source) CreateEnumerator(ctx connector.EnumeratorContext, state []byte) (connector.Enumerator, error) {
	e := &sourceEnumerator{src: s, ctx: ctx, pending: map[int][]connector.Split{}}
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

func (e *sourceEnumerator) parallelism() int {
	if p := e.ctx.Parallelism(); p > 0 {
		return p
	}
	return 1
}

// Run plans the splits (reading each split column's range and the row counts) and assigns
// them to the registered readers.
func (e *sourceEnumerator) Run(ctx context.Context) error {
	p := e.parallelism()
	if !e.planned {
		splits, err := e.plan(ctx)
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

func (e *sourceEnumerator) plan(ctx context.Context) ([]connector.Split, error) {
	s := e.src
	var pg *pgx.Conn
	defer func() {
		if pg != nil {
			pg.Close(context.Background())
		}
	}()
	var out []connector.Split
	for _, t := range s.tables {
		if t.key != "" && pg == nil {
			var err error
			if pg, err = s.conn.connect(ctx); err != nil {
				return nil, fmt.Errorf("%s: %w", s.where, err)
			}
		}
		splits, err := s.planSplits(ctx, pg, t)
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
