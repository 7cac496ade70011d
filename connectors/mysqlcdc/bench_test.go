package mysqlcdc

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/binlog"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

// benchRows is the size of the benchmarks' log: as many inserts, then as many updates.
const benchRows = 50_000

// benchLog is a stretch of the test server's log holding benchRows inserts and benchRows
// updates of a table of the benchmark's own.
type benchLog struct {
	db               *testDB
	file             string
	from, to         uint32
	changes, ofTable int
}

// writeBenchLog writes the benchmarks' changes: one transaction inserting benchRows rows and
// one updating each of them (the server cuts both into rows events of about 8 KiB).
func writeBenchLog(b *testing.B) *benchLog {
	b.Helper()
	db := newTestDB(b)
	db.exec(b, "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(32), score INT, at DATETIME(6), amount DECIMAL(12,2))")
	file, from := db.logEnd(b)
	db.exec(b, fmt.Sprintf("INSERT INTO t SELECT seq, CONCAT('name ', seq), seq %% 1000, '2026-01-02 03:04:05.123456' + INTERVAL seq SECOND, seq / 100 FROM seq_1_to_%d", benchRows),
		"UPDATE t SET score = score + 1, name = CONCAT(name, '+')")
	toFile, to := db.logEnd(b)
	if toFile != file {
		b.Skipf("the server rotated its log during the benchmark's writes (%s to %s); run it again", file, toFile)
	}
	return &benchLog{db: db, file: file, from: from, to: to, ofTable: 2 * benchRows}
}

// BenchmarkCDCThroughput reads the benchmark's stretch of the log through the MySQL-CDC
// source (startup.mode specific, stop.mode specific) into a sink that discards the rows, and
// BenchmarkCDCThroughput/binlog reads it with package binlog alone (dump, decode, every
// row image), the anchor: both report changes per second, side by side.
func BenchmarkCDCThroughput(b *testing.B) {
	l := writeBenchLog(b)
	b.Run("binlog", func(b *testing.B) {
		for b.Loop() {
			l.changes = bareBinlogLoop(b, l)
		}
		b.ReportMetric(float64(l.changes)*float64(b.N)/b.Elapsed().Seconds(), "changes/s")
	})
	b.Run("source", func(b *testing.B) {
		conf := l.db.conf("t", fmt.Sprintf(`startup.mode = specific
startup.specific-offset.file = %q
startup.specific-offset.pos = %d
stop.mode = specific
stop.specific-offset.file = %q
stop.specific-offset.pos = %d`, l.file, l.from, l.file, l.to))
		var n int
		for b.Loop() {
			n = sourceLoop(b, mustSource(b, conf, connector.Streaming))
		}
		if n != l.ofTable {
			b.Fatalf("the source emitted %d changes of the table, want %d", n, l.ofTable)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "changes/s")
	})
}

// sourceLoop runs the source's enumerator and reader until the reader ends, counting the
// changes it emits (an update's two rows count once) and dropping the rows.
func sourceLoop(b *testing.B, src *Source) int {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ec := conntest.NewEnumContext(1)
	en := conntest.RunEnumerator(ctx, b, src, ec, nil)
	if err := en.HandleSplitRequest(0); err != nil {
		b.Fatal(err)
	}
	r, err := src.CreateReader(connector.ReaderContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: 1}})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	r.AddSplits(ec.Assigned[0])
	batch := row.NewBatch(1024)
	defer batch.Release()
	changes := 0
	for {
		batch.Reset()
		done := conntest.Poll(ctx, b, r, batch)
		for i := range batch.Rows {
			if batch.Rows[i].Kind != row.UpdateBefore {
				changes++
			}
		}
		if done {
			return changes
		}
	}
}

// bareBinlogLoop reads the stretch of the log with package binlog: every event decoded and
// every row image of every table decoded into values, as a program of its own would.
func bareBinlogLoop(b *testing.B, l *benchLog) int {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, err := binlog.Dial(ctx, binlog.Config{Addr: l.db.addr, User: l.db.user, Password: l.db.pass})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	st, err := conn.StartDump(ctx, binlog.DumpOptions{ServerID: 6401}, binlog.Start{File: l.file, Pos: l.from})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	dec := binlog.NewDecoder()
	var a, c []binlog.Value
	changes := 0
	for {
		raw, err := st.NextRaw()
		if err != nil {
			b.Fatal(err)
		}
		ev, err := dec.Decode(raw)
		if err != nil {
			b.Fatal(err)
		}
		if rows, ok := ev.Data.(*binlog.Rows); ok {
			if cap(a) < rows.Columns {
				a, c = make([]binlog.Value, rows.Columns), make([]binlog.Value, rows.Columns)
			}
			for rows.More() {
				if err := rows.Next(a[:rows.Columns], c[:rows.Columns]); err != nil {
					b.Fatal(err)
				}
				if rows.Table.Table == "t" && rows.Table.Schema == l.db.name {
					changes++
				}
			}
		}
		if !ev.Artificial() && ev.Type != binlog.RotateEvent && ev.LogPos >= l.to {
			return changes
		}
	}
}
