package codec

import (
	"testing"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// FuzzDecodeBatch feeds arbitrary bytes to the decoder: it must fail cleanly or decode a batch
// that encodes and decodes again to the same rows.
func FuzzDecodeBatch(f *testing.F) {
	seeds := []*row.Batch{benchBatch(3)}
	b := row.NewBatch(0)
	r := b.Add(row.UpdateBefore, "a.b", 9)
	r.Fields[0] = row.NullValue()
	r.Fields[1] = row.BoolValue(true)
	r.Fields[2] = row.TinyIntValue(-3)
	r.Fields[3] = row.SmallIntValue(-300)
	r.Fields[4] = row.FloatValue(1.5)
	r.Fields[5] = decimal("-1234567890123456789012", 6)
	r.Fields[6] = row.BytesValue([]byte{0, 1})
	r.Fields[7] = row.ArrayValue([]row.Value{row.StringValue("x"), row.DateValue(-5), row.TimeValue(1e12)})
	r.Fields[8] = row.MapOfValues(&row.MapValue{
		Keys: []row.Value{row.StringValue("k")},
		Vals: []row.Value{row.RowValue([]row.Value{row.IntValue(7), row.Value{T: types.Map}})},
	})
	b.Add(row.Delete, "other", 0)
	seeds = append(seeds, b)
	for _, s := range seeds {
		f.Add(AppendBatch(nil, s))
	}
	f.Add([]byte{})
	f.Add([]byte{Version})
	// Batches kept across inputs, as a receiver keeps pooled batches warm: the fuzzer then
	// measures decoding, not the first fill of a batch's arena.
	got, again := row.NewBatch(0), row.NewBatch(0)
	var buf []byte
	f.Fuzz(func(t *testing.T, data []byte) {
		got.Reset()
		again.Reset()
		if err := DecodeBatch(data, got); err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if got.Len() != 0 {
				t.Fatalf("a failed decode left %d rows", got.Len())
			}
			return
		}
		buf = AppendBatch(buf[:0], got)
		if err := DecodeBatch(buf, again); err != nil {
			t.Fatalf("re-encoded batch does not decode: %v", err)
		}
		sameBatch(t, got, again)
	})
}
