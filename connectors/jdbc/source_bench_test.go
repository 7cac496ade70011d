package jdbc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/row"
)

// BenchmarkSourceRead reads a table of 200,000 rows of five columns (bigint, int, double,
// text, timestamp) and reports rows per second. The pgx case is the baseline of pgx's own
// row scanning into Go values, over the same connection settings.
func BenchmarkSourceRead(b *testing.B) {
	const rows = 200_000
	url, conn := testDB(b)
	ctx := context.Background()
	mustExec(b, conn, `CREATE TABLE bench (id bigint PRIMARY KEY, n int, f float8, s text, ts timestamp);
		INSERT INTO bench SELECT i, i % 1000, i / 7.0, 'name-' || i, timestamp '2024-01-01' + i * interval '1 second'
		FROM generate_series(1, 200000) i;
		ANALYZE bench`)
	for _, tc := range []struct {
		name string
		p    int
		opts string
	}{
		{"strait/p=1/one-split", 1, "split.size = 1000000"},
		{"strait/p=1/split.size=20000", 1, "split.size = 20000"},
		{"strait/p=2/split.size=20000", 2, "split.size = 20000"},
		// partition_column: one split on one core against two splits on two
		{"strait/partition_column/p=1/partition_num=1", 1, "query = \"SELECT * FROM bench\"\npartition_column = id\npartition_num = 1"},
		{"strait/partition_column/p=2/partition_num=2", 2, "query = \"SELECT * FROM bench\"\npartition_column = id\npartition_num = 2"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			opts := tc.opts
			if !strings.HasPrefix(opts, "query") {
				opts = "table_path = \"bench\"\n" + opts
			}
			s := mustTestSource(b, srcConf(url, opts), tc.p)
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				n := 0
				err := conntest.ReadAll(ctx, s, connector.Job{Mode: connector.Batch}, tc.p, row.DefaultBatchSize, func(_ int, bt *row.Batch) error {
					n += bt.Len()
					return nil
				})
				if err != nil || n != rows {
					b.Fatalf("%d rows, %v", n, err)
				}
			}
			b.ReportMetric(float64(rows*b.N)/time.Since(start).Seconds(), "rows/s")
		})
	}
	b.Run("pgx-scan", func(b *testing.B) {
		start := time.Now()
		for i := 0; i < b.N; i++ {
			rs, err := conn.Query(ctx, "SELECT * FROM bench")
			if err != nil {
				b.Fatal(err)
			}
			var (
				id  int64
				n   int32
				f   float64
				s   string
				ts  time.Time
				cnt int
			)
			for rs.Next() {
				if err := rs.Scan(&id, &n, &f, &s, &ts); err != nil {
					b.Fatal(err)
				}
				cnt++
			}
			if rs.Err() != nil || cnt != rows {
				b.Fatalf("%d rows, %v", cnt, rs.Err())
			}
		}
		b.ReportMetric(float64(rows*b.N)/time.Since(start).Seconds(), "rows/s")
	})
}

func testColumn(oid uint32, typmod int32, narrow bool) pgwire.Column {
	return pgwire.ColumnOf(pgconn.FieldDescription{Name: "c", DataTypeOID: oid, TypeModifier: typmod}, pgwire.TypeOptions{Narrow: narrow, UnboundedScale: 18})
}

// BenchmarkDecodeRows measures decoding alone: rows of the five columns of
// BenchmarkSourceRead, in the wire format the source asks for, into batches.
func BenchmarkDecodeRows(b *testing.B) {
	cols := []pgwire.Column{
		testColumn(pgtype.Int8OID, -1, true), testColumn(pgtype.Int4OID, -1, true), testColumn(pgtype.Float8OID, -1, true),
		testColumn(pgtype.TextOID, -1, true), testColumn(pgtype.TimestampOID, -1, true),
	}
	m := pgtype.NewMap()
	enc := func(oid uint32, v any) []byte {
		buf, err := m.Encode(oid, pgtype.BinaryFormatCode, v, nil)
		if err != nil {
			b.Fatal(err)
		}
		return buf
	}
	vals := [][]byte{enc(pgtype.Int8OID, int64(123456)), enc(pgtype.Int4OID, int32(456)), enc(pgtype.Float8OID, 17636.57),
		[]byte("name-123456"), enc(pgtype.TimestampOID, time.Date(2024, 1, 2, 10, 17, 36, 0, time.UTC))}
	var d pgwire.Decoder
	batch := row.NewBatch(row.DefaultBatchSize)
	d.Batch = batch
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if batch.Full() {
			batch.Reset()
		}
		r := batch.Add(row.Insert, "t", len(cols))
		for j := range cols {
			if err := d.Decode(&cols[j], vals[j], &r.Fields[j]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
