package jsonpath

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/internal/jsonscan"
)

// The JSONPath subset Strait evaluates, with SeaTunnel's rules:
//
//	$                 the document
//	.name  ['name']   a member of an object ("name" quoted with double quotes too)
//	[n]               an array element; negative n counts from the end
//	[n,m]  [a:b]      several elements; slices take [a, b), either end may be left out
//	.*  [*]           every member value or element
//	..step            step applied at every level below (deep scan)
//
// A path without a leading $ is read as $.path. A path made only of member and single-element
// steps is definite: it selects one value, and selecting nothing is an error ("No results for
// path"). Any other path is indefinite: it selects a list, possibly empty. On the way, a step
// that meets the wrong kind of value (a member of an array, an element of a string) is an
// error while the path so far is definite and selects nothing after that; a missing member
// that is not the last step is an error when the path up to it is definite. Filters [?(...)],
// functions such as .length() and several names in one bracket are not supported and are
// rejected when the job is built.

type stepKind uint8

const (
	stepChild stepKind = iota
	stepIndex
	stepSlice
	stepWildcard
)

type step struct {
	kind     stepKind
	name     string // stepChild
	idx      []int  // stepIndex
	from, to int    // stepSlice
	hasFrom  bool
	hasTo    bool
	scan     bool // deep scan (..)
}

func (s *step) definite() bool {
	return !s.scan && (s.kind == stepChild || s.kind == stepIndex && len(s.idx) == 1)
}

func (s *step) String() string {
	var b strings.Builder
	if s.scan {
		b.WriteString("..")
	}
	switch s.kind {
	case stepChild:
		b.WriteString("['")
		b.WriteString(strings.ReplaceAll(s.name, "'", "\\'"))
		b.WriteString("']")
	case stepIndex:
		b.WriteByte('[')
		for i, n := range s.idx {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(n))
		}
		b.WriteByte(']')
	case stepSlice:
		b.WriteByte('[')
		if s.hasFrom {
			b.WriteString(strconv.Itoa(s.from))
		}
		b.WriteByte(':')
		if s.hasTo {
			b.WriteString(strconv.Itoa(s.to))
		}
		b.WriteByte(']')
	case stepWildcard:
		b.WriteString("[*]")
	}
	return b.String()
}

// Path is a compiled JSONPath.
type Path struct {
	text     string
	steps    []step
	upDef    []bool // upDef[k]: the steps before k are all definite
	definite bool
}

// String is the path in bracket notation, as errors show it.
func (p *Path) String() string { return p.render(len(p.steps)) }

func (p *Path) render(n int) string {
	var b strings.Builder
	b.WriteByte('$')
	for i := 0; i < n; i++ {
		b.WriteString(p.steps[i].String())
	}
	return b.String()
}

// Definite reports whether the path selects a single value.
func (p *Path) Definite() bool { return p.definite }

// Compile reads a JSONPath.
func Compile(text string) (*Path, error) {
	src := strings.TrimSpace(text)
	if src == "" {
		return nil, fmt.Errorf("the path is empty")
	}
	switch src[0] {
	case '@':
		return nil, fmt.Errorf("path %q: paths relative to @ are only for filters, which are not supported", text)
	case '$':
	default:
		src = "$." + src
	}
	p := &Path{text: text}
	c := &pathCompiler{src: src, i: 1, text: text}
	for c.i < len(c.src) {
		st, err := c.next()
		if err != nil {
			return nil, err
		}
		p.steps = append(p.steps, st)
	}
	p.definite = true
	p.upDef = make([]bool, len(p.steps))
	for k := range p.steps {
		p.upDef[k] = p.definite
		if !p.steps[k].definite() {
			p.definite = false
		}
	}
	return p, nil
}

type pathCompiler struct {
	src  string
	i    int
	text string
}

func (c *pathCompiler) errorf(format string, args ...any) error {
	return fmt.Errorf("path %q: %s", c.text, fmt.Sprintf(format, args...))
}

func (c *pathCompiler) next() (step, error) {
	s := c.src
	switch s[c.i] {
	case '[':
		return c.bracket(false)
	case '.':
		c.i++
		scan := false
		if c.i < len(s) && s[c.i] == '.' {
			scan = true
			c.i++
		}
		if c.i == len(s) {
			return step{}, c.errorf("a path must not end with '.' or '..'")
		}
		switch s[c.i] {
		case '.':
			return step{}, c.errorf("unexpected '.' at position %d", c.i)
		case '[':
			return c.bracket(scan)
		case '*':
			c.i++
			if c.i < len(s) && s[c.i] != '.' && s[c.i] != '[' {
				return step{}, c.errorf("unexpected %q after '*' at position %d", s[c.i], c.i)
			}
			return step{kind: stepWildcard, scan: scan}, nil
		}
		start := c.i
		for c.i < len(s) && s[c.i] != '.' && s[c.i] != '[' {
			switch s[c.i] {
			case ' ':
				return step{}, c.errorf("use bracket notation ['my prop'] for names with blanks (position %d)", c.i)
			case '(':
				return step{}, c.errorf("functions such as %s() are not supported", s[start:c.i])
			}
			c.i++
		}
		return step{kind: stepChild, name: s[start:c.i], scan: scan}, nil
	}
	return step{}, c.errorf("unexpected %q at position %d", s[c.i], c.i)
}

func (c *pathCompiler) skipSpace() {
	for c.i < len(c.src) && c.src[c.i] == ' ' {
		c.i++
	}
}

func (c *pathCompiler) bracket(scan bool) (step, error) {
	s := c.src
	open := c.i
	c.i++
	c.skipSpace()
	if c.i >= len(s) {
		return step{}, c.errorf("unclosed '[' at position %d", open)
	}
	switch ch := s[c.i]; {
	case ch == '*':
		c.i++
		c.skipSpace()
		if c.i >= len(s) || s[c.i] != ']' {
			return step{}, c.errorf("expected ']' after '[*' at position %d", c.i)
		}
		c.i++
		return step{kind: stepWildcard, scan: scan}, nil
	case ch == '?':
		return step{}, c.errorf("filters [?(...)] are not supported")
	case ch == '\'' || ch == '"':
		var names []string
		for {
			name, err := c.quoted()
			if err != nil {
				return step{}, err
			}
			names = append(names, name)
			c.skipSpace()
			if c.i < len(s) && s[c.i] == ',' {
				c.i++
				c.skipSpace()
				continue
			}
			break
		}
		if c.i >= len(s) || s[c.i] != ']' {
			return step{}, c.errorf("expected ']' at position %d", c.i)
		}
		c.i++
		if len(names) > 1 {
			return step{}, c.errorf("selecting several members in one bracket is not supported")
		}
		return step{kind: stepChild, name: names[0], scan: scan}, nil
	case ch == '-' || ch == ':' || ch >= '0' && ch <= '9':
		end := strings.IndexByte(s[c.i:], ']')
		if end < 0 {
			return step{}, c.errorf("unclosed '[' at position %d", open)
		}
		body := s[c.i : c.i+end]
		c.i += end + 1
		if strings.Contains(body, ":") {
			return c.slice(body, scan)
		}
		var idx []int
		for _, part := range strings.Split(body, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(part))
			if err != nil {
				return step{}, c.errorf("bad array index %q", strings.TrimSpace(part))
			}
			idx = append(idx, n)
		}
		return step{kind: stepIndex, idx: idx, scan: scan}, nil
	}
	return step{}, c.errorf("unexpected %q at position %d", s[c.i], c.i)
}

func (c *pathCompiler) slice(body string, scan bool) (step, error) {
	parts := strings.Split(body, ":")
	if len(parts) != 2 {
		return step{}, c.errorf("slices with a step ([a:b:c]) are not supported")
	}
	st := step{kind: stepSlice, scan: scan}
	var err error
	if a := strings.TrimSpace(parts[0]); a != "" {
		if st.from, err = strconv.Atoi(a); err != nil {
			return step{}, c.errorf("bad slice start %q", a)
		}
		st.hasFrom = true
	}
	if b := strings.TrimSpace(parts[1]); b != "" {
		if st.to, err = strconv.Atoi(b); err != nil {
			return step{}, c.errorf("bad slice end %q", b)
		}
		st.hasTo = true
	}
	if !st.hasFrom && !st.hasTo {
		return step{}, c.errorf("a slice needs a start or an end")
	}
	return st, nil
}

func (c *pathCompiler) quoted() (string, error) {
	s := c.src
	if c.i >= len(s) || s[c.i] != '\'' && s[c.i] != '"' {
		return "", c.errorf("expected a quoted name at position %d", c.i)
	}
	q := s[c.i]
	start := c.i
	c.i++
	var b strings.Builder
	for c.i < len(s) {
		ch := s[c.i]
		switch {
		case ch == '\\' && c.i+1 < len(s):
			b.WriteByte(s[c.i+1])
			c.i += 2
		case ch == q:
			c.i++
			return b.String(), nil
		default:
			b.WriteByte(ch)
			c.i++
		}
	}
	return "", c.errorf("unclosed quote at position %d", start)
}

// dataError is an error of the data that the error handling options govern: text that is not
// JSON, or a path that selects nothing where it must select something or meets a value it
// cannot step into.
type dataError struct{ msg string }

func (e *dataError) Error() string { return e.msg }

// span is a value's place in the document.
type span struct{ start, end int }

// evaluator applies a path to one checked document.
type evaluator struct {
	doc  string
	p    *Path
	out  []span
	memo *memo
}

// memo remembers the members of the objects already searched in one document, so several
// paths into the same document scan each object once.
type memo struct {
	objs  []memoObj
	names []string // raw member names
	vals  []int    // value starts
}

type memoObj struct{ pos, from, to int }

func (m *memo) reset() {
	m.objs, m.names, m.vals = m.objs[:0], m.names[:0], m.vals[:0]
}

func (m *memo) member(doc string, pos int, name string) int {
	o := -1
	for i := range m.objs {
		if m.objs[i].pos == pos {
			o = i
			break
		}
	}
	if o < 0 {
		from := len(m.names)
		jsonscan.EachMember(doc, pos, func(raw string, v int) bool {
			m.names = append(m.names, raw)
			m.vals = append(m.vals, v)
			return true
		})
		m.objs = append(m.objs, memoObj{pos: pos, from: from, to: len(m.names)})
		o = len(m.objs) - 1
	}
	for i := m.objs[o].to - 1; i >= m.objs[o].from; i-- {
		if nameIs(m.names[i], name) {
			return m.vals[i]
		}
	}
	return -1
}

// Eval applies the path to a checked document and returns the selected values' spans,
// appended to out[:0]. A definite path yields exactly one span or an error. m, when not nil,
// is the memo of this document's objects.
func (p *Path) Eval(doc string, out []span, m *memo) ([]span, error) {
	ev := evaluator{doc: doc, p: p, out: out[:0], memo: m}
	if err := ev.eval(jsonscan.SkipSpace(doc, 0), 0); err != nil {
		return ev.out, err
	}
	if p.definite && len(ev.out) == 0 {
		return ev.out, &dataError{"No results for path: " + p.String()}
	}
	return ev.out, nil
}

func (ev *evaluator) eval(pos, k int) error {
	if k == len(ev.p.steps) {
		ev.out = append(ev.out, span{pos, jsonscan.Skip(ev.doc, pos)})
		return nil
	}
	if ev.p.steps[k].scan {
		ev.scan(pos, k)
		return nil
	}
	return ev.apply(pos, k, ev.p.upDef[k])
}

func describe(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// apply evaluates step k at the value at pos; strict says the path up to k is definite, so a
// mismatch is an error rather than no result.
func (ev *evaluator) apply(pos, k int, strict bool) error {
	doc, st := ev.doc, &ev.p.steps[k]
	c := doc[pos]
	switch st.kind {
	case stepChild:
		if c != '{' {
			if strict {
				return &dataError{fmt.Sprintf("Expected to find an object with property ['%s'] in path %s but found %s",
					st.name, ev.p.render(k), describe(c))}
			}
			return nil
		}
		var v int
		if ev.memo != nil {
			v = ev.memo.member(doc, pos, st.name)
		} else {
			v = member(doc, pos, st.name)
		}
		if v < 0 {
			if strict && k < len(ev.p.steps)-1 {
				return &dataError{"Missing property in path " + ev.p.render(k+1)}
			}
			return nil
		}
		return ev.eval(v, k+1)
	case stepIndex, stepSlice:
		if c != '[' {
			if strict {
				if c == 'n' {
					return &dataError{fmt.Sprintf("The path %s is null", ev.p.render(k))}
				}
				return &dataError{fmt.Sprintf("Filter: %s can only be applied to arrays. Current context is: %s",
					st.String(), describe(c))}
			}
			return nil
		}
		if st.kind == stepIndex && len(st.idx) == 1 && st.idx[0] >= 0 {
			if v := elemAt(doc, pos, st.idx[0]); v >= 0 {
				return ev.eval(v, k+1)
			}
			return nil
		}
		var elems []int
		jsonscan.EachElem(doc, pos, func(v int) bool { elems = append(elems, v); return true })
		n := len(elems)
		if st.kind == stepIndex {
			for _, i := range st.idx {
				if i < 0 {
					i += n
				}
				if i >= 0 && i < n {
					if err := ev.eval(elems[i], k+1); err != nil {
						return err
					}
				}
			}
			return nil
		}
		from, to := 0, n
		if st.hasFrom {
			if from = st.from; from < 0 {
				from = max(n+from, 0)
			}
		}
		if st.hasTo {
			if to = st.to; to < 0 {
				to = n + to
			}
			to = min(to, n)
		}
		for i := from; i < to; i++ {
			if err := ev.eval(elems[i], k+1); err != nil {
				return err
			}
		}
	case stepWildcard:
		var err error
		switch c {
		case '{':
			jsonscan.EachMember(doc, pos, func(_ string, v int) bool { err = ev.eval(v, k+1); return err == nil })
		case '[':
			jsonscan.EachElem(doc, pos, func(v int) bool { err = ev.eval(v, k+1); return err == nil })
		}
		return err
	}
	return nil
}

// scan applies the deep-scan step k at the value at pos and at every value below it, in
// document order, parents first.
func (ev *evaluator) scan(pos, k int) {
	doc, st := ev.doc, &ev.p.steps[k]
	c := doc[pos]
	if c != '{' && c != '[' {
		return
	}
	switch st.kind {
	case stepChild:
		if c == '{' {
			_ = ev.apply(pos, k, false)
		}
	case stepIndex, stepSlice:
		if c == '[' {
			_ = ev.apply(pos, k, false)
		}
	case stepWildcard:
		_ = ev.apply(pos, k, false)
	}
	if c == '{' {
		jsonscan.EachMember(doc, pos, func(_ string, v int) bool { ev.scan(v, k); return true })
	} else {
		jsonscan.EachElem(doc, pos, func(v int) bool { ev.scan(v, k); return true })
	}
}
