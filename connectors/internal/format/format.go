// Package format is what the file core (connectors/file) and a file format that reads and
// writes whole files (parquet, excel, xml: connectors/internal/format/<name>) say to each
// other. A format sees an io.ReaderAt or an io.Writer and the columns it reads or writes,
// never a path, a file system or the connector's options beyond its own, so one format
// serves every file system and the core knows no format's insides.
package format

import (
	"context"
	"fmt"
	"io"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// Split is how much of one file a reader covers and how far it has read; the core keeps it
// in its own split, which a checkpoint records, so its JSON names are the checkpoint's.
// A format whose files are split in parts (the row groups of a parquet file) covers
// FirstGroup up to EndGroup (exclusive; 0 is the end of the file) and is in row group
// Group after GroupRows of its rows; a format read as a stream has read Offset bytes
// holding Lines lines or rows.
type Split struct {
	Offset     int64 `json:"offset,omitempty"`
	Lines      int64 `json:"lines,omitempty"`
	FirstGroup int   `json:"first_group,omitempty"`
	EndGroup   int   `json:"end_group,omitempty"`
	Group      int   `json:"group,omitempty"`
	GroupRows  int64 `json:"group_rows,omitempty"`
}

// Column is one column of the schema a source declares, in the file's order: its name
// and type, and its place in the emitted row (Out), or -1 when read_columns leaves it out.
type Column struct {
	Name string
	Type types.DataType
	Out  int
}

// Columns is what a source's reader fills: rows of Width fields of table TableID, the
// file's columns going where Columns say (the fields after them are the partition values
// the core fills).
type Columns struct {
	TableID string
	Width   int
	Columns []Column
}

// Written is what a sink's writer writes of each input row: the fields Fields, under the
// names Names with the types Types.
type Written struct {
	Fields []int
	Names  []string
	Types  []types.DataType
}

// Source opens the readers of one table's files.
type Source interface {
	// Open starts reading split s of the file r (size bytes, named name in errors).
	Open(r io.ReaderAt, size int64, name string, s Split) (Reader, error)
	// Splits returns the parts of one file, each read by a reader of its own: the whole
	// file, or its row groups.
	Splits(ctx context.Context, r io.ReaderAt, size int64) ([]Split, error)
}

// Reader reads the rows of one split of one file.
type Reader interface {
	// Next appends rows to out until it is full or the split ends (done).
	Next(ctx context.Context, out *row.Batch) (done bool, err error)
	// Progress records in s how far the split has been read, for a checkpoint.
	Progress(s *Split)
	Close() error
}

// Sink makes the writers of one sink's files. A sink that names its files' ending itself
// (".snappy.parquet": the codec is the format's) also has a method Suffix() string; the
// files of others end in the core's codec and the format's name (".gz.xml").
type Sink interface {
	// Create starts a file written into w (named name in errors).
	Create(w io.Writer, name string) (Writer, error)
}

// Writer writes the rows of one file.
type Writer interface {
	Write(r *row.Row) error
	// EndBatch is called at the end of each batch: the writer must be done with the rows
	// it was given, which their batch reuses.
	EndBatch() error
	// Close completes the file (a footer, the workbook's parts) into the io.Writer it was
	// made with; it does not close that writer.
	Close() error
}

// LineDecoder reads the rows of a line format (text, csv, json) one line at a time.
type LineDecoder interface {
	// Decode reads one line into fields, the row's fields, zeroed. An error says what is
	// wrong with the line, or is a ColumnError; the caller adds the file and the line.
	Decode(line []byte, fields []row.Value) error
}

// ColumnError is a value of column Column that does not read.
type ColumnError struct {
	Column string
	Err    error
}

func (e *ColumnError) Error() string { return fmt.Sprintf("column %q: %v", e.Column, e.Err) }
func (e *ColumnError) Unwrap() error { return e.Err }

// Whole is the split of a file read from its start by one reader.
func Whole() []Split { return []Split{{}} }
