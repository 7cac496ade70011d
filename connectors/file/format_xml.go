package file

import (
	"bufio"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/strait-dev/strait/connectors/internal/format"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/internal/javatime"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// The xml format, as SeaTunnel's XmlReadStrategy and XmlWriter have it: a root element
// (xml_root_tag, RECORDS) holding one element per row (xml_row_tag, RECORD) whose
// attributes (xml_use_attr_format = true) or child elements are the columns, by name.
// Values are text: numbers, booleans, dates, times and timestamps as the text format reads
// them, maps and arrays as JSON, a nested row as its fields joined with field_delimiter,
// bytes as their UTF-8 text. A blank value is null.

// xmlOptions are the xml options of a source or a sink.
type xmlOptions struct {
	rowTag  string
	rootTag string
	attrs   bool
}

// sourceXMLOptions checks xml_row_tag and xml_use_attr_format, which SeaTunnel requires of
// an xml source.
func sourceXMLOptions(o *config.Options, rowTag string, attrs *bool) (xmlOptions, error) {
	if rowTag == "" {
		return xmlOptions{}, o.Errorf("xml_row_tag", "option is required for the xml format (the name of the elements that hold the rows)")
	}
	return withAttrFormat(o, xmlOptions{rowTag: rowTag}, attrs)
}

// sinkXMLOptions checks a sink's xml_root_tag and xml_row_tag (defaults RECORDS and
// RECORD), which must name elements, and its required xml_use_attr_format.
func sinkXMLOptions(o *config.Options, rootTag, rowTag string, attrs *bool) (xmlOptions, error) {
	for _, t := range []struct{ key, name string }{{"xml_root_tag", rootTag}, {"xml_row_tag", rowTag}} {
		if !validXMLName(t.name) {
			return xmlOptions{}, o.Errorf(t.key, "%q is not an XML element name", t.name)
		}
	}
	return withAttrFormat(o, xmlOptions{rootTag: rootTag, rowTag: rowTag}, attrs)
}

func withAttrFormat(o *config.Options, x xmlOptions, attrs *bool) (xmlOptions, error) {
	if attrs == nil {
		return x, o.Errorf("xml_use_attr_format", "option is required for the xml format (true: the columns are attributes of the row elements; false: child elements)")
	}
	x.attrs = *attrs
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

// xmlFormat reads xml files: it is the source's record format for xml.
type xmlFormat struct {
	c *sourceConfig
}

func (x xmlFormat) Splits(context.Context, io.ReaderAt, int64) ([]format.Split, error) {
	return format.Whole(), nil
}

// open starts reading the row elements of one xml input, past the s.Lines row elements a
// restored split has read.
func (x xmlFormat) Open(ra io.ReaderAt, size int64, name string, s format.Split) (format.Reader, error) {
	c := x.c
	stored := &countingReader{r: io.NewSectionReader(ra, 0, size)}
	r, closer, err := c.compress.decompress(stored)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	xr := &xmlReader{c: c, name: name, skip: s.Lines, closer: closer, dec: decoder{cfg: c, file: name}}
	xr.xd = xml.NewDecoder(bufio.NewReaderSize(c.charset.decode(r), 64<<10))
	// the text is UTF-8 by now, whatever the declaration says: SeaTunnel too reads the
	// document through a reader in the configured encoding
	xr.xd.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	xr.vals = make([][]byte, len(c.cols))
	xr.set = make([]bool, len(c.cols))
	return xr, nil
}

type xmlReader struct {
	c      *sourceConfig
	name   string
	xd     *xml.Decoder
	dec    decoder
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
		if !ok || se.Name.Local != x.c.xml.rowTag {
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
		rw := out.Add(row.Insert, x.c.tableID, x.c.width)
		if err := x.fill(rw.Fields); err != nil {
			return false, err
		}
	}
	return false, ctx.Err()
}

func (x *xmlReader) syntaxError(err error) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s: %s: line %d: bad XML: %s", x.c.where, x.name, se.Line, se.Msg)
	}
	return fmt.Errorf("%s: read %s at byte %d of its text: %w", x.c.where, x.name, x.xd.InputOffset(), err)
}

// element reads the columns of one row element into x.vals, reading up to its end.
func (x *xmlReader) element(se xml.StartElement) (bool, error) {
	clear(x.set)
	found := false
	if x.c.xml.attrs {
		for _, a := range se.Attr {
			if i, ok := x.c.byName[a.Name.Local]; ok && x.c.cols[i].out >= 0 {
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
				if i, ok := x.c.byName[t.Name.Local]; ok && x.c.cols[i].out >= 0 {
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
	x.dec.line = x.rows
	for i := range x.c.cols {
		if !x.set[i] {
			continue
		}
		spec := &x.c.cols[i]
		v, err := x.dec.parseXML(x.vals[i], &spec.t, 0)
		if err != nil {
			return fmt.Errorf("%s: %s: row %d: column %q: %w", x.c.where, x.name, x.rows, spec.name, err)
		}
		fields[spec.out] = v
	}
	return nil
}

func (x *xmlReader) Progress(s *format.Split) { s.Lines = x.rows }

func (x *xmlReader) Close() error { return x.closer.Close() }

// parseXML converts the text of an xml value to type t.
func (d *decoder) parseXML(s []byte, t *types.DataType, depth int) (row.Value, error) {
	if isBlank(s) {
		return row.NullValue(), nil
	}
	switch t.Kind {
	case types.Map, types.Array:
		p := jsonScanner{s: s, d: d}
		v, err := p.value(t)
		if err != nil {
			return row.Value{}, err
		}
		if p.ws(); p.i != len(s) {
			return row.Value{}, p.errorf("unexpected %s after the value", p.describe())
		}
		return v, nil
	case types.Row:
		if depth > maxJSONDepth {
			return row.Value{}, fmt.Errorf("nested rows go deeper than %d levels", maxJSONDepth)
		}
		parts := d.splitRow(s)
		rt := t.Row
		if len(parts) > rt.Len() {
			return row.Value{}, fmt.Errorf("nested row has %d fields, its type %s has %d", len(parts), t, rt.Len())
		}
		fields := make([]row.Value, rt.Len())
		for i, p := range parts {
			v, err := d.parseXML(p, &rt.Types[i], depth+1)
			if err != nil {
				return row.Value{}, fmt.Errorf("field %s: %w", rt.Names[i], err)
			}
			fields[i] = v
		}
		return row.RowValue(fields), nil
	}
	return d.parseScalar(s, t)
}

// splitRow splits a nested row's text at field_delimiter as Java's String.split does
// (a regular expression; trailing empty fields dropped).
func (d *decoder) splitRow(s []byte) [][]byte {
	fd := d.cfg.delim
	if fd.re == nil {
		return splitJava(s, string(fd.literal))
	}
	var parts [][]byte
	pos := 0
	for _, m := range fd.re.FindAllIndex(s, -1) {
		parts = append(parts, s[pos:m[0]])
		pos = m[1]
	}
	parts = append(parts, s[pos:])
	for len(parts) > 0 && len(parts[len(parts)-1]) == 0 {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// ---- writing ----

// xmlSink writes xml files as SeaTunnel's XmlWriter does with dom4j's pretty printing:
// the declaration, a blank line, the root element and one row element per row, indented
// with tabs. Columns are attributes of the row element or child elements, in sink column
// order. Null is an empty value.
type xmlSink struct {
	c       *sinkConfig
	charset string
	names   [][]byte
	rowTag  []byte
}

// newXMLSink checks what the xml format can write: a nested row column is written with its
// fields joined by field_delimiter, which must then be text XML can hold (a row inside an
// array or a map is written as JSON).
func newXMLSink(o *config.Options, c *sinkConfig, charsetName string) (*xmlSink, error) {
	for i, col := range c.sinkCols {
		if c.table.Columns[col].Type.Kind == types.Row && !xmlText(c.fieldDelim) {
			return nil, o.Errorf("field_delimiter", "column %q holds a nested row, which the xml format writes with its fields joined by field_delimiter; %q cannot appear in XML, set field_delimiter to text XML allows", c.sinkNames[i], c.fieldDelim)
		}
	}
	x := &xmlSink{c: c, charset: charsetName, rowTag: []byte(c.xml.rowTag)}
	for _, n := range c.sinkNames {
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
	xw.buf = append(xw.buf, x.c.xml.rootTag...)
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
	c := s.c
	b := append(x.buf, "\n\t<"...)
	b = append(b, s.rowTag...)
	if c.xml.attrs {
		for j, col := range c.sinkCols {
			b = append(b, ' ')
			b = append(b, s.names[j]...)
			b = append(b, `="`...)
			x.val = s.appendValue(x.val[:0], &r.Fields[col], &c.sinkTypes[j])
			b = appendXMLEscaped(b, x.val)
			b = append(b, '"')
		}
		b = append(b, "/>"...)
	} else {
		b = append(b, '>')
		for j, col := range c.sinkCols {
			b = append(b, "\n\t\t<"...)
			b = append(b, s.names[j]...)
			x.val = s.appendValue(x.val[:0], &r.Fields[col], &c.sinkTypes[j])
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
	x.buf = append(x.buf, x.s.c.xml.rootTag...)
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
	case types.Boolean:
		return strconv.AppendBool(b, v.I != 0)
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return strconv.AppendInt(b, v.I, 10)
	case types.Float:
		return row.AppendJavaFloat(b, float64(v.Float32()), 32)
	case types.Double:
		return row.AppendJavaFloat(b, v.Float64(), 64)
	case types.Decimal:
		return row.AppendJavaDecimal(b, *v)
	case types.Date:
		return javatime.AppendLocalDate(b, v.I)
	case types.Time:
		return javatime.AppendISOLocalTime(b, v.I)
	case types.Timestamp:
		return javatime.AppendISOLocalDateTime(b, v.I)
	case types.Array, types.Map:
		return appendJSONValue(b, v, t)
	case types.Row:
		fields := v.Fields()
		for i := range fields {
			if i > 0 {
				b = append(b, x.c.fieldDelim...)
			}
			var ft *types.DataType
			if t != nil && t.Kind == types.Row && t.Row != nil && i < t.Row.Len() {
				ft = &t.Row.Types[i]
			}
			b = x.appendValue(b, &fields[i], ft)
		}
		return b
	}
	return b
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
