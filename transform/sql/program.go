package sql

import (
	"fmt"
	"time"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// Program is a query compiled against one input row type: the output columns, the WHERE
// predicate and one evaluation function per output column. Programs are not safe for
// concurrent use: each transform instance compiles its own.
type Program struct {
	query string
	sel   *Select
	in    *types.RowType
	out   *types.RowType
	// per output column: the input column it copies unchanged (-1 when computed) and, for
	// computed columns, its evaluation and text
	items []item
	where predFn
	wsel  selFn // the WHERE clause over a batch
	// identity: the output row is the input row (SELECT * alone)
	identity bool
	// moves: copied or computed values may be arrays, maps or rows that live in the input
	// batch's arena, so they are copied out before the input is released
	moves bool
	// inPlace: the output is no wider than the input, so rows are rewritten in their own
	// fields; items that would overwrite a column a later item reads go through scratch
	inPlace bool
	scratch []row.Value
	late    []int // items written from scratch after the others
	fr      frame
}

type item struct {
	col    int
	eval   evalFn
	text   string
	reads  []bool // input columns the item reads
	direct bool   // in place: written straight into its output position
	skip   bool   // in place: the output position already holds the value
	kern   kernFn // the item over a batch, when it has a loop of its own
}

// Compile parses and type-checks a query against the input row type. qualifiers are the
// names that may prefix a column (the input table's name, the dataset name); the FROM name
// and its alias always may.
func Compile(query string, in *types.RowType, qualifiers ...string) (*Program, error) {
	sel, err := Parse(query)
	if err != nil {
		return nil, err
	}
	return compileSelect(query, sel, in, qualifiers)
}

func compileSelect(query string, sel *Select, in *types.RowType, qualifiers []string) (p *Program, err error) {
	defer func() {
		// a malformed input type must not bring the planner down
		if r := recover(); r != nil {
			p, err = nil, &Error{Line: 1, Col: 1, Msg: fmt.Sprintf("internal error compiling the query: %v", r)}
		}
	}()
	return compileProgram(query, sel, in, qualifiers)
}

func compileProgram(query string, sel *Select, in *types.RowType, qualifiers []string) (*Program, error) {
	c := &compiler{src: query, input: in, reads: make([]bool, in.Len())}
	c.qualifiers = append(c.qualifiers, sel.From)
	if sel.FromAlias != "" {
		c.qualifiers = append(c.qualifiers, sel.FromAlias)
	}
	c.qualifiers = append(c.qualifiers, qualifiers...)
	p := &Program{query: query, sel: sel, in: in, out: &types.RowType{}}
	seen := map[string]int{}
	add := func(name string, t types.DataType, it item, off int) *Error {
		if prev, dup := seen[name]; dup {
			return errAt(query, off, "duplicate output column %q (also column %d); give one of them another name with AS", name, prev+1)
		}
		seen[name] = len(p.items)
		p.out.Names = append(p.out.Names, name)
		p.out.Types = append(p.out.Types, t)
		p.items = append(p.items, it)
		if isComposite(t.Kind) {
			p.moves = true
		}
		return nil
	}
	for _, si := range sel.Items {
		if si.Star {
			if si.Qualifier != "" && !c.isQualifier(si.Qualifier) {
				return nil, errAt(query, si.Off, "unknown table %q", si.Qualifier)
			}
			for i, name := range in.Names {
				reads := make([]bool, in.Len())
				reads[i] = true
				if err := add(name, in.Types[i], item{col: i, text: name, reads: reads}, si.Off); err != nil {
					return nil, err
				}
			}
			continue
		}
		clear(c.reads)
		e, err := c.compile(si.Expr)
		if err != nil {
			return nil, err
		}
		name := si.Alias
		if name == "" {
			if cr, ok := si.Expr.(*ColumnRef); ok {
				name = cr.Parts[len(cr.Parts)-1]
			} else {
				name = si.Expr.String()
			}
		}
		it := item{col: -1, eval: e.eval, text: si.Expr.String(), reads: append([]bool(nil), c.reads...), kern: kernOf(e)}
		if e.ref > 0 {
			it.col = e.ref - 1
		}
		if err := add(name, e.t, it, si.Off); err != nil {
			return nil, err
		}
	}
	if sel.Where != nil {
		w, err := c.compile(sel.Where)
		if err != nil {
			return nil, err
		}
		if k := w.kind(); k != types.Boolean && k != types.Null {
			return nil, c.errf(sel.Where, "WHERE needs a condition, %s is %s", sel.Where.String(), w.t)
		}
		if !(w.isConst && w.cv.T == types.Boolean && w.cv.I != 0) {
			p.where = w.pred
			p.wsel = selOf(w)
		}
	}
	p.identity = len(p.items) == in.Len()
	for i, it := range p.items {
		if it.col != i {
			p.identity = false
		}
	}
	p.planInPlace()
	return p, nil
}

// planInPlace decides how rows are rewritten in their own fields: item j goes straight to
// position j unless a later item reads input column j, in which case it waits in scratch.
func (p *Program) planInPlace() {
	if len(p.items) > p.in.Len() {
		return
	}
	p.inPlace = true
	p.scratch = make([]row.Value, len(p.items))
	for j := range p.items {
		it := &p.items[j]
		it.skip = it.col == j
		it.direct = true
		for k := j + 1; k < len(p.items); k++ {
			if p.items[k].reads[j] {
				it.direct = false
				break
			}
		}
		if !it.skip && !it.direct {
			p.late = append(p.late, j)
		}
	}
}

// Output is the row type of the rows the program makes.
func (p *Program) Output() *types.RowType { return p.out }

// SourceColumn returns the input column output column i copies unchanged, or -1.
func (p *Program) SourceColumn(i int) int { return p.items[i].col }

// RowError is a failure while evaluating a row: which column (or the WHERE clause) and why.
type RowError struct {
	Expr string
	Err  error
}

func (e *RowError) Error() string { return fmt.Sprintf("evaluating %s: %v", e.Expr, e.Err) }
func (e *RowError) Unwrap() error { return e.Err }

// Eval evaluates the program on one row's fields: keep reports whether the WHERE clause
// keeps the row; out receives the output values when it does (len(out) == output width).
func (p *Program) Eval(fields []row.Value, out []row.Value) (keep bool, err error) {
	fr := &p.fr
	fr.fields = fields
	fr.now = time.Time{}
	fr.err = nil
	if p.where != nil {
		keep := p.where(fr)
		if fr.err != nil {
			return false, &RowError{Expr: "WHERE " + clip(p.sel.Where.String()), Err: fr.err}
		}
		if !keep {
			return false, nil
		}
	}
	if j := p.evalItems(out); j >= 0 {
		return false, &RowError{Expr: clip(p.items[j].text), Err: fr.err}
	}
	return true, nil
}

// evalItems writes the output values of the row in the frame to out, and returns the index
// of the item whose evaluation failed (the frame holds the error), or -1.
func (p *Program) evalItems(out []row.Value) int {
	fr := &p.fr
	for j := range p.items {
		it := &p.items[j]
		if it.col >= 0 {
			out[j] = fr.fields[it.col]
			continue
		}
		out[j] = it.eval(fr)
		if fr.err != nil {
			return j
		}
	}
	return -1
}
