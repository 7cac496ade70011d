package file

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	jsonformat "github.com/strait-dev/strait/connectors/internal/format/json"
	"github.com/strait-dev/strait/contract"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/connectors/internal/format/text"
	"github.com/strait-dev/strait/planner"
	"github.com/strait-dev/strait/row"

	_ "github.com/strait-dev/strait/connectors/fake"
)

func sinkConf(dir string, extra string) string {
	return "path = " + quote(filepath.Join(dir, "out")) + "\ntmp_path = " + quote(filepath.Join(dir, "tmp")) + "\n" + extra
}

func TestSinkConfigErrors(t *testing.T) {
	dir := t.TempDir()
	tbl := table("db.t", "id", "int", "name", "string", "age", "int")
	cases := []struct {
		name, conf string
		want       string
	}{
		{"no path", `file_format_type = text`, "path: option is required"},
		{"blank path", `path = " "`, "path: option is required"},
		{"transactions not a bool", sinkConf(dir, "is_enable_transaction = maybe"), "is_enable_transaction: expected true or false"},
		{"expression without transaction id", sinkConf(dir, `file_name_expression = "${now}"`), "file_name_expression: must contain ${transactionId}"},
		{"expression with a slash", sinkConf(dir, `file_name_expression = "a/${transactionId}"`), "file_name_expression: must not contain a path separator"},
		{"bad time format", sinkConf(dir, `filename_time_format = "yyyy.MM.dd bb"`), `filename_time_format: pattern "yyyy.MM.dd bb": unknown pattern letter 'b'`},
		{"unterminated quote", sinkConf(dir, `filename_time_format = "yyyy'x"`), "filename_time_format: pattern \"yyyy'x\" has an unterminated quote"},
		{"unknown format", sinkConf(dir, "file_format_type = yaml"), `file_format_type: unknown value "yaml"`},
		{"orc", sinkConf(dir, "file_format_type = ORC"), `file_format_type: "ORC" cannot be read or written: no Go ORC library is available to Strait yet`},
		{"unknown sink column", sinkConf(dir, "sink_columns = [id, nope]"), `sink_columns[1]: unknown column "nope" in table db.t`},
		{"partition not written", sinkConf(dir, "sink_columns = [id]\npartition_by = [age]"), `partition_by[0]: partition field "age" must be one of the sink columns`},
		{"only partition columns", sinkConf(dir, "sink_columns = [age]\npartition_by = [age]"), "sink_columns: no column is left to write"},
		{"batch size", sinkConf(dir, "batch_size = 0"), "batch_size: must be at least 1, got 0"},
		{"batch size text", sinkConf(dir, "batch_size = many"), `batch_size: "many" is not an integer`},
		{"encoding", sinkConf(dir, "encoding = GBK-X"), `encoding: unknown or unsupported character set "GBK-X"`},
		{"compression", sinkConf(dir, "compress_codec = lzo"), `compress_codec: "lzo" is not supported by Strait's LocalFile: no Go library for LZO (lzop) is available to Strait; use gzip, zstd or lz4`},
		{"snappy text", sinkConf(dir, "compress_codec = snappy"), `compress_codec: "snappy" is not supported by Strait's LocalFile: SeaTunnel compresses only orc and parquet files with snappy`},
		{"unknown codec", sinkConf(dir, "compress_codec = rar"), `compress_codec: unknown value "rar"; expected none, gzip, zstd or lz4`},
		{"binary codec", sinkConf(dir, "file_format_type = binary\ncompress_codec = gzip"), `compress_codec: the binary format writes files as they are read; "gzip" does not apply`},
		{"binary table", sinkConf(dir, "file_format_type = binary"), "file_format_type: the binary format writes only what a binary source reads, the columns data (bytes), relativePath (string) and partIndex (bigint); table db.t has id, name, age"},
		{"xml attr format", sinkConf(dir, "file_format_type = xml"), "xml_use_attr_format: option is required for the xml format"},
		{"xml root tag", sinkConf(dir, "file_format_type = xml\nxml_use_attr_format = true\nxml_root_tag = \"1a\""), `xml_root_tag: "1a" is not an XML element name`},
		{"rows in memory", sinkConf(dir, "max_rows_in_memory = 0"), "max_rows_in_memory: must be at least 1, got 0"},
		{"data save mode", sinkConf(dir, "data_save_mode = CUSTOM_PROCESSING"), `data_save_mode: unknown value "CUSTOM_PROCESSING"`},
		{"date format", sinkConf(dir, `date_format = "dd/MM/yyyy"`), `date_format: unsupported format "dd/MM/yyyy"; expected one of yyyy-MM-dd, yyyy.MM.dd, yyyy/MM/dd`},
		{"datetime format", sinkConf(dir, `datetime_format = "yyyy"`), `datetime_format: unsupported format "yyyy"`},
		{"time format", sinkConf(dir, `time_format = "HH"`), `time_format: unsupported format "HH"`},
		{"unknown placeholder", "path = " + quote(filepath.Join(dir, "${tabel_name}")), `path: unknown placeholder in`},
		{"staging is path", "path = " + quote(filepath.Join(dir, "tmp", "seatunnel")) + "\ntmp_path = " + quote(filepath.Join(dir, "tmp")), "tmp_path: the staging directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := newTestSink(t, c.conf, tbl)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want it to contain %q", err, c.want)
			}
			if !strings.Contains(err.Error(), "sink[0] LocalFile") {
				t.Errorf("error %q does not name the plugin", err)
			}
		})
	}
	if _, err := newTableSink(t, sinkConf(dir, ""), tbl, table("db.u", "x", "int")); err == nil || !strings.Contains(err.Error(), "LocalFile needs one input table to write, got 2") {
		t.Errorf("two inputs: %v", err)
	}
	deep := table("t", "a", "array<array<array<array<array<array<array<int>>>>>>>")
	if _, err := newTestSink(t, sinkConf(dir, ""), deep); err == nil || !strings.Contains(err.Error(), `column "a" of type array<array<array<array<array<array<array<int>>>>>>> nests too deeply`) {
		t.Errorf("deep nesting: %v", err)
	}
	if _, err := newTestSink(t, sinkConf(dir, "file_format_type = json"), deep); err != nil {
		t.Errorf("deep nesting is fine in json: %v", err)
	}
}

func TestSinkDefaultsAndSpellings(t *testing.T) {
	dir := t.TempDir()
	tbl := table("t", "id", "int")
	s := mustSink(t, "path = "+quote(filepath.Join(dir, "out")), tbl)
	c := s.cfg
	if c.format != formatText || c.fieldDelim != "\u0001" || c.rowDelim != "\n" || c.nameExpr != "${transactionId}" ||
		c.timeFmtText != "yyyy.MM.dd" || c.batchSize != 1_000_000 || c.tmpRoot != "/tmp/seatunnel/seatunnel" || c.header != nil {
		t.Errorf("defaults: %+v", c)
	}
	for _, f := range []string{"JSON", "Json", "json", " csv "} {
		s := mustSink(t, sinkConf(dir, "file_format_type = "+quote(f)), tbl)
		if string(s.cfg.format) != strings.ToLower(strings.TrimSpace(f)) {
			t.Errorf("%q read as %s", f, s.cfg.format)
		}
	}
	// csv forces the comma whatever field_delimiter says
	s = mustSink(t, sinkConf(dir, "file_format_type = csv\nfield_delimiter = \"|\""), tbl)
	if s.cfg.fieldDelim != "," {
		t.Errorf("csv delimiter %q", s.cfg.fieldDelim)
	}
	// blank values fall back to the defaults, as in SeaTunnel
	s = mustSink(t, sinkConf(dir, `file_name_expression = " "`+"\nfilename_time_format = \"\"\nfield_delimiter = \"\""), tbl)
	if s.cfg.nameExpr != defaultFileNameExpr || s.cfg.timeFmtText != defaultFileNameTimeFmt || s.cfg.fieldDelim != "\u0001" {
		t.Errorf("blank options: %+v", s.cfg)
	}
	// the documented gates SeaTunnel's code ignores are read and ignored
	o := conntest.Options(t, sinkConf(dir, "custom_filename = true\nhave_partition = true\nschema_save_mode = IGNORE"), "sink[0] LocalFile")
	build, _, _ := connector.LookupSink("LocalFile")
	if _, err := build(&connector.SinkContext{Options: o, Inputs: []*catalog.Table{tbl}}); err != nil {
		t.Fatal(err)
	}
	if u := o.Unused(); len(u) > 0 {
		t.Errorf("unused options: %v", u)
	}
}

// allTypes is a table of every type and a row of values for it.
func allTypes() (*catalog.Table, []row.Value) {
	tbl := table("db.all",
		"c_string", "string", "c_boolean", "boolean", "c_tinyint", "tinyint", "c_smallint", "smallint",
		"c_int", "int", "c_bigint", "bigint", "c_float", "float", "c_double", "double",
		"c_decimal", "decimal(30, 8)", "c_bytes", "bytes", "c_date", "date", "c_time", "time",
		"c_timestamp", "timestamp", "c_array", "array<int>", "c_map", "map<string, string>",
		"c_row", "{a = int, b = string}", "c_null", "string")
	vals := []row.Value{
		row.StringValue("héllo"), row.BoolValue(true), row.TinyIntValue(-8), row.SmallIntValue(300),
		row.IntValue(123456), row.BigIntValue(-9007199254740993), row.FloatValue(1.5), row.DoubleValue(0.1),
		dec(-123456789, 8), row.BytesValue([]byte("ab")), date("2024-01-26"), row.TimeValue(int64(12*time.Hour + 34*time.Minute + 56*time.Second + 789*time.Millisecond)),
		ts("2024-01-26T12:34:56.123456789"), row.ArrayValue([]row.Value{row.IntValue(1), row.NullValue(), row.IntValue(3)}),
		row.MapOfValues(&row.MapValue{Keys: []row.Value{row.StringValue("k1"), row.StringValue("k2")}, Vals: []row.Value{row.StringValue("v1"), row.StringValue("v2")}}),
		row.RowValue([]row.Value{row.IntValue(7), row.StringValue("x")}), row.NullValue(),
	}
	return tbl, vals
}

func TestTextSerialization(t *testing.T) {
	dir := t.TempDir()
	tbl, vals := allTypes()
	writeTo(t, dir, "", tbl, batchOf(tbl, vals))
	got := files(t, filepath.Join(dir, "out"))
	if len(got) != 1 {
		t.Fatalf("files %v", names(got))
	}
	want := strings.Join([]string{"héllo", "true", "-8", "300", "123456", "-9007199254740993", "1.5", "0.1",
		"-1.23456789", "ab", "2024-01-26", "12:34:56", "2024-01-26 12:34:56",
		"1\u0002\u00023", "k1\u0003v1\u0002k2\u0003v2", "7\u0002x", ""}, "\u0001")
	for _, content := range got {
		if content != want {
			t.Errorf("text line\n got %q\nwant %q", content, want)
		}
	}

	// the layouts of dates, times and timestamps follow the options
	dir2 := t.TempDir()
	writeTo(t, dir2, `date_format = "yyyy/MM/dd"
datetime_format = "yyyy-MM-dd'T'HH:mm:ss.SSS"
time_format = "HH:mm:ss.SSS"
field_delimiter = "|"
sink_columns = [c_date, c_time, c_timestamp]`, tbl, batchOf(tbl, vals))
	for _, content := range files(t, filepath.Join(dir2, "out")) {
		if want := "2024/01/26|12:34:56.789|2024-01-26T12:34:56.123"; content != want {
			t.Errorf("got %q, want %q", content, want)
		}
	}
}

func TestJSONSerialization(t *testing.T) {
	dir := t.TempDir()
	tbl, vals := allTypes()
	writeTo(t, dir, "file_format_type = json", tbl, batchOf(tbl, vals), batchOf(tbl, vals))
	got := files(t, filepath.Join(dir, "out"))
	line := `{"c_string":"héllo","c_boolean":true,"c_tinyint":-8,"c_smallint":300,"c_int":123456,"c_bigint":-9007199254740993,` +
		`"c_float":1.5,"c_double":0.1,"c_decimal":-1.23456789,"c_bytes":"YWI=","c_date":"2024-01-26","c_time":"12:34:56.789",` +
		`"c_timestamp":"2024-01-26T12:34:56.123456789","c_array":[1,null,3],"c_map":{"k1":"v1","k2":"v2"},"c_row":{"a":7,"b":"x"},"c_null":null}`
	for name, content := range got {
		if !strings.HasSuffix(name, ".json") {
			t.Errorf("suffix of %s", name)
		}
		if content != line+"\n"+line {
			t.Errorf("json\n got %q\nwant %q", content, line+"\n"+line)
		}
		for _, l := range strings.Split(content, "\n") {
			if !json.Valid([]byte(l)) {
				t.Errorf("invalid JSON %s", l)
			}
		}
	}
}

func TestValueEncodings(t *testing.T) {
	e := text.Encoder{Seps: text.DefaultSeparators, DateTime: dateTimeLayouts["yyyyMMddHHmmss"],
		Date: dateLayouts["yyyy-MM-dd"], Time: timeLayouts["HH:mm:ss"]}
	cases := []struct {
		v          row.Value
		text, json string
	}{
		{dec(1, 8), "1E-8", "1E-8"},
		{dec(123, 10), "1.23E-8", "1.23E-8"},
		{dec(5, 3), "0.005", "0.005"},
		{dec(-5, 3), "-0.005", "-0.005"},
		{dec(12345, 2), "123.45", "123.45"},
		{dec(7, 0), "7", "7"},
		{dec(0, 2), "0.00", "0.00"},
		{dec(1, -3), "1E+3", "1E+3"},
		{dec(123, 7), "0.0000123", "0.0000123"},
		{row.DoubleValue(math.NaN()), "NaN", `"NaN"`},
		{row.DoubleValue(math.Inf(-1)), "-Infinity", `"-Infinity"`},
		{row.DoubleValue(1e7), "1.0E7", "1.0E7"},
		{row.FloatValue(0.1), "0.1", "0.1"},
		{row.StringValue("a\"b\\c\n\x01\b\f/é"), "a\"b\\c\n\x01\b\f/é", `"a\"b\\c\n\u0001\b\f/é"`},
		{ts("1969-12-31T23:59:59.5"), "19691231235959", `"1969-12-31T23:59:59.5"`},
		{ts("2024-01-26T00:00:00"), "20240126000000", `"2024-01-26T00:00:00"`},
		{row.TimeValue(0), "00:00:00", `"00:00:00"`},
		{row.MapOfValues(&row.MapValue{Keys: []row.Value{row.IntValue(1), date("2024-01-26")}, Vals: []row.Value{row.NullValue(), row.BoolValue(false)}}),
			"1\u0003\u00022024-01-26\u0003false", `{"1":null,"2024-01-26":false}`},
		{row.ArrayValue([]row.Value{row.ArrayValue([]row.Value{row.IntValue(1), row.IntValue(2)}), row.ArrayValue(nil)}), "1\u00032\u0002", "[[1,2],[]]"},
	}
	for _, c := range cases {
		if got := string(e.AppendValue(nil, &c.v, 0)); got != c.text {
			t.Errorf("text of %v = %q, want %q", c.v, got, c.text)
		}
		if got := string(jsonformat.AppendValue(nil, &c.v, nil)); got != c.json {
			t.Errorf("json of %v = %s, want %s", c.v, got, c.json)
		}
	}
	// without a declared type a nested row is an array
	untyped := row.RowValue([]row.Value{row.IntValue(1)})
	if got := string(jsonformat.AppendValue(nil, &untyped, nil)); got != "[1]" {
		t.Errorf("untyped row %s", got)
	}
}

func TestSubstitute(t *testing.T) {
	vars := map[string]string{"a": "1", "b": "two"}
	look := func(n string) (string, bool) { v, ok := vars[n]; return v, ok }
	cases := map[string]string{
		"${a}_${b}":    "1_two",
		"x${c}y":       "x${c}y",
		"$${a}":        "${a}",
		"${a":          "${a",
		"plain":        "plain",
		"${a}${a}${b}": "11two",
		"":             "",
	}
	for in, want := range cases {
		if got := string(substitute(nil, in, look)); got != want {
			t.Errorf("%q -> %q, want %q", in, got, want)
		}
	}
}

func TestFileNames(t *testing.T) {
	dir := t.TempDir()
	tbl := table("t", "id", "int")
	s := mustSink(t, sinkConf(dir, `file_name_expression = "${transactionId}_${now}_${uuid}_${yyyy.MM.dd}_${other}"
filename_time_format = "yyyy.MM.dd"`), tbl)
	w, err := s.CreateWriter(connector.WriterContext{Index: 3, Parallelism: 4, Job: connector.Job{ID: 42}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.(*writer).now = func() time.Time { return time.Date(2024, 1, 2, 3, 4, 5, 0, time.Local) }
	ctx := context.Background()
	info := conntest.WritePrepare(ctx, t, w, 1, batchOf(tbl, []row.Value{row.IntValue(1)}))
	var ci commitInfo
	if err := json.Unmarshal(info, &ci); err != nil {
		t.Fatal(err)
	}
	uuid := w.(*writer).uuid
	if !regexp.MustCompile(`^[0-9a-f]{10}$`).MatchString(uuid) {
		t.Errorf("uuid prefix %q", uuid)
	}
	txn := "T_42_" + uuid + "_3_1"
	if ci.TransactionID != txn || ci.TransactionDir != filepath.Join(dir, "tmp", "seatunnel", "42", uuid, txn+"_e0") || len(ci.Moves) != 1 {
		t.Fatalf("commit info %+v", ci)
	}
	re := regexp.MustCompile(`^` + txn + `_2024\.01\.02_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}_2024\.01\.02_\$\{other\}_0\.txt$`)
	m := ci.Moves[0]
	if !re.MatchString(filepath.Base(m.To)) || filepath.Dir(m.To) != filepath.Join(dir, "out") {
		t.Errorf("final name %s", m.To)
	}
	if m.From != filepath.Join(ci.TransactionDir, "NON_PARTITION", filepath.Base(m.To)) {
		t.Errorf("staged as %s", m.From)
	}
	w.Close(ctx)
}

func TestBatchSizeRollsFiles(t *testing.T) {
	dir := t.TempDir()
	tbl := table("t", "id", "int", "name", "string")
	s := mustSink(t, sinkConf(dir, "batch_size = 2\nfile_format_type = csv\nenable_header_write = true"), tbl)
	var rows [][]row.Value
	for i := 0; i < 5; i++ {
		rows = append(rows, []row.Value{row.IntValue(int32(i)), row.StringValue("n")})
	}
	writeAll(t, s, batchOf(tbl, rows...))
	got := files(t, filepath.Join(dir, "out"))
	ns := names(got)
	if len(ns) != 3 {
		t.Fatalf("files %v", ns)
	}
	for i, n := range ns {
		if !strings.HasSuffix(n, "_"+string(rune('0'+i))+".csv") {
			t.Errorf("file %d is %s", i, n)
		}
	}
	if got[ns[0]] != "id,name\n0,n\n1,n" || got[ns[2]] != "id,name\n4,n" {
		t.Errorf("contents %q", got)
	}
}

func TestPartitions(t *testing.T) {
	tbl := table("t", "id", "int", "name", "string", "age", "int")
	rows := [][]row.Value{
		{row.IntValue(1), row.StringValue("a"), row.IntValue(20)},
		{row.IntValue(2), row.StringValue("b"), row.IntValue(30)},
		{row.IntValue(3), row.StringValue("c"), row.IntValue(20)},
		{row.IntValue(4), row.StringValue("d"), row.NullValue()},
	}
	cases := []struct {
		name, conf string
		want       map[string]string // directory -> content
	}{
		{"default", "partition_by = [age]", map[string]string{"age=20": "1\u0001a\n3\u0001c", "age=30": "2\u0001b", "age=null": "4\u0001d"}},
		{"two fields written", "partition_by = [age, name]\nis_partition_field_write_in_file = true\nfield_delimiter = \",\"",
			map[string]string{"age=20/name=a": "1,a,20", "age=30/name=b": "2,b,30", "age=20/name=c": "3,c,20", "age=null/name=d": "4,d,"}},
		{"expression", "partition_by = [AGE]\npartition_dir_expression = \"${k0}_is_${v0}/x\"",
			map[string]string{"AGE_is_20/x": "1\u0001a\n3\u0001c", "AGE_is_30/x": "2\u0001b", "AGE_is_null/x": "4\u0001d"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTo(t, dir, c.conf, tbl, batchOf(tbl, rows...))
			got := files(t, filepath.Join(dir, "out"))
			if len(got) != len(c.want) {
				t.Fatalf("files %v", names(got))
			}
			for name, content := range got {
				d := filepath.ToSlash(filepath.Dir(name))
				if want, ok := c.want[d]; !ok || content != want {
					t.Errorf("%s: %q, want %q", name, content, want)
				}
			}
		})
	}

	// a partition value cannot lead outside path
	dir := t.TempDir()
	s := mustSink(t, sinkConf(dir, "partition_by = [name]\npartition_dir_expression = \"${v0}\""), tbl)
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	err := w.Write(context.Background(), batchOf(tbl, []row.Value{row.IntValue(1), row.StringValue("../../etc"), row.IntValue(1)}))
	if err == nil || !strings.Contains(err.Error(), `partition directory "../../etc"`) {
		t.Errorf("escape: %v", err)
	}
	if err2 := w.Write(context.Background(), batchOf(tbl, []row.Value{row.IntValue(1), row.StringValue("x"), row.IntValue(1)})); err2 == nil {
		t.Error("a failed writer accepted more rows")
	}
	w.Close(context.Background())
}

func TestTransactionsPerCheckpoint(t *testing.T) {
	dir := t.TempDir()
	tbl := table("t", "id", "int")
	s := mustSink(t, sinkConf(dir, "row_delimiter = \";\""), tbl)
	ctx := context.Background()
	w, err := s.CreateWriter(connector.WriterContext{Index: 1, Parallelism: 2, Job: connector.Job{ID: 9}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ww := w.(*writer)
	// nothing written: nothing to commit, but the next transaction still starts
	if info, err := w.PrepareCommit(ctx, 1); err != nil || info != nil {
		t.Fatalf("empty prepare = %s, %v", info, err)
	}
	var infos []commitInfo
	for cp := int64(2); cp <= 3; cp++ {
		raw := conntest.WritePrepare(ctx, t, w, cp, batchOf(tbl, []row.Value{row.IntValue(int32(cp))}, []row.Value{row.IntValue(int32(cp * 10))}))
		var ci commitInfo
		json.Unmarshal(raw, &ci)
		if want := "T_9_" + ww.uuid + "_1_" + string(rune('0'+cp)); ci.TransactionID != want {
			t.Errorf("checkpoint %d: transaction %s, want %s", cp, ci.TransactionID, want)
		}
		// the staged file is complete and synced before the commit
		b, err := os.ReadFile(ci.Moves[0].From)
		if err != nil || string(b) != strings.Join([]string{itoa(cp), itoa(cp * 10)}, ";") {
			t.Errorf("staged %q %v", b, err)
		}
		infos = append(infos, ci)
	}
	// a checkpoint id that goes backwards never reuses a transaction id
	w.Write(ctx, batchOf(tbl, []row.Value{row.IntValue(1)}))
	raw, _ := w.PrepareCommit(ctx, 1)
	var ci commitInfo
	json.Unmarshal(raw, &ci)
	if !strings.HasSuffix(ci.TransactionID, "_4") {
		t.Errorf("after checkpoint 3, a prepare for 1 used %s", ci.TransactionID)
	}
	w.Close(ctx)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestWriterCloseRemovesUnpreparedFiles(t *testing.T) {
	dir := t.TempDir()
	tbl := table("t", "id", "int")
	s := mustSink(t, sinkConf(dir, ""), tbl)
	ctx := context.Background()
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	w.Write(ctx, batchOf(tbl, []row.Value{row.IntValue(1)}))
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if left := files(t, filepath.Join(dir, "tmp")); len(left) > 0 {
		t.Errorf("left behind %v", names(left))
	}
	if _, err := os.Stat(filepath.Join(dir, "tmp", "seatunnel", "0")); !os.IsNotExist(err) {
		t.Errorf("empty staging directories stay: %v", err)
	}
}

func TestWriterRejectsShortRows(t *testing.T) {
	dir := t.TempDir()
	tbl := table("t", "id", "int", "x", "int")
	s := mustSink(t, sinkConf(dir, ""), tbl)
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	defer w.Close(context.Background())
	err := w.Write(context.Background(), batchOf(tbl, []row.Value{row.IntValue(1)}))
	if err == nil || !strings.Contains(err.Error(), "row of table t has 1 fields, the table has 2 columns") {
		t.Errorf("short row: %v", err)
	}
}

// TestSinkOptions shows what each writing option does to the files.
func TestSinkOptions(t *testing.T) {
	tbl := table("t", "id", "int", "name", "string", "at", "timestamp")
	rows := [][]row.Value{
		{row.IntValue(1), row.StringValue("a"), ts("2024-01-26T01:02:03.5")},
		{row.IntValue(2), row.NullValue(), row.NullValue()},
	}
	cases := []struct {
		name, conf string
		files      []string // contents, in file name order
		suffix     string
	}{
		{"defaults", "", []string{"1\u0001a\u00012024-01-26 01:02:03\n2\u0001\u0001"}, ".txt"},
		{"sink_columns order", "sink_columns = [NAME, id]", []string{"a\u00011\n\u00012"}, ".txt"},
		{"field_delimiter", `field_delimiter = "::"`, []string{"1::a::2024-01-26 01:02:03\n2::::"}, ".txt"},
		// the source reads the delimiter as a regular expression; the sink writes its text
		{"field_delimiter as written", `field_delimiter = "\\|"`, []string{`1\|a\|2024-01-26 01:02:03` + "\n" + `2\|\|`}, ".txt"},
		{"row_delimiter", `row_delimiter = "\r\n"`, []string{"1\u0001a\u00012024-01-26 01:02:03\r\n2\u0001\u0001"}, ".txt"},
		{"text header", "enable_header_write = true\nfield_delimiter = \"\\t\"", []string{"id\tname\tat\n1\ta\t2024-01-26 01:02:03\n2\t\t"}, ".txt"},
		{"csv", "file_format_type = csv\nenable_header_write = true", []string{"id,name,at\n1,a,2024-01-26 01:02:03\n2,,"}, ".csv"},
		{"json ignores header", "file_format_type = json\nenable_header_write = true", []string{`{"id":1,"name":"a","at":"2024-01-26T01:02:03.5"}` + "\n" + `{"id":2,"name":null,"at":null}`}, ".json"},
		{"datetime_format", `datetime_format = "yyyy-MM-dd HH:mm:ss.SSSSSS"`, []string{"1\u0001a\u00012024-01-26 01:02:03.500000\n2\u0001\u0001"}, ".txt"},
		{"batch_size", "batch_size = 1", []string{"1\u0001a\u00012024-01-26 01:02:03", "2\u0001\u0001"}, ".txt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTo(t, dir, c.conf, tbl, batchOf(tbl, rows...))
			got := files(t, filepath.Join(dir, "out"))
			ns := names(got)
			if len(ns) != len(c.files) {
				t.Fatalf("files %v", ns)
			}
			for i, n := range ns {
				if !strings.HasSuffix(n, c.suffix) {
					t.Errorf("%s lacks %s", n, c.suffix)
				}
				if got[n] != c.files[i] {
					t.Errorf("%s:\n got %q\nwant %q", n, got[n], c.files[i])
				}
			}
		})
	}
}

// TestMultiTableSink writes two tables through the registered LocalFile factory, with the
// table name in the path: each table's rows land in its own directory, a mixed batch is
// split, a restored writer commits what its snapshot left, and the committer publishes
// each table's files.
func TestMultiTableSink(t *testing.T) {
	dir := t.TempDir()
	users, orders := table("shop.users", "id", "int", "name", "string"), table("shop.orders", "id", "int", "total", "double")
	f, _, ok := connector.LookupSink("LocalFile")
	if !ok {
		t.Fatal("LocalFile is not registered")
	}
	conf := "path = " + quote(filepath.Join(dir, "${database_name}", "${table_name}")) + "\ntmp_path = " + quote(filepath.Join(dir, "tmp")) + "\nfile_format_type = csv"
	s, err := f(&connector.SinkContext{Options: conntest.Options(t, conf, "sink[0] LocalFile"), Job: connector.Job{ID: 5}, Inputs: []*catalog.Table{users, orders}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w, err := s.CreateWriter(connector.WriterContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: 5}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mixed := row.NewBatch(4)
	for i, tb := range []*catalog.Table{users, orders, users} {
		r := mixed.Add(row.Insert, tb.ID(), 2)
		r.Fields[0] = row.IntValue(int32(i))
		if tb == users {
			r.Fields[1] = row.StringValue("u" + itoa(int64(i)))
		} else {
			r.Fields[1] = row.DoubleValue(9.5)
		}
	}
	if err := w.Write(ctx, mixed); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, batchOf(orders, []row.Value{row.IntValue(7), row.DoubleValue(1)})); err != nil {
		t.Fatal(err)
	}
	info, err := w.PrepareCommit(ctx, 1)
	if err != nil || info == nil {
		t.Fatalf("prepare: %s %v", info, err)
	}
	state, err := w.SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	w.Close(ctx)
	// the writer is lost before the commit; its replacement commits the snapshot's
	// transaction and the committer's own commit finds it done
	w2, err := s.CreateWriter(connector.WriterContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: 5}}, [][]byte{state})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close(ctx)
	c, err := s.CreateCommitter()
	if err != nil || c == nil {
		t.Fatalf("committer %v %v", c, err)
	}
	if err := c.Commit(ctx, connector.CommitRequest{CheckpointID: 1, Final: true, Infos: [][]byte{info}}); err != nil {
		t.Fatal(err)
	}
	read := func(sub string) string {
		entries, err := os.ReadDir(filepath.Join(dir, "shop", sub))
		if err != nil || len(entries) != 1 {
			t.Fatalf("%s: %v %v", sub, entries, err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "shop", sub, entries[0].Name()))
		return string(b)
	}
	if got := read("users"); got != "0,u0\n2,u2" {
		t.Errorf("users file %q", got)
	}
	if got := read("orders"); got != "1,9.5\n7,1.0" {
		t.Errorf("orders file %q", got)
	}
	// an aborted checkpoint of both tables leaves nothing staged and publishes nothing
	if err := w2.Write(ctx, mixed); err != nil {
		t.Fatal(err)
	}
	info2, err := w2.PrepareCommit(ctx, 2)
	if err != nil || info2 == nil {
		t.Fatalf("prepare 2: %s %v", info2, err)
	}
	var perTable map[string][]byte
	if err := json.Unmarshal(info2, &perTable); err != nil || len(perTable) != 2 {
		t.Fatalf("commit info %s: %v", info2, err)
	}
	if err := c.Abort(ctx, [][]byte{info2}); err != nil {
		t.Fatal(err)
	}
	for id, raw := range perTable {
		var ci commitInfo
		if err := json.Unmarshal(raw, &ci); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(ci.TransactionDir); !os.IsNotExist(err) {
			t.Errorf("table %s: aborted transaction %s is still staged (%v)", id, ci.TransactionDir, err)
		}
	}
	if got := read("users"); got != "0,u0\n2,u2" {
		t.Errorf("users file after the abort %q", got)
	}
	// a row of a table the sink does not receive is an error naming it
	if err := w2.Write(ctx, batchOf(table("shop.other", "id", "int"), []row.Value{row.IntValue(1)})); err == nil || !strings.Contains(err.Error(), "shop.other") {
		t.Errorf("unknown table: %v", err)
	}
}

// TestPartitionByIsTheSinks: on LocalFile, partition_by names partition directories (in any
// case), so the planner does not take it as a request for a hash exchange; the sink stays
// fused with its source.
func TestPartitionByIsTheSinks(t *testing.T) {
	dir := t.TempDir()
	plan, err := planner.Plan(contract.ConfigSource{File: "job.conf", Text: `
env { job.mode = "BATCH" }
source { FakeSource { row.num = 10, schema = { fields { name = string, age = int } } } }
sink { LocalFile { path = ` + quote(dir) + `, partition_by = [AGE] } }`}, connector.Job{ID: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Pipelines[0]
	if len(p.TaskGroups) != 1 || len(p.Edges) != 0 {
		t.Fatalf("plan has %d task groups and %d edges, want the sink fused with the source", len(p.TaskGroups), len(p.Edges))
	}
}
