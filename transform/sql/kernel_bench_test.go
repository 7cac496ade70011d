package sql

import (
	"math/rand/v2"
	"testing"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// BenchmarkWhereKernel measures the WHERE clause of BenchmarkSql alone, on a batch that
// stays in the cache.
func BenchmarkWhereKernel(b *testing.B) {
	rt := &types.RowType{Names: []string{"id", "name", "age", "score", "ts"}, Types: []types.DataType{
		types.Of(types.BigInt), types.Of(types.String), types.Of(types.Int), types.Of(types.Double), types.Of(types.Timestamp)}}
	p, err := Compile("select * from t where age > 10 and id % 2 = 0", rt)
	if err != nil {
		b.Fatal(err)
	}
	// random ids and ages, as FakeSource makes them: the conditions hold for rows at random
	rnd := rand.New(rand.NewPCG(1, 2))
	in := row.NewBatch(1024)
	for i := 0; i < 1024; i++ {
		r := in.Add(row.Insert, "t", 5)
		r.Fields[0], r.Fields[1], r.Fields[2] = row.BigIntValue(rnd.Int64()), row.StringValue("x"), row.IntValue(rnd.Int32N(100)+1)
		r.Fields[3], r.Fields[4] = row.DoubleValue(1), row.TimestampValue(0)
	}
	sel := make([]int32, 1024)
	for b.Loop() {
		for i := range sel {
			sel[i] = int32(i)
		}
		_ = p.wsel(&p.fr, in.Rows, sel)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1024), "ns/row")
}
