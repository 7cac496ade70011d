package kafka

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// seaTunnelProto reads protobuf_schema and protobuf_message_name of the Kafka plugin of a
// SeaTunnel config in testdata (the sink's, else the source's), and the row type of its source.
func seaTunnelProto(t *testing.T, file string) (schema, message string, rt *types.RowType) {
	t.Helper()
	root := seaTunnelConfig(t, file)
	kafka := root.Get("sink").Get("kafka")
	if kafka == nil {
		kafka = root.Get("source").Get("Kafka")
	}
	src := root.Get("source").Get("FakeSource")
	if src == nil {
		src = root.Get("source").Get("Kafka")
	}
	return kafka.Get("protobuf_schema").Str, kafka.Get("protobuf_message_name").Str, schemaOf(t, src)
}

// SeaTunnel's KafkaIT writes FakeSource's rows as Person messages and reads them back: every
// field of the row, the nested Address (a row field named after the message type), the map
// and the list, survive the round trip, and the bytes are a Person any protobuf reader reads.
func TestProtobufRoundTrip(t *testing.T) {
	schema, message, rt := seaTunnelProto(t, "protobuf/fake_to_kafka_protobuf.conf")
	c, err := newProtoCodec(schema, message, rt)
	if err != nil {
		t.Fatal(err)
	}
	addr := row.RowValue([]row.Value{row.StringValue("city_value"), row.StringValue("state_value"), row.StringValue("street_value")})
	attrs := row.MapOfValues(&row.MapValue{Keys: []row.Value{row.StringValue("k1")}, Vals: []row.Value{row.FloatValue(0.1)}})
	in := []row.Value{row.IntValue(123), row.BigIntValue(123123123123), row.FloatValue(0.123), row.DoubleValue(0.123),
		row.BoolValue(true), row.StringValue("test data"), row.BytesValue([]byte("bytes")), addr, attrs,
		row.ArrayValue([]row.Value{row.StringValue("1"), row.StringValue("2")})}
	if len(in) != rt.Len() {
		t.Fatalf("the fixture's row has %d fields: %v", rt.Len(), rt.Names)
	}
	b, err := c.encode(nil, row.Insert, in)
	if err != nil {
		t.Fatal(err)
	}
	// an independent read of the bytes
	m := dynamicpb.NewMessage(c.md)
	if err := proto.Unmarshal(b, m); err != nil {
		t.Fatal(err)
	}
	a := m.Get(c.md.Fields().ByName("address")).Message()
	if city := a.Get(a.Descriptor().Fields().ByName("city")).String(); city != "city_value" {
		t.Errorf("address.city %q", city)
	}
	if n := m.Get(c.md.Fields().ByName("phone_numbers")).List().Len(); n != 2 {
		t.Errorf("%d phone numbers", n)
	}
	out := row.NewBatch(1)
	if n, err := c.decode(b, "t", out); err != nil || n != 1 {
		t.Fatalf("decode: %d %v", n, err)
	}
	for i, v := range out.Rows[0].Fields {
		if !row.Equal(v, in[i]) {
			t.Errorf("%s: %s, want %s", rt.Names[i], v, in[i])
		}
	}
	// a null is not written, and reads back as the field's default
	in[5] = row.NullValue()
	b, _ = c.encode(nil, row.Insert, in)
	out = row.NewBatch(1)
	if _, err := c.decode(b, "t", out); err != nil || out.Rows[0].Fields[5].String() != "" {
		t.Errorf("a null string reads back as %q %v", out.Rows[0].Fields[5], err)
	}
}

func TestProtobufErrors(t *testing.T) {
	const person = `syntax = "proto3"; message Person { int32 id = 1; map<string, float> attrs = 2; repeated string tags = 3; }`
	rt := func(s string) *types.RowType { return types.MustParse(s).Row }
	for _, c := range []struct {
		name, schema, message string
		rt                    *types.RowType
		key, want             string
	}{
		{"no schema", "", "Person", rt("{id = int}"), "protobuf_schema", "needs the .proto text"},
		{"no message", person, "", rt("{id = int}"), "protobuf_message_name", "needs the message"},
		{"unknown message", person, "Nobody", rt("{id = int}"), "protobuf_message_name", `no message "Nobody" (it declares Person)`},
		{"bad syntax", `syntax = "proto3"; message Person { int32 id = ; }`, "Person", rt("{id = int}"), "protobuf_schema", "protobuf_schema.proto:1:"},
		{"a map as a list", person, "Person", rt("{attrs = array<string>}"), "protobuf_schema", "field attrs: is array<string>"},
		{"a list as a scalar", person, "Person", rt("{tags = string}"), "protobuf_schema", "field tags: is string, the message's field tags is repeated"},
	} {
		_, err := newProtoCodec(c.schema, c.message, c.rt)
		key, msg := optionOf(err)
		if err == nil || key != c.key || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %v (option %s), want %s: ...%s", c.name, err, key, c.key, c.want)
		}
	}
	c, err := newProtoCodec(person, "Person", rt("{id = int}"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.decode([]byte{0xff, 0xff}, "t", row.NewBatch(1)); err == nil || !strings.Contains(err.Error(), "not a protobuf Person") {
		t.Errorf("garbage decoded: %v", err)
	}
	if _, err := c.encode(nil, row.Insert, []row.Value{row.StringValue("x")}); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("a string written to an int32: %v", err)
	}
}
