package postgrescdc

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

// render writes rows as "+I 1 a 10", joined by " | ".
func render(rows []row.Row) string {
	var out []string
	for _, r := range rows {
		parts := []string{r.Kind.Short()}
		for _, f := range r.Fields {
			parts = append(parts, f.String())
		}
		out = append(out, strings.Join(parts, " "))
	}
	return strings.Join(out, " | ")
}

// apply applies a changelog by its first field, as a sink that writes by key does, and
// returns the rows left, sorted.
func apply(rows []row.Row) string {
	m := map[string]row.Row{}
	for _, r := range rows {
		k := r.Fields[0].String()
		switch r.Kind {
		case row.Insert, row.UpdateAfter:
			m[k] = r
		case row.Delete:
			delete(m, k)
		}
	}
	var left []row.Row
	for _, r := range m {
		r.Kind = row.Insert
		left = append(left, r)
	}
	sort.Slice(left, func(i, j int) bool { return left[i].Fields[0].I < left[j].Fields[0].I })
	return render(left)
}

// tableRows reads a table of the test's schema as INSERT rows of (id, name, score).
func tableRows(t *testing.T, db *testDB, table string) string {
	t.Helper()
	rows, err := db.conn.Query(context.Background(), "SELECT id, name, score FROM "+table+" ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []row.Row
	for rows.Next() {
		var id int32
		var name *string
		var score *int32
		if err := rows.Scan(&id, &name, &score); err != nil {
			t.Fatal(err)
		}
		r := row.Row{Kind: row.Insert, Fields: []row.Value{row.IntValue(id), {}, {}}}
		if name != nil {
			r.Fields[1] = row.StringValue(*name)
		}
		if score != nil {
			r.Fields[2] = row.IntValue(*score)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return render(out)
}

const tableT = `CREATE TABLE t (id int PRIMARY KEY, name text, score int);
ALTER TABLE t REPLICA IDENTITY FULL;`

// The snapshot is read in splits by two readers, then the stream replays the changes made
// since the slot was created, in order and with their kinds; applied by key, the rows
// equal the table.
func TestSnapshotThenChanges(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, tableT+`INSERT INTO t SELECT g, 'n' || g, g * 10 FROM generate_series(1, 50) g; ANALYZE t;`)
	src := mustSource(t, db.options([]string{"t"}, "snapshot.split.size = 10"), connector.Streaming, 2)
	if tb := src.Tables()[0]; tb.ID() != db.table("t") || tb.PrimaryKey == nil || tb.Columns[2].Type.String() != "int" {
		t.Fatalf("table %s, key %v, columns %v", tb.ID(), tb.PrimaryKey, tb.Columns)
	}
	h := newHarness(t, src, 2, nil, nil)
	ctx := context.Background()
	if err := h.Step(ctx); err != nil {
		t.Fatal(err)
	}
	// changes while the snapshot is being read
	db.exec(t, `INSERT INTO t VALUES (100, 'new', 1)`)
	db.exec(t, `UPDATE t SET score = -1 WHERE id = 1`)
	db.exec(t, `DELETE FROM t WHERE id = 2`)
	db.exec(t, `UPDATE t SET id = 300 WHERE id = 3`)
	db.exec(t, `BEGIN; INSERT INTO t VALUES (101, 'a', NULL); UPDATE t SET name = 'b' WHERE id = 101; COMMIT`)
	h.Until("the changes", 20*time.Second, func() bool { return h.streamAt >= 0 && len(h.Rows)-h.streamAt >= 9 })
	for _, r := range h.Rows[:h.streamAt] {
		if r.Kind != row.Insert || r.Table != db.table("t") {
			t.Fatalf("snapshot row %s of %s", r.Kind, r.Table)
		}
	}
	if n := h.streamAt; n < 49 {
		t.Errorf("%d snapshot rows", n)
	}
	snapshots := 0
	for _, a := range h.EC.Assigned {
		for _, sp := range a {
			if sp.ID != streamSplitID {
				snapshots++
			}
		}
	}
	if snapshots != 5 || len(h.EC.Assigned[0]) == 0 || len(h.EC.Assigned[1]) == 0 {
		t.Errorf("snapshot splits: %v", h.EC.Assigned)
	}
	want := "+I 100 new 1 | -U 1 n1 10 | +U 1 n1 -1 | -D 2 n2 20 | -D 3 n3 30 | +I 300 n3 30 | +I 101 a null | -U 101 a null | +U 101 b null"
	if got := render(h.Rows[h.streamAt:]); got != want {
		t.Errorf("changes:\n got %s\nwant %s", got, want)
	}
	if got, want := apply(h.Rows), tableRows(t, db, "t"); got != want {
		t.Errorf("applied rows differ from the table:\n got %s\nwant %s", got, want)
	}
	for _, r := range h.Rows {
		if r.Table != db.table("t") {
			t.Fatalf("row of table %s", r.Table)
		}
	}
}

// In a BATCH job the source reads the snapshot and ends, without a slot or publication.
func TestBatchReadsSnapshotOnly(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, `CREATE TABLE t (id int PRIMARY KEY, name text, score int);
INSERT INTO t SELECT g, 'n' || g, g FROM generate_series(1, 25) g; ANALYZE t;
CREATE TABLE nokey (id int, name text, score int); INSERT INTO nokey VALUES (1, 'x', 1);`)
	src := mustSource(t, db.options([]string{"t", "nokey"}, "snapshot.split.size = 10"), connector.Batch, 2)
	if src.Boundedness() != connector.Bounded {
		t.Fatal("a BATCH source is unbounded")
	}
	h := newHarness(t, src, 2, nil, nil)
	h.Until("the end", 20*time.Second, h.AllDone)
	if len(h.Rows) != 26 {
		t.Fatalf("%d rows", len(h.Rows))
	}
	var tRows []row.Row
	for _, r := range h.Rows {
		if r.Table == db.table("t") {
			tRows = append(tRows, r)
		}
	}
	if got, want := apply(tRows), tableRows(t, db, "t"); got != want {
		t.Errorf("rows:\n got %s\nwant %s", got, want)
	}
	if lsn := db.confirmedFlush(t); lsn != "" {
		t.Errorf("a BATCH job made a slot")
	}
	var pubs int
	if err := db.conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_publication WHERE pubname = $1", db.slot+"_publication").Scan(&pubs); err != nil || pubs != 0 {
		t.Errorf("a BATCH job made a publication: %d, %v", pubs, err)
	}
}

// streamLSN is the position a stream split of a reader state holds.
func streamLSN(t *testing.T, states [][]connector.Split) string {
	t.Helper()
	for _, st := range states {
		for _, sp := range st {
			if sp.ID == streamSplitID {
				var d splitData
				if err := json.Unmarshal(sp.Data, &d); err != nil {
					t.Fatal(err)
				}
				return d.Stream.LSN
			}
		}
	}
	t.Fatal("no stream split in the state")
	return ""
}

// A restore from a checkpoint taken within a transaction goes on with the rest of that
// transaction and the later ones, repeating and losing nothing; a restore from an older
// checkpoint, whose changes the slot no longer has, fails.
func TestRestoreStream(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, tableT)
	conf := db.options([]string{"t"}, "startup.mode = latest")
	h := newHarness(t, mustSource(t, conf, connector.Streaming, 1), 1, nil, nil)
	h.Until("the stream", 10*time.Second, func() bool { return h.streamAt >= 0 })
	db.exec(t, `INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2)`)
	h.Until("T1", 10*time.Second, func() bool { return len(h.Rows) == 2 })
	es1, rs1 := h.Checkpoint(1)
	h.Complete(1)
	db.exec(t, `INSERT INTO t VALUES (3, 'c', 3), (4, 'd', 4), (5, 'e', 5)`)
	h.Batch = 1
	h.Until("part of T2", 10*time.Second, func() bool { return len(h.Rows) == 3 })
	es2, rs2 := h.Checkpoint(2)
	h.Complete(2)
	h.Close()
	if got, want := render(h.Rows), "+I 1 a 1 | +I 2 b 2 | +I 3 c 3"; got != want {
		t.Fatalf("before the restore: %s, want %s", got, want)
	}
	db.exec(t, `INSERT INTO t VALUES (6, 'f', 6)`)

	h2 := newHarness(t, mustSource(t, conf, connector.Streaming, 1), 1, es2, rs2)
	h2.Until("the rest", 10*time.Second, func() bool { return len(h2.Rows) >= 3 })
	deadline := time.Now().Add(time.Second)
	h2.Until("a pause", 5*time.Second, func() bool { return time.Now().After(deadline) })
	if got, want := render(h2.Rows), "+I 4 d 4 | +I 5 e 5 | +I 6 f 6"; got != want {
		t.Errorf("after the restore: %s, want %s", got, want)
	}
	// the slot let go of checkpoint 1's position: restoring it fails
	_, rs3 := h2.Checkpoint(3)
	h2.Complete(3)
	h2.Close()
	if streamLSN(t, rs3) <= streamLSN(t, rs1) {
		t.Fatalf("the position did not move: %s, %s", streamLSN(t, rs3), streamLSN(t, rs1))
	}
	db.exec(t, `INSERT INTO t VALUES (7, 'g', 7)`)
	h3 := newHarness(t, mustSource(t, conf, connector.Streaming, 1), 1, es1, rs1)
	if err := h3.UntilErr(20 * time.Second); !strings.Contains(err.Error(), "beyond the position to resume from") {
		t.Errorf("restore of an old checkpoint: %v", err)
	}
}

// The slot's confirmed position moves only to what a completed checkpoint saved.
func TestConfirmedFlush(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, tableT)
	h := newHarness(t, mustSource(t, db.options([]string{"t"}, "startup.mode = latest"), connector.Streaming, 1), 1, nil, nil)
	start := db.confirmedFlush(t)
	h.Until("the stream", 10*time.Second, func() bool { return h.streamAt >= 0 })
	db.exec(t, `INSERT INTO t VALUES (1, 'a', 1)`)
	h.Until("T1", 10*time.Second, func() bool { return len(h.Rows) == 1 })
	_, rs := h.Checkpoint(1)
	saved := streamLSN(t, rs)
	db.exec(t, `INSERT INTO t VALUES (2, 'b', 2)`)
	h.Until("T2", 10*time.Second, func() bool { return len(h.Rows) == 2 })
	pause := time.Now().Add(1500 * time.Millisecond)
	h.Until("a pause", 5*time.Second, func() bool { return time.Now().After(pause) })
	if got := db.confirmedFlush(t); got != start {
		t.Fatalf("confirmed %s before a checkpoint completed; the slot started at %s", got, start)
	}
	h.Complete(1)
	h.Until("the confirmation", 10*time.Second, func() bool { return db.confirmedFlush(t) == saved })
	db.exec(t, `INSERT INTO t VALUES (3, 'c', 3)`)
	pause = time.Now().Add(1500 * time.Millisecond)
	h.Until("a pause", 5*time.Second, func() bool { return time.Now().After(pause) })
	if got := db.confirmedFlush(t); got != saved {
		t.Fatalf("confirmed %s, beyond checkpoint 1's %s", got, saved)
	}
	if len(h.Rows) != 3 {
		t.Errorf("%d rows", len(h.Rows))
	}
}

// Values of many types read the same from the snapshot and from the stream; an update that
// leaves a large out-of-line value unchanged carries it.
func TestTypes(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, `CREATE TYPE mood AS ENUM ('sad', 'happy');
CREATE TABLE ty (id int PRIMARY KEY, b bytea, s smallint, i int, l bigint, r real, d double precision,
  n numeric(10, 5), nu numeric, bo boolean, tx text, c char, c3 char(3), vc varchar(20), ts3 timestamp(3),
  ts timestamp, tz timestamptz, dt date, tm time(0), inet inet, iv interval, u uuid, j jsonb, ia int[], ta text[],
  m mood, big text);
ALTER TABLE ty REPLICA IDENTITY FULL;
ALTER TABLE ty ALTER COLUMN big SET STORAGE EXTERNAL;`)
	values := `'\x0102', 32767, 65535, 2147483648, 5.5, 6.6, 123.12345, 404.4443, true, 'Hello', 'a', 'abc',
  'abcd..xyz', '2020-07-17 18:00:22.123', '2020-07-17 18:00:22.123456', '2020-07-17 18:00:22+02', '2020-07-17', '18:00:22',
  '192.168.1.1', '1 day 02:03:04.5', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"k": 1}', '{1,NULL,3}', '{a,"b c"}',
  'happy', repeat('0123456789', 1000)`
	db.exec(t, `INSERT INTO ty VALUES (1, `+values+`)`)
	src := mustSource(t, db.options([]string{"ty"}, ""), connector.Streaming, 1)
	if got := src.Tables()[0].Columns[8].Type.String(); got != "decimal(38, 10)" {
		t.Errorf("numeric is %s", got)
	}
	h := newHarness(t, src, 1, nil, nil)
	h.Until("the stream", 10*time.Second, func() bool { return h.streamAt >= 0 })
	db.exec(t, `INSERT INTO ty VALUES (2, `+values+`)`)
	db.exec(t, `UPDATE ty SET s = 1 WHERE id = 2`)
	h.Until("the changes", 10*time.Second, func() bool { return len(h.Rows) == 4 })
	snap, ins, after := h.Rows[0], h.Rows[1], h.Rows[3]
	if h.Rows[2].Kind != row.UpdateBefore || after.Kind != row.UpdateAfter {
		t.Fatalf("kinds %s %s", h.Rows[2].Kind, after.Kind)
	}
	cols := src.Tables()[0].Columns
	for j := 1; j < len(cols); j++ {
		if !row.Equal(snap.Fields[j], ins.Fields[j]) {
			t.Errorf("column %s: snapshot %v, stream %v", cols[j].Name, snap.Fields[j], ins.Fields[j])
		}
		if j != 2 && !row.Equal(ins.Fields[j], after.Fields[j]) {
			t.Errorf("column %s: inserted %v, updated %v", cols[j].Name, ins.Fields[j], after.Fields[j])
		}
	}
	for j, want := range map[int]string{8: "404.4443", 16: "2020-07-17T16:00:22", 19: "192.168.1.1", 20: "1 day 02:03:04.5",
		21: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", 22: `{"k": 1}`, 23: "[1, null, 3]", 24: "[a, b c]", 25: "happy"} {
		if got := ins.Fields[j].String(); got != want {
			t.Errorf("column %s: %s, want %s", cols[j].Name, got, want)
		}
	}
	if len(after.Fields[26].S) != 10000 {
		t.Errorf("the unchanged large value has %d bytes", len(after.Fields[26].S))
	}
}

// A table without a primary key takes the one table-names-config gives; an update of the
// key is a DELETE and an INSERT.
func TestConfiguredKey(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, `CREATE TABLE nokey (id int, name text, score int); ALTER TABLE nokey REPLICA IDENTITY FULL;
INSERT INTO nokey VALUES (1, 'a', 1);`)
	conf := db.options([]string{"nokey"}, fmt.Sprintf(`table-names-config = [{table = %q, primaryKeys = ["id"]}]`, db.table("nokey")))
	src := mustSource(t, conf, connector.Streaming, 1)
	if pk := src.Tables()[0].PrimaryKey; pk == nil || len(pk.Columns) != 1 || pk.Columns[0] != "id" {
		t.Fatalf("primary key %v", pk)
	}
	h := newHarness(t, src, 1, nil, nil)
	h.Until("the stream", 10*time.Second, func() bool { return h.streamAt >= 0 })
	db.exec(t, `UPDATE nokey SET id = 2 WHERE id = 1`)
	db.exec(t, `UPDATE nokey SET name = 'b' WHERE id = 2`)
	db.exec(t, `DELETE FROM nokey`)
	h.Until("the changes", 10*time.Second, func() bool { return len(h.Rows) == 6 })
	if got, want := render(h.Rows), "+I 1 a 1 | -D 1 a 1 | +I 2 a 1 | -U 2 a 1 | +U 2 b 1 | -D 2 b 1"; got != want {
		t.Errorf("rows:\n got %s\nwant %s", got, want)
	}
}

// Bad options and unusable tables are config errors naming the option and the cause.
func TestErrors(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, tableT+`CREATE TABLE nokey (id int, name text);`)
	for _, tc := range []struct {
		tables []string
		extra  string
		mode   connector.JobMode
		want   []string
	}{
		{[]string{"missing"}, "", connector.Streaming, []string{"table-names[0]", "missing does not exist"}},
		{[]string{"t"}, "format = COMPATIBLE_DEBEZIUM_JSON", connector.Streaming, []string{"format", "COMPATIBLE_DEBEZIUM_JSON is not supported"}},
		{[]string{"t"}, `slot.name = "Bad-Slot"`, connector.Streaming, []string{"slot.name", "not a replication slot name"}},
		{[]string{"t"}, `decoding.plugin.name = "test_decoding"`, connector.Streaming, []string{"decoding.plugin.name", "unknown plugin"}},
		{[]string{"t"}, `startup.mode = specific`, connector.Streaming, []string{"startup.mode", "unknown value"}},
		{[]string{"nokey"}, "", connector.Streaming, []string{"table-names[0]", "no replica identity", "REPLICA IDENTITY FULL"}},
		{[]string{"t"}, `table-names-config = [{table = "x.y.z", primaryKeys = ["id"]}]`, connector.Streaming, []string{"table-names-config[0].table"}},
		{[]string{"t"}, `connect.timeout.ms = "soon"`, connector.Streaming, []string{"connect.timeout.ms"}},
	} {
		_, err := newTestSource(t, db.options(tc.tables, tc.extra), tc.mode, 1)
		if err == nil {
			t.Errorf("%v %s: no error", tc.tables, tc.extra)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v %s: %v; want it to mention %q", tc.tables, tc.extra, err, w)
			}
		}
	}
	// a table without a key is fine to read once
	if _, err := newTestSource(t, db.options([]string{"nokey"}, ""), connector.Batch, 1); err != nil {
		t.Errorf("BATCH read of a table without a key: %v", err)
	}

	// a slot another reader streams from
	busy := slotBusyWait
	t.Cleanup(func() { slotBusyWait = busy }) // after the harness's cleanup, which stops its stream
	slotBusyWait = time.Second
	conf := db.options([]string{"t"}, "startup.mode = latest")
	h := newHarness(t, mustSource(t, conf, connector.Streaming, 1), 1, nil, nil)
	h.Until("the slot in use", 10*time.Second, func() bool {
		var active bool
		_ = db.conn.QueryRow(context.Background(), "SELECT active FROM pg_replication_slots WHERE slot_name = $1", db.slot).Scan(&active)
		return active
	})
	src := mustSource(t, conf, connector.Streaming, 1)
	en, err := src.CreateEnumerator(newEnumContext(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := en.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Errorf("a slot in use: %v", err)
	}
}

// Without REPLICA IDENTITY FULL an update that leaves a large out-of-line value unchanged
// does not carry it: the job fails rather than write a null over it.
func TestToastWithoutFullIdentity(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, `CREATE TABLE big (id int PRIMARY KEY, s int, v text);
ALTER TABLE big ALTER COLUMN v SET STORAGE EXTERNAL;
INSERT INTO big VALUES (1, 1, repeat('x', 10000));`)
	h := newHarness(t, mustSource(t, db.options([]string{"big"}, "startup.mode = latest"), connector.Streaming, 1), 1, nil, nil)
	h.Until("the stream", 10*time.Second, func() bool { return h.streamAt >= 0 })
	db.exec(t, `UPDATE big SET s = 2`)
	if err := h.UntilErr(10 * time.Second); !strings.Contains(err.Error(), `unchanged value of column "v"`) || !strings.Contains(err.Error(), "REPLICA IDENTITY FULL") {
		t.Errorf("error %v", err)
	}
}

// A restore while the snapshot is being read reads the splits that were not finished and
// the changes since the slot was made; applied by key, the rows equal the table.
func TestRestoreDuringSnapshot(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, tableT+`INSERT INTO t SELECT g, 'n' || g, g FROM generate_series(1, 50) g; ANALYZE t;`)
	conf := db.options([]string{"t"}, "snapshot.split.size = 10")
	h := newHarness(t, mustSource(t, conf, connector.Streaming, 2), 2, nil, nil)
	h.Batch = 4
	h.Until("some rows", 10*time.Second, func() bool { return len(h.Rows) >= 12 })
	db.exec(t, `UPDATE t SET score = -1 WHERE id IN (1, 49); DELETE FROM t WHERE id = 25; INSERT INTO t VALUES (60, 'x', 60)`)
	es, rs := h.Checkpoint(1)
	h.Complete(1)
	if h.streamAt >= 0 {
		t.Fatal("the stream started before the snapshot was read")
	}
	before := h.Rows
	h.Close()
	db.exec(t, `UPDATE t SET name = 'late' WHERE id = 50`)

	h2 := newHarness(t, mustSource(t, conf, connector.Streaming, 2), 2, es, rs)
	h2.Until("the changes", 20*time.Second, func() bool { return h2.streamAt >= 0 && len(h2.Rows)-h2.streamAt >= 8 })
	if got, want := apply(append(before, h2.Rows...)), tableRows(t, db, "t"); got != want {
		t.Errorf("applied rows differ from the table:\n got %s\nwant %s", got, want)
	}
	if got, want := render(h2.Rows[h2.streamAt:]), "-U 1 n1 1 | +U 1 n1 -1 | -U 49 n49 49 | +U 49 n49 -1 | -D 25 n25 25 | +I 60 x 60 | -U 50 n50 50 | +U 50 late 50"; got != want {
		t.Errorf("changes:\n got %s\nwant %s", got, want)
	}
}

// A table added to table-names is captured on restore: its snapshot is read first, then
// the stream goes on with the changes of both tables.
func TestRestoreAddsTable(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, tableT+`CREATE TABLE u (id int PRIMARY KEY, name text, score int); ALTER TABLE u REPLICA IDENTITY FULL;
INSERT INTO t VALUES (1, 'a', 1); INSERT INTO u VALUES (1, 'u', 1);`)
	h := newHarness(t, mustSource(t, db.options([]string{"t"}, ""), connector.Streaming, 1), 1, nil, nil)
	h.Until("the stream", 10*time.Second, func() bool { return h.streamAt >= 0 })
	es, rs := h.Checkpoint(1)
	h.Complete(1)
	h.Close()
	db.exec(t, `INSERT INTO t VALUES (2, 'b', 2); INSERT INTO u VALUES (2, 'v', 2)`)

	h2 := newHarness(t, mustSource(t, db.options([]string{"t", "u"}, ""), connector.Streaming, 1), 1, es, rs)
	h2.Until("the stream", 10*time.Second, func() bool { return h2.streamAt >= 0 })
	db.exec(t, `UPDATE u SET score = 3 WHERE id = 1; INSERT INTO t VALUES (3, 'c', 3)`)
	h2.Until("the changes", 10*time.Second, func() bool { return len(h2.Rows)-h2.streamAt >= 4 })
	var got []string
	for _, r := range h2.Rows {
		got = append(got, r.Table[strings.LastIndexByte(r.Table, '.')+1:]+" "+render([]row.Row{r}))
	}
	want := "u +I 1 u 1 | u +I 2 v 2 | t +I 2 b 2 | u -U 1 u 1 | u +U 1 u 3 | t +I 3 c 3"
	if strings.Join(got, " | ") != want {
		t.Errorf("rows:\n got %s\nwant %s", strings.Join(got, " | "), want)
	}
}

// A stream restored within a transaction keeps that transaction's progress in its state
// until the transaction comes again.
func TestPositionBeforeResumedTransaction(t *testing.T) {
	s := &stream{pos: 100, start: position{lsn: 100, tx: 200, done: 2}}
	if p := s.position(); p.lsn != 100 || p.tx != 200 || p.done != 2 {
		t.Errorf("position %+v", p)
	}
	s.inTx, s.tx, s.txDone = true, 200, 3
	if p := s.position(); p.tx != 200 || p.done != 3 {
		t.Errorf("position %+v", p)
	}
	s.inTx, s.pos = false, 250
	if p := s.position(); p.lsn != 250 || p.tx != 0 {
		t.Errorf("position %+v", p)
	}
}

// A table altered between the job's planning and its start fails the fresh start, naming
// its columns then and now, before the slot is made or a split handed out; a restored start
// is not checked.
func TestTableAlteredAfterPlanning(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, tableT)
	conf := db.options([]string{"t"}, "")
	planned := mustSource(t, conf, connector.Streaming, 1).Tables()
	db.exec(t, "ALTER TABLE t ADD COLUMN added int")
	s, _, err := conntest.BuildSourceIn(t, "Postgres-CDC", conf, connector.SourceContext{Job: connector.Job{ID: 1, Mode: connector.Streaming}, Parallelism: 1, Planned: planned})
	if err != nil {
		t.Fatal(err)
	}
	ec := newEnumContext(1)
	en, err := s.CreateEnumerator(ec, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer en.Close()
	err = en.Run(context.Background())
	want := "table " + db.table("t") + " changed after the job was planned"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "added = int}") || !connector.IsPermanent(err) {
		t.Fatalf("enumerator: %v, want a permanent error with %q", err, want)
	}
	if len(ec.Assigned[0]) != 0 {
		t.Fatalf("splits handed out: %v", ec.Assigned[0])
	}
	// a restored enumerator, whose checkpoint holds the columns its readers read, is not checked
	state, err := json.Marshal(enumState{Prepared: true, Tables: []string{s.Tables()[0].ID()}})
	if err != nil {
		t.Fatal(err)
	}
	restored, err := s.CreateEnumerator(newEnumContext(1), state)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if err := restored.Run(context.Background()); err != nil {
		t.Fatalf("restored enumerator: %v", err)
	}
}
