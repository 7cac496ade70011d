package codec

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/strait-dev/strait/row/rowtest"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// encodeColumns encodes b in the column layout; b must fit it.
func encodeColumns(t testing.TB, b *row.Batch) []byte {
	t.Helper()
	var e encoder
	enc, ok := e.appendColumns(nil, b.Rows)
	if !ok {
		t.Fatalf("the batch does not fit the column layout")
	}
	return enc
}

// columnBatch builds n rows of table "db.t" and three columns: v in every row but the null
// rows, a bigint, and v in every row. mixed cycles the row kinds.
func columnBatch(n int, v row.Value, nullRows []int, mixed bool) *row.Batch {
	b := row.NewBatch(0)
	for i := 0; i < n; i++ {
		kind := row.Insert
		if mixed {
			kind = row.Kind(i % 4)
		}
		r := b.Add(kind, "db.t", 3)
		r.Fields[0] = v
		r.Fields[1] = row.BigIntValue(int64(i) - 5)
		r.Fields[2] = v
	}
	for _, i := range nullRows {
		if i < n {
			b.Rows[i].Fields[0] = row.NullValue()
		}
	}
	return b
}

func TestColumnRoundTripEveryKind(t *testing.T) {
	for _, c := range everyKind() {
		for _, n := range []int{1, 8, 11} {
			for _, nulls := range [][]int{nil, {0}, {n - 1}, {0, 3, 7, 10}} {
				for _, mixed := range []bool{false, true} {
					name := fmt.Sprintf("%s/%d rows/nulls %v/mixed %v", c.name, n, nulls, mixed)
					t.Run(name, func(t *testing.T) {
						b := columnBatch(n, c.v, nulls, mixed)
						defer b.Release()
						if enc := roundTrip(t, b); enc[0] != FormatColumns {
							t.Fatalf("format %d, want the column layout", enc[0])
						}
					})
				}
			}
		}
	}
	t.Run("every kind in one batch", func(t *testing.T) {
		cases := everyKind()
		b := row.NewBatch(0)
		defer b.Release()
		for i := 0; i < 13; i++ {
			r := b.Add(row.Kind(i%3), "db.schema.table", len(cases))
			for j, c := range cases {
				r.Fields[j] = c.v
				if (i+j)%5 == 0 {
					r.Fields[j] = row.NullValue()
				}
			}
		}
		if enc := roundTrip(t, b); enc[0] != FormatColumns {
			t.Fatalf("format %d, want the column layout", enc[0])
		}
	})
}

// TestColumnLayoutChosen: which batches go column by column, and that every batch round-trips
// whichever layout it gets.
func TestColumnLayoutChosen(t *testing.T) {
	build := func(rows ...func(b *row.Batch)) *row.Batch {
		b := row.NewBatch(0)
		for _, add := range rows {
			add(b)
		}
		return b
	}
	add := func(kind row.Kind, table string, vs ...row.Value) func(b *row.Batch) {
		return func(b *row.Batch) { copy(b.Add(kind, table, len(vs)).Fields, vs) }
	}
	// a table name with other bytes behind it than the literal "t"
	otherT := strings.Clone("t")
	cases := []struct {
		name    string
		b       *row.Batch
		columns bool
	}{
		{"bench batch", rowtest.Batch(100), true},
		{"one row", build(add(row.Delete, "t", row.IntValue(1), row.StringValue("x"))), true},
		{"row kinds mixed", build(add(row.Insert, "t", row.IntValue(1)), add(row.UpdateBefore, "t", row.IntValue(2)), add(row.UpdateAfter, "t", row.IntValue(3)), add(row.Delete, "t", row.IntValue(4))), true},
		{"same table name, other bytes", build(add(row.Insert, "t", row.IntValue(1)), add(row.Insert, otherT, row.IntValue(2))), true},
		{"nulls", build(add(row.Insert, "t", row.NullValue(), row.IntValue(1)), add(row.Insert, "t", row.StringValue("s"), row.NullValue())), true},
		{"a column of nulls", build(add(row.Insert, "t", row.NullValue(), row.IntValue(1)), add(row.Insert, "t", row.NullValue(), row.IntValue(2))), true},
		{"empty table name", build(add(row.Insert, "", row.IntValue(1))), true},
		{"empty batch", build(), false},
		{"rows without fields", build(add(row.Insert, "t"), add(row.Insert, "t")), false},
		{"two tables", build(add(row.Insert, "t", row.IntValue(1)), add(row.Insert, "u", row.IntValue(1))), false},
		{"ragged rows", build(add(row.Insert, "t", row.IntValue(1)), add(row.Insert, "t", row.IntValue(1), row.IntValue(2))), false},
		{"two types in a column", build(add(row.Insert, "t", row.IntValue(1)), add(row.Insert, "t", row.BigIntValue(1))), false},
		{"two types after a null", build(add(row.Insert, "t", row.NullValue()), add(row.Insert, "t", row.IntValue(1)), add(row.Insert, "t", row.BigIntValue(1))), false},
		{"smallint and int", build(add(row.Insert, "t", row.SmallIntValue(1)), add(row.Insert, "t", row.IntValue(1))), false},
		{"strings and bytes", build(add(row.Insert, "t", row.StringValue("a")), add(row.Insert, "t", row.BytesValue([]byte("a")))), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer c.b.Release()
			enc := roundTrip(t, c.b)
			if got := enc[0] == FormatColumns; got != c.columns {
				t.Fatalf("format %d, want the column layout: %v", enc[0], c.columns)
			}
		})
	}
}

// TestColumnLayoutKeepsRejections: values the decoder rejects (an int beyond 32 bits, an
// unknown tag) go in the row layout, which carries them as they are, and fail to decode
// exactly as before the column layout existed.
func TestColumnLayoutKeepsRejections(t *testing.T) {
	cases := []struct {
		name string
		base row.Value // the column's other values
		v    row.Value
		want string
	}{
		{"int beyond 32 bits", row.IntValue(1), row.Value{T: types.Int, I: 1 << 40}, "int value 1099511627776 out of range"},
		{"smallint beyond 16 bits", row.SmallIntValue(1), row.Value{T: types.SmallInt, I: -1 << 20}, "smallint value -1048576 out of range"},
		{"unknown tag", row.IntValue(1), row.Value{T: 99}, "unknown value type tag 99"},
		{"a column of unknown tags", row.Value{T: 99}, row.Value{T: 99}, "unknown value type tag 99"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// the bad value in a group of four rows or after the last group, after a null or not
			for _, at := range []int{1, 8} {
				for _, nullFirst := range []bool{false, true} {
					b := columnBatch(9, c.base, nil, false)
					b.Rows[at].Fields[0] = c.v
					if nullFirst {
						b.Rows[0].Fields[0] = row.NullValue()
					}
					enc := AppendBatch(nil, b)
					if enc[0] != FormatRows {
						t.Fatalf("format %d, want the row layout", enc[0])
					}
					into := row.NewBatch(0)
					if err := DecodeBatch(enc, into); err == nil || !strings.Contains(err.Error(), c.want) {
						t.Fatalf("error %v, want %q", err, c.want)
					}
					into.Release()
					b.Release()
				}
			}
		})
	}
}

// TestColumnNullSlots: the slot of a null row is zero whatever the null value holds.
func TestColumnNullSlots(t *testing.T) {
	for _, tag := range []types.Kind{types.Boolean, types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Float, types.Double, types.Date, types.Time, types.Timestamp, types.String, types.Bytes, types.Decimal, types.Array} {
		t.Run(tag.String(), func(t *testing.T) {
			v := row.Value{T: tag, I: 1, S: "s"}
			switch tag {
			case types.Decimal:
				v = dec("1.5")
			case types.Array:
				v = row.ArrayValue([]row.Value{row.IntValue(1)})
			}
			b := columnBatch(4, v, nil, false)
			defer b.Release()
			b.Rows[2].Fields[0] = row.Value{T: types.Null, I: 7, S: "junk"} // a null, whatever else it holds
			enc := AppendBatch(nil, b)
			if enc[0] != FormatColumns {
				t.Fatalf("format %d, want the column layout", enc[0])
			}
			got := row.NewBatch(0)
			defer got.Release()
			mustDecode(t, enc, got)
			b.Rows[2].Fields[0] = row.NullValue()
			sameBatch(t, b, got)
			if f := got.Rows[2].Fields[0]; f != (row.Value{}) {
				t.Fatalf("decoded null %#v, want the zero value", f)
			}
		})
	}
}

func TestColumnDecodeAppends(t *testing.T) {
	b := columnBatch(10, row.StringValue("v"), []int{4}, true)
	defer b.Release()
	enc := AppendBatch(nil, b)
	decodeAppends(t, b, enc)
	// a batch not from the pool: no capacity, no arena
	var bare row.Batch
	mustDecode(t, enc, &bare)
	sameBatch(t, b, &bare)
}

// mkCols builds a batch in the column layout around hand-written kinds and columns.
func mkCols(nrows, width int, cols []byte, table, strs string) []byte {
	out := []byte{FormatColumns, byte(nrows), byte(width)}
	out = binary.LittleEndian.AppendUint64(out, uint64(len(cols)))
	out = append(out, cols...)
	out = append(out, byte(len(table)))
	out = append(out, table...)
	return append(out, strs...)
}

func TestColumnEmptyBatch(t *testing.T) {
	for _, enc := range [][]byte{
		mkCols(0, 0, []byte{0}, "", ""),
		mkCols(0, 0, []byte{kindsPerRow}, "t", ""),
		mkCols(0, 2, []byte{0, byte(types.Int), 0, byte(types.String), 1}, "t", ""),
	} {
		into := row.NewBatch(0)
		into.Add(row.Insert, "kept", 0)
		if err := DecodeBatch(enc, into); err != nil {
			t.Fatalf("% x: %v", enc, err)
		}
		if into.Len() != 1 || into.Rows[0].Table != "kept" {
			t.Fatalf("% x: decoded into %+v, want the one row kept", enc, into.Rows)
		}
		into.Release()
	}
}

func TestColumnCorruptInputFails(t *testing.T) {
	// The layout, pinned: two rows of one string column.
	b := row.NewBatch(0)
	b.Add(row.Insert, "t", 1).Fields[0] = row.StringValue("xy")
	b.Add(row.Insert, "t", 1).Fields[0] = row.StringValue("z")
	want := mkCols(2, 1, []byte{0, byte(types.String), 0, 2, 1}, "t", "xyz")
	if got := AppendBatch(nil, b); string(got) != string(want) {
		t.Fatalf("layout changed: % x, want % x", got, want)
	}
	b.Release()

	// Offsets: the columns start at 11 (kinds), the first column's tag is at 12.
	const (
		boolean = byte(types.Boolean)
		tinyint = byte(types.TinyInt)
		integer = byte(types.Int)
		bigint  = byte(types.BigInt)
		str     = byte(types.String)
		array   = byte(types.Array)
	)
	decodeFails(t, []corruptCase{
		{"no column count", []byte{2, 0}, "input ends inside column count at offset 2"},
		{"huge row count", []byte{2, 0xff, 0xff, 0x03, 0}, "row count 65535 exceeds the remaining input at offset 1"},
		{"short columns length", []byte{2, 0, 0, 0, 0}, "input ends inside the columns length at offset 3"},
		{"columns beyond input", []byte{2, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0}, "columns length 5 exceeds the remaining input at offset 3"},
		{"columns length 2^64-1", []byte{2, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "columns length 18446744073709551615 exceeds the remaining input at offset 3"},
		{"rows without columns", mkCols(1, 0, []byte{0}, "t", ""), "1 rows without columns at offset 2"},
		{"rows beyond the columns", mkCols(20, 1, []byte{0, 0, 0}, "t", strings.Repeat("s", 20)), "20 rows of 1 columns exceed the columns length 3 at offset 1"},
		{"rows times columns beyond the columns", mkCols(5, 5, append([]byte{0}, make([]byte, 20)...), "t", ""), "5 rows of 5 columns exceed the columns length 21 at offset 1"},
		{"no table", mkCols(0, 0, []byte{0}, "", "")[:12], "input ends inside table name length at offset 12"},
		{"table beyond area", append(mkCols(0, 0, []byte{0}, "", "")[:12], 5, 'a'), "table name (5 bytes) exceeds the string area (1 bytes) at offset 13"},
		{"no kinds", mkCols(0, 0, nil, "t", ""), "input ends before the row kinds at offset 11"},
		{"kinds byte", mkCols(0, 0, []byte{5}, "t", ""), "row kinds byte 5 out of range at offset 11"},
		{"row kind", mkCols(2, 1, []byte{kindsPerRow, 3, 4, tinyint, 0, 1, 2}, "t", ""), "row kind 4 out of range at offset 13"},
		{"kinds beyond columns", mkCols(2, 1, []byte{kindsPerRow, 0}, "t", ""), "input ends inside the row kinds at offset 12"},
		{"no column", mkCols(1, 1, []byte{0}, "t", ""), "input ends before column 0 at offset 12"},
		{"second column missing", mkCols(1, 2, []byte{0, tinyint, 0, 1}, "t", ""), "input ends before column 1 at offset 15"},
		{"unknown tag", mkCols(1, 1, []byte{0, 99, 0, 0}, "t", ""), "unknown value type tag 99 at offset 12"},
		{"no nulls byte", mkCols(1, 1, []byte{0, bigint}, "t", ""), "input ends before the nulls of column 0 at offset 13"},
		{"nulls byte", mkCols(1, 1, []byte{0, bigint, 2, 0}, "t", ""), "nulls byte 2 of column 0 is neither 0 nor 1 at offset 13"},
		{"bitmap beyond columns", mkCols(1, 1, []byte{0, bigint, 1}, "t", ""), "input ends inside the null bitmap of column 0 at offset 14"},
		{"bitmap past the last row", mkCols(1, 1, []byte{0, tinyint, 1, 2, 0}, "t", ""), "null bitmap of column 0 marks rows past the last at offset 14"},
		{"short slots", mkCols(1, 1, []byte{0, bigint, 0, 1, 2, 3}, "t", ""), "input ends inside column 0 at offset 14"},
		{"short int slots", mkCols(2, 1, []byte{0, integer, 0, 1, 0, 0, 0, 2, 0, 0}, "t", ""), "input ends inside column 0 at offset 14"},
		{"bad boolean", mkCols(2, 1, []byte{0, boolean, 0, 1, 2}, "t", ""), "boolean byte 2 is neither 0 nor 1 at offset 15"},
		{"null with a value", mkCols(1, 1, []byte{0, integer, 1, 1, 5, 0, 0, 0}, "t", ""), "null row 0 of column 0 has a value at offset 14"},
		{"null with a string", mkCols(1, 1, []byte{0, str, 1, 1, 2}, "t", "ab"), "null row 0 of column 0 has a value at offset 14"},
		{"string beyond area", mkCols(1, 1, []byte{0, str, 0, 3}, "t", "ab"), "string of 3 bytes exceeds the string area at offset 14"},
		{"string length overflow", mkCols(1, 1, []byte{0, str, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, "t", ""), "string length overflows 64 bits at offset 14"},
		{"string length truncated", mkCols(1, 1, []byte{0, str, 0, 0x80}, "t", ""), "input ends inside string length at offset 14"},
		{"column of nulls with a tag", mkCols(2, 1, []byte{0, 0, 0, 5}, "t", ""), "column 0 of nulls holds tag 5 at offset 14"},
		{"short column of nulls", mkCols(2, 1, []byte{0, 0, 0}, "t", ""), "input ends inside column 0 at offset 13"},
		{"value of another type", mkCols(1, 1, []byte{0, byte(types.Decimal), 0, integer, 2}, "t", ""), "int value in decimal column 0 at offset 14"},
		{"null value without the bitmap", mkCols(1, 1, []byte{0, array, 0, 0}, "t", ""), "null value in array column 0 at offset 14"},
		{"value where the bitmap has a null", mkCols(1, 1, []byte{0, array, 1, 1, array, 0}, "t", ""), "null row 0 of column 0 has a value at offset 15"},
		{"corrupt value", mkCols(1, 1, []byte{0, array, 0, array, 5}, "t", ""), "array length 5 exceeds the remaining input at offset 15"},
		{"bytes after the last column", mkCols(1, 1, []byte{0, tinyint, 0, 1, 9}, "t", ""), "1 bytes after the last column at offset 15"},
		{"unused area", mkCols(1, 1, []byte{0, tinyint, 0, 1}, "t", "x"), "string area holds 1 bytes no value uses at offset 16"},
	})
}

// TestColumnAllocationBounded: a batch of one row and many columns of nulls is a few bytes a
// value; decoding it must not take the batch arena's room for Cap rows of that width.
func TestColumnAllocationBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation sizes")
	}
	const width = 50000
	cols := []byte{0}
	for j := 0; j < width; j++ {
		cols = append(cols, byte(types.Null), 0)
	}
	enc := []byte{FormatColumns, 1}
	enc = binary.AppendUvarint(enc, width)
	enc = binary.LittleEndian.AppendUint64(enc, uint64(len(cols)))
	enc = append(append(enc, cols...), 1, 't')
	into := row.NewBatch(0)
	defer into.Release()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	mustDecode(t, enc, into)
	runtime.ReadMemStats(&after)
	if into.Len() != 1 || len(into.Rows[0].Fields) != width {
		t.Fatalf("decoded %d rows", into.Len())
	}
	// the values themselves take width*48 bytes; the arena would take Cap times that
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(4*width*48); got > limit {
		t.Fatalf("decoding %d bytes allocated %d bytes, want at most %d", len(enc), got, limit)
	}
}

// BenchmarkColumnsWithNulls encodes and decodes a batch in the column layout with nulls and
// every row kind: no allocation to encode, one (the string area) to decode.
func BenchmarkColumnsWithNulls(b *testing.B) {
	batch := rowtest.Batch(1024)
	defer batch.Release()
	for i := range batch.Rows {
		if i%7 == 0 {
			batch.Rows[i].Fields[1] = row.NullValue()
			batch.Rows[i].Fields[3] = row.NullValue()
		}
		batch.Rows[i].Kind = row.Kind(i % 4)
	}
	buf := AppendBatch(nil, batch)
	if buf[0] != FormatColumns {
		b.Fatalf("format %d, want the column layout", buf[0])
	}
	into := row.NewBatch(0)
	defer into.Release()
	decode := func() {
		into.Reset()
		if err := DecodeBatch(buf, into); err != nil {
			b.Fatal(err)
		}
	}
	allocTarget(b, "encoding a 1024-row batch with nulls", 0, func() { buf = AppendBatch(buf[:0], batch) })
	allocTarget(b, "decoding a 1024-row batch with nulls", 1, decode)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = AppendBatch(buf[:0], batch)
		decode()
	}
}

// TestColumnFloatBits: floats and doubles keep their exact bits, NaN payloads included.
func TestColumnFloatBits(t *testing.T) {
	b := row.NewBatch(0)
	defer b.Release()
	for _, bits := range []uint64{0, 1 << 63, 0x7ff8000000000001, 0xfff0000000000000, math.Float64bits(math.SmallestNonzeroFloat64)} {
		r := b.Add(row.Insert, "t", 2)
		r.Fields[0] = row.DoubleValue(math.Float64frombits(bits))
		r.Fields[1] = row.FloatValue(math.Float32frombits(uint32(bits>>32) | 1))
	}
	got := row.NewBatch(0)
	defer got.Release()
	mustDecode(t, encodeColumns(t, b), got)
	sameBatch(t, b, got)
}
