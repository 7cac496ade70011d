package file

import (
	"context"
	"fmt"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/connectors/internal/format/excel"
	"github.com/strait-dev/strait/connectors/internal/format/parquet"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/row"
)

// Formats that are not read and written line by line (parquet, excel, xml, binary) plug
// into the reader and the writer as a format.Source and a format.Sink
// (connectors/internal/format): they see only an io.ReaderAt or an io.Writer, never a path
// or an os.File, so every file system serves them.

// openRecords starts the record reader of the current split on the open file f.
func (r *reader) openRecords(f ReadFile) error {
	rec, err := r.cfg.records.Open(f, f.Size(), r.cur.Path, r.cur.Split)
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
	done, err := r.rec.Next(ctx, out)
	if err != nil {
		err = fmt.Errorf("%s: %w", r.cfg.where, err)
	}
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
	parts, err := c.records.Splits(ctx, f, f.Size())
	if err != nil {
		return nil, err
	}
	out := make([]fileSplit, len(parts))
	for i, p := range parts {
		out[i] = fileSplit{Path: path, Split: p}
	}
	return out, nil
}

// endRecordBatch tells the open record writers that the batch's rows are going away.
func (w *writer) endRecordBatch() error {
	if w.single != nil {
		if err := w.single.rec.EndBatch(); err != nil {
			return w.fail(fmt.Errorf("%s: write %s: %w", w.cfg.where, w.single.staged, err))
		}
	}
	for _, of := range w.files {
		if err := of.rec.EndBatch(); err != nil {
			return w.fail(fmt.Errorf("%s: write %s: %w", w.cfg.where, of.staged, err))
		}
	}
	return nil
}

// fileSuffix is the ending of the sink's file names.
func (c *sinkConfig) fileSuffix() string {
	if s, ok := c.records.(interface{ Suffix() string }); ok {
		return s.Suffix()
	}
	return c.compress.suffix() + c.format.suffix() // .gz.txt, as SeaTunnel names it
}

// recordFormat sets up the source's record format, if it has one.
func (c *sourceConfig) recordFormat(opts *SourceTable) {
	switch c.format {
	case formatParquet:
		c.records = parquet.NewSource(c.columns())
	case formatExcel:
		c.records = excel.NewSource(c.columns(), excel.SourceOptions{Sheet: opts.SheetName, SkipHeader: c.skipHeader, Delimiter: c.seps[0]})
	}
}

// recordSink sets up the sink's record format, if it has one.
func (c *sinkConfig) recordSink(o *config.Options, opts *SinkConfig) error {
	switch c.format {
	case formatParquet:
		s, err := parquet.NewSink(o, c.written(), parquet.SinkOptions{Codec: opts.CompressCodec,
			TimestampsAsInt96: opts.ParquetTSAsInt96, FixedAsInt96: opts.ParquetFixedInt96})
		if err != nil {
			return err
		}
		c.records = s
	case formatExcel:
		s, err := excel.NewSink(o, c.written(), excel.SinkOptions{Sheet: opts.SheetName, Header: opts.EnableHeaderWrite,
			Delimiter: c.fieldDelim, Text: c.textEnc})
		if err != nil {
			return err
		}
		c.records = s
	}
	return nil
}

// columns is what a record format's reader fills of the source's rows.
func (c *sourceConfig) columns() format.Columns {
	cols := make([]format.Column, len(c.cols))
	for i, cs := range c.cols {
		cols[i] = format.Column{Name: cs.name, Type: cs.t, Out: cs.out}
	}
	return format.Columns{TableID: c.tableID, Width: c.width, Columns: cols}
}

// written is what a record format's writer writes of each input row.
func (c *sinkConfig) written() format.Written {
	return format.Written{Fields: c.sinkCols, Names: c.sinkNames, Types: c.sinkTypes}
}

// parquetPlanTimeout bounds reading the first file's footer when the source is planned.
const parquetPlanTimeout = 30 * time.Second

// parquetFileSchema takes the columns of the first file, as SeaTunnel does when the config
// declares none. With no file at all the source is the one string column `content`, as in
// SeaTunnel. Reading the footer is bounded in size (by the format) and in time.
func (c *sourceConfig) parquetFileSchema(o *config.Options, declared *catalog.Table) (*catalog.Table, error) {
	if _, err := c.fs.Stat(c.path); err != nil {
		return nil, o.Errorf("path", "%v", unwrapPathError(err))
	}
	var first string
	if err := c.walk(func(p string) bool { first = p; return false }); err != nil {
		return nil, o.Errorf("path", "%v", err)
	}
	if first == "" {
		return declared, nil
	}
	type result struct {
		t   *catalog.Table
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := c.fs.Open(first)
		if err != nil {
			done <- result{nil, err}
			return
		}
		defer f.Close()
		t, err := parquet.TableOf(f, f.Size())
		done <- result{t, err}
	}()
	timer := time.NewTimer(parquetPlanTimeout)
	defer timer.Stop()
	var res result
	select {
	case res = <-done:
	case <-timer.C:
		return nil, o.Errorf("schema", "reading the schema of %s took longer than %s; declare the columns in `schema`", first, parquetPlanTimeout)
	}
	if res.err != nil {
		return nil, o.Errorf("schema", "%s: %v", first, res.err)
	}
	t := res.t
	if declared != nil {
		t.Catalog, t.Path, t.Comment = declared.Catalog, declared.Path, declared.Comment
		t.PrimaryKey, t.ConstraintKeys = declared.PrimaryKey, declared.ConstraintKeys
	}
	return t, nil
}
