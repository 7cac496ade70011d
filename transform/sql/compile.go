package sql

import (
	"cmp"
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// compiler turns the parsed query into typed evaluation functions against one input row type.
type compiler struct {
	src        string
	input      *types.RowType
	qualifiers []string // names that may prefix a column: the FROM name, its alias, the table
	depth      int
	reads      []bool // the input columns the expression being compiled reads
}

func (c *compiler) errf(n Node, format string, args ...any) *Error {
	off := 0
	if n != nil {
		off = n.Pos()
	}
	return errAt(c.src, off, format, args...)
}

func (c *compiler) errAtOff(off int, format string, args ...any) *Error {
	return errAt(c.src, off, format, args...)
}

// maxCompileDepth bounds the depth of the expression tree (long chains of a + b + ... are
// deep on one side).
const maxCompileDepth = 10000

var (
	errDivZero = errors.New("division by zero")
	errModZero = errors.New("mod by zero")
)

// compile compiles one expression.
func (c *compiler) compile(n Node) (*expr, *Error) {
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > maxCompileDepth {
		return nil, c.errf(n, "expression nested too deeply")
	}
	switch n := n.(type) {
	case *Paren:
		e, err := c.compile(n.X)
		if err != nil {
			return nil, err
		}
		cp := *e
		cp.node = n
		return &cp, nil
	case *ColumnRef:
		return c.column(n)
	case *NumberLit:
		return c.number(n)
	case *StringLit:
		return constExpr(types.Of(types.String), row.StringValue(n.Value), n), nil
	case *NullLit:
		return constExpr(types.Of(types.Null), row.Value{}, n), nil
	case *BoolLit:
		return constExpr(types.Of(types.Boolean), row.BoolValue(n.Value), n), nil
	case *TypedLit:
		return c.typedLiteral(n)
	case *Unary:
		return c.unary(n)
	case *Binary:
		return c.binary(n)
	case *IsNull:
		x, err := c.compile(n.X)
		if err != nil {
			return nil, err
		}
		ev, not := x.eval, n.Not
		var p predFn
		switch {
		case x.sg != nil && isStrRep(x.kind()):
			sg := x.sg
			p = func(fr *frame) bool { _, ok := sg(fr); return ok == not }
		case x.ig != nil && isIntRep(x.kind()):
			ig := x.ig
			p = func(fr *frame) bool { _, ok := ig(fr); return ok == not }
		default:
			p = func(fr *frame) bool { return (ev(fr).T != types.Null) == not }
		}
		e := predExpr(p, n, x)
		if x.ref > 0 {
			col := x.ref - 1
			e.selv = func(_ *frame, rows []row.Row, sel []int32) []int32 {
				k := 0
				for _, i := range sel {
					if (rows[i].Fields[col].T != types.Null) == not {
						sel[k] = i
						k++
					}
				}
				return sel[:k]
			}
		}
		return c.fold(e, x)
	case *In:
		return c.in(n)
	case *Like:
		return c.like(n)
	case *Between:
		return c.between(n)
	case *Case:
		return c.caseExpr(n)
	case *Cast:
		return c.cast(n)
	case *Extract:
		return c.extract(n)
	case *Call:
		return c.call(n)
	case *TimeKey:
		return c.call(&Call{Name: n.Name, Off: n.Off, Text: n.Name})
	}
	return nil, c.errf(n, "unsupported expression %s", n.String())
}

// predExpr wraps a predicate as a boolean expression.
func predExpr(p predFn, n Node, args ...*expr) *expr {
	return (&expr{t: types.Of(types.Boolean), pred: p, node: n, volatile: anyVolatile(args)}).complete()
}

// ---- names ----

func (c *compiler) column(n *ColumnRef) (*expr, *Error) {
	if e, ok, err := c.resolvePath(n, n.Parts); ok || err != nil {
		return e, err
	}
	// a table qualifier: fake.id, t.c_row.f
	if len(n.Parts) > 1 {
		for _, q := range c.qualifiers {
			if strings.EqualFold(q, n.Parts[0]) {
				if e, ok, err := c.resolvePath(n, n.Parts[1:]); ok || err != nil {
					return e, err
				}
			}
		}
		if c.input.Index(n.Parts[0]) < 0 && c.findFold(n.Parts[0]) < 0 && !c.isQualifier(n.Parts[0]) {
			return nil, c.errf(n, "unknown column or table %q", n.Parts[0])
		}
	}
	return nil, c.errf(n, "unknown column %q", n.String())
}

func (c *compiler) isQualifier(s string) bool {
	for _, q := range c.qualifiers {
		if strings.EqualFold(q, s) {
			return true
		}
	}
	return false
}

// findFold finds a top-level column whose name differs only in case, if exactly one does.
func (c *compiler) findFold(name string) int {
	found := -1
	for i, f := range c.input.Names {
		if strings.EqualFold(f, name) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// resolvePath resolves col[.field...][.mapkey] from the top-level columns. ok is false when
// the first part names no column.
func (c *compiler) resolvePath(n *ColumnRef, parts []string) (*expr, bool, *Error) {
	idx := c.input.Index(parts[0])
	if idx < 0 {
		idx = c.findFold(parts[0])
	}
	if idx < 0 {
		return nil, false, nil
	}
	if c.reads != nil {
		c.reads[idx] = true
	}
	t := c.input.Types[idx]
	if len(parts) == 1 {
		return columnExpr(idx, t, n), true, nil
	}
	// walk nested rows, then at most one map key at the end
	type step struct {
		field int    // >= 0: row field
		key   string // map key otherwise
	}
	var steps []step
	for i := 1; i < len(parts); i++ {
		switch {
		case t.Kind == types.Row && t.Row == nil, t.Kind == types.Map && t.Elem == nil:
			return nil, true, c.errf(n, "%s has an incomplete type %s", strings.Join(parts[:i], "."), t)
		}
		switch t.Kind {
		case types.Row:
			fi := t.Row.Index(parts[i])
			if fi < 0 {
				return nil, true, c.errf(n, "unknown field %q in %s", parts[i], strings.Join(parts[:i], "."))
			}
			steps = append(steps, step{field: fi})
			t = t.Row.Types[fi]
		case types.Map:
			if i != len(parts)-1 {
				return nil, true, c.errf(n, "a map value can only be read by one key at the end of the name: %s", n.String())
			}
			steps = append(steps, step{field: -1, key: parts[i]})
			t = *t.Elem
		default:
			return nil, true, c.errf(n, "%s is a %s, it has no field %q", strings.Join(parts[:i], "."), t, parts[i])
		}
	}
	e := &expr{t: t, node: n}
	e.eval = func(fr *frame) row.Value {
		v := fr.fields[idx]
		for _, s := range steps {
			if s.field >= 0 {
				if v.T != types.Row {
					return row.Value{}
				}
				fs := v.Fields()
				if s.field >= len(fs) {
					return row.Value{}
				}
				v = fs[s.field]
				continue
			}
			if v.T != types.Map {
				return row.Value{}
			}
			m := v.Map()
			if m == nil {
				return row.Value{}
			}
			v = row.Value{}
			for k := range m.Keys[:min(len(m.Keys), len(m.Vals))] {
				if key := m.Keys[k]; key.T == types.String && key.S == s.key || key.T != types.String && key.T != types.Null && text(key) == s.key {
					v = m.Vals[k]
					break
				}
			}
		}
		return v
	}
	return e.complete(), true, nil
}

// ---- literals ----

func (c *compiler) number(n *NumberLit) (*expr, *Error) {
	s := n.Text
	if !strings.ContainsAny(s, ".eE") {
		v, err := strconv.ParseInt(s, 10, 64)
		if err == nil {
			if v >= math.MinInt32 && v <= math.MaxInt32 {
				return constExpr(types.Of(types.Int), row.IntValue(int32(v)), n), nil
			}
			return constExpr(types.Of(types.BigInt), row.BigIntValue(v), n), nil
		}
		u, ok := new(big.Int).SetString(s, 10)
		if !ok || len(s) > 38 {
			return nil, c.errf(n, "number %s is out of range", s)
		}
		return constExpr(types.DecimalOf(len(strings.TrimLeft(s, "0")), 0), decimalOf(u, 0), n), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, c.errf(n, "number %s is out of range", s)
	}
	return constExpr(types.Of(types.Double), row.DoubleValue(f), n), nil
}

func (c *compiler) typedLiteral(n *TypedLit) (*expr, *Error) {
	switch n.Type {
	case "DATE":
		d, err := parseISODate(n.Value)
		if err != nil {
			return nil, c.errf(n, "invalid DATE literal %s: %v", quoteString(n.Value), err)
		}
		return constExpr(types.Of(types.Date), row.DateValue(d), n), nil
	case "TIME":
		t, err := parseISOTime(n.Value)
		if err != nil {
			return nil, c.errf(n, "invalid TIME literal %s: %v", quoteString(n.Value), err)
		}
		return constExpr(types.Of(types.Time), row.TimeValue(t), n), nil
	default:
		ts, err := parseISOTimestamp(n.Value)
		if err != nil {
			return nil, c.errf(n, "invalid TIMESTAMP literal %s: %v", quoteString(n.Value), err)
		}
		return constExpr(types.Of(types.Timestamp), row.TimestampValue(ts), n), nil
	}
}

// ---- unary and binary operators ----

func (c *compiler) unary(n *Unary) (*expr, *Error) {
	x, err := c.compile(n.X)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case "NOT":
		if x.kind() != types.Boolean && x.kind() != types.Null {
			return nil, c.errf(n.X, "NOT needs a condition, %s is %s", n.X.String(), x.t)
		}
		p := x.pred
		return c.fold(predExpr(func(fr *frame) bool { return !p(fr) }, n, x), x)
	case "+":
		if !x.t.Kind.IsNumeric() && x.kind() != types.Null {
			return nil, c.errf(n, "unary + needs a number, %s is %s", n.X.String(), x.t)
		}
		cp := *x
		cp.node = n
		return &cp, nil
	}
	// negation keeps the type
	k := x.kind()
	e := &expr{t: x.t, node: n, volatile: x.volatile}
	switch k {
	case types.Null:
		return constExpr(x.t, row.Value{}, n), nil
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		ig := x.ig
		e.ig = func(fr *frame) (int64, bool) {
			v, ok := ig(fr)
			return wrapInt(k, -v), ok
		}
	case types.Float, types.Double:
		fg := x.fg
		e.fg = func(fr *frame) (float64, bool) {
			v, ok := fg(fr)
			return -v, ok
		}
	case types.Decimal:
		ev := x.eval
		e.eval = func(fr *frame) row.Value {
			v := ev(fr)
			if v.T != types.Decimal || v.Unscaled() == nil {
				return row.Value{}
			}
			return decimalOf(new(big.Int).Neg(v.Unscaled()), int(v.I))
		}
	default:
		return nil, c.errf(n, "unary - needs a number, %s is %s", n.X.String(), x.t)
	}
	return c.fold(e.complete(), x)
}

// wrapInt truncates an integer result to the width of its type, as Java's arithmetic wraps.
func wrapInt(k types.Kind, v int64) int64 {
	switch k {
	case types.TinyInt:
		return int64(int8(v))
	case types.SmallInt:
		return int64(int16(v))
	case types.Int:
		return int64(int32(v))
	}
	return v
}

// compile2 compiles two operands, the first first.
func (c *compiler) compile2(a, b Node) (*expr, *expr, *Error) {
	x, err := c.compile(a)
	if err != nil {
		return nil, nil, err
	}
	y, err := c.compile(b)
	if err != nil {
		return nil, nil, err
	}
	return x, y, nil
}

func (c *compiler) binary(n *Binary) (*expr, *Error) {
	l, r, err := c.compile2(n.L, n.R)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case "AND", "OR":
		for i, x := range []*expr{l, r} {
			if x.kind() != types.Boolean && x.kind() != types.Null {
				side := n.L
				if i == 1 {
					side = n.R
				}
				return nil, c.errf(side, "%s needs conditions on both sides, %s is %s", n.Op, side.String(), x.t)
			}
		}
		lp, rp := l.pred, r.pred
		var p predFn
		if n.Op == "AND" {
			p = func(fr *frame) bool { return lp(fr) && rp(fr) }
		} else {
			p = func(fr *frame) bool { return lp(fr) || rp(fr) }
		}
		e := predExpr(p, n, l, r)
		if n.Op == "AND" {
			e.selv = andSel(selOf(l), selOf(r))
		}
		return c.fold(e, l, r)
	case "=", "<>", "<", "<=", ">", ">=":
		return c.compare(n, n.Op, l, r)
	case "||":
		return c.concat(n, []*expr{l, r})
	}
	return c.arith(n, l, r)
}

// arithType is the result type of l op r, as SeaTunnel types it: small integers give int,
// bigint with an integer gives bigint, any decimal gives decimal(max precision, max scale),
// any float or double gives double.
func arithType(l, r types.DataType) (types.DataType, bool) {
	lk, rk := l.Kind, r.Kind
	if lk == types.Null {
		if rk == types.Null || rk.IsNumeric() {
			return r, true
		}
		return r, false
	}
	if rk == types.Null {
		return l, lk.IsNumeric()
	}
	if !lk.IsNumeric() || !rk.IsNumeric() {
		return types.DataType{}, false
	}
	small := func(k types.Kind) bool { return k == types.TinyInt || k == types.SmallInt || k == types.Int }
	switch {
	case small(lk) && small(rk):
		return types.Of(types.Int), true
	case lk.IsInteger() && rk.IsInteger():
		return types.Of(types.BigInt), true
	case lk == types.Decimal || rk == types.Decimal:
		p, s := 0, 0
		if lk == types.Decimal {
			p, s = l.Precision, l.Scale
		}
		if rk == types.Decimal {
			p, s = max(p, r.Precision), max(s, r.Scale)
		}
		return types.DecimalOf(p, s), true
	}
	return types.Of(types.Double), true
}

func (c *compiler) arith(n *Binary, l, r *expr) (*expr, *Error) {
	rt, ok := arithType(l.t, r.t)
	if !ok {
		return nil, c.errAtOff(n.Off, "operator %s cannot be applied to %s and %s", n.Text, l.t, r.t)
	}
	if l.kind() == types.Null || r.kind() == types.Null || l.isConst && l.cv.T == types.Null || r.isConst && r.cv.T == types.Null {
		return constExpr(rt, row.Value{}, n), nil
	}
	op := n.Op[0]
	var e *expr
	switch rt.Kind {
	case types.Int, types.BigInt:
		e = intArith(op, rt.Kind, l, r)
	case types.Double:
		e = floatArith(op, l, r)
	default:
		e = decimalArith(op, rt, l, r)
	}
	e.node = n
	e.volatile = l.volatile || r.volatile
	return c.fold(e.complete(), l, r)
}

// intCalc applies op; wrap truncates to 32 bits.
func intCalc(fr *frame, op byte, a, b int64, wrap bool) (int64, bool) {
	var x int64
	switch op {
	case '+':
		x = a + b
	case '-':
		x = a - b
	case '*':
		x = a * b
	case '/':
		if b == 0 {
			fr.fail(errDivZero)
			return 0, false
		}
		if wrap {
			x = int64(int32(a) / int32(b))
		} else {
			x = a / b
		}
	case '%':
		if b == 0 {
			fr.fail(errDivZero)
			return 0, false
		}
		if wrap {
			x = int64(int32(a) % int32(b))
		} else {
			x = a % b
		}
	}
	if wrap {
		x = int64(int32(x))
	}
	return x, true
}

func intArith(op byte, k types.Kind, l, r *expr) *expr {
	e := &expr{t: types.Of(k)}
	wrap := k == types.Int
	lg, rg := l.ig, r.ig
	if r.isConst && (r.cv.I != 0 || op != '/' && op != '%') {
		cst := r.cv.I
		if l.ref > 0 {
			i := l.ref - 1
			e.cop = newColOp(i, op, cst, k)
			switch op {
			case '+':
				e.ig = func(fr *frame) (int64, bool) {
					v := &fr.fields[i]
					if wrap {
						return int64(int32(v.I + cst)), v.T != types.Null
					}
					return v.I + cst, v.T != types.Null
				}
			case '-':
				e.ig = func(fr *frame) (int64, bool) {
					v := &fr.fields[i]
					if wrap {
						return int64(int32(v.I - cst)), v.T != types.Null
					}
					return v.I - cst, v.T != types.Null
				}
			case '*':
				e.ig = func(fr *frame) (int64, bool) {
					v := &fr.fields[i]
					if wrap {
						return int64(int32(v.I * cst)), v.T != types.Null
					}
					return v.I * cst, v.T != types.Null
				}
			case '%':
				e.ig = func(fr *frame) (int64, bool) {
					v := &fr.fields[i]
					if v.T == types.Null {
						return 0, false
					}
					if wrap {
						return int64(int32(v.I) % int32(cst)), true
					}
					return v.I % cst, true
				}
			case '/':
				e.ig = func(fr *frame) (int64, bool) {
					v := &fr.fields[i]
					if v.T == types.Null {
						return 0, false
					}
					if wrap {
						return int64(int32(v.I) / int32(cst)), true
					}
					return v.I / cst, true
				}
			}
			return e
		}
		e.ig = func(fr *frame) (int64, bool) {
			a, ok := lg(fr)
			if !ok {
				return 0, false
			}
			return intCalc(fr, op, a, cst, wrap)
		}
		return e
	}
	e.ig = func(fr *frame) (int64, bool) {
		a, b, ok := both(fr, lg, rg)
		if !ok {
			return 0, false
		}
		return intCalc(fr, op, a, b, wrap)
	}
	return e
}

func floatCalc(op byte, a, b float64) float64 {
	switch op {
	case '+':
		return a + b
	case '-':
		return a - b
	case '*':
		return a * b
	case '/':
		return a / b
	}
	return math.Mod(a, b)
}

func floatArith(op byte, l, r *expr) *expr {
	e := &expr{t: types.Of(types.Double)}
	lg, rg := l.fg, r.fg
	if r.isConst {
		cst, _ := r.cv.AsFloat64()
		if l.ref > 0 && l.kind() == types.Double && op != '%' {
			i := l.ref - 1
			e.cop = &colOp{col: i, op: op, f: cst, kind: types.Double}
			switch op {
			case '+':
				e.fg = func(fr *frame) (float64, bool) {
					v := &fr.fields[i]
					return math.Float64frombits(uint64(v.I)) + cst, v.T != types.Null
				}
			case '-':
				e.fg = func(fr *frame) (float64, bool) {
					v := &fr.fields[i]
					return math.Float64frombits(uint64(v.I)) - cst, v.T != types.Null
				}
			case '*':
				e.fg = func(fr *frame) (float64, bool) {
					v := &fr.fields[i]
					return math.Float64frombits(uint64(v.I)) * cst, v.T != types.Null
				}
			default:
				e.fg = func(fr *frame) (float64, bool) {
					v := &fr.fields[i]
					return math.Float64frombits(uint64(v.I)) / cst, v.T != types.Null
				}
			}
			e.eval = func(fr *frame) row.Value {
				v := &fr.fields[i]
				if v.T == types.Null {
					return row.Value{}
				}
				return row.Value{T: types.Double, I: int64(math.Float64bits(floatCalc(op, math.Float64frombits(uint64(v.I)), cst)))}
			}
			return e
		}
		e.fg = func(fr *frame) (float64, bool) {
			a, ok := lg(fr)
			if !ok {
				return 0, false
			}
			return floatCalc(op, a, cst), true
		}
		return e
	}
	e.fg = func(fr *frame) (float64, bool) {
		a, b, ok := both(fr, lg, rg)
		if !ok {
			return 0, false
		}
		return floatCalc(op, a, b), true
	}
	return e
}

func decimalArith(op byte, rt types.DataType, l, r *expr) *expr {
	le, re := l.eval, r.eval
	scale := rt.Scale
	e := &expr{t: rt}
	e.eval = func(fr *frame) row.Value {
		a, b := le(fr), re(fr)
		if a.T == types.Null || b.T == types.Null {
			return row.Value{}
		}
		ua, sa, ub, sb, err := toDecimals(a, b)
		if err != nil {
			fr.fail(err)
			return row.Value{}
		}
		v, err := decimalCalc(op, ua, sa, ub, sb, scale)
		if err != nil {
			fr.fail(err)
			return row.Value{}
		}
		return v
	}
	return e
}

// decimalCalc computes a op b exactly and rounds the result to scale: half up for + - * %,
// away from zero for / (as SeaTunnel divides with RoundingMode.UP).
func decimalCalc(op byte, ua *big.Int, sa int, ub *big.Int, sb int, scale int) (row.Value, error) {
	s := max(sa, sb)
	a := rescale(ua, sa, s, halfUp)
	b := rescale(ub, sb, s, halfUp)
	switch op {
	case '+':
		return decimalOf(rescale(new(big.Int).Add(a, b), s, scale, halfUp), scale), nil
	case '-':
		return decimalOf(rescale(new(big.Int).Sub(a, b), s, scale, halfUp), scale), nil
	case '*':
		return decimalOf(rescale(new(big.Int).Mul(a, b), 2*s, scale, halfUp), scale), nil
	case '/':
		if b.Sign() == 0 {
			return row.Value{}, errDivZero
		}
		// a/b at the target scale: a * 10^scale / b, rounded away from zero
		num := new(big.Int).Mul(a, pow10Big(scale))
		q, m := new(big.Int).QuoRem(num, b, new(big.Int))
		if m.Sign() != 0 {
			if (num.Sign() < 0) != (b.Sign() < 0) {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
		return decimalOf(q, scale), nil
	}
	if b.Sign() == 0 {
		return row.Value{}, errModZero
	}
	rem := new(big.Int).Rem(a, b)
	return decimalOf(rescale(rem, s, scale, halfUp), scale), nil
}

// ---- concatenation ----

// concat joins the text of its arguments, skipping nulls: SeaTunnel's || is CONCAT.
func (c *compiler) concat(n Node, args []*expr) (*expr, *Error) {
	e := &expr{t: types.Of(types.String), node: n, volatile: anyVolatile(args)}
	if len(args) == 2 && isStrRep(args[0].kind()) && isStrRep(args[1].kind()) {
		a, b := args[0].sg, args[1].sg
		e.sg = func(fr *frame) (string, bool) {
			x, okx := a(fr)
			y, oky := b(fr)
			switch {
			case !okx:
				return y, true
			case !oky:
				return x, true
			}
			m := fr.strs.alloc(len(x) + len(y))
			copy(m[copy(m, x):], y)
			return bytesString(m), true
		}
		return c.fold(e.complete(), args...)
	}
	evs := make([]evalFn, len(args))
	for i, a := range args {
		evs[i] = a.eval
	}
	e.sg = func(fr *frame) (string, bool) {
		var tmp [128]byte
		buf := tmp[:0]
		for _, ev := range evs {
			v := ev(fr)
			if v.T != types.Null {
				buf = appendText(buf, v)
			}
		}
		return fr.strs.str(buf), true
	}
	return c.fold(e.complete(), args...)
}

func isComposite(k types.Kind) bool { return k == types.Array || k == types.Map || k == types.Row }

// ---- comparisons ----

type cmpOp uint8

const (
	opEq cmpOp = iota
	opNe
	opLt
	opLe
	opGt
	opGe
)

var cmpOps = map[string]cmpOp{"=": opEq, "<>": opNe, "<": opLt, "<=": opLe, ">": opGt, ">=": opGe}

// holds reports whether a three-way comparison result satisfies op; 2 means unordered (NaN).
func (op cmpOp) holds(c int) bool {
	switch op {
	case opEq:
		return c == 0
	case opNe:
		return c != 0
	case opLt:
		return c == -1
	case opLe:
		return c == -1 || c == 0
	case opGt:
		return c == 1
	}
	return c == 1 || c == 0
}

// compareCategory says how two static types compare.
type compareCategory uint8

const (
	catInt     compareCategory = iota // integers, same-kind dates/times/timestamps, booleans
	catFloat                          // numbers with a float or double
	catNumeric                        // numbers with a decimal
	catString                         // strings, or bytes with bytes
	catGeneric                        // decided per value (nulls, composites)
	catNever                          // values of these types are never equal
)

func categorize(l, r types.Kind) compareCategory {
	switch {
	case l == types.Null || r == types.Null:
		return catGeneric
	case l.IsInteger() && r.IsInteger():
		return catInt
	case l.IsNumeric() && r.IsNumeric():
		if l == types.Decimal || r == types.Decimal {
			if l == types.Float || l == types.Double || r == types.Float || r == types.Double {
				return catFloat
			}
			return catNumeric
		}
		return catFloat
	case l != r:
		return catNever
	case l == types.String || l == types.Bytes:
		return catString
	case l == types.Boolean || l == types.Date || l == types.Time || l == types.Timestamp:
		return catInt
	}
	return catGeneric
}

// compare builds l op r with SeaTunnel's rules: a comparison with null is false, except that
// null <> x is true when x is not null (and x <> null when x is not); numbers compare by
// value across types; values of different kinds are never equal, and ordering them is an
// error.
func (c *compiler) compare(n Node, opText string, l, r *expr) (*expr, *Error) {
	op := cmpOps[opText]
	if l.isConst && !r.isConst {
		// 10 < age is age > 10: the column on the left takes the batch loops
		l, r = r, l
		op = map[cmpOp]cmpOp{opEq: opEq, opNe: opNe, opLt: opGt, opLe: opGe, opGt: opLt, opGe: opLe}[op]
	}
	cat := categorize(l.kind(), r.kind())
	ordered := op != opEq && op != opNe
	if ordered {
		switch {
		case cat == catNever:
			return nil, c.errf(n, "cannot compare %s with %s", l.t, r.t)
		case l.kind() == types.Boolean && r.kind() == types.Boolean:
			return nil, c.errf(n, "booleans can only be compared with = or <>")
		case isComposite(l.kind()) || isComposite(r.kind()):
			return nil, c.errf(n, "a %s cannot be ordered", compositeOf(l.t, r.t))
		}
	}
	var p predFn
	var sv selFn
	switch cat {
	case catInt:
		p = intCompare(op, l, r)
		if r.isConst && r.cv.T != types.Null {
			sv = intCompareSel(op, l, r.cv.I)
		}
	case catFloat:
		if r.isConst && r.cv.T != types.Null {
			cst, _ := r.cv.AsFloat64()
			sv = floatCompareSel(op, l, cst)
		}
		lg, rg := l.fg, r.fg
		if r.isConst && r.cv.T != types.Null && l.ref > 0 && l.kind() == types.Double {
			i := l.ref - 1
			cst, _ := r.cv.AsFloat64()
			p = func(fr *frame) bool {
				v := &fr.fields[i]
				if v.T == types.Null {
					return op == opNe
				}
				return op.holds(cmpFloat(math.Float64frombits(uint64(v.I)), cst))
			}
			break
		}
		p = func(fr *frame) bool {
			a, oka := lg(fr)
			b, okb := rg(fr)
			if !oka || !okb {
				return op == opNe && (oka || okb)
			}
			return op.holds(cmpFloat(a, b))
		}
	case catString:
		lg, rg := l.sg, r.sg
		if r.isConst && r.cv.T != types.Null {
			cst := r.cv.S
			p = func(fr *frame) bool {
				a, ok := lg(fr)
				if !ok {
					return op == opNe
				}
				return op.holds(strings.Compare(a, cst))
			}
			break
		}
		p = func(fr *frame) bool {
			a, oka := lg(fr)
			b, okb := rg(fr)
			if !oka || !okb {
				return op == opNe && (oka || okb)
			}
			return op.holds(strings.Compare(a, b))
		}
	case catNever:
		le, re := l.eval, r.eval
		p = func(fr *frame) bool {
			if op != opNe {
				return false
			}
			a, b := le(fr), re(fr)
			return a.T != types.Null || b.T != types.Null
		}
	default: // numeric with decimals, nulls, composites
		le, re := l.eval, r.eval
		if cat == catNumeric && l.kind() == types.Decimal && r.isConst && r.cv.T != types.Null {
			// decimal against a constant: the constant at the decimal's scale, once
			p = decimalConstCompare(op, le, l.t.Scale, r.cv)
			break
		}
		p = func(fr *frame) bool {
			a, b := le(fr), re(fr)
			if a.T == types.Null || b.T == types.Null {
				return op == opNe && (a.T != types.Null || b.T != types.Null)
			}
			if op == opEq || op == opNe {
				return seaEqual(a, b) == (op == opEq)
			}
			if a.T.IsNumeric() && b.T.IsNumeric() {
				return op.holds(compareNumeric(a, b))
			}
			switch {
			case a.T != b.T:
				return false
			case a.T == types.String || a.T == types.Bytes:
				return op.holds(strings.Compare(a.S, b.S))
			case isIntRep(a.T):
				return op.holds(cmp.Compare(a.I, b.I))
			}
			return false
		}
	}
	e := predExpr(p, n, l, r)
	e.selv = sv
	return c.fold(e, l, r)
}

// decimalConstCompare compares decimal values with a constant number. Values at the type's
// scale compare their unscaled integers; others (and constants that do not fit the scale
// exactly) take the general comparison.
func decimalConstCompare(op cmpOp, le evalFn, scale int, cst row.Value) predFn {
	cu, cs, err := toDecimal(cst)
	var atScale *big.Int
	if err == nil && cs <= scale {
		atScale = rescale(cu, cs, scale, down)
	}
	return func(fr *frame) bool {
		a := le(fr)
		if a.T != types.Decimal {
			return op == opNe && a.T == types.Null
		}
		if u := a.Unscaled(); atScale != nil && u != nil && int(a.I) == scale {
			return op.holds(u.Cmp(atScale))
		}
		return op.holds(compareNumeric(a, cst))
	}
}

func compositeOf(l, r types.DataType) types.DataType {
	if isComposite(l.Kind) {
		return l
	}
	return r
}

func intCompare(op cmpOp, l, r *expr) predFn {
	lg, rg := l.ig, r.ig
	if r.isConst && r.cv.T != types.Null {
		cst := r.cv.I
		if l.ref > 0 {
			i := l.ref - 1
			switch op {
			case opEq:
				return func(fr *frame) bool { v := &fr.fields[i]; return v.T != types.Null && v.I == cst }
			case opNe:
				return func(fr *frame) bool { v := &fr.fields[i]; return v.T == types.Null || v.I != cst }
			case opLt:
				return func(fr *frame) bool { v := &fr.fields[i]; return v.T != types.Null && v.I < cst }
			case opLe:
				return func(fr *frame) bool { v := &fr.fields[i]; return v.T != types.Null && v.I <= cst }
			case opGt:
				return func(fr *frame) bool { v := &fr.fields[i]; return v.T != types.Null && v.I > cst }
			default:
				return func(fr *frame) bool { v := &fr.fields[i]; return v.T != types.Null && v.I >= cst }
			}
		}
		switch op {
		case opEq:
			return func(fr *frame) bool { a, ok := lg(fr); return ok && a == cst }
		case opNe:
			return func(fr *frame) bool { a, ok := lg(fr); return !ok || a != cst }
		case opLt:
			return func(fr *frame) bool { a, ok := lg(fr); return ok && a < cst }
		case opLe:
			return func(fr *frame) bool { a, ok := lg(fr); return ok && a <= cst }
		case opGt:
			return func(fr *frame) bool { a, ok := lg(fr); return ok && a > cst }
		default:
			return func(fr *frame) bool { a, ok := lg(fr); return ok && a >= cst }
		}
	}
	return func(fr *frame) bool {
		a, oka := lg(fr)
		b, okb := rg(fr)
		if !oka || !okb {
			return op == opNe && (oka || okb)
		}
		return op.holds(cmp.Compare(a, b))
	}
}

func (c *compiler) between(n *Between) (*expr, *Error) {
	lo, hi, err := c.compile2(&Binary{Op: ">=", Text: ">=", L: n.X, R: n.Lo, Off: n.Off}, &Binary{Op: "<=", Text: "<=", L: n.X, R: n.Hi, Off: n.Off})
	if err != nil {
		return nil, err
	}
	lp, hp, not := lo.pred, hi.pred, n.Not
	return c.fold(predExpr(func(fr *frame) bool { return (lp(fr) && hp(fr)) != not }, n, lo, hi), lo, hi)
}

// in builds x [NOT] IN (...) as SeaTunnel evaluates it: items are tried in order; a null x
// matches a null item (then the result is true, even for NOT IN) and fails at the first
// non-null item.
func (c *compiler) in(n *In) (*expr, *Error) {
	x, err := c.compile(n.X)
	if err != nil {
		return nil, err
	}
	items := make([]*expr, len(n.List))
	allConst := true
	for i, it := range n.List {
		if items[i], err = c.compile(it); err != nil {
			return nil, err
		}
		if isComposite(items[i].kind()) {
			return nil, c.errf(it, "IN lists cannot hold a %s", items[i].t)
		}
		allConst = allConst && items[i].isConst
	}
	not := n.Not
	// integers against integer constants
	if allConst && x.kind().IsInteger() {
		ints := make([]int64, 0, len(items))
		simple := true
		for _, it := range items {
			if !it.kind().IsInteger() {
				simple = false
				break
			}
			ints = append(ints, it.cv.I)
		}
		if simple {
			nullResult := false // the first item is never null here
			ig := x.ig
			p := func(fr *frame) bool {
				v, ok := ig(fr)
				if !ok {
					return nullResult
				}
				for _, c := range ints {
					if v == c {
						return !not
					}
				}
				return not
			}
			return c.fold(predExpr(p, n, append(items, x)...), append(items, x)...)
		}
	}
	if allConst && x.kind() == types.String {
		strs := make(map[string]bool, len(items))
		simple := true
		for _, it := range items {
			if it.kind() != types.String {
				simple = false
				break
			}
			strs[it.cv.S] = true
		}
		if simple {
			sg := x.sg
			p := func(fr *frame) bool {
				s, ok := sg(fr)
				if !ok {
					return false
				}
				return strs[s] != not
			}
			return c.fold(predExpr(p, n, append(items, x)...), append(items, x)...)
		}
	}
	xe := x.eval
	evs := make([]evalFn, len(items))
	for i, it := range items {
		evs[i] = it.eval
	}
	p := func(fr *frame) bool {
		v := xe(fr)
		for _, ev := range evs {
			w := ev(fr)
			if v.T == types.Null {
				return w.T == types.Null
			}
			if w.T != types.Null && seaEqual(v, w) {
				return !not
			}
		}
		return not
	}
	return c.fold(predExpr(p, n, append(items, x)...), append(items, x)...)
}

// ---- CASE ----

// maxType is SeaTunnel's common type of CASE branches and similar: null gives way to the
// other type, equal types stay, numbers widen (decimal takes the largest precision and
// scale), anything else is an error.
func maxType(a, b types.DataType) (types.DataType, bool) {
	switch {
	case a.Kind == types.Null:
		return b, true
	case b.Kind == types.Null:
		return a, true
	case a.Equal(b):
		return a, true
	case !a.Kind.IsNumeric() || !b.Kind.IsNumeric():
		return types.DataType{}, false
	case a.Kind == types.Decimal || b.Kind == types.Decimal:
		p, s := 0, 0
		if a.Kind == types.Decimal {
			p, s = a.Precision, a.Scale
		}
		if b.Kind == types.Decimal {
			p, s = max(p, b.Precision), max(s, b.Scale)
		}
		return types.DecimalOf(p, s), true
	case a.Kind < b.Kind:
		return b, true
	}
	return a, true
}

func (c *compiler) caseExpr(n *Case) (*expr, *Error) {
	var operand *expr
	var err *Error
	if n.Operand != nil {
		if operand, err = c.compile(n.Operand); err != nil {
			return nil, err
		}
	}
	conds := make([]*expr, len(n.Whens))
	thens := make([]*expr, len(n.Whens))
	rt := types.Of(types.Null)
	for i, w := range n.Whens {
		if conds[i], err = c.compile(w.Cond); err != nil {
			return nil, err
		}
		if operand == nil && conds[i].kind() != types.Boolean && conds[i].kind() != types.Null {
			return nil, c.errf(w.Cond, "WHEN needs a condition, %s is %s", w.Cond.String(), conds[i].t)
		}
		if thens[i], err = c.compile(w.Then); err != nil {
			return nil, err
		}
		t, ok := maxType(rt, thens[i].t)
		if !ok {
			return nil, c.errf(w.Then, "CASE branches have different types: %s and %s", rt, thens[i].t)
		}
		rt = t
	}
	var elseE *expr
	if n.Else != nil {
		if elseE, err = c.compile(n.Else); err != nil {
			return nil, err
		}
		t, ok := maxType(rt, elseE.t)
		if !ok {
			return nil, c.errf(n.Else, "CASE branches have different types: %s and %s", rt, elseE.t)
		}
		rt = t
	}
	// every branch converted to the result type
	thenEv := make([]evalFn, len(thens))
	for i := range thens {
		conv, cerr := c.implicit(thens[i], rt)
		if cerr != nil {
			return nil, cerr
		}
		thenEv[i] = conv.eval
	}
	var elseEv evalFn
	if elseE != nil {
		conv, cerr := c.implicit(elseE, rt)
		if cerr != nil {
			return nil, cerr
		}
		elseEv = conv.eval
	}
	all := append(append([]*expr{}, conds...), thens...)
	if elseE != nil {
		all = append(all, elseE)
	}
	e := &expr{t: rt, node: n}
	if operand != nil {
		all = append(all, operand)
		oe := operand.eval
		whenEv := make([]evalFn, len(conds))
		for i := range conds {
			whenEv[i] = conds[i].eval
		}
		e.eval = func(fr *frame) row.Value {
			v := oe(fr)
			for i, w := range whenEv {
				wv := w(fr)
				if v.T != types.Null && wv.T != types.Null && seaEqual(v, wv) {
					return thenEv[i](fr)
				}
			}
			if elseEv != nil {
				return elseEv(fr)
			}
			return row.Value{}
		}
	} else {
		preds := make([]predFn, len(conds))
		for i := range conds {
			preds[i] = conds[i].pred
		}
		e.eval = func(fr *frame) row.Value {
			for i, p := range preds {
				if p(fr) {
					return thenEv[i](fr)
				}
			}
			if elseEv != nil {
				return elseEv(fr)
			}
			return row.Value{}
		}
	}
	e.volatile = anyVolatile(all)
	return c.fold(e.complete(), all...)
}
