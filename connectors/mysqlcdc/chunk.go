package mysqlcdc

import (
	"context"
	"fmt"
	"strings"

	"github.com/strait-dev/strait/connectors/internal/binlog"
	"github.com/strait-dev/strait/row"
)

// chunk is a snapshot split read whole, by primary key, so that the changes the log holds
// between its watermarks can be applied to it.
type chunk struct {
	t     *cdcTable
	order []string // keys in the order their rows came
	byKey map[string][]row.Value
	kb    []byte
}

func newChunk(t *cdcTable) *chunk { return &chunk{t: t, byKey: map[string][]row.Value{}} }

// key is the text of a row's primary key.
func (c *chunk) key(fields []row.Value) string {
	c.kb = c.kb[:0]
	for _, i := range c.t.keyIdx {
		c.kb = row.AppendText(c.kb, fields[i])
		c.kb = append(c.kb, 0)
	}
	return string(c.kb)
}

// put adds or replaces a row.
func (c *chunk) put(fields []row.Value) {
	if len(c.t.keyIdx) == 0 {
		c.order = append(c.order, "")
		c.byKey[fmt.Sprint(len(c.order))] = fields
		c.order[len(c.order)-1] = fmt.Sprint(len(c.order))
		return
	}
	k := c.key(fields)
	if _, ok := c.byKey[k]; !ok {
		c.order = append(c.order, k)
	}
	c.byKey[k] = fields
}

// remove drops the row with the key of fields.
func (c *chunk) remove(fields []row.Value) { delete(c.byKey, c.key(fields)) }

// rows appends the chunk's rows as INSERT rows.
func (c *chunk) rows(dst []row.Row) []row.Row {
	for _, k := range c.order {
		if f, ok := c.byKey[k]; ok {
			dst = append(dst, row.Row{Kind: row.Insert, Table: c.t.id, Fields: f})
			delete(c.byKey, k) // a key put twice is emitted once
		}
	}
	return dst
}

// backfill applies to the chunk the changes of its rows that the log holds from low to high:
// the chunk is then the table's rows in its range as they were at high.
func (r *reader) backfill(ctx context.Context, c *chunk, q *queued, low, high position) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn, st, err := r.src.dump(ctx, low, r.src.serverIDs.of(r.rc.Index))
	if err != nil {
		return err
	}
	defer st.Close()
	_ = conn
	tr := tracker{file: low.File}
	t := q.table
	for {
		ev, err := st.Next()
		if err != nil {
			return fmt.Errorf("%s: table %s: read the log from %s to %s for split %s: %v", r.src.where, t.id, low, high, q.split.ID, err)
		}
		start, end, ok := tr.see(ev)
		if !ok {
			continue
		}
		if !start.before(high) {
			return nil
		}
		if rows, isRows := ev.Data.(*binlog.Rows); isRows && rows.Table.Schema == t.name.db && rows.Table.Table == t.name.table {
			if err := applyRows(r.src, c, q.data, rows); err != nil {
				return err
			}
		}
		if !end.before(high) {
			return nil
		}
	}
}

// applyRows applies a rows event of the chunk's table to the rows of the chunk's range.
func applyRows(src *Source, c *chunk, d *snapshotSplit, rows *binlog.Rows) error {
	t := c.t
	if rows.Columns != len(t.cols) {
		return tableChanged(src, t, rows.Columns)
	}
	a, b := make([]binlog.Value, rows.Columns), make([]binlog.Value, rows.Columns)
	for rows.More() {
		if err := rows.Next(a, b); err != nil {
			return fmt.Errorf("%s: %v", src.where, err)
		}
		images := [][]binlog.Value{a}
		if rows.Kind == binlog.Updated {
			images = append(images, b)
		}
		for i, img := range images {
			if !inRange(t, d, img) {
				continue
			}
			fields := make([]row.Value, len(t.cols))
			for j := range t.cols {
				if err := t.cols[j].fromLog(&fields[j], &img[j], src.loc); err != nil {
					return fmt.Errorf("%s: table %s, column %q: %v", src.where, t.id, t.cols[j].name, err)
				}
			}
			if rows.Kind == binlog.Deleted || (rows.Kind == binlog.Updated && i == 0) {
				c.remove(fields)
			} else {
				c.put(fields)
			}
		}
	}
	return nil
}

// inRange reports whether a row image falls in a snapshot split's range.
func inRange(t *cdcTable, d *snapshotSplit, img []binlog.Value) bool {
	if d.Key == "" || t.keyCol < 0 {
		return true
	}
	v := &img[t.keyCol]
	k := v.Int
	if t.cols[t.keyCol].dec == decUint {
		k = int64(v.Uint())
	}
	return d.Contains(k, v.Null)
}

func tableChanged(src *Source, t *cdcTable, n int) error {
	return fmt.Errorf("%s: table %s has %d columns in the log and %d when the job started: its columns were changed while the job ran, which Strait's MySQL-CDC does not follow; restart the job without restoring it", src.where, t.id, n, len(t.cols))
}

// tracker follows where the events of a dump are in the log.
type tracker struct{ file string }

// see returns where an event starts and ends; ok is false for events that are not at a
// place in the log (the rotate the server sends first, format descriptions, heartbeats).
func (tr *tracker) see(ev binlog.Event) (start, end position, ok bool) {
	if rot, isRot := ev.Data.(*binlog.Rotate); isRot {
		tr.file = rot.File
		return start, end, false
	}
	switch ev.Type {
	case binlog.FormatDescriptionEvent, binlog.HeartbeatEvent, binlog.HeartbeatV2Event:
		return start, end, false
	}
	if ev.Artificial() || ev.LogPos < ev.Size {
		return start, end, false
	}
	return position{File: tr.file, Pos: ev.LogPos - ev.Size}, position{File: tr.file, Pos: ev.LogPos}, true
}

// dump opens a replication connection and starts reading the log at p as replica serverID.
func (s *Source) dump(ctx context.Context, p position, serverID uint32) (*binlog.Conn, *binlog.Stream, error) {
	var conn *binlog.Conn
	var err error
	for attempt := 0; ; attempt++ {
		if conn, err = binlog.Dial(ctx, s.bcfg); err == nil {
			break
		}
		if attempt >= s.retries || ctx.Err() != nil || binlog.IsCode(err, binlog.ErrAccessDenied) {
			return nil, nil, fmt.Errorf("%s: %v", s.where, err)
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-timeAfterSecond():
		}
	}
	start := binlog.Start{File: p.File, Pos: p.Pos}
	if p.File == "" && p.GTID != "" {
		if s.mariadb {
			if start.MariaDB, err = binlog.ParseMariaDBPosition(p.GTID); err != nil {
				conn.Close()
				return nil, nil, fmt.Errorf("%s: %v", s.where, err)
			}
		} else if start.MySQL, err = binlog.ParseGTIDSet(p.GTID); err != nil {
			conn.Close()
			return nil, nil, fmt.Errorf("%s: %v", s.where, err)
		}
	}
	st, err := conn.StartDump(ctx, binlog.DumpOptions{ServerID: serverID}, start)
	if err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("%s: read the binary log from %s: %v%s", s.where, p, err, dumpHint(err))
	}
	return conn, st, nil
}

// dumpHint says what to do about the errors a dump fails with.
func dumpHint(err error) string {
	switch {
	case binlog.IsCode(err, binlog.ErrSpecificAccess):
		return "; the user needs the REPLICATION SLAVE privilege (GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO ...)"
	case binlog.IsCode(err, binlog.ErrMasterFatal) && strings.Contains(err.Error(), "purged"), binlog.IsCode(err, binlog.ErrMasterHasPurged):
		return "; the server no longer has that part of its log (binlog_expire_logs_seconds, expire_logs_days): start the job anew"
	}
	return ""
}
