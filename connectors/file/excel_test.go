package file

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// excelValues is allTypes' row as an excel cell keeps it: times and timestamps to the
// millisecond (a cell's date is a double of days).
func excelValues(vals []row.Value) []row.Value { return truncated(vals, int64(time.Millisecond)) }

func TestExcelRoundTrip(t *testing.T) {
	tbl, vals := allTypes()
	vals = excelValues(vals)
	second := append([]row.Value(nil), vals...)
	for i := range second {
		if i%2 == 0 {
			second[i] = row.NullValue()
		}
	}
	for _, header := range []string{"", "enable_header_write = true", "enable_header_write = false"} {
		t.Run(strings.ReplaceAll(header, " = ", " "), func(t *testing.T) {
			dir := t.TempDir()
			writeTo(t, dir, "file_format_type = excel\nsheet_name = data\nfield_delimiter = \";\"\n"+header, tbl, batchOf(tbl, vals, second))
			out := filepath.Join(dir, "out")
			for name := range files(t, out) {
				if !strings.HasSuffix(name, "_0.xlsx") {
					t.Errorf("file %s", name)
				}
			}
			skip := "skip_header_row_number = 1\n"
			if header == "enable_header_write = false" {
				skip = ""
			}
			src := mustSource(t, srcConf(out, "file_format_type = excel\nsheet_name = data\nfield_delimiter = \";\"\n"+skip+schemaOf(tbl)))
			rows := readRows(t, src, 1)
			if len(rows) != 2 {
				t.Fatalf("%d rows", len(rows))
			}
			want := [][]row.Value{vals, second}
			for i, r := range rows {
				for j := range r.Fields {
					w := want[i][j]
					if w.T == types.Decimal && !w.IsNull() {
						w = dec(w.Unscaled().Int64(), w.DecimalScale())
					}
					if !row.Equal(r.Fields[j], w) {
						t.Errorf("row %d %s: got %v, want %v", i, tbl.Columns[j].Name, r.Fields[j], w)
					}
				}
			}
		})
	}
}

// SeaTunnel's own workbook: five rows below a header, numbers as POI wrote them
// (1.33322613E9), dates as serial numbers, a nested row as text split at ";".
func TestExcelSeaTunnelFile(t *testing.T) {
	schema := `schema { fields {
        c_map = "map<string, string>", c_array = "array<int>", c_string = string, c_boolean = boolean
        c_tinyint = tinyint, c_smallint = smallint, c_int = int, c_bigint = bigint, c_float = float, c_double = double
        c_bytes = bytes, c_date = date, c_decimal = "decimal(38, 18)", c_timestamp = timestamp
        c_row = { c_map = "map<string, string>", c_array = "array<int>", c_string = string, c_boolean = boolean, c_tinyint = tinyint
          c_smallint = smallint, c_int = int, c_bigint = bigint, c_float = float, c_double = double, c_bytes = bytes, c_date = date
          c_decimal = "decimal(38, 18)", c_timestamp = timestamp } } }`
	src := mustSource(t, srcConf(filepath.Join(seatunnelDir, "excel"), "file_format_type = excel\nfile_filter_pattern = \"e2e.xlsx\"\nfield_delimiter = \";\"\nskip_header_row_number = 1\n"+schema))
	rows := readRows(t, src, 1)
	if len(rows) != 5 {
		t.Fatalf("%d rows", len(rows))
	}
	r := rows[0].Fields
	checks := []struct {
		col  int
		want string
	}{
		{2, "rDAya"}, {3, "true"}, {4, "25"}, {6, "1333226130"}, {11, "2023-06-13"}, {13, "2023-05-17T00:36:12"},
	}
	for _, c := range checks {
		if got := r[c.col].String(); got != c.want {
			t.Errorf("column %d: %s, want %s", c.col, got, c.want)
		}
	}
	if r[10].T != types.Bytes || r[10].S != "[77, 116, 89, 118, 119]" {
		t.Errorf("c_bytes %v: SeaTunnel reads the text's bytes", r[10])
	}
	if m := r[0].Map(); m == nil || len(m.Keys) != 5 {
		t.Errorf("c_map %v", r[0])
	}
	nested := r[14].Fields()
	if len(nested) != 14 || nested[2].Str() != "YjilG" || nested[11].String() != "2023-12-18" || nested[13].String() != "2023-03-04T07:08:58" {
		t.Errorf("c_row %v", r[14])
	}
	if got := nested[12].String(); got != "76273205606379580629.661783233489743766" {
		t.Errorf("c_row.c_decimal %s", got)
	}
}

// Rows are read from a sheet as they stream: a reader's snapshot resumes after the rows it
// had read.
func TestExcelResumeAndErrors(t *testing.T) {
	dir := t.TempDir()
	tbl := benchTable()
	writeTo(t, dir, "file_format_type = excel", tbl, benchBatch(tbl, 100))
	out := filepath.Join(dir, "out")
	src := mustSource(t, srcConf(out, "file_format_type = excel\nskip_header_row_number = 1\n"+benchSchema))
	ec := newEnumSplits(t, src)
	first := readSplits(t, src, ec, 9, 2)
	rest := readSplits(t, src, snapshotAfter(t, src, ec, 9, 2), 9, -1)
	if len(first) != 18 || len(first)+len(rest) != 100 || rest[0].Fields[0].I != first[17].Fields[0].I+1 {
		t.Fatalf("%d + %d rows", len(first), len(rest))
	}

	bad := mustSource(t, srcConf(out, "file_format_type = excel\n"+benchSchema))
	err := readErr(t, bad)
	if err == nil || !strings.Contains(err.Error(), ".xlsx: row 1: column \"id\"") {
		t.Errorf("a header read as data: %v", err)
	}
	noSheet := mustSource(t, srcConf(out, "file_format_type = excel\nsheet_name = nope\n"+benchSchema))
	if err := readErr(t, noSheet); err == nil || !strings.Contains(err.Error(), `the workbook has no sheet "nope" (its sheets: Sheet1)`) {
		t.Errorf("unknown sheet: %v", err)
	}
	writeFile(t, filepath.Join(dir, "broken", "a.xlsx"), "PK not a zip")
	broken := mustSource(t, srcConf(filepath.Join(dir, "broken"), "file_format_type = excel\n"+benchSchema))
	if err := readErr(t, broken); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "broken", "a.xlsx")+": not an xlsx workbook") {
		t.Errorf("broken workbook: %v", err)
	}
	xls := mustSource(t, srcConf(filepath.Join(seatunnelDir, "excel"), "file_format_type = excel\nfile_filter_pattern = \"e2e.xls\"\n"+benchSchema))
	if err := readErr(t, xls); err == nil || !strings.Contains(err.Error(), ".xls (BIFF) workbooks cannot be read") {
		t.Errorf("xls: %v", err)
	}
	if _, err := newTestSource(t, srcConf(out, "file_format_type = excel")); err == nil || !strings.Contains(err.Error(), "schema: option is required for the excel format") {
		t.Errorf("no schema: %v", err)
	}
	if _, err := newTestSink(t, sinkConf(dir, "file_format_type = excel\nsheet_name = \"a/b\""), tbl); err == nil || !strings.Contains(err.Error(), `sheet_name: "a/b" is not a sheet name`) {
		t.Errorf("bad sheet name: %v", err)
	}
}

func newEnumSplits(t *testing.T, src *Source) []connector.Split {
	t.Helper()
	ec := connNoopEnum()
	conntest.RunEnumerator(context.Background(), t, src, ec, nil)
	return ec.splits
}

// The written workbook holds typed cells: numbers, booleans and date cells with their
// formats, as SeaTunnel's ExcelGenerator writes them.
func TestExcelCellTypes(t *testing.T) {
	dir := t.TempDir()
	tbl := table("db.t", "n", "bigint", "b", "boolean", "d", "date", "ts", "timestamp", "s", "string")
	writeTo(t, dir, "file_format_type = excel", tbl, batchOf(tbl, []row.Value{row.BigIntValue(42), row.BoolValue(true), date("2024-01-26"), ts("2024-01-26T12:34:56"), row.StringValue("x")}))
	out := filepath.Join(dir, "out")
	for name := range files(t, out) {
		f, err := excelize.OpenFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		header, _ := f.GetRows("Sheet1")
		if len(header) != 2 || strings.Join(header[0], ",") != "n,b,d,ts,s" {
			t.Fatalf("rows %q", header)
		}
		if strings.Join(header[1], ",") != "42,TRUE,2024-01-26,2024-01-26 12:34:56,x" {
			t.Errorf("formatted row %q", header[1])
		}
		for cell, want := range map[string]excelize.CellType{"A2": excelize.CellTypeUnset, "B2": excelize.CellTypeBool, "E2": excelize.CellTypeSharedString} {
			// a number cell has no type attribute
			if got, _ := f.GetCellType("Sheet1", cell); got != want && !(want == excelize.CellTypeSharedString && got == excelize.CellTypeInlineString) {
				t.Errorf("%s is of type %v, want %v", cell, got, want)
			}
		}
	}
}
