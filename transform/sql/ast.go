package sql

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Node is an expression of the query as written. Every node knows the byte offset where it
// starts, for error messages, and prints itself back as SQL text: that text names output
// columns that have no alias, as SeaTunnel names them.
type Node interface {
	Pos() int
	String() string
}

// Select is the one statement of the dialect: SELECT items FROM table [WHERE condition].
type Select struct {
	Items     []*SelectItem
	From      string // the table name as written
	FromAlias string
	FromOff   int
	Where     Node
}

// SelectItem is `*`, `t.*` or an expression with an optional alias.
type SelectItem struct {
	Star      bool
	Qualifier string // t in t.*
	Expr      Node
	Alias     string
	Off       int
}

// ColumnRef is a name, possibly dotted: col, t.col, c_row.c_inner.f, c_map.key.
type ColumnRef struct {
	Parts []string
	Off   int
}

// NumberLit is a numeric literal, kept as written.
type NumberLit struct {
	Text string
	Off  int
}

// StringLit is a character string literal; Value has the quotes removed.
type StringLit struct {
	Value string
	Off   int
}

// NullLit is NULL.
type NullLit struct{ Off int }

// BoolLit is TRUE or FALSE.
type BoolLit struct {
	Value bool
	Off   int
}

// TypedLit is DATE '2024-01-31', TIME '12:00:00' or TIMESTAMP '2024-01-31 12:00:00'.
type TypedLit struct {
	Type  string // DATE, TIME, TIMESTAMP
	Value string
	Off   int
}

// Unary is -x, +x or NOT x.
type Unary struct {
	Op  string // "-", "+", "NOT"
	X   Node
	Off int
}

// Binary is an arithmetic, concatenation, comparison or logical operator.
type Binary struct {
	Op   string // + - * / % || = <> < <= > >= AND OR; != is kept as written in Text
	Text string // the operator as written
	L, R Node
	Off  int // where the operator is
}

// IsNull is x IS [NOT] NULL.
type IsNull struct {
	X   Node
	Not bool
	Off int
}

// In is x [NOT] IN (a, b, ...).
type In struct {
	X    Node
	List []Node
	Not  bool
	Off  int
}

// Like is x [NOT] LIKE pattern [ESCAPE e].
type Like struct {
	X, Pattern, Escape Node
	Not                bool
	Off                int
}

// Between is x [NOT] BETWEEN lo AND hi.
type Between struct {
	X, Lo, Hi Node
	Not       bool
	Off       int
}

// When is one WHEN ... THEN ... branch.
type When struct {
	Cond, Then Node
}

// Case is CASE [operand] WHEN ... THEN ... [ELSE ...] END.
type Case struct {
	Operand Node
	Whens   []When
	Else    Node
	Off     int
}

// TypeName is the target of a CAST: a name and optional numeric arguments.
type TypeName struct {
	Name string
	Args []int
	Off  int
}

func (t TypeName) String() string {
	if len(t.Args) == 0 {
		return t.Name
	}
	parts := make([]string, len(t.Args))
	for i, a := range t.Args {
		parts[i] = strconv.Itoa(a)
	}
	return t.Name + "(" + strings.Join(parts, ", ") + ")"
}

// Cast is CAST(x AS type).
type Cast struct {
	X    Node
	Type TypeName
	Off  int
}

// Extract is EXTRACT(field FROM x).
type Extract struct {
	Field string
	X     Node
	Off   int
}

// Call is a function call name(args).
type Call struct {
	Name string // as written
	Args []Node
	Star bool // name(*)
	// Text, when set, is how the call prints (TRIM(BOTH 'x' FROM s) and friends).
	Text string
	Off  int
}

// TimeKey is CURRENT_DATE, CURRENT_TIME or CURRENT_TIMESTAMP written without parentheses.
type TimeKey struct {
	Name string
	Off  int
}

// Paren is a parenthesised expression; it is kept so that the text of an unnamed column
// reads as written.
type Paren struct {
	X   Node
	Off int
}

func (n *ColumnRef) Pos() int { return n.Off }
func (n *NumberLit) Pos() int { return n.Off }
func (n *StringLit) Pos() int { return n.Off }
func (n *NullLit) Pos() int   { return n.Off }
func (n *BoolLit) Pos() int   { return n.Off }
func (n *TypedLit) Pos() int  { return n.Off }
func (n *Unary) Pos() int     { return n.Off }
func (n *Binary) Pos() int    { return n.L.Pos() }
func (n *IsNull) Pos() int    { return n.X.Pos() }
func (n *In) Pos() int        { return n.X.Pos() }
func (n *Like) Pos() int      { return n.X.Pos() }
func (n *Between) Pos() int   { return n.X.Pos() }
func (n *Case) Pos() int      { return n.Off }
func (n *Cast) Pos() int      { return n.Off }
func (n *Extract) Pos() int   { return n.Off }
func (n *Call) Pos() int      { return n.Off }
func (n *TimeKey) Pos() int   { return n.Off }
func (n *Paren) Pos() int     { return n.Off }

func (n *ColumnRef) String() string {
	parts := make([]string, len(n.Parts))
	for i, p := range n.Parts {
		parts[i] = quoteName(p)
	}
	return strings.Join(parts, ".")
}

// quoteName writes a name so that it reads back as the same name.
func quoteName(s string) string {
	plain := s != ""
	for i, r := range s {
		switch {
		case r >= utf8.RuneSelf:
			plain = plain && isIdentRune(s[i:])
		case i == 0:
			plain = plain && isIdentStart(byte(r))
		default:
			plain = plain && isIdentPart(byte(r))
		}
	}
	if plain && !isReserved(s) {
		return s
	}
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

func (n *NumberLit) String() string { return n.Text }
func (n *StringLit) String() string { return quoteString(n.Value) }
func (n *NullLit) String() string   { return "NULL" }
func (n *BoolLit) String() string {
	if n.Value {
		return "TRUE"
	}
	return "FALSE"
}
func (n *TypedLit) String() string { return n.Type + " " + quoteString(n.Value) }

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func (n *Unary) String() string {
	if n.Op == "NOT" {
		return "NOT " + n.X.String()
	}
	return n.Op + n.X.String()
}

func (n *Binary) String() string { return n.L.String() + " " + n.Text + " " + n.R.String() }

func (n *IsNull) String() string {
	if n.Not {
		return n.X.String() + " IS NOT NULL"
	}
	return n.X.String() + " IS NULL"
}

func (n *In) String() string {
	var b strings.Builder
	b.WriteString(n.X.String())
	if n.Not {
		b.WriteString(" NOT")
	}
	b.WriteString(" IN (")
	writeList(&b, n.List)
	b.WriteByte(')')
	return b.String()
}

func writeList(b *strings.Builder, list []Node) {
	for i, a := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.String())
	}
}

func (n *Like) String() string {
	s := n.X.String()
	if n.Not {
		s += " NOT"
	}
	s += " LIKE " + n.Pattern.String()
	if n.Escape != nil {
		s += " ESCAPE " + n.Escape.String()
	}
	return s
}

func (n *Between) String() string {
	s := n.X.String()
	if n.Not {
		s += " NOT"
	}
	return s + " BETWEEN " + n.Lo.String() + " AND " + n.Hi.String()
}

func (n *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE ")
	if n.Operand != nil {
		b.WriteString(n.Operand.String())
		b.WriteByte(' ')
	}
	for i, w := range n.Whens {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("WHEN ")
		b.WriteString(w.Cond.String())
		b.WriteString(" THEN ")
		b.WriteString(w.Then.String())
	}
	if n.Else != nil {
		b.WriteString(" ELSE ")
		b.WriteString(n.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}

func (n *Cast) String() string { return "CAST(" + n.X.String() + " AS " + n.Type.String() + ")" }

func (n *Extract) String() string { return "EXTRACT(" + n.Field + " FROM " + n.X.String() + ")" }

func (n *Call) String() string {
	if n.Text != "" {
		return n.Text
	}
	var b strings.Builder
	b.WriteString(n.Name)
	b.WriteByte('(')
	if n.Star {
		b.WriteByte('*')
	}
	writeList(&b, n.Args)
	b.WriteByte(')')
	return b.String()
}

func (n *TimeKey) String() string { return n.Name }
func (n *Paren) String() string   { return "(" + n.X.String() + ")" }

// String prints the statement back as SQL.
func (s *Select) String() string {
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, it := range s.Items {
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case it.Star && it.Qualifier != "":
			b.WriteString(quoteName(it.Qualifier) + ".*")
		case it.Star:
			b.WriteByte('*')
		default:
			b.WriteString(it.Expr.String())
			if it.Alias != "" {
				b.WriteString(" AS ")
				b.WriteString(quoteName(it.Alias))
			}
		}
	}
	b.WriteString(" FROM ")
	b.WriteString(quoteName(s.From))
	if s.FromAlias != "" {
		b.WriteString(" AS " + quoteName(s.FromAlias))
	}
	if s.Where != nil {
		b.WriteString(" WHERE ")
		b.WriteString(s.Where.String())
	}
	return b.String()
}
