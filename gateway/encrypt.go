package gateway

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// sensitiveOptions are the top-level options of a source or sink that a config shade
// encodes, as SeaTunnel's ConfigShadeUtils has them.
var sensitiveOptions = []string{"password", "username", "auth", "token"}

// field is one key of an object decoded in order.
type field struct {
	Key string
	Val any // object, []any, string, json.Number, bool or nil
}

// object is a JSON object that keeps its keys in order, so an encrypted config reads as
// it was written.
type object []field

// MarshalJSON writes the object in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(f.Key))
		b.WriteByte(':')
		v, err := json.Marshal(f.Val)
		if err != nil {
			return nil, fmt.Errorf("option %s: %w", f.Key, err)
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o object) get(key string) (any, bool) {
	for _, f := range o {
		if f.Key == key {
			return f.Val, true
		}
	}
	return nil, false
}

// decodeOrdered decodes one JSON value, objects as object.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := object{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			o = append(o, field{Key: kt.(string), Val: v})
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return tok, nil
}

// parseOrdered reads a whole JSON object.
func parseOrdered(b []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("text after the JSON object")
	}
	o, ok := v.(object)
	if !ok {
		return nil, errors.New("a job config is a JSON object")
	}
	return o, nil
}

// shadeOf reads env.shade.identifier (written "shade.identifier" or nested): "" when the
// options stay as written, base64 for SeaTunnel's built-in shade.
func shadeOf(cfg object) (string, error) {
	env, _ := cfg.get("env")
	eo, _ := env.(object)
	id, ok := eo.get("shade.identifier")
	if !ok {
		if sh, _ := eo.get("shade"); sh != nil {
			so, _ := sh.(object)
			id, _ = so.get("identifier")
		}
	}
	s, _ := id.(string)
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "default":
		return "", nil
	case "base64":
		return "base64", nil
	}
	return "", badRequest("env.shade.identifier: unknown config shade %q (Strait has base64 and default)", s)
}

// encryptConfig encodes the sensitive options of every source and sink with the config's
// shade, leaving everything else as written.
func encryptConfig(cfg object) error {
	shade, err := shadeOf(cfg)
	if err != nil {
		return err
	}
	for _, section := range []string{"source", "sink"} {
		v, _ := cfg.get(section)
		plugins, _ := v.([]any)
		if len(plugins) == 0 {
			return badRequest("Miss <%s> config! Please check the config file.", strings.ToUpper(section[:1])+section[1:])
		}
		if shade == "" {
			continue
		}
		for i, p := range plugins {
			po, ok := p.(object)
			if !ok {
				return badRequest("%s[%d] is not an object", section, i)
			}
			for j := range po {
				if isSensitive(po[j].Key) {
					po[j].Val = encode(po[j].Val)
				}
			}
		}
	}
	return nil
}

// encode is a sensitive option's value encoded as SeaTunnel's base64 shade does (the value
// as text); an object, list or null stays as it is.
func encode(v any) any {
	var text string
	switch v := v.(type) {
	case string:
		text = v
	case json.Number:
		text = v.String()
	case bool:
		text = fmt.Sprint(v)
	default:
		return v
	}
	return base64.StdEncoding.EncodeToString([]byte(text))
}

func isSensitive(key string) bool {
	for _, s := range sensitiveOptions {
		if key == s {
			return true
		}
	}
	return false
}

// encryptConfigHandler answers /encrypt-config: the JSON config with its sensitive options
// encoded by env.shade.identifier; the planner decodes them when the job runs.
func (g *gateway) encryptConfigHandler(w http.ResponseWriter, r *http.Request) error {
	body, err := g.readJSONBody(w, r)
	if err != nil {
		return err
	}
	cfg, err := parseOrdered(body)
	if err != nil {
		return badRequest("Invalid JSON format in request body: %v", err)
	}
	if err := encryptConfig(cfg); err != nil {
		return err
	}
	return ok(w, cfg)
}
