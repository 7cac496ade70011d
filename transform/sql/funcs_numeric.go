package sql

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func registerNumericFuncs() {
	math1 := func(f func(float64) (float64, error)) *fnDef {
		return &fnDef{min: 1, max: 1, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
			ar := c.args(n, args)
			x := ar.float(0)
			return ar.done(doubleExpr(func(fr *frame) (float64, bool) {
				v, ok := x(fr)
				if !ok {
					return 0, false
				}
				r, err := f(v)
				if err != nil {
					fr.fail(err)
					return 0, false
				}
				return r, true
			}))
		}}
	}
	pure := func(f func(float64) float64) func(float64) (float64, error) {
		return func(x float64) (float64, error) { return f(x), nil }
	}
	register(math1(pure(math.Acos)), "ACOS")
	register(math1(pure(math.Asin)), "ASIN")
	register(math1(pure(math.Atan)), "ATAN")
	register(math1(pure(math.Cos)), "COS")
	register(math1(pure(math.Cosh)), "COSH")
	register(math1(pure(math.Sin)), "SIN")
	register(math1(pure(math.Sinh)), "SINH")
	register(math1(pure(math.Tan)), "TAN")
	register(math1(pure(math.Tanh)), "TANH")
	register(math1(pure(math.Exp)), "EXP")
	register(math1(pure(math.Sqrt)), "SQRT")
	register(math1(pure(func(x float64) float64 { return x * 0.017453292519943295 })), "RADIANS")
	register(math1(func(x float64) (float64, error) {
		t := math.Tan(x)
		if t == 0 {
			return 0, errDivZero
		}
		return 1 / t, nil
	}), "COT")
	register(math1(func(x float64) (float64, error) {
		if x <= 0 {
			return 0, fmt.Errorf("LN needs a positive argument, found %s", javaDouble(x))
		}
		return math.Log(x), nil
	}), "LN")
	register(math1(func(x float64) (float64, error) {
		if x <= 0 {
			return 0, fmt.Errorf("LOG10 needs a positive argument, found %s", javaDouble(x))
		}
		return javaLog10(x), nil
	}), "LOG10")
	math2 := func(f func(a, b float64) (float64, bool, error)) *fnDef {
		return &fnDef{min: 2, max: 2, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
			ar := c.args(n, args)
			a, b := ar.float(0), ar.float(1)
			return ar.done(doubleExpr(func(fr *frame) (float64, bool) {
				x, okx := a(fr)
				y, oky := b(fr)
				r, ok, err := f2(f, x, okx, y, oky)
				if err != nil {
					fr.fail(err)
					return 0, false
				}
				return r, ok
			}))
		}}
	}
	register(math2(func(a, b float64) (float64, bool, error) { return math.Atan2(a, b), true, nil }), "ATAN2")
	register(math2(func(a, b float64) (float64, bool, error) { return math.Pow(a, b), true, nil }), "POWER")
	register(&fnDef{min: 1, max: 2, build: buildLog}, "LOG")
	register(&fnDef{min: 0, max: 0, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
		return constExpr(types.Of(types.Double), row.DoubleValue(math.Pi), n), nil
	}}, "PI")
	register(&fnDef{min: 0, max: 1, build: buildRand}, "RAND", "RANDOM")
	register(&fnDef{min: 1, max: 1, build: buildAbs}, "ABS")
	register(&fnDef{min: 2, max: 2, build: buildMod}, "MOD")
	registerWith(1, 2, buildRound, ceiling, "CEIL", "CEILING")
	registerWith(1, 2, buildRound, floor, "FLOOR")
	registerWith(1, 2, buildRound, halfUp, "ROUND")
	registerWith(1, 2, buildRound, down, "TRUNC", "TRUNCATE")
	register(&fnDef{min: 1, max: 1, build: buildSign}, "SIGN")
}

// f2 applies a two-argument function; a null argument gives null.
func f2(f func(a, b float64) (float64, bool, error), x float64, okx bool, y float64, oky bool) (float64, bool, error) {
	if !okx || !oky {
		return 0, false, nil
	}
	return f(x, y)
}

// javaLog10 is the base 10 logarithm computed as x = m * 2^k, log10(x) = k * log10(2) +
// log(m) / ln(10), with log10(2) in two parts: within an ulp, and equal to Java's Math.log10
// where Go's math.Log10 (log2(x) * log10(2)) is not.
func javaLog10(x float64) float64 {
	const (
		log10of2Hi = 3.01029995663611771306e-01
		log10of2Lo = 3.69423907715893078616e-13
		invLn10    = 4.34294481903251816668e-01
	)
	if x <= 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return math.Log10(x)
	}
	m, k := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m *= 2
		k--
	}
	n := float64(k)
	return n*log10of2Lo + invLn10*math.Log(m) + n*log10of2Hi
}

func javaDouble(f float64) string { return string(row.AppendJavaFloat(nil, f, 64)) }

// buildLog: LOG(base, x); LOG(x) is the natural logarithm.
func buildLog(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	if len(args) == 1 {
		ar := c.args(n, args)
		x := ar.float(0)
		return ar.done(doubleExpr(func(fr *frame) (float64, bool) {
			v, ok := logOperand(fr, x, "argument")
			if !ok {
				return 0, false
			}
			return math.Log(v), true
		}))
	}
	ar := c.args(n, args)
	base, x := ar.float(0), ar.float(1)
	return ar.done(doubleExpr(func(fr *frame) (float64, bool) {
		b, ok := logOperand(fr, base, "base")
		if !ok {
			return 0, false
		}
		v, ok := logOperand(fr, x, "argument")
		if !ok {
			return 0, false
		}
		switch b {
		case math.E:
			return math.Log(v), true
		case 10:
			return javaLog10(v), true
		}
		return math.Log(v) / math.Log(b), true
	}))
}

// logOperand reads an operand of LOG: a null is not ok, and so is a number that is not
// positive, which fails the row naming the operand as what.
func logOperand(fr *frame, g floatFn, what string) (float64, bool) {
	v, ok := g(fr)
	if !ok {
		return 0, false
	}
	if v <= 0 {
		fr.fail(fmt.Errorf("LOG needs a positive %s, found %s", what, javaDouble(v)))
		return 0, false
	}
	return v, true
}

// buildRand: RAND() is a pseudo-random number in [0, 1); RAND(seed) is the first number of
// Java's java.util.Random seeded so, which is the same for the same seed.
func buildRand(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	if len(args) == 0 {
		e := doubleExpr(func(fr *frame) (float64, bool) { return fr.random().Float64(), true })
		e.volatile = true
		return e, nil
	}
	ar := c.args(n, args)
	seed := ar.int(0)
	if ar.err != nil {
		return nil, ar.err
	}
	e := doubleExpr(func(fr *frame) (float64, bool) {
		s, ok := seed(fr)
		if !ok {
			return fr.random().Float64(), true
		}
		return javaRandomDouble(int64(int32(s))), true
	})
	if args[0].kind() == types.Null {
		e.volatile = true
	}
	return e, nil
}

// javaRandomDouble is new java.util.Random(seed).nextDouble(): a 48-bit linear congruential
// generator, two draws of 26 and 27 bits.
func javaRandomDouble(seed int64) float64 {
	const mult, add, mask = 0x5DEECE66D, 0xB, (1 << 48) - 1
	s := (seed ^ mult) & mask
	next := func(bits uint) int64 {
		s = (s*mult + add) & mask
		return s >> (48 - bits)
	}
	hi := next(26)
	lo := next(27)
	return float64(hi<<27+lo) * (1.0 / (1 << 53))
}

func buildAbs(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	if err := c.argNumber(n, args, 0); err != nil {
		return nil, err
	}
	x := args[0]
	k := x.kind()
	e := &expr{t: x.t}
	switch {
	case k == types.Null:
		return constExpr(x.t, row.Value{}, n), nil
	case k.IsInteger():
		ig := x.ig
		e.ig = func(fr *frame) (int64, bool) {
			v, ok := ig(fr)
			if v < 0 {
				v = wrapInt(k, -v)
			}
			return v, ok
		}
	case k == types.Float || k == types.Double:
		fg := x.fg
		e.fg = func(fr *frame) (float64, bool) {
			v, ok := fg(fr)
			return math.Abs(v), ok
		}
	default:
		ev := x.eval
		e.eval = func(fr *frame) row.Value {
			v := ev(fr)
			if v.T != types.Decimal || v.Unscaled() == nil || v.Unscaled().Sign() >= 0 {
				return v
			}
			return decimalOf(new(big.Int).Neg(v.Unscaled()), int(v.I))
		}
	}
	return e.complete(), nil
}

// buildMod: MOD(a, b) has the type of b; the remainder has the sign of a and is computed on
// the decimal values of a and b; a zero divisor is an error.
func buildMod(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	for i := range args {
		if err := c.argNumber(n, args, i); err != nil {
			return nil, err
		}
	}
	a, b := args[0], args[1]
	rt := b.t
	if rt.Kind == types.Null {
		return constExpr(rt, row.Value{}, n), nil
	}
	if a.kind().IsInteger() && b.kind().IsInteger() {
		ag, bg := a.ig, b.ig
		k := rt.Kind
		return intExpr(k, func(fr *frame) (int64, bool) {
			x, y, ok := both(fr, ag, bg)
			if !ok {
				return 0, false
			}
			if y == 0 {
				fr.fail(errModZero)
				return 0, false
			}
			if y == -1 {
				return 0, true
			}
			return wrapInt(k, x%y), true
		}), nil
	}
	ae, be := a.eval, b.eval
	e := &expr{t: rt}
	e.eval = func(fr *frame) row.Value {
		x, y := ae(fr), be(fr)
		if x.T == types.Null || y.T == types.Null {
			return row.Value{}
		}
		if f, _ := y.AsFloat64(); f == 0 {
			fr.fail(errModZero)
			return row.Value{}
		}
		ux, sx, uy, sy, err := toDecimals(x, y)
		if err != nil {
			fr.fail(err)
			return row.Value{}
		}
		s := max(sx, sy)
		rem := new(big.Int).Rem(rescale(ux, sx, s, down), rescale(uy, sy, s, down))
		return decimalTo(rem, s, rt)
	}
	return e.complete(), nil
}

// decimalTo converts unscaled*10^-scale to type t as Java's Number conversions do: integers
// truncate (and wrap), floating-point types round to nearest.
func decimalTo(u *big.Int, scale int, t types.DataType) row.Value {
	switch k := t.Kind; {
	case k.IsInteger():
		q := rescale(u, scale, 0, down)
		return row.Value{T: k, I: wrapInt(k, q.Int64())}
	case k == types.Float:
		f, _ := row.DecimalRat(decimalOf(u, scale)).Float32()
		return row.FloatValue(f)
	case k == types.Double:
		f, _ := row.DecimalRat(decimalOf(u, scale)).Float64()
		return row.DoubleValue(f)
	case k == types.Decimal:
		return decimalOf(rescale(u, scale, t.Scale, halfUp), t.Scale)
	}
	return row.Value{}
}

// buildRound is ROUND, TRUNC, CEIL and FLOOR with SeaTunnel's result types: ROUND keeps the
// argument's type, TRUNC gives a double, CEIL and FLOOR an int. Floating-point numbers are
// rounded on their shortest decimal form (ROUND(2.675, 2) is 2.68), integers only when
// the number of digits is negative (ROUND(1234, -2) is 1200).
func buildRound(c *compiler, n *Call, args []*expr, mode roundingMode) (*expr, *Error) {
	if err := c.argNumber(n, args, 0); err != nil {
		return nil, err
	}
	x := args[0]
	var digits intFn
	if len(args) == 2 {
		var err *Error
		if digits, err = c.argInt(n, args, 1); err != nil {
			return nil, err
		}
	}
	var rt types.DataType
	switch mode {
	case halfUp:
		rt = x.t
	case down:
		rt = types.Of(types.Double)
	default:
		rt = types.Of(types.Int)
	}
	if x.kind() == types.Null {
		return constExpr(rt, row.Value{}, n), nil
	}
	ev := x.eval
	e := &expr{t: rt}
	e.eval = func(fr *frame) row.Value {
		v := ev(fr)
		if v.T == types.Null {
			return v
		}
		scale := int64(0)
		if digits != nil {
			d, ok := digits(fr)
			if !ok {
				d = 0
			}
			scale = d
		}
		r, err := roundValue(v, int(max(min(scale, 400), -400)), mode)
		if err != nil {
			fr.fail(err)
			return row.Value{}
		}
		return toRoundResult(r, rt)
	}
	return e.complete(), nil
}

// roundValue rounds v to scale digits, keeping its type.
func roundValue(v row.Value, scale int, mode roundingMode) (row.Value, error) {
	switch v.T {
	case types.TinyInt, types.SmallInt:
		return v, nil
	case types.Int, types.BigInt:
		if scale >= 0 {
			return v, nil
		}
		q := rescale(big.NewInt(v.I), 0, scale, mode)
		q.Mul(q, pow10Big(-scale))
		if !q.IsInt64() {
			return v, nil
		}
		return row.Value{T: v.T, I: wrapInt(v.T, q.Int64())}, nil
	case types.Float, types.Double:
		f, _ := v.AsFloat64()
		if scale == 0 && mode != halfUp {
			switch mode {
			case down:
				f = math.Trunc(f)
			case ceiling:
				f = math.Ceil(f)
			case floor:
				f = math.Floor(f)
			}
		} else {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return row.Value{}, errors.New("cannot round an infinite or NaN value")
			}
			u, s, err := floatDecimal(f)
			if err != nil {
				return row.Value{}, err
			}
			r := rescale(u, s, scale, mode)
			f, _ = row.DecimalRat(decimalOf(r, scale)).Float64()
		}
		if v.T == types.Float {
			return row.FloatValue(float32(f)), nil
		}
		return row.DoubleValue(f), nil
	case types.Decimal:
		u, s, err := toDecimal(v)
		if err != nil {
			return row.Value{}, err
		}
		r := rescale(u, s, scale, mode)
		return decimalOf(rescale(r, scale, s, halfUp), s), nil
	}
	return v, nil
}

// toRoundResult converts a rounded value to the function's result type: the same type for
// ROUND, double for TRUNC, int (Java's intValue) for CEIL and FLOOR.
func toRoundResult(v row.Value, rt types.DataType) row.Value {
	switch rt.Kind {
	case types.Double:
		if v.T == types.Double {
			return v
		}
		if f, ok := v.AsFloat64(); ok {
			return row.DoubleValue(f)
		}
	case types.Int:
		switch v.T {
		case types.Float, types.Double:
			f, _ := v.AsFloat64()
			return row.IntValue(int32(javaIntOf(f)))
		case types.Decimal:
			q := rescale(v.Unscaled(), int(v.I), 0, down)
			return row.IntValue(int32(q.Int64()))
		}
		return row.IntValue(int32(v.I))
	}
	return v
}

// buildSign: -1, 0 or 1; 0 for zero, NaN and null, as SeaTunnel.
func buildSign(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	if err := c.argNumber(n, args, 0); err != nil {
		return nil, err
	}
	x := args[0]
	if x.kind().IsInteger() {
		ig := x.ig
		return intExpr(types.Int, func(fr *frame) (int64, bool) {
			v, _ := ig(fr)
			return int64(cmp.Compare(v, 0)), true
		}), nil
	}
	if x.kind() == types.Null {
		return constExpr(types.Of(types.Int), row.IntValue(0), n), nil
	}
	fg := x.fg
	return intExpr(types.Int, func(fr *frame) (int64, bool) {
		v, ok := fg(fr)
		if !ok || v == 0 || math.IsNaN(v) {
			return 0, true
		}
		if v < 0 {
			return -1, true
		}
		return 1, true
	}), nil
}
