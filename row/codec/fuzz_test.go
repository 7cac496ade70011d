package codec

import (
	"testing"

	"github.com/strait-dev/strait/row/rowtest"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// FuzzDecodeBatch feeds arbitrary bytes to the decoder: it must fail cleanly or decode a batch
// that encodes and decodes again to the same rows.
func FuzzDecodeBatch(f *testing.F) {
	seeds := []*row.Batch{rowtest.Batch(3)}
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

	// Batches in the column layout: nulls, mixed row kinds, every kind, a column of nulls. One
	// value of each kind and few rows keep the seeds small, so the fuzzer's mutants are small.
	var kinds []row.Value
	seen := map[types.Kind]bool{}
	for _, k := range everyKind() {
		if !seen[k.v.T] {
			seen[k.v.T] = true
			kinds = append(kinds, k.v)
		}
	}
	c := row.NewBatch(0)
	for i := 0; i < 3; i++ {
		r := c.Add(row.Kind(i), "db.t", len(kinds))
		for j, v := range kinds {
			r.Fields[j] = v
			if (i+j)%3 == 0 {
				r.Fields[j] = row.NullValue()
			}
		}
	}
	seeds = append(seeds, c)
	nulls := row.NewBatch(0)
	for i := 0; i < 3; i++ {
		r := nulls.Add(row.Insert, "n", 3)
		r.Fields[1] = row.StringValue("s")
		if i == 1 {
			r.Fields[2] = dec("-1.25")
		}
	}
	seeds = append(seeds, nulls)
	for _, s := range seeds {
		f.Add(AppendBatch(nil, s))
		f.Add(encodeRows(s))
	}
	f.Add([]byte{})
	f.Add([]byte{FormatRows})
	f.Add([]byte{FormatColumns})
	f.Add(mkCols(0, 0, []byte{0}, "", ""))
	f.Add(mkCols(2, 1, []byte{kindsPerRow, 1, 2, byte(types.Int), 1, 1, 0, 0, 0, 0, 7, 0, 0, 0}, "t", ""))
	// Batches kept across inputs, as a receiver keeps pooled batches warm: the fuzzer then
	// measures decoding, not the first fill of a batch's arena.
	got, again := row.NewBatch(0), row.NewBatch(0)
	var buf []byte
	var rowEncoder encoder
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
		if buf[0] == FormatColumns {
			// the row layout holds the same rows
			again.Reset()
			buf = rowEncoder.appendRows(buf[:0], got.Rows)
			rowEncoder.reset()
			if err := DecodeBatch(buf, again); err != nil {
				t.Fatalf("re-encoded batch in the row layout does not decode: %v", err)
			}
			sameBatch(t, got, again)
		}
	})
}
