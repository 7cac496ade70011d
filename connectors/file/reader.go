package file

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	jsonformat "github.com/strait-dev/strait/connectors/internal/format/json"

	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/connectors/internal/format/text"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

const (
	readBufferSize = 1 << 20
	maxLineLength  = 256 << 20
)

// fileSplit is one file and how far it has been read: Offset bytes, which hold Lines
// lines. A restored reader seeks to Offset and numbers lines from Lines on.
//
// A record format's split may cover part of a file: the row groups FirstGroup up to
// EndGroup (exclusive; 0 is the end of the file) of a parquet file. Group and GroupRows say
// where its reader is: in row group Group, after GroupRows of its rows.
//
// Table is the table of tables_configs the file belongs to, and Entry the file of an
// archive being read (the files before it are done); Offset and Lines then count in that
// file, and in its text: uncompressed and in UTF-8.
type fileSplit struct {
	Path  string `json:"path"`
	Table int    `json:"table,omitempty"`
	Entry int    `json:"entry,omitempty"`
	format.Split
}

// id names the split: its file, and the row groups it covers when it is part of one.
func (d fileSplit) id() string {
	if d.EndGroup > 0 {
		return d.Path + "#" + strconv.Itoa(d.FirstGroup) + "-" + strconv.Itoa(d.EndGroup)
	}
	return d.Path
}

func newSplit(d fileSplit) connector.Split {
	b, _ := json.Marshal(d)
	return connector.Split{ID: splitID(d), Data: b}
}

// reader reads its files one after the other.
type reader struct {
	cfg    *sourceConfig   // the current split's table
	cfgs   []*sourceConfig // every table's
	in     fileInputs      // the inputs of the open file: it, or the files of its archive
	queue  []fileSplit
	cur    fileSplit
	f      ReadFile
	br     *bufio.Reader
	rec    format.Reader // the reader of a record format's split
	long   []byte
	parts  []row.Value // partition values of the current file
	noMore bool
	err    error
	dec    decoder
}

// decoder is the decoder of a line format's lines (text, csv, json) of the current table,
// and where it is: its errors name the source, the file and the line.
type decoder struct {
	lines format.LineDecoder
	where string
	file  string
	line  int64
}

// CreateReader makes the reader of one subtask.
func (s *Source) CreateReader(connector.ReaderContext) (connector.Reader, error) {
	return &reader{cfg: s.cfg, cfgs: s.cfgs, dec: s.cfg.lineDecoder()}, nil
}

func (r *reader) Open(context.Context) error { return nil }

// AddSplits queues files to read.
func (r *reader) AddSplits(splits []connector.Split) {
	for _, s := range splits {
		d := fileSplit{Path: s.ID}
		if len(s.Data) > 0 {
			if err := json.Unmarshal(s.Data, &d); err != nil && r.err == nil {
				r.err = fmt.Errorf("%s: bad split %q: %v", r.cfg.where, s.ID, err)
				continue
			}
		}
		if d.Path == "" {
			d.Path = s.ID
		}
		r.queue = append(r.queue, d)
	}
}

func (r *reader) NoMoreSplits() { r.noMore = true }

func (r *reader) fail(err error) error {
	if r.err == nil {
		r.err = err
	}
	r.closeFile()
	return err
}

// PollNext fills out with rows of the current file, moving on to the next file at the end
// of one; it is done once every file is read and no more will come.
func (r *reader) PollNext(ctx context.Context, out *row.Batch) (done bool, err error) {
	if r.err != nil {
		return false, r.err
	}
	defer func() {
		if p := recover(); p != nil {
			err = r.fail(fmt.Errorf("%s: %s:%d: internal error: %v", r.cfg.where, r.cur.Path, r.cur.Lines, p))
			done = false
		}
	}()
	for !out.Full() {
		cfg := r.cfg
		if r.f == nil {
			if len(r.queue) == 0 {
				return r.noMore, nil
			}
			if err := ctx.Err(); err != nil {
				return false, err
			}
			if err := r.openNext(); err != nil {
				return false, r.fail(err)
			}
			continue
		}
		if r.rec != nil {
			if err := r.pollRecords(ctx, out); err != nil {
				return false, r.fail(err)
			}
			continue
		}
		line, err := r.readLine()
		if err == io.EOF {
			if err := r.nextInput(); err != nil {
				return false, r.fail(err)
			}
			continue
		}
		if err != nil {
			return false, r.fail(fmt.Errorf("%s: read %s at byte %d of its text, line %d%s: %w", cfg.where, r.dec.file, r.cur.Offset, r.cur.Lines+1, r.in.where(), err))
		}
		r.cur.Lines++
		if r.cur.Lines <= cfg.skipHeader || len(line) == 0 {
			continue
		}
		r.dec.line = r.cur.Lines
		rw := out.Add(row.Insert, cfg.tableID, cfg.width)
		if err := r.dec.decode(line, rw.Fields); err != nil {
			return false, r.fail(err)
		}
		copy(rw.Fields[cfg.partBase:], r.parts)
	}
	return false, nil
}

func (r *reader) openNext() error {
	r.cur = r.queue[0]
	r.queue[0] = fileSplit{}
	r.queue = r.queue[1:]
	if err := r.useTable(r.cur.Table); err != nil {
		return err
	}
	f, err := r.cfg.fs.Open(r.cur.Path)
	if err != nil {
		return fmt.Errorf("%s: %w", r.cfg.where, err)
	}
	if err := r.in.start(r.cfg, f, f.Size(), r.cur.Path); err != nil {
		f.Close()
		return fmt.Errorf("%s: %s: %w", r.cfg.where, r.cur.Path, err)
	}
	r.f = f
	r.parts = r.parts[:0]
	if len(r.cfg.partNames) > 0 {
		kvs := partitionsOf(r.cur.Path)
		for _, name := range r.cfg.partNames {
			v := row.NullValue()
			for _, kv := range kvs {
				if kv[0] == name {
					v = row.StringValue(kv[1])
				}
			}
			r.parts = append(r.parts, v)
		}
	}
	return r.nextInput()
}

func (r *reader) closeFile() {
	if r.rec != nil {
		r.rec.Close()
		r.rec = nil
	}
	r.in.reset()
	if r.f != nil {
		r.f.Close()
		r.f = nil
		if r.br != nil {
			r.br.Reset(nil)
		}
	}
}

// readLine returns the next line without its line break (\n or \r\n), valid until the next
// call, and counts its bytes into the split's offset.
func (r *reader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	switch err {
	case nil:
	case bufio.ErrBufferFull:
		r.long = append(r.long[:0], line...)
		for {
			line, err = r.br.ReadSlice('\n')
			r.long = append(r.long, line...)
			if err == nil || err == io.EOF {
				break
			}
			if err != bufio.ErrBufferFull {
				return nil, err
			}
			if len(r.long) > maxLineLength {
				return nil, fmt.Errorf("line %d is longer than %d bytes", r.cur.Lines+1, maxLineLength)
			}
		}
		line = r.long
		if cap(r.long) > 4*readBufferSize {
			r.long = nil
		}
	case io.EOF:
		if len(line) == 0 {
			return nil, io.EOF
		}
	default:
		return nil, err
	}
	r.cur.Offset += int64(len(line))
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
		if n > 0 && line[n-1] == '\r' {
			n--
		}
	}
	return line[:n], nil
}

// SnapshotState returns the file being read, with its progress, and the files not started.
func (r *reader) SnapshotState(int64) ([]connector.Split, error) {
	var out []connector.Split
	if r.f != nil {
		cur := r.cur
		if r.rec != nil {
			r.rec.Progress(&cur.Split)
		}
		out = append(out, newSplit(cur))
	}
	for _, d := range r.queue {
		out = append(out, newSplit(d))
	}
	return out, nil
}

func (r *reader) Close() error {
	r.closeFile()
	return nil
}

func (d *decoder) decode(line []byte, fields []row.Value) error {
	if err := d.lines.Decode(line, fields); err != nil {
		return fmt.Errorf("%s: %s:%d: %w", d.where, d.file, d.line, err)
	}
	return nil
}

// lineDecoder makes the decoder of a reader of the table's lines (text, csv, json): each
// reader has its own, whose strings go to an arena of its own. A record format has none.
func (c *sourceConfig) lineDecoder() decoder {
	d := decoder{where: c.where}
	switch c.format {
	case formatJSON:
		d.lines = jsonformat.NewLines(c.columns().Columns)
	case formatText, formatCSV:
		d.lines = &text.Lines{Values: text.Values{Seps: c.seps}, Columns: c.columns().Columns,
			Whole: c.noSchema, Delim: c.delim, CSV: c.csvDelim}
	}
	return d
}
