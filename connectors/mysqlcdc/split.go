package mysqlcdc

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/cdc"
	"github.com/strait-dev/strait/connectors/internal/keyrange"
)

// streamSplitID is the id of the one split that reads the log.
const streamSplitID = "binlog"

// position is a place in the log: a file and an offset in it, and the GTIDs the server had
// written before it (MariaDB's gtid_binlog_pos, MySQL's Executed_Gtid_Set), where it has
// them.
type position struct {
	File string `json:"file,omitempty"`
	Pos  uint32 `json:"pos,omitempty"`
	GTID string `json:"gtid,omitempty"`
}

// fileIndex is the number of a log file: binlog.000042 is 42.
func fileIndex(f string) int64 {
	i := strings.LastIndexByte(f, '.')
	n, err := strconv.ParseInt(f[i+1:], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// before reports whether p comes before q in the log.
func (p position) before(q position) bool {
	if p.File != q.File {
		return fileIndex(p.File) < fileIndex(q.File)
	}
	return p.Pos < q.Pos
}

func (p position) String() string {
	s := p.File + ":" + strconv.FormatUint(uint64(p.Pos), 10)
	if p.GTID != "" {
		s += " (GTID " + p.GTID + ")"
	}
	return s
}

// splitData is what a split carries: a range of a table's snapshot, or the log.
type splitData = cdc.Split[streamSplit]

// snapshotSplit is a range of a table's rows, read by one SELECT (keyrange.Range).
type snapshotSplit = keyrange.Range

// chunkMark is a snapshot split that was read, with its high watermark: the changes of its
// rows before the watermark are in what it emitted, those after it are read from the log.
type chunkMark struct {
	Split snapshotSplit `json:"split"`
	High  position      `json:"high"`
	// Open says the split was read without applying the changes between its watermarks (a
	// table without a primary key): its changes from its low watermark on are read from
	// the log, some of them again.
	Open bool `json:"open,omitempty"`
}

// streamSplit is how far the log was read. Every transaction committed before At has been
// emitted; when Skip > 0, At is the start of a transaction whose first Skip changes have
// been emitted too.
type streamSplit struct {
	Started bool     `json:"started,omitempty"` // At is set
	At      position `json:"at"`
	Skip    int      `json:"skip,omitempty"`
	// Marks are the read snapshot splits whose high watermark the stream has not passed.
	Marks []chunkMark `json:"marks,omitempty"`
	// Done are the ids of every snapshot split read: a split handed out again after a
	// restore is not read twice.
	Done []string `json:"done,omitempty"`
	// Stop is where the log stops being read (stop.mode latest or specific): the
	// transactions that start before it are emitted, and the split ends.
	Stop *position `json:"stop,omitempty"`
	// Tables are the captured tables as the log at At was written (schema-changes.enabled
	// only): a restore decodes the events after At with them.
	Tables []storedTable `json:"tables,omitempty"`
}

func decodeSplit(s connector.Split) (splitData, error) {
	return cdc.DecodeSplit[streamSplit](s, "log")
}

// statement is the SQL that reads the split's rows of table t.
func statement(d *snapshotSplit, t *cdcTable) string { return d.Statement(t.sql, quoteIdent) }

// planSnapshot cuts a table's snapshot into splits: ranges of its split column of about
// snapshot.split.size rows each, or one split for the whole table.
func (s *Source) planSnapshot(ctx context.Context, db *sql.DB, t *cdcTable) ([]connector.Split, error) {
	var minK, maxK sql.NullInt64
	var count int64
	nullable := false
	if t.key != "" {
		k := quoteIdent(t.key)
		err := db.QueryRowContext(ctx, "SELECT MIN("+k+"), MAX("+k+"), COUNT(*) FROM "+quoteIdent(t.name.db)+"."+quoteIdent(t.name.table)).Scan(&minK, &maxK, &count)
		if err != nil {
			return nil, fmt.Errorf("%s: table %s: read the range of %s: %s", s.where, t.id, t.key, errorText(err))
		}
		nullable = t.table.Columns[t.keyCol].Nullable
	}
	ranges := keyrange.Plan(t.id, t.key, minK.Int64, maxK.Int64, minK.Valid, count, s.splitSize, nullable)
	return cdc.SnapshotSplits(t.id, ranges), nil
}

// masterPosition is the end of the server's log: where the next transaction goes.
func (s *Source) masterPosition(ctx context.Context, db *sql.DB) (position, error) {
	var p position
	rows, err := db.QueryContext(ctx, "SHOW MASTER STATUS")
	if err != nil {
		// MySQL 8.4 renamed the statement
		if rows, err = db.QueryContext(ctx, "SHOW BINARY LOG STATUS"); err != nil {
			return p, fmt.Errorf("%s: read the position of the binary log: %s", s.where, errorText(err))
		}
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	if !rows.Next() {
		return p, fmt.Errorf("%s: the server at %s does not write a binary log (SHOW MASTER STATUS is empty); capturing changes needs log_bin on", s.where, s.addr)
	}
	vals, ptrs := textRow(len(cols))
	if err := rows.Scan(ptrs...); err != nil {
		return p, fmt.Errorf("%s: read the position of the binary log: %s", s.where, errorText(err))
	}
	pos, err := strconv.ParseUint(vals[1].String, 10, 32)
	if err != nil {
		return p, fmt.Errorf("%s: bad binary log position %q", s.where, vals[1].String)
	}
	p.File, p.Pos = vals[0].String, uint32(pos)
	if len(vals) > 4 {
		p.GTID = strings.ReplaceAll(vals[4].String, "\n", "")
	} else if s.mariadb {
		if err := db.QueryRowContext(ctx, "SELECT @@gtid_binlog_pos").Scan(&p.GTID); err != nil {
			return p, fmt.Errorf("%s: read gtid_binlog_pos: %s", s.where, errorText(err))
		}
	}
	return p, rows.Err()
}

// firstPosition is the start of the oldest log file the server keeps.
func (s *Source) firstPosition(ctx context.Context, db *sql.DB) (position, error) {
	rows, err := db.QueryContext(ctx, "SHOW BINARY LOGS")
	if err != nil {
		return position{}, fmt.Errorf("%s: list the binary log files: %s", s.where, errorText(err))
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals, ptrs := textRow(len(cols))
	if !rows.Next() {
		return position{}, fmt.Errorf("%s: the server keeps no binary log files", s.where)
	}
	if err := rows.Scan(ptrs...); err != nil {
		return position{}, fmt.Errorf("%s: list the binary log files: %s", s.where, errorText(err))
	}
	return position{File: vals[0].String, Pos: 4}, nil
}

// textRow is a row of n columns read as text, and the pointers rows.Scan fills it through:
// the rows of SHOW statements, whose columns differ from one server version to another.
func textRow(n int) ([]sql.NullString, []any) {
	vals := make([]sql.NullString, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return vals, ptrs
}
