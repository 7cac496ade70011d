package sql

import (
	"math"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// Batch kernels. Row by row, every node of an expression is an indirect call; over a batch,
// the WHERE clause narrows a selection vector (the positions of the rows still kept) and the
// projection runs one output column at a time, so the common shapes run as plain loops and
// the others call the same function in a row, which the processor predicts.

// selFn keeps, of the rows at the positions in sel, those the condition accepts; it reuses
// sel's memory and returns the kept prefix.
type selFn func(fr *frame, rows []row.Row, sel []int32) []int32

// ivecFn writes the integer values (and whether each is not null) of the rows at sel.
type ivecFn func(fr *frame, rows []row.Row, sel []int32, out []int64, ok []bool)

// fvecFn writes the float64 values of the rows at sel.
type fvecFn func(fr *frame, rows []row.Row, sel []int32, out []float64, ok []bool)

// kernFn writes output column j of the rows at sel (in place: into their own fields).
type kernFn func(fr *frame, rows []row.Row, sel []int32, j int)

// colOp marks an expression that is `input column op constant`, integer or double.
type colOp struct {
	col  int
	op   byte
	c    int64
	f    float64
	kind types.Kind // the result kind: Int, BigInt or Double
	mask int64      // for % by a power of two: the power minus one
}

// selOf returns the batch form of a condition.
func selOf(e *expr) selFn {
	if e.selv != nil {
		return e.selv
	}
	p := e.pred
	return func(fr *frame, rows []row.Row, sel []int32) []int32 {
		n := 0
		for _, i := range sel {
			fr.fields = rows[i].Fields
			if p(fr) {
				sel[n] = i
				n++
			}
		}
		return sel[:n]
	}
}

// ivecOf returns the batch form of an integer-valued expression.
func ivecOf(e *expr) ivecFn {
	switch {
	case e.ref > 0:
		col := e.ref - 1
		return func(_ *frame, rows []row.Row, sel []int32, out []int64, ok []bool) {
			for k, i := range sel {
				v := &rows[i].Fields[col]
				out[k], ok[k] = v.I, v.T != types.Null
			}
		}
	case e.cop != nil && e.cop.kind != types.Double:
		return colOpInts(e.cop)
	case e.isConst:
		c, notNull := e.cv.I, e.cv.T != types.Null
		return func(_ *frame, _ []row.Row, sel []int32, out []int64, ok []bool) {
			for k := range sel {
				out[k], ok[k] = c, notNull
			}
		}
	}
	ig := e.ig
	return func(fr *frame, rows []row.Row, sel []int32, out []int64, ok []bool) {
		for k, i := range sel {
			fr.fields = rows[i].Fields
			out[k], ok[k] = ig(fr)
		}
	}
}

// colOpInts computes column op constant for integers.
func colOpInts(c *colOp) ivecFn {
	col := c.col
	return func(_ *frame, rows []row.Row, sel []int32, out []int64, ok []bool) {
		for k, i := range sel {
			v := &rows[i].Fields[col]
			out[k], ok[k] = c.apply(v.I), v.T != types.Null
		}
	}
}

// apply computes x op c for an integer column op, as intCalc does (c is not zero for / and
// %); a power-of-two remainder avoids the division.
func (c *colOp) apply(x int64) int64 {
	switch c.op {
	case '+':
		x += c.c
	case '-':
		x -= c.c
	case '*':
		x *= c.c
	case '/':
		x /= c.c
	default:
		if c.mask != 0 {
			r := x & c.mask
			if x < 0 && r != 0 {
				r -= c.mask + 1
			}
			x = r
		} else {
			x %= c.c
		}
	}
	if c.kind == types.Int {
		x = int64(int32(x))
	}
	return x
}

// newColOp describes column op constant; for a remainder by a power of two it keeps the
// mask.
func newColOp(col int, op byte, c int64, kind types.Kind) *colOp {
	o := &colOp{col: col, op: op, c: c, kind: kind}
	if op == '%' {
		a := c
		if a < 0 {
			a = -a
		}
		if a > 1 && a&(a-1) == 0 {
			o.mask = a - 1
		}
	}
	return o
}

// fvecOf returns the batch form of a double-valued expression.
func fvecOf(e *expr) fvecFn {
	switch {
	case e.ref > 0 && e.kind() == types.Double:
		col := e.ref - 1
		return func(_ *frame, rows []row.Row, sel []int32, out []float64, ok []bool) {
			for k, i := range sel {
				v := &rows[i].Fields[col]
				out[k], ok[k] = math.Float64frombits(uint64(v.I)), v.T != types.Null
			}
		}
	case e.cop != nil && e.cop.kind == types.Double:
		col, cst, op := e.cop.col, e.cop.f, e.cop.op
		return func(_ *frame, rows []row.Row, sel []int32, out []float64, ok []bool) {
			for k, i := range sel {
				v := &rows[i].Fields[col]
				out[k], ok[k] = floatCalc(op, math.Float64frombits(uint64(v.I)), cst), v.T != types.Null
			}
		}
	}
	fg := e.fg
	return func(fr *frame, rows []row.Row, sel []int32, out []float64, ok []bool) {
		for k, i := range sel {
			fr.fields = rows[i].Fields
			out[k], ok[k] = fg(fr)
		}
	}
}

// vecBuf holds a kernel's buffer of values and their non-null flags, grown to the batch.
type vecBuf[T any] struct {
	xs []T
	ok []bool
}

func (s *vecBuf[T]) grow(n int) ([]T, []bool) {
	if cap(s.xs) < n {
		s.xs = make([]T, n)
	}
	if cap(s.ok) < n {
		s.ok = make([]bool, n)
	}
	return s.xs[:n], s.ok[:n]
}

// intCompareSel is `integer expression op constant` over a batch. A column, or a column op
// constant, is compared in a loop of its own.
func intCompareSel(op cmpOp, l *expr, cst int64) selFn {
	switch {
	case l.ref > 0:
		return colCompareSel(op, l.ref-1, nil, cst)
	case l.cop != nil && l.cop.kind != types.Double:
		return colCompareSel(op, l.cop.col, l.cop, cst)
	}
	return vecCompareSel[int64](op, ivecOf(l), cst)
}

// cmpRange describes the integers x for which `x op cst` holds, for every operator but <>:
// those in [lo, hi]. ok is false when no integer satisfies op (x < MinInt64, x > MaxInt64).
func cmpRange(op cmpOp, cst int64) (lo, hi int64, ok bool) {
	lo, hi, ok = math.MinInt64, math.MaxInt64, true
	switch op {
	case opEq:
		lo, hi = cst, cst
	case opLt:
		hi, ok = cst-1, cst != math.MinInt64
	case opLe:
		hi = cst
	case opGt:
		lo, ok = cst+1, cst != math.MaxInt64
	case opGe:
		lo = cst
	}
	return lo, hi, ok
}

// colCompareSel compares integer column col, or c (column op constant) when c is not nil,
// with a constant. Every operator but <> is a range of values (cmpRange): a column is
// compared with the range's one finite end, or with the constant for =, so that its loop
// makes the one comparison the operator needs; column op constant is compared with the
// range as an unsigned difference (x - lo, wrapping, at most hi - lo), one loop serving
// every operator but = (the common x % n = k), which has its own.
func colCompareSel(op cmpOp, col int, c *colOp, cst int64) selFn {
	lo, hi, ok := cmpRange(op, cst)
	switch {
	case op == opNe:
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				x := v.I
				if c != nil {
					x = c.apply(x)
				}
				sel[n] = i
				n += b2i(v.T == types.Null || x != cst)
			}
			return sel[:n]
		}
	case !ok:
		return func(_ *frame, _ []row.Row, sel []int32) []int32 { return sel[:0] }
	case c != nil && op != opEq:
		span := uint64(hi - lo)
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				x := c.apply(v.I)
				sel[n] = i
				n += b2i(v.T != types.Null && uint64(x-lo) <= span)
			}
			return sel[:n]
		}
	case c != nil:
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T != types.Null && c.apply(v.I) == cst)
			}
			return sel[:n]
		}
	}
	// a column: = compares with both ends at once, the others with their finite one
	bound, upper := lo, hi != math.MaxInt64
	if upper {
		bound = hi
	}
	if op == opEq {
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T != types.Null && v.I == cst)
			}
			return sel[:n]
		}
	}
	if upper {
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T != types.Null && v.I <= bound)
			}
			return sel[:n]
		}
	}
	return func(_ *frame, rows []row.Row, sel []int32) []int32 {
		n := 0
		for _, i := range sel {
			v := &rows[i].Fields[col]
			sel[n] = i
			n += b2i(v.T != types.Null && v.I >= bound)
		}
		return sel[:n]
	}
}

// vecCompareSel is `expression op constant` over a batch for an integer or double
// expression computed by vec: a null is kept by <> alone, NaN as cmpFloat orders it.
func vecCompareSel[T int64 | float64](op cmpOp, vec func(*frame, []row.Row, []int32, []T, []bool), cst T) selFn {
	var buf vecBuf[T]
	return func(fr *frame, rows []row.Row, sel []int32) []int32 {
		xs, ok := buf.grow(len(sel))
		vec(fr, rows, sel, xs, ok)
		n := 0
		for k, i := range sel {
			keep := op == opNe
			if ok[k] {
				keep = op.holds(cmpFloat(xs[k], cst))
			}
			sel[n] = i
			n += b2i(keep)
		}
		return sel[:n]
	}
}

// floatCompareSel is `double expression op constant` over a batch.
func floatCompareSel(op cmpOp, l *expr, cst float64) selFn {
	return vecCompareSel[float64](op, fvecOf(l), cst)
}

// b2i is 1 for true. Selection loops store every position and advance by b2i of the
// condition, which compiles without a branch: a condition that holds for rows at random
// (id % 2 = 0) would otherwise cost a misprediction every other row.
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// andSel narrows by each condition in turn.
func andSel(l, r selFn) selFn {
	return func(fr *frame, rows []row.Row, sel []int32) []int32 {
		sel = l(fr, rows, sel)
		if len(sel) == 0 || fr.err != nil {
			return sel
		}
		return r(fr, rows, sel)
	}
}

// kernOf returns a loop for output column j when the expression has a batch form worth
// having (column op constant), or nil.
func kernOf(e *expr) kernFn {
	if e.kern != nil {
		return e.kern
	}
	c := e.cop
	if c == nil {
		return nil
	}
	col, k := c.col, c.kind
	if k == types.Double {
		// x + c and x * c are both x*m + a: (1, c) and (c, -0), -0 leaving every product,
		// negative zero included, as it is
		m, a, linear := linearOp(c.op, 1.0, c.f, math.Copysign(0, -1))
		if !linear {
			op, cst := c.op, c.f
			return mapColumn(col, types.Double, func(x int64) int64 {
				return int64(math.Float64bits(floatCalc(op, math.Float64frombits(uint64(x)), cst)))
			})
		}
		return func(_ *frame, rows []row.Row, sel []int32, j int) {
			for _, i := range sel {
				f := rows[i].Fields
				if v := &f[col]; v.T == types.Null {
					f[j].SetNull()
				} else {
					f[j].SetScalar(types.Double, int64(math.Float64bits(math.Float64frombits(uint64(v.I))*m+a)))
				}
			}
		}
	}
	m, a, linear := linearOp(c.op, 1, c.c, 0)
	if !linear {
		return mapColumn(col, k, c.apply)
	}
	// x + c and x * c are both x*m + a, which wraps as the operators do
	wrap := k == types.Int
	return func(_ *frame, rows []row.Row, sel []int32, j int) {
		for _, i := range sel {
			f := rows[i].Fields
			v := &f[col]
			x := v.I*m + a
			if wrap {
				x = int64(int32(x))
			}
			if v.T != types.Null {
				f[j].SetScalar(k, x)
			} else {
				f[j].SetNull()
			}
		}
	}
}

// mapColumn is the kernel that writes fn of the value of column col (a double as its bits)
// as a value of kind k, or null for null.
func mapColumn(col int, k types.Kind, fn func(int64) int64) kernFn {
	return func(_ *frame, rows []row.Row, sel []int32, j int) {
		for _, i := range sel {
			f := rows[i].Fields
			if v := &f[col]; v.T != types.Null {
				f[j].SetScalar(k, fn(v.I))
			} else {
				f[j].SetNull()
			}
		}
	}
}

// linearOp writes `x op c` as x*m + a for + and * (one, zero: the multiplier's one and the
// addend's zero), so one loop serves both.
func linearOp[T int64 | float64](op byte, one, c, zero T) (m, a T, ok bool) {
	switch op {
	case '+':
		return one, c, true
	case '*':
		return c, zero, true
	}
	return 0, 0, false
}
