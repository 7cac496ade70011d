package hocon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxJSONDepth bounds the nesting ParseJSON follows.
const maxJSONDepth = 256

// ParseJSON reads one JSON text (a record's value, an answer of a server) into a value
// tree, objects keeping their fields in order and numbers their text; an empty text is nil.
// It is the data path's reader, strict JSON only; configs go through Parse.
func ParseJSON(b []byte) (*Value, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := jsonValue(dec, 0)
	if err != nil {
		return nil, fmt.Errorf("bad JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("bad JSON: more than one value")
	}
	return v, nil
}

func jsonValue(dec *json.Decoder, depth int) (*Value, error) {
	if depth > maxJSONDepth {
		return nil, errors.New("nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := &Value{Kind: Object}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				val, err := jsonValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				obj.Fields = append(obj.Fields, Field{Key: key, Value: val})
			}
			_, err := dec.Token()
			return obj, err
		case '[':
			arr := &Value{Kind: Array}
			for dec.More() {
				val, err := jsonValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr.Elems = append(arr.Elems, val)
			}
			_, err := dec.Token()
			return arr, err
		}
	case string:
		return &Value{Kind: String, Str: t}, nil
	case json.Number:
		return &Value{Kind: Number, Str: string(t)}, nil
	case bool:
		return &Value{Kind: Bool, Bool: t}, nil
	case nil:
		return &Value{Kind: Null}, nil
	}
	return nil, fmt.Errorf("unexpected %v", tok)
}
