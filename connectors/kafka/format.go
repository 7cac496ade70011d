package kafka

import (
	"errors"
	"fmt"
	"strings"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// A decoder turns one record value into rows appended to out; it returns how many. On an
// error it appends nothing.
type decoder interface {
	decode(value []byte, table string, out *row.Batch) (int, error)
}

func newDecoder(format, delimiter string, rt *types.RowType, raw bool) (decoder, error) {
	if raw {
		return rawDecoder{}, nil
	}
	switch format {
	case formatJSON:
		d := &jsonDecoder{rt: rt}
		d.fast = newJSONRowReader(rt, &d.conv)
		return d, nil
	case formatText:
		if delimiter == "" {
			return nil, errors.New("field_delimiter must not be empty")
		}
		return &textDecoder{rt: rt, seps: textSeparators(delimiter)}, nil
	}
	if d, ok := newCDCDecoder(format, rt); ok {
		return d, nil
	}
	switch format {
	case formatAvro:
		return newAvroCodec(rt)
	case formatKafkaConnect:
		return &connectDecoder{rt: rt, envelope: true}, nil
	case formatCompatibleDebezium:
		return nil, errors.New("format compatible_debezium_json is written by the sink only, as in SeaTunnel (read debezium_json instead)")
	case formatProtobuf:
		return nil, errors.New("format protobuf needs protobuf_schema and protobuf_message_name")
	}
	return nil, fmt.Errorf("format %s is not supported by the Kafka source (json, text, canal_json, debezium_json, "+
		"compatible_kafka_connect_json, maxwell_json, ogg_json, avro and protobuf are)", format)
}

// setDecoder is the decoder of a topic configuration's records.
func setDecoder(set *topicSet) (decoder, error) {
	if set.format == formatKafkaConnect && !set.raw {
		return &connectDecoder{rt: set.table.RowType(), envelope: set.connectSchema}, nil
	}
	if set.format == formatProtobuf && !set.raw {
		return newProtoCodec(set.protoSchema, set.protoMessage, set.table.RowType())
	}
	return newDecoder(set.format, set.delimiter, set.table.RowType(), set.raw)
}

// rawDecoder is the source without a schema: every record is one string column.
type rawDecoder struct{}

func (rawDecoder) decode(value []byte, table string, out *row.Batch) (int, error) {
	r := out.Add(row.Insert, table, 1)
	r.Fields[0] = row.StringValue(string(value))
	return 1, nil
}

// jsonDecoder reads SeaTunnel's json format: a record is an object whose fields are the
// columns by name, or an array of such objects, one row each. Values convert as SeaTunnel's
// JSON converters read them (numbers from numbers or numeric strings, dates and timestamps
// from text, bytes from base64, nested rows from objects).
type jsonDecoder struct {
	rt   *types.RowType
	conv literal.Converter
	fast *jsonRowReader
}

func (d *jsonDecoder) decode(value []byte, table string, out *row.Batch) (int, error) {
	if d.fast != nil {
		r := out.Add(row.Insert, table, d.rt.Len())
		err := d.fast.readObject(value, r.Fields)
		if err == nil {
			return 1, nil
		}
		out.Rows = out.Rows[:len(out.Rows)-1]
		if err != errSlowPath {
			return 0, err
		}
	}
	v, err := parseJSON(value)
	if err != nil {
		return 0, err
	}
	if v == nil || v.Kind == hocon.Null {
		return 0, nil // SeaTunnel emits nothing for an empty or null message
	}
	elems := []*hocon.Value{v}
	if v.Kind == hocon.Array {
		elems = v.Elems
	}
	start := len(out.Rows)
	for _, e := range elems {
		if e.Kind != hocon.Object {
			out.Rows = out.Rows[:start]
			return 0, fmt.Errorf("expected a JSON object, found %s", e.Kind)
		}
		fields, err := d.conv.ConvertFields(e, d.rt)
		if err != nil {
			out.Rows = out.Rows[:start]
			return 0, err
		}
		r := out.Add(row.Insert, table, len(fields))
		copy(r.Fields, fields)
	}
	return len(elems), nil
}

// parseJSON reads one JSON text into a value tree (hocon.ParseJSON).
var parseJSON = hocon.ParseJSON

// maxJSONDepth bounds the nesting the record readers follow, as hocon.ParseJSON does.
const maxJSONDepth = 256

// textSeparators are SeaTunnel's text format separators: the field delimiter, then \x02 to
// \x07 for the levels inside arrays, maps and rows.
func textSeparators(delimiter string) []string {
	return []string{delimiter, "\x02", "\x03", "\x04", "\x05", "\x06", "\x07"}
}

// textDecoder reads SeaTunnel's text format: fields split at the delimiter, converted by
// position; blank fields and fields missing at the end are null, extra fields are ignored.
type textDecoder struct {
	rt   *types.RowType
	seps []string
	conv literal.Converter
}

func (d *textDecoder) decode(value []byte, table string, out *row.Batch) (int, error) {
	if len(value) == 0 {
		return 0, nil
	}
	r := out.Add(row.Insert, table, d.rt.Len())
	if err := d.fillFields(r.Fields, string(value), d.rt, 0); err != nil {
		out.Rows = out.Rows[:len(out.Rows)-1]
		return 0, err
	}
	return 1, nil
}

func (d *textDecoder) fields(line string, rt *types.RowType, level int) ([]row.Value, error) {
	out := make([]row.Value, rt.Len())
	if err := d.fillFields(out, line, rt, level); err != nil {
		return nil, err
	}
	return out, nil
}

// fillFields converts the fields of line, split at the level's separator, into dst: those
// missing at the end null, extra ones ignored.
func (d *textDecoder) fillFields(dst []row.Value, line string, rt *types.RowType, level int) error {
	sep := d.sep(level)
	rest, more := line, true
	for i := range dst {
		if !more {
			dst[i] = row.Value{}
			continue
		}
		var part string
		part, rest, more = strings.Cut(rest, sep)
		v, err := d.value(part, rt.Types[i], level)
		if err != nil {
			return fmt.Errorf("field %s: %w", rt.Names[i], err)
		}
		dst[i] = v
	}
	return nil
}

func (d *textDecoder) sep(level int) string {
	if level < len(d.seps) {
		return d.seps[level]
	}
	return d.seps[len(d.seps)-1]
}

func (d *textDecoder) value(s string, t types.DataType, level int) (row.Value, error) {
	if strings.TrimSpace(s) == "" {
		return row.NullValue(), nil
	}
	switch t.Kind {
	case types.String:
		return row.StringValue(s), nil
	case types.Bytes:
		return row.BytesValue([]byte(s)), nil
	case types.Boolean:
		return row.BoolValue(strings.EqualFold(s, "true")), nil // Java's Boolean.parseBoolean
	case types.Array:
		parts := strings.Split(s, d.sep(level+1))
		elems := make([]row.Value, len(parts))
		for i, p := range parts {
			v, err := d.value(p, *t.Elem, level+1)
			if err != nil {
				return row.Value{}, fmt.Errorf("[%d]: %w", i, err)
			}
			elems[i] = v
		}
		return row.ArrayValue(elems), nil
	case types.Map:
		return d.mapValue(s, t, level)
	case types.Row:
		fields, err := d.fields(s, t.Row, level+1)
		if err != nil {
			return row.Value{}, err
		}
		return row.RowValue(fields), nil
	}
	return d.conv.Convert(&hocon.Value{Kind: hocon.String, Str: s}, t)
}

func (d *textDecoder) mapValue(s string, t types.DataType, level int) (row.Value, error) {
	m := &row.MapValue{}
	for _, kv := range strings.Split(s, d.sep(level+1)) {
		k, v, _ := strings.Cut(kv, d.sep(level+2))
		kval, err := d.value(k, *t.Key, level+1)
		if err != nil {
			return row.Value{}, fmt.Errorf("key %q: %w", k, err)
		}
		vval, err := d.value(v, *t.Elem, level+1)
		if err != nil {
			return row.Value{}, fmt.Errorf("value of %q: %w", k, err)
		}
		m.Keys = append(m.Keys, kval)
		m.Vals = append(m.Vals, vval)
	}
	return row.MapOfValues(m), nil
}

// An encoder appends a row's fields as one record value (or key); the change formats write
// its kind too.
type encoder interface {
	encode(buf []byte, kind row.Kind, fields []row.Value) ([]byte, error)
}

func newEncoder(format, delimiter string, rt *types.RowType) (encoder, error) {
	switch format {
	case formatJSON:
		return newJSONEncoder(rt), nil
	case formatText:
		return &textEncoder{rt: rt, seps: textSeparators(delimiter)}, nil
	case formatAvro:
		return newAvroCodec(rt)
	}
	if e, ok := newCDCEncoder(format, rt); ok {
		return e, nil
	}
	return nil, fmt.Errorf("format %s is not supported by the Kafka sink (json, text, canal_json, debezium_json, "+
		"compatible_debezium_json, maxwell_json, ogg_json, avro and protobuf are)", format)
}

// jsonEncoder writes SeaTunnel's json format: an object of the columns by name, nested rows
// as objects, dates and timestamps as ISO text, bytes as base64.
type jsonEncoder struct {
	rt *types.RowType
	// keys are the fields' `"name":` as written, then `,"name":`: written once, not per row
	keys [][]byte
}

func newJSONEncoder(rt *types.RowType) *jsonEncoder {
	e := &jsonEncoder{rt: rt, keys: make([][]byte, len(rt.Names))}
	for i, n := range rt.Names {
		if i > 0 {
			e.keys[i] = append(e.keys[i], ',')
		}
		e.keys[i] = append(row.AppendJSONString(e.keys[i], n), ':')
	}
	return e
}

func (e *jsonEncoder) encode(buf []byte, _ row.Kind, fields []row.Value) ([]byte, error) {
	if len(fields) != len(e.keys) {
		return row.AppendJSONObject(buf, fields, e.rt), nil
	}
	buf = append(buf, '{')
	for i := range fields {
		buf = append(buf, e.keys[i]...)
		buf = row.AppendJSONAs(buf, fields[i], e.rt.Types[i])
	}
	return append(buf, '}'), nil
}

// textEncoder writes SeaTunnel's text format: fields joined with the delimiter, nulls as
// nothing, arrays, maps and rows joined with the separators of their level.
type textEncoder struct {
	rt   *types.RowType
	seps []string
}

func (e *textEncoder) encode(buf []byte, _ row.Kind, fields []row.Value) ([]byte, error) {
	for i := range fields {
		if i > 0 {
			buf = append(buf, e.seps[0]...)
		}
		buf = e.appendValue(buf, fields[i], 0)
	}
	return buf, nil
}

func (e *textEncoder) sep(level int) string {
	if level < len(e.seps) {
		return e.seps[level]
	}
	return e.seps[len(e.seps)-1]
}

func (e *textEncoder) appendValue(buf []byte, v row.Value, level int) []byte {
	switch v.T {
	case types.Null:
		return buf
	case types.Bytes:
		return append(buf, v.S...)
	case types.Timestamp:
		// yyyy-MM-dd HH:mm:ss, as SeaTunnel's text format writes it
		start := len(buf)
		buf = row.AppendTimestamp(buf, v.I)
		if i := start + 10; i < len(buf) && buf[i] == 'T' {
			buf[i] = ' '
		}
		return buf
	case types.Array, types.Row:
		for i, el := range v.Fields() {
			if i > 0 {
				buf = append(buf, e.sep(level+1)...)
			}
			buf = e.appendValue(buf, el, level+1)
		}
		return buf
	case types.Map:
		m := v.Map()
		for i := range m.Keys {
			if i > 0 {
				buf = append(buf, e.sep(level+1)...)
			}
			buf = e.appendValue(buf, m.Keys[i], level+1)
			buf = append(buf, e.sep(level+2)...)
			buf = e.appendValue(buf, m.Vals[i], level+1)
		}
		return buf
	}
	return row.AppendText(buf, v)
}
