package file

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pqfile "github.com/strait-dev/strait/connectors/internal/format/parquet"

	"github.com/parquet-go/parquet-go"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/internal/civil"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// parquetValues is allTypes' row as parquet keeps it: timestamps in milliseconds and times
// in microseconds, as SeaTunnel writes them.
func parquetValues(vals []row.Value) []row.Value { return truncated(vals, int64(time.Microsecond)) }

// truncated is vals with timestamps cut to the millisecond and times to a multiple of
// timeUnit nanoseconds, as a format that keeps them so gives them back.
func truncated(vals []row.Value, timeUnit int64) []row.Value {
	out := append([]row.Value(nil), vals...)
	for i, v := range out {
		switch v.T {
		case types.Timestamp:
			out[i] = row.TimestampValue(civil.FloorDiv(v.I, int64(time.Millisecond)) * int64(time.Millisecond))
		case types.Time:
			out[i] = row.TimeValue(v.I / timeUnit * timeUnit)
		}
	}
	return out
}

func schemaOf(tbl *catalog.Table) string {
	var fields []string
	for _, c := range tbl.Columns {
		fields = append(fields, quote(c.Name)+" = "+quote(c.Type.String()))
	}
	return "schema { table = " + quote(tbl.ID()) + ", fields { " + strings.Join(fields, "\n") + " } }"
}

func TestParquetRoundTrip(t *testing.T) {
	tbl, vals := allTypes()
	second := append([]row.Value(nil), vals...)
	for i := range second {
		if i%2 == 1 {
			second[i] = row.NullValue()
		}
	}
	second[13] = row.ArrayValue([]row.Value{})
	second[14] = row.MapOfValues(&row.MapValue{})
	// the file name endings SeaTunnel gives each codec
	codecSuffix := map[string]string{"none": "", "snappy": ".snappy", "gzip": ".gz", "zstd": ".zstd", "lz4": ".lz4"}
	for _, codec := range []string{"none", "snappy", "gzip", "zstd", "lz4"} {
		t.Run(codec, func(t *testing.T) {
			dir := t.TempDir()
			writeTo(t, dir, "file_format_type = parquet\ncompress_codec = "+codec, tbl, batchOf(tbl, vals, second))
			got := files(t, filepath.Join(dir, "out"))
			for name := range got {
				suffix := codecSuffix[codec] + ".parquet"
				if !strings.HasSuffix(name, "_0"+suffix) {
					t.Errorf("file %s, want the suffix %s", name, suffix)
				}
			}
			for _, schema := range []string{"", schemaOf(tbl)} {
				src := mustSource(t, srcConf(filepath.Join(dir, "out"), "file_format_type = parquet\n"+schema))
				cols := src.Tables()[0].Columns
				if len(cols) != len(tbl.Columns) {
					t.Fatalf("columns %v", cols)
				}
				for i, c := range cols {
					if c.Name != tbl.Columns[i].Name || !c.Type.Equal(tbl.Columns[i].Type) {
						t.Errorf("column %d is %s %s, want %s %s", i, c.Name, c.Type, tbl.Columns[i].Name, tbl.Columns[i].Type)
					}
				}
				rows := readRows(t, src, 1)
				want := [][]row.Value{parquetValues(vals), parquetValues(second)}
				if len(rows) != 2 {
					t.Fatalf("%d rows", len(rows))
				}
				for i, r := range rows {
					for j := range r.Fields {
						if !row.Equal(r.Fields[j], want[i][j]) {
							t.Errorf("schema %t, row %d %s: got %v, want %v", schema != "", i, tbl.Columns[j].Name, r.Fields[j], want[i][j])
						}
					}
				}
			}
		})
	}
}

// SeaTunnel's own parquet file, as parquet-mr wrote it: its five rows, read with the
// columns it declares.
func TestParquetSeaTunnelFile(t *testing.T) {
	src := mustSource(t, srcConf(filepath.Join(seatunnelDir, "parquet"), "file_format_type = parquet\nfile_filter_pattern = \"e2e.parquet\""))
	cols := src.Tables()[0].Columns
	var got []string
	for _, c := range cols {
		got = append(got, c.Name+" "+c.Type.String())
	}
	want := "c_map map<string, string>|c_array array<int>|c_string string|c_boolean boolean|c_tinyint int|c_smallint int|c_int int|c_bigint bigint|c_float float|c_double double|c_bytes bytes|c_date date|c_decimal decimal(38, 18)|c_timestamp timestamp|c_row {C_MAP = map<string, string>, C_ARRAY = array<int>, C_STRING = string, C_BOOLEAN = boolean, C_TINYINT = int, C_SMALLINT = int, C_INT = int, C_BIGINT = bigint, C_FLOAT = float, C_DOUBLE = double, C_BYTES = bytes, C_DATE = date, C_DECIMAL = decimal(38, 18), C_TIMESTAMP = timestamp}"
	if strings.Join(got, "|") != want {
		t.Errorf("columns\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	rows := readRows(t, src, 1)
	if len(rows) != 5 {
		t.Fatalf("%d rows", len(rows))
	}
	r := rows[0]
	if s := r.Fields[2].String(); s != "GAnQV" {
		t.Errorf("c_string %s", s)
	}
	if m := r.Fields[0].Map(); m == nil || len(m.Keys) != 5 || m.Keys[0].Str() != "Djoxq" {
		t.Errorf("c_map %v", r.Fields[0])
	}
	if a := r.Fields[1].Elems(); len(a) != 5 || a[0].I != 829627748 {
		t.Errorf("c_array %v", r.Fields[1])
	}
	if r.Fields[12].String() != "21.000000000000000000" && r.Fields[12].T != types.Decimal {
		t.Errorf("c_decimal %v", r.Fields[12])
	}
	if ts := r.Fields[13].Time().UTC(); ts.UnixMilli() != 1643125500000 {
		t.Errorf("c_timestamp %v", ts)
	}
}

// A file with several row groups is read as one split per row group, which together give
// every row once; a reader's snapshot taken inside a row group resumes after its last row.
func TestParquetRowGroupSplitsAndResume(t *testing.T) {
	defer func(n int64) { pqfile.RowGroupBytes = n }(pqfile.RowGroupBytes)
	pqfile.RowGroupBytes = 2000
	dir := t.TempDir()
	tbl := benchTable()
	writeTo(t, dir, "file_format_type = parquet", tbl, benchBatch(tbl, 1000))
	src := mustSource(t, srcConf(filepath.Join(dir, "out"), "file_format_type = parquet\n"+benchSchema))

	ec := conntest.NewEnumContext(3)
	conntest.RunEnumerator(context.Background(), t, src, ec, nil)
	var splits []connector.Split
	for r := 0; r < 3; r++ {
		splits = append(splits, ec.Assigned[r]...)
	}
	if len(splits) < 4 {
		t.Fatalf("%d splits, want one per row group", len(splits))
	}
	seen := map[int64]int{}
	for _, sp := range splits {
		for _, r := range readSplits(t, src, []connector.Split{sp}, 7, -1) {
			seen[r.Fields[0].I]++
		}
	}
	if len(seen) != 1000 {
		t.Errorf("%d distinct ids", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("id %d read %d times", id, n)
		}
	}

	// stop after 3 polls of 7 rows, snapshot, restore into a new reader
	first := readSplits(t, src, splits[:1], 7, 3)
	rest := readSplits(t, src, snapshotAfter(t, src, splits[:1], 7, 3), 7, -1)
	all := readSplits(t, src, splits[:1], 7, -1)
	if len(first)+len(rest) != len(all) {
		t.Fatalf("%d + %d rows, the split has %d", len(first), len(rest), len(all))
	}
	for i, r := range append(first, rest...) {
		if r.Fields[0].I != all[i].Fields[0].I {
			t.Fatalf("row %d is id %d, want %d", i, r.Fields[0].I, all[i].Fields[0].I)
		}
	}
}

// readSplits reads splits with batches of size rows, at most polls polls (-1: all).
func readSplits(t *testing.T, src *Source, splits []connector.Split, size, polls int) []row.Row {
	t.Helper()
	r, err := src.CreateReader(connector.ReaderContext{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.AddSplits(splits)
	r.NoMoreSplits()
	var out []row.Row
	for n := 0; polls < 0 || n < polls; n++ {
		b := row.NewBatch(size)
		done := conntest.Poll(context.Background(), t, r, b)
		for i := range b.Rows {
			out = append(out, b.Rows[i].Clone())
		}
		if done {
			break
		}
	}
	return out
}

func snapshotAfter(t *testing.T, src *Source, splits []connector.Split, size, polls int) []connector.Split {
	t.Helper()
	r, _ := src.CreateReader(connector.ReaderContext{})
	defer r.Close()
	r.AddSplits(splits)
	r.NoMoreSplits()
	for n := 0; n < polls; n++ {
		if _, err := r.PollNext(context.Background(), row.NewBatch(size)); err != nil {
			t.Fatal(err)
		}
	}
	st, err := r.SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Columns that read_columns leaves out are not decoded: a file whose unread column is
// corrupt reads fine without it, and fails with it.
func TestParquetProjectionSkipsColumns(t *testing.T) {
	dir := t.TempDir()
	tbl := benchTable()
	writeTo(t, dir, "file_format_type = parquet", tbl, benchBatch(tbl, 500))
	out := filepath.Join(dir, "out")
	var path string
	for name := range files(t, out) {
		path = filepath.Join(out, name)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(strings.NewReader(string(b)), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	// overwrite the pages of column "name" (index 1) with garbage
	md := pf.Metadata().RowGroups[0].Columns[1].MetaData
	start := md.DataPageOffset
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
		start = md.DictionaryPageOffset
	}
	for i := start; i < start+md.TotalCompressedSize; i++ {
		b[i] = 0xff
	}
	if err := os.WriteFile(path, b, 0o666); err != nil {
		t.Fatal(err)
	}
	ok := mustSource(t, srcConf(out, "file_format_type = parquet\nread_columns = [id, city]"))
	rows := readRows(t, ok, 1)
	if len(rows) != 500 || rows[499].Fields[0].I != 1_000_499 || rows[0].Fields[1].Str() != "Amsterdam" {
		t.Errorf("%d rows, last %v", len(rows), rows[len(rows)-1].Fields)
	}
	bad := mustSource(t, srcConf(out, "file_format_type = parquet\nread_columns = [id, name]"))
	if err := readErr(t, bad); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `column "name"`) {
		t.Errorf("reading the corrupt column: %v", err)
	}
}

func TestParquetBadFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.parquet"), "PAR1 this is not parquet at all PAR1")
	_, err := newTestSource(t, srcConf(dir, "file_format_type = parquet"))
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "a.parquet")) || !strings.Contains(err.Error(), "footer") {
		t.Errorf("schema from a broken file: %v", err)
	}
	src := mustSource(t, srcConf(dir, "file_format_type = parquet\nschema { fields { a = int } }"))
	if err := readErr(t, src); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "a.parquet")) || !strings.Contains(err.Error(), "byte") {
		t.Errorf("reading a broken file: %v", err)
	}
}

func TestParquetConfigErrors(t *testing.T) {
	dir := t.TempDir()
	tbl := table("db.t", "id", "int", "ts", "timestamp", "b", "bytes", "s", "string")
	cases := []struct{ conf, want string }{
		{"compress_codec = lzo", `compress_codec: "lzo" cannot be written: no Go LZO library is available to Strait`},
		{"compress_codec = rar", `compress_codec: unknown value "rar" for parquet`},
		{"parquet_avro_write_fixed_as_int96 = [s]", `parquet_avro_write_fixed_as_int96: column "s" is string: only timestamp and bytes columns can be written as INT96`},
	}
	for _, c := range cases {
		_, err := newTestSink(t, sinkConf(dir, "file_format_type = parquet\n"+c.conf), tbl)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.conf, err, c.want)
		}
	}
	for _, conf := range []string{sinkConf(dir, "file_format_type = orc")} {
		_, err := newTestSink(t, conf, tbl)
		if err == nil || !strings.Contains(err.Error(), `file_format_type: "orc" cannot be read or written: no Go ORC library is available to Strait yet`) {
			t.Errorf("orc sink: %v", err)
		}
	}
	writeFile(t, filepath.Join(dir, "x.orc"), "ORC")
	if _, err := newTestSource(t, srcConf(dir, "file_format_type = ORC")); err == nil || !strings.Contains(err.Error(), "no Go ORC library is available to Strait yet") {
		t.Errorf("orc source: %v", err)
	}
}

// INT96: every timestamp with parquet_avro_write_timestamp_as_int96, and the columns listed
// in parquet_avro_write_fixed_as_int96 (a 12-byte bytes column is written as the INT96 it
// holds, and read back as a timestamp, as SeaTunnel reads it).
func TestParquetInt96(t *testing.T) {
	dir := t.TempDir()
	tbl := table("db.t", "ts", "timestamp", "raw", "bytes")
	// 2024-01-26T12:34:56.123456789 as INT96: nanos of the day, then the Julian day
	tsv := ts("2024-01-26T12:34:56.123456789")
	const nanosPerDay, julianUnixEpoch = 86_400_000_000_000, 2440588
	day := tsv.I / nanosPerDay // after 1970: no flooring needed
	raw := binary.LittleEndian.AppendUint64(nil, uint64(tsv.I-day*nanosPerDay))
	raw = binary.LittleEndian.AppendUint32(raw, uint32(day+julianUnixEpoch))
	defer func(z *time.Location) { pqfile.Zone = z }(pqfile.Zone)
	pqfile.Zone = time.UTC
	writeTo(t, dir, "file_format_type = parquet\nparquet_avro_write_timestamp_as_int96 = true\nparquet_avro_write_fixed_as_int96 = [RAW]", tbl, batchOf(tbl, []row.Value{tsv, row.BytesValue(raw)}))
	src := mustSource(t, srcConf(filepath.Join(dir, "out"), "file_format_type = parquet"))
	cols := src.Tables()[0].Columns
	if cols[0].Type.Kind != types.Timestamp || cols[1].Type.Kind != types.Timestamp {
		t.Fatalf("columns %v", cols)
	}
	rows := readRows(t, src, 1)
	if len(rows) != 1 || rows[0].Fields[0].I != tsv.I || rows[0].Fields[1].I != tsv.I {
		t.Errorf("rows %v, want %v twice (full nanoseconds)", rows, tsv)
	}
	bad := mustSink(t, sinkConf(t.TempDir(), "file_format_type = parquet\nparquet_avro_write_fixed_as_int96 = [raw]"), tbl)
	w, _ := bad.CreateWriter(connector.WriterContext{}, nil)
	defer w.Close(context.Background())
	if err := w.Write(context.Background(), batchOf(tbl, []row.Value{tsv, row.BytesValue([]byte("short"))})); err == nil || !strings.Contains(err.Error(), `column "raw": 5 bytes cannot be written as INT96`) {
		t.Errorf("short INT96: %v", err)
	}
}

// A timestamp is written as the instant of its wall clock time in the process's zone and
// read back in it, as SeaTunnel does with the JVM's zone.
func TestParquetTimestampZone(t *testing.T) {
	defer func(z *time.Location) { pqfile.Zone = z }(pqfile.Zone)
	zone, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	pqfile.Zone = zone
	dir := t.TempDir()
	tbl := table("db.t", "ts", "timestamp")
	v := ts("2024-01-26T12:34:56.789")
	writeTo(t, dir, "file_format_type = parquet", tbl, batchOf(tbl, []row.Value{v}))
	out := filepath.Join(dir, "out")
	for name := range files(t, out) {
		f, _ := os.Open(filepath.Join(out, name))
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		rows := make([]parquet.Row, 1)
		n, _ := pf.RowGroups()[0].Rows().ReadRows(rows)
		f.Close()
		if n != 1 || rows[0][0].Int64() != time.Date(2024, 1, 26, 4, 34, 56, 789e6, time.UTC).UnixMilli() {
			t.Errorf("stored %v, want the UTC instant of 12:34:56.789 in Shanghai", rows[0])
		}
	}
	got := readRows(t, mustSource(t, srcConf(out, "file_format_type = parquet")), 1)
	if len(got) != 1 || got[0].Fields[0].I != v.I {
		t.Errorf("read back %v, want %v", got, v)
	}
}
