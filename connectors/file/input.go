package file

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// An input is what one format reader reads: a source file, or one file of an archive
// (archive_compress_codec). The reader opens the inputs of a file one after the other;
// fileSplit.Entry says which file of an archive is being read, Offset and Lines how far.
//
// Formats read by line (text, csv, json) see the input's bytes uncompressed
// (compress_codec) and transcoded to UTF-8 (encoding); record formats see them as they
// are stored, through an io.ReaderAt, and apply what applies to them themselves.
type input struct {
	name string      // the file, or <archive>!<entry>: how errors name it
	r    io.Reader   // the bytes, from the start
	ra   io.ReaderAt // random access, when the input is a whole file
	size int64       // of ra
	seek io.Seeker   // r, when it can seek (a whole file)
}

// readerAt gives random access to the input: the file itself, or a file of an archive
// read into memory (SeaTunnel reads archived files into memory too).
func (in *input) readerAt() (io.ReaderAt, int64, error) {
	if in.ra != nil {
		return in.ra, in.size, nil
	}
	b, err := io.ReadAll(in.r)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", in.name, err)
	}
	return bytes.NewReader(b), int64(len(b)), nil
}

// fileInputs walks the inputs of the file a reader has open, which it sees as an
// io.ReaderAt of a known size (whatever file system holds it).
type fileInputs struct {
	ra      io.ReaderAt
	size    int64
	entries entryIter // nil when the file is not an archive
	index   int       // archive files started, skipped ones included
	plain   bool      // the plain file was handed out
	closers []io.Closer
	counted *countingReader
}

// start prepares the inputs of the open file ra, size bytes, called name.
func (fi *fileInputs) start(c *sourceConfig, ra io.ReaderAt, size int64, name string) error {
	fi.reset()
	fi.ra, fi.size = ra, size
	if c.archive == archiveNone {
		return nil
	}
	it, err := openArchive(c.archive, ra, size, name)
	if err != nil {
		return err
	}
	fi.entries = it
	return nil
}

// reset closes what the inputs of the last file held.
func (fi *fileInputs) reset() {
	fi.closeStreams()
	if fi.entries != nil {
		fi.entries.close()
		fi.entries = nil
	}
	fi.index = 0
	fi.plain = false
	fi.ra = nil
}

func (fi *fileInputs) closeStreams() {
	for i := len(fi.closers) - 1; i >= 0; i-- {
		fi.closers[i].Close()
	}
	fi.closers = fi.closers[:0]
	fi.counted = nil
}

// next returns the next input of the file to read, or false when there is none. Files of
// an archive that the split has already read are passed over, and so are those whose
// names lack the format's suffix (with a warning, as SeaTunnel warns).
func (fi *fileInputs) next(c *sourceConfig, s *fileSplit) (input, bool, error) {
	fi.closeStreams()
	if fi.entries == nil {
		if fi.plain || fi.ra == nil {
			return input{}, false, nil
		}
		fi.plain = true
		sr := io.NewSectionReader(fi.ra, 0, fi.size)
		return input{name: s.Path, r: sr, ra: fi.ra, size: fi.size, seek: sr}, true, nil
	}
	for {
		name, r, err := fi.entries.next()
		if err == io.EOF {
			return input{}, false, nil
		}
		if err != nil {
			return input{}, false, fmt.Errorf("%s: %w", s.Path, err)
		}
		i := fi.index
		fi.index++
		if i < s.Entry {
			continue // read before the snapshot the split was restored from
		}
		if !c.format.hasSuffix(name) {
			slog.Warn("LocalFile skips a file of an archive that does not have the format's suffix",
				"plugin", c.where, "archive", s.Path, "file", name, "format", string(c.format))
			continue
		}
		if i > s.Entry {
			s.Entry, s.Offset, s.Lines = i, 0, 0
		}
		return input{name: s.Path + "!" + name, r: r}, true, nil
	}
}

// stream returns the input's text as UTF-8, uncompressed, from byte s.Offset of that
// text on: a plain UTF-8 file seeks there, anything else reads past it.
func (fi *fileInputs) stream(c *sourceConfig, in *input, s *fileSplit) (io.Reader, error) {
	if in.seek != nil && c.compress == codecNone && c.charset.utf8() {
		if _, err := in.seek.Seek(s.Offset, io.SeekStart); err != nil {
			return nil, fmt.Errorf("resume %s at byte %d: %w", in.name, s.Offset, err)
		}
		return in.r, nil
	}
	fi.counted = &countingReader{r: in.r}
	r, closer, err := c.compress.decompress(fi.counted)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	fi.closers = append(fi.closers, closer)
	r = c.charset.decode(r)
	if s.Offset > 0 {
		if n, err := io.CopyN(io.Discard, r, s.Offset); err != nil {
			return nil, fmt.Errorf("resume %s at byte %d: %w (it has %d)", in.name, s.Offset, err, n)
		}
	}
	return r, nil
}

// where names the place in the stored bytes an error came from, when they are compressed.
func (fi *fileInputs) where() string {
	if fi.counted == nil {
		return ""
	}
	return fmt.Sprintf(" (stored byte %d)", fi.counted.n)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// hasSuffix reports whether a file of an archive has one of the format's suffixes, as
// SeaTunnel's checkFileType wants (csv files may end with .txt too, as SeaTunnel reads
// them as text).
func (f fileFormat) hasSuffix(name string) bool {
	for _, s := range f.suffixes() {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// suffixes are the file name suffixes of a format.
func (f fileFormat) suffixes() []string {
	switch f {
	case formatCSV:
		return []string{".csv", ".txt"}
	case formatExcel:
		return []string{".xlsx", ".xls"}
	}
	return []string{f.suffix()}
}

// useTable makes table i of tables_configs the one the reader reads.
func (r *reader) useTable(i int) error {
	if i < 0 || i >= len(r.cfgs) {
		return fmt.Errorf("%s: split %s names table %d, the source reads %d", r.cfg.where, r.cur.Path, i, len(r.cfgs))
	}
	if c := r.cfgs[i]; c != r.cfg {
		r.cfg = c
		r.dec = c.lineDecoder()
	}
	return nil
}

// nextInput opens the next input of the open file for its format, or closes the file
// after its last input.
func (r *reader) nextInput() error {
	if r.rec != nil {
		r.rec.Close()
		r.rec = nil
	}
	c := r.cfg
	in, ok, err := r.in.next(c, &r.cur)
	if err != nil {
		return fmt.Errorf("%s: %w", c.where, err)
	}
	if !ok {
		r.closeFile()
		return nil
	}
	r.dec.file = in.name
	if c.records != nil {
		ra, size, err := in.readerAt()
		if err != nil {
			return fmt.Errorf("%s: %w", c.where, err)
		}
		if r.rec, err = c.records.Open(ra, size, in.name, r.cur.Split); err != nil {
			return fmt.Errorf("%s: %w", c.where, err)
		}
		return nil
	}
	s, err := r.in.stream(c, &in, &r.cur)
	if err != nil {
		return fmt.Errorf("%s: %w", c.where, err)
	}
	if r.br == nil {
		r.br = bufio.NewReaderSize(s, readBufferSize)
	} else {
		r.br.Reset(s)
	}
	return nil
}
