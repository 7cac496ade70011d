package xml

import (
	"bufio"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/strait-dev/strait/connectors/internal/format/json"
	"github.com/strait-dev/strait/connectors/internal/format/text"

	"github.com/strait-dev/strait/connectors/internal/format"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/internal/javatime"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// Options are the xml options of a source or a sink: the row elements' name
// (xml_row_tag), the root's (xml_root_tag, written only), and whether the columns are
// attributes of the row elements or child elements (xml_use_attr_format).
type Options struct {
	RowTag  string
	RootTag string
	Attrs   bool
}

// SourceOptions checks xml_row_tag and xml_use_attr_format, which SeaTunnel requires of an
// xml source.
func SourceOptions(o *config.Options, rowTag string, attrs *bool) (Options, error) {
	if rowTag == "" {
		return Options{}, o.Errorf("xml_row_tag", "option is required for the xml format (the name of the elements that hold the rows)")
	}
	return withAttrFormat(o, Options{RowTag: rowTag}, attrs)
}

// SinkOptions checks a sink's xml_root_tag and xml_row_tag (defaults RECORDS and RECORD),
// which must name elements, and its required xml_use_attr_format.
func SinkOptions(o *config.Options, rootTag, rowTag string, attrs *bool) (Options, error) {
	for _, t := range []struct{ key, name string }{{"xml_root_tag", rootTag}, {"xml_row_tag", rowTag}} {
		if !validXMLName(t.name) {
			return Options{}, o.Errorf(t.key, "%q is not an XML element name", t.name)
		}
	}
	return withAttrFormat(o, Options{RootTag: rootTag, RowTag: rowTag}, attrs)
}

func withAttrFormat(o *config.Options, x Options, attrs *bool) (Options, error) {
	if attrs == nil {
		return x, o.Errorf("xml_use_attr_format", "option is required for the xml format (true: the columns are attributes of the row elements; false: child elements)")
	}
	x.Attrs = *attrs
	return x, nil
}

// validXMLName reports whether s can name an element (names with a namespace prefix
// included).
func validXMLName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == ':' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= 0xC0 && r != 0xD7 && r != 0xF7:
		case i > 0 && (r == '-' || r == '.' || r >= '0' && r <= '9' || r == 0xB7):
		default:
			return false
		}
	}
	return true
}

// ---- reading ----

// source reads the row elements of xml files.
type source struct {
	cols   format.Columns
	byName map[string]int // column name -> index in cols.Columns
	opts   Options
	delim  text.Delimiter
	decode Decoder
}

// Decoder turns the bytes of a file into its text in UTF-8 (decompressed, transcoded);
// closer releases what it holds.
type Decoder func(stored io.Reader) (text io.Reader, closer io.Closer, err error)

// NewSource reads the columns cols from the row elements of xml files, whose bytes decode
// turns into text; a nested row's fields are split at delim (field_delimiter).
func NewSource(cols format.Columns, opts Options, delim text.Delimiter, decode Decoder) format.Source {
	s := &source{cols: cols, byName: make(map[string]int, len(cols.Columns)), opts: opts, delim: delim, decode: decode}
	for i, c := range cols.Columns {
		if _, dup := s.byName[c.Name]; !dup {
			s.byName[c.Name] = i
		}
	}
	return s
}

func (x *source) Splits(context.Context, io.ReaderAt, int64) ([]format.Split, error) {
	return format.Whole(), nil
}

// open starts reading the row elements of one xml input, past the s.Lines row elements a
// restored split has read.
func (x *source) Open(ra io.ReaderAt, size int64, name string, s format.Split) (format.Reader, error) {
	r, closer, err := x.decode(io.NewSectionReader(ra, 0, size))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	xr := &xmlReader{c: x, name: name, skip: s.Lines, closer: closer}
	xr.xd = xml.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	// the text is UTF-8 by now, whatever the declaration says: SeaTunnel too reads the
	// document through a reader in the configured encoding
	xr.xd.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	xr.vals = make([][]byte, len(x.cols.Columns))
	xr.set = make([]bool, len(x.cols.Columns))
	return xr, nil
}

type xmlReader struct {
	c      *source
	name   string
	xd     *xml.Decoder
	dec    json.Values // reads a value's text: scalars as text, arrays and maps as JSON
	closer io.Closer
	rows   int64 // row elements seen
	skip   int64 // row elements read before the snapshot the split was restored from
	vals   [][]byte
	set    []bool
	done   bool
}

// next adds a row for each row element, wherever it is in the document (SeaTunnel selects
// //row_tag). A row element with none of the columns is no row, as in SeaTunnel.
func (x *xmlReader) Next(ctx context.Context, out *row.Batch) (bool, error) {
	for !out.Full() {
		if x.done {
			return true, nil
		}
		tok, err := x.xd.Token()
		if err == io.EOF {
			x.done = true
			return true, nil
		}
		if err != nil {
			return false, x.syntaxError(err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != x.c.opts.RowTag {
			continue
		}
		x.rows++
		found, err := x.element(se)
		if err != nil {
			return false, err
		}
		if x.rows <= x.skip || !found {
			continue
		}
		rw := out.Add(row.Insert, x.c.cols.TableID, x.c.cols.Width)
		if err := x.fill(rw.Fields); err != nil {
			return false, err
		}
	}
	return false, ctx.Err()
}

func (x *xmlReader) syntaxError(err error) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s: line %d: bad XML: %s", x.name, se.Line, se.Msg)
	}
	return fmt.Errorf("read %s at byte %d of its text: %w", x.name, x.xd.InputOffset(), err)
}

// element reads the columns of one row element into x.vals, reading up to its end.
func (x *xmlReader) element(se xml.StartElement) (bool, error) {
	clear(x.set)
	found := false
	if x.c.opts.Attrs {
		for _, a := range se.Attr {
			if i, ok := x.c.byName[a.Name.Local]; ok && x.c.cols.Columns[i].Out >= 0 {
				x.vals[i] = append(x.vals[i][:0], a.Value...)
				x.set[i] = true
				found = true
			}
		}
		if err := x.xd.Skip(); err != nil {
			return false, x.syntaxError(err)
		}
		return found, nil
	}
	col, depth := -1, 0
	for {
		tok, err := x.xd.Token()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return false, x.syntaxError(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				col = -1
				if i, ok := x.c.byName[t.Name.Local]; ok && x.c.cols.Columns[i].Out >= 0 {
					col = i
					x.vals[i] = x.vals[i][:0]
					x.set[i] = true
					found = true
				}
			}
		case xml.EndElement:
			if depth == 0 {
				return found, nil
			}
			depth--
		case xml.CharData:
			// an element's own text, as dom4j's getText gives it
			if depth == 1 && col >= 0 {
				x.vals[col] = append(x.vals[col], t...)
			}
		}
	}
}

// fill converts the columns read into the row's fields.
func (x *xmlReader) fill(fields []row.Value) error {
	for i := range x.c.cols.Columns {
		if !x.set[i] {
			continue
		}
		spec := &x.c.cols.Columns[i]
		v, err := x.parse(x.vals[i], &spec.Type, 0)
		if err != nil {
			return fmt.Errorf("%s: row %d: column %q: %w", x.name, x.rows, spec.Name, err)
		}
		fields[spec.Out] = v
	}
	return nil
}

func (x *xmlReader) Progress(s *format.Split) { s.Lines = x.rows }

func (x *xmlReader) Close() error { return x.closer.Close() }

// maxDepth bounds the nesting of rows in a value.
const maxDepth = 512

// parse converts the text of an xml value to type t.
func (x *xmlReader) parse(s []byte, t *types.DataType, depth int) (row.Value, error) {
	if text.IsBlank(s) {
		return row.NullValue(), nil
	}
	switch t.Kind {
	case types.Map, types.Array:
		return x.dec.ParseWhole(s, t)
	case types.Row:
		if depth > maxDepth {
			return row.Value{}, fmt.Errorf("nested rows go deeper than %d levels", maxDepth)
		}
		parts := x.c.delim.SplitJava(s)
		rt := t.Row
		if len(parts) > rt.Len() {
			return row.Value{}, fmt.Errorf("nested row has %d fields, its type %s has %d", len(parts), t, rt.Len())
		}
		fields := make([]row.Value, rt.Len())
		for i, p := range parts {
			v, err := x.parse(p, &rt.Types[i], depth+1)
			if err != nil {
				return row.Value{}, fmt.Errorf("field %s: %w", rt.Names[i], err)
			}
			fields[i] = v
		}
		return row.RowValue(fields), nil
	}
	return x.dec.Scalar(s, t)
}

// ---- writing ----

// xmlSink writes xml files as SeaTunnel's XmlWriter does with dom4j's pretty printing:
// the declaration, a blank line, the root element and one row element per row, indented
// with tabs. Columns are attributes of the row element or child elements, in sink column
// order. Null is an empty value.
type xmlSink struct {
	cols    format.Written
	opts    Options
	delim   string
	charset string
	names   [][]byte
	rowTag  []byte
}

// The sink checks what the xml format can write: a nested row column is written with its
// fields joined by field_delimiter, which must then be text XML can hold (a row inside an
// array or a map is written as JSON).
//
// NewSink writes the columns cols of each row as the row elements of xml files, declaring
// the encoding charsetName (the core transcodes the text into it); a nested row's fields
// are joined with delim (field_delimiter). o names the options in errors.
func NewSink(o *config.Options, cols format.Written, opts Options, delim, charsetName string) (format.Sink, error) {
	for i, t := range cols.Types {
		if t.Kind == types.Row && !xmlText(delim) {
			return nil, o.Errorf("field_delimiter", "column %q holds a nested row, which the xml format writes with its fields joined by field_delimiter; %q cannot appear in XML, set field_delimiter to text XML allows", cols.Names[i], delim)
		}
	}
	x := &xmlSink{cols: cols, opts: opts, delim: delim, charset: charsetName, rowTag: []byte(opts.RowTag)}
	for _, n := range cols.Names {
		if !validXMLName(n) {
			return nil, o.Errorf("file_format_type", "column %q cannot name an XML attribute or element", n)
		}
		x.names = append(x.names, []byte(n))
	}
	return x, nil
}

// xmlText reports whether s holds only characters XML 1.0 allows.
func xmlText(s string) bool {
	for _, r := range s {
		if !xmlChar(r) {
			return false
		}
	}
	return utf8.ValidString(s)
}

func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

func (x *xmlSink) Create(w io.Writer, _ string) (format.Writer, error) {
	xw := &xmlWriter{s: x, w: w}
	xw.buf = append(xw.buf, `<?xml version="1.0" encoding="`...)
	xw.buf = append(xw.buf, x.charset...)
	xw.buf = append(xw.buf, "\"?>\n\n<"...)
	xw.buf = append(xw.buf, x.opts.RootTag...)
	xw.buf = append(xw.buf, '>')
	return xw, xw.flush()
}

type xmlWriter struct {
	s   *xmlSink
	w   io.Writer
	buf []byte
	val []byte
}

func (x *xmlWriter) flush() error {
	_, err := x.w.Write(x.buf)
	x.buf = x.buf[:0]
	return err
}

func (x *xmlWriter) Write(r *row.Row) error {
	s := x.s
	c := &s.cols
	b := append(x.buf, "\n\t<"...)
	b = append(b, s.rowTag...)
	if s.opts.Attrs {
		for j, col := range c.Fields {
			b = append(b, ' ')
			b = append(b, s.names[j]...)
			b = append(b, `="`...)
			x.val = s.appendValue(x.val[:0], &r.Fields[col], &c.Types[j])
			b = appendXMLEscaped(b, x.val)
			b = append(b, '"')
		}
		b = append(b, "/>"...)
	} else {
		b = append(b, '>')
		for j, col := range c.Fields {
			b = append(b, "\n\t\t<"...)
			b = append(b, s.names[j]...)
			x.val = s.appendValue(x.val[:0], &r.Fields[col], &c.Types[j])
			if len(x.val) == 0 {
				b = append(b, "/>"...)
				continue
			}
			b = append(b, '>')
			b = appendXMLEscaped(b, x.val)
			b = append(b, "</"...)
			b = append(b, s.names[j]...)
			b = append(b, '>')
		}
		b = append(b, "\n\t</"...)
		b = append(b, s.rowTag...)
		b = append(b, '>')
	}
	x.buf = b
	if len(b) < 32<<10 {
		return nil
	}
	return x.flush()
}

// endBatch: the rows are written as they come, nothing of them is kept.
func (x *xmlWriter) EndBatch() error { return nil }

func (x *xmlWriter) Close() error {
	x.buf = append(x.buf, "\n</"...)
	x.buf = append(x.buf, x.s.opts.RootTag...)
	x.buf = append(x.buf, ">\n"...)
	return x.flush()
}

// appendValue writes a value as SeaTunnel's XmlWriter converts it: the text form of
// scalars, JSON for maps and arrays, the fields of a nested row joined by field_delimiter,
// bytes as text. Timestamps and times are written with their seconds, in ISO form.
func (x *xmlSink) appendValue(b []byte, v *row.Value, t *types.DataType) []byte {
	switch v.T {
	case types.Null:
		return b
	case types.String, types.Bytes:
		return append(b, v.S...)
	case types.Date:
		return javatime.AppendLocalDate(b, v.I)
	case types.Time:
		return javatime.AppendISOLocalTime(b, v.I)
	case types.Timestamp:
		return javatime.AppendISOLocalDateTime(b, v.I)
	case types.Array, types.Map:
		return json.AppendValue(b, v, t)
	case types.Row:
		fields := v.Fields()
		for i := range fields {
			if i > 0 {
				b = append(b, x.delim...)
			}
			var ft *types.DataType
			if t != nil && t.Kind == types.Row && t.Row != nil && i < t.Row.Len() {
				ft = &t.Row.Types[i]
			}
			b = x.appendValue(b, &fields[i], ft)
		}
		return b
	}
	return row.AppendScalar(b, *v) // booleans, numbers as Java prints them
}

// appendXMLEscaped writes text escaped for an attribute value or element content. Line
// breaks and tabs are written as character references so that they read back unchanged;
// a character XML cannot hold is written as U+FFFD.
func appendXMLEscaped(b, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '<':
				b = append(b, "&lt;"...)
			case '>':
				b = append(b, "&gt;"...)
			case '&':
				b = append(b, "&amp;"...)
			case '"':
				b = append(b, "&quot;"...)
			case '\n':
				b = append(b, "&#10;"...)
			case '\r':
				b = append(b, "&#13;"...)
			case '\t':
				b = append(b, "&#9;"...)
			default:
				if c < 0x20 {
					b = append(b, "\uFFFD"...)
				} else {
					b = append(b, c)
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && n == 1 || !xmlChar(r) {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}
