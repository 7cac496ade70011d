package sql_test

import (
	"context"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/internal/cputime"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/transformtest"
)

var benchNames = []string{"Joy Ding", "May Ding", "Kin Dom", "LeBron Ding", "Wang DingCC", "Zu DingDD", "Zhang DingEE", "Lin Qiang"}

func benchRow(i int) []row.Value {
	return []row.Value{
		row.BigIntValue(int64(i)),
		row.StringValue(benchNames[i%len(benchNames)]),
		row.IntValue(int32(i * 7 % 60)),
		row.DoubleValue(float64(i%1000) / 7),
		row.TimestampValue(int64(i) * 1_000_000_000),
	}
}

// benchBatches measures tr on batches of 1024 rows; filling the input batch is not timed.
// Allocations are not reported here (reading the memory statistics at every timer stop
// would cost more than the batch); TestAllocations counts them.
func benchBatches(b *testing.B, tab *catalog.Table, tr connector.Transform) {
	const n, group = row.DefaultBatchSize, 1
	tmpl := make([][]row.Value, n)
	for i := range tmpl {
		tmpl[i] = benchRow(i)
	}
	ctx := context.Background()
	id := tab.ID()
	ins := make([]*row.Batch, group)
	rows := 0
	var cpu time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		for g := range ins {
			in := row.NewBatch(n)
			for i := range tmpl {
				r := in.Add(row.Insert, id, len(tmpl[i]))
				copy(r.Fields, tmpl[i])
			}
			ins[g] = in
		}
		b.StartTimer()
		c0 := cputime.Used()
		for _, in := range ins {
			out, err := tr.Process(ctx, in)
			if err != nil {
				b.Fatal(err)
			}
			out.Release()
		}
		cpu += cputime.Used() - c0
		rows += n * group
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	if cpu > 0 {
		// on a busy machine wall time overstates the cost; CPU time is what a core pays
		b.ReportMetric(float64(rows)/cpu.Seconds(), "rows/cpu-s")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(rows, 1)), "ns/row")
}

// BenchmarkSql runs the brief's query over batches of 1024 rows of (bigint id, string name,
// int age, double score, timestamp ts) and reports rows/s. About 41 % of the rows pass the
// WHERE clause.
func BenchmarkSql(b *testing.B) {
	tab := transformtest.Table(b, "id = bigint, name = string, age = int, score = double, ts = timestamp")
	tab.Path.Table = "t"
	cases := []struct{ name, query string }{
		{"project_filter", "select id, name, age * 2 as a2, score + 1.5 as s, upper(name) as un from t where age > 10 and id % 2 = 0"},
		{"filter_in_place", "select * from t where age > 10 and id % 2 = 0"},
		{"project_only", "select id, name, age * 2 as a2, score + 1.5 as s from t"},
		{"copy_only", "select id, name, age, score from t"},
		{"upper_only", "select id, name, age, score, upper(name) as un from t"},
		{"identity", "select * from t"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			tr := transformtest.MustBuild(b, "Sql", `query = "`+c.query+`"`, tab)
			benchBatches(b, tab, tr)
		})
	}
}
