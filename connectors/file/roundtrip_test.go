package file

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/row"
)

// TestRoundTrip writes every type with the sink, commits, and reads it back with the
// source, for each format.
func TestRoundTrip(t *testing.T) {
	tbl, vals := allTypes()
	var fields []string
	for _, c := range tbl.Columns {
		fields = append(fields, c.Name+" = "+quote(c.Type.String()))
	}
	schema := "schema { table = \"db.all\", fields { " + strings.Join(fields, "\n") + " } }"
	// text keeps seconds of times and timestamps, in the default layouts
	truncated := append([]row.Value(nil), vals...)
	truncated[11] = row.TimeValue(int64(12*time.Hour + 34*time.Minute + 56*time.Second))
	truncated[12] = ts("2024-01-26T12:34:56")
	second := append([]row.Value(nil), vals...)
	second[0] = row.StringValue("second row")
	second[4] = row.NullValue()
	second[13] = row.ArrayValue([]row.Value{})
	truncSecond := append([]row.Value(nil), second...)
	truncSecond[11], truncSecond[12] = truncated[11], truncated[12]
	truncSecond[13] = row.NullValue() // an empty array is an empty text field: null
	cases := []struct {
		format string
		want   [][]row.Value
	}{
		{"text", [][]row.Value{truncated, truncSecond}},
		{"csv", [][]row.Value{truncated, truncSecond}},
		{"json", [][]row.Value{vals, second}},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			dir := t.TempDir()
			writeTo(t, dir, "file_format_type = "+c.format, tbl, batchOf(tbl, vals, second))
			src := mustSource(t, srcConf(filepath.Join(dir, "out"), "file_format_type = "+c.format+"\n"+schema))
			rows := readRows(t, src, 1)
			if len(rows) != 2 {
				t.Fatalf("%d rows", len(rows))
			}
			for i, r := range rows {
				if r.Table != "db.all" {
					t.Errorf("table %s", r.Table)
				}
				for j := range r.Fields {
					if !row.Equal(r.Fields[j], c.want[i][j]) {
						t.Errorf("row %d %s: got %v, want %v", i, tbl.Columns[j].Name, r.Fields[j], c.want[i][j])
					}
				}
			}
		})
	}
}

func TestRoundTripPartitioned(t *testing.T) {
	dir := t.TempDir()
	tbl := table("t", "id", "bigint", "city", "string")
	s := mustSink(t, sinkConf(dir, "file_format_type = json\npartition_by = [city]"), tbl)
	writeAll(t, s, batchOf(tbl,
		[]row.Value{row.BigIntValue(1), row.StringValue("ams")},
		[]row.Value{row.BigIntValue(2), row.StringValue("rtm")},
		[]row.Value{row.BigIntValue(3), row.StringValue("ams")}))
	src := mustSource(t, srcConf(filepath.Join(dir, "out"), "file_format_type = json\nschema { fields { id = bigint } }"))
	var got []string
	for _, r := range readRows(t, src, 2) {
		got = append(got, render(r))
	}
	if strings.Join(got, ",") != "1|ams,3|ams,2|rtm" {
		t.Errorf("rows %v", got)
	}
}
