package jdbc

import (
	"context"
	"fmt"
	"testing"

	"github.com/strait-dev/strait/connector"
)

// TestPGSinkAllocatesNothingPerRow: on each PostgreSQL write path, writing a batch of rows
// allocates a few objects per flush at most, never one per row. Rows are encoded into the
// writer's own buffers and the flushes sent from them; an allocation per row would show as
// hundreds per batch here. It counts allocations, not time.
func TestPGSinkAllocatesNothingPerRow(t *testing.T) {
	url, conn := testDB(t)
	ctx := context.Background()
	const perBatch = 1000
	for _, tc := range []struct{ name, opts string }{
		{"insert of arrays", "primary_keys = []"},
		{"copy per flush", fmt.Sprintf("use_copy_statement = true\nbatch_size = %d", copyMinRows)},
		{"copy per checkpoint", "primary_keys = []\nis_exactly_once = true"},
		{"upsert of arrays", "primary_keys = [id]"},
		{"statements per row", "primary_keys = [id]\nenable_upsert = false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, w := openWide(t, url, conn, tc.opts)
			names := make([]string, perBatch)
			for i := range names {
				names[i] = wideName(int64(i))
			}
			batch := wideBatch(perBatch)
			next := int64(0)
			write := func() {
				for j := range batch.Rows {
					setWide(batch.Rows[j].Fields, next, names[j])
					next++
				}
				if err := w.Write(ctx, batch); err != nil {
					t.Fatal(err)
				}
			}
			// the writer's buffers grow to their size over the first flushes
			for range 3 * copyMinRows / perBatch {
				write()
			}
			allocs := testing.AllocsPerRun(20, write)
			if allocs > 20 {
				t.Errorf("a batch of %d rows allocates %.0f objects: one per row or more has appeared", perBatch, allocs)
			}
			t.Logf("%.1f allocations per batch of %d rows", allocs, perBatch)
			// a prepared transaction would hold the table's lock past the test
			info, err := w.PrepareCommit(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			if com, _ := s.CreateCommitter(); com != nil && info != nil {
				if err := com.Commit(ctx, connector.CommitRequest{Infos: [][]byte{info}}); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
