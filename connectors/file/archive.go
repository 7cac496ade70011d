package file

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/strait-dev/strait/config"
)

// archiveCodec is archive_compress_codec: how a source file packs the files it holds, as
// SeaTunnel's ArchiveCompressFormat names it. zip, tar and tar_gz hold many files, gz one.
type archiveCodec string

const (
	archiveNone  archiveCodec = "none"
	archiveZip   archiveCodec = "zip"
	archiveTar   archiveCodec = "tar"
	archiveTarGz archiveCodec = "tar_gz"
	archiveGz    archiveCodec = "gz"
)

// archiveCodecOf reads archive_compress_codec, s, in any case; blank is none.
func archiveCodecOf(o *config.Options, s string) (archiveCodec, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	switch v {
	case "", "none":
		return archiveNone, nil
	case "zip", "tar", "tar_gz", "gz":
		return archiveCodec(v), nil
	}
	return "", o.Errorf("archive_compress_codec", "unknown value %q; expected none, zip, tar, tar_gz or gz", s)
}

// entryIter walks the files of an archive in the order they are stored.
type entryIter interface {
	// next returns the next file's name and content, valid until the next call; io.EOF
	// after the last.
	next() (name string, r io.Reader, err error)
	close() error
}

// openArchive reads the archive held in ra (size bytes).
func openArchive(kind archiveCodec, ra io.ReaderAt, size int64, file string) (entryIter, error) {
	switch kind {
	case archiveZip:
		z, err := zip.NewReader(ra, size)
		if err != nil {
			return nil, err // zip: ...
		}
		return &zipEntries{files: z.File}, nil
	case archiveTar:
		return &tarEntries{tr: tar.NewReader(io.NewSectionReader(ra, 0, size))}, nil
	case archiveTarGz:
		gz, err := gzip.NewReader(io.NewSectionReader(ra, 0, size))
		if err != nil {
			return nil, err // gzip: ...
		}
		return &tarEntries{tr: tar.NewReader(gz), closer: gz}, nil
	case archiveGz:
		gz, err := gzip.NewReader(io.NewSectionReader(ra, 0, size))
		if err != nil {
			return nil, err // gzip: ...
		}
		return &gzEntry{gz: gz, name: strings.TrimSuffix(path.Base(file), ".gz")}, nil
	}
	return nil, fmt.Errorf("unknown archive codec %q", kind)
}

type zipEntries struct {
	files []*zip.File
	i     int
	cur   io.ReadCloser
}

func (z *zipEntries) next() (string, io.Reader, error) {
	if err := z.close(); err != nil {
		return "", nil, err
	}
	for z.i < len(z.files) {
		f := z.files[z.i]
		z.i++
		if f.FileInfo().IsDir() {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return "", nil, fmt.Errorf("zip entry %s: %w", f.Name, err)
		}
		z.cur = r
		return f.Name, r, nil
	}
	return "", nil, io.EOF
}

func (z *zipEntries) close() error {
	if z.cur == nil {
		return nil
	}
	err := z.cur.Close()
	z.cur = nil
	return err
}

type tarEntries struct {
	tr     *tar.Reader
	closer io.Closer
}

func (t *tarEntries) next() (string, io.Reader, error) {
	for {
		h, err := t.tr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return "", nil, io.EOF
			}
			return "", nil, err // archive/tar: ...
		}
		if h.Typeflag == tar.TypeReg || h.Typeflag == tar.TypeRegA {
			return h.Name, t.tr, nil
		}
	}
}

func (t *tarEntries) close() error {
	if t.closer != nil {
		return t.closer.Close()
	}
	return nil
}

type gzEntry struct {
	gz   *gzip.Reader
	name string
	done bool
}

func (g *gzEntry) next() (string, io.Reader, error) {
	if g.done {
		return "", nil, io.EOF
	}
	g.done = true
	return g.name, g.gz, nil
}

func (g *gzEntry) close() error { return g.gz.Close() }
