package jdbc

import (
	"context"
	"fmt"
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// BenchmarkSink writes batches of 1,024 rows (bigint key, text, int) through each write
// path; rows/s is the figure to read.
func BenchmarkSink(b *testing.B) {
	url, conn := testDB(b)
	ctx := context.Background()
	for _, bc := range []struct{ name, opts string }{
		{"upsert", "primary_keys = [pk_id]"},
		{"copy", "use_copy_statement = true"},
		{"insert", ""},
		{"upsert_exactly_once", "primary_keys = [pk_id]\nis_exactly_once = true"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS bench; CREATE UNLOGGED TABLE bench (pk_id BIGINT PRIMARY KEY, name TEXT, score INT)"); err != nil {
				b.Fatal(err)
			}
			opts := bc.opts
			if opts == "" {
				opts = "primary_keys = []"
			}
			s, err := newSink(b, genConf(url, "bench")+opts, scoreTable())
			if err != nil {
				b.Fatal(err)
			}
			w, err := s.CreateWriter(connector.WriterContext{Job: connector.Job{ID: 1}}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close(ctx)
			com, _ := s.CreateCommitter()
			batch := row.NewBatch(1024)
			for i := 0; i < 1024; i++ {
				r := batch.Add(row.Insert, "fake", 3)
				r.Fields[1] = row.StringValue(fmt.Sprintf("name-%d", i))
				r.Fields[2] = row.IntValue(int32(i))
			}
			next := int64(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := range batch.Rows {
					batch.Rows[j].Fields[0] = row.BigIntValue(next)
					next++
				}
				if err := w.Write(ctx, batch); err != nil {
					b.Fatal(err)
				}
				if i%16 == 15 || i == b.N-1 {
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
			b.ReportMetric(float64(b.N*1024)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
