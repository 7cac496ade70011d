package sql

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// appendText appends a value as SeaTunnel's SQL functions turn values into text (CONCAT,
// TO_CHAR, CAST AS STRING, LIKE on a non-string): Java's toString of the value's Java type,
// which row.AppendScalar writes for the scalars (1.0, 1.0E10, 2024-01-31T12:30, decimals as
// BigDecimal.toString). Two kinds differ from the printed form on purpose: bytes are read
// as text (Java's new String(bytes)) where printing lists them, and maps are written as
// Java's Map.toString ({k=v}) where printing writes JSON.
func appendText(buf []byte, v row.Value) []byte {
	if isComposite(v.T) {
		return append(buf, compositeText(v)...)
	}
	return appendScalarText(buf, v)
}

// appendScalarText is appendText of a value that is not an array, map or row.
func appendScalarText(buf []byte, v row.Value) []byte {
	if v.T == types.String || v.T == types.Bytes {
		return append(buf, v.S...)
	}
	return row.AppendScalar(buf, v)
}

// compositeText is appendText of an array, map or row, in a buffer of its own.
func compositeText(v row.Value) []byte {
	if v.T == types.Map {
		return row.AppendJavaMap(nil, v.Map(), appendElemText)
	}
	return row.AppendJavaList(nil, v.Fields(), appendElemText)
}

// appendElemText is appendText for the elements compositeText writes. It is a function of
// its own so that appendText is never called back through a function value: its buffer,
// often on the caller's stack, then does not escape.
func appendElemText(buf []byte, v row.Value) []byte {
	if isComposite(v.T) {
		return append(buf, compositeText(v)...)
	}
	return appendScalarText(buf, v)
}

// text returns appendText as a string; strings are returned as they are.
func text(v row.Value) string {
	if v.T == types.String || v.T == types.Bytes {
		return v.S
	}
	var tmp [32]byte
	return string(appendText(tmp[:0], v))
}

// ---- decimals ----

var bigPow10 [40]*big.Int

func init() {
	p := big.NewInt(1)
	for i := range bigPow10 {
		bigPow10[i] = new(big.Int).Set(p)
		p.Mul(p, big.NewInt(10))
	}
}

func pow10Big(n int) *big.Int {
	if n >= 0 && n < len(bigPow10) {
		return bigPow10[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// decimalOf builds a decimal value; u is owned by the value.
func decimalOf(u *big.Int, scale int) row.Value { return row.DecimalValue(u, scale) }

// roundingMode is one of Java's RoundingMode values that SeaTunnel uses.
type roundingMode uint8

const (
	halfUp  roundingMode = iota // round half away from zero
	up                          // away from zero
	down                        // towards zero
	ceiling                     // towards +infinity
	floor                       // towards -infinity
)

// rescale changes the scale of unscaled value u from `from` to `to`, rounding as mode says.
func rescale(u *big.Int, from, to int, mode roundingMode) *big.Int {
	if to >= from {
		return new(big.Int).Mul(u, pow10Big(to-from))
	}
	d := pow10Big(from - to)
	q, r := new(big.Int).QuoRem(u, d, new(big.Int))
	if r.Sign() == 0 {
		return q
	}
	neg := u.Sign() < 0
	away := false
	switch mode {
	case halfUp:
		twice := new(big.Int).Abs(r)
		twice.Lsh(twice, 1)
		away = twice.Cmp(d) >= 0
	case up:
		away = true
	case down:
		away = false
	case ceiling:
		away = !neg
	case floor:
		away = neg
	}
	if away {
		if neg {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// parseJavaDecimal reads a number as Java's BigDecimal(String) does: an optional sign,
// digits with an optional point, an optional exponent. No spaces.
func parseJavaDecimal(s string) (*big.Int, int, error) {
	orig := s
	if s == "" {
		return nil, 0, fmt.Errorf("%q is not a number", orig)
	}
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || i+1 >= len(s) {
			return nil, 0, fmt.Errorf("%q is not a number", orig)
		}
		exp = e
		s = s[:i]
	}
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	scale := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		scale = len(s) - i - 1
		s = s[:i] + s[i+1:]
	}
	if s == "" {
		return nil, 0, fmt.Errorf("%q is not a number", orig)
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return nil, 0, fmt.Errorf("%q is not a number", orig)
		}
	}
	u, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, 0, fmt.Errorf("%q is not a number", orig)
	}
	if neg {
		u.Neg(u)
	}
	scale -= exp
	if scale > 1000 || scale < -1000 {
		return nil, 0, fmt.Errorf("%q is out of range", orig)
	}
	return u, scale, nil
}

// floatDecimal is Java's BigDecimal.valueOf(double): the shortest decimal that reads back as
// f. It fails for NaN and infinities.
func floatDecimal(f float64) (*big.Int, int, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, 0, errors.New("infinite or NaN value cannot be a decimal")
	}
	var tmp [32]byte
	return parseJavaDecimal(string(strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)))
}

// toDecimal converts any numeric value to an exact decimal: integers exactly, floating-point
// numbers as BigDecimal.valueOf does.
func toDecimal(v row.Value) (*big.Int, int, error) {
	switch v.T {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return big.NewInt(v.I), 0, nil
	case types.Float:
		return floatDecimal(float64(v.Float32()))
	case types.Double:
		return floatDecimal(v.Float64())
	case types.Decimal:
		u := v.Unscaled()
		if u == nil {
			return nil, 0, errors.New("malformed decimal value")
		}
		return u, int(v.I), nil
	}
	return nil, 0, fmt.Errorf("%s is not a number", v.T)
}

// toDecimals is toDecimal of two values, failing when either fails.
func toDecimals(a, b row.Value) (ua *big.Int, sa int, ub *big.Int, sb int, err error) {
	if ua, sa, err = toDecimal(a); err == nil {
		ub, sb, err = toDecimal(b)
	}
	return ua, sa, ub, sb, err
}

// compareNumeric compares two numeric values exactly where it can (integers, decimals) and as
// float64 otherwise, as SeaTunnel compares numbers by their double value.
func compareNumeric(a, b row.Value) int {
	ai, bi := isInteger(a.T), isInteger(b.T)
	switch {
	case ai && bi:
		return cmp.Compare(a.I, b.I)
	case (ai || a.T == types.Decimal) && (bi || b.T == types.Decimal):
		ua, sa, ub, sb, err := toDecimals(a, b)
		if err != nil {
			break
		}
		return row.CompareDecimal(row.DecimalValue(ua, sa), row.DecimalValue(ub, sb))
	}
	fa, _ := a.AsFloat64()
	fb, _ := b.AsFloat64()
	return cmpFloat(fa, fb)
}

func isInteger(k types.Kind) bool { return k >= types.TinyInt && k <= types.BigInt }

// cmpFloat orders as Java's primitive comparisons do for the outcomes used here; NaN is
// unordered: it compares as 2, which no operator accepts except <>. Integers compare as
// cmp.Compare does.
func cmpFloat[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	}
	return 2
}

// seaEqual is SeaTunnel's equality of two non-null values: numbers by value whatever their
// types, everything else when of the same type and equal content.
func seaEqual(a, b row.Value) bool {
	if a.T.IsNumeric() && b.T.IsNumeric() {
		return compareNumeric(a, b) == 0
	}
	if a.T != b.T {
		return false
	}
	switch a.T {
	case types.String, types.Bytes:
		return a.S == b.S
	case types.Boolean, types.Date, types.Time, types.Timestamp:
		return a.I == b.I
	}
	return row.Equal(a, b)
}
