package postgrescdc

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// streamSplitID is the id of the one split that reads the change stream.
const streamSplitID = "stream"

// splitData is what a split carries: a range of a table's snapshot, or the change stream.
type splitData struct {
	// Snapshot is set for a snapshot split.
	Snapshot *snapshotSplit `json:"snapshot,omitempty"`
	// Stream is set for the stream split.
	Stream *streamSplit `json:"stream,omitempty"`
}

// snapshotSplit is a range of a table's rows, read by one SELECT. Lo and Hi are inclusive
// bounds of the split column (nil leaves that side open); Nulls adds the rows whose split
// column is NULL. A split without Key reads the whole table. It holds no progress: it is
// read from its beginning whenever it is read.
type snapshotSplit struct {
	Table string `json:"table"`
	Key   string `json:"key,omitempty"`
	Lo    *int64 `json:"lo,omitempty"`
	Hi    *int64 `json:"hi,omitempty"`
	Nulls bool   `json:"nulls,omitempty"`
}

// streamSplit is how far the change stream was read. Every transaction that committed
// before LSN has been emitted; of the transaction whose commit is at Tx, the first Done
// changes have been emitted too.
type streamSplit struct {
	LSN  string `json:"lsn"`
	Tx   string `json:"tx,omitempty"`
	Done int    `json:"done,omitempty"`
	// Parked marks a split taken from a checkpoint: its reader holds it until the
	// enumerator hands out the stream split again, once every snapshot split is read.
	Parked bool `json:"parked,omitempty"`
}

func encodeSplit(id string, d splitData) connector.Split {
	b, _ := json.Marshal(d)
	return connector.Split{ID: id, Data: b}
}

func decodeSplit(s connector.Split) (splitData, error) {
	var d splitData
	if err := json.Unmarshal(s.Data, &d); err != nil {
		return d, err
	}
	if (d.Snapshot == nil) == (d.Stream == nil) {
		return d, fmt.Errorf("neither a snapshot nor a stream split")
	}
	return d, nil
}

func streamSplitOf(p position) connector.Split {
	st := &streamSplit{LSN: p.lsn.String()}
	if p.tx != 0 {
		st.Tx, st.Done = p.tx.String(), p.done
	}
	return encodeSplit(streamSplitID, splitData{Stream: st})
}

// position is a place in the change stream: see streamSplit.
type position struct {
	lsn  pglogrepl.LSN
	tx   pglogrepl.LSN
	done int
}

func (st *streamSplit) position() (position, error) {
	var p position
	var err error
	if p.lsn, err = pglogrepl.ParseLSN(st.LSN); err != nil {
		return p, fmt.Errorf("bad stream position %q", st.LSN)
	}
	if st.Tx != "" {
		if p.tx, err = pglogrepl.ParseLSN(st.Tx); err != nil {
			return p, fmt.Errorf("bad stream position %q", st.Tx)
		}
		p.done = st.Done
	}
	return p, nil
}

// statement is the SQL that reads the split's rows of table t.
func (d *snapshotSplit) statement(t *cdcTable) string {
	if d.Key == "" || (d.Lo == nil && d.Hi == nil) {
		return t.sql
	}
	cond := pgwire.RangeCondition(d.Key, d.Lo, d.Hi, d.Nulls)
	return t.sql + " WHERE " + cond
}

// planSnapshot cuts a table's snapshot into splits: ranges of its split column of about
// snapshot.split.size rows each (by the table's statistics, or a count when it was never
// analyzed), or one split for the whole table.
func (s *Source) planSnapshot(ctx context.Context, pg *pgx.Conn, t *cdcTable) ([]connector.Split, error) {
	whole := []connector.Split{encodeSplit(t.id+"-0", splitData{Snapshot: &snapshotSplit{Table: t.id}})}
	if t.key == "" {
		return whole, nil
	}
	k := pgwire.QuoteIdent(t.key)
	var minK, maxK pgtype.Int8
	var est float64
	err := pg.QueryRow(ctx, "SELECT min("+k+")::int8, max("+k+")::int8, (SELECT reltuples FROM pg_catalog.pg_class WHERE oid = $1::regclass) FROM "+t.name.Quoted(),
		t.name.Quoted()).Scan(&minK, &maxK, &est)
	if err != nil {
		return nil, fmt.Errorf("%s: table %s: read the range of %s: %s", s.where, t.id, t.key, pgwire.ErrorText(err))
	}
	if !minK.Valid || minK.Int64 == maxK.Int64 {
		return whole, nil
	}
	rows := int64(est)
	if est <= 0 {
		if err := pg.QueryRow(ctx, "SELECT count(*) FROM "+t.name.Quoted()).Scan(&rows); err != nil {
			return nil, fmt.Errorf("%s: table %s: count its rows: %s", s.where, t.id, pgwire.ErrorText(err))
		}
	}
	if rows <= s.splitSize {
		return whole, nil
	}
	n := (rows + s.splitSize - 1) / s.splitSize
	ranges := pgwire.EvenRanges(minK.Int64, maxK.Int64, int(min(n, 1<<20)))
	nullable := true
	if i := t.table.ColumnIndex(t.key); i >= 0 {
		nullable = t.table.Columns[i].Nullable
	}
	out := make([]connector.Split, len(ranges))
	for i, r := range ranges {
		lo, hi := r[0], r[1]
		d := &snapshotSplit{Table: t.id, Key: t.key, Lo: &lo, Hi: &hi}
		if i == 0 {
			d.Lo, d.Nulls = nil, nullable
		}
		if i == len(ranges)-1 {
			d.Hi = nil
		}
		out[i] = encodeSplit(t.id+"-"+strconv.Itoa(i), splitData{Snapshot: d})
	}
	return out, nil
}
