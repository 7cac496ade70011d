package redis

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

// The sink beside go-redis alone doing the same server work: batches of 1,000 rows of six
// fields SET as JSON under keys bench:<id>, one pipeline a batch, in database 14 (emptied).
// Run with -cpuprofile to see where a row's time goes.

var benchTable = conntest.Table("t", "id", "bigint", "name", "string", "city", "string", "score", "double", "active", "boolean", "note", "string")

func benchClient(b *testing.B) *goredis.Client {
	u := os.Getenv("STRAIT_TEST_REDIS")
	if u == "" {
		b.Fatal("STRAIT_TEST_REDIS is not set: run with make (make redis starts the server)")
	}
	o, err := goredis.ParseURL(u)
	if err != nil {
		b.Fatal(err)
	}
	o.DB = 14
	c := goredis.NewClient(o)
	b.Cleanup(func() { c.FlushDB(context.Background()); c.Close() })
	if err := c.FlushDB(context.Background()).Err(); err != nil {
		b.Fatal(err)
	}
	return c
}

func benchBatch(n int) *row.Batch {
	bt := row.NewBatch(n)
	for i := range n {
		r := bt.Add(row.Insert, benchTable.ID(), 6)
		r.Fields[0], r.Fields[1], r.Fields[2] = row.BigIntValue(int64(i)), row.StringValue(fmt.Sprintf("name-%07d", i)), row.StringValue("Lisbon")
		r.Fields[3], r.Fields[4], r.Fields[5] = row.DoubleValue(float64(i%1000)+0.5), row.BoolValue(i%2 == 0), row.StringValue("benchmark row")
	}
	return bt
}

func BenchmarkSink(b *testing.B) {
	c := benchClient(b)
	host, port, _ := net.SplitHostPort(c.Options().Addr)
	s, err := conntest.BuildSink(b, "Redis", fmt.Sprintf(`host = %q
port = %s
auth = %q
db_num = 14
data_type = key
key = "bench:${id}"
support_custom_key = true
batch_size = 1000`, host, port, c.Options().Password), benchTable)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	w, err := s.CreateWriter(connector.WriterContext{Parallelism: 1, Job: connector.Job{ID: 7}, Epoch: 1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close(ctx)
	bt := benchBatch(1000)
	defer bt.Release()
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Write(ctx, bt); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.PrepareCommit(ctx, 1); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkBareSet(b *testing.B) {
	c := benchClient(b)
	ctx := context.Background()
	bt := benchBatch(1000)
	defer bt.Release()
	var buf []byte
	rt := benchTable.RowType()
	b.ReportAllocs()
	for b.Loop() {
		p := c.Pipeline()
		for i := range bt.Rows {
			buf = row.AppendJSONObject(buf[:0], bt.Rows[i].Fields, rt)
			p.Set(ctx, "bench:"+strconv.Itoa(i), string(buf), 0)
		}
		if _, err := p.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "rows/s")
}
