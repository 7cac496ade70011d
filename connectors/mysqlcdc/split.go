package mysqlcdc

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/connector"
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
type splitData struct {
	Snapshot *snapshotSplit `json:"snapshot,omitempty"`
	Stream   *streamSplit   `json:"stream,omitempty"`
}

// snapshotSplit is a range of a table's rows. Lo and Hi are inclusive bounds of the split
// column (nil leaves that side open); Nulls adds the rows whose split column is NULL. A split
// without Key reads the whole table. It holds no progress.
type snapshotSplit struct {
	Table string `json:"table"`
	Key   string `json:"key,omitempty"`
	Lo    *int64 `json:"lo,omitempty"`
	Hi    *int64 `json:"hi,omitempty"`
	Nulls bool   `json:"nulls,omitempty"`
}

// contains reports whether a row whose split column is k (null: isNull) is in the range.
func (d *snapshotSplit) contains(k int64, isNull bool) bool {
	if isNull {
		return d.Nulls || (d.Lo == nil && d.Hi == nil)
	}
	return (d.Lo == nil || k >= *d.Lo) && (d.Hi == nil || k <= *d.Hi)
}

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
		return d, fmt.Errorf("neither a snapshot nor a log split")
	}
	return d, nil
}

// statement is the SQL that reads the split's rows of table t.
func (d *snapshotSplit) statement(t *cdcTable) string {
	if d.Key == "" || (d.Lo == nil && d.Hi == nil) {
		return t.sql
	}
	k := quoteIdent(d.Key)
	var conds []string
	if d.Lo != nil {
		conds = append(conds, k+" >= "+strconv.FormatInt(*d.Lo, 10))
	}
	if d.Hi != nil {
		conds = append(conds, k+" <= "+strconv.FormatInt(*d.Hi, 10))
	}
	cond := strings.Join(conds, " AND ")
	if d.Nulls {
		cond = "(" + cond + " OR " + k + " IS NULL)"
	}
	return t.sql + " WHERE " + cond
}

// planSnapshot cuts a table's snapshot into splits: ranges of its split column of about
// snapshot.split.size rows each, or one split for the whole table.
func (s *Source) planSnapshot(ctx context.Context, db *sql.DB, t *cdcTable) ([]connector.Split, error) {
	whole := []connector.Split{encodeSplit(t.id+"-0", splitData{Snapshot: &snapshotSplit{Table: t.id}})}
	if t.key == "" {
		return whole, nil
	}
	k := quoteIdent(t.key)
	var minK, maxK sql.NullInt64
	var count int64
	err := db.QueryRowContext(ctx, "SELECT MIN("+k+"), MAX("+k+"), COUNT(*) FROM "+quoteIdent(t.name.db)+"."+quoteIdent(t.name.table)).Scan(&minK, &maxK, &count)
	if err != nil {
		return nil, fmt.Errorf("%s: table %s: read the range of %s: %s", s.where, t.id, t.key, errorText(err))
	}
	if !minK.Valid || minK.Int64 == maxK.Int64 || count <= s.splitSize {
		return whole, nil
	}
	n := (count + s.splitSize - 1) / s.splitSize
	ranges := evenRanges(minK.Int64, maxK.Int64, int(min(n, 1<<20)))
	nullable := t.table.Columns[t.keyCol].Nullable
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

// evenRanges cuts [lo, hi] into n ranges of about equal width (fewer when it is narrow).
func evenRanges(lo, hi int64, n int) [][2]int64 {
	width := (float64(hi) - float64(lo) + 1) / float64(n)
	var out [][2]int64
	start := lo
	for i := 1; i <= n && start <= hi; i++ {
		end := hi
		if i < n {
			end = lo + int64(width*float64(i)) - 1
		}
		if end < start {
			continue
		}
		out = append(out, [2]int64{start, end})
		if end == hi {
			break
		}
		start = end + 1
	}
	return out
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
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
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
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if !rows.Next() {
		return position{}, fmt.Errorf("%s: the server keeps no binary log files", s.where)
	}
	if err := rows.Scan(ptrs...); err != nil {
		return position{}, fmt.Errorf("%s: list the binary log files: %s", s.where, errorText(err))
	}
	return position{File: vals[0].String, Pos: 4}, nil
}
