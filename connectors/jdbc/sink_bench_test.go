package jdbc

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// BenchmarkSink writes batches of 1,024 rows (bigint key, text, int) through each write
// path; rows/s is the figure to read.
func BenchmarkSink(b *testing.B) {
	url, conn := testDB(b)
	for _, bc := range []struct{ name, opts string }{
		{"upsert", "primary_keys = [pk_id]"},
		{"copy", "use_copy_statement = true"},
		{"copy_batch_100000", "use_copy_statement = true\nbatch_size = 100000"},
		{"insert", ""},
		{"upsert_exactly_once", "primary_keys = [pk_id]\nis_exactly_once = true"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			mustExec(b, conn, "DROP TABLE IF EXISTS bench; CREATE UNLOGGED TABLE bench (pk_id BIGINT PRIMARY KEY, name TEXT, score INT)")
			opts := bc.opts
			if opts == "" {
				opts = "primary_keys = []"
			}
			s, w := openWriter(b, genConf(url, "bench")+opts, scoreTable(), connector.WriterContext{Job: connector.Job{ID: 1}})
			com, _ := s.CreateCommitter()
			batch := row.NewBatch(1024)
			for i := 0; i < 1024; i++ {
				r := batch.Add(row.Insert, "fake", 3)
				r.Fields[1] = row.StringValue(fmt.Sprintf("name-%d", i))
				r.Fields[2] = row.IntValue(int32(i))
			}
			benchWrites(b, w, com, batch, 16, func(f []row.Value, id int64) { f[0] = row.BigIntValue(id) })
		})
	}
}

// benchWrites writes b.N times batch with w, its rows filled by fill with ids counting from
// 0 before each write, prepares a checkpoint every `every` batches and after the last and
// commits it with com (when the sink has a committer), and reports the rows a second.
func benchWrites(b *testing.B, w connector.Writer, com connector.Committer, batch *row.Batch, every int, fill func(f []row.Value, id int64)) {
	b.Helper()
	ctx := context.Background()
	next := int64(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range batch.Rows {
			fill(batch.Rows[j].Fields, next)
			next++
		}
		if err := w.Write(ctx, batch); err != nil {
			b.Fatal(err)
		}
		if i%every == every-1 || i == b.N-1 {
			info, err := w.PrepareCommit(ctx, int64(i+1))
			if err != nil {
				b.Fatal(err)
			}
			if com != nil && info != nil {
				if err := com.Commit(ctx, connector.CommitRequest{Infos: [][]byte{info}}); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N*batch.Len())/b.Elapsed().Seconds(), "rows/s")
}

// wideTable is the shape of the PostgreSQL → PostgreSQL comparison: bigint, text, double,
// timestamptz.
func wideTable() *catalog.Table {
	return catalog.FromRowType(catalog.TablePath{Table: "fake"}, &types.RowType{
		Names: []string{"id", "name", "v", "ts"},
		Types: []types.DataType{types.Of(types.BigInt), types.Of(types.String), types.Of(types.Double), types.Of(types.Timestamp)},
	})
}

const wideDDL = "DROP TABLE IF EXISTS wide; CREATE TABLE wide (id BIGINT, name TEXT, v DOUBLE PRECISION, ts TIMESTAMPTZ)"

var wideEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// openWide creates the table wide, id its primary key when opts make it the key, and opens
// a writer of a sink generating its statements for it, opts added to its options.
func openWide(t testing.TB, url string, conn *pgx.Conn, opts string) (*Sink, connector.Writer) {
	t.Helper()
	ddl := wideDDL
	if strings.Contains(opts, "primary_keys = [id]") {
		ddl += "; ALTER TABLE wide ADD PRIMARY KEY (id)"
	}
	mustExec(t, conn, ddl)
	return openWriter(t, genConf(url, "wide")+opts+"\n", wideTable(), connector.WriterContext{Job: connector.Job{ID: 1}})
}

// wideBatch is a batch of n rows of wideTable, for setWide to fill.
func wideBatch(n int) *row.Batch {
	batch := row.NewBatch(n)
	for range n {
		batch.Add(row.Insert, "fake", 4)
	}
	return batch
}

// setWide sets the fields of a row of wideTable to those of row id, named name.
func setWide(f []row.Value, id int64, name string) {
	f[0] = row.BigIntValue(id)
	f[1] = row.StringValue(name)
	f[2] = row.DoubleValue(float64(id) / 7)
	f[3] = row.TimestampValue(wideEpoch.Add(time.Duration(id) * time.Second).UnixNano())
}

// BenchmarkSinkDefaults writes rows of wideTable at SeaTunnel's defaults (batch_size 1000,
// auto_commit on) in batches of 1,000 rows as a source hands them over, with a checkpoint
// every 100,000 rows, through each path; pgx-copyfrom is the anchor: pgx streaming the
// same typed rows into one CopyFrom. rows/s against the anchor's is the ratio to read.
func BenchmarkSinkDefaults(b *testing.B) {
	url, conn := testDB(b)
	ctx := context.Background()
	const perBatch = 1000
	for _, bc := range []struct{ name, opts string }{
		{"insert", ""},
		{"copy", "use_copy_statement = true"},
		{"copy_batch_100000", "use_copy_statement = true\nbatch_size = 100000"},
		{"exactly_once", "is_exactly_once = true"},
		{"upsert", "primary_keys = [id]"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s, w := openWide(b, url, conn, bc.opts)
			com, _ := s.CreateCommitter()
			benchWrites(b, w, com, wideBatch(perBatch), 100, func(f []row.Value, id int64) { setWide(f, id, wideName(id)) })
			b.ReportMetric(peakRSSMB(b), "peak-RSS-MB")
		})
	}
	b.Run("pgx-copyfrom", func(b *testing.B) {
		mustExec(b, conn, wideDDL)
		total := int64(b.N) * perBatch
		next := int64(0)
		vals := make([]any, 4)
		src := pgx.CopyFromFunc(func() ([]any, error) {
			if next == total {
				return nil, nil
			}
			vals[0], vals[1], vals[2], vals[3] = next, wideName(next), float64(next)/7, wideEpoch.Add(time.Duration(next)*time.Second)
			next++
			return vals, nil
		})
		b.ResetTimer()
		n, err := conn.CopyFrom(ctx, pgx.Identifier{"wide"}, []string{"id", "name", "v", "ts"}, src)
		if err != nil || n != total {
			b.Fatalf("%d rows, %v", n, err)
		}
		b.StopTimer()
		b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "rows/s")
	})
}

// BenchmarkSinkCopyPerBatch is what one pgx CopyFrom per 1,000 rows costs, each its own
// transaction and waited for: the server's share of a flush that the sink's pipelining
// cannot hide.
func BenchmarkSinkCopyPerBatch(b *testing.B) {
	_, conn := testDB(b)
	ctx := context.Background()
	mustExec(b, conn, wideDDL)
	rows := make([][]any, 1000)
	for i := range rows {
		rows[i] = make([]any, 4)
	}
	next := int64(0)
	for i := 0; i < b.N; i++ {
		for _, r := range rows {
			r[0], r[1], r[2], r[3] = next, wideName(next), float64(next)/7, wideEpoch.Add(time.Duration(next)*time.Second)
			next++
		}
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{"wide"}, []string{"id", "name", "v", "ts"}, pgx.CopyFromRows(rows)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(rows))/b.Elapsed().Seconds(), "rows/s")
}

// peakRSSMB is the test process's peak resident set so far, in MB.
func peakRSSMB(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return float64(ru.Maxrss) / 1024 // kB on Linux
}

func wideName(i int64) string { return "name-" + strconv.FormatInt(i, 10) }
