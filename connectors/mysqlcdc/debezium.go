package mysqlcdc

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// format = compatible_debezium_json: every change becomes one row of three strings, topic,
// key and value, holding the Kafka Connect JSON records Debezium's MySQL connector writes
// (SeaTunnel's CompatibleDebeziumJsonDeserializationSchema), for a Kafka sink of the same
// format to write as they are. The topic is <server>.<database>.<table>, server being
// debezium.database.server.name (SeaTunnel's mysql_binlog_source by default); the key holds
// the primary key's columns (null for a table without one); the value is Debezium's
// envelope: before, after, source, op (r for the snapshot, c, u, d), ts_ms. Each is wrapped
// in {"schema", "payload"} unless debezium.key.converter.schemas.enable or
// .value.converter.schemas.enable is false.

const (
	formatDefault  = "DEFAULT"
	formatDebezium = "COMPATIBLE_DEBEZIUM_JSON"
	// debeziumServer is the server name SeaTunnel gives Debezium.
	debeziumServer = "mysql_binlog_source"
	// debeziumVersion is the Debezium release SeaTunnel's MySQL-CDC embeds, which the source
	// block names.
	debeziumVersion = "1.9.8.Final"
)

// debeziumOptions are the Debezium properties the format reads.
type debeziumOptions struct {
	server      string
	keySchema   bool
	valueSchema bool
}

// debeziumTable is what a table's records share: its topic and schemas, written once.
type debeziumTable struct {
	t           *cdcTable
	o           *debeziumOptions
	topic       string
	keySchema   string // the key's "schema" member, or ""
	valueSchema string // the envelope's
	all         []int  // every column's index: the columns of a row image
	loc         *time.Location
	buf         []byte
	before      []row.Value // an update's before image, until its after image comes
	images      [2][]row.Value
}

// image is a buffer for a row image of the log: the before image of an update, or any
// other; each is written out before its buffer is used again.
func (d *debeziumTable) image(before bool) []row.Value {
	i := 1
	if before {
		i = 0
	}
	if d.images[i] == nil {
		d.images[i] = make([]row.Value, len(d.t.cols))
	}
	return d.images[i]
}

// debeziumCatalog is the table the format's rows are rows of: topic, key and value.
func debeziumCatalog(t *cdcTable) *catalog.Table {
	str := types.Of(types.String)
	return &catalog.Table{Path: t.table.Path, Comment: t.table.Comment, Columns: []catalog.Column{
		{Name: "topic", Type: str, Nullable: true}, {Name: "key", Type: str, Nullable: true}, {Name: "value", Type: str, Nullable: true}}}
}

func newDebeziumTable(t *cdcTable, o *debeziumOptions, loc *time.Location) *debeziumTable {
	d := &debeziumTable{t: t, o: o, loc: loc, topic: o.server + "." + t.name.db + "." + t.name.table}
	d.all = make([]int, len(t.cols))
	for i := range d.all {
		d.all[i] = i
	}
	if o.keySchema && len(t.keyIdx) > 0 {
		d.keySchema = d.structSchema(d.topic+".Key", false, t.keyIdx)
	}
	if o.valueSchema {
		d.valueSchema = d.envelopeSchema()
	}
	return d
}

// change is one change of a row as the envelope tells it.
type change struct {
	op       byte // 'r', 'c', 'u' or 'd'
	before   []row.Value
	after    []row.Value
	file     string
	pos      uint32
	serverID uint32
	tsMillis int64 // when the server wrote it; 0 in the snapshot
	gtid     string
}

// emit appends the change as a row of out: topic, key and value.
func (d *debeziumTable) emit(out *row.Batch, c *change) {
	r := out.Add(row.Insert, d.t.id, 3)
	r.Fields[0].SetString(d.topic)
	keyOf := c.after
	if keyOf == nil {
		keyOf = c.before
	}
	if len(d.t.keyIdx) == 0 {
		r.Fields[1].SetNull()
	} else {
		r.Fields[1].SetString(d.key(keyOf))
	}
	r.Fields[2].SetString(d.value(c))
}

func (d *debeziumTable) key(fields []row.Value) string {
	b := d.buf[:0]
	if d.keySchema != "" {
		b = append(b, `{"schema":`...)
		b = append(b, d.keySchema...)
		b = append(b, `,"payload":`...)
	}
	b = d.appendStruct(b, fields, d.t.keyIdx)
	if d.keySchema != "" {
		b = append(b, '}')
	}
	d.buf = b
	return string(b)
}

func (d *debeziumTable) value(c *change) string {
	b := d.buf[:0]
	if d.valueSchema != "" {
		b = append(b, `{"schema":`...)
		b = append(b, d.valueSchema...)
		b = append(b, `,"payload":`...)
	}
	b = append(b, `{"before":`...)
	b = d.appendStruct(b, c.before, d.all)
	b = append(b, `,"after":`...)
	b = d.appendStruct(b, c.after, d.all)
	b = append(b, `,"source":{"version":"`+debeziumVersion+`","connector":"mysql","name":`...)
	b = row.AppendJSONString(b, d.o.server)
	b = append(b, `,"ts_ms":`...)
	b = strconv.AppendInt(b, c.tsMillis, 10)
	b = append(b, `,"snapshot":`...)
	if c.op == 'r' {
		b = append(b, `"true"`...)
	} else {
		b = append(b, `"false"`...)
	}
	b = append(b, `,"db":`...)
	b = row.AppendJSONString(b, d.t.name.db)
	b = append(b, `,"sequence":null,"table":`...)
	b = row.AppendJSONString(b, d.t.name.table)
	b = append(b, `,"server_id":`...)
	b = strconv.AppendUint(b, uint64(c.serverID), 10)
	b = append(b, `,"gtid":`...)
	if c.gtid == "" {
		b = append(b, "null"...)
	} else {
		b = row.AppendJSONString(b, c.gtid)
	}
	b = append(b, `,"file":`...)
	b = row.AppendJSONString(b, c.file)
	b = append(b, `,"pos":`...)
	b = strconv.AppendUint(b, uint64(c.pos), 10)
	b = append(b, `,"row":0,"thread":null,"query":null},"op":"`...)
	b = append(b, c.op)
	b = append(b, `","ts_ms":`...)
	b = strconv.AppendInt(b, time.Now().UnixMilli(), 10)
	b = append(b, `,"transaction":null}`...)
	if d.valueSchema != "" {
		b = append(b, '}')
	}
	d.buf = b
	return string(b)
}

// appendStruct appends the columns idx of a row as an object, or null for no row.
func (d *debeziumTable) appendStruct(b []byte, fields []row.Value, idx []int) []byte {
	if fields == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for k, i := range idx {
		if k > 0 {
			b = append(b, ',')
		}
		b = row.AppendJSONString(b, d.t.cols[i].name)
		b = append(b, ':')
		b = d.t.cols[i].appendDebezium(b, &fields[i], d.loc)
	}
	return append(b, '}')
}

// appendDebezium appends a value as Debezium's MySQL connector writes it in JSON (its
// default modes: precise decimals, adaptive_time_microseconds, bytes in base64).
func (c *column) appendDebezium(b []byte, v *row.Value, loc *time.Location) []byte {
	if v.IsNull() {
		return append(b, "null"...)
	}
	switch c.typ.Kind {
	case types.Boolean:
		if c.dataTyp == "tinyint" { // TINYINT(1) is a number to Debezium
			return strconv.AppendInt(b, boolInt(v.Bool()), 10)
		}
		return strconv.AppendBool(b, v.Bool())
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return strconv.AppendInt(b, v.Int(), 10)
	case types.Float:
		return appendJSONFloat(b, float64(v.Float32()), 32)
	case types.Double:
		return appendJSONFloat(b, v.Float64(), 64)
	case types.Decimal:
		return row.AppendDecimal(b, *v)
	case types.String:
		return row.AppendJSONString(b, v.Str())
	case types.Bytes:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, []byte(v.Str()))
		return append(b, '"')
	case types.Date:
		return strconv.AppendInt(b, v.Int(), 10) // io.debezium.time.Date: days
	case types.Time:
		return strconv.AppendInt(b, v.Int()/1000, 10) // io.debezium.time.MicroTime
	case types.Timestamp:
		if c.dec == decTimestamp { // io.debezium.time.ZonedTimestamp, in UTC
			t := v.Time()
			at := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
			return row.AppendJSONString(b, at.UTC().Format("2006-01-02T15:04:05.999999Z"))
		}
		if c.frac > 3 { // io.debezium.time.MicroTimestamp
			return strconv.AppendInt(b, v.Int()/1000, 10)
		}
		return strconv.AppendInt(b, v.Int()/1_000_000, 10) // io.debezium.time.Timestamp
	}
	return row.AppendJSONString(b, v.String())
}

// connectType is a column's Kafka Connect schema: its type and, for logical types, its name
// and parameters.
func (c *column) connectType() (typ, name, params string) {
	switch c.typ.Kind {
	case types.Boolean:
		if c.dataTyp == "tinyint" {
			return "int16", "", ""
		}
		return "boolean", "", ""
	case types.TinyInt, types.SmallInt:
		return "int16", "", ""
	case types.Int:
		if c.dec == decYear {
			return "int32", "io.debezium.time.Year", ""
		}
		return "int32", "", ""
	case types.BigInt:
		return "int64", "", ""
	case types.Float:
		return "float", "", ""
	case types.Double:
		return "double", "", ""
	case types.Decimal:
		return "bytes", "org.apache.kafka.connect.data.Decimal",
			`{"scale":"` + strconv.Itoa(c.typ.Scale) + `","connect.decimal.precision":"` + strconv.Itoa(c.typ.Precision) + `"}`
	case types.Bytes:
		if c.dec == decBits {
			return "bytes", "io.debezium.data.Bits", `{"length":"` + strconv.Itoa(c.bits) + `"}`
		}
		return "bytes", "", ""
	case types.Date:
		return "int32", "io.debezium.time.Date", ""
	case types.Time:
		return "int64", "io.debezium.time.MicroTime", ""
	case types.Timestamp:
		switch {
		case c.dec == decTimestamp:
			return "string", "io.debezium.time.ZonedTimestamp", ""
		case c.frac > 3:
			return "int64", "io.debezium.time.MicroTimestamp", ""
		}
		return "int64", "io.debezium.time.Timestamp", ""
	}
	switch c.dec {
	case decEnum:
		return "string", "io.debezium.data.Enum", `{"allowed":` + string(row.AppendJSONString(nil, strings.Join(c.members, ","))) + `}`
	case decSet:
		return "string", "io.debezium.data.EnumSet", `{"allowed":` + string(row.AppendJSONString(nil, strings.Join(c.members, ","))) + `}`
	}
	if c.dataTyp == "json" {
		return "string", "io.debezium.data.Json", ""
	}
	return "string", "", ""
}

// structSchema is the Kafka Connect schema of a struct of the columns idx.
func (d *debeziumTable) structSchema(name string, optional bool, idx []int) string {
	var b strings.Builder
	b.WriteString(`{"type":"struct","fields":[`)
	for k, i := range idx {
		if k > 0 {
			b.WriteByte(',')
		}
		c := &d.t.cols[i]
		typ, lname, params := c.connectType()
		b.WriteString(`{"type":"` + typ + `","optional":` + strconv.FormatBool(d.t.table.Columns[i].Nullable))
		if lname != "" {
			b.WriteString(`,"name":"` + lname + `","version":1`)
		}
		if params != "" {
			b.WriteString(`,"parameters":` + params)
		}
		b.WriteString(`,"field":`)
		b.Write(row.AppendJSONString(nil, c.name))
		b.WriteByte('}')
	}
	b.WriteString(`],"optional":` + strconv.FormatBool(optional) + `,"name":`)
	b.Write(row.AppendJSONString(nil, name))
	b.WriteByte('}')
	return b.String()
}

// debeziumSource is the schema of Debezium's MySQL source block.
const debeziumSource = `{"type":"struct","fields":[{"type":"string","optional":false,"field":"version"},` +
	`{"type":"string","optional":false,"field":"connector"},{"type":"string","optional":false,"field":"name"},` +
	`{"type":"int64","optional":false,"field":"ts_ms"},{"type":"string","optional":true,"name":"io.debezium.data.Enum","version":1,` +
	`"parameters":{"allowed":"true,last,false,incremental"},"default":"false","field":"snapshot"},` +
	`{"type":"string","optional":false,"field":"db"},{"type":"string","optional":true,"field":"sequence"},` +
	`{"type":"string","optional":true,"field":"table"},{"type":"int64","optional":false,"field":"server_id"},` +
	`{"type":"string","optional":true,"field":"gtid"},{"type":"string","optional":false,"field":"file"},` +
	`{"type":"int64","optional":false,"field":"pos"},{"type":"int32","optional":false,"field":"row"},` +
	`{"type":"int64","optional":true,"field":"thread"},{"type":"string","optional":true,"field":"query"}],` +
	`"optional":false,"name":"io.debezium.connector.mysql.Source","field":"source"}`

// debeziumTransaction is the schema of the envelope's transaction block.
const debeziumTransaction = `{"type":"struct","fields":[{"type":"string","optional":false,"field":"id"},` +
	`{"type":"int64","optional":false,"field":"total_order"},{"type":"int64","optional":false,"field":"data_collection_order"}],` +
	`"optional":true,"field":"transaction"}`

// envelopeSchema is the schema of the value: Debezium's envelope.
func (d *debeziumTable) envelopeSchema() string {
	value := d.structSchema(d.topic+".Value", true, d.all)
	field := func(s, name string) string { return s[:len(s)-1] + `,"field":"` + name + `"}` }
	return `{"type":"struct","fields":[` + field(value, "before") + `,` + field(value, "after") + `,` + debeziumSource +
		`,{"type":"string","optional":false,"field":"op"},{"type":"int64","optional":true,"field":"ts_ms"},` + debeziumTransaction +
		`],"optional":false,"name":` + string(row.AppendJSONString(nil, d.topic+".Envelope")) + `}`
}

// appendJSONFloat appends a float as JSON has it; NaN and the infinities, which JSON has
// not, as Kafka Connect's converter writes them: as strings.
func appendJSONFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}
