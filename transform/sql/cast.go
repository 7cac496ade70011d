package sql

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/internal/civil"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// castType maps a CAST target to a type. SeaTunnel's names: STRING, VARCHAR, INT, INTEGER,
// BIGINT, LONG, BYTE, BYTES, DOUBLE, FLOAT, DECIMAL(p, s), TIMESTAMP, DATETIME, DATE, TIME;
// Strait adds BOOLEAN, TINYINT and SMALLINT.
func castType(tn TypeName) (types.DataType, error) {
	name := strings.ToUpper(tn.Name)
	simple := map[string]types.Kind{
		"STRING": types.String, "VARCHAR": types.String, "INT": types.Int, "INTEGER": types.Int,
		"BIGINT": types.BigInt, "LONG": types.BigInt, "BYTE": types.TinyInt, "TINYINT": types.TinyInt,
		"SMALLINT": types.SmallInt, "BYTES": types.Bytes, "DOUBLE": types.Double, "FLOAT": types.Float,
		"TIMESTAMP": types.Timestamp, "DATETIME": types.Timestamp, "DATE": types.Date,
		"TIME": types.Time, "BOOLEAN": types.Boolean,
	}
	if name == "DECIMAL" || name == "NUMERIC" {
		switch len(tn.Args) {
		case 1:
			tn.Args = append(tn.Args, 0)
		case 2:
		default:
			return types.DataType{}, errors.New("DECIMAL needs a precision and a scale, as DECIMAL(10, 2)")
		}
		p, s := tn.Args[0], tn.Args[1]
		if p < 1 || p > 38 || s < 0 || s > p {
			return types.DataType{}, fmt.Errorf("DECIMAL(%d, %d) is out of range: precision 1..38, scale 0..precision", p, s)
		}
		return types.DecimalOf(p, s), nil
	}
	k, ok := simple[name]
	if !ok {
		return types.DataType{}, fmt.Errorf("unknown type %s for CAST; supported: STRING, VARCHAR, INT, INTEGER, BIGINT, LONG, BYTE, BYTES, DOUBLE, FLOAT, DECIMAL(p, s), TIMESTAMP, DATETIME, DATE, TIME, BOOLEAN", tn.Name)
	}
	switch {
	case len(tn.Args) == 0:
	case len(tn.Args) == 1 && (k == types.String || k == types.Bytes || k == types.Timestamp || k == types.Time):
		// VARCHAR(255), TIMESTAMP(3): the argument is accepted and ignored
	default:
		return types.DataType{}, fmt.Errorf("%s takes no arguments", tn.Name)
	}
	return types.Of(k), nil
}

func (c *compiler) cast(n *Cast) (*expr, *Error) {
	x, err := c.compile(n.X)
	if err != nil {
		return nil, err
	}
	t, terr := castType(n.Type)
	if terr != nil {
		return nil, c.errAtOff(n.Type.Off, "%v", terr)
	}
	return c.convert(n, x, t)
}

// implicit converts a branch or argument to the common type chosen for it.
func (c *compiler) implicit(x *expr, t types.DataType) (*expr, *Error) {
	if x.t.Equal(t) {
		return x, nil
	}
	return c.convert(x.node, x, t)
}

// convert builds CAST(x AS t) with SeaTunnel's conversion rules.
func (c *compiler) convert(n Node, x *expr, t types.DataType) (*expr, *Error) {
	if x.t.Equal(t) {
		cp := *x
		cp.node = n
		return &cp, nil
	}
	if x.kind() == types.Null {
		return constExpr(t, row.Value{}, n), nil
	}
	conv, err := converter(x.t, t)
	if err != nil {
		return nil, c.errf(n, "%v", err)
	}
	ev := x.eval
	e := &expr{t: t, node: n, volatile: x.volatile}
	if x.kind() == types.Time && t.Kind == types.Timestamp {
		// today's date with the time: depends on the clock
		e.volatile = true
	}
	e.eval = func(fr *frame) row.Value {
		v := ev(fr)
		if v.T == types.Null {
			return v
		}
		r, err := conv(fr, v)
		if err != nil {
			fr.fail(err)
			return row.Value{}
		}
		return r
	}
	return c.fold(e.complete(), x)
}

type convFn func(fr *frame, v row.Value) (row.Value, error)

// converter returns the conversion of non-null values of type from to type to.
func converter(from, to types.DataType) (convFn, error) {
	fk := from.Kind
	unsupported := fmt.Errorf("cannot cast %s to %s", from, to)
	if isComposite(fk) || isComposite(to.Kind) {
		return nil, unsupported
	}
	switch to.Kind {
	case types.String:
		return func(_ *frame, v row.Value) (row.Value, error) { return row.StringValue(text(v)), nil }, nil
	case types.Bytes:
		return func(_ *frame, v row.Value) (row.Value, error) {
			return row.Value{T: types.Bytes, S: text(v)}, nil
		}, nil
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		k := to.Kind
		lo, hi := intRange(k)
		switch {
		case fk.IsInteger():
			return func(_ *frame, v row.Value) (row.Value, error) {
				if v.I < lo || v.I > hi {
					return row.Value{}, fmt.Errorf("%d is out of range for %s", v.I, k)
				}
				return row.Value{T: k, I: v.I}, nil
			}, nil
		case fk == types.Float || fk == types.Double || fk == types.Decimal:
			return func(_ *frame, v row.Value) (row.Value, error) {
				if fk == types.Decimal {
					u, s, err := toDecimal(v)
					if err != nil {
						return row.Value{}, err
					}
					q := rescale(u, s, 0, down)
					if !q.IsInt64() || q.Int64() < lo || q.Int64() > hi {
						return row.Value{}, fmt.Errorf("%s is out of range for %s", text(v), k)
					}
					return row.Value{T: k, I: q.Int64()}, nil
				}
				f, _ := v.AsFloat64()
				f = math.Trunc(f)
				if math.IsNaN(f) || f < float64(lo) || f > float64(hi) {
					return row.Value{}, fmt.Errorf("%s is out of range for %s", text(v), k)
				}
				return row.Value{T: k, I: int64(f)}, nil
			}, nil
		case fk == types.String:
			return func(_ *frame, v row.Value) (row.Value, error) {
				n, err := parseJavaInt(v.S)
				if err != nil || n < lo || n > hi {
					return row.Value{}, fmt.Errorf("cannot cast %s to %s", quoteString(v.S), k)
				}
				return row.Value{T: k, I: n}, nil
			}, nil
		case fk == types.Boolean:
			return func(_ *frame, v row.Value) (row.Value, error) { return row.Value{T: k, I: v.I}, nil }, nil
		}
	case types.Float, types.Double:
		k := to.Kind
		mk := func(f float64) row.Value {
			if k == types.Float {
				return row.FloatValue(float32(f))
			}
			return row.DoubleValue(f)
		}
		switch {
		case fk.IsNumeric():
			return func(_ *frame, v row.Value) (row.Value, error) {
				f, _ := v.AsFloat64()
				return mk(f), nil
			}, nil
		case fk == types.String:
			return func(_ *frame, v row.Value) (row.Value, error) {
				f, err := parseJavaDouble(v.S)
				if err != nil {
					return row.Value{}, fmt.Errorf("cannot cast %s to %s", quoteString(v.S), k)
				}
				return mk(f), nil
			}, nil
		}
	case types.Decimal:
		scale := to.Scale
		switch {
		case fk.IsNumeric():
			return func(_ *frame, v row.Value) (row.Value, error) {
				u, s, err := toDecimal(v)
				if err != nil {
					return row.Value{}, err
				}
				return decimalOf(rescale(u, s, scale, ceiling), scale), nil
			}, nil
		case fk == types.String:
			return func(_ *frame, v row.Value) (row.Value, error) {
				u, s, err := parseJavaDecimal(v.S)
				if err != nil {
					return row.Value{}, fmt.Errorf("cannot cast %s to %s", quoteString(v.S), to)
				}
				return decimalOf(rescale(u, s, scale, ceiling), scale), nil
			}, nil
		}
	case types.Timestamp:
		switch fk {
		case types.Date:
			return func(_ *frame, v row.Value) (row.Value, error) {
				return row.TimestampValue(v.I * civil.NanosPerDay), nil
			}, nil
		case types.Time:
			return func(fr *frame, v row.Value) (row.Value, error) {
				days := row.DateOf(fr.clock()).I
				return row.TimestampValue(days*civil.NanosPerDay + v.I), nil
			}, nil
		case types.BigInt:
			// epoch milliseconds, seen in the local time zone
			return func(_ *frame, v row.Value) (row.Value, error) {
				t := time.UnixMilli(v.I).In(localZone)
				return row.TimestampOf(t), nil
			}, nil
		case types.String:
			return func(_ *frame, v row.Value) (row.Value, error) {
				ts, err := parseISOTimestamp(v.S)
				if err != nil {
					return row.Value{}, fmt.Errorf("cannot cast %s to TIMESTAMP: %v", quoteString(v.S), err)
				}
				return row.TimestampValue(ts), nil
			}, nil
		}
	case types.Date:
		switch fk {
		case types.Timestamp:
			return func(_ *frame, v row.Value) (row.Value, error) {
				d, _ := civil.SplitTimestamp(v.I)
				return row.DateValue(d), nil
			}, nil
		case types.TinyInt, types.SmallInt, types.Int:
			// yyyyMMdd
			return func(_ *frame, v row.Value) (row.Value, error) {
				y, m, d := v.I/10000, int((v.I/100)%100), int(v.I%100)
				if m < 1 || m > 12 || d < 1 || d > civil.MonthLength(y, m) {
					return row.Value{}, fmt.Errorf("%d is not a date written as yyyyMMdd", v.I)
				}
				return row.DateValue(civil.EpochDay(y, m, d)), nil
			}, nil
		case types.String:
			return func(_ *frame, v row.Value) (row.Value, error) {
				d, err := parseISODate(strings.TrimSpace(v.S))
				if err != nil {
					ts, err2 := parseISOTimestamp(v.S)
					if err2 != nil {
						return row.Value{}, fmt.Errorf("cannot cast %s to DATE: %v", quoteString(v.S), err)
					}
					d, _ = civil.SplitTimestamp(ts)
				}
				return row.DateValue(d), nil
			}, nil
		}
	case types.Time:
		switch fk {
		case types.Timestamp:
			return func(_ *frame, v row.Value) (row.Value, error) {
				_, n := civil.SplitTimestamp(v.I)
				return row.TimeValue(n), nil
			}, nil
		case types.Date:
			return func(_ *frame, v row.Value) (row.Value, error) { return row.TimeValue(0), nil }, nil
		case types.TinyInt, types.SmallInt, types.Int:
			// HHmmss
			return func(_ *frame, v row.Value) (row.Value, error) {
				h, m, s := v.I/10000, (v.I/100)%100, v.I%100
				if v.I < 0 || h > 23 || m > 59 || s > 59 {
					return row.Value{}, fmt.Errorf("%d is not a time written as HHmmss", v.I)
				}
				return row.TimeValue(h*civil.NanosPerHour + m*civil.NanosPerMinute + s*civil.NanosPerSecond), nil
			}, nil
		case types.String:
			return func(_ *frame, v row.Value) (row.Value, error) {
				t, err := parseISOTime(strings.TrimSpace(v.S))
				if err != nil {
					return row.Value{}, fmt.Errorf("cannot cast %s to TIME: %v", quoteString(v.S), err)
				}
				return row.TimeValue(t), nil
			}, nil
		}
	case types.Boolean:
		switch {
		case fk == types.String:
			return func(_ *frame, v row.Value) (row.Value, error) {
				switch strings.ToLower(strings.TrimSpace(v.S)) {
				case "true":
					return row.BoolValue(true), nil
				case "false":
					return row.BoolValue(false), nil
				}
				return row.Value{}, fmt.Errorf("cannot cast %s to BOOLEAN", quoteString(v.S))
			}, nil
		case fk.IsNumeric():
			return func(_ *frame, v row.Value) (row.Value, error) {
				f, _ := v.AsFloat64()
				return row.BoolValue(f != 0), nil
			}, nil
		}
	}
	return nil, unsupported
}

func intRange(k types.Kind) (int64, int64) {
	switch k {
	case types.TinyInt:
		return math.MinInt8, math.MaxInt8
	case types.SmallInt:
		return math.MinInt16, math.MaxInt16
	case types.Int:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// parseJavaInt reads an integer as Java's Long.parseLong: an optional sign and digits.
func parseJavaInt(s string) (int64, error) {
	if s == "" || s == "+" || s == "-" {
		return 0, errors.New("not a number")
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && !(i == 0 && (s[i] == '+' || s[i] == '-')) {
			return 0, errors.New("not a number")
		}
	}
	return strconv.ParseInt(s, 10, 64)
}

// parseJavaDouble reads a number as Java's Double.parseDouble: surrounding white space is
// ignored, NaN and Infinity are accepted, as is a trailing d or f.
func parseJavaDouble(s string) (float64, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "NaN", "+NaN", "-NaN":
		return math.NaN(), nil
	case "Infinity", "+Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	}
	if n := len(s); n > 1 && strings.IndexByte("dDfF", s[n-1]) >= 0 && !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		s = s[:n-1]
	}
	if s == "" || strings.ContainsAny(s, "_inIN") {
		return 0, errors.New("not a number")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return f, nil
		}
		return 0, err
	}
	return f, nil
}

// ISO forms for literals and casts from strings: 2024-01-31, 12:30[:45[.123456789]],
// 2024-01-31[T| ]12:30[:45[.fff]] (or a date alone, at midnight).

func parseISODate(s string) (int64, error) {
	neg := false
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		neg = s[0] == '-'
		s = s[1:]
	}
	parts := strings.Split(s, "-")
	if len(parts) != 3 || len(parts[0]) < 4 || len(parts[1]) != 2 || len(parts[2]) != 2 {
		return 0, errors.New("expected yyyy-MM-dd")
	}
	y, err1 := strconv.ParseInt(parts[0], 10, 64)
	m, err2 := strconv.Atoi(parts[1])
	d, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || !allDigits(parts[0]+parts[1]+parts[2]) || y > 999999999 {
		return 0, errors.New("expected yyyy-MM-dd")
	}
	if neg {
		y = -y
	}
	if m < 1 || m > 12 || d < 1 || d > civil.MonthLength(y, m) {
		return 0, errors.New("no such day")
	}
	return civil.EpochDay(y, m, d), nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func parseISOTime(s string) (int64, error) {
	frac := ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		frac = s[i+1:]
		s = s[:i]
		if frac == "" || len(frac) > 9 || !allDigits(frac) {
			return 0, errors.New("bad fraction of a second")
		}
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 || frac != "" && len(parts) != 3 {
		return 0, errors.New("expected HH:mm[:ss[.fraction]]")
	}
	var v [3]int64
	for i, p := range parts {
		if len(p) != 2 || !allDigits(p) {
			return 0, errors.New("expected HH:mm[:ss[.fraction]]")
		}
		n, _ := strconv.Atoi(p)
		v[i] = int64(n)
	}
	if v[0] > 23 || v[1] > 59 || v[2] > 59 {
		return 0, errors.New("no such time of day")
	}
	nanos := v[0]*civil.NanosPerHour + v[1]*civil.NanosPerMinute + v[2]*civil.NanosPerSecond
	if frac != "" {
		f, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
		nanos += f
	}
	return nanos, nil
}

func parseISOTimestamp(s string) (int64, error) {
	s = strings.TrimSpace(s)
	sep := strings.IndexAny(s, "T ")
	if sep < 0 {
		d, err := parseISODate(s)
		if err != nil {
			return 0, errors.New("expected yyyy-MM-dd[ HH:mm[:ss[.fraction]]]")
		}
		if d > math.MaxInt64/civil.NanosPerDay-1 || d < math.MinInt64/civil.NanosPerDay+1 {
			return 0, errors.New("out of the range of timestamps (years 1677 to 2262)")
		}
		return d * civil.NanosPerDay, nil
	}
	d, err := parseISODate(s[:sep])
	if err != nil {
		return 0, err
	}
	t, err := parseISOTime(strings.TrimSpace(s[sep+1:]))
	if err != nil {
		return 0, err
	}
	if d > math.MaxInt64/civil.NanosPerDay-1 || d < math.MinInt64/civil.NanosPerDay+1 {
		return 0, errors.New("out of the range of timestamps (years 1677 to 2262)")
	}
	return d*civil.NanosPerDay + t, nil
}
