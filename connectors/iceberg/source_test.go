package iceberg

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

func buildSource(t testing.TB, conf string) (*Source, error) {
	t.Helper()
	build, _, ok := connector.LookupSource("Iceberg")
	if !ok {
		t.Fatal("the Iceberg source is not registered")
	}
	src, err := build(&connector.SourceContext{Context: context.Background(), Options: conntest.Options(t, conf, "source[0] Iceberg"),
		Job: connector.Job{ID: 1, Mode: connector.Batch}, Parallelism: 2})
	if err != nil {
		return nil, err
	}
	return src.(*Source), nil
}

// fillTable writes rows [from, to) of allTypes through the sink, a checkpoint per call
// of a separate writer, and returns the sink.
func fillTable(t *testing.T, conf string, chunks ...[2]int) *Sink {
	t.Helper()
	s := mustSink(t, conf, 1, allTypes())
	for i, c := range chunks {
		w := newWriter(t, s, 0)
		if err := w.Write(context.Background(), batchOf("fake", c[0], c[1], allTypesRow)); err != nil {
			t.Fatal(err)
		}
		commit(t, s, int64(i+1), checkpoint(t, int64(i+1), w))
	}
	return s
}

func sortedRows(parts [][]row.Row) [][]row.Value {
	var out [][]row.Value
	for _, p := range parts {
		for _, r := range p {
			out = append(out, r.Fields)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a][0].I < out[b][0].I })
	return out
}

// The source reads every row the sink wrote, of every type, split by data file over two
// readers; without a schema its columns are the table's.
func TestSourceReadsTheTable(t *testing.T) {
	conf := hadoopConf(t, "src") + `iceberg.table.partition-keys = c_boolean
`
	fillTable(t, conf, [2]int{0, 30}, [2]int{30, 70})
	// the table's own columns: tinyint and smallint come back as int, as Iceberg keeps them
	src, err := buildSource(t, conf)
	if err != nil {
		t.Fatal(err)
	}
	if got := src.table.Columns[5].Type.String(); got != "int" {
		t.Errorf("c_tinyint is read as %s, want int", got)
	}
	// the declared schema: every type as written
	in := allTypes()
	var fields []string
	for _, c := range in.Columns {
		fields = append(fields, c.Name+" = \""+c.Type.String()+"\"")
	}
	src, err = buildSource(t, conf+"schema { fields { "+strings.Join(fields, "\n")+" } }\n")
	if err != nil {
		t.Fatal(err)
	}
	parts, err := conntest.Rows(context.Background(), src, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts[0]) == 0 || len(parts[1]) == 0 {
		t.Errorf("readers read %d and %d rows; want both to have files", len(parts[0]), len(parts[1]))
	}
	sameRows(t, in, sortedRows(parts), allTypesRow, 70)
}

// use_snapshot_id reads an older snapshot; start_snapshot_id reads what came after one.
func TestSourceSnapshotOptions(t *testing.T) {
	conf := hadoopConf(t, "snaps")
	s := fillTable(t, conf, [2]int{0, 10}, [2]int{10, 25})
	snaps := loadTable(t, s).Metadata().Snapshots()
	first := snaps[0].SnapshotID
	for _, tc := range []struct {
		extra    string
		from, to int
	}{
		{"", 0, 25},
		{"use_snapshot_id = " + itoa(first), 0, 10},
		{"use_snapshot_timestamp = " + itoa(snaps[0].TimestampMs), 0, 10},
		{"start_snapshot_id = " + itoa(first), 10, 25},
		{"start_snapshot_id = " + itoa(first) + "\nend_snapshot_id = " + itoa(snaps[1].SnapshotID), 10, 25},
	} {
		src, err := buildSource(t, conf+"schema { fields { id = bigint } }\n"+tc.extra+"\n")
		if err != nil {
			t.Fatal(err)
		}
		parts, err := conntest.Rows(context.Background(), src, 1)
		if err != nil {
			t.Fatalf("%s: %v", tc.extra, err)
		}
		got := sortedRows(parts)
		if len(got) != tc.to-tc.from || len(got) > 0 && got[0][0].I != int64(tc.from) {
			t.Errorf("%q: %d rows from %v, want %d..%d", tc.extra, len(got), got, tc.from, tc.to)
		}
	}
	if _, err := buildSource(t, conf+"use_snapshot_id = 1\nuse_snapshot_timestamp = 2\n"); err == nil || !strings.Contains(err.Error(), "use_snapshot") {
		t.Errorf("two snapshots named: %v", err)
	}
	if _, err := buildSource(t, conf+"schema { fields { nope = int } }\n"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("a column the table lacks: %v", err)
	}
}

// A reader restored from its snapshot goes on after the rows it emitted: none twice, none lost.
func TestSourceReaderRestore(t *testing.T) {
	ctx := context.Background()
	conf := hadoopConf(t, "restore")
	fillTable(t, conf, [2]int{0, 40}, [2]int{40, 90})
	src, err := buildSource(t, conf+"schema { fields { id = bigint, c_string = string } }\n")
	if err != nil {
		t.Fatal(err)
	}
	ec := conntest.NewEnumContext(1)
	en := conntest.RunEnumerator(ctx, t, src, ec, nil)
	state, _ := en.Snapshot(1)
	var es enumState
	if err := json.Unmarshal(state, &es); err != nil || es.Snapshot == 0 || len(es.Assigned) != 2 {
		t.Fatalf("enumerator state %s (%v)", state, err)
	}
	seen := map[int64]int{}
	read := func(r connector.Reader, max int) (done bool) {
		for n := 0; n < max; {
			b := row.NewBatch(7)
			d := conntest.Poll(ctx, t, r, b)
			for _, rw := range b.Rows {
				seen[rw.Fields[0].I]++
				n++
			}
			b.Release()
			if d {
				return true
			}
		}
		return false
	}
	r1 := conntest.OpenReader(t, src, connector.ReaderContext{Parallelism: 1}, ec.Assigned[0])
	read(r1, 20)
	splits, err := r1.SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	r1.Close()
	r2 := conntest.OpenReader(t, src, connector.ReaderContext{Parallelism: 1}, splits)
	for !read(r2, 1000) {
	}
	r2.Close()
	conntest.EachOnce(t, seen, 90)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
