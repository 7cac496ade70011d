package row

import (
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

func TestAppendJSONString(t *testing.T) {
	got := string(AppendJSONString(nil, "a\"b\\c\n\x01é"))
	if got != `"a\"b\\c\n\u0001é"` {
		t.Fatalf("%s", got)
	}
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
	}
}
