package hocon

import (
	"errors"
	"os"
	"regexp"
	"strings"
)

const (
	stateNew uint8 = iota
	stateBusy
	stateDone
)

// maxResolveDepth bounds the nesting of resolutions (values inside values
// plus chains of substitutions).
const maxResolveDepth = 10000

// maxExpansion bounds the bytes that substitution copies, concatenations and
// merges may add, so that a small file cannot expand exponentially.
var maxExpansion = 64 << 20

// valueCost is the approximate size of one Value, for maxExpansion.
const valueCost = 64

// errCycle reports that a node was needed while it was being resolved; the
// innermost substitution turns it into an *Error naming itself.
var errCycle = errors.New("substitution cycle")

type resolver struct {
	root        *node
	vars        map[string]string
	lookupEnv   func(string) (string, bool)
	literalOnly bool // reject every substitution (used for Vars values)
	depth       int
	spent       int
}

// resolveRoot resolves the parsed tree and expands the placeholders left in
// strings.
func resolveRoot(root *node, opts *Options) (*Value, error) {
	r := &resolver{root: root, vars: opts.Vars, lookupEnv: opts.LookupEnv}
	if r.lookupEnv == nil {
		r.lookupEnv = os.LookupEnv
	}
	v, _, err := r.resolve(root)
	if err != nil {
		if err == errCycle {
			return nil, errorf(root.pos, "substitution cycle")
		}
		return nil, err
	}
	if err := finish(v, 0, opts.Vars, !opts.noPlaceholders); err != nil {
		return nil, err
	}
	return v, nil
}

// spend charges n bytes against maxExpansion and reports whether they fit.
func (r *resolver) spend(n int) bool {
	r.spent += n
	return r.spent <= maxExpansion
}

func tooBig(pos Pos) error {
	return errorf(pos, "configuration grows beyond %d MiB through substitutions", maxExpansion>>20)
}

// resolve returns the value of n; ok is false when n is undefined (an
// optional substitution that found nothing).
func (r *resolver) resolve(n *node) (v *Value, ok bool, err error) {
	switch n.state {
	case stateDone:
		return n.res, n.hasVal, nil
	case stateBusy:
		return nil, false, errCycle
	}
	if r.depth >= maxResolveDepth {
		return nil, false, errorf(n.pos, "substitutions nested more than %d levels deep", maxResolveDepth)
	}
	r.depth++
	n.state = stateBusy
	v, ok, err = r.resolveNode(n)
	if err == nil && !ok && n.prev != nil {
		v, ok, err = r.resolve(n.prev)
	}
	r.depth--
	if err != nil {
		return nil, false, err
	}
	n.state, n.res, n.hasVal = stateDone, v, ok
	return v, ok, nil
}

func (r *resolver) resolveNode(n *node) (*Value, bool, error) {
	switch n.kind {
	case nScalar:
		return n.val, true, nil
	case nObject:
		return r.resolveObject(n)
	case nArray:
		out := &Value{Kind: Array, Pos: n.pos, Elems: make([]*Value, 0, len(n.elems))}
		for _, e := range n.elems {
			v, ok, err := r.resolve(e)
			if err != nil {
				return nil, false, err
			}
			if ok {
				out.Elems = append(out.Elems, v)
			}
		}
		return out, true, nil
	case nSubst:
		return r.resolveSubst(n)
	case nConcat:
		return r.resolveConcat(n)
	}
	return nil, false, errorf(n.pos, "internal error: unknown node")
}

func (r *resolver) resolveObject(n *node) (*Value, bool, error) {
	out := &Value{Kind: Object, Pos: n.pos, Fields: make([]Field, 0, len(n.fields))}
	for _, f := range n.fields {
		v, ok, err := r.resolve(f.n)
		if err != nil {
			return nil, false, err
		}
		if ok {
			out.Fields = append(out.Fields, Field{Key: f.key, Value: v})
		}
	}
	if n.base == nil {
		return out, true, nil
	}
	b, ok, err := r.resolve(n.base)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		return out, true, nil
	}
	if b.Kind != Object {
		if n.strict {
			return nil, false, errorf(b.Pos, "cannot concatenate %s with object", b.Kind)
		}
		return out, true, nil // a non-object is replaced by the object
	}
	if n.list {
		if !r.spend(valueCost * (len(b.Fields) + len(out.Fields))) {
			return nil, false, tooBig(n.pos)
		}
		out.Fields = append(b.Fields[:len(b.Fields):len(b.Fields)], out.Fields...)
		return out, true, nil
	}
	m, err := r.merge(b, out, n.pos)
	return m, err == nil, err
}

// merge returns fallback with override merged over it: fields of both in
// order, objects merged recursively, anything else replaced by override.
// The children of both are reused, not copied.
func (r *resolver) merge(fallback, override *Value, pos Pos) (*Value, error) {
	if !r.spend(valueCost * (1 + len(fallback.Fields) + len(override.Fields))) {
		return nil, tooBig(pos)
	}
	out := &Value{Kind: Object, Pos: override.Pos, Fields: make([]Field, len(fallback.Fields), len(fallback.Fields)+len(override.Fields))}
	copy(out.Fields, fallback.Fields)
	idx := make(map[string]int, len(out.Fields))
	for i, f := range out.Fields {
		idx[f.Key] = i
	}
	for _, f := range override.Fields {
		i, ok := idx[f.Key]
		if !ok {
			idx[f.Key] = len(out.Fields)
			out.Fields = append(out.Fields, f)
			continue
		}
		old := out.Fields[i].Value
		if old.Kind == Object && f.Value.Kind == Object {
			m, err := r.merge(old, f.Value, pos)
			if err != nil {
				return nil, err
			}
			out.Fields[i].Value = m
		} else {
			out.Fields[i].Value = f.Value
		}
	}
	return out, nil
}

// resolveSubst looks a substitution up in the configuration, then in Vars,
// then in the environment.
func (r *resolver) resolveSubst(n *node) (*Value, bool, error) {
	name := joinPath(n.path)
	if r.literalOnly {
		return nil, false, errorf(n.pos, "substitution ${%s} not allowed here", name)
	}
	v, ok, err := r.lookup(n.path)
	if err == errCycle {
		return nil, false, errorf(n.pos, "substitution ${%s} refers back to itself (cycle)", clip(name))
	}
	if err != nil {
		return nil, false, err
	}
	if ok {
		c, fits := r.copyValue(v)
		if !fits {
			return nil, false, tooBig(n.pos)
		}
		c.Pos = n.pos
		return c, true, nil
	}
	if s, found := r.vars[name]; found {
		v, err := r.varValue(s, n.pos)
		return v, err == nil, err
	}
	if s, found := r.lookupEnv(name); found {
		if !r.spend(valueCost + len(s)) {
			return nil, false, tooBig(n.pos)
		}
		return &Value{Kind: String, Str: s, Pos: n.pos}, true, nil
	}
	if n.opt {
		return nil, false, nil
	}
	return nil, false, errorf(n.pos, "unresolved substitution ${%s}: not defined in the configuration, the variables or the environment", clip(name))
}

// lookup finds path in the configuration. Literal objects are walked without
// resolving them, so a field may refer to a sibling.
func (r *resolver) lookup(path []string) (*Value, bool, error) {
	n := r.root
	for i, key := range path {
		if n.kind != nObject {
			return r.walk(n, path[i:])
		}
		child := n.get(key)
		if n.base != nil {
			if child == nil {
				return r.walk(n.base, path[i:])
			}
			if child.kind != nScalar && child.kind != nArray {
				return r.walk(n, path[i:]) // may need merging with the base
			}
		}
		if child == nil {
			return nil, false, nil
		}
		n = child
	}
	return r.resolve(n)
}

// walk resolves n and follows path through the resolved objects.
func (r *resolver) walk(n *node, path []string) (*Value, bool, error) {
	v, ok, err := r.resolve(n)
	if err != nil || !ok {
		return nil, false, err
	}
	for _, k := range path {
		if v = v.Get(k); v == nil {
			return nil, false, nil
		}
	}
	return v, true, nil
}

// copyValue deep-copies v so that every value in the result tree is used
// exactly once.
func (r *resolver) copyValue(v *Value) (*Value, bool) {
	if !r.spend(valueCost + len(v.Str)) {
		return nil, false
	}
	c := &Value{Kind: v.Kind, Str: v.Str, Bool: v.Bool, Pos: v.Pos}
	if v.Fields != nil {
		c.Fields = make([]Field, len(v.Fields))
		for i, f := range v.Fields {
			fc, ok := r.copyValue(f.Value)
			if !ok {
				return nil, false
			}
			c.Fields[i] = Field{Key: f.Key, Value: fc}
		}
	}
	if v.Elems != nil {
		c.Elems = make([]*Value, len(v.Elems))
		for i, e := range v.Elems {
			ec, ok := r.copyValue(e)
			if !ok {
				return nil, false
			}
			c.Elems[i] = ec
		}
	}
	return c, true
}

// resolveConcat joins the pieces of a value written on one line: strings
// and other scalars into one string (whitespace between them kept), arrays
// into one array, objects merged. Undefined optional pieces are dropped.
func (r *resolver) resolveConcat(n *node) (*Value, bool, error) {
	type piece struct {
		v     *Value
		space bool
	}
	pieces := make([]piece, 0, len(n.parts))
	var first, single *Value
	count := 0
	for _, part := range n.parts {
		v, ok, err := r.resolve(part)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue
		}
		pieces = append(pieces, piece{v, part.space})
		if part.space {
			continue
		}
		count++
		single = v
		if first == nil {
			first = v
		} else if group(first.Kind) != group(v.Kind) {
			return nil, false, errorf(v.Pos, "cannot concatenate %s with %s", first.Kind, v.Kind)
		}
	}
	switch count {
	case 0:
		return nil, false, nil
	case 1:
		return single, true, nil
	}
	switch first.Kind {
	case Object:
		acc := first
		for _, p := range pieces[1:] {
			if p.space || p.v == first {
				continue
			}
			var err error
			if acc, err = r.merge(acc, p.v, n.pos); err != nil {
				return nil, false, err
			}
		}
		acc.Pos = n.pos
		return acc, true, nil
	case Array:
		total := 0
		for _, p := range pieces {
			if !p.space {
				total += len(p.v.Elems)
			}
		}
		if !r.spend(valueCost + 8*total) {
			return nil, false, tooBig(n.pos)
		}
		out := &Value{Kind: Array, Pos: n.pos, Elems: make([]*Value, 0, total)}
		for _, p := range pieces {
			if !p.space {
				out.Elems = append(out.Elems, p.v.Elems...)
			}
		}
		return out, true, nil
	}
	total := 0
	for _, p := range pieces {
		total += len(text(p.v))
	}
	if !r.spend(valueCost + total) {
		return nil, false, tooBig(n.pos)
	}
	var b strings.Builder
	b.Grow(total)
	for _, p := range pieces {
		b.WriteString(text(p.v))
	}
	return &Value{Kind: String, Str: b.String(), Pos: n.pos}, true, nil
}

// group puts all scalars together for concatenation.
func group(k Kind) Kind {
	if k == Object || k == Array {
		return k
	}
	return String
}

// text is a scalar as it appears in a string concatenation.
func text(v *Value) string {
	switch v.Kind {
	case Bool:
		if v.Bool {
			return "true"
		}
		return "false"
	case Null:
		return "null"
	}
	return v.Str
}

// varValue turns a variable into a value: a number, true or false, or a
// bracketed HOCON array or object becomes that value, anything else a string.
func (r *resolver) varValue(s string, pos Pos) (*Value, error) {
	if !r.spend(valueCost + len(s)) {
		return nil, tooBig(pos)
	}
	t := strings.TrimSpace(s)
	switch {
	case t == "true" || t == "false":
		return &Value{Kind: Bool, Bool: t == "true", Pos: pos}, nil
	case isNumber(t):
		return &Value{Kind: Number, Str: t, Pos: pos}, nil
	case t != "" && (t[0] == '[' || t[0] == '{'):
		if v := parseLiteral(t); v != nil {
			setPos(v, pos)
			return v, nil
		}
	}
	return &Value{Kind: String, Str: s, Pos: pos}, nil
}

// parseLiteral parses s as one HOCON value without substitutions, or
// returns nil.
func parseLiteral(s string) *Value {
	toks, err := lex(s, "")
	if err != nil {
		return nil
	}
	p := newParser(toks, "", nil)
	p.skipSpaceNL()
	n, err := p.parseValue(nil, false)
	if err != nil || n == nil {
		return nil
	}
	p.skipSpaceNL()
	if p.peek().kind != tEOF {
		return nil
	}
	r := &resolver{root: newObject(Pos{}), literalOnly: true}
	v, ok, err := r.resolve(n)
	if err != nil || !ok {
		return nil
	}
	return v
}

func setPos(v *Value, pos Pos) {
	v.Pos = pos
	for _, f := range v.Fields {
		setPos(f.Value, pos)
	}
	for _, e := range v.Elems {
		setPos(e, pos)
	}
}

var placeholderRE = regexp.MustCompile(`\$\{([^:{}]+)(?::([^}]*))?\}`)

// finish checks the depth of the resolved tree and expands placeholders in
// its strings.
func finish(v *Value, depth int, vars map[string]string, expand bool) error {
	if depth > maxDepth {
		return errorf(v.Pos, "values nested more than %d levels deep after substitution", maxDepth)
	}
	switch v.Kind {
	case String:
		if expand {
			v.Str = expandPlaceholders(v.Str, vars)
		}
	case Object:
		for _, f := range v.Fields {
			if err := finish(f.Value, depth+1, vars, expand); err != nil {
				return err
			}
		}
	case Array:
		for _, e := range v.Elems {
			if err := finish(e, depth+1, vars, expand); err != nil {
				return err
			}
		}
	}
	return nil
}

// expandPlaceholders replaces ${name} and ${name:default} in s with
// vars[name] when set and non-empty, else with the trimmed default, else
// leaves the placeholder as it is.
func expandPlaceholders(s string, vars map[string]string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	ms := placeholderRE.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m[0]])
		switch val := vars[s[m[2]:m[3]]]; {
		case val != "":
			b.WriteString(val)
		case m[4] >= 0:
			b.WriteString(strings.TrimSpace(s[m[4]:m[5]]))
		default:
			b.WriteString(s[m[0]:m[1]])
		}
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}
