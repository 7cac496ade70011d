package kafka

import (
	"encoding/json"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/row"
)

// jsonTree reads a JSON text into a value tree held in scratch storage that the next record
// reuses, for the formats whose envelope is read as a tree (the change formats): a record
// costs no allocation of values, fields or element lists once the storage has grown to the
// records' shape, and the text of its strings goes to an arena (see row.Arena), so what a row
// keeps of it stays valid. It accepts what encoding/json accepts; anything it does not handle
// itself (a syntax error included) it reports as errSlowPath, and the caller reads the record
// with parseJSON, which gives the error message. The tree is valid until the next parse.
type jsonTree struct {
	chunks [][]hocon.Value
	used   int // values handed out for the current record
	strs   row.Arena
}

const treeChunk = 256

// parse reads b; an empty text is nil, as parseJSON has it.
func (t *jsonTree) parse(b []byte) (*hocon.Value, error) {
	t.used = 0
	p := skipSpace(b, 0)
	if p == len(b) {
		return nil, nil
	}
	v, p, err := t.value(b, p, 0)
	if err != nil {
		return nil, err
	}
	if skipSpace(b, p) != len(b) {
		return nil, errSlowPath
	}
	return v, nil
}

// next hands out a cleared value, keeping the field and element lists' storage.
func (t *jsonTree) next(kind hocon.Kind) *hocon.Value {
	c, i := t.used/treeChunk, t.used%treeChunk
	if c == len(t.chunks) {
		t.chunks = append(t.chunks, make([]hocon.Value, treeChunk))
	}
	t.used++
	v := &t.chunks[c][i]
	*v = hocon.Value{Kind: kind, Fields: v.Fields[:0], Elems: v.Elems[:0]}
	return v
}

func (t *jsonTree) value(b []byte, p, depth int) (*hocon.Value, int, error) {
	if depth > maxJSONDepth || p >= len(b) {
		return nil, p, errSlowPath
	}
	switch c := b[p]; {
	case c == '{':
		return t.object(b, p, depth)
	case c == '[':
		return t.array(b, p, depth)
	case c == '"':
		s, next, err := t.str(b, p)
		if err != nil {
			return nil, p, err
		}
		v := t.next(hocon.String)
		v.Str = s
		return v, next, nil
	case c == '-' || c >= '0' && c <= '9':
		end := numberEnd(b, p)
		if end < 0 {
			return nil, p, errSlowPath
		}
		v := t.next(hocon.Number)
		v.Str = t.strs.Keep(b[p:end])
		return v, end, nil
	case hasWord(b, p, "true"):
		v := t.next(hocon.Bool)
		v.Bool = true
		return v, p + 4, nil
	case hasWord(b, p, "false"):
		return t.next(hocon.Bool), p + 5, nil
	case hasWord(b, p, "null"):
		return t.next(hocon.Null), p + 4, nil
	}
	return nil, p, errSlowPath
}

// str reads the string at p; one with escapes is decoded as encoding/json decodes it.
func (t *jsonTree) str(b []byte, p int) (string, int, error) {
	if s, next, ok := plainString(b, p); ok {
		return t.strs.Keep(s), next, nil
	}
	if p >= len(b) || b[p] != '"' {
		return "", p, errSlowPath
	}
	end, err := skipString(b, p)
	if err != nil {
		return "", p, err
	}
	var s string
	if json.Unmarshal(b[p:end], &s) != nil {
		return "", p, errSlowPath
	}
	return s, end, nil
}

func (t *jsonTree) object(b []byte, p, depth int) (*hocon.Value, int, error) {
	v := t.next(hocon.Object)
	p = skipSpace(b, p+1)
	if p < len(b) && b[p] == '}' {
		return v, p + 1, nil
	}
	for {
		key, next, err := t.str(b, p)
		if err != nil {
			return nil, p, err
		}
		if p = skipSpace(b, next); p >= len(b) || b[p] != ':' {
			return nil, p, errSlowPath
		}
		val, next, err := t.value(b, skipSpace(b, p+1), depth+1)
		if err != nil {
			return nil, p, err
		}
		v.Fields = append(v.Fields, hocon.Field{Key: key, Value: val})
		if p = skipSpace(b, next); p >= len(b) {
			return nil, p, errSlowPath
		}
		switch b[p] {
		case ',':
			p = skipSpace(b, p+1)
		case '}':
			return v, p + 1, nil
		default:
			return nil, p, errSlowPath
		}
	}
}

func (t *jsonTree) array(b []byte, p, depth int) (*hocon.Value, int, error) {
	v := t.next(hocon.Array)
	p = skipSpace(b, p+1)
	if p < len(b) && b[p] == ']' {
		return v, p + 1, nil
	}
	for {
		val, next, err := t.value(b, p, depth+1)
		if err != nil {
			return nil, p, err
		}
		v.Elems = append(v.Elems, val)
		if p = skipSpace(b, next); p >= len(b) {
			return nil, p, errSlowPath
		}
		switch b[p] {
		case ',':
			p = skipSpace(b, p+1)
		case ']':
			return v, p + 1, nil
		default:
			return nil, p, errSlowPath
		}
	}
}
