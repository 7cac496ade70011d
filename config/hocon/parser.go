package hocon

import "strings"

// maxDepth bounds how deeply values may nest, counting every path element
// of a key and every array level from the root.
const maxDepth = 1000

type nodeKind uint8

const (
	nScalar nodeKind = iota // a literal string, number, bool or null
	nObject
	nArray
	nSubst
	nConcat
)

// node is a value of the unresolved tree.
type node struct {
	kind nodeKind
	pos  Pos

	val   *Value // nScalar
	space bool   // nScalar: whitespace between the parts of a concatenation

	fields []nfield       // nObject, file order
	index  map[string]int // nObject, not list: key -> position in fields
	list   bool           // nObject: list section; keys repeat, never merged
	base   *node          // nObject: a value this object is merged over
	strict bool           // nObject: base came from a concatenation and must be an object
	elems  []*node        // nArray
	parts  []*node        // nConcat
	path   []string       // nSubst
	opt    bool           // nSubst: ${?path}
	prev   *node          // an earlier value of the same field, used if this one is undefined
	state  uint8          // resolution state
	res    *Value         // resolved value
	hasVal bool           // res is defined
}

type nfield struct {
	key string
	n   *node
}

func newObject(pos Pos) *node { return &node{kind: nObject, pos: pos} }

// get returns the node of the last field with key, or nil.
func (o *node) get(key string) *node {
	if o.list {
		for i := len(o.fields) - 1; i >= 0; i-- {
			if o.fields[i].key == key {
				return o.fields[i].n
			}
		}
		return nil
	}
	if i, ok := o.index[key]; ok {
		return o.fields[i].n
	}
	return nil
}

// put sets key, keeping the position of an existing field.
func (o *node) put(key string, n *node) {
	if i, ok := o.index[key]; ok && !o.list {
		o.fields[i].n = n
		return
	}
	if !o.list {
		if o.index == nil {
			o.index = make(map[string]int)
		}
		o.index[key] = len(o.fields)
	}
	o.fields = append(o.fields, nfield{key, n})
}

type parser struct {
	toks     []token
	i        int
	file     string
	sections map[string]bool
	depth    int
}

func newParser(toks []token, file string, sections []string) *parser {
	p := &parser{toks: toks, file: file}
	if len(sections) > 0 {
		p.sections = make(map[string]bool, len(sections))
		for _, s := range sections {
			p.sections[s] = true
		}
	}
	return p
}

func (p *parser) peek() *token { return &p.toks[p.i] }

func (p *parser) next() *token {
	t := &p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) skipSpace() {
	for p.toks[p.i].kind == tSpace {
		p.i++
	}
}

func (p *parser) skipSpaceNL() {
	for k := p.toks[p.i].kind; k == tSpace || k == tNewline; k = p.toks[p.i].kind {
		p.i++
	}
}

// extend returns prefix+path when list sections are in use, nil otherwise.
func (p *parser) extend(prefix, path []string) []string {
	if p.sections == nil {
		return nil
	}
	return append(prefix[:len(prefix):len(prefix)], path...)
}

func (p *parser) isSection(path []string) bool {
	return p.sections != nil && p.sections[joinPath(path)]
}

// parseRoot parses the whole input: an object with or without braces.
func (p *parser) parseRoot() (*node, error) {
	p.skipSpaceNL()
	t := p.peek()
	switch t.kind {
	case tLBrace:
		p.next()
		root := newObject(t.pos)
		if err := p.parseObjectBody(root, nil, t.pos, true); err != nil {
			return nil, err
		}
		p.skipSpaceNL()
		if t := p.peek(); t.kind != tEOF {
			return nil, errorf(t.pos, "unexpected %s after the end of the root object", describe(t))
		}
		return root, nil
	case tLBracket:
		return nil, errorf(t.pos, "the root of a configuration must be an object, not an array")
	}
	root := newObject(Pos{File: p.file, Line: 1, Col: 1})
	return root, p.parseObjectBody(root, nil, Pos{}, false)
}

// parseObjectBody parses fields into obj up to the closing '}' (braced) or
// the end of input.
func (p *parser) parseObjectBody(obj *node, prefix []string, open Pos, braced bool) error {
	for {
		p.skipSpaceNL()
		t := p.peek()
		switch t.kind {
		case tRBrace:
			if braced {
				p.next()
				return nil
			}
			return errorf(t.pos, "unexpected '}' without a matching '{'")
		case tEOF:
			if braced {
				return errorf(t.pos, "unclosed '{' opened at %d:%d", open.Line, open.Col)
			}
			return nil
		}
		if err := p.parseField(obj, prefix); err != nil {
			return err
		}
		p.skipSpace()
		switch t := p.peek(); t.kind {
		case tComma:
			p.next()
		case tNewline, tRBrace, tEOF:
		default:
			return errorf(t.pos, "expected ',' or a new line after a field, got %s", describe(t))
		}
	}
}

var includeForms = []string{"file(", "url(", "classpath(", "required("}

// parseField parses 'key = value', 'key : value', 'key += value' or
// 'key { ... }' and stores it in obj.
func (p *parser) parseField(obj *node, prefix []string) error {
	first := p.peek()
	if first.kind == tUnquoted && first.text == "include" {
		j := p.i + 1
		for p.toks[j].kind == tSpace {
			j++
		}
		nt := &p.toks[j]
		if nt.kind == tQuoted || nt.kind == tTriple || nt.kind == tUnquoted && hasAnyPrefix(nt.text, includeForms) {
			return errorf(first.pos, "include is not supported; put the included settings in this file")
		}
	}
	var pb pathBuilder
	n := 0
key:
	for ; ; n++ {
		t := p.peek()
		switch t.kind {
		case tUnquoted, tNumber:
			if msg := pb.addUnquoted(t.text); msg != "" {
				return errorf(t.pos, "invalid key: %s", msg)
			}
		case tQuoted:
			pb.addQuoted(t.text)
		case tSpace:
			pb.addSpace(t.text)
		case tTriple:
			return errorf(t.pos, "a triple-quoted string cannot be used as a key")
		case tSubst:
			return errorf(t.pos, "substitutions are not allowed in keys")
		default:
			break key
		}
		p.next()
	}
	if n == 0 {
		return errorf(first.pos, "expected a key, got %s", describe(first))
	}
	path, msg := pb.finish()
	if msg != "" {
		return errorf(first.pos, "invalid key: %s", msg)
	}
	name := joinPath(path)
	appendMode := false
	switch t := p.peek(); t.kind {
	case tEquals, tColon:
		p.next()
		p.skipSpaceNL()
	case tPlusEquals:
		appendMode = true
		p.next()
		p.skipSpaceNL()
	case tLBrace:
	default:
		return errorf(t.pos, "expected '=' or ':' after key %q, got %s", clip(name), describe(t))
	}

	p.depth += len(path)
	full := p.extend(prefix, path)
	start := p.peek()
	val, err := p.parseValue(full, p.isSection(full) && !obj.list)
	p.depth -= len(path)
	if err != nil {
		return err
	}
	if val == nil {
		return errorf(start.pos, "expected a value for key %q, got %s", clip(name), describe(start))
	}
	return p.setField(obj, prefix, path, val, appendMode, first.pos)
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, pre := range prefixes {
		if strings.HasPrefix(s, pre) {
			return true
		}
	}
	return false
}

// setField stores val at path below obj (whose own path is prefix), creating
// intermediate objects for dotted keys and merging duplicates.
func (p *parser) setField(obj *node, prefix, path []string, val *node, appendMode bool, pos Pos) error {
	for k, key := range path[:len(path)-1] {
		if obj.list {
			// Inside a list section a dotted key starts a new entry.
			child := newObject(pos)
			obj.put(key, child)
			obj = child
			continue
		}
		child := obj.get(key)
		if child == nil || child.kind != nObject {
			nc := newObject(pos)
			nc.list = p.isSection(p.extend(prefix, path[:k+1]))
			if child != nil && (child.kind == nSubst || child.kind == nConcat) {
				nc.base = child
			}
			obj.put(key, nc)
			child = nc
		}
		obj = child
	}
	key := path[len(path)-1]
	if obj.list {
		if appendMode {
			return errorf(pos, "'+=' cannot be used for an entry of a list section")
		}
		obj.put(key, val)
		return nil
	}
	existing := obj.get(key)
	switch {
	case appendMode:
		arr := &node{kind: nArray, pos: val.pos, elems: []*node{val}}
		if existing == nil {
			obj.put(key, arr)
		} else {
			obj.put(key, &node{kind: nConcat, pos: val.pos, parts: []*node{existing, arr}})
		}
	case existing == nil:
		obj.put(key, val)
	case val.kind == nObject && val.base != nil:
		// "key = ${x} { ... }" over an earlier object merges over it too.
		// (A base from a duplicate key already replaced whatever came
		// before it.)
		if val.strict && existing.kind == nObject {
			val.base = &node{kind: nConcat, pos: val.base.pos, parts: []*node{existing, val.base}}
		}
		obj.put(key, val)
	case val.kind == nObject && existing.kind == nObject:
		return p.mergeInto(existing, val)
	case val.kind == nObject && (existing.kind == nSubst || existing.kind == nConcat):
		val.base = existing
		obj.put(key, val)
	default:
		// The later value wins; keep the earlier one in case the later one
		// is an undefined ${?...}.
		last := val
		for last.prev != nil {
			last = last.prev
		}
		if last.kind == nSubst || last.kind == nConcat {
			last.prev = existing
		}
		obj.put(key, val)
	}
	return nil
}

// mergeInto merges the fields of src into dst, both objects.
func (p *parser) mergeInto(dst, src *node) error {
	if dst.list {
		for _, f := range src.fields {
			dst.put(f.key, f.n)
		}
		return nil
	}
	for _, f := range src.fields {
		if err := p.setField(dst, nil, []string{f.key}, f.n, false, f.n.pos); err != nil {
			return err
		}
	}
	return nil
}

// parseValue parses one value, which may be a concatenation of several
// pieces on the same line. It returns nil if no value starts here.
// path is the value's full path when list sections are in use; list tells
// whether objects parsed here are list sections.
func (p *parser) parseValue(path []string, list bool) (*node, error) {
	if p.depth > maxDepth {
		return nil, errorf(p.peek().pos, "values nested more than %d levels deep", maxDepth)
	}
	var parts []*node
	var space *token
	for {
		t := p.peek()
		var n *node
		switch t.kind {
		case tSpace:
			space = t
			p.next()
			continue
		case tNewline, tComma, tRBrace, tRBracket, tEOF:
			return concat(parts), nil
		case tLBrace:
			p.next()
			n = newObject(t.pos)
			n.list = list
			if err := p.parseObjectBody(n, path, t.pos, true); err != nil {
				return nil, err
			}
		case tLBracket:
			var err error
			if n, err = p.parseArray(); err != nil {
				return nil, err
			}
		case tQuoted, tTriple:
			n = scalar(&Value{Kind: String, Str: t.text, Pos: t.pos})
			p.next()
		case tNumber:
			n = scalar(&Value{Kind: Number, Str: t.text, Pos: t.pos})
			p.next()
		case tUnquoted:
			v := &Value{Kind: String, Str: t.text, Pos: t.pos}
			switch t.text {
			case "true", "false":
				v.Kind, v.Str, v.Bool = Bool, "", t.text == "true"
			case "null":
				v.Kind, v.Str = Null, ""
			}
			n = scalar(v)
			p.next()
		case tSubst:
			n = &node{kind: nSubst, pos: t.pos, path: t.path, opt: t.optional}
			p.next()
		default: // '=', ':', '+='
			return nil, errorf(t.pos, "unexpected %s in a value (quote values that contain it, or start the next field on a new line)", describe(t))
		}
		if space != nil && len(parts) > 0 {
			ws := scalar(&Value{Kind: String, Str: space.text, Pos: space.pos})
			ws.space = true
			parts = append(parts, ws)
		}
		space = nil
		parts = append(parts, n)
	}
}

// concat joins the pieces of a value. When the last piece is an object
// literal, the pieces before it become its base, so that lookups can see the
// literal's fields while the value is resolved (a = ${d} { x = 1, y = ${a.x} }).
func concat(parts []*node) *node {
	switch len(parts) {
	case 0:
		return nil
	case 1:
		return parts[0]
	}
	last := parts[len(parts)-1]
	if last.kind != nObject {
		return &node{kind: nConcat, pos: parts[0].pos, parts: parts}
	}
	rest := parts[:len(parts)-1]
	for rest[len(rest)-1].space {
		rest = rest[:len(rest)-1]
	}
	last.base = concat(rest)
	last.strict = true
	last.pos = parts[0].pos
	return last
}

func scalar(v *Value) *node { return &node{kind: nScalar, pos: v.Pos, val: v} }

// parseArray parses '[ ... ]'.
func (p *parser) parseArray() (*node, error) {
	open := p.next()
	arr := &node{kind: nArray, pos: open.pos}
	p.depth++
	defer func() { p.depth-- }()
	for {
		p.skipSpaceNL()
		t := p.peek()
		switch t.kind {
		case tRBracket:
			p.next()
			return arr, nil
		case tEOF:
			return nil, errorf(t.pos, "unclosed '[' opened at %d:%d", open.pos.Line, open.pos.Col)
		}
		v, err := p.parseValue(nil, false)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, errorf(t.pos, "expected a value or ']', got %s", describe(t))
		}
		arr.elems = append(arr.elems, v)
		p.skipSpace()
		switch t := p.peek(); t.kind {
		case tComma:
			p.next()
		case tNewline, tRBracket, tEOF:
		default:
			return nil, errorf(t.pos, "expected ',' or ']' after an array element, got %s", describe(t))
		}
	}
}
