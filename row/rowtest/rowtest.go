// Package rowtest makes the batches the row codec's and the exchange's tests and benchmarks
// send: rows of every common kind, deterministic, of any length.
package rowtest

import (
	"time"

	"github.com/strait-dev/strait/row"
)

// Names are the strings of the name column, of several lengths.
var Names = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy-ann"}

// Batch builds n insert rows of (bigint id, string name, int age, double score, timestamp ts)
// from table "fake".
func Batch(n int) *row.Batch {
	b := row.NewBatch(n)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for i := 0; i < n; i++ {
		r := b.Add(row.Insert, "fake", 5)
		r.Fields[0] = row.BigIntValue(int64(i) * 7919)
		r.Fields[1] = row.StringValue(Names[i%len(Names)])
		r.Fields[2] = row.IntValue(int32(18 + i%60))
		r.Fields[3] = row.DoubleValue(float64(i) * 1.25)
		r.Fields[4] = row.TimestampValue(base + int64(i)*int64(time.Millisecond))
	}
	return b
}
