package e2e

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// SeaTunnel's LocalFile end-to-end suite (connector-file-local-e2e: LocalFileIT and
// LocalFileWithMultipleTableIT), its configs and the data files they read kept unchanged in
// connectors/localfile/testdata/seatunnel, run by strait run on a folder that stands in for
// SeaTunnel's container: the data files where LocalFileIT copies them, the archives it builds,
// and the absolute paths the configs name moved under that folder, in memory only.

// localFileSuite names a file of the suite.
func localFileSuite(parts ...string) string { return connectorSuite("localfile", parts...) }

// localFileFixtures says where LocalFileIT and LocalFileWithMultipleTableIT copy each data
// file in their container.
var localFileFixtures = map[string]string{
	"/seatunnel/read/json/name=tyrantlucifer/hobby=coding/e2e.json":                "json/e2e.json",
	"/seatunnel/read/encoding/json/e2e_gbk.json":                                   "json/e2e_gbk.json",
	"/seatunnel/read/text/name=tyrantlucifer/hobby=coding/e2e.txt":                 "text/e2e.txt",
	"/seatunnel/read/encoding/text/e2e_gbk.txt":                                    "text/e2e_gbk.txt",
	"/seatunnel/read/text_delimiter/e2e.txt":                                       "text/e2e_delimiter.txt",
	"/seatunnel/read/text_time_format/e2e.txt":                                     "text/e2e_time_format.txt",
	"/seatunnel/read/xml/e2e.xml":                                                  "xml/e2e.xml",
	"/seatunnel/read/binary/cat.png":                                               "binary/cat.png",
	"/seatunnel/read/parquet/name=tyrantlucifer/hobby=coding/e2e.parquet":          "parquet/e2e.parquet",
	"/seatunnel/read/orc/name=tyrantlucifer/hobby=coding/e2e.orc":                  "orc/e2e.orc",
	"/seatunnel/read/orc_cast/e2e.orc":                                             "orc/orc_for_cast.orc",
	"/seatunnel/read/excel/name=tyrantlucifer/hobby=coding/e2e.xlsx":               "excel/e2e.xlsx",
	"/seatunnel/read/excel/name=tyrantlucifer/hobby=coding/e2e.xls":                "excel/e2e.xls",
	"/seatunnel/read/excel_filter/name=tyrantlucifer/hobby=coding/e2e_filter.xlsx": "excel/e2e.xlsx",
}

// localFileEmptyDirs are the folders LocalFileIT creates empty.
var localFileEmptyDirs = []string{"/tmp/fake_empty"}

// localFileArchive is an archive LocalFileIT builds from its data files before the configs
// run (convertToZipFile, convertToTarFile, convertToTarGzFile): each data file becomes an
// entry named <random int><name>_<millis>.<suffix>.
type localFileArchive struct {
	kind  string   // zip, tar or tar_gz
	files []string // data files of the suite
}

var localFileArchives = map[string]localFileArchive{
	"/seatunnel/read/zip/txt/single/e2e-txt.zip":             {"zip", []string{"text/e2e.txt"}},
	"/seatunnel/read/zip/txt/multifile/multiZip.zip":         {"zip", []string{"text/e2e.txt", "text/e2e.txt"}},
	"/seatunnel/read/tar/txt/single/e2e-txt.tar":             {"tar", []string{"text/e2e.txt"}},
	"/seatunnel/read/tar/txt/multifile/multiTar.tar":         {"tar", []string{"text/e2e.txt", "text/e2e.txt"}},
	"/seatunnel/read/tar_gz/txt/single/e2e-txt.tar.gz":       {"tar_gz", []string{"text/e2e.txt"}},
	"/seatunnel/read/tar_gz/txt/multifile/multiTarGz.tar.gz": {"tar_gz", []string{"text/e2e.txt", "text/e2e.txt"}},
	"/seatunnel/read/zip/json/single/e2e-json.zip":           {"zip", []string{"json/e2e.json"}},
	"/seatunnel/read/zip/json/multifile/multiJson.zip":       {"zip", []string{"json/e2e.json", "json/e2e.json"}},
	"/seatunnel/read/zip/xml/single/e2e-xml.zip":             {"zip", []string{"xml/e2e.xml"}},
	"/seatunnel/read/zip/excel/single/e2e-xlsx.zip":          {"zip", []string{"excel/e2e.xlsx"}},
	"/seatunnel/read/zip/excel/multifile/multiZip.zip":       {"zip", []string{"excel/e2e.xlsx", "excel/e2e.xlsx"}},
}

// The reasons a config cannot pass, as strait run prints them.
const (
	localFileNoLZO = `compress_codec: "lzo" is not supported by Strait's LocalFile: no Go library for LZO (lzop) is available to Strait; use gzip, zstd or lz4`
	localFileNoORC = `file_format_type: "orc" cannot be read or written: no Go ORC library is available to Strait yet`
	localFileNoXLS = `e2e.xls: .xls (BIFF) workbooks cannot be read: no Go library for them is available to Strait; save the workbook as .xlsx`
)

// localFileCase is one config of the suite: it passes, or fails with the exit code and the
// reason given. check, when set, looks at what a passing run left under root and printed.
type localFileCase struct {
	config string
	code   int    // 0 FINISHED, 1 FAILED, 2 a configuration error
	fails  string // what the output of a failing run holds
	check  func(t *testing.T, root, out string)
}

var localFileCases = []localFileCase{
	{"json/fake_to_local_file_json.conf", 0, "", wroteJSONRows("tmp/seatunnel/json", 5)},
	{"json/fake_to_local_file_json_save_mode.conf", 0, "", nil},
	{"json/fake_to_local_file_json_with_encoding.conf", 0, "", wroteGBK("tmp/seatunnel/encoding/json", 4, `"c_string":"\"你好，世界\"ABC123!@#"`)},
	{"json/local_file_json_lzo_to_console.conf", 2, localFileNoLZO, nil},
	{"json/local_file_json_multi_zip_to_assert.conf", 0, "", nil},
	{"json/local_file_json_to_assert.conf", 0, "", nil},
	{"json/local_file_json_to_assert_with_multipletable.conf", 0, "", nil},
	{"json/local_file_json_to_console_with_encoding.conf", 0, "", printedAll(4, "你好，世界ABC123!@#", "海底隧道", "GBK字符﨎")},
	{"json/local_file_json_zip_to_assert.conf", 0, "", nil},
	{"json/local_file_to_console.conf", 0, "", printedAll(0)},
	{"text/fake_to_local_file_text.conf", 2, localFileNoLZO, nil},
	{"text/fake_to_local_file_with_encoding.conf", 0, "", wroteGBK("tmp/seatunnel/encoding/text", 4, "\"你好，世界\"ABC123!@#")},
	{"text/fake_to_local_file_with_multiple_table.conf", 2, localFileNoLZO, nil},
	{"text/local_file_delimiter_assert.conf", 0, "", nil},
	{"text/local_file_multi_tar_gz_text_to_assert.conf", 0, "", nil},
	{"text/local_file_multi_tar_text_to_assert.conf", 0, "", nil},
	{"text/local_file_multi_zip_text_to_assert.conf", 0, "", nil},
	{"text/local_file_tar_gz_text_to_assert.conf", 0, "", nil},
	{"text/local_file_tar_text_to_assert.conf", 0, "", nil},
	{"text/local_file_text_lzo_to_assert.conf", 2, localFileNoLZO, nil},
	{"text/local_file_text_projection_to_assert.conf", 0, "", nil},
	{"text/local_file_text_skip_headers.conf", 0, "", nil},
	{"text/local_file_text_to_assert.conf", 0, "", nil},
	{"text/local_file_text_to_assert_with_multipletable.conf", 0, "", nil},
	{"text/local_file_text_to_console_with_encoding.conf", 0, "", printedAll(4, "你好，世界ABC123!@#", "海底隧道", "GBK字符﨎")},
	{"text/local_file_time_format_assert.conf", 0, "", nil},
	{"text/local_file_zip_text_to_assert.conf", 0, "", nil},
	{"xml/local_file_xml_to_assert.conf", 0, "", nil},
	{"xml/local_file_zip_xml_to_assert.conf", 0, "", nil},
	{"binary/local_file_binary_to_local_file_binary.conf", 0, "", sameFile("seatunnel/read/binary2/cat.png", "binary/cat.png")},
	{"binary/local_file_binary_to_assert.conf", 0, "", nil},
	{"parquet/fake_to_local_file_parquet.conf", 0, "", wroteParquetRows("tmp/seatunnel/parquet", ".gz.parquet", 5)},
	{"parquet/local_file_parquet_projection_to_assert.conf", 0, "", nil},
	{"parquet/local_file_parquet_to_assert.conf", 0, "", nil},
	{"parquet/local_file_to_console.conf", 0, "", printedAll(0)},
	{"orc/fake_to_local_file_orc.conf", 2, localFileNoORC, nil},
	{"orc/local_file_orc_projection_to_assert.conf", 2, localFileNoORC, nil},
	{"orc/local_file_orc_to_assert.conf", 2, localFileNoORC, nil},
	{"orc/local_file_orc_to_assert_with_time_and_cast.conf", 2, localFileNoORC, nil},
	{"excel/fake_to_local_excel.conf", 0, "", wroteExcelRows("tmp/seatunnel/excel", 5)},
	{"excel/local_excel_to_assert.conf", 1, localFileNoXLS, nil},
	{"excel/local_excel_projection_to_assert.conf", 1, localFileNoXLS, nil},
	{"excel/local_filter_excel_to_assert.conf", 0, "", nil},
	{"excel/local_excel_zip_to_assert.conf", 0, "", nil},
	{"excel/local_excel_multi_zip_to_assert.conf", 0, "", nil},
	// LocalFileWithMultipleTableIT
	{"excel/local_excel_to_assert_with_multipletable.conf", 0, "", nil},
	{"parquet/local_file_parquet_to_assert_with_multipletable.conf", 0, "", nil},
	{"orc/local_file_orc_to_assert_with_multipletable.conf", 2, localFileNoORC, nil},
}

// localFileBefore names the configs that read what another config of the suite wrote: that
// one runs first in the same folder, as LocalFileIT runs them one after the other.
var localFileBefore = map[string]string{
	"binary/local_file_binary_to_assert.conf": "binary/local_file_binary_to_local_file_binary.conf",
}

// localFileWithout names, per config, the data files its Java test does not copy in, where
// another test of the suite does: LocalFileWithMultipleTableIT copies the xlsx workbook alone
// into its excel folder.
var localFileWithout = map[string][]string{
	"excel/local_excel_to_assert_with_multipletable.conf": {"/seatunnel/read/excel/name=tyrantlucifer/hobby=coding/e2e.xls"},
}

// localFileRoot stands in for SeaTunnel's container: a temporary folder holding the data
// files and archives where LocalFileIT puts them.
func localFileRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for at, fixture := range localFileFixtures {
		b, err := os.ReadFile(localFileSuite(fixture))
		if err != nil {
			t.Fatalf("fixture: %v", err)
		}
		writeUnder(t, root, at, b)
	}
	for at, a := range localFileArchives {
		writeUnder(t, root, at, buildLocalFileArchive(t, a))
	}
	for _, d := range localFileEmptyDirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func writeUnder(t *testing.T, root, at string, b []byte) {
	t.Helper()
	p := filepath.Join(root, at)
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o666); err != nil {
		t.Fatal(err)
	}
}

// archiveEntryName names the i-th archived file as LocalFileIT does.
func archiveEntryName(file string, i int) string {
	name, suffix, _ := strings.Cut(path.Base(file), ".")
	millis := time.Date(2024, 1, 31, 16, 0, 48, 0, time.UTC).UnixMilli() + int64(i)
	return fmt.Sprintf("%d%s_%d.%s", -1234567+i*7919, name, millis, suffix)
}

// buildLocalFileArchive packs the archive's data files as LocalFileIT does.
func buildLocalFileArchive(t *testing.T, a localFileArchive) []byte {
	t.Helper()
	var names []string
	var contents [][]byte
	for i, f := range a.files {
		b, err := os.ReadFile(localFileSuite(f))
		if err != nil {
			t.Fatalf("fixture: %v", err)
		}
		names = append(names, archiveEntryName(f, i))
		contents = append(contents, b)
	}
	var buf bytes.Buffer
	var err error
	switch a.kind {
	case "zip":
		err = writeZip(&buf, names, contents)
	case "tar":
		err = writeTar(&buf, names, contents)
	case "tar_gz":
		gz := gzip.NewWriter(&buf)
		if err = writeTar(gz, names, contents); err == nil {
			err = gz.Close()
		}
	default:
		err = fmt.Errorf("unknown kind %q", a.kind)
	}
	if err != nil {
		t.Fatalf("archive of %v: %v", a.files, err)
	}
	return buf.Bytes()
}

func writeZip(w io.Writer, names []string, contents [][]byte) error {
	zw := zip.NewWriter(w)
	for i, n := range names {
		f, err := zw.Create(n)
		if err != nil {
			return err
		}
		if _, err := f.Write(contents[i]); err != nil {
			return err
		}
	}
	return zw.Close()
}

func writeTar(w io.Writer, names []string, contents [][]byte) error {
	tw := tar.NewWriter(w)
	for i, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(contents[i])), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		if _, err := tw.Write(contents[i]); err != nil {
			return err
		}
	}
	return tw.Close()
}

// localFileConfig reads a config of the suite as it is on disk and, in memory only, moves
// the absolute paths it names (/seatunnel/..., /tmp/...) under root; nothing else changes.
func localFileConfig(t *testing.T, name, root string) string {
	t.Helper()
	b, err := os.ReadFile(localFileSuite(name))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return strings.NewReplacer(`"/seatunnel/`, `"`+root+`/seatunnel/`, `"/tmp/`, `"`+root+`/tmp/`).Replace(string(b))
}

// runLocalFile runs a config's text, written to a file named as the config, with strait run.
func runLocalFile(t *testing.T, name, text string) (int, string) {
	t.Helper()
	return run(t, "run", writeFile(t, name, text))
}

// checkLocalFileRun checks how a run ended: FINISHED (0), FAILED (1) or refused before it ran
// (2), its output holding want.
func checkLocalFileRun(t *testing.T, name string, code int, out string, wantCode int, want ...string) {
	t.Helper()
	if wantCode != 2 {
		checkRun(t, name, code, out, wantCode, want...)
		return
	}
	if code != 2 {
		t.Fatalf("%s: exit %d, want 2 (a configuration error)\n%s", name, code, tail(out, 20))
	}
	if strings.Contains(out, "submitted") {
		t.Fatalf("%s: the job ran despite the configuration error:\n%s", name, tail(out, 20))
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s: the output does not hold %q:\n%s", name, w, tail(out, 20))
		}
	}
}

// keepTmpClean removes the staging folders the sinks leave under the default tmp_path
// (/tmp/seatunnel) when they were not there before and are empty.
func keepTmpClean(t *testing.T) {
	for _, d := range []string{"/tmp/seatunnel", "/tmp/seatunnel/seatunnel"} {
		if _, err := os.Stat(d); os.IsNotExist(err) {
			t.Cleanup(func() { os.Remove(d) })
		}
	}
}

// TestSeaTunnelLocalFileSuite runs every config of the suite, each on a folder of its own.
func TestSeaTunnelLocalFileSuite(t *testing.T) {
	keepTmpClean(t)
	for _, c := range localFileCases {
		t.Run(c.config, func(t *testing.T) {
			t.Parallel()
			root := localFileRoot(t)
			for _, f := range localFileWithout[c.config] {
				if err := os.Remove(filepath.Join(root, f)); err != nil {
					t.Fatal(err)
				}
			}
			if before := localFileBefore[c.config]; before != "" {
				code, out := runLocalFile(t, before, localFileConfig(t, before, root))
				checkRun(t, before+", run before", code, out, 0)
			}
			code, out := runLocalFile(t, c.config, localFileConfig(t, c.config, root))
			if c.code != 0 {
				checkLocalFileRun(t, c.config, code, out, c.code, c.fails)
				return
			}
			checkRun(t, c.config, code, out, 0)
			if c.check != nil {
				c.check(t, root, out)
			}
		})
	}
}

// localFileFiles lists the regular files under dir, by their path relative to dir, with
// their contents.
func localFileFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatalf("files under %s: %v", dir, err)
	}
	return out
}

// wroteJSONRows checks that a sink wrote n json objects in the files under dir.
func wroteJSONRows(dir string, n int) func(t *testing.T, root, out string) {
	return func(t *testing.T, root, _ string) {
		got := localFileFiles(t, filepath.Join(root, dir))
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
			t.Errorf("%d rows in %v, want %d", lines, slices.Sorted(maps.Keys(got)), n)
		}
	}
}

// wroteGBK checks that a sink wrote n rows in GBK under dir, one of them holding want.
func wroteGBK(dir string, n int, want string) func(t *testing.T, root, out string) {
	return func(t *testing.T, root, _ string) {
		got := localFileFiles(t, filepath.Join(root, dir))
		rows := 0
		found := false
		for name, content := range got {
			if strings.Contains(content, want) {
				t.Errorf("%s is UTF-8, not GBK", name)
			}
			text, err := simplifiedchinese.GBK.NewDecoder().String(content)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			rows += strings.Count(text, "\n") + 1
			found = found || strings.Contains(text, want)
		}
		if rows != n || !found {
			t.Errorf("%d rows in %v, want %d, one with %q", rows, slices.Sorted(maps.Keys(got)), n, want)
		}
	}
}

// printedAll checks that Console printed n rows, holding each of want.
func printedAll(n int, want ...string) func(t *testing.T, root, out string) {
	return func(t *testing.T, _, out string) {
		lines := consoleLines(out)
		printed := strings.Join(lines, "\n")
		if len(lines) != n {
			t.Errorf("Console printed %d rows, want %d:\n%s", len(lines), n, printed)
		}
		for _, w := range want {
			if !strings.Contains(printed, w) {
				t.Errorf("Console did not print %q:\n%s", w, printed)
			}
		}
	}
}

// sameFile checks that the file at got (under root) has the content of the suite's file want.
func sameFile(got, want string) func(t *testing.T, root, out string) {
	return func(t *testing.T, root, _ string) {
		g, err := os.ReadFile(filepath.Join(root, got))
		if err != nil {
			t.Fatal(err)
		}
		w, err := os.ReadFile(localFileSuite(want))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(g, w) {
			t.Errorf("%s: %d bytes, differs from %s (%d bytes)", got, len(g), want, len(w))
		}
	}
}

// wroteExcelRows checks that a sink wrote n rows below a header in the workbooks under dir.
func wroteExcelRows(dir string, n int) func(t *testing.T, root, out string) {
	return func(t *testing.T, root, _ string) {
		rows := 0
		got := localFileFiles(t, filepath.Join(root, dir))
		for name, content := range got {
			if !strings.HasSuffix(name, ".xlsx") {
				t.Errorf("%s does not end in .xlsx", name)
			}
			f, err := excelize.OpenReader(strings.NewReader(content))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			all, err := f.GetRows(f.GetSheetList()[0])
			if err != nil || len(all) == 0 || len(all[0]) == 0 || all[0][0] != "c_map" {
				t.Fatalf("%s: rows %v, %v", name, all, err)
			}
			rows += len(all) - 1
		}
		if rows != n {
			t.Errorf("%d rows in %v, want %d", rows, slices.Sorted(maps.Keys(got)), n)
		}
	}
}

// wroteParquetRows checks that a sink wrote n rows in parquet files ending in suffix under
// dir, each holding SeaTunnel's message, SeaTunnelRecord, with lower-case column names.
func wroteParquetRows(dir, suffix string, n int) func(t *testing.T, root, out string) {
	return func(t *testing.T, root, _ string) {
		rows := int64(0)
		got := localFileFiles(t, filepath.Join(root, dir))
		for name, content := range got {
			if !strings.HasSuffix(name, suffix) {
				t.Errorf("%s does not end in %s", name, suffix)
			}
			pf, err := parquet.OpenFile(strings.NewReader(content), int64(len(content)))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if pf.Schema().Name() != "SeaTunnelRecord" {
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
			t.Errorf("%d rows in %v, want %d", rows, slices.Sorted(maps.Keys(got)), n)
		}
	}
}

// LocalFileIT's save-mode test: the job writes one file into an empty folder, and run again
// it replaces the folder (RECREATE_SCHEMA), so the folder still holds one file; without the
// save modes a second run adds a file.
func TestSeaTunnelLocalFileSaveMode(t *testing.T) {
	keepTmpClean(t)
	const name = "json/fake_to_local_file_json_save_mode.conf"
	root := localFileRoot(t)
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
	for i := 1; i <= 2; i++ {
		code, out := runLocalFile(t, name, localFileConfig(t, name, root))
		checkRun(t, fmt.Sprintf("%s, run %d", name, i), code, out, 0)
		if n := count(); n != 1 {
			t.Fatalf("run %d: %d files in %s, want 1", i, n, dir)
		}
	}
	text := localFileConfig(t, name, root)
	for _, mode := range []string{`"schema_save_mode"="RECREATE_SCHEMA"`, `"data_save_mode"="DROP_DATA"`} {
		if !strings.Contains(text, mode) {
			t.Fatalf("the config no longer says %s", mode)
		}
		text = strings.Replace(text, mode, "", 1)
	}
	code, out := runLocalFile(t, name, text)
	checkRun(t, name+" without save modes", code, out, 0)
	if n := count(); n != 2 {
		t.Errorf("appending: %d files, want 2", n)
	}
}

// localFileBroken is a copy of a passing config with one expectation broken, and how its run
// must end.
type localFileBroken struct {
	config, old, new string
	code             int
	want             string
}

// runLocalFileBroken runs each broken copy on a folder of its own.
func runLocalFileBroken(t *testing.T, cases []localFileBroken) {
	t.Helper()
	keepTmpClean(t)
	for _, c := range cases {
		t.Run(c.config+"/"+c.new, func(t *testing.T) {
			t.Parallel()
			root := localFileRoot(t)
			text := localFileConfig(t, c.config, root)
			if !strings.Contains(text, c.old) {
				t.Fatalf("%q not found in %s", c.old, c.config)
			}
			code, out := runLocalFile(t, c.config, strings.Replace(text, c.old, c.new, 1))
			checkLocalFileRun(t, c.config, code, out, c.code, c.want)
		})
	}
}

// Copies of the passing text and json configs with one expectation broken fail, naming it.
func TestSeaTunnelLocalFileBrokenCopies(t *testing.T) {
	runLocalFileBroken(t, []localFileBroken{
		{"text/local_file_delimiter_assert.conf", `equals_to = "qwer"`, `equals_to = "qwe"`, 1, "field c_string = qwer is not equal to equals_to qwe"},
		{"text/local_file_delimiter_assert.conf", `delimiter = "\\|"`, `delimiter = "\\|x"`, 1, `e2e.txt:1: 1 fields, the schema has 15 columns (missing "c_array")`},
		{"text/local_file_text_to_assert.conf", "rule_value = 5", "rule_value = 4", 1, "row num :5 fail rule: AssertFieldRule.AssertRule(ruleType=MAX_ROW, ruleValue=4.0"},
		{"text/local_file_text_skip_headers.conf", "rule_value = 4", "rule_value = 3", 1, "row num :4 fail rule"},
		{"text/local_file_text_projection_to_assert.conf", "field_name = hobby", "field_name = c_int", 2, `unknown field "c_int"`},
		{"text/local_file_time_format_assert.conf", "read_columns = [c_timestamp]", "read_columns = [c_string]", 2, `unknown field "c_timestamp"`},
		{"json/local_file_json_to_assert.conf", "rule_value = 5", "rule_value = 4", 1, "row num :5 fail rule"},
		{"json/local_file_json_to_assert.conf", "field_name = c_double\n          field_type = double", "field_name = c_double\n          field_type = float", 1, "fieldName=c_double, fieldType=FLOAT"},
	})
}

// Copies of the passing parquet configs with one expectation broken fail, naming it.
func TestSeaTunnelLocalFileParquetBrokenCopies(t *testing.T) {
	runLocalFileBroken(t, []localFileBroken{
		{"parquet/local_file_parquet_to_assert.conf", "rule_value = 5", "rule_value = 4", 1, "row num :5 fail rule"},
		{"parquet/local_file_parquet_to_assert.conf", "field_name = c_double\n          field_type = double", "field_name = c_double\n          field_type = float", 1, "fieldName=c_double, fieldType=FLOAT"},
		{"parquet/local_file_parquet_projection_to_assert.conf", "read_columns = [c_string, c_boolean, c_double]", "read_columns = [c_string, c_boolean, c_nope]", 2, `read_columns[2]: unknown column "c_nope"`},
		{"parquet/local_file_parquet_projection_to_assert.conf", "read_columns = [c_string, c_boolean, c_double]", "read_columns = [c_string, c_boolean]", 2, `unknown field "c_double"`},
	})
}

// localFileParquetColumns are the columns, as LocalFile reads them back, of the parquet file
// fake_to_local_file_parquet.conf writes.
var localFileParquetColumns = [][2]string{
	{"c_map", "map<string, string>"}, {"c_array", "array<int>"}, {"c_string", "string"}, {"c_boolean", "boolean"},
	{"c_tinyint", "tinyint"}, {"c_smallint", "smallint"}, {"c_int", "int"}, {"c_bigint", "bigint"},
	{"c_float", "float"}, {"c_double", "double"}, {"c_bytes", "bytes"}, {"c_date", "date"},
	{"c_decimal", "decimal(38, 18)"}, {"c_timestamp", "timestamp"},
	{"c_row", "{c_map = map<string, string>, c_array = array<int>, c_string = string, c_boolean = boolean, c_tinyint = tinyint, c_smallint = smallint, c_int = int, c_bigint = bigint, c_float = float, c_double = double, c_bytes = bytes, c_date = date, c_decimal = decimal(38, 18), c_timestamp = timestamp}"},
}

// localFileParquetReadBack is a job reading the parquet files under dir into an Assert that
// wants the columns, and exactly rows rows.
func localFileParquetReadBack(dir string, columns [][2]string, rows int) string {
	var rule strings.Builder
	for _, c := range columns {
		fmt.Fprintf(&rule, "        { name = %q, type = %q }\n", c[0], c[1])
	}
	return fmt.Sprintf(`env { job.mode = BATCH, parallelism = 1 }
source { LocalFile { path = %q, file_format_type = parquet, plugin_output = "parquet" } }
sink {
  Assert {
    plugin_input = ["parquet"]
    rules {
      row_rules = [{ rule_type = MIN_ROW, rule_value = %[3]d }, { rule_type = MAX_ROW, rule_value = %[3]d }]
      catalog_table_rule { column_rule = [
%[2]s      ] }
    }
  }
}
`, dir, rule.String(), rows)
}

// The parquet file FakeSource writes reads back, through a LocalFile source, as the 5 rows of
// the columns and types it wrote; a column of another type, or a row count off by one, fails.
func TestSeaTunnelLocalFileParquetReadBack(t *testing.T) {
	keepTmpClean(t)
	root := localFileRoot(t)
	const write = "parquet/fake_to_local_file_parquet.conf"
	code, out := runLocalFile(t, write, localFileConfig(t, write, root))
	checkRun(t, write, code, out, 0)
	dir := filepath.Join(root, "tmp/seatunnel/parquet")
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	code, out = run(t, "run", writeJob(t, localFileParquetReadBack(dir, localFileParquetColumns, 5)))
	checkRun(t, "read back", code, out, 0, "Total Read Count : 5")

	retyped := append([][2]string(nil), localFileParquetColumns...)
	retyped[8] = [2]string{"c_float", "double"}
	code, out = run(t, "run", writeJob(t, localFileParquetReadBack(dir, retyped, 5)))
	checkLocalFileRun(t, "read back, c_float as double", code, out, 2, "c_float double")
	code, out = run(t, "run", writeJob(t, localFileParquetReadBack(dir, localFileParquetColumns, 6)))
	checkRun(t, "read back, 6 rows", code, out, 1, "MIN_ROW")
}

// TestSeaTunnelLocalFileCheckpointBatch runs SeaTunnel's checkpoint/batch pair unchanged but
// for the sink folder, which is a folder of the test's: FakeSource writes 100 rows into
// LocalFile with a checkpoint every second, a file per checkpoint that had rows, each named
// as SeaTunnel names it (T_<job id>_<transaction uuid>_<subtask>_<checkpoint>_<${now}>_0.txt),
// then a LocalFile source reads the folder back into an Assert that wants exactly 100 rows; a
// copy wanting 101 fails.
func TestSeaTunnelLocalFileCheckpointBatch(t *testing.T) {
	keepTmpClean(t)
	const sinkDir = "/tmp/seatunnel/config/checkpoint-batch-enable-test-resources/sinkfile"
	dir := filepath.Join(t.TempDir(), "sinkfile")
	write := readSeaTunnel(t, "checkpoint/batch/batch_fakesource_to_localfile_checkpoint_enable.conf")
	read := readSeaTunnel(t, "checkpoint/batch/sink_file_text_to_assert.conf")
	if !strings.Contains(write, sinkDir+"/") || !strings.Contains(read, sinkDir) {
		t.Fatal("the checkpoint/batch configs no longer name the expected folder")
	}
	code, out := run(t, "run", writeJob(t, strings.ReplaceAll(write, sinkDir+"/", dir+"/")))
	checkRun(t, "write job", code, out, 0)
	job := regexp.MustCompile(`Job Id\s+:\s+(\d+)`).FindStringSubmatch(out)
	if job == nil {
		t.Fatalf("no job id in the output:\n%s", tail(out, 20))
	}
	checkCheckpointFiles(t, localFileFiles(t, dir), job[1], 100)
	readText := strings.ReplaceAll(read, sinkDir, dir)
	code, out = run(t, "run", writeJob(t, readText))
	checkRun(t, "read job", code, out, 0)
	broken := strings.Replace(readText, "rule_value = 100\n        }\n      ]", "rule_value = 101\n        }\n      ]", 1)
	if broken == readText {
		t.Fatal("could not break the assert config")
	}
	code, out = run(t, "run", writeJob(t, broken))
	checkRun(t, "read job wanting 101 rows", code, out, 1, "MIN_ROW")
}

// checkCheckpointFiles checks the files a transactional text sink of one writer committed:
// each named for the job, one transaction uuid, subtask 0, its own checkpoint and today's
// date, each line three \x01-separated fields, n lines in all.
func checkCheckpointFiles(t *testing.T, got map[string]string, job string, n int) {
	t.Helper()
	re := regexp.MustCompile(`^T_` + job + `_([0-9a-f]{10})_0_(\d+)_(\d{4}\.\d{2}\.\d{2})_0\.txt$`)
	lines := 0
	uuids, checkpoints := map[string]bool{}, map[string]bool{}
	for name, content := range got {
		m := re.FindStringSubmatch(name)
		if m == nil {
			t.Errorf("file name %s, want T_%s_<uuid>_0_<checkpoint>_<date>_0.txt", name, job)
			continue
		}
		uuids[m[1]] = true
		if checkpoints[m[2]] {
			t.Errorf("two files of checkpoint %s", m[2])
		}
		checkpoints[m[2]] = true
		if m[3] != time.Now().Format("2006.01.02") && m[3] != time.Now().Add(-time.Minute).Format("2006.01.02") {
			t.Errorf("${now} in %s", name)
		}
		for _, l := range strings.Split(content, "\n") {
			if f := strings.Split(l, "\x01"); len(f) != 3 {
				t.Errorf("%s: line %q has %d fields, want 3", name, l, len(f))
			}
			lines++
		}
	}
	if len(got) == 0 || len(uuids) != 1 || lines != n {
		t.Errorf("files %v: %d lines, want %d, under one transaction uuid", slices.Sorted(maps.Keys(got)), lines, n)
	}
}
