package localfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/strait-dev/strait/connectors/console"

	_ "github.com/strait-dev/strait/connectors/assert"
	_ "github.com/strait-dev/strait/connectors/fake"
)

// SeaTunnel's LocalFile end-to-end suite (connector-file-local-e2e: LocalFileIT and
// LocalFileWithMultipleTableIT), its text and json configs and the data files they read,
// kept unchanged in testdata/seatunnel.
const seatunnelDir = "testdata/seatunnel"

// seatunnelFixtures says where LocalFileIT copies each data file in its container.
var seatunnelFixtures = map[string]string{
	"/seatunnel/read/json/name=tyrantlucifer/hobby=coding/e2e.json": "json/e2e.json",
	"/seatunnel/read/encoding/json/e2e_gbk.json":                    "json/e2e_gbk.json",
	"/seatunnel/read/text/name=tyrantlucifer/hobby=coding/e2e.txt":  "text/e2e.txt",
	"/seatunnel/read/encoding/text/e2e_gbk.txt":                     "text/e2e_gbk.txt",
	"/seatunnel/read/text_delimiter/e2e.txt":                        "text/e2e_delimiter.txt",
	"/seatunnel/read/text_time_format/e2e.txt":                      "text/e2e_time_format.txt",
	"/seatunnel/read/xml/e2e.xml":                                   "xml/e2e.xml",
	"/seatunnel/read/binary/cat.png":                                "binary/cat.png",
}

// seatunnelEmptyDirs are the folders LocalFileIT creates empty.
var seatunnelEmptyDirs = []string{"/tmp/fake_empty"}

// The reasons a config cannot pass.
const (
	noLZO = `compress_codec: "lzo" is not supported by Strait's LocalFile: no Go library for LZO (lzop) is available to Strait; use gzip, zstd or lz4`
)

// seatunnelCase is one config of the suite: it passes, or fails for the reason given.
// check, when set, looks at what a passing config left under root and printed.
type seatunnelCase struct {
	config string
	fails  string
	check  func(t *testing.T, root, console string)
}

// seatunnelBefore names the configs that read what another config of the suite wrote: that
// one runs first in the same folder, as LocalFileIT runs them one after the other.
var seatunnelBefore = map[string]string{
	"binary/local_file_binary_to_assert.conf": "binary/local_file_binary_to_local_file_binary.conf",
}

// seatunnelWithout names, per config, the data files its Java test does not copy in, where
// another test of the suite does.
var seatunnelWithout = map[string][]string{}

var seatunnelCases = []seatunnelCase{
	{"json/fake_to_local_file_json.conf", "", wroteJSONRows("tmp/seatunnel/json", 5)},
	{"json/fake_to_local_file_json_save_mode.conf", "", nil},
	{"json/fake_to_local_file_json_with_encoding.conf", "", wroteGBK("tmp/seatunnel/encoding/json", 4, `"c_string":"\"你好，世界\"ABC123!@#"`)},
	{"json/local_file_json_lzo_to_console.conf", noLZO, nil},
	{"json/local_file_json_multi_zip_to_assert.conf", "", nil},
	{"json/local_file_json_to_assert.conf", "", nil},
	{"json/local_file_json_to_assert_with_multipletable.conf", "", nil},
	{"json/local_file_json_to_console_with_encoding.conf", "", printedAll(4, "你好，世界ABC123!@#", "海底隧道", "GBK字符﨎")},
	{"json/local_file_json_zip_to_assert.conf", "", nil},
	{"json/local_file_to_console.conf", "", printed(0)},
	{"text/fake_to_local_file_text.conf", noLZO, nil},
	{"text/fake_to_local_file_with_encoding.conf", "", wroteGBK("tmp/seatunnel/encoding/text", 4, "\"你好，世界\"ABC123!@#")},
	{"text/fake_to_local_file_with_multiple_table.conf", noLZO, nil},
	{"text/local_file_delimiter_assert.conf", "", nil},
	{"text/local_file_multi_tar_gz_text_to_assert.conf", "", nil},
	{"text/local_file_multi_tar_text_to_assert.conf", "", nil},
	{"text/local_file_multi_zip_text_to_assert.conf", "", nil},
	{"text/local_file_tar_gz_text_to_assert.conf", "", nil},
	{"text/local_file_tar_text_to_assert.conf", "", nil},
	{"text/local_file_text_lzo_to_assert.conf", noLZO, nil},
	{"text/local_file_text_projection_to_assert.conf", "", nil},
	{"text/local_file_text_skip_headers.conf", "", nil},
	{"text/local_file_text_to_assert.conf", "", nil},
	{"text/local_file_text_to_assert_with_multipletable.conf", "", nil},
	{"text/local_file_text_to_console_with_encoding.conf", "", printedAll(4, "你好，世界ABC123!@#", "海底隧道", "GBK字符﨎")},
	{"text/local_file_time_format_assert.conf", "", nil},
	{"text/local_file_zip_text_to_assert.conf", "", nil},
	{"xml/local_file_xml_to_assert.conf", "", nil},
	{"xml/local_file_zip_xml_to_assert.conf", "", nil},
	{"binary/local_file_binary_to_local_file_binary.conf", "", sameFile("seatunnel/read/binary2/cat.png", "binary/cat.png")},
	{"binary/local_file_binary_to_assert.conf", "", nil},
}

// seatunnelRoot stands in for SeaTunnel's container: a temporary folder holding the data
// files where LocalFileIT puts them.
func seatunnelRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for at, fixture := range seatunnelFixtures {
		b, err := os.ReadFile(filepath.Join(seatunnelDir, fixture))
		if err != nil {
			t.Fatalf("fixture: %v", err)
		}
		writeFile(t, filepath.Join(root, at), string(b))
	}
	writeSeaTunnelArchives(t, root)
	for _, d := range seatunnelEmptyDirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// seatunnelConfig reads a config of the suite as it is on disk and, in memory only, moves
// the absolute paths it names (/seatunnel/..., /tmp/...) under root; nothing else changes.
func seatunnelConfig(t *testing.T, name, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(seatunnelDir, name))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return strings.NewReplacer(`"/seatunnel/`, `"`+root+`/seatunnel/`, `"/tmp/`, `"`+root+`/tmp/`).Replace(string(b))
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runSeaTunnel runs a config of the suite under root and returns what Console printed.
func runSeaTunnel(t *testing.T, name, root, text string) (string, error) {
	t.Helper()
	out := &syncBuffer{}
	prev := console.SetOutput(out)
	defer console.SetOutput(prev)
	err := runJob(t, name, text)
	return out.String(), err
}

// keepTmpClean removes the staging folders the sinks of a test leave under the default
// tmp_path (/tmp/seatunnel), when they were not there before and are empty.
func keepTmpClean(t *testing.T) {
	for _, d := range []string{"/tmp/seatunnel", "/tmp/seatunnel/seatunnel"} {
		if _, err := os.Stat(d); os.IsNotExist(err) {
			t.Cleanup(func() { os.Remove(d) })
		}
	}
}

func TestSeaTunnelLocalFileE2E(t *testing.T) {
	keepTmpClean(t)
	for _, c := range seatunnelCases {
		t.Run(c.config, func(t *testing.T) {
			root := seatunnelRoot(t)
			for _, f := range seatunnelWithout[c.config] {
				if err := os.Remove(filepath.Join(root, f)); err != nil {
					t.Fatal(err)
				}
			}
			if before := seatunnelBefore[c.config]; before != "" {
				if _, err := runSeaTunnel(t, before, root, seatunnelConfig(t, before, root)); err != nil {
					t.Fatalf("%s, run before: %v", before, err)
				}
			}
			out, err := runSeaTunnel(t, c.config, root, seatunnelConfig(t, c.config, root))
			switch {
			case c.fails == "" && err != nil:
				t.Fatalf("failed: %v", err)
			case c.fails != "" && err == nil:
				t.Fatalf("passed, but was expected to fail with %q: update the case", c.fails)
			case c.fails != "" && !strings.Contains(err.Error(), c.fails):
				t.Fatalf("failed with\n  %v\nexpected\n  %s", err, c.fails)
			}
			if c.check != nil && err == nil {
				c.check(t, root, out)
			}
		})
	}
}

// wroteJSONRows checks that a sink wrote n json objects in the files under dir.
func wroteJSONRows(dir string, n int) func(t *testing.T, root, console string) {
	return func(t *testing.T, root, _ string) {
		got := files(t, filepath.Join(root, dir))
		lines := 0
		for name, content := range got {
			for _, l := range strings.Split(content, "\n") {
				if !strings.HasPrefix(l, "{") || !strings.HasSuffix(l, "}") {
					t.Errorf("%s: line %q is not a json object", name, l)
				}
				lines++
			}
		}
		if lines != n {
			t.Errorf("%d rows in %v, want %d", lines, names(got), n)
		}
	}
}

// printed checks how many lines Console printed.
func printed(n int) func(t *testing.T, root, console string) {
	return func(t *testing.T, _, console string) {
		if got := strings.Count(console, "\n"); got != n {
			t.Errorf("Console printed %d lines, want %d:\n%s", got, n, console)
		}
	}
}

// LocalFileIT's save-mode test: the job writes one file into an empty folder, and run again
// it replaces the folder (RECREATE_SCHEMA), so the folder still holds one file.
func TestSeaTunnelLocalFileSaveModeE2E(t *testing.T) {
	keepTmpClean(t)
	const name = "json/fake_to_local_file_json_save_mode.conf"
	root := seatunnelRoot(t)
	dir := filepath.Join(root, "tmp/seatunnel/localfile/json/fake")
	count := func() int {
		entries, err := os.ReadDir(dir)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return len(entries)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d files before the first run", n)
	}
	for run := 1; run <= 2; run++ {
		if _, err := runSeaTunnel(t, name, root, seatunnelConfig(t, name, root)); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if n := count(); n != 1 {
			t.Fatalf("run %d: %d files in %s, want 1", run, n, dir)
		}
	}
	// without the save modes the second run adds a file
	text := seatunnelConfig(t, name, root)
	for _, mode := range []string{`"schema_save_mode"="RECREATE_SCHEMA"`, `"data_save_mode"="DROP_DATA"`} {
		if !strings.Contains(text, mode) {
			t.Fatalf("the config no longer says %s", mode)
		}
		text = strings.Replace(text, mode, "", 1)
	}
	if _, err := runSeaTunnel(t, name, root, text); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 2 {
		t.Errorf("appending: %d files, want 2", n)
	}
}

// Copies of the passing configs with one expectation broken must fail, naming it.
func TestSeaTunnelLocalFileE2EBrokenCopies(t *testing.T) {
	keepTmpClean(t)
	cases := []struct {
		config, old, new, want string
	}{
		{"text/local_file_delimiter_assert.conf", `equals_to = "qwer"`, `equals_to = "qwe"`, "field c_string = qwer is not equal to equals_to qwe"},
		{"text/local_file_delimiter_assert.conf", `delimiter = "\\|"`, `delimiter = "\\|x"`, `e2e.txt:1: 1 fields, the schema has 15 columns (missing "c_array")`},
		{"text/local_file_text_to_assert.conf", "rule_value = 5", "rule_value = 4", "row num :5 fail rule: AssertFieldRule.AssertRule(ruleType=MAX_ROW, ruleValue=4.0"},
		{"text/local_file_text_skip_headers.conf", "rule_value = 4", "rule_value = 3", "row num :4 fail rule"},
		{"text/local_file_text_projection_to_assert.conf", "field_name = hobby", "field_name = c_int", `unknown field "c_int"`},
		{"text/local_file_time_format_assert.conf", "read_columns = [c_timestamp]", "read_columns = [c_string]", `unknown field "c_timestamp"`},
		{"json/local_file_json_to_assert.conf", "rule_value = 5", "rule_value = 4", "row num :5 fail rule"},
		{"json/local_file_json_to_assert.conf", "field_name = c_double\n          field_type = double", "field_name = c_double\n          field_type = float", "fieldName=c_double, fieldType=FLOAT"},
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
}
