// Package config gives connectors and transforms typed, forgiving access to their options,
// with SeaTunnel's lookup rules (the literal key first, then the dotted path; numbers and
// booleans given as strings; enum values in any case; lists as comma-separated strings) and
// errors that name the plugin, the option path and the place in the file.
package config

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/config/hocon"
)

// Options is one plugin's options, or a nested part of them.
type Options struct {
	v      *hocon.Value
	where  string // the plugin: `sink[0] Assert`
	prefix string // path of v inside the plugin: `rules.field_rules[1]`
	used   map[string]bool
}

// New wraps a plugin's option object. where names the plugin in errors.
func New(v *hocon.Value, where string) *Options {
	if v == nil {
		v = &hocon.Value{Kind: hocon.Object}
	}
	return &Options{v: v, where: where, used: map[string]bool{}}
}

// Where names the plugin, as errors do.
func (o *Options) Where() string { return o.where }

// Raw returns the underlying value.
func (o *Options) Raw() *hocon.Value { return o.v }

func (o *Options) path(key string) string {
	if o.prefix == "" {
		return key
	}
	if strings.HasPrefix(key, "[") {
		return o.prefix + key
	}
	return o.prefix + "." + key
}

// Error is a bad option: the plugin, the option's path, what is wrong and where it was written.
type Error struct {
	Where string
	Path  string
	Msg   string
	Pos   hocon.Pos
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Where != "" {
		b.WriteString(e.Where)
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Pos.Line > 0 {
		fmt.Fprintf(&b, " (at %s)", e.Pos)
	}
	return b.String()
}

// Errorf returns an *Error about the option key.
func (o *Options) Errorf(key, format string, args ...any) error {
	e := &Error{Where: o.where, Path: o.path(key), Msg: fmt.Sprintf(format, args...)}
	if v := o.v.Lookup(key); v != nil {
		e.Pos = v.Pos
	} else {
		// an option that is not there is placed at the block it is missing from
		e.Pos = o.v.Pos
		if key == "" {
			e.Path = o.prefix
		}
	}
	return e
}

// Get returns the option's value (literal key, then dotted path) or nil, and marks it used.
func (o *Options) Get(key string) *hocon.Value {
	v := o.v.Lookup(key)
	if v != nil {
		o.used[o.path(key)] = true
	}
	return v
}

// Has reports whether the option is set to something other than null.
func (o *Options) Has(key string) bool {
	v := o.v.Lookup(key)
	return v != nil && v.Kind != hocon.Null
}

// MarkUsed records options that are read elsewhere (common plugin options).
func (o *Options) MarkUsed(keys ...string) {
	for _, k := range keys {
		o.used[o.path(k)] = true
	}
}

// Unused lists the options that were set but never read, as paths, sorted, each with its
// position. SeaTunnel ignores unknown options; Strait warns about them. The entries of a
// list of objects a spec decoded are looked into, as Unknown does.
func (o *Options) Unused() []string {
	var out []string
	for _, u := range o.unused() {
		out = append(out, fmt.Sprintf("%s (at %s)", u.path, u.pos))
	}
	sort.Strings(out)
	return out
}

func scalarText(v *hocon.Value) (string, bool) {
	switch v.Kind {
	case hocon.String, hocon.Number:
		return v.Str, true
	case hocon.Bool:
		return strconv.FormatBool(v.Bool), true
	}
	return "", false
}

// String reads a string option; numbers and booleans are given as their text.
func (o *Options) String(key, def string) (string, error) {
	v := o.Get(key)
	if v == nil || v.Kind == hocon.Null {
		return def, nil
	}
	s, ok := scalarText(v)
	if !ok {
		return "", o.Errorf(key, "expected a string, found %s", v.Kind)
	}
	return s, nil
}

// RequiredString reads a string option that must be set.
func (o *Options) RequiredString(key string) (string, error) {
	if !o.Has(key) {
		return "", o.Errorf(key, "option is required")
	}
	return o.String(key, "")
}

// Int reads an integer option; a numeric string is accepted.
func (o *Options) Int(key string, def int64) (int64, error) {
	v := o.Get(key)
	if v == nil || v.Kind == hocon.Null {
		return def, nil
	}
	s, ok := scalarText(v)
	if !ok || v.Kind == hocon.Bool {
		return 0, o.Errorf(key, "expected an integer, found %s", v.Kind)
	}
	return ParseInt(strings.TrimSpace(s), func(msg string) error { return o.Errorf(key, "%s", msg) })
}

// ParseInt reads an integer written as an integer or as a float with no fraction (5.0).
func ParseInt(s string, fail func(string) error) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<62 {
		return 0, fail(fmt.Sprintf("%q is not an integer", s))
	}
	return int64(f), nil
}

// Bool reads a boolean option; "true"/"false" in any case are accepted.
func (o *Options) Bool(key string, def bool) (bool, error) {
	v := o.Get(key)
	if v == nil || v.Kind == hocon.Null {
		return def, nil
	}
	return o.at(key).boolOf(v)
}

// Enum reads an option whose value is one of allowed, in any case, and returns it spelled
// as in allowed.
func (o *Options) Enum(key, def string, allowed ...string) (string, error) {
	s, err := o.String(key, def)
	if err != nil || s == def {
		return s, err
	}
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSpace(s), a) {
			return a, nil
		}
	}
	return "", o.Errorf(key, "unknown value %q; expected one of %s", s, strings.Join(allowed, ", "))
}

// StringList reads a list of scalars, or a comma-separated string, as strings.
func (o *Options) StringList(key string) ([]string, error) {
	v := o.Get(key)
	if v == nil || v.Kind == hocon.Null {
		return nil, nil
	}
	return stringsOf(o.at(key), v)
}

// Object returns the nested options under key, or nil when the option is absent.
func (o *Options) Object(key string) (*Options, error) {
	v := o.Get(key)
	if v == nil || v.Kind == hocon.Null {
		return nil, nil
	}
	if v.Kind != hocon.Object {
		return nil, o.Errorf(key, "expected an object, found %s", v.Kind)
	}
	return o.child(v, o.path(key)), nil
}

func (o *Options) child(v *hocon.Value, path string) *Options {
	return &Options{v: v, where: o.where, prefix: path, used: o.used}
}

// ObjectList returns each element of a list of objects as nested options.
func (o *Options) ObjectList(key string) ([]*Options, error) {
	v := o.Get(key)
	if v == nil || v.Kind == hocon.Null {
		return nil, nil
	}
	if v.Kind != hocon.Array {
		return nil, o.Errorf(key, "expected a list of objects, found %s", v.Kind)
	}
	out := make([]*Options, 0, len(v.Elems))
	for i, e := range v.Elems {
		p := fmt.Sprintf("%s[%d]", o.path(key), i)
		if e.Kind != hocon.Object {
			return nil, &Error{Where: o.where, Path: p, Msg: fmt.Sprintf("expected an object, found %s", e.Kind), Pos: e.Pos}
		}
		out = append(out, o.child(e, p))
	}
	return out, nil
}

// Keys lists the keys of this object in file order.
func (o *Options) Keys() []string {
	keys := make([]string, 0, len(o.v.Fields))
	for _, f := range o.v.Fields {
		keys = append(keys, f.Key)
	}
	return keys
}

// Rewritten returns a copy of the options whose top-level values rewrite has replaced
// (rewrite returns the value itself, or a new one, and must not change it). The copy
// tracks its own use; MarkUsedFrom carries it back.
func (o *Options) Rewritten(rewrite func(key string, v *hocon.Value) *hocon.Value) *Options {
	c := *o.v
	if c.Kind == hocon.Object {
		c.Fields = make([]hocon.Field, len(o.v.Fields))
		for i, f := range o.v.Fields {
			f.Value = rewrite(f.Key, f.Value)
			c.Fields[i] = f
		}
	}
	return &Options{v: &c, where: o.where, prefix: o.prefix, used: map[string]bool{}}
}

// MarkUsedFrom marks as used here the options read through other (a Rewritten copy).
func (o *Options) MarkUsedFrom(other *Options) {
	for k := range other.used {
		o.used[k] = true
	}
}
