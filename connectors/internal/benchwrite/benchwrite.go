// Package benchwrite times a sink's writer in a benchmark: one batch written again and
// again, reported as rows per second. It imports no connector, so any connector's tests
// (the Assert sink's among them) can use it.
package benchwrite

import (
	"context"
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// Batches writes batch to w until b.N rows are written, reporting allocations and the rows
// written per second.
func Batches(b *testing.B, w connector.Writer, batch *row.Batch) {
	b.Helper()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	rows := 0
	for rows < b.N {
		if err := w.Write(ctx, batch); err != nil {
			b.Fatal(err)
		}
		rows += batch.Len()
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
