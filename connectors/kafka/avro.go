package kafka

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"unsafe"

	"github.com/hamba/avro/v2"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/internal/civil"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// The avro format as SeaTunnel writes it: one binary-encoded record per Kafka record, no
// container header and no schema registry; the schema is derived from the row type, as
// SeaTunnel's SeaTunnelRowTypeToAvroSchemaConverter derives it: a record SeaTunnelRecord of
// the fields in order, none of them optional; tinyint, smallint and int as int, bigint as
// long, decimal as bytes with the decimal logical type, date as int (date), timestamp as
// long (local-timestamp-millis), arrays and maps (string keys) of the element types, nested
// rows as records named after their field. Time has no avro type there and is refused.
//
// The codec runs on hamba/avro's Reader and Writer primitives, driven by the row type, so a
// record is read straight into row values and written straight from them: no generic maps.

const formatAvro = "avro"

// avroSchema is SeaTunnel's avro schema of a row type.
func avroSchema(rt *types.RowType) (*avro.RecordSchema, error) {
	return avroRecord("SeaTunnelRecord", rt)
}

func avroRecord(name string, rt *types.RowType) (*avro.RecordSchema, error) {
	fields := make([]*avro.Field, 0, rt.Len())
	for i, n := range rt.Names {
		s, err := avroType(n, rt.Types[i])
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", n, err)
		}
		f, err := avro.NewField(n, s)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", n, err)
		}
		fields = append(fields, f)
	}
	return avro.NewRecordSchema(name, "", fields)
}

func avroType(name string, t types.DataType) (avro.Schema, error) {
	switch t.Kind {
	case types.String:
		return avro.NewPrimitiveSchema(avro.String, nil), nil
	case types.Bytes:
		return avro.NewPrimitiveSchema(avro.Bytes, nil), nil
	case types.TinyInt, types.SmallInt, types.Int:
		return avro.NewPrimitiveSchema(avro.Int, nil), nil
	case types.BigInt:
		return avro.NewPrimitiveSchema(avro.Long, nil), nil
	case types.Float:
		return avro.NewPrimitiveSchema(avro.Float, nil), nil
	case types.Double:
		return avro.NewPrimitiveSchema(avro.Double, nil), nil
	case types.Boolean:
		return avro.NewPrimitiveSchema(avro.Boolean, nil), nil
	case types.Null:
		return avro.NewNullSchema(), nil
	case types.Decimal:
		return avro.NewPrimitiveSchema(avro.Bytes, avro.NewDecimalLogicalSchema(t.Precision, t.Scale)), nil
	case types.Date:
		return avro.NewPrimitiveSchema(avro.Int, avro.NewPrimitiveLogicalSchema(avro.Date)), nil
	case types.Timestamp:
		return avro.NewPrimitiveSchema(avro.Long, avro.NewPrimitiveLogicalSchema(avro.LocalTimestampMillis)), nil
	case types.Array:
		e, err := avroType(name, *t.Elem)
		if err != nil {
			return nil, err
		}
		return avro.NewArraySchema(e), nil
	case types.Map:
		v, err := avroType(name, *t.Elem)
		if err != nil {
			return nil, err
		}
		return avro.NewMapSchema(v), nil
	case types.Row:
		return avroRecord(name, t.Row)
	}
	return nil, fmt.Errorf("type %s has no avro type in SeaTunnel's avro format", t)
}

// avroCodec reads and writes the records of one row type.
type avroCodec struct {
	rt   *types.RowType
	r    *avro.Reader
	w    *avro.Writer
	conv literal.Converter
	size int // of the record being read: no count or length may exceed it
}

func newAvroCodec(rt *types.RowType) (*avroCodec, error) {
	if _, err := avroSchema(rt); err != nil {
		return nil, err
	}
	return &avroCodec{rt: rt, r: avro.NewReader(nil, 0), w: avro.NewWriter(nil, 512)}, nil
}

var errAvroTrailing = errors.New("bytes left after the record")

// decode reads one record into a row of out.
func (c *avroCodec) decode(value []byte, table string, out *row.Batch) (int, error) {
	c.r.Reset(value)
	c.r.Error = nil
	c.size = len(value)
	r := out.Add(row.Insert, table, c.rt.Len())
	if err := c.readFields(r.Fields, c.rt); err != nil {
		out.Rows = out.Rows[:len(out.Rows)-1]
		return 0, err
	}
	if c.r.Peek(); c.r.Error == nil {
		out.Rows = out.Rows[:len(out.Rows)-1]
		return 0, errAvroTrailing
	}
	return 1, nil
}

func (c *avroCodec) readFields(dst []row.Value, rt *types.RowType) error {
	for i := range dst {
		v, err := c.read(rt.Types[i])
		if err != nil {
			return fmt.Errorf("field %s: %w", rt.Names[i], err)
		}
		dst[i] = v
	}
	return nil
}

func (c *avroCodec) read(t types.DataType) (row.Value, error) {
	var v row.Value
	switch t.Kind {
	case types.Null:
		return v, nil
	case types.String:
		v = row.StringValue(c.readString())
	case types.Bytes:
		v = row.Value{T: types.Bytes, S: c.readString()}
	case types.Boolean:
		v = row.BoolValue(c.r.ReadBool())
	case types.TinyInt:
		v = row.TinyIntValue(int8(c.r.ReadInt())) // SeaTunnel writes the byte unsigned
	case types.SmallInt:
		v = row.SmallIntValue(int16(c.r.ReadInt()))
	case types.Int:
		v = row.IntValue(c.r.ReadInt())
	case types.BigInt:
		v = row.BigIntValue(c.r.ReadLong())
	case types.Float:
		v = row.FloatValue(c.r.ReadFloat())
	case types.Double:
		v = row.DoubleValue(c.r.ReadDouble())
	case types.Date:
		v = row.DateValue(int64(c.r.ReadInt()))
	case types.Timestamp:
		ms := c.r.ReadLong()
		if ms > math.MaxInt64/int64(1e6) || ms < math.MinInt64/int64(1e6) {
			return v, fmt.Errorf("timestamp %d ms out of range", ms)
		}
		v = row.TimestampValue(ms * 1e6)
	case types.Decimal:
		b := c.readBytes()
		v = row.DecimalValue(fromTwosComplement(b), t.Scale)
	case types.Array:
		return c.readArray(t)
	case types.Map:
		return c.readMap(t)
	case types.Row:
		fields := make([]row.Value, t.Row.Len())
		if err := c.readFields(fields, t.Row); err != nil {
			return v, err
		}
		v = row.RowValue(fields)
	default:
		return v, fmt.Errorf("type %s has no avro type", t)
	}
	return v, c.r.Error
}

// readString reads a string or bytes value into a string of its own.
func (c *avroCodec) readString() string {
	b := c.readBytes()
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// readBytes reads a length and that many bytes, into a slice of their own.
func (c *avroCodec) readBytes() []byte {
	n := c.r.ReadLong()
	if c.r.Error != nil {
		return nil
	}
	if n < 0 || n > int64(c.size) {
		c.r.ReportError("bytes", fmt.Sprintf("length %d out of range", n))
		return nil
	}
	b := make([]byte, n)
	c.r.Read(b)
	return b
}

// blockCount reads an array's or map's block header; a count beyond what the record could
// hold is an error, so no input makes the reader loop or allocate without bound.
func (c *avroCodec) blockCount() (int, error) {
	n, _ := c.r.ReadBlockHeader()
	if c.r.Error != nil {
		return 0, c.r.Error
	}
	if n < 0 || n > int64(c.size) {
		return 0, fmt.Errorf("block of %d items out of range", n)
	}
	return int(n), nil
}

func (c *avroCodec) readArray(t types.DataType) (row.Value, error) {
	var elems []row.Value
	for {
		n, err := c.blockCount()
		if err != nil || n == 0 {
			return row.ArrayValue(elems), err
		}
		if len(elems)+n > c.size {
			return row.Value{}, fmt.Errorf("array of more than %d items", c.size)
		}
		for range n {
			e, err := c.read(*t.Elem)
			if err != nil {
				return row.Value{}, fmt.Errorf("[%d]: %w", len(elems), err)
			}
			elems = append(elems, e)
		}
	}
}

func (c *avroCodec) readMap(t types.DataType) (row.Value, error) {
	m := &row.MapValue{}
	for {
		n, err := c.blockCount()
		if err != nil || n == 0 {
			return row.MapOfValues(m), err
		}
		if len(m.Keys)+n > c.size {
			return row.Value{}, fmt.Errorf("map of more than %d entries", c.size)
		}
		for range n {
			key := c.readString()
			if c.r.Error != nil {
				return row.Value{}, c.r.Error
			}
			k, err := c.mapKey(key, *t.Key)
			if err != nil {
				return row.Value{}, err
			}
			val, err := c.read(*t.Elem)
			if err != nil {
				return row.Value{}, fmt.Errorf("value of %q: %w", key, err)
			}
			m.Keys, m.Vals = append(m.Keys, k), append(m.Vals, val)
		}
	}
}

// mapKey converts an avro map key (always a string) to the map's key type.
func (c *avroCodec) mapKey(key string, t types.DataType) (row.Value, error) {
	if t.Kind == types.String {
		return row.StringValue(key), nil
	}
	v, err := c.conv.Convert(&hocon.Value{Kind: hocon.String, Str: key}, t)
	if err != nil {
		return row.Value{}, fmt.Errorf("key %q: %w", key, err)
	}
	return v, nil
}

// encode appends a row as one avro record. A null value fails: SeaTunnel's schema has no
// optional fields.
func (c *avroCodec) encode(buf []byte, _ row.Kind, fields []row.Value) ([]byte, error) {
	c.w.Reset(nil)
	if err := c.writeFields(fields, c.rt); err != nil {
		return buf, err
	}
	return append(buf, c.w.Buffer()...), nil
}

func (c *avroCodec) writeFields(fields []row.Value, rt *types.RowType) error {
	if len(fields) != rt.Len() {
		return fmt.Errorf("a row of %d fields for a schema of %d", len(fields), rt.Len())
	}
	for i := range fields {
		if err := c.write(fields[i], rt.Types[i]); err != nil {
			return fmt.Errorf("field %s: %w", rt.Names[i], err)
		}
	}
	return nil
}

func (c *avroCodec) write(v row.Value, t types.DataType) error {
	if t.Kind == types.Null {
		return nil
	}
	if v.IsNull() {
		return errors.New("null, and SeaTunnel's avro schema has no optional fields")
	}
	w := c.w
	switch t.Kind {
	case types.String, types.Bytes:
		w.WriteString(v.S)
	case types.Boolean:
		w.WriteBool(v.Bool())
	case types.TinyInt:
		w.WriteInt(int32(uint8(v.I))) // as SeaTunnel: Byte.toUnsignedInt
	case types.SmallInt, types.Int:
		w.WriteInt(int32(v.I))
	case types.BigInt:
		w.WriteLong(v.I)
	case types.Float:
		w.WriteFloat(v.Float32())
	case types.Double:
		w.WriteDouble(v.Float64())
	case types.Date:
		w.WriteInt(int32(v.I))
	case types.Timestamp:
		w.WriteLong(civil.FloorDiv(v.I, 1e6))
	case types.Decimal:
		return c.writeDecimal(v, t)
	case types.Array:
		return c.writeArray(v, t)
	case types.Map:
		return c.writeMap(v, t)
	case types.Row:
		return c.writeFields(v.Fields(), t.Row)
	default:
		return fmt.Errorf("type %s has no avro type", t)
	}
	return nil
}

func (c *avroCodec) writeDecimal(v row.Value, t types.DataType) error {
	u := v.Unscaled()
	if u == nil {
		return fmt.Errorf("a %s value for a decimal", v.T)
	}
	if v.DecimalScale() != t.Scale {
		d, err := row.DecimalFromRat(row.DecimalRat(v), 0, t.Scale)
		if err != nil {
			return err
		}
		u = d.Unscaled()
	}
	var scratch [24]byte
	c.w.WriteBytes(appendTwosComplement(scratch[:0], u))
	return nil
}

func (c *avroCodec) writeArray(v row.Value, t types.DataType) error {
	elems := v.Elems()
	if len(elems) > 0 {
		c.w.WriteBlockHeader(int64(len(elems)), 0)
		for i, e := range elems {
			if err := c.write(e, *t.Elem); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
	}
	c.w.WriteBlockHeader(0, 0)
	return nil
}

func (c *avroCodec) writeMap(v row.Value, t types.DataType) error {
	m := v.Map()
	if m != nil && len(m.Keys) > 0 {
		c.w.WriteBlockHeader(int64(len(m.Keys)), 0)
		var kb [32]byte
		for i := range m.Keys {
			if m.Keys[i].IsNull() {
				return errors.New("a null map key")
			}
			key := row.AppendText(kb[:0], m.Keys[i])
			c.w.WriteBytes(key)
			if err := c.write(m.Vals[i], *t.Elem); err != nil {
				return fmt.Errorf("value of %q: %w", key, err)
			}
		}
	}
	c.w.WriteBlockHeader(0, 0)
	return nil
}

// appendTwosComplement appends x as the shortest big-endian two's complement, as Java's
// BigInteger.toByteArray writes it (avro's decimal encoding).
func appendTwosComplement(buf []byte, x *big.Int) []byte {
	neg := x.Sign() < 0
	y := x
	if neg {
		y = new(big.Int).Neg(x) // -x-1 has the complement of x's bits
		y.Sub(y, bigOne)
	}
	n := (y.BitLen() + 8) / 8 // one bit more, for the sign
	start := len(buf)
	buf = append(buf, make([]byte, n)...)
	y.FillBytes(buf[start:])
	if neg {
		for i := start; i < len(buf); i++ {
			buf[i] = ^buf[i]
		}
	}
	return buf
}

var bigOne = big.NewInt(1)

// fromTwosComplement reads a big-endian two's complement integer.
func fromTwosComplement(b []byte) *big.Int {
	x := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return x
}
