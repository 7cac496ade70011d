package types

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseError says where in a type string parsing failed.
type ParseError struct {
	Input  string
	Offset int
	Msg    string
}

func (e *ParseError) Error() string {
	if e.Offset >= 0 && e.Offset < len(e.Input) {
		return fmt.Sprintf("%s at offset %d of %q", e.Msg, e.Offset, e.Input)
	}
	return fmt.Sprintf("%s in %q", e.Msg, e.Input)
}

// Parse reads a type as SeaTunnel configs write it: keywords in any case (`int`, `BIGINT`,
// aliases `byte`, `short`, `long`, `integer`), `decimal(p, s)`, `array<T>`, `map<K, V>` and
// nested rows `{name = type, ...}` (also `{"name": "type"}`). Whitespace is ignored.
func Parse(s string) (DataType, error) {
	p := &typeParser{src: s}
	t, err := p.parseType(0)
	if err != nil {
		return DataType{}, err
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return DataType{}, p.errorf("unexpected %q after the type", p.src[p.pos:])
	}
	return t, nil
}

// MustParse is Parse for literals known to be valid; it panics otherwise.
func MustParse(s string) DataType {
	t, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return t
}

const maxTypeDepth = 64

type typeParser struct {
	src string
	pos int
}

func (p *typeParser) errorf(format string, args ...any) error {
	return &ParseError{Input: p.src, Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *typeParser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *typeParser) peek() byte {
	p.skipSpace()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *typeParser) expect(c byte) error {
	if p.peek() != c {
		if p.pos >= len(p.src) {
			return p.errorf("expected %q, found the end", c)
		}
		return p.errorf("expected %q, found %q", c, p.src[p.pos])
	}
	p.pos++
	return nil
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *typeParser) ident() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) && isIdent(p.src[p.pos]) {
		p.pos++
	}
	return p.src[start:p.pos]
}

var keywords = map[string]Kind{
	"null": Null, "string": String, "varchar": String, "boolean": Boolean, "bool": Boolean,
	"tinyint": TinyInt, "byte": TinyInt, "smallint": SmallInt, "short": SmallInt,
	"int": Int, "integer": Int, "bigint": BigInt, "long": BigInt, "float": Float,
	"double": Double, "bytes": Bytes, "date": Date, "time": Time, "timestamp": Timestamp,
}

func (p *typeParser) parseType(depth int) (DataType, error) {
	if depth > maxTypeDepth {
		return DataType{}, p.errorf("type nested too deeply")
	}
	if c := p.peek(); c == '{' {
		rt, err := p.parseRow(depth + 1)
		if err != nil {
			return DataType{}, err
		}
		return RowOf(rt), nil
	} else if c == '"' {
		// a quoted type inside a JSON-style row: "int"
		s, err := p.quoted()
		if err != nil {
			return DataType{}, err
		}
		inner, err := Parse(s)
		if err != nil {
			return DataType{}, p.errorf("%v", err)
		}
		return inner, nil
	}
	start := p.pos
	word := strings.ToLower(p.ident())
	if word == "" {
		if p.pos >= len(p.src) {
			return DataType{}, p.errorf("expected a type, found the end")
		}
		return DataType{}, p.errorf("expected a type, found %q", p.src[p.pos])
	}
	switch word {
	case "decimal", "numeric":
		if p.peek() != '(' {
			return DataType{}, &ParseError{Input: p.src, Offset: start, Msg: `decimal needs a precision and a scale, as "decimal(10, 2)"`}
		}
		p.pos++
		prec, err := p.number()
		if err != nil {
			return DataType{}, err
		}
		if err := p.expect(','); err != nil {
			return DataType{}, err
		}
		scale, err := p.number()
		if err != nil {
			return DataType{}, err
		}
		if err := p.expect(')'); err != nil {
			return DataType{}, err
		}
		if prec < 1 || prec > 38 || scale < 0 || scale > prec {
			return DataType{}, &ParseError{Input: p.src, Offset: start, Msg: fmt.Sprintf("decimal(%d, %d) is out of range: precision 1..38, scale 0..precision", prec, scale)}
		}
		return DecimalOf(prec, scale), nil
	case "array":
		var elem [1]DataType
		if err := p.typeArgs(elem[:], depth); err != nil {
			return DataType{}, err
		}
		return ArrayOf(elem[0]), nil
	case "map":
		var kv [2]DataType
		if err := p.typeArgs(kv[:], depth); err != nil {
			return DataType{}, err
		}
		return MapOf(kv[0], kv[1]), nil
	}
	if k, ok := keywords[word]; ok {
		// varchar(255) and friends: a length is accepted and ignored
		if p.peek() == '(' && (k == String || k == Bytes || k == Timestamp || k == Time) {
			p.pos++
			if _, err := p.number(); err != nil {
				return DataType{}, err
			}
			if err := p.expect(')'); err != nil {
				return DataType{}, err
			}
		}
		return Of(k), nil
	}
	return DataType{}, &ParseError{Input: p.src, Offset: start, Msg: fmt.Sprintf("unknown type %q", p.src[start:p.pos])}
}

// typeArgs reads the types of an array or a map between < and >, separated by commas: as
// many as args holds.
func (p *typeParser) typeArgs(args []DataType, depth int) error {
	if err := p.expect('<'); err != nil {
		return err
	}
	for i := range args {
		if i > 0 {
			if err := p.expect(','); err != nil {
				return err
			}
		}
		t, err := p.parseType(depth + 1)
		if err != nil {
			return err
		}
		args[i] = t
	}
	return p.expect('>')
}

func (p *typeParser) number() (int, error) {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	if start == p.pos {
		return 0, p.errorf("expected a number")
	}
	n, err := strconv.Atoi(p.src[start:p.pos])
	if err != nil || n > 1000 {
		return 0, &ParseError{Input: p.src, Offset: start, Msg: "number out of range"}
	}
	return n, nil
}

func (p *typeParser) quoted() (string, error) {
	if p.peek() != '"' {
		return "", p.errorf("expected '\"'")
	}
	p.pos++
	start := p.pos
	for p.pos < len(p.src) && p.src[p.pos] != '"' {
		p.pos++
	}
	if p.pos >= len(p.src) {
		return "", p.errorf("unterminated quoted name")
	}
	s := p.src[start:p.pos]
	p.pos++
	return s, nil
}

func (p *typeParser) parseRow(depth int) (*RowType, error) {
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	rt := &RowType{}
	for {
		c := p.peek()
		if c == '}' {
			p.pos++
			break
		}
		if c == ',' {
			p.pos++
			continue
		}
		var name string
		var err error
		if c == '"' {
			name, err = p.quoted()
		} else {
			name = p.ident()
			if name == "" {
				if p.pos >= len(p.src) {
					return nil, p.errorf("unclosed '{' in row type")
				}
				err = p.errorf("expected a field name, found %q", p.src[p.pos])
			}
		}
		if err != nil {
			return nil, err
		}
		if name == "" {
			return nil, p.errorf("empty field name in row type")
		}
		if c := p.peek(); c == '=' || c == ':' {
			p.pos++
		} else {
			return nil, p.errorf("expected '=' or ':' after field %q", name)
		}
		t, err := p.parseType(depth)
		if err != nil {
			return nil, err
		}
		if rt.Index(name) >= 0 {
			return nil, p.errorf("duplicate field %q", name)
		}
		rt.Names = append(rt.Names, name)
		rt.Types = append(rt.Types, t)
	}
	return rt, nil
}
