package kafka

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// jsonRowReader reads a JSON object straight into a row's fields, without building the
// value tree parseJSON makes: keys are matched to the fields by name, scalar values are
// converted by the same converter from a value on the reader's stack, and only nested
// values (objects and arrays) and strings with escapes take the general path. It accepts
// exactly what encoding/json accepts; anything it does not handle itself (a syntax error
// included) it reports as errSlowPath, and the caller reads the record the general way,
// which gives the error message.
type jsonRowReader struct {
	rt    *types.RowType
	index map[string]int
	first []bool // the field is the first of its name
	conv  *literal.Converter
	val   hocon.Value
	strs  row.Arena // the text of the string fields the rows keep
}

var errSlowPath = errors.New("the record needs the general JSON path")

func newJSONRowReader(rt *types.RowType, conv *literal.Converter) *jsonRowReader {
	r := &jsonRowReader{rt: rt, index: make(map[string]int, rt.Len()), first: make([]bool, rt.Len()), conv: conv}
	for i, n := range rt.Names {
		if _, dup := r.index[n]; !dup {
			r.index[n] = i
			r.first[i] = true
		}
	}
	return r
}

// readObject fills dst (nulls where a field is missing) from the object b holds, b being
// the whole record. A key that comes twice is read twice, the last one kept, as the general
// path keeps it.
func (r *jsonRowReader) readObject(b []byte, dst []row.Value) error {
	for i := range dst {
		dst[i] = row.Value{}
	}
	p := skipSpace(b, 0)
	if p >= len(b) || b[p] != '{' {
		return errSlowPath
	}
	p = skipSpace(b, p+1)
	if p < len(b) && b[p] == '}' {
		return r.end(b, p+1)
	}
	want := 0 // the field expected next: records mostly list the fields in the schema's order
	for {
		key, next, ok := plainString(b, p)
		if !ok {
			return errSlowPath
		}
		p = skipSpace(b, next)
		if p >= len(b) || b[p] != ':' {
			return errSlowPath
		}
		p = skipSpace(b, p+1)
		i, known := r.field(key, want)
		if known {
			want = i + 1
		}
		var err error
		if known {
			dst[i], p, err = r.value(b, p, r.rt.Types[i])
		} else {
			p, err = skipValue(b, p, 0)
		}
		if err != nil {
			return err
		}
		p = skipSpace(b, p)
		if p >= len(b) {
			return errSlowPath
		}
		switch b[p] {
		case ',':
			p = skipSpace(b, p+1)
		case '}':
			return r.end(b, p+1)
		default:
			return errSlowPath
		}
	}
}

// field is the index of the field named key: the one expected next when it is, else by name.
func (r *jsonRowReader) field(key []byte, want int) (int, bool) {
	if want < len(r.rt.Names) && r.first[want] && r.rt.Names[want] == string(key) {
		return want, true
	}
	i, ok := r.index[unsafe.String(unsafe.SliceData(key), len(key))]
	return i, ok
}

// end checks that nothing but white space follows the object.
func (r *jsonRowReader) end(b []byte, p int) error {
	if skipSpace(b, p) != len(b) {
		return errSlowPath
	}
	return nil
}

// value reads the value at p as a field of type t.
func (r *jsonRowReader) value(b []byte, p int, t types.DataType) (row.Value, int, error) {
	v := &r.val // set whole on the paths that go to the converter, not on the others
	switch {
	case p >= len(b):
		return row.Value{}, p, errSlowPath
	case b[p] == '"':
		s, next, ok := plainString(b, p)
		if !ok {
			return row.Value{}, p, errSlowPath
		}
		if t.Kind == types.String {
			return row.StringValue(r.strs.Keep(s)), next, nil
		}
		*v = hocon.Value{Kind: hocon.String, Str: unsafe.String(unsafe.SliceData(s), len(s))} // read, not kept
		p = next
	case b[p] == '-' || b[p] >= '0' && b[p] <= '9':
		end := numberEnd(b, p)
		if end < 0 {
			return row.Value{}, p, errSlowPath
		}
		if out, ok := r.number(b[p:end], t); ok {
			return out, end, nil
		}
		*v = hocon.Value{Kind: hocon.Number, Str: unsafe.String(&b[p], end-p)}
		p = end
	case hasWord(b, p, "true"):
		if t.Kind == types.Boolean {
			return row.BoolValue(true), p + 4, nil
		}
		*v, p = hocon.Value{Kind: hocon.Bool, Bool: true}, p+4
	case hasWord(b, p, "false"):
		if t.Kind == types.Boolean {
			return row.BoolValue(false), p + 5, nil
		}
		*v, p = hocon.Value{Kind: hocon.Bool}, p+5
	case hasWord(b, p, "null"):
		return row.Value{}, p + 4, nil
	default:
		return r.nested(b, p, t)
	}
	out, err := r.conv.Convert(v, t)
	if err != nil {
		return row.Value{}, p, errSlowPath // the general path names the field and the value
	}
	return out, p, nil
}

// number converts the commonest cases itself, as the converter does them: a string field's
// text, a bigint written as an integer, a double; the others go to the converter.
func (r *jsonRowReader) number(n []byte, t types.DataType) (row.Value, bool) {
	switch t.Kind {
	case types.String:
		return row.StringValue(r.strs.Keep(n)), true
	case types.BigInt:
		if i, err := strconv.ParseInt(unsafe.String(&n[0], len(n)), 10, 64); err == nil {
			return row.BigIntValue(i), true
		}
	case types.Double:
		if f, err := strconv.ParseFloat(unsafe.String(&n[0], len(n)), 64); err == nil {
			return row.DoubleValue(f), true
		}
	}
	return row.Value{}, false
}

// nested reads an object or an array as the general path does: as a value tree, converted.
func (r *jsonRowReader) nested(b []byte, p int, t types.DataType) (row.Value, int, error) {
	end, err := skipValue(b, p, 0)
	if err != nil {
		return row.Value{}, p, err
	}
	tree, err := parseJSON(b[p:end])
	if err != nil || tree == nil {
		return row.Value{}, p, errSlowPath
	}
	out, err := r.conv.Convert(tree, t)
	if err != nil {
		return row.Value{}, p, errSlowPath
	}
	return out, end, nil
}

func skipSpace(b []byte, p int) int {
	for p < len(b) && (b[p] == ' ' || b[p] == '\t' || b[p] == '\n' || b[p] == '\r') {
		p++
	}
	return p
}

func hasWord(b []byte, p int, w string) bool {
	return len(b)-p >= len(w) && string(b[p:p+len(w)]) == w
}

// plainString reads the string at p when it has no escapes and is valid UTF-8 without
// control characters: its content and the position after it.
func plainString(b []byte, p int) ([]byte, int, bool) {
	if p >= len(b) || b[p] != '"' {
		return nil, p, false
	}
	start := p + 1
	ascii := true
	for i := start; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			s := b[start:i]
			if !ascii && !utf8.Valid(s) {
				return nil, p, false
			}
			return s, i + 1, true
		case c == '\\' || c < 0x20:
			return nil, p, false
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, p, false
}

// numberEnd is the end of the JSON number at p, or -1 when there is none.
func numberEnd(b []byte, p int) int {
	i := p
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// skipValue steps over the value at p of a field the row does not have.
func skipValue(b []byte, p, depth int) (int, error) {
	if depth > maxJSONDepth || p >= len(b) {
		return p, errSlowPath
	}
	switch c := b[p]; {
	case c == '"':
		return skipString(b, p)
	case c == '-' || c >= '0' && c <= '9':
		if end := numberEnd(b, p); end >= 0 {
			return end, nil
		}
	case hasWord(b, p, "true"), hasWord(b, p, "null"):
		return p + 4, nil
	case hasWord(b, p, "false"):
		return p + 5, nil
	case c == '{' || c == '[':
		return skipComposite(b, p, depth)
	}
	return p, errSlowPath
}

// skipString steps over a string, escapes and all; one encoding/json would refuse is left
// to the general path.
func skipString(b []byte, p int) (int, error) {
	if _, next, ok := plainString(b, p); ok {
		return next, nil
	}
	for i := p + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			if !json.Valid(b[p : i+1]) {
				return p, errSlowPath
			}
			return i + 1, nil
		}
	}
	return p, errSlowPath
}

// skipComposite steps over an object or an array.
func skipComposite(b []byte, p, depth int) (int, error) {
	closer := byte(']')
	if b[p] == '{' {
		closer = '}'
	}
	p = skipSpace(b, p+1)
	if p < len(b) && b[p] == closer {
		return p + 1, nil
	}
	for {
		var err error
		if closer == '}' {
			if p, err = skipString(b, p); err != nil {
				return p, err
			}
			if p = skipSpace(b, p); p >= len(b) || b[p] != ':' {
				return p, errSlowPath
			}
			p = skipSpace(b, p+1)
		}
		if p, err = skipValue(b, p, depth+1); err != nil {
			return p, err
		}
		p = skipSpace(b, p)
		if p >= len(b) {
			return p, errSlowPath
		}
		switch b[p] {
		case ',':
			p = skipSpace(b, p+1)
		case closer:
			return p + 1, nil
		default:
			return p, errSlowPath
		}
	}
}
