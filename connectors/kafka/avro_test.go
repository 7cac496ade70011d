package kafka

import (
	"bytes"
	"math/big"
	"testing"
	"time"

	"github.com/hamba/avro/v2"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// avroRowType is KafkaIT's row type (SEATUNNEL_ROW_TYPE) with a nested row and an array of
// rows added.
func avroRowType() *types.RowType {
	inner := &types.RowType{Names: []string{"c_int", "c_string"}, Types: []types.DataType{types.Of(types.Int), types.Of(types.String)}}
	return &types.RowType{
		Names: []string{"id", "c_map", "c_array", "c_string", "c_boolean", "c_tinyint", "c_smallint", "c_int", "c_bigint",
			"c_float", "c_double", "c_decimal", "c_bytes", "c_date", "c_timestamp", "c_row", "c_rows"},
		Types: []types.DataType{types.Of(types.BigInt), types.MapOf(types.Of(types.String), types.Of(types.SmallInt)),
			types.ArrayOf(types.Of(types.TinyInt)), types.Of(types.String), types.Of(types.Boolean), types.Of(types.TinyInt),
			types.Of(types.SmallInt), types.Of(types.Int), types.Of(types.BigInt), types.Of(types.Float), types.Of(types.Double),
			types.DecimalOf(2, 1), types.Of(types.Bytes), types.Of(types.Date), types.Of(types.Timestamp),
			types.RowOf(inner), types.ArrayOf(types.RowOf(inner))},
	}
}

// avroRow is KafkaIT's generated row of id, with negative numbers where they can be.
func avroRow(id int64) []row.Value {
	at := time.Date(2024, 1, 1, 12, 59, 23, 0, time.UTC)
	return []row.Value{
		row.BigIntValue(id),
		row.MapOfValues(&row.MapValue{Keys: []row.Value{row.StringValue("key")}, Vals: []row.Value{row.SmallIntValue(1)}}),
		row.ArrayValue([]row.Value{row.TinyIntValue(1), row.TinyIntValue(-1)}),
		row.StringValue("string"), row.BoolValue(false), row.TinyIntValue(-2), row.SmallIntValue(-300),
		row.IntValue(1), row.BigIntValue(-1), row.FloatValue(1.1), row.DoubleValue(1.1),
		row.DecimalValue(big.NewInt(-11), 1), row.BytesValue([]byte("test")), row.DateOf(at), row.TimestampOf(at),
		row.RowValue([]row.Value{row.IntValue(7), row.StringValue("in")}),
		row.ArrayValue([]row.Value{row.RowValue([]row.Value{row.IntValue(8), row.StringValue("a")})}),
	}
}

// The schema is SeaTunnel's: a record SeaTunnelRecord of required fields, logical types
// for decimal, date and timestamp, nested records named after their field.
func TestAvroSchemaIsSeaTunnels(t *testing.T) {
	s, err := avroSchema(&types.RowType{
		Names: []string{"a", "d", "t", "r"},
		Types: []types.DataType{types.Of(types.TinyInt), types.DecimalOf(38, 18), types.Of(types.Timestamp),
			types.RowOf(&types.RowType{Names: []string{"x"}, Types: []types.DataType{types.Of(types.Date)}})},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"SeaTunnelRecord","type":"record","fields":[{"name":"a","type":"int"},` +
		`{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":38,"scale":18}},` +
		`{"name":"t","type":{"type":"long","logicalType":"local-timestamp-millis"}},` +
		`{"name":"r","type":{"name":"r","type":"record","fields":[{"name":"x","type":{"type":"int","logicalType":"date"}}]}}]}`
	if got := s.String(); got != want {
		t.Fatalf("schema\n%s\nwant\n%s", got, want)
	}
	if _, err := avroSchema(&types.RowType{Names: []string{"t"}, Types: []types.DataType{types.Of(types.Time)}}); err == nil {
		t.Fatal("a time field has an avro schema; SeaTunnel has none")
	}
}

// A record the codec writes is what hamba/avro's generic encoder writes of the same values
// with the same schema, and reads back to the row.
func TestAvroMatchesGenericEncoding(t *testing.T) {
	rt := avroRowType()
	schema, err := avroSchema(rt)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newAvroCodec(rt)
	if err != nil {
		t.Fatal(err)
	}
	fields := avroRow(42)
	got, err := c.encode(nil, row.Insert, fields)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 1, 1, 12, 59, 23, 0, time.UTC)
	generic := map[string]any{
		"id": int64(42), "c_map": map[string]any{"key": 1}, "c_array": []any{1, 255}, "c_string": "string",
		"c_boolean": false, "c_tinyint": 254, "c_smallint": -300, "c_int": 1, "c_bigint": int64(-1),
		"c_float": float32(1.1), "c_double": 1.1, "c_decimal": big.NewRat(-11, 10), "c_bytes": []byte("test"),
		"c_date": at, "c_timestamp": at,
		"c_row":  map[string]any{"c_int": 7, "c_string": "in"},
		"c_rows": []any{map[string]any{"c_int": 8, "c_string": "a"}},
	}
	// Java's GenericDatumWriter writes blocks with their counts only
	javaLike := avro.Config{DisableBlockSizeHeader: true}.Freeze()
	want, err := javaLike.Marshal(schema, generic)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("encoded\n%x\nwant (hamba/avro's generic encoding)\n%x", got, want)
	}
	// blocks may carry their byte size too (a negative count): both read the same
	sized, err := avro.Marshal(schema, generic)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range [][]byte{want, sized} {
		b := row.NewBatch(4)
		if n, err := c.decode(rec, "t", b); err != nil || n != 1 {
			t.Fatalf("decode: %d rows, %v", n, err)
		}
		if !row.Equal(row.RowValue(b.Rows[0].Fields), row.RowValue(fields)) {
			t.Fatalf("decoded\n%v\nwant\n%v", b.Rows[0].Fields, fields)
		}
		b.Release()
	}
}

// Java's BigInteger.toByteArray, which avro's decimal uses.
func TestAvroDecimalBytes(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want []byte
	}{
		{0, []byte{0}}, {1, []byte{1}}, {-1, []byte{0xff}}, {127, []byte{0x7f}}, {128, []byte{0, 0x80}},
		{-128, []byte{0x80}}, {-129, []byte{0xff, 0x7f}}, {255, []byte{0, 0xff}}, {-256, []byte{0xff, 0}},
		{1 << 40, []byte{1, 0, 0, 0, 0, 0}},
	} {
		got := appendTwosComplement(nil, big.NewInt(c.n))
		if !bytes.Equal(got, c.want) {
			t.Errorf("%d: %x, want %x", c.n, got, c.want)
		}
		if back := fromTwosComplement(got); back.Int64() != c.n {
			t.Errorf("%d read back as %s", c.n, back)
		}
	}
}

// Nulls cannot be written (SeaTunnel's fields are required); bad records fail naming the
// field; a decimal of another scale is rescaled.
func TestAvroErrors(t *testing.T) {
	rt := &types.RowType{Names: []string{"s", "d"}, Types: []types.DataType{types.Of(types.String), types.DecimalOf(5, 2)}}
	c, err := newAvroCodec(rt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.encode(nil, row.Insert, []row.Value{row.NullValue(), row.DecimalValue(big.NewInt(1), 0)}); err == nil ||
		!bytes.Contains([]byte(err.Error()), []byte("field s")) {
		t.Fatalf("null: %v", err)
	}
	rec, err := c.encode(nil, row.Insert, []row.Value{row.StringValue("x"), row.DecimalValue(big.NewInt(15), 1)})
	if err != nil {
		t.Fatal(err)
	}
	b := row.NewBatch(2)
	defer b.Release()
	if _, err := c.decode(rec, "t", b); err != nil {
		t.Fatal(err)
	}
	if d := b.Rows[0].Fields[1]; d.Unscaled().Int64() != 150 || d.DecimalScale() != 2 {
		t.Fatalf("1.5 as decimal(5, 2): %v scale %d", d.Unscaled(), d.DecimalScale())
	}
	for name, bad := range map[string][]byte{
		"truncated":  rec[:len(rec)-1],
		"trailing":   append(append([]byte{}, rec...), 0),
		"huge":       {0xfe, 0xff, 0xff, 0xff, 0x0f},
		"negative":   {0x01},
		"json":       []byte(`{"s":"x"}`),
		"empty":      {},
		"long count": {0x02, 'x', 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
	} {
		if n, err := c.decode(bad, "t", b); err == nil {
			t.Errorf("%s record read as %d rows: %v", name, n, b.Rows[len(b.Rows)-1].Fields)
		}
	}
	if b.Len() != 1 {
		t.Fatalf("failed decodes left rows: %d", b.Len())
	}
}

// FuzzAvroDecode: any input is read or refused without a panic, and what is read writes
// back to a record that reads the same.
func FuzzAvroDecode(f *testing.F) {
	rt := avroRowType()
	c, err := newAvroCodec(rt)
	if err != nil {
		f.Fatal(err)
	}
	seed, err := c.encode(nil, row.Insert, avroRow(1))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte{})
	f.Add([]byte{0x02, 0x00})
	f.Fuzz(func(t *testing.T, in []byte) {
		b := row.NewBatch(2)
		defer b.Release()
		if _, err := c.decode(in, "t", b); err != nil {
			return
		}
		out, err := c.encode(nil, row.Insert, b.Rows[0].Fields)
		if err != nil {
			t.Fatalf("a record read does not write: %v", err)
		}
		b2 := row.NewBatch(2)
		defer b2.Release()
		if _, err := c.decode(out, "t", b2); err != nil {
			t.Fatalf("a record written does not read: %v", err)
		}
		if !row.Equal(row.RowValue(b.Rows[0].Fields), row.RowValue(b2.Rows[0].Fields)) {
			t.Fatalf("read %v, then %v", b.Rows[0].Fields, b2.Rows[0].Fields)
		}
	})
}
