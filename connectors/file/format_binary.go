package file

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/strait-dev/strait/connectors/internal/format"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// The binary format copies files as they are, as SeaTunnel's BinaryReadStrategy and
// BinaryWriteStrategy do: the source reads each file in chunks of binaryChunk bytes, one
// row per chunk with the columns data (bytes), relativePath (string: the file's path
// below the source's path, or its name when path is a file) and partIndex (bigint: the
// chunk's number in the file, from 0); the sink writes the chunks of each relativePath,
// in order, to that path below its own.
const binaryChunk = 1024

// binaryColumns are the columns of the binary format, as SeaTunnel's binaryRowType has them.
var binaryColumns = []catalog.Column{
	{Name: "data", Type: types.Of(types.Bytes), Nullable: true},
	{Name: "relativePath", Type: types.Of(types.String), Nullable: true},
	{Name: "partIndex", Type: types.Of(types.BigInt), Nullable: true},
}

// ---- reading ----

type binaryFormat struct {
	c *sourceConfig
}

func (b binaryFormat) Splits(context.Context, io.ReaderAt, int64) ([]format.Split, error) {
	return format.Whole(), nil
}

// open reads the file from the chunk a restored split stopped at.
func (b binaryFormat) Open(ra io.ReaderAt, size int64, name string, s format.Split) (format.Reader, error) {
	if s.Offset > size {
		return nil, fmt.Errorf("resume %s at byte %d: the file has %d", name, s.Offset, size)
	}
	return &binaryReader{
		c:    b.c,
		name: name,
		rel:  b.c.relativePath(name),
		r:    io.NewSectionReader(ra, s.Offset, size-s.Offset),
		off:  s.Offset,
		part: s.Lines,
	}, nil
}

// relativePath is where a file goes below the sink's path: its path below the source's
// path, or its name when the source's path is the file.
func (c *sourceConfig) relativePath(file string) string {
	if file == c.path {
		return filepath.Base(file)
	}
	return strings.TrimPrefix(strings.TrimPrefix(file, c.path), string(filepath.Separator))
}

type binaryReader struct {
	c    *sourceConfig
	name string
	rel  string
	r    io.Reader
	off  int64
	part int64
	buf  [binaryChunk]byte
	strs row.Arena // the chunks the rows keep
}

func (b *binaryReader) Next(ctx context.Context, out *row.Batch) (bool, error) {
	for !out.Full() {
		n, err := io.ReadFull(b.r, b.buf[:])
		if n == 0 {
			if err == io.EOF {
				return true, nil
			}
			return false, fmt.Errorf("%s: read %s at byte %d: %w", b.c.where, b.name, b.off, err)
		}
		if err != nil && err != io.ErrUnexpectedEOF {
			return false, fmt.Errorf("%s: read %s at byte %d: %w", b.c.where, b.name, b.off+int64(n), err)
		}
		rw := out.Add(row.Insert, b.c.tableID, b.c.width)
		rw.Fields[0] = row.Value{T: types.Bytes, S: b.strs.Keep(b.buf[:n])}
		rw.Fields[1] = row.StringValue(b.rel)
		rw.Fields[2] = row.BigIntValue(b.part)
		b.part++
		b.off += int64(n)
	}
	return false, ctx.Err()
}

func (b *binaryReader) Progress(s *format.Split) { s.Offset, s.Lines = b.off, b.part }

func (b *binaryReader) Close() error { return nil }

// ---- writing ----

// checkBinaryTable refuses a table that is not what a binary source reads, as SeaTunnel's
// BinaryWriteStrategy does.
func checkBinaryTable(t *catalog.Table) error {
	ok := len(t.Columns) == len(binaryColumns)
	for i := 0; ok && i < len(binaryColumns); i++ {
		ok = t.Columns[i].Name == binaryColumns[i].Name && t.Columns[i].Type.Kind == binaryColumns[i].Type.Kind
	}
	if !ok {
		return fmt.Errorf("the binary format writes only what a binary source reads, the columns data (bytes), relativePath (string) and partIndex (bigint); table %s has %s: read the files with file_format_type = binary and do not change them in a transform", t.ID(), columnNames(t))
	}
	return nil
}

// binaryFile is a file the binary sink is writing, and the chunk it expects next.
type binaryFile struct {
	of   *openFile
	next int64
}

// writeBinary appends a chunk to its file. The first chunk of a file in a transaction must
// be chunk 0, or the chunk after those an earlier transaction published: the file then
// continues from its published bytes (a file copied across checkpoints is visible in
// part until the transaction that writes its last chunk is committed).
func (w *writer) writeBinary(r *row.Row) error {
	cfg := w.cfg
	if r.Fields[0].T != types.Bytes && !r.Fields[0].IsNull() || r.Fields[1].T != types.String || r.Fields[2].T != types.BigInt {
		return fmt.Errorf("%s: a binary row needs data (bytes), relativePath (string) and partIndex (bigint), got %s", cfg.where, kindsOf(r))
	}
	rel, part := r.Fields[1].S, r.Fields[2].I
	bf := w.bins[rel]
	if bf == nil {
		var err error
		if bf, err = w.openBinary(rel, part); err != nil {
			return err
		}
	}
	if part != bf.next {
		return fmt.Errorf("%s: file %s: chunk %d follows chunk %d (the chunks of a file must come in order)", cfg.where, rel, part, bf.next-1)
	}
	bf.next++
	if _, err := bf.of.w.WriteString(r.Fields[0].S); err != nil {
		return fmt.Errorf("%s: write %s: %w", cfg.where, bf.of.staged, err)
	}
	return nil
}

// kindsOf lists the kinds of a row's values.
func kindsOf(r *row.Row) string {
	parts := make([]string, len(r.Fields))
	for i, v := range r.Fields {
		parts[i] = v.T.String()
	}
	return strings.Join(parts, ", ")
}

// openBinary stages the file rel, starting at chunk part.
func (w *writer) openBinary(rel string, part int64) (*binaryFile, error) {
	cfg := w.cfg
	clean := filepath.Clean(filepath.FromSlash(rel))
	if rel == "" || filepath.IsAbs(clean) || clean == "." || hasDotDot(clean) || strings.Contains(rel, "\x00") {
		return nil, fmt.Errorf("%s: relativePath %q is not a path below %s", cfg.where, rel, cfg.path)
	}
	staged := filepath.Join(w.txnDir, clean)
	final := filepath.Join(cfg.path, clean)
	dir := filepath.Dir(staged)
	if !w.dirs[dir] {
		if err := mkdirAll(cfg.fs, dir); err != nil {
			return nil, fmt.Errorf("%s: create staging directory: %w", cfg.where, err)
		}
		w.dirs[dir] = true
	}
	f, err := cfg.fs.Create(staged)
	if err != nil {
		return nil, fmt.Errorf("%s: create %s: %w", cfg.where, staged, err)
	}
	of := &openFile{f: f, staged: staged, final: final}
	of.w = bufio.NewWriterSize(f, writeBufferSize)
	if part > 0 {
		if err := continueBinary(cfg.fs, of, final, part); err != nil {
			f.Abort()
			return nil, fmt.Errorf("%s: file %s: %w", cfg.where, rel, err)
		}
	}
	bf := &binaryFile{of: of, next: part}
	if w.bins == nil {
		w.bins = map[string]*binaryFile{}
	}
	w.bins[rel] = bf
	return bf, nil
}

// continueBinary copies the part of a file an earlier transaction published, which must
// hold the part chunks before chunk part.
func continueBinary(fsys FileSystem, of *openFile, final string, part int64) error {
	src, err := fsys.Open(final)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("chunk %d comes first, but no earlier chunk was written", part)
	}
	if err != nil {
		return err
	}
	defer src.Close()
	if want := part * binaryChunk; src.Size() != want {
		return fmt.Errorf("chunk %d continues %s, which has %d bytes, not the %d of the chunks before it", part, final, src.Size(), want)
	}
	_, err = io.Copy(of.w, io.NewSectionReader(src, 0, src.Size()))
	return err
}

// finishBinary finishes every binary file of the transaction.
func (w *writer) finishBinary() error {
	// in a stable order, so commit infos list files the same way every time
	rels := make([]string, 0, len(w.bins))
	for rel := range w.bins {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	var first error
	for _, rel := range rels {
		if err := w.finish(w.bins[rel].of); err != nil && first == nil {
			first = err
		}
		delete(w.bins, rel)
	}
	return first
}

// closeBinary releases the binary files without publishing them.
func (w *writer) closeBinary() {
	for rel, bf := range w.bins {
		bf.of.f.Abort()
		delete(w.bins, rel)
	}
}
