package excel

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/connectors/internal/format/json"
	textformat "github.com/strait-dev/strait/connectors/internal/format/text"

	"github.com/strait-dev/strait/connectors/internal/format"

	"github.com/xuri/excelize/v2"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/internal/civil"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

const (
	excelMaxRows    = 1 << 20 // rows a sheet holds
	excelSheet      = "Sheet1"
	excelDateFmt    = "yyyy-mm-dd"
	excelDateTime   = "yyyy-mm-dd hh:mm:ss"
	excelTimeFmt    = "hh:mm:ss"
	excelDoubleBits = 15 // decimal digits a double holds exactly
)

// SourceOptions are the source options of the excel format.
type SourceOptions struct {
	// Sheet is sheet_name: the sheet read, "" for the first.
	Sheet string
	// SkipHeader is skip_header_row_number: the rows skipped at the top of the sheet.
	SkipHeader int64
	// Delimiter is field_delimiter: a nested row's fields are split at it.
	Delimiter string
}

// excelSource reads the cells of one sheet as the declared columns, cell j of a row being
// column j of the schema.
type excelSource struct {
	cols format.Columns
	opts SourceOptions
}

// NewSource reads the columns cols from the sheets of xlsx workbooks.
func NewSource(cols format.Columns, opts SourceOptions) format.Source {
	return &excelSource{cols: cols, opts: opts}
}

// splits: a workbook is one split.
func (e *excelSource) Splits(context.Context, io.ReaderAt, int64) ([]format.Split, error) {
	return format.Whole(), nil
}

// excelReader reads the rows of one sheet.
type excelReader struct {
	src   *excelSource
	file  *excelize.File
	rows  *excelize.Rows
	name  string
	line  int64       // sheet rows read
	vals  json.Values // reads a cell's text: scalars as text, arrays and maps as JSON
	cells []string
}

func (e *excelSource) Open(r io.ReaderAt, size int64, name string, s format.Split) (format.Reader, error) {
	if strings.HasSuffix(strings.ToLower(name), ".xls") {
		return nil, fmt.Errorf("%s: .xls (BIFF) workbooks cannot be read: no Go library for them is available to Strait; save the workbook as .xlsx", name)
	}
	if err := checkXLSX(r, size); err != nil {
		return nil, fmt.Errorf("%s: not an xlsx workbook: %w", name, err)
	}
	f, err := excelize.OpenReader(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, fmt.Errorf("%s: not an xlsx workbook: %w", name, err)
	}
	sheet := e.opts.Sheet
	if sheet == "" {
		if list := f.GetSheetList(); len(list) > 0 {
			sheet = list[0]
		}
	}
	if idx, err := f.GetSheetIndex(sheet); err != nil || idx < 0 {
		f.Close()
		return nil, fmt.Errorf("%s: the workbook has no sheet %q (its sheets: %s)", name, sheet, strings.Join(f.GetSheetList(), ", "))
	}
	rows, err := f.Rows(sheet)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: sheet %q: %w", name, sheet, err)
	}
	er := &excelReader{src: e, file: f, rows: rows, name: name}
	// a restored reader skips the rows it had read
	for er.line < s.Lines && rows.Next() {
		er.line++
	}
	return er, nil
}

func (x *excelReader) Next(ctx context.Context, out *row.Batch) (bool, error) {
	cols := &x.src.cols
	for !out.Full() {
		if !x.rows.Next() {
			if err := x.rows.Error(); err != nil {
				return false, fmt.Errorf("%s: row %d: %w", x.name, x.line+1, err)
			}
			return true, nil
		}
		x.line++
		if x.line <= x.src.opts.SkipHeader {
			continue
		}
		cells, err := x.rows.Columns(excelize.Options{RawCellValue: true})
		if err != nil {
			return false, fmt.Errorf("%s: row %d: %w", x.name, x.line, err)
		}
		rw := out.Add(row.Insert, cols.TableID, cols.Width)
		for i, c := range cols.Columns {
			if c.Out < 0 {
				continue
			}
			text := ""
			if i < len(cells) {
				text = cells[i]
			}
			v, err := x.cell(text, &c.Type)
			if err != nil {
				out.Rows = out.Rows[:len(out.Rows)-1]
				return false, fmt.Errorf("%s: row %d: column %q: %w", x.name, x.line, c.Name, err)
			}
			rw.Fields[c.Out] = v
		}
	}
	return false, nil
}

// cell reads a cell's raw value as type t, as SeaTunnel converts cells: numbers from their
// text, dates and times from a date cell's serial number or from text, map and array from
// JSON text, a nested row from text split at field_delimiter, bytes as the text's UTF-8.
// An empty cell is null.
func (x *excelReader) cell(text string, t *types.DataType) (row.Value, error) {
	if text == "" {
		return row.NullValue(), nil
	}
	switch t.Kind {
	case types.Boolean:
		switch strings.ToLower(text) {
		case "1", "true":
			return row.BoolValue(true), nil
		case "0", "false":
			return row.BoolValue(false), nil
		}
		return row.Value{}, fmt.Errorf("%q is not a boolean", text)
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return excelInt(text, t.Kind)
	case types.Date, types.Time, types.Timestamp:
		if serial, err := strconv.ParseFloat(text, 64); err == nil {
			return excelDate(serial, t.Kind)
		}
	case types.Array, types.Map:
		return x.vals.Parse([]byte(text), t)
	case types.Row:
		parts := textformat.SplitJava([]byte(text), x.src.opts.Delimiter)
		fields := make([]row.Value, len(t.Row.Names))
		for i := range fields {
			if i >= len(parts) {
				break
			}
			v, err := x.cell(string(parts[i]), &t.Row.Types[i])
			if err != nil {
				return row.Value{}, fmt.Errorf("field %q: %w", t.Row.Names[i], err)
			}
			fields[i] = v
		}
		return row.RowValue(fields), nil
	}
	return x.vals.Scalar([]byte(text), t)
}

// excelInt reads an integer cell: its number (1.33322613E9 in SeaTunnel's files) must be
// whole and in the type's range.
func excelInt(text string, k types.Kind) (row.Value, error) {
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		if !k.Fits(n) {
			return row.Value{}, fmt.Errorf("%d does not fit %s", n, k)
		}
		return row.Value{T: k, I: n}, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<63 {
		return row.Value{}, fmt.Errorf("%q is not a whole number", text)
	}
	n := int64(f)
	if !k.Fits(n) {
		return row.Value{}, fmt.Errorf("%s does not fit %s", text, k)
	}
	return row.Value{T: k, I: n}, nil
}

// excelDate converts a date cell's serial number (days since 1899-12-30, the fraction the
// time of day) to a date, a time or a timestamp, to the millisecond, as POI rounds it (a
// double of days holds about a microsecond).
func excelDate(serial float64, k types.Kind) (row.Value, error) {
	if serial < 0 || serial > 2958466 {
		return row.Value{}, fmt.Errorf("%v is not a date serial number", serial)
	}
	days := math.Floor(serial)
	millis := math.Round((serial - days) * 86400e3)
	nanos := (int64(days)-25569)*civil.NanosPerDay + int64(millis)*int64(time.Millisecond)
	switch k {
	case types.Date:
		return row.DateValue(civil.FloorDiv(nanos, civil.NanosPerDay)), nil
	case types.Time:
		return row.TimeValue(nanos - civil.FloorDiv(nanos, civil.NanosPerDay)*civil.NanosPerDay), nil
	}
	return row.TimestampValue(nanos), nil
}

func (x *excelReader) Progress(s *format.Split) { s.Lines = x.line }

func (x *excelReader) Close() error {
	x.rows.Close()
	return x.file.Close()
}

// ---- writing

// excelSink writes one sheet per file: a header row of the column names (unless
// enable_header_write is false), then a row per row, one cell per written column.
type excelSink struct {
	cols   format.Written
	opts   SinkOptions
	sheet  string
	header bool
}

// SinkOptions are the sink options of the excel format.
type SinkOptions struct {
	// Sheet is sheet_name: the sheet's name, Sheet1 when blank.
	Sheet string
	// Header is enable_header_write: a first row of the column names unless it is false.
	Header *bool
	// Delimiter is field_delimiter: a nested row's fields are joined with it.
	Delimiter string
	// Text writes the fields of a nested row.
	Text textformat.Encoder
}

// NewSink writes the columns cols of each row into the sheet of an xlsx workbook; o names
// the options in errors.
func NewSink(o *config.Options, cols format.Written, opts SinkOptions) (format.Sink, error) {
	s := &excelSink{cols: cols, opts: opts, sheet: excelSheet, header: true}
	if name := strings.TrimSpace(opts.Sheet); name != "" {
		if len([]rune(name)) > 31 || strings.ContainsAny(name, `:\/?*[]`) {
			return nil, o.Errorf("sheet_name", "%q is not a sheet name: at most 31 characters, none of : \\ / ? * [ ]", name)
		}
		s.sheet = name
	}
	// SeaTunnel always writes the header; enable_header_write = false leaves it out
	if opts.Header != nil {
		s.header = *opts.Header
	}
	for i, t := range cols.Types {
		if t.Kind == types.Null {
			continue
		}
		if err := excelCellType(t); err != nil {
			return nil, o.Errorf("file_format_type", "column %q: %v", cols.Names[i], err)
		}
	}
	return s, nil
}

// excelCellType checks that a type can be written to a cell: a nested row's fields are
// split at field_delimiter again when read, so they cannot be rows themselves.
func excelCellType(t types.DataType) error {
	if t.Kind == types.Row {
		for _, ft := range t.Row.Types {
			if ft.Kind == types.Row {
				return fmt.Errorf("a row nested in a row cannot be written to an excel cell")
			}
		}
	}
	return nil
}

func (s *excelSink) Create(w io.Writer, name string) (format.Writer, error) {
	f := excelize.NewFile()
	if s.sheet != excelSheet {
		if err := f.SetSheetName(excelSheet, s.sheet); err != nil {
			return nil, err
		}
	}
	sw, err := f.NewStreamWriter(s.sheet)
	if err != nil {
		return nil, err
	}
	x := &excelWriter{sink: s, f: f, sw: sw, out: w, name: name}
	for _, spec := range []struct {
		id  *int
		fmt string
	}{{&x.dateStyle, excelDateFmt}, {&x.tsStyle, excelDateTime}, {&x.timeStyle, excelTimeFmt}} {
		format := spec.fmt
		if *spec.id, err = f.NewStyle(&excelize.Style{CustomNumFmt: &format}); err != nil {
			return nil, err
		}
	}
	x.cells = make([]any, len(s.cols.Fields))
	if s.header {
		for i, n := range s.cols.Names {
			x.cells[i] = n
		}
		if err := x.row(); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// excelWriter streams the rows of one workbook.
type excelWriter struct {
	sink                          *excelSink
	f                             *excelize.File
	sw                            *excelize.StreamWriter
	out                           io.Writer
	name                          string
	rows                          int
	cells                         []any
	dateStyle, tsStyle, timeStyle int
	text                          []byte
}

func (x *excelWriter) row() error {
	if x.rows >= excelMaxRows {
		return fmt.Errorf("a sheet holds at most %d rows: use batch_size to start a new file sooner", excelMaxRows)
	}
	cell, err := excelize.CoordinatesToCellName(1, x.rows+1)
	if err != nil {
		return err
	}
	x.rows++
	return x.sw.SetRow(cell, x.cells)
}

func (x *excelWriter) Write(r *row.Row) error {
	cols := &x.sink.cols
	for j, col := range cols.Fields {
		v, err := x.value(&r.Fields[col], &cols.Types[j])
		if err != nil {
			return fmt.Errorf("row %d: column %q: %w", x.rows+1, cols.Names[j], err)
		}
		x.cells[j] = v
	}
	return x.row()
}

// value is the cell of a value, as ExcelGenerator writes it: numbers and booleans as
// such, dates, times and timestamps as date cells in the layouts yyyy-mm-dd, hh:mm:ss and
// yyyy-mm-dd hh:mm:ss, maps and arrays as JSON, nested rows as their fields' text joined by
// field_delimiter. A decimal that a double cannot hold exactly is written as its text.
func (x *excelWriter) value(v *row.Value, t *types.DataType) (any, error) {
	if v.T == types.Null {
		return nil, nil
	}
	switch t.Kind {
	case types.String:
		return v.S, nil
	case types.Bytes:
		return v.S, nil
	case types.Boolean:
		return v.I != 0, nil
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return v.I, nil
	case types.Float:
		return float64(v.Float32()), nil
	case types.Double:
		return v.Float64(), nil
	case types.Decimal:
		text := string(row.AppendJavaDecimal(nil, *v))
		if t.Precision <= excelDoubleBits {
			if f, err := strconv.ParseFloat(text, 64); err == nil {
				return f, nil
			}
		}
		return strings.ToUpper(text), nil
	case types.Date:
		return excelize.Cell{StyleID: x.dateStyle, Value: v.DateTime()}, nil
	case types.Timestamp:
		return excelize.Cell{StyleID: x.tsStyle, Value: v.Time()}, nil
	case types.Time:
		// a time of day is the fraction of a day, as on 1899-12-30
		return excelize.Cell{StyleID: x.timeStyle, Value: float64(v.I) / float64(civil.NanosPerDay)}, nil
	case types.Array, types.Map:
		x.text = json.AppendValue(x.text[:0], v, t)
		return string(x.text), nil
	case types.Row:
		return x.rowText(v, t), nil
	}
	return nil, fmt.Errorf("type %s cannot be written to an excel cell", t)
}

// rowText joins a nested row's fields with field_delimiter, each as SeaTunnel's
// ExcelGenerator.convert writes it.
func (x *excelWriter) rowText(v *row.Value, t *types.DataType) string {
	opts := &x.sink.opts
	var b []byte
	for i, f := range v.Fields() {
		if i > 0 {
			b = append(b, opts.Delimiter...)
		}
		ft := &t.Row.Types[i]
		switch {
		case f.T == types.Null:
		case ft.Kind == types.Array || ft.Kind == types.Map:
			b = json.AppendValue(b, &f, ft)
		default:
			b = opts.Text.AppendValue(b, &f, 1)
		}
	}
	return string(b)
}

func (x *excelWriter) EndBatch() error { return nil }

func (x *excelWriter) Close() error {
	if err := x.sw.Flush(); err != nil {
		return err
	}
	if _, err := x.f.WriteTo(x.out); err != nil {
		return err
	}
	return x.f.Close()
}
