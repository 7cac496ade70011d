package kafka

import (
	"errors"
	"fmt"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// The change formats as SeaTunnel's sink writes them, one record per row: canal_json,
// maxwell_json and ogg_json as {"data":{row},"type":"INSERT"|"DELETE"}, debezium_json as
// {"before":...,"after":...,"op":"c"|"d"}. An insert and an update's after image are
// INSERTs, a delete and an update's before image are DELETEs, so a consumer applying them in
// order ends with the same table.

// cdcEncoder writes one change envelope per row.
type cdcEncoder struct {
	rt       *types.RowType
	debezium bool
}

func newCDCEncoder(format string, rt *types.RowType) (encoder, bool) {
	switch format {
	case "canal_json", "maxwell_json", "ogg_json":
		return &cdcEncoder{rt: rt}, true
	case "debezium_json":
		return &cdcEncoder{rt: rt, debezium: true}, true
	}
	return nil, false
}

// inserts reports whether a row kind is written as an insert.
func inserts(k row.Kind) bool { return k == row.Insert || k == row.UpdateAfter }

func (e *cdcEncoder) encode(buf []byte, kind row.Kind, fields []row.Value) ([]byte, error) {
	if !e.debezium {
		buf = append(buf, `{"data":`...)
		buf = row.AppendJSONObject(buf, fields, e.rt)
		if inserts(kind) {
			return append(buf, `,"type":"INSERT"}`...), nil
		}
		return append(buf, `,"type":"DELETE"}`...), nil
	}
	if inserts(kind) {
		buf = append(buf, `{"before":null,"after":`...)
		buf = row.AppendJSONObject(buf, fields, e.rt)
		return append(buf, `,"op":"c"}`...), nil
	}
	buf = append(buf, `{"before":`...)
	buf = row.AppendJSONObject(buf, fields, e.rt)
	return append(buf, `,"after":null,"op":"d"}`...), nil
}

// compatible_debezium_json: the rows of a CDC source that emits Debezium's records whole
// (SeaTunnel's MySQL-CDC with format = compatible_debezium_json) have the fields topic, key
// and value; the sink writes value as the record's value and key as its key (none when
// null) to the topic of the row, as SeaTunnel does.
var compatibleDebeziumFields = [...]string{"topic", "key", "value"}

// compatibleFields finds topic, key and value in a row type.
func compatibleFields(rt *types.RowType) ([3]int, error) {
	var idx [3]int
	for i, name := range compatibleDebeziumFields {
		idx[i] = rt.Index(name)
		if idx[i] < 0 {
			return idx, fmt.Errorf("format compatible_debezium_json needs the fields topic, key and value; the input has no %s", name)
		}
	}
	return idx, nil
}

// fieldEncoder writes one text field of the row as it is: compatible_debezium_json's value
// or key. A null key writes no key; a null value fails.
type fieldEncoder struct {
	index int
	name  string
	key   bool
}

var errNoKey = errors.New("no key")

func (e *fieldEncoder) encode(buf []byte, _ row.Kind, fields []row.Value) ([]byte, error) {
	v := fields[e.index]
	if v.IsNull() {
		if e.key {
			return buf, errNoKey
		}
		return buf, fmt.Errorf("field %s is null", e.name)
	}
	return row.AppendText(buf, v), nil
}

// connectDecoder reads compatible_kafka_connect_json: records Kafka Connect's JsonConverter
// wrote (a sink connector's records, {"schema":...,"payload":...}); the payload is a row
// object, or an array of them, read as the json format reads rows. Every row is an INSERT.
type connectDecoder struct {
	rt *types.RowType
	// envelope: value_converter_schema_enabled, the values carry their schema, as
	// JsonConverter with schemas.enable writes them
	envelope bool
	conv     literal.Converter
}

func (d *connectDecoder) decode(value []byte, table string, out *row.Batch) (int, error) {
	v, err := parseJSON(value)
	if err != nil || v == nil || v.Kind == hocon.Null {
		return 0, err
	}
	if v.Kind != hocon.Object {
		return 0, fmt.Errorf("expected Kafka Connect's JSON object, found %s", v.Kind)
	}
	payload := v.Get("payload")
	if payload == nil || d.envelope && (v.Get("schema") == nil || len(v.Fields) != 2) {
		return 0, errors.New(`not a Kafka Connect record: want an object of "schema" and "payload" ` +
			`(value_converter_schema_enabled = false reads records without the schema)`)
	}
	elems := []*hocon.Value{payload}
	if payload.Kind == hocon.Array {
		elems = payload.Elems
	}
	start := len(out.Rows)
	n := 0
	for i, e := range elems {
		if e.Kind == hocon.Null {
			continue
		}
		if e.Kind != hocon.Object {
			out.Rows = out.Rows[:start]
			return 0, fmt.Errorf("payload[%d]: expected a JSON object, found %s", i, e.Kind)
		}
		fields, err := d.conv.ConvertFields(e, d.rt)
		if err != nil {
			out.Rows = out.Rows[:start]
			return 0, fmt.Errorf("payload[%d]: %w", i, err)
		}
		r := out.Add(row.Insert, table, len(fields))
		copy(r.Fields, fields)
		n++
	}
	return n, nil
}
