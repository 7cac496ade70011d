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

// scratch holds a kernel's buffers, grown to the batch.
type scratch struct {
	ints   []int64
	floats []float64
	ok     []bool
}

func (s *scratch) intsFor(n int) ([]int64, []bool) {
	if cap(s.ints) < n {
		s.ints = make([]int64, n)
	}
	if cap(s.ok) < n {
		s.ok = make([]bool, n)
	}
	return s.ints[:n], s.ok[:n]
}

func (s *scratch) floatsFor(n int) ([]float64, []bool) {
	if cap(s.floats) < n {
		s.floats = make([]float64, n)
	}
	if cap(s.ok) < n {
		s.ok = make([]bool, n)
	}
	return s.floats[:n], s.ok[:n]
}

// intCompareSel is `integer expression op constant` over a batch. A column, or a column op
// constant, is compared in a loop of its own for each operator.
func intCompareSel(op cmpOp, l *expr, cst int64) selFn {
	switch {
	case l.ref > 0:
		return colCompareSel(op, l.ref-1, cst)
	case l.cop != nil && l.cop.kind != types.Double:
		return colOpCompareSel(op, l.cop, cst)
	}
	return intCompareSelVec(op, l, cst)
}

func colCompareSel(op cmpOp, col int, cst int64) selFn {
	switch op {
	case opEq:
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T != types.Null && v.I == cst)
			}
			return sel[:n]
		}
	case opNe:
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T == types.Null || v.I != cst)
			}
			return sel[:n]
		}
	case opLt:
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T != types.Null && v.I < cst)
			}
			return sel[:n]
		}
	case opLe:
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T != types.Null && v.I <= cst)
			}
			return sel[:n]
		}
	case opGt:
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T != types.Null && v.I > cst)
			}
			return sel[:n]
		}
	case opGe:
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T != types.Null && v.I >= cst)
			}
			return sel[:n]
		}
	}
	return nil
}

func colOpCompareSel(op cmpOp, c *colOp, cst int64) selFn {
	col := c.col
	switch op {
	case opEq:
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T != types.Null && c.apply(v.I) == cst)
			}
			return sel[:n]
		}
	case opNe:
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T == types.Null || c.apply(v.I) != cst)
			}
			return sel[:n]
		}
	case opLt:
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T != types.Null && c.apply(v.I) < cst)
			}
			return sel[:n]
		}
	case opLe:
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T != types.Null && c.apply(v.I) <= cst)
			}
			return sel[:n]
		}
	case opGt:
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T != types.Null && c.apply(v.I) > cst)
			}
			return sel[:n]
		}
	case opGe:
		return func(_ *frame, rows []row.Row, sel []int32) []int32 {
			n := 0
			for _, i := range sel {
				v := &rows[i].Fields[col]
				sel[n] = i
				n += b2i(v.T != types.Null && c.apply(v.I) >= cst)
			}
			return sel[:n]
		}
	}
	return nil
}

func intCompareSelVec(op cmpOp, l *expr, cst int64) selFn {
	vec := ivecOf(l)
	var buf scratch
	return func(fr *frame, rows []row.Row, sel []int32) []int32 {
		xs, ok := buf.intsFor(len(sel))
		vec(fr, rows, sel, xs, ok)
		n := 0
		for k, i := range sel {
			keep := op == opNe
			if ok[k] {
				keep = op.holds(cmpInt(xs[k], cst))
			}
			sel[n] = i
			n += b2i(keep)
		}
		return sel[:n]
	}
}

// floatCompareSel is `double expression op constant` over a batch.
func floatCompareSel(op cmpOp, l *expr, cst float64) selFn {
	vec := fvecOf(l)
	var buf scratch
	return func(fr *frame, rows []row.Row, sel []int32) []int32 {
		xs, ok := buf.floatsFor(len(sel))
		vec(fr, rows, sel, xs, ok)
		n := 0
		for k, i := range sel {
			var keep bool
			if !ok[k] {
				keep = op == opNe
			} else {
				keep = op.holds(cmpFloat(xs[k], cst))
			}
			sel[n] = i
			n += b2i(keep)
		}
		return sel[:n]
	}
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
		cst := c.f
		switch c.op {
		case '+':
			return func(_ *frame, rows []row.Row, sel []int32, j int) {
				for _, i := range sel {
					f := rows[i].Fields
					if v := &f[col]; v.T != types.Null {
						f[j].SetScalar(types.Double, int64(math.Float64bits(math.Float64frombits(uint64(v.I))+cst)))
					} else {
						f[j].SetNull()
					}
				}
			}
		case '*':
			return func(_ *frame, rows []row.Row, sel []int32, j int) {
				for _, i := range sel {
					f := rows[i].Fields
					if v := &f[col]; v.T != types.Null {
						f[j].SetScalar(types.Double, int64(math.Float64bits(math.Float64frombits(uint64(v.I))*cst)))
					} else {
						f[j].SetNull()
					}
				}
			}
		}
		op := c.op
		return func(_ *frame, rows []row.Row, sel []int32, j int) {
			for _, i := range sel {
				f := rows[i].Fields
				if v := &f[col]; v.T != types.Null {
					f[j].SetScalar(types.Double, int64(math.Float64bits(floatCalc(op, math.Float64frombits(uint64(v.I)), cst))))
				} else {
					f[j].SetNull()
				}
			}
		}
	}
	cst, wrap := c.c, k == types.Int
	switch c.op {
	case '+':
		return func(_ *frame, rows []row.Row, sel []int32, j int) {
			for _, i := range sel {
				f := rows[i].Fields
				if v := &f[col]; v.T != types.Null {
					x := v.I + cst
					if wrap {
						x = int64(int32(x))
					}
					f[j].SetScalar(k, x)
				} else {
					f[j].SetNull()
				}
			}
		}
	case '*':
		return func(_ *frame, rows []row.Row, sel []int32, j int) {
			for _, i := range sel {
				f := rows[i].Fields
				if v := &f[col]; v.T != types.Null {
					x := v.I * cst
					if wrap {
						x = int64(int32(x))
					}
					f[j].SetScalar(k, x)
				} else {
					f[j].SetNull()
				}
			}
		}
	}
	return func(_ *frame, rows []row.Row, sel []int32, j int) {
		for _, i := range sel {
			f := rows[i].Fields
			if v := &f[col]; v.T != types.Null {
				f[j].SetScalar(k, c.apply(v.I))
			} else {
				f[j].SetNull()
			}
		}
	}
}
