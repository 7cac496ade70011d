package mysqlcdc

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

func TestSnapshotThenChanges(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), qty INT UNSIGNED)")
	for i := 1; i <= 30; i++ {
		db.exec(t, fmt.Sprintf("INSERT INTO items VALUES (%d, 'item%d', %d)", i, i, i*10))
	}
	src := mustSource(t, db.conf("items", "snapshot.split.size = 7"), connector.Streaming)
	if tbl := src.Tables()[0]; tbl.PrimaryKey == nil || tbl.Path.String() != db.name+".items" {
		t.Fatalf("table %+v", tbl)
	}
	h := newHarness(t, src, 2, nil, nil)
	h.Until("snapshot", time.Minute, func() bool { return len(h.Rows) >= 30 })
	keys := map[string]bool{}
	for _, r := range h.Rows {
		if r.Kind != row.Insert || r.Table != db.name+".items" {
			t.Fatalf("snapshot row %v", show([]row.Row{r}))
		}
		keys[r.Fields[0].String()] = true
	}
	if len(keys) != 30 || len(h.Rows) != 30 {
		t.Fatalf("snapshot: %d rows, %d keys, want 30", len(h.Rows), len(keys))
	}
	h.Rows = nil
	db.exec(t, "INSERT INTO items VALUES (31, 'new', 4294967295)",
		"UPDATE items SET name = 'renamed' WHERE id = 2",
		"UPDATE items SET id = 40 WHERE id = 3",
		"DELETE FROM items WHERE id = 4")
	h.Until("changes", time.Minute, func() bool { return len(h.Rows) >= 6 })
	want := []string{"+I 31,new,4294967295", "-U 2,item2,20", "+U 2,renamed,20", "-D 3,item3,30", "+I 40,item3,30", "-D 4,item4,40"}
	wantRows(t, "changes", h.Rows, want)
}

func TestBatchReadsTheSnapshotAndEnds(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE nokey (a INT, b VARCHAR(5))", "INSERT INTO nokey VALUES (1, 'x'), (2, 'y'), (NULL, NULL)")
	src := mustSource(t, db.conf("nokey", ""), connector.Batch)
	h := newHarness(t, src, 2, nil, nil)
	h.Until("snapshot", time.Minute, h.AllDone)
	got := show(h.Rows)
	sort.Strings(got)
	if want := []string{"+I 1,x", "+I 2,y", "+I null,null"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// A checkpoint taken in the middle of a transaction resumes after the changes it had
// emitted: nothing is lost or repeated.
func TestRestoreFromCheckpoint(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1)")
	src := mustSource(t, db.conf("t", ""), connector.Streaming)
	h := newHarness(t, src, 1, nil, nil)
	h.Until("snapshot", time.Minute, func() bool { return len(h.Rows) == 1 })
	var b strings.Builder
	b.WriteString("INSERT INTO t VALUES ")
	for i := 2; i <= 101; i++ {
		if i > 2 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %d)", i, i)
	}
	db.exec(t, b.String(), "UPDATE t SET v = v + 1000 WHERE id <= 10")
	h.Batch = 30
	h.Until("some changes", time.Minute, func() bool { return len(h.Rows) >= 31 })
	enumState, states := h.Checkpoint(1)
	before := append([]row.Row(nil), h.Rows...)
	h.Close()
	db.exec(t, "DELETE FROM t WHERE id = 50")

	h2 := newHarness(t, mustSource(t, db.conf("t", ""), connector.Streaming), 1, enumState, states)
	want := 1 + 100 + 20 + 1
	h2.Until("the rest", time.Minute, func() bool { return len(before)+len(h2.Rows) >= want })
	all := append(before, h2.Rows...)
	if len(all) != want {
		t.Fatalf("got %d rows, want %d", len(all), want)
	}
	seen := map[string]int{}
	for _, s := range show(all) {
		seen[s]++
		if seen[s] > 1 {
			t.Fatalf("row %s emitted twice", s)
		}
	}
	for _, s := range []string{"+I 1,1", "+I 2,2", "+I 101,101", "-U 10,10", "+U 10,1010", "-D 50,50"} {
		if seen[s] != 1 {
			t.Errorf("row %s: emitted %d times, want once", s, seen[s])
		}
	}
}

// Changes made while the snapshot is read are neither lost nor repeated: applying the
// emitted rows in order never inserts a key twice or removes one that is absent, and ends
// equal to the table.
func TestWatermarkSwitchUnderConcurrentWrites(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE w (id INT PRIMARY KEY, v INT)")
	var b strings.Builder
	b.WriteString("INSERT INTO w VALUES (1, 0)")
	for i := 2; i <= 3000; i++ {
		fmt.Fprintf(&b, ", (%d, 0)", i)
	}
	db.exec(t, b.String())
	src := mustSource(t, db.conf("w", "snapshot.split.size = 300"), connector.Streaming)
	h := newHarness(t, src, 1, nil, nil)
	h.Batch = 100

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	var writeErr error
	var writes atomic.Int64
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewPCG(1, 2))
		next := 3001
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			var err error
			switch k := rng.IntN(3); {
			case k == 0:
				_, err = db.Exec("INSERT INTO w VALUES (?, ?)", next, n)
				next++
			case k == 1:
				_, err = db.Exec("UPDATE w SET v = ? WHERE id = ?", n, 1+rng.IntN(next-1))
			default:
				_, err = db.Exec("DELETE FROM w WHERE id = ?", 1+rng.IntN(next-1))
			}
			if err != nil {
				writeErr = err
				return
			}
			writes.Add(1)
		}
	}()
	state := map[string]string{}
	applied := 0
	apply := func() {
		for _, r := range h.Rows[applied:] {
			k, v := r.Fields[0].String(), r.Fields[1].String()
			switch r.Kind {
			case row.Insert:
				if _, ok := state[k]; ok {
					t.Fatalf("row %d: insert of key %s, which is there already", applied, k)
				}
				state[k] = v
			case row.UpdateBefore, row.Delete:
				if _, ok := state[k]; !ok {
					t.Fatalf("row %d: %s of key %s, which is not there", applied, r.Kind, k)
				}
				delete(state, k)
			case row.UpdateAfter:
				state[k] = v
			}
			applied++
		}
	}
	h.Batch = 10
	h.Until("the snapshot under writes", 2*time.Minute, func() bool {
		apply()
		return len(h.Readers[0].(*reader).queue) == 0 && h.Readers[0].(*reader).stream != nil
	})
	during := writes.Load()
	h.Until("more writes while streaming", time.Minute, func() bool { apply(); return writes.Load() > during+200 })
	close(stop)
	wg.Wait()
	if writeErr != nil {
		t.Fatal(writeErr)
	}
	want := map[string]string{}
	rows, err := db.Query("SELECT id, v FROM w")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		want[k] = v
	}
	rows.Close()
	h.Until("the table", time.Minute, func() bool {
		apply()
		return reflect.DeepEqual(state, want)
	})
	if during < 20 {
		t.Fatalf("only %d writes while the snapshot was read: the test did not test the switch", during)
	}
	t.Logf("%d writes while the snapshot was read, %d in all", during, writes.Load())
}

func TestTypes(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, `CREATE TABLE ty (id INT PRIMARY KEY, b TINYINT(1), ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT UNSIGNED,
		mi MEDIUMINT UNSIGNED, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED, f FLOAT, d DOUBLE, dec1 DECIMAL(10,3),
		decu DECIMAL(5,2) UNSIGNED, dt DATE, tm TIME(3), dtm DATETIME(6), ts TIMESTAMP(3) NULL, y YEAR, bit1 BIT(1), bit10 BIT(10),
		e ENUM('a','b','c'), st SET('x','y','z'), c CHAR(3), vc VARCHAR(10), l1 VARCHAR(10) CHARACTER SET latin1,
		bin BINARY(2), blb BLOB, tx TEXT, j JSON, g POINT, zd DATE)`)
	values := `1, -2, 255, 65535, 16777215, 4294967295, -9000000000, 18446744073709551615, 1.5, 2.25, -1234567.125,
		999.99, '2024-02-29', '23:59:59.125', '2024-02-29 13:45:56.654321', '2024-01-02 03:04:05.678', 1999, b'1', b'1000000001',
		'c', 'x,z', 'ab', 'héllo', 'café', x'0102', x'ff00', 'text', '{"k": [1, "two"]}', ST_GeomFromText('POINT(1 2)'), NULL`
	db.exec(t, "INSERT INTO ty VALUES (1, "+values+")")
	src := mustSource(t, db.conf("ty", ""), connector.Streaming)
	h := newHarness(t, src, 1, nil, nil)
	h.Until("snapshot", time.Minute, func() bool { return len(h.Rows) == 1 })
	db.exec(t, "INSERT INTO ty VALUES (2, "+values+")")
	h.Until("the change", time.Minute, func() bool { return len(h.Rows) == 2 })
	snap, log := h.Rows[0], h.Rows[1]
	for i := 1; i < len(snap.Fields); i++ {
		if !row.Equal(snap.Fields[i], log.Fields[i]) || snap.Fields[i].T != log.Fields[i].T {
			t.Errorf("column %s: snapshot %v (%s), log %v (%s)", src.tables[0].cols[i].name, snap.Fields[i], snap.Fields[i].T, log.Fields[i], log.Fields[i].T)
		}
	}
	want := `1,true,-2,255,65535,16777215,4294967295,-9000000000,18446744073709551615,1.5,2.25,-1234567.125,999.99,2024-02-29,23:59:59.125,2024-02-29T13:45:56.654321,2024-01-02T03:04:05.678,1999,true,[2, 1],c,x,z,ab,héllo,café,[1, 2],[-1, 0],text,{"k": [1, "two"]},[0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, -16, 63, 0, 0, 0, 0, 0, 0, 0, 64],null`
	if got := show(h.Rows[:1])[0]; got != "+I "+want {
		t.Errorf("snapshot row:\n got %s\nwant +I %s", got, want)
	}
	types := []string{}
	for _, c := range src.Tables()[0].Columns {
		types = append(types, c.Type.String())
	}
	if got := strings.Join(types, " "); got != "int boolean tinyint smallint int int bigint bigint decimal(20, 0) float double decimal(10, 3) decimal(6, 2) date time timestamp timestamp int boolean bytes string string string string string bytes bytes string string bytes date" {
		t.Errorf("types: %s", got)
	}
}

func TestBadInput(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE ok (id INT PRIMARY KEY)", "CREATE TABLE sj (id INT PRIMARY KEY, s VARCHAR(5) CHARACTER SET armscii8)",
		"CREATE TABLE tm (id INT PRIMARY KEY, t TIME)", "INSERT INTO tm VALUES (1, '-01:00:00')")
	tests := []struct {
		name string
		conf string
		want string
	}{
		{"wrong password", strings.Replace(db.conf("ok", ""), `password = "`+db.pass+`"`, `password = "wrong"`, 1), "Access denied"},
		{"missing table", db.conf("missing", ""), "table " + db.name + ".missing does not exist"},
		{"unsupported type", db.conf("sj", ""), `column "s": character set armscii8 is not supported`},
		{"not a jdbc url", strings.Replace(db.conf("ok", ""), "jdbc:mysql://", "mysql://", 1), "is not a MySQL JDBC url"},
		{"a table without its database", strings.Replace(db.conf("ok", ""), db.name+".ok", "ok", 1), "is not database.table"},
		{"format", db.conf("ok", "format = avro"), "format"},
		{"specific without a file", db.conf("ok", "startup.mode = specific"), "startup.specific-offset.file"},
		{"server id", db.conf("ok", `server-id = "x-y"`), "is not a server id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newTestSource(t, tt.conf, connector.Streaming)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error saying %q", err, tt.want)
			}
		})
	}
	t.Run("a TIME that is not a time of day", func(t *testing.T) {
		h := newHarness(t, mustSource(t, db.conf("tm", ""), connector.Streaming), 1, nil, nil)
		err := h.UntilErr(time.Minute)
		if !strings.Contains(err.Error(), `column "t"`) || !strings.Contains(err.Error(), "-01:00:00") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a DDL of a captured table", func(t *testing.T) {
		h := newHarness(t, mustSource(t, db.conf("ok", ""), connector.Streaming), 1, nil, nil)
		h.Until("the stream", time.Minute, func() bool { return h.Readers[0].(*reader).stream != nil })
		db.exec(t, "ALTER TABLE ok ADD COLUMN extra INT")
		err := h.UntilErr(time.Minute)
		if !strings.Contains(err.Error(), "ALTER TABLE ok ADD COLUMN extra INT") {
			t.Fatalf("got %v, want the statement named", err)
		}
	})
	t.Run("a DDL of a captured table with schema-changes.enabled", func(t *testing.T) {
		db.exec(t, "CREATE TABLE ev (id INT PRIMARY KEY)")
		h := newHarness(t, mustSource(t, db.conf("ev", "schema-changes.enabled = true"), connector.Streaming), 1, nil, nil)
		h.Until("the stream", time.Minute, func() bool { return h.Readers[0].(*reader).stream != nil })
		db.exec(t, "ALTER TABLE ev DROP PRIMARY KEY")
		err := h.UntilErr(time.Minute)
		if !strings.Contains(err.Error(), "ALTER TABLE ev DROP PRIMARY KEY") || !strings.Contains(err.Error(), "the primary key changes") {
			t.Fatalf("got %v, want the statement named and why it is not passed on", err)
		}
	})
}

// A table altered between the job's planning and its start: the source built where the job
// runs reads the new columns, which the job planned with the old ones would not follow, and
// the ALTER is before the log position the job starts from. Its enumerator fails the job,
// naming the table's columns then and now, before it hands out a split; a restored one,
// whose checkpoint holds the columns it reads, is not checked.
func TestTableAlteredAfterPlanning(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20))", "INSERT INTO items VALUES (1, 'a')")
	conf := db.conf("items", "")
	planned := mustSource(t, conf, connector.Streaming).Tables()
	build := func() *Source {
		t.Helper()
		s, _, err := conntest.BuildSourceIn(t, "MySQL-CDC", conf, connector.SourceContext{Job: connector.Job{ID: 1, Mode: connector.Streaming}, Parallelism: 1, Planned: planned})
		if err != nil {
			t.Fatal(err)
		}
		return s.(*Source)
	}
	newHarness(t, build(), 1, nil, nil) // unchanged: it starts

	db.exec(t, "ALTER TABLE items ADD COLUMN added INT")
	src := build()
	ec := conntest.NewEnumContext(1)
	en, err := src.CreateEnumerator(ec, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer en.Close()
	err = en.Run(context.Background())
	want := "table " + db.name + ".items changed after the job was planned: its columns were {id = int, name = string} and are {id = int, name = string, added = int}"
	if err == nil || !strings.Contains(err.Error(), want) || !connector.IsPermanent(err) {
		t.Fatalf("enumerator: %v, want a permanent error with %q", err, want)
	}
	if a := ec.Assigned[0]; len(a) != 0 {
		t.Fatalf("splits handed out: %v", a)
	}
	state, err := json.Marshal(enumState{Prepared: true})
	if err != nil {
		t.Fatal(err)
	}
	restored, err := src.CreateEnumerator(conntest.NewEnumContext(1), state)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if err := restored.Run(context.Background()); err != nil {
		t.Fatalf("restored enumerator: %v", err)
	}
}
