package row

import (
	"math"
	"math/big"
	"testing"
	"time"
)

func TestAppendText(t *testing.T) {
	ts := func(s string) Value {
		tm, err := time.Parse("2006-01-02T15:04:05.999999999", s)
		if err != nil {
			t.Fatal(err)
		}
		return TimestampOf(tm)
	}
	m := &MapValue{Keys: []Value{StringValue("k")}, Vals: []Value{IntValue(1)}}
	cases := []struct {
		v    Value
		want string
	}{
		{NullValue(), "null"},
		{StringValue("abc"), "abc"},
		{BoolValue(true), "true"},
		{TinyIntValue(-3), "-3"},
		{BigIntValue(1 << 40), "1099511627776"},
		{FloatValue(3.1), "3.1"},
		{DoubleValue(1), "1.0"},
		{DoubleValue(1e10), "1.0E10"},
		{DoubleValue(1.5e-7), "1.5E-7"},
		{DecimalValue(big.NewInt(-12345), 2), "-123.45"},
		{DecimalValue(big.NewInt(5), 3), "0.005"},
		{DateValue(15695), "2012-12-21"},
		{ts("2012-12-21T12:34:56"), "2012-12-21T12:34:56"},
		{ts("2012-12-21T12:34:00"), "2012-12-21T12:34"},
		{ts("2012-12-21T12:34:56.5"), "2012-12-21T12:34:56.500"},
		{ts("1969-12-31T23:59:59"), "1969-12-31T23:59:59"},
		{TimeValue(int64(12*time.Hour + 34*time.Minute + 56*time.Second)), "12:34:56"},
		{BytesValue([]byte{1, 255}), "[1, -1]"},
		{ArrayValue([]Value{IntValue(0), IntValue(1)}), "[0, 1]"},
		{RowValue([]Value{StringValue("a"), NullValue()}), "[a, null]"},
		{MapOfValues(m), `{"k":1}`},
	}
	for _, c := range cases {
		if got := c.v.String(); got != c.want {
			t.Errorf("%v: got %q, want %q", c.v.T, got, c.want)
		}
	}
}

func TestBatchArena(t *testing.T) {
	b := NewBatch(4)
	for i := 0; i < 10; i++ {
		r := b.Add(Insert, "t", 3)
		r.Fields[0] = IntValue(int32(i))
	}
	for i := range b.Rows {
		if b.Rows[i].Fields[0].I != int64(i) || len(b.Rows[i].Fields) != 3 {
			t.Fatalf("row %d = %+v", i, b.Rows[i])
		}
	}
	b.Filter(func(r *Row) bool { return r.Fields[0].I%2 == 0 })
	if b.Len() != 5 || b.Rows[4].Fields[0].I != 8 {
		t.Fatalf("filter: %d rows", b.Len())
	}
	c := b.Clone()
	b.Release()
	if c.Len() != 5 || c.Rows[2].Fields[0].I != 4 {
		t.Fatal("clone lost rows")
	}
}

func TestDecimal(t *testing.T) {
	v, err := ParseDecimal("99999.99999999", 30, 8)
	if err != nil || v.String() != "99999.99999999" {
		t.Fatalf("%v %v", v, err)
	}
	w, _ := ParseDecimal("99999.999999990", 30, 9)
	if !Equal(v, w) {
		t.Fatal("equal decimals of different scale differ")
	}
	if _, err := ParseDecimal("12345", 4, 0); err == nil {
		t.Fatal("want an overflow error")
	}
	r, _ := ParseDecimal("1.005", 10, 2)
	if r.String() != "1.01" {
		t.Fatalf("rounding: %s", r)
	}
}

func TestParseDecimalHugeExponent(t *testing.T) {
	if _, err := ParseDecimal("1e999999999", 38, 2); err == nil {
		t.Fatal("a huge exponent must be refused")
	}
}

func TestAppendJavaDecimal(t *testing.T) {
	for _, tc := range []struct {
		unscaled int64
		scale    int
		want     string
	}{
		{12345, 2, "123.45"},
		{-12345, 2, "-123.45"},
		{0, 2, "0.00"},
		{7, 0, "7"},
		{1, 6, "0.000001"},
		{1, 7, "1E-7"},
		{-123, 8, "-0.00000123"},
		{-123, 9, "-1.23E-7"},
		{1, -3, "1E+3"},
		{15, -2, "1.5E+3"},
		{123456789, 4, "12345.6789"},
	} {
		if got := string(AppendJavaDecimal(nil, DecimalValue(big.NewInt(tc.unscaled), tc.scale))); got != tc.want {
			t.Errorf("%dE-%d: %q, want %q (BigDecimal.toString)", tc.unscaled, tc.scale, got, tc.want)
		}
		// the same from the digits as text
		u := big.NewInt(tc.unscaled)
		if got := string(AppendJavaDecimalDigits(nil, u.Sign() < 0, new(big.Int).Abs(u).String(), int64(tc.scale))); got != tc.want {
			t.Errorf("digits of %dE-%d: %q, want %q", tc.unscaled, tc.scale, got, tc.want)
		}
	}
}

// TestAppendScalar checks the Java text of the scalars, and of the kinds it leaves to
// AppendText, where it differs from AppendText for decimals alone.
func TestAppendScalar(t *testing.T) {
	m := &MapValue{Keys: []Value{StringValue("k"), IntValue(2)}, Vals: []Value{IntValue(1), NullValue()}}
	for _, c := range []struct {
		v          Value
		text, java string // AppendText's and AppendScalar's, when they differ
	}{
		{v: NullValue(), text: "null"},
		{v: StringValue("a b"), text: "a b"},
		{v: BoolValue(false), text: "false"},
		{v: IntValue(-7), text: "-7"},
		{v: FloatValue(1e10), text: "1.0E10"},
		{v: DoubleValue(0.5), text: "0.5"},
		{v: DateValue(0), text: "1970-01-01"},
		{v: TimeValue(int64(5 * time.Second)), text: "00:00:05"},
		{v: TimestampValue(-1), text: "1969-12-31T23:59:59.999999999"},
		{v: DecimalValue(big.NewInt(1), 7), text: "0.0000001", java: "1E-7"},
		{v: DecimalValue(big.NewInt(15), -2), text: "1500", java: "1.5E+3"},
		{v: BytesValue([]byte{1, 2}), text: "[1, 2]"},
		{v: ArrayValue([]Value{DecimalValue(big.NewInt(1), 7)}), text: "[0.0000001]"},
		{v: MapOfValues(m), text: `{"k":1,"2":null}`},
	} {
		if c.java == "" {
			c.java = c.text
		}
		if got := string(AppendText(nil, c.v)); got != c.text {
			t.Errorf("AppendText(%v) = %q, want %q", c.v.T, got, c.text)
		}
		if got := string(AppendScalar(nil, c.v)); got != c.java {
			t.Errorf("AppendScalar(%v) = %q, want %q", c.v.T, got, c.java)
		}
	}
	if got := string(AppendJavaMap(nil, m, AppendScalar)); got != "{k=1, 2=null}" {
		t.Errorf("AppendJavaMap: %q", got)
	}
	if got := string(AppendJavaMap(nil, nil, AppendScalar)); got != "{}" {
		t.Errorf("AppendJavaMap of nil: %q", got)
	}
	if got := string(AppendJavaList(nil, []Value{IntValue(1), StringValue("x")}, AppendScalar)); got != "[1, x]" {
		t.Errorf("AppendJavaList: %q", got)
	}
}

func TestAppendJSONNonFinite(t *testing.T) {
	v := ArrayValue([]Value{DoubleValue(math.NaN()), FloatValue(float32(math.Inf(-1))), DoubleValue(1.5)})
	if got := string(AppendJSON(nil, v)); got != "[null,null,1.5]" {
		t.Errorf("AppendJSON: %s", got)
	}
	if got := string(AppendJSONNonFiniteStrings(nil, v)); got != `["NaN","-Infinity",1.5]` {
		t.Errorf("AppendJSONNonFiniteStrings: %s", got)
	}
}

// BenchmarkAppendText formats a row of scalars of every common kind, as the Console sink and
// the text formats do.
func BenchmarkAppendText(b *testing.B) {
	vals := []Value{IntValue(42), BigIntValue(-1 << 40), StringValue("Joy Ding"), BoolValue(true),
		DoubleValue(3.25), FloatValue(1e10), DecimalValue(big.NewInt(12345), 2), DateValue(19000),
		TimestampValue(1_700_000_000_123_000_000), NullValue()}
	buf := make([]byte, 0, 256)
	for b.Loop() {
		buf = buf[:0]
		for _, v := range vals {
			buf = AppendText(buf, v)
		}
	}
}
