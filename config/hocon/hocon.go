// Package hocon reads the HOCON job configurations that Strait accepts
// into a tree of Values, so that existing HOCON job files work unchanged.
//
// The reader covers the part of HOCON that job files use: objects and arrays,
// the '=', ':' and 'key { ... }' field forms, '+=' appends, comments, quoted,
// unquoted and triple-quoted strings, numbers kept as written, dotted keys,
// duplicate-key merging, value concatenation and ${...} substitutions.
// 'include' is rejected.
//
// Parse works in three steps:
//
//  1. lex and parse the text into an unresolved tree, merging duplicate keys;
//  2. resolve ${path} and ${?path} substitutions against the whole
//     configuration, then Options.Vars, then the environment;
//  3. replace ${name} and ${name:default} placeholders that remain inside
//     string values with Options.Vars (see Options).
//
// Objects keep their fields in file order. The paths named in
// Options.ListSections (typically "source", "transform" and "sink") are
// never merged: each child becomes its own field, so such an object may hold
// several fields with the same key.
package hocon

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/internal/jsontext"
)

// Kind is the type of a Value.
type Kind uint8

// The kinds of Value.
const (
	Null Kind = iota
	Bool
	Number
	String
	Object
	Array
)

var kindNames = [...]string{"null", "bool", "number", "string", "object", "array"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Pos is a position in a configuration file. Line and Col are 1-based; Col
// counts characters (runes), not bytes.
type Pos struct {
	File      string
	Line, Col int
}

// String returns "file:line:col", or "line:col" when File is empty.
func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Field is one field of an object.
type Field struct {
	Key   string
	Value *Value
}

// Value is a resolved configuration value.
type Value struct {
	Kind   Kind
	Str    string   // String: the text; Number: the literal as written
	Bool   bool     // Bool
	Fields []Field  // Object: fields in file order
	Elems  []*Value // Array
	Pos    Pos      // where the value starts
}

// Get returns the value of the field with exactly this key, the last one if
// the key repeats. It returns nil if v is not an object or has no such field.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := len(v.Fields) - 1; i >= 0; i-- {
		if v.Fields[i].Key == key {
			return v.Fields[i].Value
		}
	}
	return nil
}

// Lookup returns v.Get(path) if that field exists, and otherwise walks path
// split at every '.' through nested objects. It returns nil if nothing is
// found.
func (v *Value) Lookup(path string) *Value {
	if r := v.Get(path); r != nil {
		return r
	}
	if !strings.Contains(path, ".") {
		return nil
	}
	cur := v
	for _, k := range strings.Split(path, ".") {
		if cur = cur.Get(k); cur == nil {
			return nil
		}
	}
	return cur
}

// Leaves calls fn, in file order, with each value below the object v that is not itself an
// object, keyed by the dotted path of its keys from v. An error of fn stops the walk and is
// returned.
func (v *Value) Leaves(fn func(key string, leaf *Value) error) error {
	return v.leaves("", fn)
}

func (v *Value) leaves(prefix string, fn func(string, *Value) error) error {
	for _, f := range v.Fields {
		k := f.Key
		if prefix != "" {
			k = prefix + "." + k
		}
		var err error
		if f.Value.Kind == Object {
			err = f.Value.leaves(k, fn)
		} else {
			err = fn(k, f.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// maxMarshalDepth stops MarshalJSON on values built by hand that are too
// deep or cyclic.
const maxMarshalDepth = 10000

// MarshalJSON encodes v as JSON. Object fields keep their order (repeated
// keys of list sections are written repeated), numbers are written as their
// literal text when it is a valid JSON number and as a string otherwise.
func (v *Value) MarshalJSON() ([]byte, error) {
	return appendJSON(nil, v, 0)
}

func appendJSON(b []byte, v *Value, depth int) ([]byte, error) {
	if depth > maxMarshalDepth {
		return nil, errors.New("hocon: value nested too deeply to encode")
	}
	if v == nil {
		return append(b, "null"...), nil
	}
	var err error
	switch v.Kind {
	case Null:
		b = append(b, "null"...)
	case Bool:
		b = strconv.AppendBool(b, v.Bool)
	case Number:
		if isNumber(v.Str) {
			b = append(b, v.Str...)
		} else {
			b = jsontext.Append(b, v.Str)
		}
	case String:
		b = jsontext.Append(b, v.Str)
	case Object:
		b = append(b, '{')
		for i, f := range v.Fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontext.Append(b, f.Key)
			b = append(b, ':')
			if b, err = appendJSON(b, f.Value, depth+1); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	case Array:
		b = append(b, '[')
		for i, e := range v.Elems {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendJSON(b, e, depth+1); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	default:
		return nil, fmt.Errorf("hocon: cannot encode value of %v", v.Kind)
	}
	return b, nil
}

// KeyValue is one entry of an OrderedMap.
type KeyValue struct {
	Key   string
	Value any
}

// OrderedMap is the plain-Go form of an object returned by Value.Interface:
// its entries in file order. Keys repeat only in list sections.
type OrderedMap []KeyValue

// Get returns the value of the last entry with this key.
func (m OrderedMap) Get(key string) (any, bool) {
	for i := len(m) - 1; i >= 0; i-- {
		if m[i].Key == key {
			return m[i].Value, true
		}
	}
	return nil, false
}

// Interface converts v to plain Go values: nil for null, bool, json.Number
// for numbers, string, []any for arrays and OrderedMap for objects (a Go map
// would lose the field order and the repeated keys of list sections).
func (v *Value) Interface() any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case Bool:
		return v.Bool
	case Number:
		return json.Number(v.Str)
	case String:
		return v.Str
	case Object:
		m := make(OrderedMap, len(v.Fields))
		for i, f := range v.Fields {
			m[i] = KeyValue{Key: f.Key, Value: f.Value.Interface()}
		}
		return m
	case Array:
		a := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			a[i] = e.Interface()
		}
		return a
	}
	return nil
}

// Options controls Parse.
type Options struct {
	// File is the name used in positions and error messages.
	File string

	// Vars are the job variables (given as -i key=value). A substitution
	// ${key} that the configuration does not define takes its value from
	// Vars before the environment; the text is read as a HOCON value when it
	// is a number, true or false, or a bracketed array or object, and as a
	// string otherwise. After resolution, ${key} and ${key:default}
	// placeholders left inside string values are replaced with Vars[key]
	// when set and non-empty, else with the trimmed default, else kept.
	Vars map[string]string

	// LookupEnv reads the environment; nil means os.LookupEnv. Environment
	// values are always strings.
	LookupEnv func(string) (string, bool)

	// ListSections are the paths (usually top-level keys such as "source",
	// "transform" and "sink") whose object children are kept in file order
	// and never merged: every child 'Name { ... }' or 'Name = {...}' becomes
	// its own field, so keys may repeat. A section defined twice gets the
	// entries of both. A section written as an array stays an array.
	ListSections []string

	// noPlaceholders skips step 3 (used by the round-trip tests).
	noPlaceholders bool
}

// Error is a syntax or resolution error at a position in the input.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

func errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// Parse reads a configuration and returns its root object, fully resolved.
// Every error it returns is an *Error.
func Parse(src []byte, opts Options) (*Value, error) {
	toks, err := lex(string(src), opts.File)
	if err != nil {
		return nil, err
	}
	p := newParser(toks, opts.File, opts.ListSections)
	root, err := p.parseRoot()
	if err != nil {
		return nil, err
	}
	return resolveRoot(root, &opts)
}

// ParseFile reads and parses the file at path. Options.File defaults to path.
func ParseFile(path string, opts Options) (*Value, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if opts.File == "" {
		opts.File = path
	}
	return Parse(src, opts)
}
