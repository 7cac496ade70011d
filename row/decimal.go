package row

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

var bigTen = big.NewInt(10)

func pow10(n int) *big.Int { return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil) }

// CompareDecimal compares two decimal values numerically.
func CompareDecimal(a, b Value) int {
	ua, ub := a.Unscaled(), b.Unscaled()
	sa, sb := int(a.I), int(b.I)
	switch {
	case sa == sb:
		return ua.Cmp(ub)
	case sa < sb:
		return new(big.Int).Mul(ua, pow10(sb-sa)).Cmp(ub)
	default:
		return ua.Cmp(new(big.Int).Mul(ub, pow10(sa-sb)))
	}
}

var float64Pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// DecimalFloat64 converts a decimal to the nearest float64; a decimal without its unscaled
// value is NaN.
func DecimalFloat64(v Value) float64 {
	u := v.Unscaled()
	if u == nil {
		return math.NaN()
	}
	s := int(v.I)
	if u.IsInt64() {
		// below 2^53 the unscaled value and a power of ten up to 10^22 are exact floats, and
		// one division or product of them rounds correctly
		x := u.Int64()
		if x > -(1<<53) && x < 1<<53 {
			switch {
			case s == 0:
				return float64(x)
			case s > 0 && s < len(float64Pow10):
				return float64(x) / float64Pow10[s]
			case s < 0 && -s < len(float64Pow10):
				return float64(x) * float64Pow10[-s]
			}
		}
	}
	f, _ := DecimalRat(v).Float64()
	return f
}

// ParseDecimal reads a decimal literal ("-12.5", "1e3", "99999.99999999") and rescales it to
// the given scale, rounding half up. It fails when the result needs more than precision digits.
func ParseDecimal(s string, precision, scale int) (Value, error) {
	s = strings.TrimSpace(s)
	// An exponent far beyond any decimal's 38 digits would make big.Rat build a number
	// with that many digits; refuse it before it costs anything.
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, err := strconv.Atoi(s[i+1:])
		if err != nil || exp > 400 || exp < -400 {
			return Value{}, fmt.Errorf("%q is not a decimal number in range", s)
		}
	}
	if len(s) > 1000 {
		return Value{}, fmt.Errorf("decimal literal of %d characters is too long", len(s))
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return Value{}, fmt.Errorf("%q is not a decimal number", s)
	}
	return DecimalFromRat(r, precision, scale)
}

// DecimalFromRat rescales a rational to decimal(precision, scale), rounding half up.
func DecimalFromRat(r *big.Rat, precision, scale int) (Value, error) {
	num := new(big.Int).Mul(r.Num(), pow10(scale))
	den := r.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	// round half away from zero
	if m.Sign() != 0 {
		twice := new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2))
		if twice.Cmp(den) >= 0 {
			if num.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	if precision > 0 {
		digits := len(new(big.Int).Abs(q).String())
		if digits > precision {
			return Value{}, fmt.Errorf("%s does not fit decimal(%d, %d)", r.FloatString(scale), precision, scale)
		}
	}
	return DecimalValue(q, scale), nil
}

// DecimalRat returns the decimal as an exact rational.
func DecimalRat(v Value) *big.Rat {
	return new(big.Rat).SetFrac(v.Unscaled(), pow10(int(v.I)))
}
