package jdbc

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
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
			ddl := wideDDL
			if strings.Contains(tc.opts, "[id]") {
				ddl += "; ALTER TABLE wide ADD PRIMARY KEY (id)"
			}
			if _, err := conn.Exec(ctx, ddl); err != nil {
				t.Fatal(err)
			}
			s, w := openWriter(t, genConf(url, "wide")+tc.opts+"\n", wideTable(), connector.WriterContext{Job: connector.Job{ID: 1}})
			names := make([]string, perBatch)
			for i := range names {
				names[i] = wideName(int64(i))
			}
			batch := row.NewBatch(perBatch)
			for range perBatch {
				batch.Add(row.Insert, "fake", 4)
			}
			next := int64(0)
			write := func() {
				for j := range batch.Rows {
					f := batch.Rows[j].Fields
					f[0] = row.BigIntValue(next)
					f[1] = row.StringValue(names[j])
					f[2] = row.DoubleValue(float64(next) / 7)
					f[3] = row.TimestampValue(wideEpoch.Add(time.Duration(next) * time.Second).UnixNano())
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
