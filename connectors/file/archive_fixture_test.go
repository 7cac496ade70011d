package file

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

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
