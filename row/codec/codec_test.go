package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strait-dev/strait/row/rowtest"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// same compares two values exactly: as row.Equal does, but a decimal's scale and the order
// of a map's entries count too.
func same(a, b row.Value) bool {
	if a.T != b.T {
		return false
	}
	switch a.T {
	case types.Decimal:
		ua, ub := a.Unscaled(), b.Unscaled()
		if ua == nil {
			ua = new(big.Int)
		}
		if ub == nil {
			ub = new(big.Int)
		}
		return a.I == b.I && ua.Cmp(ub) == 0
	case types.Array, types.Row:
		return slices.EqualFunc(a.Fields(), b.Fields(), same)
	case types.Map:
		ma, mb := a.Map(), b.Map()
		if ma == nil {
			ma = &row.MapValue{}
		}
		if mb == nil {
			mb = &row.MapValue{}
		}
		return slices.EqualFunc(ma.Keys, mb.Keys, same) && slices.EqualFunc(ma.Vals, mb.Vals, same)
	}
	return row.Equal(a, b)
}

func sameBatch(t *testing.T, want, got *row.Batch) {
	t.Helper()
	if got.Len() != want.Len() {
		t.Fatalf("decoded %d rows, want %d", got.Len(), want.Len())
	}
	for i := range want.Rows {
		w, g := &want.Rows[i], &got.Rows[i]
		if w.Kind != g.Kind || w.Table != g.Table {
			t.Fatalf("row %d: header %v %q, want %v %q", i, g.Kind, g.Table, w.Kind, w.Table)
		}
		if len(w.Fields) != len(g.Fields) {
			t.Fatalf("row %d: %d fields, want %d", i, len(g.Fields), len(w.Fields))
		}
		for j := range w.Fields {
			if !same(w.Fields[j], g.Fields[j]) {
				t.Fatalf("row %d field %d: got %#v, want %#v", i, j, g.Fields[j], w.Fields[j])
			}
		}
	}
}

// roundTrip encodes b as AppendBatch chooses, checks that it decodes to the same rows, and
// when that layout is the column layout checks the row layout too. It returns the encoding.
func roundTrip(t *testing.T, b *row.Batch) []byte {
	t.Helper()
	enc := AppendBatch(nil, b)
	decodesTo(t, enc, b)
	// appending to a non-empty buffer encodes the same bytes after the prefix
	pre := AppendBatch([]byte("prefix"), b)
	if string(pre[6:]) != string(enc) {
		t.Fatalf("encoding after a prefix differs")
	}
	if enc[0] == FormatColumns {
		decodesTo(t, encodeRows(b), b)
	}
	return enc
}

// decodesTo checks that enc decodes to want's rows, and that encoding them again gives enc.
func decodesTo(t *testing.T, enc []byte, want *row.Batch) {
	t.Helper()
	got := row.NewBatch(0)
	defer got.Release()
	if err := DecodeBatch(enc, got); err != nil {
		t.Fatalf("decode (format %d): %v", enc[0], err)
	}
	sameBatch(t, want, got)
	var again []byte
	if enc[0] == FormatColumns {
		again = AppendBatch(nil, got)
	} else {
		again = encodeRows(got)
	}
	if string(again) != string(enc) {
		t.Fatalf("format %d: re-encoding the decoded batch gives other bytes:\n% x\nwant\n% x", enc[0], again, enc)
	}
}

// encodeRows encodes b in the row layout, whichever layout AppendBatch would choose.
func encodeRows(b *row.Batch) []byte {
	var e encoder
	return e.appendRows(nil, b.Rows)
}

func dec(s string) row.Value {
	v, err := row.ParseDecimal(s, 0, 0)
	if err != nil {
		panic(err)
	}
	return v
}

func decimal(unscaled string, scale int) row.Value {
	u, ok := new(big.Int).SetString(unscaled, 10)
	if !ok {
		panic(unscaled)
	}
	return row.DecimalValue(u, scale)
}

func oneValue(v row.Value) *row.Batch {
	b := row.NewBatch(4)
	b.Add(row.Insert, "t", 1).Fields[0] = v
	return b
}

type kindCase struct {
	name string
	v    row.Value
}

// everyKind is a value of every kind, with their edge cases.
func everyKind() []kindCase {
	ts := time.Date(2024, 2, 29, 23, 59, 58, 123456789, time.UTC)
	nested := row.RowValue([]row.Value{row.IntValue(1), row.StringValue("inner"), row.ArrayValue([]row.Value{row.NullValue()})})
	m := &row.MapValue{
		Keys: []row.Value{row.StringValue("z"), row.StringValue("a"), row.StringValue("m")},
		Vals: []row.Value{row.IntValue(26), row.NullValue(), row.ArrayValue([]row.Value{row.BigIntValue(-1)})},
	}
	return []kindCase{
		{"null", row.NullValue()},
		{"string", row.StringValue("héllo, wörld ✓")},
		{"empty string", row.StringValue("")},
		{"string with NUL", row.StringValue("a\x00b")},
		{"long string", row.StringValue(strings.Repeat("x", 100000))},
		{"true", row.BoolValue(true)},
		{"false", row.BoolValue(false)},
		{"tinyint min", row.TinyIntValue(math.MinInt8)},
		{"tinyint max", row.TinyIntValue(math.MaxInt8)},
		{"smallint min", row.SmallIntValue(math.MinInt16)},
		{"smallint max", row.SmallIntValue(math.MaxInt16)},
		{"int min", row.IntValue(math.MinInt32)},
		{"int max", row.IntValue(math.MaxInt32)},
		{"int zero", row.IntValue(0)},
		{"bigint min", row.BigIntValue(math.MinInt64)},
		{"bigint max", row.BigIntValue(math.MaxInt64)},
		{"bigint -1", row.BigIntValue(-1)},
		{"float", row.FloatValue(3.25)},
		{"float -0", row.FloatValue(float32(math.Copysign(0, -1)))},
		{"float NaN", row.FloatValue(float32(math.NaN()))},
		{"float inf", row.FloatValue(float32(math.Inf(-1)))},
		{"double", row.DoubleValue(-1e-300)},
		{"double NaN", row.DoubleValue(math.NaN())},
		{"double max", row.DoubleValue(math.MaxFloat64)},
		{"decimal", dec("-12.50")},
		{"decimal zero", decimal("0", 2)},
		{"decimal nil", row.Value{T: types.Decimal, I: 3}},
		{"decimal big", decimal("-123456789012345678901234567890123456789", 38)},
		{"decimal negative scale", decimal("7", -3)},
		{"decimal 2^64", decimal("18446744073709551616", 0)},
		{"bytes", row.BytesValue([]byte{0, 1, 2, 0xff})},
		{"empty bytes", row.BytesValue(nil)},
		{"date", row.DateOf(ts)},
		{"date before epoch", row.DateValue(-719162)},
		{"date far", row.DateValue(math.MinInt64)},
		{"time", row.TimeOf(ts)},
		{"timestamp", row.TimestampOf(ts)},
		{"timestamp before epoch", row.TimestampValue(-1)},
		{"array", row.ArrayValue([]row.Value{row.IntValue(1), row.IntValue(2), row.NullValue()})},
		{"empty array", row.ArrayValue(nil)},
		{"array of strings", row.ArrayValue([]row.Value{row.StringValue("a"), row.StringValue(""), row.StringValue("ccc")})},
		{"map keeps order", row.MapOfValues(m)},
		{"empty map", row.MapOfValues(&row.MapValue{})},
		{"nil map", row.Value{T: types.Map}},
		{"nested row", nested},
		{"row of rows", row.RowValue([]row.Value{nested, nested, row.MapOfValues(m)})},
		{"decimal in array", row.ArrayValue([]row.Value{dec("1.5"), dec("-0.001")})},
	}
}

func TestRoundTripEveryKind(t *testing.T) {
	cases := everyKind()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := oneValue(c.v)
			defer b.Release()
			roundTrip(t, b)
		})
	}
	t.Run("all in one row", func(t *testing.T) {
		b := row.NewBatch(0)
		defer b.Release()
		r := b.Add(row.UpdateAfter, "db.schema.table", len(cases))
		for i, c := range cases {
			r.Fields[i] = c.v
		}
		roundTrip(t, b)
	})
}

func TestRoundTripRowsKindsTables(t *testing.T) {
	b := row.NewBatch(0)
	defer b.Release()
	kinds := []row.Kind{row.Insert, row.UpdateBefore, row.UpdateAfter, row.Delete}
	for i := 0; i < 1000; i++ {
		// 20 tables, more than the linear dictionary, in an irregular order
		r := b.Add(kinds[i%4], fmt.Sprintf("db.t%d", (i*7)%20), 1+i%5)
		for j := range r.Fields {
			r.Fields[j] = row.StringValue(fmt.Sprintf("%d.%d", i, j))
		}
	}
	b.Add(row.Insert, "", 0) // an empty table name and no fields
	roundTrip(t, b)

	empty := row.NewBatch(0)
	defer empty.Release()
	enc := roundTrip(t, empty)
	if len(enc) != 11 {
		t.Fatalf("empty batch encodes to %d bytes: %x", len(enc), enc)
	}
}

func TestDecodeAppendsAndKeepsOnError(t *testing.T) {
	b := rowtest.Batch(10)
	defer b.Release()
	decodeAppends(t, b, AppendBatch(nil, b))
}

// decodeAppends decodes enc, the encoding of b, twice into one batch, then enc cut short:
// the rows of both decodes are appended, and the failed decode leaves them as they were.
func decodeAppends(t *testing.T, b *row.Batch, enc []byte) {
	t.Helper()
	into := row.NewBatch(0)
	defer into.Release()
	mustDecode(t, enc, into)
	mustDecode(t, enc, into)
	n := 2 * b.Len()
	if into.Len() != n {
		t.Fatalf("decoding twice gives %d rows, want %d", into.Len(), n)
	}
	for i := range into.Rows {
		w, g := &b.Rows[i%b.Len()], &into.Rows[i]
		if g.Kind != w.Kind || g.Table != w.Table || !slices.EqualFunc(g.Fields, w.Fields, same) {
			t.Fatalf("row %d: %+v, want %+v", i, g, w)
		}
	}
	if err := DecodeBatch(enc[:len(enc)-1], into); err == nil {
		t.Fatal("truncated input decoded")
	}
	if into.Len() != n {
		t.Fatalf("a failed decode left %d rows, want %d", into.Len(), n)
	}
}

// mustDecode decodes enc into into, failing the test on an error.
func mustDecode(t testing.TB, enc []byte, into *row.Batch) {
	t.Helper()
	if err := DecodeBatch(enc, into); err != nil {
		t.Fatal(err)
	}
}

// TestDecodeCopiesInput: decoded values do not alias the input buffer.
func TestDecodeCopiesInput(t *testing.T) {
	b := oneValue(row.ArrayValue([]row.Value{row.StringValue("keep me"), row.BytesValue([]byte("and me")), dec("12.34")}))
	defer b.Release()
	enc := AppendBatch(nil, b)
	got := row.NewBatch(0)
	defer got.Release()
	mustDecode(t, enc, got)
	clear(enc)
	sameBatch(t, b, got)
}

func TestTruncatedInputFails(t *testing.T) {
	b := row.NewBatch(0)
	defer b.Release()
	for i := 0; i < 3; i++ {
		r := b.Add(row.Kind(3-i), "tbl", 6)
		r.Fields[0] = row.StringValue("abc")
		r.Fields[1] = decimal("-98765432109876543210", 4)
		r.Fields[2] = row.MapOfValues(&row.MapValue{Keys: []row.Value{row.IntValue(300)}, Vals: []row.Value{row.DoubleValue(2)}})
		r.Fields[3] = row.TimestampValue(1 << 60)
		r.Fields[4] = row.FloatValue(1)
		r.Fields[5] = row.BoolValue(true)
	}
	b.Rows[1].Fields[0] = row.NullValue()
	b.Rows[2].Fields[2] = row.NullValue()
	b.Rows[0].Fields[5] = row.NullValue()
	cols := AppendBatch(nil, b)
	if cols[0] != FormatColumns {
		t.Fatalf("format %d, want the column layout", cols[0])
	}
	for _, enc := range [][]byte{cols, encodeRows(b)} {
		for n := 0; n < len(enc); n++ {
			into := row.NewBatch(0)
			err := DecodeBatch(enc[:n], into)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("format %d, prefix of %d bytes: error %v, want a *codec.Error", enc[0], n, err)
			}
			if ce.Offset < 0 || ce.Offset > n {
				t.Fatalf("format %d, prefix of %d bytes: offset %d out of range", enc[0], n, ce.Offset)
			}
			if into.Len() != 0 {
				t.Fatalf("format %d, prefix of %d bytes: %d rows left in the batch", enc[0], n, into.Len())
			}
			into.Release()
		}
	}
}

// mk builds a batch in the row layout around hand-written rows: header, rows, dictionary,
// area.
func mk(nrows int, rows []byte, tables []string, strs string) []byte {
	out := []byte{Version, byte(nrows)}
	out = binary.LittleEndian.AppendUint64(out, uint64(len(rows)))
	out = append(out, rows...)
	out = append(out, byte(len(tables)))
	for _, t := range tables {
		out = append(out, byte(len(t)))
	}
	for _, t := range tables {
		out = append(out, t...)
	}
	return append(out, strs...)
}

func TestCorruptInputFails(t *testing.T) {
	valid := func() []byte {
		b := oneValue(row.StringValue("xy"))
		defer b.Release()
		return encodeRows(b)
	}
	if got, want := fmt.Sprintf("% x", valid()), fmt.Sprintf("% x", mk(1, []byte{0, 1, 1, 2}, []string{"t"}, "xy")); got != want {
		t.Fatalf("layout changed: %s, want %s", got, want)
	}
	one := func(value ...byte) []byte { // one row of one value; the value starts at offset 12
		return mk(1, append([]byte{0, 1}, value...), []string{"t"}, "")
	}
	decodeFails(t, []corruptCase{
		{"empty", nil, "empty input at offset 0"},
		{"format", []byte{3}, "unknown format 3 at offset 0"},
		{"format zero", []byte{0, 0}, "unknown format 0 at offset 0"},
		{"huge row count", []byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f}, "row count 4294967295 exceeds the remaining input at offset 1"},
		{"varint overflow", []byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, "row count overflows 64 bits at offset 1"},
		{"short rows length", []byte{1, 0, 0, 0, 0}, "input ends inside the rows length at offset 2"},
		{"rows beyond input", []byte{1, 0, 1, 0, 0, 0, 0, 0, 0, 0}, "rows length 1 exceeds the remaining input at offset 2"},
		{"rows length 2^64-1", []byte{1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "rows length 18446744073709551615 exceeds the remaining input at offset 2"},
		{"no dictionary", []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "input ends inside table count at offset 10"},
		{"more rows than bytes", mk(3, []byte{0, 0}, []string{"t"}, ""), "row count 3 exceeds the rows length at offset 1"},
		{"table name beyond area", append(mk(0, nil, nil, "")[:10], 1, 5, 'a'), "table names (5 bytes) exceed the string area (1 bytes) at offset 12"},
		{"table name lengths wrap around", append(append(mk(0, nil, nil, "")[:10], 2, 6, 0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), "abc"...), "table names exceed the input at offset 22"},
		{"unknown table", mk(1, []byte{1 << 2, 0}, []string{"t"}, ""), "row 0 names table 1 of 1 at offset 10"},
		{"rows after the last row", mk(1, []byte{0, 0, 0}, []string{"t"}, ""), "1 bytes after the last row at offset 12"},
		{"unused area", mk(0, nil, nil, "x"), "string area holds 1 bytes no value uses at offset 11"},
		{"string beyond area", mk(1, []byte{0, 1, 1, 3}, []string{"t"}, "xy"), "string of 3 bytes exceeds the string area at offset 12"},
		{"width beyond rows", mk(1, []byte{0, 1}, []string{"t"}, ""), "row width 1 exceeds the remaining input at offset 11"},
		{"unknown tag", one(99), "unknown value type tag 99 at offset 12"},
		{"bad boolean", one(byte(types.Boolean), 2), "boolean byte 2 is neither 0 nor 1 at offset 13"},
		{"int out of range", one(byte(types.Int), 0x80, 0x80, 0x80, 0x80, 0x10), "int value 2147483648 out of range at offset 12"},
		{"smallint out of range", one(byte(types.SmallInt), 0x80, 0x80, 0x04), "smallint value 32768 out of range at offset 12"},
		{"bigint overflow", one(byte(types.BigInt), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), "an integer overflows 64 bits at offset 13"},
		{"bigint truncated", one(byte(types.BigInt), 0xff), "input ends inside an integer at offset 13"},
		{"short double", one(byte(types.Double), 0, 0), "input ends inside a double at offset 13"},
		{"short float", one(byte(types.Float), 0, 0), "input ends inside a float at offset 13"},
		{"huge array", one(byte(types.Array), 0xff, 0xff, 0x03), "array length 65535 exceeds the remaining input at offset 13"},
		{"huge map", one(byte(types.Map), 2, 0, 0, 0), "map size 2 exceeds the remaining input at offset 13"},
		{"huge width", mk(1, []byte{0, 0xff, 0x7f}, []string{"t"}, ""), "row width 16383 exceeds the remaining input at offset 11"},
		{"negative zero decimal", one(byte(types.Decimal), 0, 1), "negative zero decimal at offset 14"},
		{"decimal scale", one(byte(types.Decimal), 0xff, 0xff, 0x7f, 0), "decimal scale -1048576 out of range at offset 12"},
		{"decimal beyond input", one(byte(types.Decimal), 0, 0x10, 1), "decimal of 8 bytes exceeds the remaining input at offset 14"},
	})
	t.Run("too deep", func(t *testing.T) {
		v := row.IntValue(1)
		for i := 0; i <= MaxDepth; i++ {
			v = row.ArrayValue([]row.Value{v})
		}
		b := oneValue(v)
		defer b.Release()
		into := row.NewBatch(0)
		defer into.Release()
		for _, enc := range [][]byte{AppendBatch(nil, b), encodeRows(b)} {
			if err := DecodeBatch(enc, into); err == nil || !strings.Contains(err.Error(), "nest deeper") {
				t.Fatalf("format %d: error %v, want a nesting error", enc[0], err)
			}
		}
	})
}

// corruptCase is an input DecodeBatch refuses, with the error it gives.
type corruptCase struct {
	name  string
	input []byte
	want  string
}

// decodeFails decodes each case's input, wanting its error and an untouched batch.
func decodeFails(t *testing.T, cases []corruptCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			into := row.NewBatch(0)
			defer into.Release()
			err := DecodeBatch(c.input, into)
			if err == nil || err.Error() != "row codec: "+c.want {
				t.Fatalf("error %v, want %q", err, "row codec: "+c.want)
			}
			if into.Len() != 0 {
				t.Fatalf("a failed decode left %d rows", into.Len())
			}
		})
	}
}

// allocTarget fails the benchmark when one call of f allocates more than want times: the
// allocation targets of the hot path, checked where `make bench` measures it.
func allocTarget(b *testing.B, what string, want float64, f func()) {
	b.Helper()
	if raceEnabled {
		return // the race detector changes allocation counts
	}
	if got := testing.AllocsPerRun(50, f); got > want {
		b.Fatalf("%s allocates %.1f times, want at most %.0f", what, got, want)
	}
}

func BenchmarkEncode(b *testing.B) {
	batch := rowtest.Batch(row.DefaultBatchSize)
	defer batch.Release()
	buf := AppendBatch(nil, batch)
	allocTarget(b, "encoding a batch", 0, func() { buf = AppendBatch(buf[:0], batch) })
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		buf = AppendBatch(buf[:0], batch)
	}
	reportRows(b, b.N*batch.Len(), processCPU()-cpu)
}

func BenchmarkDecode(b *testing.B) {
	batch := rowtest.Batch(row.DefaultBatchSize)
	defer batch.Release()
	buf := AppendBatch(nil, batch)
	into := row.NewBatch(0)
	allocTarget(b, "decoding a batch", 1 /* the string area */, func() {
		into.Reset()
		if err := DecodeBatch(buf, into); err != nil {
			b.Fatal(err)
		}
	})
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		into.Reset()
		if err := DecodeBatch(buf, into); err != nil {
			b.Fatal(err)
		}
	}
	reportRows(b, b.N*batch.Len(), processCPU()-cpu)
}

// reportRows reports rows per second of wall time and CPU nanoseconds per row; the latter
// holds steady when other work shares the machine.
func reportRows(b *testing.B, rows int, cpu time.Duration) {
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows), "cpu-ns/row")
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
