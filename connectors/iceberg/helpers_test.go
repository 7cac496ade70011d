package iceberg

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"testing"
	"time"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// hadoopConf is the catalog options of a Hadoop warehouse in a temporary folder.
func hadoopConf(t testing.TB, table string) string {
	dir := t.TempDir()
	return fmt.Sprintf("catalog_name = test\niceberg.catalog.config = { type = hadoop, warehouse = \"file://%s\" }\nnamespace = ns\ntable = %s\n", dir, table)
}

func buildSink(t testing.TB, conf string, job int64, in *catalog.Table) (*Sink, error) {
	t.Helper()
	build, _, ok := connector.LookupSink("Iceberg")
	if !ok {
		t.Fatal("the Iceberg sink is not registered")
	}
	s, err := build(&connector.SinkContext{Context: context.Background(), Options: conntest.Options(t, conf, "sink[0] Iceberg"),
		Job: connector.Job{ID: job, Mode: connector.Batch}, Inputs: []*catalog.Table{in}})
	if err != nil {
		return nil, err
	}
	return s.(*Sink), nil
}

func mustSink(t testing.TB, conf string, job int64, in *catalog.Table) *Sink {
	t.Helper()
	s, err := buildSink(t, conf, job, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// allTypes is a table of every type a SeaTunnel FakeSource produces, with an id first.
func allTypes() *catalog.Table {
	t := &catalog.Table{Path: catalog.TablePath{Table: "fake"}}
	for _, c := range [][2]string{
		{"id", "bigint"}, {"c_map", "map<string, string>"}, {"c_array", "array<int>"}, {"c_string", "string"},
		{"c_boolean", "boolean"}, {"c_tinyint", "tinyint"}, {"c_smallint", "smallint"}, {"c_int", "int"},
		{"c_bigint", "bigint"}, {"c_float", "float"}, {"c_double", "double"}, {"c_decimal", "decimal(30, 8)"},
		{"c_bytes", "bytes"}, {"c_date", "date"}, {"c_time", "time"}, {"c_timestamp", "timestamp"},
		{"c_row", "{a = string, b = array<bigint>, c = map<int, double>}"},
	} {
		t.Columns = append(t.Columns, catalog.Column{Name: c[0], Type: types.MustParse(c[1]), Nullable: true})
	}
	return t
}

// allTypesRow is row i of allTypes, deterministic; every seventh row has nulls.
func allTypesRow(i int) []row.Value {
	base := time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC).Add(time.Duration(i) * 37 * time.Hour)
	dec, _ := new(big.Int).SetString(fmt.Sprintf("%d12345678", 1000000000000+i*7919), 10)
	if i%2 == 1 {
		dec.Neg(dec)
	}
	v := []row.Value{
		row.BigIntValue(int64(i)),
		row.MapOfValues(&row.MapValue{Keys: []row.Value{row.StringValue("k"), row.StringValue(fmt.Sprint("k", i))}, Vals: []row.Value{row.StringValue("v"), row.StringValue(fmt.Sprint(i))}}),
		row.ArrayValue([]row.Value{row.IntValue(int32(i)), row.IntValue(-1), row.NullValue()}),
		row.StringValue(fmt.Sprintf("string %d ✓", i)),
		row.BoolValue(i%3 == 0),
		row.TinyIntValue(int8(i%256 - 128)),
		row.SmallIntValue(int16(i*31 - 1000)),
		row.IntValue(int32(i * 100003)),
		row.BigIntValue(int64(i) * 1e12),
		row.FloatValue(float32(i) + 0.25),
		row.DoubleValue(float64(i) / 3),
		row.DecimalValue(dec, 8),
		row.BytesValue([]byte{byte(i), 0, 0xff, 'x'}),
		row.DateOf(base),
		row.TimeOf(base),
		row.TimestampOf(base),
		row.RowValue([]row.Value{row.StringValue(fmt.Sprint("a", i)), row.ArrayValue([]row.Value{row.BigIntValue(int64(i))}),
			row.MapOfValues(&row.MapValue{Keys: []row.Value{row.IntValue(int32(i))}, Vals: []row.Value{row.DoubleValue(1.5)}})}),
	}
	if i%7 == 3 {
		for j := 1; j < len(v); j++ {
			v[j] = row.NullValue()
		}
	}
	return v
}

func batchOf(tableID string, from, to int, gen func(int) []row.Value) *row.Batch {
	b := row.NewBatch(to - from)
	for i := from; i < to; i++ {
		r := b.Add(row.Insert, tableID, 0)
		r.Fields = gen(i)
	}
	return b
}

// loadTable loads the sink's table afresh.
func loadTable(t testing.TB, s *Sink) *table.Table {
	t.Helper()
	cat, err := s.cfg.loadCatalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(context.Background(), s.cfg.ident())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// readBack reads the table (or a ref of it) with iceberg-go's scan, as rows of the columns
// of want, sorted by the first column (a bigint).
func readBack(t testing.TB, tbl *table.Table, ref string, want *catalog.Table) [][]row.Value {
	t.Helper()
	scan := tbl.Scan()
	if ref != "" {
		var err error
		if scan, err = scan.UseRef(ref); err != nil {
			t.Fatalf("use ref %s: %v", ref, err)
		}
	}
	_, recs, err := scan.ToArrowRecords(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out [][]row.Value
	for rec, err := range recs {
		if err != nil {
			t.Fatal(err)
		}
		sc := rec.Schema()
		for i := 0; i < int(rec.NumRows()); i++ {
			fields := make([]row.Value, len(want.Columns))
			for j, c := range want.Columns {
				idx := sc.FieldIndices(c.Name)
				if len(idx) == 0 {
					t.Fatalf("column %s is not in the table's rows (%s)", c.Name, sc)
				}
				v, err := valueOf(rec.Column(idx[0]), i, c.Type)
				if err != nil {
					t.Fatalf("row %d column %s: %v", i, c.Name, err)
				}
				fields[j] = v
			}
			out = append(out, fields)
		}
		rec.Release()
	}
	sort.Slice(out, func(a, b int) bool { return out[a][0].I < out[b][0].I })
	return out
}

// sameRows compares rows field by field, naming the first difference.
func sameRows(t testing.TB, in *catalog.Table, got [][]row.Value, want func(int) []row.Value, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("%d rows read back, want %d", len(got), n)
	}
	for i := 0; i < n; i++ {
		w := want(i)
		for j := range w {
			if !row.Equal(got[i][j], w[j]) {
				t.Fatalf("row %d column %s: got %v, want %v", i, in.Columns[j].Name, got[i][j], w[j])
			}
		}
	}
}

// checkpoint prepares every writer for a checkpoint and returns their infos.
func checkpoint(t testing.TB, id int64, ws ...connector.Writer) [][]byte {
	t.Helper()
	var infos [][]byte
	for _, w := range ws {
		info, err := w.PrepareCommit(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if info != nil {
			infos = append(infos, info)
		}
	}
	return infos
}

func newWriter(t testing.TB, s *Sink, index int) connector.Writer {
	t.Helper()
	w, err := s.CreateWriter(connector.WriterContext{Index: index, Parallelism: 2, Job: s.job, Epoch: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(context.Background()) })
	return w
}

func commit(t testing.TB, s *Sink, id int64, infos [][]byte) {
	t.Helper()
	c, err := s.CreateCommitter()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Commit(context.Background(), connector.CommitRequest{CheckpointID: id, Infos: infos}); err != nil {
		t.Fatal(err)
	}
}

// dataFiles lists the table's data files at the head of a ref.
func dataFiles(t testing.TB, tbl *table.Table, ref string) []ice.DataFile {
	t.Helper()
	scan := tbl.Scan()
	if ref != "" {
		var err error
		if scan, err = scan.UseRef(ref); err != nil {
			t.Fatal(err)
		}
	}
	tasks, err := scan.PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []ice.DataFile
	for _, task := range tasks {
		out = append(out, task.File)
	}
	return out
}

// ---- S3 ----

// testBucket is the bucket of the tests on S3, shared with the other connectors' tests:
// the Iceberg tests keep under a prefix of their own.
const testBucket = conntest.S3Bucket

// s3Server returns the test server's endpoint, key and secret, with the test bucket
// created; without the server the test fails naming `make s3`.
func s3Server(t testing.TB) (endpoint, key, secret string) {
	t.Helper()
	s := conntest.S3(t)
	return s.Endpoint, s.Key, s.Secret
}

// s3Keys lists the objects under prefix in the test bucket.
func s3Keys(t testing.TB, prefix string) []string {
	t.Helper()
	return conntest.S3(t).Keys(t, prefix)
}

func s3Clean(t testing.TB, prefix string) { conntest.S3(t).Clean(t, prefix) }

func contains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// writeRows writes rows from to to (not included) of allTypesRow with w.
func writeRows(t testing.TB, w connector.Writer, from, to int) {
	t.Helper()
	if err := w.Write(context.Background(), batchOf("fake", from, to, allTypesRow)); err != nil {
		t.Fatal(err)
	}
}

// commitRows writes rows from to to (not included) of allTypesRow with a new writer of s
// and commits them as checkpoint 1.
func commitRows(t testing.TB, s *Sink, from, to int) {
	t.Helper()
	w := newWriter(t, s, 0)
	writeRows(t, w, from, to)
	commit(t, s, 1, checkpoint(t, 1, w))
}
