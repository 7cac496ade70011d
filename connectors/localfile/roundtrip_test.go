package localfile

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"

	_ "github.com/strait-dev/strait/connectors/assert"
	_ "github.com/strait-dev/strait/connectors/fake"
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
			s := mustSink(t, sinkConf(dir, "file_format_type = "+c.format), tbl)
			writeAll(t, s, batchOf(tbl, vals, second))
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

func readE2E(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/seatunnel-e2e/checkpoint/batch", name))
	if err != nil {
		t.Fatalf("e2e config: %v", err)
	}
	return string(b)
}

func runJob(t *testing.T, name, text string) error {
	t.Helper()
	root, err := conntest.Parse([]byte(text), name, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return conntest.RunJob(context.Background(), root)
}

// TestSeaTunnelCheckpointBatchE2E runs SeaTunnel's checkpoint/batch pair unchanged but
// for the directory: FakeSource writes 100 rows into LocalFile, then a LocalFile source
// reads the folder back into an Assert sink that wants exactly 100 rows.
func TestSeaTunnelCheckpointBatchE2E(t *testing.T) {
	if testing.Short() {
		t.Skip("FakeSource pauses 3 s between its five splits")
	}
	t.Parallel()
	// the first config stages under the default tmp_path; leave no empty folders behind
	for _, d := range []string{"/tmp/seatunnel", "/tmp/seatunnel/seatunnel"} {
		if _, err := os.Stat(d); os.IsNotExist(err) {
			t.Cleanup(func() { os.Remove(d) })
		}
	}
	const sinkDir = "/tmp/seatunnel/config/checkpoint-batch-enable-test-resources/sinkfile"
	dir := filepath.Join(t.TempDir(), "sinkfile")
	write := readE2E(t, "batch_fakesource_to_localfile_checkpoint_enable.conf")
	read := readE2E(t, "sink_file_text_to_assert.conf")
	if !strings.Contains(write, sinkDir+"/") || !strings.Contains(read, sinkDir) {
		t.Fatal("the e2e configs no longer name the expected folder")
	}
	if err := runJob(t, "write.conf", strings.ReplaceAll(write, sinkDir+"/", dir+"/")); err != nil {
		t.Fatalf("write job: %v", err)
	}
	got := files(t, dir)
	lines := 0
	day := time.Now().Format("2006.01.02")
	re := regexp.MustCompile(`^T_1_[0-9a-f]{10}_0_1_(\d{4}\.\d{2}\.\d{2})_0\.txt$`)
	for name, content := range got {
		lines += strings.Count(content, "\n") + 1
		m := re.FindStringSubmatch(name)
		if m == nil {
			t.Errorf("file name %s", name)
		} else if m[1] != day && m[1] != time.Now().Add(-time.Minute).Format("2006.01.02") {
			t.Errorf("${now} in %s", name)
		}
		if f := strings.Split(strings.SplitN(content, "\n", 2)[0], "\u0001"); len(f) != 3 {
			t.Errorf("first line %q", f)
		}
	}
	if len(got) != 1 || lines != 100 {
		t.Errorf("%d files, %d lines", len(got), lines)
	}
	readText := strings.ReplaceAll(read, sinkDir, dir)
	if err := runJob(t, "read.conf", readText); err != nil {
		t.Fatalf("read job: %v", err)
	}
	// the Assert sink does check the count
	broken := strings.Replace(readText, "rule_value = 100\n        }\n      ]", "rule_value = 101\n        }\n      ]", 1)
	if broken == readText {
		t.Fatal("could not break the assert config")
	}
	if err := runJob(t, "read.conf", broken); err == nil || !strings.Contains(err.Error(), "MIN_ROW") {
		t.Errorf("broken copy: %v", err)
	}
}
