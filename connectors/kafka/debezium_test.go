package kafka

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// seaTunnelConfig parses a SeaTunnel config in testdata.
func seaTunnelConfig(t *testing.T, file string) *hocon.Value {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "seatunnel", file))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	root, err := hocon.Parse(b, hocon.Options{File: file})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// seaTunnelSchema reads the schema of the Kafka source of a SeaTunnel config in testdata.
func seaTunnelSchema(t *testing.T, file string) *types.RowType {
	t.Helper()
	return schemaOf(t, seaTunnelConfig(t, file).Get("source").Get("Kafka"))
}

// schemaOf reads a plugin's schema.fields.
func schemaOf(t *testing.T, plugin *hocon.Value) *types.RowType {
	t.Helper()
	dt, err := catalog.TypeOf(plugin.Get("schema").Get("fields"))
	if err != nil {
		t.Fatal(err)
	}
	return dt.Row
}

// SeaTunnel's KafkaFormatIT reads Debezium records with their schema (dates as epoch days,
// datetimes as epoch milliseconds, times as microseconds, zoned timestamps as text, Bits as
// bytes) into its products table and checks these values.
func TestDebeziumNumericForms(t *testing.T) {
	rt := seaTunnelSchema(t, "debeziumFormatIT/kafkasource_debezium_to_kafka.conf")
	dec := mustDecoder(t, "debezium_json", rt)
	f, err := os.Open(filepath.Join("testdata", "seatunnel", "debezium", "debezium_data.txt"))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	b := row.NewBatch(4)
	for line := 1; sc.Scan(); line++ {
		if _, err := dec.decode(sc.Bytes(), "products", b); err != nil {
			t.Fatalf("debezium_data.txt:%d: %v", line, err)
		}
	}
	if len(b.Rows) != 3 {
		t.Fatalf("%d rows, want 3", len(b.Rows))
	}
	idx := map[string]int{}
	for i, n := range rt.Names {
		idx[n] = i
	}
	want := map[string]string{
		"id": "1", "f_smallint": "12345", "f_bigint_unsigned": "987654321", "f_numeric": "123", "f_decimal": "789",
		"f_date": "2022-04-27", "f_datetime": "2022-04-27T14:30", "f_timestamp": "2023-04-27T03:08:40",
		"f_time": "14:30", "f_bit64": "0", "f_bit1": "true", "f_enum": "enum2", "f_json": `{"key": "value"}`, "f_year": "2022",
	}
	r := b.Rows[0]
	if r.Kind != row.Insert {
		t.Errorf("kind %s", r.Kind)
	}
	for name, w := range want {
		if got := r.Fields[idx[name]].String(); got != w {
			t.Errorf("%s = %q, want %q", name, got, w)
		}
	}
}

func TestDebeziumValueUnits(t *testing.T) {
	num := func(s string) *hocon.Value { return &hocon.Value{Kind: hocon.Number, Str: s} }
	str := func(s string) *hocon.Value { return &hocon.Value{Kind: hocon.String, Str: s} }
	cases := []struct {
		v       *hocon.Value
		typ     string
		logical string
		want    string
		ok      bool
	}{
		{num("19109"), "date", "", "2022-04-27", true},
		{num("19109"), "date", "io.debezium.time.Date", "2022-04-27", true},
		{num("1651069800000"), "date", "io.debezium.time.Timestamp", "2022-04-27", true},
		{num("1651069800000"), "timestamp", "", "2022-04-27T14:30", true},
		{num("1651069800000123"), "timestamp", "io.debezium.time.MicroTimestamp", "2022-04-27T14:30:00.000123", true},
		{num("1651069800000123456"), "timestamp", "io.debezium.time.NanoTimestamp", "2022-04-27T14:30:00.000123456", true},
		{num("52200000000"), "time", "", "14:30", true},
		{num("52200000"), "time", "io.debezium.time.Time", "14:30", true},
		{str("2023-04-27T03:08:40Z"), "timestamp", "io.debezium.time.ZonedTimestamp", "2023-04-27T03:08:40", true},
		{str("2023-04-27T05:08:40+02:00"), "timestamp", "", "2023-04-27T03:08:40", true},
		{str("2023-04-27 03:08:40"), "timestamp", "", "", false},
		{str("AeJA"), "decimal(10, 2)", "", "1234.56", true}, // 0x01e240 = 123456
		{str("/h2/"), "decimal(10, 0)", "", "-123457", true}, // two's complement
		{str("12.5"), "decimal(10, 2)", "", "", false},
		{str("VVVVVVVVVVU="), "tinyint", "io.debezium.data.Bits", "0", true},
		{str("12"), "int", "", "", false},
		{num("12"), "int", "", "", false},
	}
	for _, c := range cases {
		got, ok := debeziumValue(c.v, types.MustParse(c.typ), c.logical)
		if ok != c.ok || (ok && got.String() != c.want) {
			t.Errorf("debeziumValue(%s %q as %s, %s) = %q %v, want %q %v", c.v.Kind, c.v.Str, c.typ, c.logical, got.String(), ok, c.want, c.ok)
		}
	}
}
