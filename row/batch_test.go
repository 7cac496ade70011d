package row

import (
	"fmt"
	"testing"
)

// TestBatchEncoded holds rows known by their encoded form beside rows known by their fields:
// each keeps its form through a cut, a filter, a clone and a reset.
func TestBatchEncoded(t *testing.T) {
	b := NewBatch(8)
	defer b.Release()
	b.Add(Insert, "t", 1).Fields[0] = BigIntValue(0)
	b.AddEncoded(Insert, "t", []byte(`{"id":1}`))
	b.Add(Insert, "t", 1).Fields[0] = BigIntValue(2)
	b.Add(Insert, "t", 1) // a row cut off again, as a decoder that fails cuts its row
	b.Rows = b.Rows[:3]
	b.AddEncoded(Insert, "t", []byte(`{"id":3}`))
	b.Add(Insert, "t", 1).Fields[0] = BigIntValue(4)
	b.Rows = b.Rows[:4]
	b.AddEncoded(Insert, "t", []byte(`{"id":5}`))
	form := func(b *Batch) string {
		s := ""
		for i := range b.Rows {
			if enc := b.EncodedOf(i); enc != nil {
				s += string(enc) + " "
			} else {
				s += fmt.Sprintf("%d(%d) ", b.Rows[i].Fields[0].I, b.RowSize(i))
			}
		}
		return s
	}
	if got, want := form(b), `0(8) {"id":1} 2(8) {"id":3} {"id":5} `; got != want {
		t.Fatalf("rows %q, want %q", got, want)
	}
	if b.RowSize(1) != len(`{"id":1}`) {
		t.Fatalf("size of an encoded row %d", b.RowSize(1))
	}
	c := b.Clone()
	defer c.Release()
	b.Filter(func(r *Row) bool { return r.Fields == nil || r.Fields[0].I != 0 })
	if got, want := form(b), `{"id":1} 2(8) {"id":3} {"id":5} `; got != want {
		t.Fatalf("filtered %q, want %q", got, want)
	}
	b.Filter(func(r *Row) bool { return r.Fields != nil })
	if got, want := form(b), `2(8) `; got != want {
		t.Fatalf("filtered %q, want %q", got, want)
	}
	if got, want := form(c), `0(8) {"id":1} 2(8) {"id":3} {"id":5} `; got != want {
		t.Fatalf("clone %q, want %q", got, want)
	}
	c.Reset()
	c.Add(Insert, "t", 1)
	if c.EncodedOf(0) != nil {
		t.Fatal("a reset batch kept an encoded form")
	}
}

func TestValueSize(t *testing.T) {
	for _, c := range []struct {
		v    Value
		want int
	}{
		{Value{}, 0}, {StringValue("abc"), 3}, {BoolValue(true), 1}, {TinyIntValue(1), 1}, {SmallIntValue(1), 2},
		{IntValue(1), 4}, {FloatValue(1), 4}, {BigIntValue(1), 8}, {DoubleValue(1), 8}, {TimestampValue(1), 48},
		{ArrayValue([]Value{StringValue("ab"), BigIntValue(1)}), 10},
	} {
		if got := c.v.Size(); got != c.want {
			t.Errorf("size of %s %v: %d, want %d", c.v.T, c.v, got, c.want)
		}
	}
}
