package sql

import (
	"strconv"
	"strings"
)

// The parser is a hand-written recursive-descent parser with Pratt-style precedence climbing
// for operators. docs/sql.md explains why no SQL library is used.

// Parse reads one SELECT statement of SeaTunnel's Sql transform dialect.
func Parse(query string) (*Select, error) {
	toks, lerr := lex(query)
	if lerr != nil {
		return nil, lerr
	}
	p := &parser{src: query, toks: toks}
	s, err := p.parseSelect()
	if err != nil {
		return nil, err
	}
	return s, nil
}

type parser struct {
	src   string
	toks  []token
	i     int
	depth int
}

// maxDepth bounds nesting (parentheses, CASE, function calls) so that a hostile query cannot
// exhaust the stack.
const maxDepth = 200

// reserved words cannot be used as bare column names or aliases; quote them (`end`).
var reservedWords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "AS": true, "AND": true, "OR": true,
	"NOT": true, "IN": true, "IS": true, "NULL": true, "LIKE": true, "BETWEEN": true,
	"CASE": true, "WHEN": true, "THEN": true, "ELSE": true, "END": true, "TRUE": true,
	"FALSE": true, "JOIN": true, "INNER": true, "OUTER": true, "CROSS": true, "FULL": true,
	"NATURAL": true, "ON": true, "USING": true, "GROUP": true, "ORDER": true, "BY": true,
	"HAVING": true, "LIMIT": true, "OFFSET": true, "UNION": true, "INTERSECT": true,
	"EXCEPT": true, "MINUS": true, "DISTINCT": true, "WINDOW": true, "QUALIFY": true,
	"FETCH": true, "INTO": true, "EXISTS": true, "ESCAPE": true, "OVER": true,
}

func isReserved(word string) bool { return reservedWords[strings.ToUpper(word)] }

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() token {
	t := p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

// isKw reports whether t is the keyword kw (given in upper case).
func isKw(t token, kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }
func isOp(t token, op string) bool { return t.kind == tOp && t.text == op }

func (p *parser) errorf(off int, format string, args ...any) *Error {
	return errAt(p.src, off, format, args...)
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "the end of the query"
	case tString:
		return "string " + quoteString(clip(t.text))
	case tQIdent:
		return "name " + strconv.Quote(clip(t.text))
	case tParam:
		return "parameter " + t.text
	}
	return strconv.Quote(clip(t.text))
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func (p *parser) unexpected(t token, want string) *Error {
	if t.kind == tParam {
		return p.errorf(t.off, "query parameters are not supported")
	}
	if want == "" {
		return p.errorf(t.off, "unexpected %s", describe(t))
	}
	return p.errorf(t.off, "expected %s, found %s", want, describe(t))
}

func (p *parser) expectOp(op string) (token, *Error) {
	t := p.peek()
	if !isOp(t, op) {
		return t, p.unexpected(t, strconv.Quote(op))
	}
	return p.next(), nil
}

func (p *parser) expectKw(kw string) *Error {
	t := p.peek()
	if !isKw(t, kw) {
		return p.unexpected(t, kw)
	}
	p.next()
	return nil
}

// unsupportedClause names clauses the transform does not have, for a clear error.
var unsupportedClause = map[string]string{
	"GROUP":     "GROUP BY is not supported: the Sql transform works one row at a time",
	"HAVING":    "HAVING is not supported: the Sql transform works one row at a time",
	"ORDER":     "ORDER BY is not supported: the Sql transform works one row at a time",
	"LIMIT":     "LIMIT is not supported",
	"OFFSET":    "OFFSET is not supported",
	"FETCH":     "FETCH is not supported",
	"UNION":     "UNION is not supported: one SELECT per transform",
	"INTERSECT": "INTERSECT is not supported: one SELECT per transform",
	"EXCEPT":    "EXCEPT is not supported: one SELECT per transform",
	"MINUS":     "MINUS is not supported: one SELECT per transform",
	"WINDOW":    "WINDOW is not supported",
	"QUALIFY":   "QUALIFY is not supported",
	"JOIN":      "JOIN is not supported: the Sql transform reads one table",
	"INNER":     "JOIN is not supported: the Sql transform reads one table",
	"LEFT":      "JOIN is not supported: the Sql transform reads one table",
	"RIGHT":     "JOIN is not supported: the Sql transform reads one table",
	"FULL":      "JOIN is not supported: the Sql transform reads one table",
	"CROSS":     "JOIN is not supported: the Sql transform reads one table",
	"NATURAL":   "JOIN is not supported: the Sql transform reads one table",
	"INTO":      "SELECT INTO is not supported",
}

func (p *parser) parseSelect() (*Select, *Error) {
	t := p.peek()
	if isKw(t, "WITH") {
		return nil, p.errorf(t.off, "WITH (common table expressions) is not supported")
	}
	if !isKw(t, "SELECT") {
		if t.kind == tIdent {
			return nil, p.errorf(t.off, "only SELECT statements are supported, found %s", describe(t))
		}
		return nil, p.unexpected(t, "SELECT")
	}
	p.next()
	if t := p.peek(); isKw(t, "DISTINCT") {
		return nil, p.errorf(t.off, "SELECT DISTINCT is not supported: the Sql transform works one row at a time")
	} else if isKw(t, "ALL") && !isOp(p.peekAt(1), "(") && !isOp(p.peekAt(1), ",") && !isOp(p.peekAt(1), ".") && !isKw(p.peekAt(1), "FROM") {
		p.next()
	}
	s := &Select{}
	for {
		it, err := p.parseItem()
		if err != nil {
			return nil, err
		}
		s.Items = append(s.Items, it)
		if !isOp(p.peek(), ",") {
			break
		}
		p.next()
	}
	t = p.peek()
	if msg, ok := unsupportedClause[strings.ToUpper(t.text)]; ok && t.kind == tIdent && strings.EqualFold(t.text, "INTO") {
		return nil, p.errorf(t.off, "%s", msg)
	}
	if !isKw(t, "FROM") {
		if t.kind == tEOF {
			return nil, p.errorf(t.off, "expected FROM <table>, found the end of the query")
		}
		return nil, p.unexpected(t, "\",\" or FROM")
	}
	p.next()
	t = p.peek()
	switch {
	case isOp(t, "("):
		return nil, p.errorf(t.off, "sub-queries are not supported: FROM names the input table")
	case t.kind == tIdent && !isReserved(t.text), t.kind == tQIdent:
		p.next()
		s.From, s.FromOff = t.text, t.off
	default:
		return nil, p.unexpected(t, "a table name")
	}
	if isOp(p.peek(), ".") {
		return nil, p.errorf(p.peek().off, "qualified table names are not supported: FROM names the input table")
	}
	// optional alias
	t = p.peek()
	if isKw(t, "AS") {
		p.next()
		a := p.peek()
		if a.kind == tQIdent || a.kind == tIdent && !isReserved(a.text) {
			p.next()
			s.FromAlias = a.text
		} else {
			return nil, p.unexpected(a, "an alias")
		}
	} else if t.kind == tQIdent || t.kind == tIdent && !isReserved(t.text) && !isKw(t, "LEFT") && !isKw(t, "RIGHT") {
		p.next()
		s.FromAlias = t.text
	}
	t = p.peek()
	if isOp(t, ",") {
		return nil, p.errorf(t.off, "JOIN is not supported: the Sql transform reads one table")
	}
	if isKw(t, "WHERE") {
		p.next()
		w, err := p.parseExpr(0)
		if err != nil {
			return nil, err
		}
		s.Where = w
	}
	t = p.peek()
	if t.kind == tIdent {
		if msg, ok := unsupportedClause[strings.ToUpper(t.text)]; ok {
			return nil, p.errorf(t.off, "%s", msg)
		}
	}
	if isOp(t, ";") {
		p.next()
		t = p.peek()
		if t.kind != tEOF {
			return nil, p.errorf(t.off, "only one statement is allowed")
		}
	}
	if t.kind != tEOF {
		if s.Where == nil {
			return nil, p.unexpected(t, "WHERE or the end of the query")
		}
		return nil, p.unexpected(t, "the end of the query")
	}
	return s, nil
}

func (p *parser) parseItem() (*SelectItem, *Error) {
	t := p.peek()
	if isOp(t, "*") {
		p.next()
		return &SelectItem{Star: true, Off: t.off}, nil
	}
	if (t.kind == tIdent || t.kind == tQIdent) && isOp(p.peekAt(1), ".") && isOp(p.peekAt(2), "*") {
		p.next()
		p.next()
		p.next()
		return &SelectItem{Star: true, Qualifier: t.text, Off: t.off}, nil
	}
	e, err := p.parseExpr(0)
	if err != nil {
		return nil, err
	}
	it := &SelectItem{Expr: e, Off: t.off}
	t = p.peek()
	if isKw(t, "AS") {
		p.next()
		a := p.peek()
		switch {
		case a.kind == tQIdent, a.kind == tString, a.kind == tIdent && !isReserved(a.text):
			p.next()
			it.Alias = a.text
		default:
			return nil, p.unexpected(a, "an alias")
		}
	} else if t.kind == tQIdent || t.kind == tIdent && !isReserved(t.text) {
		p.next()
		it.Alias = t.text
	}
	return it, nil
}

// Binding powers, lowest first.
const (
	bpOr      = 1
	bpAnd     = 2
	bpNot     = 3
	bpCompare = 4
	bpConcat  = 5
	bpAdd     = 6
	bpMul     = 7
	bpUnary   = 8
)

// infix is a binary operator as the parser reads it: its binding power (0: the token is no
// binary operator) and the operator it stands for.
type infix struct {
	bp int
	op string
}

// infixOps are the binary operators written with symbols; == and != stand for = and <>.
var infixOps = map[string]infix{
	"=": {bpCompare, "="}, "==": {bpCompare, "="}, "<>": {bpCompare, "<>"}, "!=": {bpCompare, "<>"},
	"<": {bpCompare, "<"}, "<=": {bpCompare, "<="}, ">": {bpCompare, ">"}, ">=": {bpCompare, ">="},
	"||": {bpConcat, "||"},
	"+":  {bpAdd, "+"}, "-": {bpAdd, "-"},
	"*": {bpMul, "*"}, "/": {bpMul, "/"}, "%": {bpMul, "%"},
}

// infixOf is the binary operator t is: OR, AND or one of infixOps.
func infixOf(t token) infix {
	switch {
	case isKw(t, "OR"):
		return infix{bpOr, "OR"}
	case isKw(t, "AND"):
		return infix{bpAnd, "AND"}
	case t.kind == tOp:
		return infixOps[t.text]
	}
	return infix{}
}

func (p *parser) enter(off int) *Error {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf(off, "expression nested too deeply")
	}
	return nil
}

// parseExpr parses an expression whose operators all bind tighter than minBP.
func (p *parser) parseExpr(minBP int) (Node, *Error) {
	if err := p.enter(p.peek().off); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	left, err := p.parsePrefix()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		in := infixOf(t)
		switch {
		case isKw(t, "IS"):
			if bpCompare <= minBP {
				return left, nil
			}
			p.next()
			not := false
			if isKw(p.peek(), "NOT") {
				p.next()
				not = true
			}
			if n := p.peek(); isKw(n, "TRUE") || isKw(n, "FALSE") {
				// x IS [NOT] TRUE: a comparison with a boolean
				p.next()
				op := "="
				if not {
					op = "<>"
				}
				left = &Binary{Op: op, Text: op, L: left, R: &BoolLit{Value: isKw(n, "TRUE"), Off: n.off}, Off: t.off}
				continue
			}
			if err := p.expectKw("NULL"); err != nil {
				return nil, err
			}
			left = &IsNull{X: left, Not: not, Off: t.off}
		case isKw(t, "NOT") && (isKw(p.peekAt(1), "IN") || isKw(p.peekAt(1), "LIKE") || isKw(p.peekAt(1), "BETWEEN") || isKw(p.peekAt(1), "ILIKE")):
			if bpCompare <= minBP {
				return left, nil
			}
			p.next()
			left, err = p.parsePredicateTail(left, true)
			if err != nil {
				return nil, err
			}
		case isKw(t, "IN") || isKw(t, "LIKE") || isKw(t, "BETWEEN") || isKw(t, "ILIKE"):
			if bpCompare <= minBP {
				return left, nil
			}
			left, err = p.parsePredicateTail(left, false)
			if err != nil {
				return nil, err
			}
		case isOp(t, "::"):
			return nil, p.errorf(t.off, "the :: cast is not supported; use CAST(x AS type)")
		case isOp(t, "["):
			return nil, p.errorf(t.off, "array subscripts are not supported")
		case in.bp > 0:
			if in.bp <= minBP {
				return left, nil
			}
			p.next()
			r, err := p.parseExpr(in.bp)
			if err != nil {
				return nil, err
			}
			text := in.op // a keyword's text is its upper case
			if t.kind == tOp {
				text = t.text
			}
			left = &Binary{Op: in.op, Text: text, L: left, R: r, Off: t.off}
		default:
			return left, nil
		}
	}
}

// parsePredicateTail parses IN (...), LIKE p [ESCAPE e] or BETWEEN a AND b after x [NOT].
func (p *parser) parsePredicateTail(x Node, not bool) (Node, *Error) {
	t := p.next()
	switch {
	case isKw(t, "IN"):
		open := p.peek()
		if !isOp(open, "(") {
			return nil, p.unexpected(open, "\"(\" after IN")
		}
		p.next()
		if isKw(p.peek(), "SELECT") {
			return nil, p.errorf(p.peek().off, "sub-queries are not supported")
		}
		if isOp(p.peek(), ")") {
			return nil, p.errorf(p.peek().off, "IN needs at least one value")
		}
		e, err := p.parseExpr(0)
		if err != nil {
			return nil, err
		}
		list, err := p.parseListRest([]Node{e})
		if err != nil {
			return nil, err
		}
		return &In{X: x, List: list, Not: not, Off: t.off}, nil
	case isKw(t, "LIKE"), isKw(t, "ILIKE"):
		if isKw(t, "ILIKE") {
			return nil, p.errorf(t.off, "ILIKE is not supported; use LIKE with LOWER() or REGEXP_LIKE(x, p, 'i')")
		}
		pat, err := p.parseExpr(bpCompare)
		if err != nil {
			return nil, err
		}
		l := &Like{X: x, Pattern: pat, Not: not, Off: t.off}
		if isKw(p.peek(), "ESCAPE") {
			p.next()
			if l.Escape, err = p.parseExpr(bpCompare); err != nil {
				return nil, err
			}
		}
		return l, nil
	default: // BETWEEN
		lo, err := p.parseExpr(bpCompare)
		if err != nil {
			return nil, err
		}
		if err := p.expectKw("AND"); err != nil {
			return nil, err
		}
		hi, err := p.parseExpr(bpCompare)
		if err != nil {
			return nil, err
		}
		return &Between{X: x, Lo: lo, Hi: hi, Not: not, Off: t.off}, nil
	}
}

func (p *parser) parsePrefix() (Node, *Error) {
	t := p.peek()
	switch t.kind {
	case tNumber:
		p.next()
		return &NumberLit{Text: t.text, Off: t.off}, nil
	case tString:
		p.next()
		return &StringLit{Value: t.text, Off: t.off}, nil
	case tQIdent:
		return p.parseName()
	case tParam:
		return nil, p.errorf(t.off, "query parameters are not supported")
	case tEOF:
		return nil, p.errorf(t.off, "expected an expression, found the end of the query")
	case tOp:
		switch t.text {
		case "(":
			p.next()
			if isKw(p.peek(), "SELECT") || isKw(p.peek(), "WITH") {
				return nil, p.errorf(p.peek().off, "sub-queries are not supported")
			}
			e, err := p.parseExpr(0)
			if err != nil {
				return nil, err
			}
			if isOp(p.peek(), ",") {
				return nil, p.errorf(p.peek().off, "row values are not supported")
			}
			if _, err := p.expectOp(")"); err != nil {
				return nil, err
			}
			return &Paren{X: e, Off: t.off}, nil
		case "-", "+":
			p.next()
			x, err := p.parseExpr(bpUnary)
			if err != nil {
				return nil, err
			}
			return &Unary{Op: t.text, X: x, Off: t.off}, nil
		case "*":
			return nil, p.errorf(t.off, "* is only allowed alone in the select list")
		}
		return nil, p.unexpected(t, "an expression")
	}
	// a word
	up := strings.ToUpper(t.text)
	switch up {
	case "NOT":
		p.next()
		x, err := p.parseExpr(bpNot)
		if err != nil {
			return nil, err
		}
		return &Unary{Op: "NOT", X: x, Off: t.off}, nil
	case "NULL":
		p.next()
		return &NullLit{Off: t.off}, nil
	case "TRUE", "FALSE":
		p.next()
		return &BoolLit{Value: up == "TRUE", Off: t.off}, nil
	case "CASE":
		return p.parseCase()
	case "EXISTS":
		return nil, p.errorf(t.off, "sub-queries are not supported")
	case "SELECT":
		return nil, p.errorf(t.off, "sub-queries are not supported")
	case "INTERVAL":
		return nil, p.errorf(t.off, "INTERVAL is not supported; use DATEADD(x, n, 'unit')")
	case "DATE", "TIME", "TIMESTAMP":
		if n := p.peekAt(1); n.kind == tString {
			p.next()
			p.next()
			return &TypedLit{Type: up, Value: n.text, Off: t.off}, nil
		}
	case "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP":
		if !isOp(p.peekAt(1), "(") {
			p.next()
			return &TimeKey{Name: t.text, Off: t.off}, nil
		}
	}
	if isOp(p.peekAt(1), "(") {
		return p.parseCall()
	}
	if isReserved(t.text) {
		return nil, p.errorf(t.off, "unexpected keyword %s; quote a column with this name as `%s`", up, t.text)
	}
	return p.parseName()
}

func (p *parser) parseName() (Node, *Error) {
	t := p.next()
	c := &ColumnRef{Parts: []string{t.text}, Off: t.off}
	for isOp(p.peek(), ".") {
		p.next()
		n := p.peek()
		if n.kind != tIdent && n.kind != tQIdent {
			if isOp(n, "*") {
				return nil, p.errorf(n.off, "%s.* is only allowed alone in the select list", c.String())
			}
			return nil, p.unexpected(n, "a field name after \".\"")
		}
		p.next()
		c.Parts = append(c.Parts, n.text)
	}
	if isOp(p.peek(), "(") {
		return nil, p.errorf(t.off, "qualified function names are not supported")
	}
	return c, nil
}

func (p *parser) parseCase() (Node, *Error) {
	t := p.next() // CASE
	if err := p.enter(t.off); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	c := &Case{Off: t.off}
	if !isKw(p.peek(), "WHEN") {
		op, err := p.parseExpr(0)
		if err != nil {
			return nil, err
		}
		c.Operand = op
	}
	for isKw(p.peek(), "WHEN") {
		p.next()
		cond, err := p.parseExpr(0)
		if err != nil {
			return nil, err
		}
		if err := p.expectKw("THEN"); err != nil {
			return nil, err
		}
		then, err := p.parseExpr(0)
		if err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, When{Cond: cond, Then: then})
	}
	if len(c.Whens) == 0 {
		return nil, p.unexpected(p.peek(), "WHEN")
	}
	if isKw(p.peek(), "ELSE") {
		p.next()
		e, err := p.parseExpr(0)
		if err != nil {
			return nil, err
		}
		c.Else = e
	}
	if err := p.expectKw("END"); err != nil {
		return nil, err
	}
	return c, nil
}

func (p *parser) parseCall() (Node, *Error) {
	nameTok := p.next()
	open := p.next() // (
	if err := p.enter(open.off); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	name := nameTok.text
	up := strings.ToUpper(name)
	switch up {
	case "CAST", "TRY_CAST", "SAFE_CAST":
		if up != "CAST" {
			return nil, p.errorf(nameTok.off, "%s is not supported; use CAST", up)
		}
		x, err := p.parseExpr(0)
		if err != nil {
			return nil, err
		}
		if err := p.expectKw("AS"); err != nil {
			return nil, err
		}
		tn, err := p.parseTypeName()
		if err != nil {
			return nil, err
		}
		if _, err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return &Cast{X: x, Type: tn, Off: nameTok.off}, nil
	case "EXTRACT":
		f := p.peek()
		if f.kind != tIdent && f.kind != tString {
			return nil, p.unexpected(f, "a date-time field (YEAR, MONTH, DAY, ...)")
		}
		p.next()
		if err := p.expectKw("FROM"); err != nil {
			return nil, err
		}
		x, err := p.parseLastArg()
		if err != nil {
			return nil, err
		}
		return &Extract{Field: strings.ToUpper(f.text), X: x, Off: nameTok.off}, nil
	case "TRIM":
		return p.parseTrim(nameTok)
	}
	call := &Call{Name: name, Off: nameTok.off}
	if isOp(p.peek(), ")") {
		p.next()
		return p.afterCall(call)
	}
	if t := p.peek(); isKw(t, "DISTINCT") || isKw(t, "ALL") && !isOp(p.peekAt(1), ")") && !isOp(p.peekAt(1), ",") {
		return nil, p.errorf(t.off, "aggregate functions are not supported: the Sql transform works one row at a time")
	}
	if t := p.peek(); isOp(t, "*") && isOp(p.peekAt(1), ")") {
		p.next()
		p.next()
		call.Star = true
		return p.afterCall(call)
	}
	first := 0
	if up == "POSITION" {
		first = bpCompare // POSITION(a IN b): stop before IN
	}
	e, err := p.parseExpr(first)
	if err != nil {
		return nil, err
	}
	switch {
	case up == "POSITION" && isKw(p.peek(), "IN"):
		p.next()
		s, err := p.parseLastArg()
		if err != nil {
			return nil, err
		}
		call.Args = []Node{e, s}
		call.Text = name + "(" + e.String() + " IN " + s.String() + ")"
		return p.afterCall(call)
	case (up == "SUBSTRING" || up == "SUBSTR") && isKw(p.peek(), "FROM"):
		p.next()
		from, err := p.parseExpr(0)
		if err != nil {
			return nil, err
		}
		call.Args = []Node{e, from}
		text := name + "(" + e.String() + " FROM " + from.String()
		if isKw(p.peek(), "FOR") {
			p.next()
			n, err := p.parseExpr(0)
			if err != nil {
				return nil, err
			}
			call.Args = append(call.Args, n)
			text += " FOR " + n.String()
		}
		if _, err := p.expectOp(")"); err != nil {
			return nil, err
		}
		call.Text = text + ")"
		return p.afterCall(call)
	}
	if call.Args, err = p.parseListRest([]Node{e}); err != nil {
		return nil, err
	}
	return p.afterCall(call)
}

// parseLastArg parses an expression and the ")" after it, which closes the call it ends.
func (p *parser) parseLastArg() (Node, *Error) {
	e, err := p.parseExpr(0)
	if err != nil {
		return nil, err
	}
	if _, err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return e, nil
}

// parseListRest parses the rest of a list in parentheses whose first items are read: more
// items after commas, then ")".
func (p *parser) parseListRest(list []Node) ([]Node, *Error) {
	for isOp(p.peek(), ",") {
		p.next()
		e, err := p.parseExpr(0)
		if err != nil {
			return nil, err
		}
		list = append(list, e)
	}
	if _, err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return list, nil
}

func (p *parser) afterCall(c *Call) (Node, *Error) {
	if t := p.peek(); isKw(t, "OVER") || isKw(t, "FILTER") || isKw(t, "WITHIN") {
		return nil, p.errorf(t.off, "window and aggregate functions are not supported")
	}
	return c, nil
}

// parseTrim reads TRIM(s), TRIM(s, chars) and the standard
// TRIM([LEADING|TRAILING|BOTH] [chars] FROM s).
func (p *parser) parseTrim(nameTok token) (Node, *Error) {
	mode := ""
	if t := p.peek(); isKw(t, "LEADING") || isKw(t, "TRAILING") || isKw(t, "BOTH") {
		mode = strings.ToUpper(t.text)
		p.next()
	}
	fn := map[string]string{"": "TRIM", "BOTH": "TRIM", "LEADING": "LTRIM", "TRAILING": "RTRIM"}[mode]
	if isKw(p.peek(), "FROM") {
		p.next()
		s, err := p.parseLastArg()
		if err != nil {
			return nil, err
		}
		text := nameTok.text + "(" + strings.TrimSpace(mode+" FROM ") + " " + s.String() + ")"
		return &Call{Name: fn, Args: []Node{s}, Text: text, Off: nameTok.off}, nil
	}
	e, err := p.parseExpr(0)
	if err != nil {
		return nil, err
	}
	if isKw(p.peek(), "FROM") {
		p.next()
		s, err := p.parseLastArg()
		if err != nil {
			return nil, err
		}
		text := nameTok.text + "(" + strings.TrimSpace(mode+" "+e.String()) + " FROM " + s.String() + ")"
		return &Call{Name: fn, Args: []Node{s, e}, Text: text, Off: nameTok.off}, nil
	}
	if mode != "" {
		return nil, p.unexpected(p.peek(), "FROM")
	}
	args, err := p.parseListRest([]Node{e})
	if err != nil {
		return nil, err
	}
	return &Call{Name: nameTok.text, Args: args, Off: nameTok.off}, nil
}

func (p *parser) parseTypeName() (TypeName, *Error) {
	t := p.peek()
	if t.kind != tIdent && t.kind != tQIdent {
		return TypeName{}, p.unexpected(t, "a type name")
	}
	p.next()
	tn := TypeName{Name: t.text, Off: t.off}
	// two-word names
	if up := strings.ToUpper(t.text); up == "DOUBLE" && isKw(p.peek(), "PRECISION") {
		p.next()
	} else if (up == "CHARACTER" || up == "CHAR") && isKw(p.peek(), "VARYING") {
		p.next()
		tn.Name = "VARCHAR"
	}
	if isOp(p.peek(), "(") {
		p.next()
		for {
			n := p.peek()
			if n.kind != tNumber {
				return TypeName{}, p.unexpected(n, "a number")
			}
			v, err := strconv.Atoi(n.text)
			if err != nil || v > 1<<20 {
				return TypeName{}, p.errorf(n.off, "%q is not a valid type argument", n.text)
			}
			p.next()
			tn.Args = append(tn.Args, v)
			if isOp(p.peek(), ",") {
				p.next()
				continue
			}
			if _, err := p.expectOp(")"); err != nil {
				return TypeName{}, err
			}
			break
		}
	}
	return tn, nil
}
