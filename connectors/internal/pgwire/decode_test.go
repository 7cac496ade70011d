package pgwire

import (
	"encoding/binary"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// wire encodes v in PostgreSQL's binary format of type oid, as pgx sends it.
func wireOf(t *testing.T, oid uint32, v any) []byte {
	t.Helper()
	b, err := pgtype.NewMap().Encode(oid, pgtype.BinaryFormatCode, v, nil)
	if err != nil {
		t.Fatalf("encode %v as %d: %v", v, oid, err)
	}
	return b
}

func numericWire(t *testing.T, s string) []byte {
	t.Helper()
	var n pgtype.Numeric
	if err := n.Scan(s); err != nil {
		t.Fatalf("numeric %q: %v", s, err)
	}
	return wireOf(t, pgtype.NumericOID, n)
}

func decodeValue(c Column, b []byte) (row.Value, error) {
	d := Decoder{Batch: row.NewBatch(4)}
	var v row.Value
	err := d.Decode(&c, b, &v)
	return v, err
}

func testColumn(oid uint32, typmod int32, narrow bool) Column {
	return ColumnOf(pgconn.FieldDescription{Name: "c", DataTypeOID: oid, TypeModifier: typmod}, TypeOptions{Narrow: narrow, UnboundedScale: 18})
}

// typmod of numericWire(p,s)
func numericTypmod(p, s int) int32 { return int32(p<<16|(s&0x7ff)) + 4 }

func TestDecodeNumeric(t *testing.T) {
	for _, tc := range []struct {
		in   string
		p, s int // 0, 0: unbounded
		want string
	}{
		{"0", 10, 2, "0.00"},
		{"12345678.9", 10, 2, "12345678.90"},
		{"-0.01", 10, 2, "-0.01"},
		{"10000", 10, 0, "10000"},
		{"100000000", 12, 0, "100000000"},
		{"0.000123", 10, 6, "0.000123"},
		{"1.23456789012345678901234", 0, 0, "1.234567890123456789"},
		{"1.2345678901234567895", 0, 0, "1.234567890123456790"},
		{"-1.2345678901234567895", 0, 0, "-1.234567890123456790"},
		{"123456789012345678901234567890.123456789", 0, 0, "123456789012345678901234567890.123456789000000000"},
		{"99999999999999999999999999999999999999", 38, 0, "99999999999999999999999999999999999999"},
		{"-9223372036854775808", 19, 0, "-9223372036854775808"},
		{"0.0000000000000000005", 0, 0, "0.000000000000000001"},
		{"0.0000000000000000004", 0, 0, "0.000000000000000000"},
		{"0.000000000000000000000000000001", 0, 0, "0.000000000000000000"},
		{"123400", 6, 0, "123400"},
	} {
		mod := int32(-1)
		if tc.p > 0 {
			mod = numericTypmod(tc.p, tc.s)
		}
		c := testColumn(pgtype.NumericOID, mod, false)
		v, err := decodeValue(c, numericWire(t, tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if v.T != types.Decimal || v.DecimalScale() != c.Type.Scale || v.String() != tc.want {
			t.Errorf("%s as %s = %s (scale %d), want %s", tc.in, c.Type, v, v.DecimalScale(), tc.want)
		}
	}
	for _, s := range []string{"NaN", "Infinity", "-Infinity"} {
		if _, err := decodeValue(testColumn(pgtype.NumericOID, -1, false), numericWire(t, s)); err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(s)) {
			t.Errorf("%s: %v", s, err)
		}
	}
}

func TestDecodeNarrowing(t *testing.T) {
	for _, tc := range []struct {
		p, s   int
		narrow bool
		typ    string
	}{
		{9, 0, true, "int"},
		{10, 0, true, "bigint"},
		{18, 0, true, "bigint"},
		{19, 0, true, "decimal(19, 0)"},
		{9, 1, true, "decimal(9, 1)"},
		{9, 0, false, "decimal(9, 0)"},
		{4, -2, true, "int"},
		{8, -2, true, "bigint"},
	} {
		c := testColumn(pgtype.NumericOID, numericTypmod(tc.p, tc.s), tc.narrow)
		if c.Type.String() != tc.typ {
			t.Errorf("numeric(%d,%d) narrow=%v is %s, want %s", tc.p, tc.s, tc.narrow, c.Type, tc.typ)
		}
	}
	for _, tc := range []struct {
		p    int
		in   string
		want string
	}{
		{9, "-999999999", "-999999999"},
		{9, "120000000", "120000000"},
		{18, "999999999999999999", "999999999999999999"},
		{18, "-100000000000000000", "-100000000000000000"},
		{18, "0", "0"},
	} {
		v, err := decodeValue(testColumn(pgtype.NumericOID, numericTypmod(tc.p, 0), true), numericWire(t, tc.in))
		if err != nil || v.String() != tc.want || !v.T.IsInteger() {
			t.Errorf("numeric(%d,0) %s = %v (%s), %v", tc.p, tc.in, v, v.T, err)
		}
	}
	// values that do not fit what the type promises
	if _, err := decodeValue(testColumn(pgtype.NumericOID, numericTypmod(9, 0), true), numericWire(t, "3000000000")); err == nil {
		t.Error("3000000000 read as int")
	}
	if _, err := decodeValue(testColumn(pgtype.NumericOID, numericTypmod(9, 0), true), numericWire(t, "1.5")); err == nil {
		t.Error("1.5 read as int")
	}
}

func TestDecodeScalars(t *testing.T) {
	ts := time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)
	for _, tc := range []struct {
		name string
		oid  uint32
		in   []byte
		want row.Value
	}{
		{"bool", pgtype.BoolOID, wireOf(t, pgtype.BoolOID, false), row.BoolValue(false)},
		{"int2", pgtype.Int2OID, wireOf(t, pgtype.Int2OID, int16(-7)), row.SmallIntValue(-7)},
		{"int4", pgtype.Int4OID, wireOf(t, pgtype.Int4OID, int32(math.MinInt32)), row.IntValue(math.MinInt32)},
		{"int8", pgtype.Int8OID, wireOf(t, pgtype.Int8OID, int64(math.MaxInt64)), row.BigIntValue(math.MaxInt64)},
		{"float4", pgtype.Float4OID, wireOf(t, pgtype.Float4OID, float32(-0.25)), row.FloatValue(-0.25)},
		{"float8 NaN", pgtype.Float8OID, wireOf(t, pgtype.Float8OID, math.NaN()), row.DoubleValue(math.NaN())},
		{"bytea", pgtype.ByteaOID, []byte{0, 1}, row.BytesValue([]byte{0, 1})},
		{"date", pgtype.DateOID, wireOf(t, pgtype.DateOID, time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)), row.DateValue(-1)},
		{"old date", pgtype.DateOID, wireOf(t, pgtype.DateOID, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)), row.DateOf(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC))},
		{"time", pgtype.TimeOID, wireOf(t, pgtype.TimeOID, pgtype.Time{Microseconds: 1, Valid: true}), row.TimeValue(1000)},
		{"time 24:00", pgtype.TimeOID, wireOf(t, pgtype.TimeOID, pgtype.Time{Microseconds: 86400e6, Valid: true}), row.TimeValue(86400e9 - 1)},
		{"timestamp", pgtype.TimestampOID, wireOf(t, pgtype.TimestampOID, ts), row.TimestampOf(ts)},
		{"timestamptz", pgtype.TimestamptzOID, wireOf(t, pgtype.TimestamptzOID, ts.In(time.FixedZone("x", 3600))), row.TimestampOf(ts)},
		{"old timestamp", pgtype.TimestampOID, wireOf(t, pgtype.TimestampOID, time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC)), row.TimestampOf(time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC))},
		{"money", MoneyOID, wireOf(t, pgtype.Int8OID, int64(-12345)), decimalValue("-123.45", 30, 2)},
	} {
		v, err := decodeValue(testColumn(tc.oid, -1, true), tc.in)
		if err != nil || !row.Equal(v, tc.want) {
			t.Errorf("%s: %v (%s), %v; want %v", tc.name, v, v.T, err, tc.want)
		}
	}
	// timetz: UTC, wrapping around midnight; the zone is in seconds west of UTC
	for _, tc := range []struct {
		us   int64
		zone int32
		want time.Duration
	}{
		{10 * 3600e6, -2 * 3600, 8 * time.Hour},
		{1 * 3600e6, -2 * 3600, 23 * time.Hour},
		{23 * 3600e6, 5 * 3600, 4 * time.Hour},
	} {
		b := make([]byte, 12)
		binary.BigEndian.PutUint64(b, uint64(tc.us))
		binary.BigEndian.PutUint32(b[8:], uint32(tc.zone))
		v, err := decodeValue(testColumn(pgtype.TimetzOID, -1, true), b)
		if err != nil || v.I != int64(tc.want) {
			t.Errorf("timetz %d %d = %v, %v; want %v", tc.us, tc.zone, v, err, tc.want)
		}
	}
	// values Strait cannot hold
	for _, tc := range []struct {
		name string
		oid  uint32
		in   []byte
		want string
	}{
		{"date infinity", pgtype.DateOID, wireOf(t, pgtype.DateOID, pgtype.Date{InfinityModifier: pgtype.Infinity, Valid: true}), "infinity"},
		{"timestamp -infinity", pgtype.TimestampOID, wireOf(t, pgtype.TimestampOID, pgtype.Timestamp{InfinityModifier: pgtype.NegativeInfinity, Valid: true}), "-infinity"},
		{"timestamp 1600", pgtype.TimestampOID, wireOf(t, pgtype.TimestampOID, time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC)), "1600-01-01 00:00:00"},
		{"timestamp 2300", pgtype.TimestamptzOID, wireOf(t, pgtype.TimestamptzOID, time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)), "2300-01-01 00:00:00"},
		{"short int4", pgtype.Int4OID, []byte{1, 2}, "malformed int4"},
	} {
		if _, err := decodeValue(testColumn(tc.oid, -1, true), tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error about %q", tc.name, err, tc.want)
		}
	}
}

func TestDecodeArrays(t *testing.T) {
	one := int32(1)
	for _, tc := range []struct {
		oid    uint32
		typmod int32
		in     any
		typ    string
		want   string
	}{
		{pgtype.Int4ArrayOID, -1, []*int32{&one, nil}, "array<int>", "[1, null]"},
		{pgtype.TextArrayOID, -1, []string{"a", "", "ü"}, "array<string>", "[a, , ü]"},
		{pgtype.NumericArrayOID, numericTypmod(5, 1), []pgtype.Numeric{{Int: big.NewInt(15), Exp: -1, Valid: true}}, "array<decimal(5, 1)>", "[1.5]"},
		{pgtype.NumericArrayOID, -1, []pgtype.Numeric{{Int: big.NewInt(15), Exp: -1, Valid: true}}, "array<decimal(38, 18)>", "[1.500000000000000000]"},
		{pgtype.UUIDArrayOID, -1, []pgtype.UUID{{Bytes: [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}, Valid: true}},
			"array<string>", "[a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11]"},
		{pgtype.JSONBArrayOID, -1, []map[string]any{{"k": 1}}, "array<string>", `[{"k":1}]`},
		{pgtype.Int8ArrayOID, -1, []int64{}, "array<bigint>", "[]"},
		{pgtype.DateArrayOID, -1, []time.Time{time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}, "array<date>", "[2000-01-01]"},
	} {
		c := testColumn(tc.oid, tc.typmod, true)
		if c.Type.String() != tc.typ {
			t.Errorf("type %d is %s, want %s", tc.oid, c.Type, tc.typ)
		}
		v, err := decodeValue(c, wireOf(t, tc.oid, tc.in))
		if err != nil || v.String() != tc.want {
			t.Errorf("%s %v = %v, %v; want %s", tc.typ, tc.in, v, err, tc.want)
		}
	}
	long := make([]int64, 1000)
	for i := range long {
		long[i] = int64(i)
	}
	if v, err := decodeValue(testColumn(pgtype.Int8ArrayOID, -1, true), wireOf(t, pgtype.Int8ArrayOID, long)); err != nil || len(v.Elems()) != 1000 || v.Elems()[999].I != 999 {
		t.Errorf("long array: %d elements, %v", len(v.Elems()), err)
	}
	two := wireOf(t, pgtype.Int4ArrayOID, [][]int32{{1, 2}, {3, 4}})
	if _, err := decodeValue(testColumn(pgtype.Int4ArrayOID, -1, true), two); err == nil || !strings.Contains(err.Error(), "2-dimensional") {
		t.Errorf("2-D array: %v", err)
	}
	bad := wireOf(t, pgtype.Int4ArrayOID, []int32{1, 2})
	if _, err := decodeValue(testColumn(pgtype.Int4ArrayOID, -1, true), bad[:len(bad)-2]); err == nil {
		t.Error("truncated array read")
	}
	// arrays of types SeaTunnel has no array type for are strings in their text form
	if c := testColumn(pgtype.InetArrayOID, -1, true); c.Type.Kind != types.String || c.Format != TextFormat {
		t.Errorf("inet[] is %s in format %d", c.Type, c.Format)
	}
}

func TestDecodeColumnTypes(t *testing.T) {
	for _, tc := range []struct {
		oid    uint32
		typmod int32
		typ    string
		length int64
		scale  int
		format int16
	}{
		{pgtype.BPCharOID, 3 + 4, "string", 12, 0, TextFormat},
		{pgtype.BPCharOID, -1, "string", 4, 0, TextFormat},
		{pgtype.VarcharOID, 10 + 4, "string", 40, 0, TextFormat},
		{pgtype.VarcharOID, -1, "string", 0, 0, TextFormat},
		{pgtype.UUIDOID, -1, "string", 128, 0, TextFormat},
		{pgtype.IntervalOID, -1, "string", 0, 0, TextFormat},
		{pgtype.JSONBOID, -1, "string", 0, 0, TextFormat},
		{12345, -1, "string", 0, 0, TextFormat},
		{pgtype.TimestampOID, 3, "timestamp", 0, 3, BinaryFormat},
		{pgtype.TimetzOID, -1, "time", 0, 0, BinaryFormat},
		{MoneyOID, -1, "decimal(30, 2)", 30, 0, BinaryFormat},
		{pgtype.NumericOID, numericTypmod(50, 10), "decimal(50, 10)", 0, 0, BinaryFormat},
	} {
		c := testColumn(tc.oid, tc.typmod, true)
		if c.Type.String() != tc.typ || c.Length != tc.length || c.Scale != tc.scale || c.Format != tc.format {
			t.Errorf("type %d(%d) = %s length %d scale %d format %d", tc.oid, tc.typmod, c.Type, c.Length, c.Scale, c.Format)
		}
	}
}

func decimalValue(s string, p, scale int) row.Value {
	v, err := row.ParseDecimal(s, p, scale)
	if err != nil {
		panic(err)
	}
	return v
}

// TestDecodeNumericOwnScale: with OwnScale, an unbounded numeric keeps each value's own
// scale (its dscale on the wire) under the column's decimal(38, 18); a bounded one is read
// at its declared scale still.
func TestDecodeNumericOwnScale(t *testing.T) {
	opts := TypeOptions{UnboundedScale: 18, OwnScale: true}
	unbounded := ColumnOf(pgconn.FieldDescription{Name: "c", DataTypeOID: pgtype.NumericOID, TypeModifier: -1}, opts)
	bounded := ColumnOf(pgconn.FieldDescription{Name: "c", DataTypeOID: pgtype.NumericOID, TypeModifier: numericTypmod(10, 3)}, opts)
	if unbounded.Type.String() != "decimal(38, 18)" {
		t.Fatalf("unbounded numeric is %s", unbounded.Type)
	}
	for _, tc := range []struct {
		c        Column
		in, want string
		scale    int
	}{
		{unbounded, "500", "500", 0},
		{unbounded, "1.50", "1.50", 2},
		{unbounded, "-0.000", "0.000", 3},
		{unbounded, "1.23456789012345678901234", "1.23456789012345678901234", 23},
		{unbounded, "123456789012345678901234567890123456789012", "123456789012345678901234567890123456789012", 0},
		{bounded, "1.5", "1.500", 3},
	} {
		v, err := decodeValue(tc.c, numericWire(t, tc.in))
		if err != nil || v.String() != tc.want || v.DecimalScale() != tc.scale {
			t.Errorf("%s as %s = %s (scale %d), %v; want %s (scale %d)", tc.in, tc.c.Type, v, v.DecimalScale(), err, tc.want, tc.scale)
		}
	}
	arr := ColumnOf(pgconn.FieldDescription{Name: "a", DataTypeOID: pgtype.NumericArrayOID, TypeModifier: -1}, opts)
	v, err := decodeValue(arr, wireOf(t, pgtype.NumericArrayOID, []pgtype.Numeric{{Int: big.NewInt(150), Exp: -2, Valid: true}, {Int: big.NewInt(7), Valid: true}}))
	if err != nil || v.String() != "[1.50, 7]" {
		t.Errorf("array of unbounded numerics = %s, %v", v, err)
	}
}
