// Package row holds Strait's in-memory data: typed values, rows with a kind and a table id,
// and pooled batches of rows that operators pass to each other.
//
// A Value is a small tagged union. Scalars live unboxed in I (integers, booleans, dates,
// times, timestamps and the bits of floats) or S (strings and bytes); only decimals and the
// composite types (array, map, nested row) use the X field. So a batch of numeric rows costs
// no allocation per value.
package row

import (
	"math"
	"math/big"
	"time"

	"github.com/strait-dev/strait/types"
)

// Value is one field value. T is the value's runtime type; types.Null marks a null.
type Value struct {
	T types.Kind
	I int64
	S string
	X any
}

// SetScalar makes v the scalar of kind k held in I (integers, booleans, dates, times,
// timestamps, float bits), writing only the words that change. Kernels that rewrite a batch
// in place mostly overwrite scalars; skipping the pointer words that are already empty
// spares the garbage collector's write barriers while it marks.
func (v *Value) SetScalar(k types.Kind, i int64) {
	v.T, v.I = k, i
	if v.S != "" {
		v.S = ""
	}
	if v.X != nil {
		v.X = nil
	}
}

// SetString makes v the string s, writing only the words that change (see SetScalar).
func (v *Value) SetString(s string) {
	v.T, v.I, v.S = types.String, 0, s
	if v.X != nil {
		v.X = nil
	}
}

// SetNull makes v null, writing only the words that change (see SetScalar).
func (v *Value) SetNull() { v.SetScalar(types.Null, 0) }

// MapValue is a map with its entries in insertion order.
type MapValue struct {
	Keys []Value
	Vals []Value
}

// Constructors. Each returns a value tagged with its exact SeaTunnel type.

func NullValue() Value           { return Value{} }
func StringValue(s string) Value { return Value{T: types.String, S: s} }
func BytesValue(b []byte) Value  { return Value{T: types.Bytes, S: string(b)} }
func BoolValue(b bool) Value {
	v := Value{T: types.Boolean}
	if b {
		v.I = 1
	}
	return v
}
func TinyIntValue(n int8) Value      { return Value{T: types.TinyInt, I: int64(n)} }
func SmallIntValue(n int16) Value    { return Value{T: types.SmallInt, I: int64(n)} }
func IntValue(n int32) Value         { return Value{T: types.Int, I: int64(n)} }
func BigIntValue(n int64) Value      { return Value{T: types.BigInt, I: n} }
func FloatValue(f float32) Value     { return Value{T: types.Float, I: int64(math.Float32bits(f))} }
func DoubleValue(f float64) Value    { return Value{T: types.Double, I: int64(math.Float64bits(f))} }
func ArrayValue(elems []Value) Value { return Value{T: types.Array, X: elems} }
func MapOfValues(m *MapValue) Value  { return Value{T: types.Map, X: m} }
func RowValue(fields []Value) Value  { return Value{T: types.Row, X: fields} }

// DecimalValue holds unscaled * 10^-scale. The big.Int is owned by the value.
func DecimalValue(unscaled *big.Int, scale int) Value {
	return Value{T: types.Decimal, I: int64(scale), X: unscaled}
}

// DateValue holds a calendar date as days since 1970-01-01.
func DateValue(days int64) Value { return Value{T: types.Date, I: days} }

// TimeValue holds a time of day in nanoseconds since midnight.
func TimeValue(nanos int64) Value { return Value{T: types.Time, I: nanos} }

// TimestampValue holds a zone-less date and time as nanoseconds since 1970-01-01T00:00:00.
func TimestampValue(nanos int64) Value { return Value{T: types.Timestamp, I: nanos} }

// DateOf, TimeOf and TimestampOf convert from a time.Time, reading its wall clock fields.
func DateOf(t time.Time) Value {
	y, m, d := t.Date()
	return DateValue(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func TimeOf(t time.Time) Value {
	h, mi, s := t.Clock()
	return TimeValue(int64(h)*int64(time.Hour) + int64(mi)*int64(time.Minute) + int64(s)*int64(time.Second) + int64(t.Nanosecond()))
}

func TimestampOf(t time.Time) Value {
	y, m, d := t.Date()
	h, mi, s := t.Clock()
	return TimestampValue(time.Date(y, m, d, h, mi, s, t.Nanosecond(), time.UTC).UnixNano())
}

// Accessors. They read the representation without checking T; callers check T first.

func (v Value) IsNull() bool             { return v.T == types.Null }
func (v Value) Bool() bool               { return v.I != 0 }
func (v Value) Int() int64               { return v.I }
func (v Value) Float32() float32         { return math.Float32frombits(uint32(v.I)) }
func (v Value) Float64() float64         { return math.Float64frombits(uint64(v.I)) }
func (v Value) Str() string              { return v.S }
func (v Value) Bytes() []byte            { return []byte(v.S) }
func (v Value) Elems() []Value           { e, _ := v.X.([]Value); return e }
func (v Value) Map() *MapValue           { m, _ := v.X.(*MapValue); return m }
func (v Value) Fields() []Value          { e, _ := v.X.([]Value); return e }
func (v Value) Unscaled() *big.Int       { b, _ := v.X.(*big.Int); return b }
func (v Value) DecimalScale() int        { return int(v.I) }
func (v Value) Time() time.Time          { return time.Unix(0, v.I).UTC() }
func (v Value) DateTime() time.Time      { return time.Unix(v.I*86400, 0).UTC() }
func (v Value) TimeOfDay() time.Duration { return time.Duration(v.I) }

// AsFloat64 converts any numeric value to float64 (decimals approximately); ok is false for
// non-numbers.
func (v Value) AsFloat64() (f float64, ok bool) {
	switch v.T {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return float64(v.I), true
	case types.Float:
		return float64(v.Float32()), true
	case types.Double:
		return v.Float64(), true
	case types.Decimal:
		return DecimalFloat64(v), true
	}
	return 0, false
}

// Clone returns a deep copy: composite values share nothing with the original.
func (v Value) Clone() Value {
	switch v.T {
	case types.Decimal:
		v.X = new(big.Int).Set(v.Unscaled())
	case types.Array, types.Row:
		v.X = cloneValues(v.Fields())
	case types.Map:
		m := v.Map()
		v.X = &MapValue{Keys: cloneValues(m.Keys), Vals: cloneValues(m.Vals)}
	}
	return v
}

func cloneValues(in []Value) []Value {
	if in == nil {
		return nil
	}
	out := make([]Value, len(in))
	for i := range in {
		out[i] = in[i].Clone()
	}
	return out
}
