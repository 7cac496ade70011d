package jdbc

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// cell hands one row value to pgx without boxing it: pgx asks it for the Go value the
// target column's codec wants (Int64Value for bigint, TextValue for text, ...). A null is
// passed as a nil argument instead, so a cell is never null.
type cell struct{ v *row.Value }

// arg is the pgx argument of a value: nil for null, else a cell (a pointer-shaped value,
// so storing it in an interface allocates nothing).
func arg(v *row.Value) any {
	if v.T == types.Null {
		return nil
	}
	return cell{v}
}

func (c cell) mismatch(want string) error {
	return fmt.Errorf("a %s value (%s) cannot be written to a %s column", c.v.T, truncate(c.v.String(), 40), want)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func (c cell) Int64Value() (pgtype.Int8, error) {
	v := c.v
	switch {
	case v.T.IsInteger(), v.T == types.Boolean:
		return pgtype.Int8{Int64: v.I, Valid: true}, nil
	case v.T == types.Float || v.T == types.Double:
		f, _ := v.AsFloat64()
		if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
			return pgtype.Int8{}, c.mismatch("integer")
		}
		return pgtype.Int8{Int64: int64(f), Valid: true}, nil
	case v.T == types.Decimal:
		r := row.DecimalRat(*v)
		if r == nil || !r.IsInt() || !r.Num().IsInt64() {
			return pgtype.Int8{}, c.mismatch("integer")
		}
		return pgtype.Int8{Int64: r.Num().Int64(), Valid: true}, nil
	case v.T == types.String:
		n, err := strconv.ParseInt(strings.TrimSpace(v.S), 10, 64)
		if err != nil {
			return pgtype.Int8{}, c.mismatch("integer")
		}
		return pgtype.Int8{Int64: n, Valid: true}, nil
	}
	return pgtype.Int8{}, c.mismatch("integer")
}

func (c cell) Float64Value() (pgtype.Float8, error) {
	if f, ok := c.v.AsFloat64(); ok {
		return pgtype.Float8{Float64: f, Valid: true}, nil
	}
	if c.v.T == types.String {
		f, err := strconv.ParseFloat(strings.TrimSpace(c.v.S), 64)
		if err == nil {
			return pgtype.Float8{Float64: f, Valid: true}, nil
		}
	}
	return pgtype.Float8{}, c.mismatch("floating-point")
}

func (c cell) BoolValue() (pgtype.Bool, error) {
	switch c.v.T {
	case types.Boolean:
		return pgtype.Bool{Bool: c.v.I != 0, Valid: true}, nil
	case types.String:
		if b, err := strconv.ParseBool(c.v.S); err == nil {
			return pgtype.Bool{Bool: b, Valid: true}, nil
		}
	}
	if c.v.T.IsInteger() {
		return pgtype.Bool{Bool: c.v.I != 0, Valid: true}, nil
	}
	return pgtype.Bool{}, c.mismatch("boolean")
}

func (c cell) NumericValue() (pgtype.Numeric, error) {
	v := c.v
	switch {
	case v.T == types.Decimal:
		return pgtype.Numeric{Int: v.Unscaled(), Exp: int32(-v.DecimalScale()), Valid: true}, nil
	case v.T.IsInteger():
		return pgtype.Numeric{Int: big.NewInt(v.I), Valid: true}, nil
	case v.T == types.Float || v.T == types.Double:
		f, _ := v.AsFloat64()
		if math.IsNaN(f) {
			return pgtype.Numeric{NaN: true, Valid: true}, nil
		}
		if math.IsInf(f, 0) {
			return pgtype.Numeric{}, c.mismatch("numeric")
		}
		var n pgtype.Numeric
		if err := n.ScanScientific(strconv.FormatFloat(f, 'e', -1, 64)); err != nil {
			return pgtype.Numeric{}, c.mismatch("numeric")
		}
		return n, nil
	case v.T == types.String:
		var n pgtype.Numeric
		if err := n.ScanScientific(strings.TrimSpace(v.S)); err != nil {
			return pgtype.Numeric{}, c.mismatch("numeric")
		}
		return n, nil
	}
	return pgtype.Numeric{}, c.mismatch("numeric")
}

// TextValue writes a value as text: strings as they are, other scalars as SeaTunnel prints
// them.
func (c cell) TextValue() (pgtype.Text, error) {
	if c.v.T == types.String || c.v.T == types.Bytes {
		return pgtype.Text{String: c.v.S, Valid: true}, nil
	}
	return pgtype.Text{String: string(row.AppendText(nil, *c.v)), Valid: true}, nil
}

func (c cell) BytesValue() ([]byte, error) {
	switch c.v.T {
	case types.Bytes, types.String:
		return []byte(c.v.S), nil
	}
	return nil, c.mismatch("bytea")
}

func (c cell) DateValue() (pgtype.Date, error) {
	switch c.v.T {
	case types.Date:
		return pgtype.Date{Time: c.v.DateTime(), Valid: true}, nil
	case types.Timestamp:
		t := c.v.Time()
		return pgtype.Date{Time: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), Valid: true}, nil
	}
	return pgtype.Date{}, c.mismatch("date")
}

func (c cell) TimeValue() (pgtype.Time, error) {
	switch c.v.T {
	case types.Time:
		return pgtype.Time{Microseconds: c.v.I / 1000, Valid: true}, nil
	case types.Timestamp:
		day := int64(24 * time.Hour)
		ns := ((c.v.I % day) + day) % day
		return pgtype.Time{Microseconds: ns / 1000, Valid: true}, nil
	}
	return pgtype.Time{}, c.mismatch("time")
}

func (c cell) TimestampValue() (pgtype.Timestamp, error) {
	switch c.v.T {
	case types.Timestamp:
		return pgtype.Timestamp{Time: c.v.Time(), Valid: true}, nil
	case types.Date:
		return pgtype.Timestamp{Time: c.v.DateTime(), Valid: true}, nil
	}
	return pgtype.Timestamp{}, c.mismatch("timestamp")
}

func (c cell) TimestamptzValue() (pgtype.Timestamptz, error) {
	ts, err := c.TimestampValue()
	if err != nil {
		return pgtype.Timestamptz{}, err
	}
	return pgtype.Timestamptz{Time: ts.Time, Valid: true}, nil
}

// Dimensions, Index and IndexType write arrays to PostgreSQL array columns.
func (c cell) Dimensions() []pgtype.ArrayDimension {
	if c.v.T != types.Array {
		return nil
	}
	return []pgtype.ArrayDimension{{Length: int32(len(c.v.Elems())), LowerBound: 1}}
}

func (c cell) Index(i int) any {
	e := c.v.Elems()
	return arg(&e[i])
}

func (c cell) IndexType() any { return cell{} }
