package localfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/xuri/excelize/v2"
)

// The parquet, orc and excel configs of SeaTunnel's LocalFile suite, and the data files
// LocalFileIT copies in for them, join the suite of seatunnel_e2e_test.go.
func init() {
	for at, fixture := range map[string]string{
		"/seatunnel/read/parquet/name=tyrantlucifer/hobby=coding/e2e.parquet":          "parquet/e2e.parquet",
		"/seatunnel/read/orc/name=tyrantlucifer/hobby=coding/e2e.orc":                  "orc/e2e.orc",
		"/seatunnel/read/orc_cast/e2e.orc":                                             "orc/orc_for_cast.orc",
		"/seatunnel/read/excel/name=tyrantlucifer/hobby=coding/e2e.xlsx":               "excel/e2e.xlsx",
		"/seatunnel/read/excel/name=tyrantlucifer/hobby=coding/e2e.xls":                "excel/e2e.xls",
		"/seatunnel/read/excel_filter/name=tyrantlucifer/hobby=coding/e2e_filter.xlsx": "excel/e2e.xlsx",
	} {
		seatunnelFixtures[at] = fixture
	}
	// LocalFileWithMultipleTableIT copies the xlsx workbook alone into its excel folder
	seatunnelWithout["excel/local_excel_to_assert_with_multipletable.conf"] = []string{"/seatunnel/read/excel/name=tyrantlucifer/hobby=coding/e2e.xls"}
	seatunnelCases = append(seatunnelCases,
		seatunnelCase{"parquet/fake_to_local_file_parquet.conf", "", wroteParquetRows("tmp/seatunnel/parquet", ".gz.parquet", 5)},
		seatunnelCase{"parquet/local_file_parquet_projection_to_assert.conf", "", nil},
		seatunnelCase{"parquet/local_file_parquet_to_assert.conf", "", nil},
		seatunnelCase{"parquet/local_file_to_console.conf", "", printed(0)},
		seatunnelCase{"orc/fake_to_local_file_orc.conf", noORC, nil},
		seatunnelCase{"orc/local_file_orc_projection_to_assert.conf", noORC, nil},
		seatunnelCase{"orc/local_file_orc_to_assert.conf", noORC, nil},
		seatunnelCase{"orc/local_file_orc_to_assert_with_time_and_cast.conf", noORC, nil},
		seatunnelCase{"excel/fake_to_local_excel.conf", "", wroteExcelRows("tmp/seatunnel/excel", 5)},
		seatunnelCase{"excel/local_excel_to_assert.conf", noXLS, nil},
		seatunnelCase{"excel/local_excel_projection_to_assert.conf", noXLS, nil},
		seatunnelCase{"excel/local_filter_excel_to_assert.conf", "", nil},
		seatunnelCase{"excel/local_excel_zip_to_assert.conf", "", nil},
		seatunnelCase{"excel/local_excel_multi_zip_to_assert.conf", "", nil},
		// LocalFileWithMultipleTableIT
		seatunnelCase{"excel/local_excel_to_assert_with_multipletable.conf", "", nil},
		seatunnelCase{"parquet/local_file_parquet_to_assert_with_multipletable.conf", "", nil},
		seatunnelCase{"orc/local_file_orc_to_assert_with_multipletable.conf", noORC, nil},
	)
}

const (
	noORC = `file_format_type: "orc" cannot be read or written: no Go ORC library is available to Strait yet`
	noXLS = `e2e.xls: .xls (BIFF) workbooks cannot be read: no Go library for them is available to Strait; save the workbook as .xlsx`
)

// wroteExcelRows checks that a sink wrote n rows below a header in the workbooks under dir.
func wroteExcelRows(dir string, n int) func(t *testing.T, root, console string) {
	return func(t *testing.T, root, _ string) {
		rows := 0
		got := files(t, filepath.Join(root, dir))
		for name, content := range got {
			if !strings.HasSuffix(name, ".xlsx") {
				t.Errorf("%s does not end in .xlsx", name)
			}
			f, err := excelize.OpenReader(strings.NewReader(content))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			all, err := f.GetRows(f.GetSheetList()[0])
			if err != nil || len(all) == 0 || all[0][0] != "c_map" {
				t.Fatalf("%s: rows %v, %v", name, all, err)
			}
			rows += len(all) - 1
		}
		if rows != n {
			t.Errorf("%d rows in %v, want %d", rows, names(got), n)
		}
	}
}

// wroteParquetRows checks that a sink wrote n rows in parquet files ending in suffix under
// dir, each holding SeaTunnel's message with lower-case column names.
func wroteParquetRows(dir, suffix string, n int) func(t *testing.T, root, console string) {
	return func(t *testing.T, root, _ string) {
		rows := int64(0)
		got := files(t, filepath.Join(root, dir))
		for name, content := range got {
			if !strings.HasSuffix(name, suffix) {
				t.Errorf("%s does not end in %s", name, suffix)
			}
			pf, err := parquet.OpenFile(strings.NewReader(content), int64(len(content)))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if pf.Schema().Name() != parquetMessageName {
				t.Errorf("%s: message %s", name, pf.Schema().Name())
			}
			for _, c := range pf.Root().Columns() {
				if c.Name() != strings.ToLower(c.Name()) {
					t.Errorf("%s: column %s is not in lower case", name, c.Name())
				}
			}
			rows += pf.NumRows()
		}
		if rows != int64(n) {
			t.Errorf("%d rows in %v, want %d", rows, names(got), n)
		}
	}
}

// Copies of the passing parquet configs with one expectation broken must fail, naming it.
func TestSeaTunnelParquetE2EBrokenCopies(t *testing.T) {
	keepTmpClean(t)
	cases := []struct {
		config, old, new, want string
	}{
		{"parquet/local_file_parquet_to_assert.conf", "rule_value = 5", "rule_value = 4", "row num :5 fail rule"},
		{"parquet/local_file_parquet_to_assert.conf", "field_name = c_double\n          field_type = double", "field_name = c_double\n          field_type = float", "fieldName=c_double, fieldType=FLOAT"},
		{"parquet/local_file_parquet_projection_to_assert.conf", "read_columns = [c_string, c_boolean, c_double]", "read_columns = [c_string, c_boolean, c_nope]", `read_columns[2]: unknown column "c_nope"`},
		{"parquet/local_file_parquet_projection_to_assert.conf", "read_columns = [c_string, c_boolean, c_double]", "read_columns = [c_string, c_boolean]", `unknown field "c_double"`},
	}
	for _, c := range cases {
		t.Run(c.config+"/"+c.new, func(t *testing.T) {
			root := seatunnelRoot(t)
			text := seatunnelConfig(t, c.config, root)
			if !strings.Contains(text, c.old) {
				t.Fatalf("%q not found in %s", c.old, c.config)
			}
			_, err := runSeaTunnel(t, c.config, root, strings.Replace(text, c.old, c.new, 1))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("broken copy: %v, want %q", err, c.want)
			}
		})
	}
	// the fake source's parquet file reads back as the rows it wrote
	root := seatunnelRoot(t)
	const write = "parquet/fake_to_local_file_parquet.conf"
	if _, err := runSeaTunnel(t, write, root, seatunnelConfig(t, write, root)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "tmp/seatunnel/parquet")); err != nil {
		t.Fatal(err)
	}
	src := mustSource(t, srcConf(filepath.Join(root, "tmp/seatunnel/parquet"), "file_format_type = parquet"))
	var cols []string
	for _, c := range src.Tables()[0].Columns {
		cols = append(cols, c.Name+" "+c.Type.String())
	}
	want := "c_map map<string, string>|c_array array<int>|c_string string|c_boolean boolean|c_tinyint tinyint|c_smallint smallint|c_int int|c_bigint bigint|c_float float|c_double double|c_bytes bytes|c_date date|c_decimal decimal(38, 18)|c_timestamp timestamp|c_row {c_map = map<string, string>, c_array = array<int>, c_string = string, c_boolean = boolean, c_tinyint = tinyint, c_smallint = smallint, c_int = int, c_bigint = bigint, c_float = float, c_double = double, c_bytes = bytes, c_date = date, c_decimal = decimal(38, 18), c_timestamp = timestamp}"
	if got := strings.Join(cols, "|"); got != want {
		t.Errorf("columns of the written file\n%s\nwant\n%s", got, want)
	}
	if rows := readRows(t, src, 1); len(rows) != 5 {
		t.Errorf("%d rows", len(rows))
	}
}
