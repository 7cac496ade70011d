package postgrescdc

import (
	"context"
	"fmt"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/cdc"
	"github.com/strait-dev/strait/connectors/internal/keyrange"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// streamSplitID is the id of the one split that reads the change stream.
const streamSplitID = "stream"

// splitData is what a split carries: a range of a table's snapshot, or the change stream.
type splitData = cdc.Split[streamSplit]

// snapshotSplit is a range of a table's rows, read by one SELECT (keyrange.Range).
type snapshotSplit = keyrange.Range

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

func decodeSplit(s connector.Split) (splitData, error) {
	return cdc.DecodeSplit[streamSplit](s, "stream")
}

func streamSplitOf(p position) connector.Split {
	st := &streamSplit{LSN: p.lsn.String()}
	if p.tx != 0 {
		st.Tx, st.Done = p.tx.String(), p.done
	}
	return splitData{Stream: st}.Encode(streamSplitID)
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
func statement(d *snapshotSplit, t *cdcTable) string { return d.Statement(t.sql, pgwire.QuoteIdent) }

// planSnapshot cuts a table's snapshot into splits: ranges of its split column of about
// snapshot.split.size rows each (by the table's statistics, or a count when it was never
// analyzed), or one split for the whole table.
func (s *Source) planSnapshot(ctx context.Context, pg *pgx.Conn, t *cdcTable) ([]connector.Split, error) {
	var minK, maxK pgtype.Int8
	var rows int64
	if t.key != "" {
		k := pgwire.QuoteIdent(t.key)
		var est float64
		err := pg.QueryRow(ctx, "SELECT min("+k+")::int8, max("+k+")::int8, (SELECT reltuples FROM pg_catalog.pg_class WHERE oid = $1::regclass) FROM "+t.name.Quoted(),
			t.name.Quoted()).Scan(&minK, &maxK, &est)
		if err != nil {
			return nil, fmt.Errorf("%s: table %s: read the range of %s: %s", s.where, t.id, t.key, pgwire.ErrorText(err))
		}
		rows = int64(est)
		if est <= 0 && minK.Valid && minK.Int64 != maxK.Int64 {
			if err := pg.QueryRow(ctx, "SELECT count(*) FROM "+t.name.Quoted()).Scan(&rows); err != nil {
				return nil, fmt.Errorf("%s: table %s: count its rows: %s", s.where, t.id, pgwire.ErrorText(err))
			}
		}
	}
	nullable := true
	if i := t.table.ColumnIndex(t.key); i >= 0 {
		nullable = t.table.Columns[i].Nullable
	}
	ranges := keyrange.Plan(t.id, t.key, minK.Int64, maxK.Int64, minK.Valid, rows, s.splitSize, nullable)
	return cdc.SnapshotSplits(t.id, ranges), nil
}
