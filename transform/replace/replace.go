// Package replace is the Replace transform: it rewrites one field, replacing a literal
// substring or the matches of a regular expression with a replacement, as SeaTunnel's Replace
// does. The table keeps its shape, so batches are changed in place.
//
// Options: replace_field (the field), pattern, replacement, is_regex (default false: a plain
// substring, every occurrence replaced) and replace_first (default false; with is_regex, only
// the first match is replaced). A regex replacement may use Java's $1 and ${name}.
//
// SeaTunnel replaces in the Java text of any value; Strait does so for string fields and, for
// numbers, booleans, dates and times, reads the result back into the field's type (a result
// that is no longer a valid value of the type fails the job, naming the row's value). Bytes,
// arrays, maps and rows have no usable text form there and are refused when the job is built.
package replace

import (
	"context"
	"fmt"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/internal/jregex"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
	"github.com/strait-dev/strait/types"
)

// Name is the plugin name.
const Name = "Replace"

func init() {
	xform.Register(Name, "Replaces a substring, or the matches of a regular expression, in one field.", New)
}

// Config is Replace's options.
type Config struct {
	Field        string `opt:"replace_field,required" doc:"the field to replace in: text, a number, a boolean, a date or a time"`
	Pattern      string `opt:"pattern,required" doc:"the text to replace, or with is_regex a regular expression"`
	Replacement  string `opt:"replacement,required" doc:"what replaces it, possibly empty; with is_regex it may name groups as $1 or ${name}"`
	IsRegex      bool   `opt:"is_regex" default:"false" doc:"true: pattern is a regular expression; false: a plain substring, every occurrence replaced"`
	ReplaceFirst bool   `opt:"replace_first" default:"false" doc:"with is_regex, replace only the first match"`
}

type plan struct {
	idx int            // the field's position
	typ types.DataType // its type
}

// Transform is a configured Replace.
type Transform struct {
	where   string
	field   string
	pattern string
	repl    string
	re      *jregex.Regexp
	rep     *jregex.Replacement
	first   bool
	plans   []plan
	router  *xform.Router
	buf     []byte
	xform.Base
}

// New builds a Replace from its options and its input tables.
func New(o *config.Options, inputs []*catalog.Table, c *Config) (*Transform, error) {
	t := &Transform{where: o.Where(), field: c.Field, pattern: c.Pattern, repl: c.Replacement, first: c.ReplaceFirst}
	var err error
	if c.IsRegex {
		if t.re, err = jregex.Compile(t.pattern); err != nil {
			return nil, o.Errorf("pattern", "%v", err)
		}
		if t.rep, err = t.re.ParseReplacement(t.repl); err != nil {
			return nil, o.Errorf("replacement", "%v", err)
		}
	}
	for _, in := range inputs {
		i, err := xform.FieldIndex(o, "replace_field", t.field, in)
		if err != nil {
			return nil, err
		}
		typ := in.Columns[i].Type
		switch typ.Kind {
		case types.Bytes, types.Array, types.Map, types.Row:
			return nil, o.Errorf("replace_field", "field %q is of type %s; Replace works on text, numbers, booleans, dates and times", t.field, typ)
		}
		t.plans = append(t.plans, plan{idx: i, typ: typ})
		t.Tables = append(t.Tables, in.Copy())
	}
	t.router = xform.NewRouter(inputs)
	return t, nil
}

// Apply replaces in one string as the transform is configured to.
func (t *Transform) Apply(s string) string {
	switch {
	case t.re == nil:
		return strings.ReplaceAll(s, t.pattern, t.repl)
	case t.first:
		return t.re.ReplaceFirst(s, t.rep)
	}
	return t.re.ReplaceAll(s, t.rep)
}

// Process rewrites the field of every row in place.
func (t *Transform) Process(_ context.Context, in *row.Batch) (*row.Batch, error) {
	for i := range in.Rows {
		r := &in.Rows[i]
		k, ok := t.router.Row(r)
		if !ok {
			return nil, t.router.RowError(t.where, r)
		}
		p := &t.plans[k]
		v := r.Fields[p.idx]
		switch {
		case v.T == types.Null:
		case v.T == types.String:
			r.Fields[p.idx].S = t.Apply(v.S)
		default:
			t.buf = xform.AppendText(t.buf[:0], v)
			s := t.Apply(string(t.buf))
			nv, err := xform.ParseText(s, p.typ)
			if err != nil {
				return nil, fmt.Errorf("%s: replacing in field %q turned %q into something that is not a %s: %w",
					t.where, t.field, xform.Clip(string(t.buf)), p.typ, err)
			}
			r.Fields[p.idx] = nv
		}
	}
	return in, nil
}
