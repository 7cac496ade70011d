package kafka

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/strait-dev/strait/connectors/internal/format"
	jsonformat "github.com/strait-dev/strait/connectors/internal/format/json"

	textformat "github.com/strait-dev/strait/connectors/internal/format/text"
	"github.com/strait-dev/strait/internal/javatime"

	"github.com/strait-dev/strait/config/hocon"
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
		return newJSONDecoder(rt), nil
	case formatText:
		if delimiter == "" {
			return nil, errors.New("field_delimiter must not be empty")
		}
		return &textDecoder{rt: rt, vals: textformat.Values{Seps: textSeparators(delimiter), Lenient: true}}, nil
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

// jsonDecoder reads SeaTunnel's json format as its JsonDeserializationSchema does (the
// file connectors' json format, format/json): a record is an object whose fields are the
// columns by name, or an array of such objects, one row each; an empty or null record is
// no row. Values convert as SeaTunnel's JSON converters read them (numbers from numbers or
// numeric strings, dates and timestamps from text, bytes from base64, nested rows from
// objects).
type jsonDecoder struct {
	rt    *types.RowType
	lines *jsonformat.Lines
}

func newJSONDecoder(rt *types.RowType) *jsonDecoder {
	cols := make([]format.Column, rt.Len())
	for i, n := range rt.Names {
		cols[i] = format.Column{Name: n, Type: rt.Types[i], Out: i}
	}
	return &jsonDecoder{rt: rt, lines: jsonformat.NewLines(cols)}
}

func (d *jsonDecoder) decode(value []byte, table string, out *row.Batch) (int, error) {
	start := len(out.Rows)
	n, err := d.lines.DecodeRecord(value,
		func() []row.Value { return out.Add(row.Insert, table, d.rt.Len()).Fields },
		func() { out.Rows = out.Rows[:len(out.Rows)-1] })
	if err != nil {
		out.Rows = out.Rows[:start]
		return 0, err
	}
	return n, nil
}

// parseJSON reads one JSON text into a value tree (hocon.ParseJSON).
var parseJSON = hocon.ParseJSON

// maxJSONDepth bounds the nesting the record readers follow, as hocon.ParseJSON does.
const maxJSONDepth = 256

// textSeparators are SeaTunnel's text format separators: the field delimiter, then \x02 to
// \x07 for the levels inside arrays, maps and rows.
func textSeparators(delimiter string) [7]string {
	seps := textformat.DefaultSeparators
	seps[0] = delimiter
	return seps
}

// textDecoder reads SeaTunnel's text format as its TextDeserializationSchema does (the
// file connectors' text format, format/text, read leniently): fields split at the
// delimiter, converted by position; fields missing at the end are null, extra fields are
// ignored.
type textDecoder struct {
	rt   *types.RowType
	vals textformat.Values
}

func (d *textDecoder) decode(value []byte, table string, out *row.Batch) (int, error) {
	if len(value) == 0 {
		return 0, nil
	}
	r := out.Add(row.Insert, table, d.rt.Len())
	sep := d.vals.Seps[0]
	rest, more := value, true
	for i := range r.Fields {
		if !more {
			continue // the row's fields start null
		}
		var part []byte
		part, rest, more = bytes.Cut(rest, []byte(sep))
		v, err := d.vals.Parse(part, &d.rt.Types[i], 0)
		if err != nil {
			out.Rows = out.Rows[:len(out.Rows)-1]
			return 0, fmt.Errorf("field %s: %w", d.rt.Names[i], err)
		}
		r.Fields[i] = v
	}
	return 1, nil
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
		return newTextEncoder(delimiter), nil
	case formatAvro:
		return newAvroCodec(rt)
	}
	if e, ok := newCDCEncoder(format, rt); ok {
		return e, nil
	}
	return nil, fmt.Errorf("format %s is not supported by the Kafka sink (json, text, canal_json, debezium_json, "+
		"compatible_debezium_json, maxwell_json, ogg_json, avro and protobuf are)", format)
}

// jsonEncoder writes SeaTunnel's json format as its JsonSerializationSchema does (the file
// connectors' json format, format/json): an object of the columns by name, nested rows as
// objects, dates, times and timestamps as ISO text, decimals as Java's BigDecimal prints
// them, bytes as base64.
type jsonEncoder struct {
	rt *types.RowType
	// keys are the fields' `{"name":`, then `,"name":`: written once, not per row
	keys [][]byte
}

func newJSONEncoder(rt *types.RowType) *jsonEncoder {
	return &jsonEncoder{rt: rt, keys: jsonformat.Keys(rt.Names)}
}

func (e *jsonEncoder) encode(buf []byte, _ row.Kind, fields []row.Value) ([]byte, error) {
	if len(fields) != len(e.keys) {
		return row.AppendJSONObject(buf, fields, e.rt), nil
	}
	if len(fields) == 0 {
		return append(buf, "{}"...), nil
	}
	for i := range fields {
		buf = append(buf, e.keys[i]...)
		buf = jsonformat.AppendValue(buf, &fields[i], &e.rt.Types[i])
	}
	return append(buf, '}'), nil
}

// textEncoder writes SeaTunnel's text format as its TextSerializationSchema does with its
// default layouts (the file connectors' text format, format/text): fields joined with the
// delimiter, nulls as nothing, numbers as Java prints them, dates yyyy-MM-dd, times
// HH:mm:ss and timestamps yyyy-MM-dd HH:mm:ss, arrays, maps and rows joined with the
// separators of their level.
type textEncoder struct {
	enc textformat.Encoder
}

// The layouts SeaTunnel's text format writes when none is configured.
var (
	textDate     = javatime.MustCompile("yyyy-MM-dd")
	textDateTime = javatime.MustCompile("yyyy-MM-dd HH:mm:ss")
	textTime     = javatime.MustCompile("HH:mm:ss")
)

func newTextEncoder(delimiter string) *textEncoder {
	return &textEncoder{enc: textformat.Encoder{Seps: textSeparators(delimiter), Date: textDate, DateTime: textDateTime, Time: textTime}}
}

func (e *textEncoder) encode(buf []byte, _ row.Kind, fields []row.Value) ([]byte, error) {
	for i := range fields {
		if i > 0 {
			buf = append(buf, e.enc.Seps[0]...)
		}
		buf = e.enc.AppendValue(buf, &fields[i], 0)
	}
	return buf, nil
}
