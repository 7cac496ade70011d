package e2e

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"
	icecat "github.com/apache/iceberg-go/catalog"
	_ "github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"
)

// SeaTunnel's Iceberg end-to-end configs (testdata/seatunnel-e2e/iceberg), run unchanged by
// strait run with the checks of its IcebergSinkIT, IcebergSinkWithBranchIT and
// IcebergSourceIT. Their Hadoop warehouses are folders under /tmp/seatunnel/iceberg, emptied
// before each run.

// icebergTable loads a table of a Hadoop warehouse folder.
func icebergTable(t *testing.T, warehouse string, ns, name string) *table.Table {
	t.Helper()
	cat, err := icecat.Load(context.Background(), "e2e", ice.Properties{"type": "hadoop", "warehouse": "file://" + warehouse})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(context.Background(), table.Identifier{ns, name})
	if err != nil {
		t.Fatalf("load %s.%s from %s: %v", ns, name, warehouse, err)
	}
	return tbl
}

// icebergRows counts the rows of a table's branch (main when ref is empty) with
// iceberg-go's scan.
func icebergRows(t *testing.T, tbl *table.Table, ref string) int64 {
	t.Helper()
	scan := tbl.Scan()
	if ref != "" {
		var err error
		if scan, err = scan.UseRef(ref); err != nil {
			t.Fatalf("ref %s: %v", ref, err)
		}
	}
	_, recs, err := scan.ToArrowRecords(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for rec, err := range recs {
		if err != nil {
			t.Fatal(err)
		}
		n += rec.NumRows()
		rec.Release()
	}
	return n
}

func TestSeaTunnelIcebergSink(t *testing.T) {
	const warehouse = "/tmp/seatunnel/iceberg/hadoop-sink/"
	for _, tc := range []struct {
		it, config, branch string
	}{
		{"IcebergSinkIT.testInsertAndCheckDataE2e", "fake_to_iceberg.conf", ""},
		{"IcebergSinkWithBranchIT.testInsertAndCheckDataE2e", "fake_to_iceberg_with_branch.conf", "commit-branch"},
	} {
		t.Run(tc.config, func(t *testing.T) {
			if err := os.RemoveAll(warehouse); err != nil {
				t.Fatal(err)
			}
			code, out := run(t, "run", seatunnel("iceberg", tc.config))
			checkRun(t, tc.it, code, out, 0, "Total Read Count : 100", "Total Write Count : 100")
			tbl := icebergTable(t, warehouse, "seatunnel_namespace", "iceberg_sink_table")
			if tc.branch != "" {
				if tbl.SnapshotByName(tc.branch) == nil {
					t.Fatalf("%s: no branch %s", tc.it, tc.branch)
				}
				if snap := tbl.CurrentSnapshot(); snap != nil {
					t.Errorf("%s: main has snapshot %d; the rows go to the branch", tc.it, snap.SnapshotID)
				}
			}
			if n := icebergRows(t, tbl, tc.branch); n != 100 {
				t.Fatalf("%s: %d rows in the table, want 100", tc.it, n)
			}
			// a bounded job commits once, at its final checkpoint, naming it
			snaps := tbl.Metadata().Snapshots()
			if len(snaps) != 1 || snaps[0].Summary.Properties["strait.job-id"] == "" || snaps[0].Summary.Properties["strait.checkpoint-id"] == "" {
				t.Errorf("%s: snapshots %+v, want one naming the job and checkpoint", tc.it, snaps)
			}
			if spec := tbl.Spec(); spec.NumFields() != 1 || spec.Field(0).Name != "c_timestamp" {
				t.Errorf("%s: partition spec %v, want identity(c_timestamp)", tc.it, spec)
			}
		})
	}
}

// TestSeaTunnelIcebergSource writes IcebergSourceIT's table (17 columns, 100 rows with f1
// 0..99, a data file every 10 rows) and runs iceberg_source.conf, whose Assert checks f1.
// SeaTunnel's test writes Avro data files; these are Parquet, which iceberg-go reads.
func TestSeaTunnelIcebergSource(t *testing.T) {
	const warehouse = "/tmp/seatunnel/iceberg/hadoop/"
	ctx := context.Background()
	if err := os.RemoveAll(warehouse); err != nil {
		t.Fatal(err)
	}
	cat, err := icecat.Load(ctx, "seatunnel", ice.Properties{"type": "hadoop", "warehouse": "file://" + warehouse})
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateNamespace(ctx, table.Identifier{"database1"}, nil); err != nil {
		t.Fatal(err)
	}
	opt := func(id int, name string, typ ice.Type) ice.NestedField {
		return ice.NestedField{ID: id, Name: name, Type: typ}
	}
	sc := ice.NewSchema(0,
		opt(1, "f1", ice.PrimitiveTypes.Int64), opt(2, "f2", ice.PrimitiveTypes.Bool), opt(3, "f3", ice.PrimitiveTypes.Int32),
		opt(4, "f4", ice.PrimitiveTypes.Int64), opt(5, "f5", ice.PrimitiveTypes.Float32), opt(6, "f6", ice.PrimitiveTypes.Float64),
		opt(7, "f7", ice.PrimitiveTypes.Date), opt(8, "f8", ice.PrimitiveTypes.Time), opt(9, "f9", ice.PrimitiveTypes.TimestampTz),
		opt(10, "f10", ice.PrimitiveTypes.Timestamp), opt(11, "f11", ice.PrimitiveTypes.String), opt(12, "f12", ice.FixedTypeOf(10)),
		opt(13, "f13", ice.PrimitiveTypes.Binary), opt(14, "f14", ice.DecimalTypeOf(19, 9)),
		opt(15, "f15", &ice.ListType{ElementID: 100, Element: ice.PrimitiveTypes.Int32}),
		opt(16, "f16", &ice.MapType{KeyID: 200, KeyType: ice.PrimitiveTypes.String, ValueID: 300, ValueType: ice.PrimitiveTypes.Int32}),
		opt(17, "f17", &ice.StructType{FieldList: []ice.NestedField{{ID: 400, Name: "f17_a", Type: ice.PrimitiveTypes.String, Required: true}}}),
	)
	tbl, err := cat.CreateTable(ctx, table.Identifier{"database1", "source"}, sc)
	if err != nil {
		t.Fatal(err)
	}
	asc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	dec, _ := new(big.Int).SetString("1000000000000000001", 10) // 1000000000.000000001
	for start := 0; start < 100; start += 10 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, asc)
		for i := start; i < start+10; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.BooleanBuilder).Append(true)
			b.Field(2).(*array.Int32Builder).Append(2147483647)
			b.Field(3).(*array.Int64Builder).Append(9223372036854775807)
			b.Field(4).(*array.Float32Builder).Append(3.4028235e38)
			b.Field(5).(*array.Float64Builder).Append(1.7976931348623157e308)
			b.Field(6).(*array.Date32Builder).Append(arrow.Date32FromTime(now))
			b.Field(7).(*array.Time64Builder).Append(arrow.Time64((now.Sub(now.Truncate(24 * time.Hour))).Microseconds()))
			b.Field(8).(*array.TimestampBuilder).Append(arrow.Timestamp(now.UnixMicro()))
			b.Field(9).(*array.TimestampBuilder).Append(arrow.Timestamp(now.UnixMicro()))
			b.Field(10).(*array.StringBuilder).Append("test")
			b.Field(11).(*array.FixedSizeBinaryBuilder).Append([]byte("abcdefghij"))
			b.Field(12).(*array.BinaryBuilder).Append([]byte("test"))
			b.Field(13).(*array.Decimal128Builder).Append(decimal128.FromBigInt(dec))
			lb := b.Field(14).(*array.ListBuilder)
			lb.Append(true)
			lb.ValueBuilder().(*array.Int32Builder).Append(2147483647)
			mb := b.Field(15).(*array.MapBuilder)
			mb.Append(true)
			mb.KeyBuilder().(*array.StringBuilder).Append("key")
			mb.ItemBuilder().(*array.Int32Builder).Append(2147483647)
			sb := b.Field(16).(*array.StructBuilder)
			sb.Append(true)
			sb.FieldBuilder(0).(*array.StringBuilder).Append("test")
		}
		rec := b.NewRecordBatch()
		b.Release()
		rdr, err := array.NewRecordReader(asc, []arrow.RecordBatch{rec})
		if err != nil {
			t.Fatal(err)
		}
		if tbl, err = tbl.Append(ctx, rdr, nil); err != nil {
			t.Fatalf("append rows %d..%d: %v", start, start+9, err)
		}
		rdr.Release()
		rec.Release()
	}
	if n := icebergRows(t, tbl, ""); n != 100 {
		t.Fatalf("the test table holds %d rows, want 100", n)
	}
	code, out := run(t, "run", seatunnel("iceberg", "iceberg_source.conf"))
	checkRun(t, "IcebergSourceIT.testIcebergSource", code, out, 0, "Total Read Count : 100", "Total Write Count : 100")
}

// icebergIDs reads the id column of a table in a Hadoop warehouse, counting each id; a
// table not created yet holds none.
func icebergIDs(t *testing.T, warehouse, ns, name string) map[int64]int {
	t.Helper()
	ctx := context.Background()
	cat, err := icecat.Load(ctx, "e2e", ice.Properties{"type": "hadoop", "warehouse": "file://" + warehouse})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int64]int{}
	tbl, err := cat.LoadTable(ctx, table.Identifier{ns, name})
	if err != nil {
		return ids
	}
	_, recs, err := tbl.Scan(table.WithSelectedFields("id")).ToArrowRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for rec, err := range recs {
		if err != nil {
			t.Fatal(err)
		}
		col := rec.Column(0).(*array.Int64)
		for i := 0; i < col.Len(); i++ {
			ids[col.Value(i)]++
		}
		rec.Release()
	}
	return ids
}

// A job writing into an Iceberg table with a checkpoint every second, its runner SIGKILLed
// once checkpoints have committed rows: the job goes on on the other runner from its last
// checkpoint, and the table holds every input row exactly once.
func TestIcebergExactlyOnceAfterRunnerKilled(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	c := startCluster(t, t.TempDir())
	runners := map[string]*proc{"ice1": c.runner(t, "ice1", 1), "ice2": c.runner(t, "ice2", 1)}
	dir := t.TempDir()
	warehouse := filepath.Join(dir, "warehouse")
	job := writeJob(t, fmt.Sprintf(`
env { job.mode = BATCH, parallelism = 1, checkpoint.interval = 1000, job.retry.interval.seconds = 1,
  read_limit.rows_per_second = 10 }
source { LocalFile { plugin_output = "in", path = "%s", file_format_type = json,
  schema = { fields { id = bigint, name = string } } } }
sink { Iceberg { plugin_input = "in", catalog_name = strait, namespace = kill, table = rows,
  iceberg.catalog.config = { type = hadoop, warehouse = "file://%s" } } }`, slowInput(t, dir, 100), warehouse))
	if code, o := run(t, "job", "submit", "--address", c.addr, "--job-id", "7411", job); code != 0 {
		t.Fatalf("submit: exit %d\n%s", code, o)
	}
	victim := c.runningOn(t, "7411")
	untilCommitted(t, func() int { return len(icebergIDs(t, warehouse, "kill", "rows")) })
	runners[victim].kill(t)
	awaitFinished(t, c.addr, "7411")
	if st := c.status(t, "7411"); len(st.Pipelines) == 0 || st.Pipelines[0].Restarts == 0 {
		t.Errorf("the job did not restart after its runner was killed: %+v", st)
	}
	eachIDOnce(t, "the table", icebergIDs(t, warehouse, "kill", "rows"), 100)
}
