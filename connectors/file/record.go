package file

import (
	"context"
	"fmt"
	"io"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/row"
)

// Formats that are not read and written line by line (parquet, excel) plug into the reader
// and the writer through these two interfaces. They see only an io.ReaderAt or an
// io.Writer, never a path or an os.File, so a file system other than the local one can
// serve them.

// recordReader reads the rows of one split of one file.
type recordReader interface {
	// next appends rows to out until it is full or the split ends (done). It fills the
	// first partBase fields of each row; the caller fills the partition columns.
	next(ctx context.Context, out *row.Batch) (done bool, err error)
	// progress records how far the split has been read, for a snapshot.
	progress(s *fileSplit)
	close() error
}

// recordFormat opens the readers of a record format; the source config holds one when its
// format is a record format.
type recordFormat interface {
	// open starts reading split s of the file r (size bytes, named name in errors).
	open(r io.ReaderAt, size int64, name string, s fileSplit) (recordReader, error)
	// splits returns the splits of one file: the whole file by default, or its parts (the
	// row groups of a parquet file).
	splits(ctx context.Context, r io.ReaderAt, size int64, name string) ([]fileSplit, error)
}

// recordWriter writes the rows of one staged file. Rows carry every input column; the
// writer writes the sink columns.
type recordWriter interface {
	write(r *row.Row) error
	// endBatch is called at the end of each batch: the writer must be done with the rows
	// it was given, which their batch reuses.
	endBatch() error
	// close completes the file (a footer, the workbook's parts) into the io.Writer it was
	// made with; it does not close that writer.
	close() error
}

// recordSink makes the record writers of a sink whose format is a record format.
type recordSink interface {
	create(w io.Writer, name string) (recordWriter, error)
}

// openRecords starts the record reader of the current split on the open file f.
func (r *reader) openRecords(f ReadFile) error {
	rec, err := r.cfg.records.open(f, f.Size(), r.cur.Path, r.cur)
	if err != nil {
		return fmt.Errorf("%s: %w", r.cfg.where, err)
	}
	r.rec = rec
	return nil
}

// pollRecords fills out from the record reader and the partition values of the file,
// closing the file at the end of its split.
func (r *reader) pollRecords(ctx context.Context, out *row.Batch) error {
	start := out.Len()
	done, err := r.rec.next(ctx, out)
	if len(r.parts) > 0 {
		for i := start; i < out.Len(); i++ {
			copy(out.Rows[i].Fields[r.cfg.partBase:], r.parts)
		}
	}
	if err != nil {
		return err
	}
	if done {
		return r.nextInput() // the next file of an archive, or the end of the file
	}
	return nil
}

// fileSplits returns the splits of one listed file: the file itself, or the parts its record
// format cuts it into.
func (c *sourceConfig) fileSplits(ctx context.Context, path string) ([]fileSplit, error) {
	if c.records == nil {
		return []fileSplit{{Path: path}}, nil
	}
	f, err := c.fs.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return c.records.splits(ctx, f, f.Size(), path)
}

// endRecordBatch tells the open record writers that the batch's rows are going away.
func (w *writer) endRecordBatch() error {
	if w.single != nil {
		if err := w.single.rec.endBatch(); err != nil {
			return w.fail(fmt.Errorf("%s: write %s: %w", w.cfg.where, w.single.staged, err))
		}
	}
	for _, of := range w.files {
		if err := of.rec.endBatch(); err != nil {
			return w.fail(fmt.Errorf("%s: write %s: %w", w.cfg.where, of.staged, err))
		}
	}
	return nil
}

// fileSuffix is the ending of the sink's file names.
func (c *sinkConfig) fileSuffix() string {
	if s, ok := c.records.(interface{ suffix() string }); ok {
		return s.suffix()
	}
	return c.compress.suffix() + c.format.suffix() // .gz.txt, as SeaTunnel names it
}

// recordFormat sets up the source's record format, if it has one.
func (c *sourceConfig) recordFormat(opts *SourceTable) {
	switch c.format {
	case formatParquet:
		c.records = &parquetSource{cfg: c}
	case formatExcel:
		c.records = newExcelSource(c, opts.SheetName)
	}
}

// recordSink sets up the sink's record format, if it has one.
func (c *sinkConfig) recordSink(o *config.Options, opts *SinkConfig) error {
	switch c.format {
	case formatParquet:
		s, err := c.parquetSink(o, opts)
		if err != nil {
			return err
		}
		c.records = s
	case formatExcel:
		s, err := c.excelSink(o, opts)
		if err != nil {
			return err
		}
		c.records = s
	}
	return nil
}
