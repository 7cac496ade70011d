package jdbc

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/strait-dev/strait/connectors/internal/conntest"
)

// splitTypesDDL has a column per split type, each with NULLs, repeated values and values
// that need quoting.
const splitTypesDDL = `
CREATE TABLE st (
	id int PRIMARY KEY,
	i8 bigint, dec numeric(12,3), nu numeric, f8 float8, f4 real, m money,
	s varchar(20), c char(4), t text, u uuid,
	d date, ts timestamp, tstz timestamptz
);
INSERT INTO st
SELECT i,
	CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7919) % 1000 - 500 END,
	CASE WHEN i % 13 = 0 THEN NULL ELSE (i % 97) * 1.125 - 40 END,
	CASE WHEN i % 17 = 0 THEN NULL ELSE (i % 50) / 3.0 END,
	CASE WHEN i % 19 = 0 THEN NULL ELSE sqrt(i) * (-1) ^ i END,
	CASE WHEN i % 23 = 0 THEN NULL ELSE (i % 40) / 8.0 END,
	CASE WHEN i % 29 = 0 THEN NULL ELSE ((i % 60) * 2.5)::numeric::money END,
	CASE WHEN i % 7 = 0 THEN NULL ELSE chr(65 + i % 26) || 'é''' || (i % 37) END,
	CASE WHEN i % 9 = 0 THEN NULL ELSE chr(97 + i % 5) END,
	CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN '' ELSE md5(i::text) END,
	CASE WHEN i % 8 = 0 THEN NULL ELSE md5((i % 300)::text)::uuid END,
	CASE WHEN i % 6 = 0 THEN NULL ELSE date '2024-01-01' + (i % 400) END,
	CASE WHEN i % 10 = 0 THEN NULL ELSE timestamp '2024-01-01' + (i % 333) * interval '37 minutes 1.5 seconds' END,
	CASE WHEN i % 12 = 0 THEN NULL ELSE timestamptz '2024-01-01 00:00:00+00' + (i % 250) * interval '1 hour' END
FROM generate_series(1, 1000) i;
ANALYZE st;
`

// TestSourceSplitTypes: every split type, split by fixed partitioning (a query with
// partition_column) and dynamically (table_path with partition_column) on each of
// SeaTunnel's ways (ranges of even width, sampled and queried boundaries, days), reads
// every row exactly once, NULLs of the split column included, in more than one split.
func TestSourceSplitTypes(t *testing.T) {
	url, conn := testDB(t)
	mustExec(t, conn, splitTypesDDL)
	cols := []string{"i8", "dec", "nu", "f8", "f4", "m", "s", "c", "t", "u", "d", "ts", "tstz"}
	modes := []struct{ name, body string }{
		{"fixed", `query = "select * from st"
			partition_num = 4`},
		{"fixed, parallelism", `query = "select * from st where id > 0"`},
		{"dynamic", `table_path = "st"
			split.size = 150`},
		{"dynamic sampled", `table_path = "st"
			split.size = 100
			split.sample-sharding.threshold = 2
			split.inverse-sampling.rate = 7
			split.even-distribution.factor.upper-bound = 0.01
			split.even-distribution.factor.lower-bound = 0.001`},
		{"dynamic charset", `table_path = "st"
			split.size = 100
			split.string_split_mode = charset_based`},
		{"dynamic charset collated", `table_path = "st"
			split.size = 100
			split.string_split_mode = charset_based
			split.string_split_mode_collate = "C.utf8"`},
		{"dynamic queried", `table_path = "st"
			split.size = 120
			split.even-distribution.factor.upper-bound = 0.01
			split.even-distribution.factor.lower-bound = 0.001`},
	}
	for _, col := range cols {
		for _, m := range modes {
			t.Run(col+"/"+m.name, func(t *testing.T) {
				s := mustTestSource(t, srcConf(url, m.body+"\npartition_column = \""+col+"\""), 3)
				ec := conntest.NewEnumContext(3)
				conntest.RunEnumerator(context.Background(), t, s, ec, nil)
				n := 0
				for _, splits := range ec.Assigned {
					n += len(splits)
				}
				if n < 2 {
					t.Errorf("%d splits", n)
				}
				checkSourceIDs(t, srcFlatten(readSource(t, s, 3)), 1000)
			})
		}
	}
}

// TestSourceSplitBounds: bounds of fixed partitioning on a non-integer column keep the
// rows within them (both inclusive), NULLs left out; a string column is read in hash
// buckets.
func TestSourceSplitBounds(t *testing.T) {
	url, conn := testDB(t)
	mustExec(t, conn, splitTypesDDL)
	for _, tc := range []struct {
		col, lower, upper, where string
	}{
		{"dec", "-10", "20.5", "dec between -10 and 20.5"},
		{"d", "2024-02-01", "2024-03-01", "d between '2024-02-01' and '2024-03-01'"},
		{"ts", "2024-01-02 00:00:00", "2024-01-05 12:00:00", "ts between '2024-01-02 00:00:00' and '2024-01-05 12:00:00'"},
	} {
		t.Run(tc.col, func(t *testing.T) {
			s := mustTestSource(t, srcConf(url, fmt.Sprintf(`query = "select * from st"
				partition_column = %q
				partition_lower_bound = %q
				partition_upper_bound = %q
				partition_num = 4`, tc.col, tc.lower, tc.upper)), 2)
			var want int
			if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM st WHERE "+tc.where).Scan(&want); err != nil {
				t.Fatal(err)
			}
			rows := srcFlatten(readSource(t, s, 2))
			seen := map[int64]bool{}
			for _, r := range rows {
				if seen[r.Fields[0].I] {
					t.Errorf("row %d read twice", r.Fields[0].I)
				}
				seen[r.Fields[0].I] = true
			}
			if len(rows) != want || want == 0 {
				t.Errorf("%d rows within the bounds, want %d", len(rows), want)
			}
		})
	}
	// a string column: partition_num hash buckets, the first with the NULLs
	s := mustTestSource(t, srcConf(url, `query = "select * from st"
		partition_column = "s"
		partition_num = 5`), 2)
	ec := conntest.NewEnumContext(2)
	conntest.RunEnumerator(context.Background(), t, s, ec, nil)
	var buckets []srcSplit
	for _, splits := range ec.Assigned {
		for _, sp := range splits {
			var d srcSplit
			if err := json.Unmarshal(sp.Data, &d); err != nil {
				t.Fatal(err)
			}
			buckets = append(buckets, d)
		}
	}
	if len(buckets) != 5 {
		t.Fatalf("%d splits, want 5", len(buckets))
	}
	for _, b := range buckets {
		if b.Hash == nil || b.Mod != 5 || b.Nulls != (*b.Hash == 0) {
			t.Errorf("split %+v", b)
		}
	}
}
