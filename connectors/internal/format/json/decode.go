package json

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/connectors/internal/format/text"

	"github.com/strait-dev/strait/internal/jsonscan"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// maxJSONDepth bounds the nesting of a JSON line.
const maxJSONDepth = 512

// jsonRules are the liberties SeaTunnel's JSON reader (Jackson, with
// ALLOW_UNESCAPED_CONTROL_CHARS) takes.
var jsonRules = jsonscan.Rules{MaxDepth: maxJSONDepth, ControlChars: true}

// jsonScanner reads one JSON text in place into row values: strings without escapes and
// numbers are slices of the line; only what a row keeps is copied.
type jsonScanner struct {
	s     []byte
	i     int
	depth int
	d     *Values
}

// Values reads JSON texts into values of a declared type, as SeaTunnel's Jackson-based
// JsonDeserializationSchema does: numbers and booleans may be strings, a string column
// takes any value as its JSON text, a nested row is an object or an array. The text of
// scalars is read as text.Values reads it; strings are copied into its Arena.
type Values struct {
	text.Values
}

// Parse reads the value of type t at the start of the JSON text s (the arrays and maps of
// excel cells); what follows it is not read.
func (d *Values) Parse(s []byte, t *types.DataType) (row.Value, error) {
	p := &jsonScanner{s: s, d: d}
	return p.value(t)
}

// ParseWhole reads the JSON text s as one value of type t; anything after the value but
// whitespace is an error (the arrays and maps of xml values).
func (d *Values) ParseWhole(s []byte, t *types.DataType) (row.Value, error) {
	p := &jsonScanner{s: s, d: d}
	v, err := p.value(t)
	if err != nil {
		return row.Value{}, err
	}
	if p.ws(); p.i != len(s) {
		return row.Value{}, p.errorf("unexpected %s after the value", p.describe())
	}
	return v, nil
}

// Lines reads the lines of a json file, one object each whose keys name the columns, into
// rows: missing keys are null, unknown keys are ignored. Its errors name the column a
// value of which does not read (format.ColumnError); the caller adds the file and the line.
type Lines struct {
	Values
	cols   []format.Column
	byName map[string]int // column name -> index in cols
	next   int            // the guess of the next key's column
}

// NewLines reads lines into the columns cols (the schema's, in the file's order).
func NewLines(cols []format.Column) *Lines {
	d := &Lines{cols: cols, byName: make(map[string]int, len(cols))}
	for i, c := range cols {
		if _, dup := d.byName[c.Name]; !dup {
			d.byName[c.Name] = i
		}
	}
	return d
}

type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("bad JSON at byte %d: %s", e.off+1, e.msg) }

func (p *jsonScanner) errorf(format string, args ...any) error {
	return &syntaxError{off: p.i, msg: fmt.Sprintf(format, args...)}
}

// scanned is the error of a jsonscan call, a syntax error told as a line's.
func scanned(err error) error {
	var se *jsonscan.SyntaxError
	if errors.As(err, &se) {
		return &syntaxError{off: se.Offset, msg: se.Msg}
	}
	return err
}

func (p *jsonScanner) ws() { p.i = jsonscan.SkipSpace(p.s, p.i) }

func (p *jsonScanner) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *jsonScanner) describe() string { return jsonscan.Describe(p.s, p.i) }

// open passes the space after an array's or object's opening byte and, when the container
// is empty, its closing byte end; it says whether a member follows.
func (p *jsonScanner) open(end byte) bool {
	p.ws()
	if p.peek() == end {
		p.i++
		return false
	}
	return true
}

// key reads an object member's key and the ':' after it.
func (p *jsonScanner) key() ([]byte, error) {
	p.ws()
	if p.peek() != '"' {
		return nil, p.errorf("expected a key, found %s", p.describe())
	}
	key, err := p.str()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.peek() != ':' {
		return nil, p.errorf("expected ':', found %s", p.describe())
	}
	p.i++
	return key, nil
}

// more reads what follows a member of an array or object closed by end: a ',', when another
// member follows, or end.
func (p *jsonScanner) more(end byte) (bool, error) {
	p.ws()
	switch p.peek() {
	case ',':
		p.i++
		return true, nil
	case end:
		p.i++
		return false, nil
	}
	return false, p.errorf("expected ',' or '%c', found %s", end, p.describe())
}

// str reads a string starting at its opening quote.
func (p *jsonScanner) str() ([]byte, error) {
	end, escaped, err := jsonscan.String(p.s, p.i, &jsonRules)
	if err != nil {
		return nil, scanned(err)
	}
	raw := p.s[p.i+1 : end-1]
	p.i = end
	if !escaped {
		return raw, nil
	}
	return jsonscan.AppendUnescaped(make([]byte, 0, len(raw)), raw), nil
}

// numberByte marks the bytes a number's text may hold: a plain integer followed by one is
// not plain.
var numberByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789+-.eE") {
		t[c] = true
	}
	return t
}()

// number reads a number's text.
func (p *jsonScanner) number() ([]byte, error) {
	if c := p.peek(); c != '-' && (c < '0' || c > '9') {
		return nil, p.errorf("expected a value, found %s", p.describe())
	}
	end, err := jsonscan.Number(p.s, p.i)
	if err != nil {
		return nil, scanned(err)
	}
	start := p.i
	p.i = end
	return p.s[start:end], nil
}

func (p *jsonScanner) literal(word string) bool {
	if len(p.s)-p.i >= len(word) && string(p.s[p.i:p.i+len(word)]) == word {
		p.i += len(word)
		return true
	}
	return false
}

// skip passes over one value.
func (p *jsonScanner) skip() error {
	p.ws()
	end, err := jsonscan.Value(p.s, p.i, p.depth, &jsonRules)
	p.i = end
	return scanned(err)
}

// scalarText reads a scalar value as text: a string's content, or a number's or boolean's
// literal; isString tells which.
func (p *jsonScanner) scalarText() (text []byte, isString bool, err error) {
	switch c := p.peek(); c {
	case '"':
		s, err := p.str()
		return s, true, err
	case 't':
		if p.literal("true") {
			return p.s[p.i-4 : p.i], false, nil
		}
	case 'f':
		if p.literal("false") {
			return p.s[p.i-5 : p.i], false, nil
		}
	case '{', '[':
		return nil, false, p.errorf("expected a scalar, found %s", p.describe())
	default:
		s, err := p.number()
		return s, false, err
	}
	return nil, false, p.errorf("unexpected %s", p.describe())
}

// Decode reads a line holding one JSON object whose keys name the schema's columns.
func (d *Lines) Decode(line []byte, fields []row.Value) error {
	p := jsonScanner{s: line, d: &d.Values}
	p.ws()
	if err := d.object(&p, fields); err != nil {
		return err
	}
	p.ws()
	if p.i != len(p.s) {
		return p.errorf("unexpected %s after the object", p.describe())
	}
	return nil
}

// DecodeRecord reads a message of SeaTunnel's json format (a Kafka record): an object, one
// row, or an array of objects, a row each; an empty message or null is no row. add gives
// the fields of the next row, zeroed; drop takes back the last one given, when its object
// does not read. It returns the rows read; on an error, the rows given are to be discarded.
func (d *Lines) DecodeRecord(msg []byte, add func() []row.Value, drop func()) (int, error) {
	p := jsonScanner{s: msg, d: &d.Values}
	p.ws()
	n := 0
	switch {
	case p.i == len(p.s) || p.literal("null"):
	case p.peek() == '[':
		p.i++
		p.ws()
		if p.peek() == ']' {
			p.i++
			break
		}
		for {
			p.ws()
			if err := d.object(&p, add()); err != nil {
				drop()
				return n, err
			}
			n++
			p.ws()
			if p.peek() == ',' {
				p.i++
				continue
			}
			if p.peek() == ']' {
				p.i++
				break
			}
			return n, p.errorf("expected ',' or ']', found %s", p.describe())
		}
	default:
		if err := d.object(&p, add()); err != nil {
			drop()
			return 0, err
		}
		n = 1
	}
	p.ws()
	if p.i != len(p.s) {
		return n, p.errorf("unexpected %s after the value", p.describe())
	}
	return n, nil
}

// object reads the object at p into fields. It reads keys and separators itself rather than
// through key and more, which are not inlined: this is the per-line hot path.
func (d *Lines) object(p *jsonScanner, fields []row.Value) error {
	d.next = 0
	if p.peek() != '{' {
		return p.errorf("expected an object, found %s", p.describe())
	}
	p.i++
	p.ws()
	if p.peek() == '}' {
		p.i++
		return nil
	}
	for {
		p.ws()
		if p.peek() != '"' {
			return p.errorf("expected a key, found %s", p.describe())
		}
		key, err := p.str()
		if err != nil {
			return err
		}
		p.ws()
		if p.peek() != ':' {
			return p.errorf("expected ':', found %s", p.describe())
		}
		p.i++
		p.ws()
		col := -1
		if n := d.next; n < len(d.cols) && d.cols[n].Name == string(key) {
			col = n
		} else if c, ok := d.byName[string(key)]; ok {
			col = c
		}
		if col >= 0 {
			d.next = col + 1
		}
		if col >= 0 && d.cols[col].Out >= 0 {
			if err := p.fill(&fields[d.cols[col].Out], &d.cols[col].Type); err != nil {
				var se *syntaxError
				if errors.As(err, &se) {
					return err
				}
				return &format.ColumnError{Column: d.cols[col].Name, Err: err}
			}
		} else if err := p.skip(); err != nil {
			return err
		}
		p.ws()
		if p.peek() == ',' {
			p.i++
			continue
		}
		if p.peek() == '}' {
			p.i++
			return nil
		}
		return p.errorf("expected ',' or '}', found %s", p.describe())
	}
}

// fill reads a value of type t into dst, a zeroed value, taking a short cut for the common
// scalars.
func (p *jsonScanner) fill(dst *row.Value, t *types.DataType) error {
	p.ws()
	switch t.Kind {
	case types.String:
		if p.peek() == '"' {
			s, err := p.str()
			if err != nil {
				return err
			}
			dst.T = types.String
			dst.S = p.d.Arena.Keep(s)
			return nil
		}
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		if n, ok := p.integer(t.Kind); ok {
			dst.T = t.Kind
			dst.I = n
			return nil
		}
	}
	v, err := p.value(t)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// integer reads a plain integer literal that fits bits bits; it consumes nothing and
// returns false for anything else.
func (p *jsonScanner) integer(k types.Kind) (int64, bool) {
	s, i := p.s, p.i
	neg := i < len(s) && s[i] == '-'
	if neg {
		i++
	}
	start := i
	var u uint64
	for i < len(s) {
		c := s[i] - '0'
		if c > 9 {
			break
		}
		u = u*10 + uint64(c)
		i++
	}
	if n := i - start; n == 0 || n > 18 || n > 1 && s[start] == '0' || i < len(s) && numberByte[s[i]] {
		return 0, false // not a plain integer: the full reading says what it is
	}
	n := int64(u) // at most 18 digits: no overflow
	if neg {
		n = -n
	}
	if !k.Fits(n) {
		return 0, false
	}
	p.i = i
	return n, true
}

// value reads a value of type t, as SeaTunnel's JsonToRowConverters does: numbers and
// booleans also from strings, a string column also from any other value (as its JSON
// text), a nested row from an object by name or an array by position.
func (p *jsonScanner) value(t *types.DataType) (row.Value, error) {
	p.ws()
	c := p.peek()
	if c == 'n' && p.literal("null") {
		return row.NullValue(), nil
	}
	switch t.Kind {
	case types.Null:
		return row.NullValue(), p.skip()
	case types.String:
		switch c {
		case '"':
			s, err := p.str()
			return row.StringValue(p.d.Arena.Keep(s)), err
		case '{', '[':
			start := p.i
			if err := p.skip(); err != nil {
				return row.Value{}, err
			}
			return row.StringValue(p.d.Arena.Keep(p.s[start:p.i])), nil
		}
		s, _, err := p.scalarText()
		return row.StringValue(p.d.Arena.Keep(s)), err
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		if c == '-' || c >= '0' && c <= '9' {
			tok, err := p.number()
			if err != nil {
				return row.Value{}, err
			}
			if n, ok := text.ParseInt(tok, t.Kind); ok {
				return row.Value{T: t.Kind, I: n}, nil
			}
			return p.d.jsonScalar(tok, false, t)
		}
	case types.Double, types.Float:
		if c == '-' || c >= '0' && c <= '9' {
			tok, err := p.number()
			if err != nil {
				return row.Value{}, err
			}
			bits := 64
			if t.Kind == types.Float {
				bits = 32
			}
			f, err := strconv.ParseFloat(string(tok), bits)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return row.Value{}, fmt.Errorf("%s is not a %s", text.Quote(tok), t.Kind)
			}
			if bits == 32 {
				return row.FloatValue(float32(f)), nil
			}
			return row.DoubleValue(f), nil
		}
	case types.Boolean:
		if p.literal("true") {
			return row.BoolValue(true), nil
		}
		if p.literal("false") {
			return row.BoolValue(false), nil
		}
	case types.Array:
		if c != '[' {
			return row.Value{}, p.mismatch(t)
		}
		return p.array(t)
	case types.Map:
		if c != '{' {
			return row.Value{}, p.mismatch(t)
		}
		return p.object(t)
	case types.Row:
		switch c {
		case '{':
			return p.object(t)
		case '[':
			return p.array(t)
		}
		return row.Value{}, p.mismatch(t)
	}
	text, isString, err := p.scalarText()
	if err != nil {
		return row.Value{}, err
	}
	return p.d.jsonScalar(text, isString, t)
}

func (p *jsonScanner) mismatch(t *types.DataType) error {
	start := p.i
	if err := p.skip(); err != nil {
		return err
	}
	return fmt.Errorf("expected %s, found %s", t, text.Quote(p.s[start:p.i]))
}

// jsonScalar converts a scalar's text (a string's content, or a number's or boolean's
// literal) to type t.
func (d *Values) jsonScalar(lit []byte, isString bool, t *types.DataType) (row.Value, error) {
	switch t.Kind {
	case types.Boolean:
		return d.Scalar(bytes.TrimSpace(lit), t)
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		if n, ok := text.ParseInt(lit, t.Kind); ok {
			return row.Value{T: t.Kind, I: n}, nil
		}
		lo, hi := t.Kind.IntRange()
		n, err := literal.ParseInteger(string(lit), lo, hi)
		if err != nil {
			return row.Value{}, fmt.Errorf("%s is not a %s", text.Quote(lit), t.Kind)
		}
		return row.Value{T: t.Kind, I: n}, nil
	case types.Float, types.Double, types.Date, types.Time, types.Timestamp, types.String:
		return d.Scalar(lit, t)
	case types.Decimal:
		return text.ParseDecimal(lit, t.Precision, t.Scale)
	case types.Bytes:
		if !isString {
			return row.Value{}, fmt.Errorf("expected bytes as a base64 string, found %s", lit)
		}
		b, err := text.DecodeBase64(lit)
		if err != nil {
			return row.Value{}, fmt.Errorf("%s is not base64", text.Quote(lit))
		}
		return row.Value{T: types.Bytes, S: string(b)}, nil
	}
	return row.Value{}, fmt.Errorf("type %s cannot be read from %s", t, text.Quote(lit))
}

// array reads an array of t's element type, or a nested row by position.
func (p *jsonScanner) array(t *types.DataType) (row.Value, error) {
	if p.depth++; p.depth > maxJSONDepth {
		return row.Value{}, p.errorf("nested deeper than %d", maxJSONDepth)
	}
	defer func() { p.depth-- }()
	p.i++ // [
	var elems []row.Value
	var rowFields []row.Value
	if t.Kind == types.Row {
		rowFields = make([]row.Value, t.Row.Len())
	}
	n := 0
	for more := p.open(']'); more; n++ {
		if t.Kind == types.Row {
			if n < len(rowFields) {
				v, err := p.value(&t.Row.Types[n])
				if err != nil {
					return row.Value{}, fieldError(t.Row.Names[n], err)
				}
				rowFields[n] = v
			} else if err := p.skip(); err != nil {
				return row.Value{}, err
			}
		} else {
			v, err := p.value(t.Elem)
			if err != nil {
				return row.Value{}, elemError(n, err)
			}
			elems = append(elems, v)
		}
		var err error
		if more, err = p.more(']'); err != nil {
			return row.Value{}, err
		}
	}
	if t.Kind == types.Row {
		return row.RowValue(rowFields), nil
	}
	if elems == nil {
		elems = []row.Value{}
	}
	return row.ArrayValue(elems), nil
}

// object reads a map, or a nested row by field name.
func (p *jsonScanner) object(t *types.DataType) (row.Value, error) {
	if p.depth++; p.depth > maxJSONDepth {
		return row.Value{}, p.errorf("nested deeper than %d", maxJSONDepth)
	}
	defer func() { p.depth-- }()
	p.i++ // {
	var m *row.MapValue
	var rowFields []row.Value
	if t.Kind == types.Row {
		rowFields = make([]row.Value, t.Row.Len())
	} else {
		m = &row.MapValue{}
	}
	for more := p.open('}'); more; {
		key, err := p.key()
		if err != nil {
			return row.Value{}, err
		}
		if t.Kind == types.Row {
			if i := t.Row.Index(string(key)); i >= 0 {
				v, err := p.value(&t.Row.Types[i])
				if err != nil {
					return row.Value{}, fieldError(string(key), err)
				}
				rowFields[i] = v
			} else if err := p.skip(); err != nil {
				return row.Value{}, err
			}
		} else {
			k, err := p.d.mapKey(key, t.Key)
			if err != nil {
				return row.Value{}, fmt.Errorf("map key %s: %w", text.Quote(key), err)
			}
			v, err := p.value(t.Elem)
			if err != nil {
				return row.Value{}, fmt.Errorf("map value of %s: %w", text.Quote(key), err)
			}
			m.Put(k, v)
		}
		if more, err = p.more('}'); err != nil {
			return row.Value{}, err
		}
	}
	if t.Kind == types.Row {
		return row.RowValue(rowFields), nil
	}
	return row.MapOfValues(m), nil
}

// mapKey converts an object key to the map's key type, as a JSON string of that text.
func (d *Values) mapKey(key []byte, t *types.DataType) (row.Value, error) {
	switch t.Kind {
	case types.Array, types.Map, types.Row:
		return row.Value{}, fmt.Errorf("map keys of type %s are not supported", t)
	}
	if string(key) == "null" && t.Kind != types.String {
		return row.NullValue(), nil
	}
	return d.jsonScalar(key, true, t)
}

func fieldError(name string, err error) error {
	var se *syntaxError
	if errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("field %s: %w", name, err)
}

func elemError(i int, err error) error {
	var se *syntaxError
	if errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("element %d: %w", i, err)
}
