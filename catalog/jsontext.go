package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
)

// SeaTunnel reads an object or list option through Jackson, so such an option may also be
// written as a string holding JSON: schema = """{"fields": {"id": "bigint"}}""". expandJSON
// returns o with each of keys that is such a string replaced by the value it holds (an
// object or a list, in its written order). Options read from the result are to be marked
// used on o with o.MarkUsedFrom.
func expandJSON(o *config.Options, keys ...string) (*config.Options, error) {
	parsed := map[string]*hocon.Value{}
	for _, k := range keys {
		v := o.Raw().Get(k)
		if v == nil || v.Kind != hocon.String {
			continue
		}
		if t := strings.TrimSpace(v.Str); t == "" || t[0] != '{' && t[0] != '[' {
			continue
		}
		jv, err := decodeJSONText(v.Str, v.Pos)
		if err != nil {
			return nil, o.Errorf(k, "not valid JSON: %v", err)
		}
		parsed[k] = jv
	}
	if len(parsed) == 0 {
		return o, nil
	}
	return o.Rewritten(func(key string, v *hocon.Value) *hocon.Value {
		if jv, ok := parsed[key]; ok {
			return jv
		}
		return v
	}), nil
}

// decodeJSONText reads one JSON value into a Value; every part of it has the position of
// the string it was written in.
func decodeJSONText(text string, pos hocon.Pos) (*hocon.Value, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	v, err := decodeJSONValue(dec, pos)
	if errors.Is(err, io.EOF) {
		return nil, errors.New("the text ends before the JSON value does")
	}
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("text after the JSON value")
	}
	return v, nil
}

func decodeJSONValue(dec *json.Decoder, pos hocon.Pos) (*hocon.Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return decodeJSONObject(dec, pos)
		}
		return decodeJSONArray(dec, pos)
	case string:
		return &hocon.Value{Kind: hocon.String, Str: t, Pos: pos}, nil
	case json.Number:
		return &hocon.Value{Kind: hocon.Number, Str: t.String(), Pos: pos}, nil
	case bool:
		return &hocon.Value{Kind: hocon.Bool, Bool: t, Pos: pos}, nil
	case nil:
		return &hocon.Value{Kind: hocon.Null, Pos: pos}, nil
	}
	return nil, fmt.Errorf("unexpected %v", tok)
}

func decodeJSONObject(dec *json.Decoder, pos hocon.Pos) (*hocon.Value, error) {
	v := &hocon.Value{Kind: hocon.Object, Pos: pos}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		child, err := decodeJSONValue(dec, pos)
		if err != nil {
			return nil, err
		}
		v.Fields = append(v.Fields, hocon.Field{Key: key, Value: child})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	return v, nil
}

func decodeJSONArray(dec *json.Decoder, pos hocon.Pos) (*hocon.Value, error) {
	v := &hocon.Value{Kind: hocon.Array, Pos: pos}
	for dec.More() {
		child, err := decodeJSONValue(dec, pos)
		if err != nil {
			return nil, err
		}
		v.Elems = append(v.Elems, child)
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return nil, err
	}
	return v, nil
}
