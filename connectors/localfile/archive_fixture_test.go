package localfile

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// seatunnelArchive is an archive LocalFileIT builds from its data files before the configs
// run (convertToZipFile, convertToTarFile, convertToTarGzFile): each data file becomes an
// entry named <random int><name>_<millis>.<suffix>.
type seatunnelArchive struct {
	kind  archiveCodec
	files []string // data files under testdata/seatunnel
}

var seatunnelArchives = map[string]seatunnelArchive{
	"/seatunnel/read/zip/txt/single/e2e-txt.zip":             {archiveZip, []string{"text/e2e.txt"}},
	"/seatunnel/read/zip/txt/multifile/multiZip.zip":         {archiveZip, []string{"text/e2e.txt", "text/e2e.txt"}},
	"/seatunnel/read/tar/txt/single/e2e-txt.tar":             {archiveTar, []string{"text/e2e.txt"}},
	"/seatunnel/read/tar/txt/multifile/multiTar.tar":         {archiveTar, []string{"text/e2e.txt", "text/e2e.txt"}},
	"/seatunnel/read/tar_gz/txt/single/e2e-txt.tar.gz":       {archiveTarGz, []string{"text/e2e.txt"}},
	"/seatunnel/read/tar_gz/txt/multifile/multiTarGz.tar.gz": {archiveTarGz, []string{"text/e2e.txt", "text/e2e.txt"}},
	"/seatunnel/read/zip/json/single/e2e-json.zip":           {archiveZip, []string{"json/e2e.json"}},
	"/seatunnel/read/zip/json/multifile/multiJson.zip":       {archiveZip, []string{"json/e2e.json", "json/e2e.json"}},
	"/seatunnel/read/zip/xml/single/e2e-xml.zip":             {archiveZip, []string{"xml/e2e.xml"}},
	"/seatunnel/read/zip/excel/single/e2e-xlsx.zip":          {archiveZip, []string{"excel/e2e.xlsx"}},
	"/seatunnel/read/zip/excel/multifile/multiZip.zip":       {archiveZip, []string{"excel/e2e.xlsx", "excel/e2e.xlsx"}},
}

// entryName names an archived file as LocalFileIT does.
func entryName(file string, i int) string {
	base := path.Base(file)
	name, suffix, _ := strings.Cut(base, ".")
	return fmt.Sprintf("%d%s_%d.%s", -1234567+i*7919, name, time.Date(2024, 1, 31, 16, 0, 48, 0, time.UTC).UnixMilli()+int64(i), suffix)
}

// buildArchive packs the files (name, content) into an archive of the kind.
func buildArchive(t testing.TB, kind archiveCodec, names []string, contents [][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	switch kind {
	case archiveZip:
		zw := zip.NewWriter(&buf)
		for i, n := range names {
			w, err := zw.Create(n)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(contents[i])
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	case archiveTar, archiveTarGz:
		var w io.Writer = &buf
		var gz *gzip.Writer
		if kind == archiveTarGz {
			gz = gzip.NewWriter(&buf)
			w = gz
		}
		tw := tar.NewWriter(w)
		for i, n := range names {
			if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(contents[i])), Typeflag: tar.TypeReg}); err != nil {
				t.Fatal(err)
			}
			tw.Write(contents[i])
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		if gz != nil {
			gz.Close()
		}
	case archiveGz:
		gz := gzip.NewWriter(&buf)
		gz.Write(contents[0])
		gz.Close()
	default:
		t.Fatalf("archive kind %s", kind)
	}
	return buf.Bytes()
}

// writeSeaTunnelArchives builds LocalFileIT's archives under root.
func writeSeaTunnelArchives(t testing.TB, root string) {
	t.Helper()
	for at, a := range seatunnelArchives {
		var names []string
		var contents [][]byte
		for i, f := range a.files {
			b, err := os.ReadFile(filepath.Join(seatunnelDir, f))
			if err != nil {
				t.Fatalf("fixture: %v", err)
			}
			names = append(names, entryName(f, i))
			contents = append(contents, b)
		}
		p := filepath.Join(root, at)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, buildArchive(t, a.kind, names, contents), 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

// wroteGBK checks that a sink wrote n rows in GBK under dir, one of them holding want.
func wroteGBK(dir string, n int, want string) func(t *testing.T, root, console string) {
	return func(t *testing.T, root, _ string) {
		gbk, ok := lookupCharset("GBK")
		if !ok {
			t.Fatal("no GBK")
		}
		got := files(t, filepath.Join(root, dir))
		rows := 0
		found := false
		for name, content := range got {
			if strings.Contains(content, want) {
				t.Errorf("%s is UTF-8, not GBK", name)
			}
			text, err := io.ReadAll(gbk.decode(strings.NewReader(content)))
			if err != nil {
				t.Fatal(err)
			}
			rows += strings.Count(string(text), "\n") + 1
			found = found || strings.Contains(string(text), want)
		}
		if rows != n || !found {
			t.Errorf("%d rows in %v, want %d, one with %q", rows, names(got), n, want)
		}
	}
}

// printedAll checks that Console printed n rows, holding each of want.
func printedAll(n int, want ...string) func(t *testing.T, root, console string) {
	return func(t *testing.T, _, console string) {
		if got := strings.Count(console, "\n"); got != n {
			t.Errorf("Console printed %d lines, want %d:\n%s", got, n, console)
		}
		for _, w := range want {
			if !strings.Contains(console, w) {
				t.Errorf("Console did not print %q:\n%s", w, console)
			}
		}
	}
}

// sameFile checks that the file at got (under root) has the content of the fixture want.
func sameFile(got, want string) func(t *testing.T, root, console string) {
	return func(t *testing.T, root, _ string) {
		g, err := os.ReadFile(filepath.Join(root, got))
		if err != nil {
			t.Fatal(err)
		}
		w, err := os.ReadFile(filepath.Join(seatunnelDir, want))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(g, w) {
			t.Errorf("%s: %d bytes, differs from %s (%d bytes)", got, len(g), want, len(w))
		}
	}
}
