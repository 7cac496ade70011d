package parquet

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"
	pqformat "github.com/parquet-go/parquet-go/format"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/types"
)

// The parquet type mapping, both ways, as SeaTunnel's ParquetWriteStrategy and
// ParquetReadStrategy have it.
//
// Written: string BINARY (STRING); boolean BOOLEAN; tinyint and smallint INT32 (INT(8) and
// INT(16)); int INT32; bigint INT64; float FLOAT; double DOUBLE; decimal(p, s)
// FIXED_LEN_BYTE_ARRAY of the fewest bytes that hold p digits, DECIMAL(p, s); bytes BINARY;
// date INT32 (DATE); time INT64 (TIME(MICROS)); timestamp INT64 (TIMESTAMP(MILLIS,
// adjusted to UTC) from the process's time zone, as the JVM's default zone in SeaTunnel) or
// INT96; null INT32 (UNKNOWN); array a LIST of optional elements; map a MAP of required
// keys; a nested row a group. Every field is optional; top-level names are written in
// lower case. The message is named SeaTunnelRecord.

const parquetMessageName = "SeaTunnelRecord"

// parquetCodec is a compress_codec value for parquet: the codec of its pages and the part
// of the file name SeaTunnel adds for it.
type parquetCodec struct {
	codec  compress.Codec
	suffix string
}

var parquetCodecs = map[string]parquetCodec{
	"none":   {&pq.Uncompressed, ""},
	"snappy": {&pq.Snappy, ".snappy"},
	"gzip":   {&pq.Gzip, ".gz"},
	"zstd":   {&pq.Zstd, ".zstd"},
	"lz4":    {&pq.Lz4Raw, ".lz4"},
	"brotli": {&pq.Brotli, ".br"},
	// SeaTunnel maps zlib to uncompressed parquet pages (it is an ORC codec)
	"zlib": {&pq.Uncompressed, ".zlib"},
}

// parquetCodecOf reads compress_codec, s, for the parquet sink; blank is none.
func parquetCodecOf(o *config.Options, s string) (parquetCodec, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "" {
		v = "none"
	}
	if c, ok := parquetCodecs[v]; ok {
		return c, nil
	}
	if v == "lzo" {
		return parquetCodec{}, o.Errorf("compress_codec", "%q cannot be written: no Go LZO library is available to Strait; use snappy, gzip, zstd, lz4 or none for parquet", s)
	}
	return parquetCodec{}, o.Errorf("compress_codec", "unknown value %q for parquet; expected one of none, snappy, gzip, zstd, lz4, brotli, zlib", s)
}

// decimalBytes is the length of the FIXED_LEN_BYTE_ARRAY that holds every unscaled value of
// a decimal of the precision, as SeaTunnel (and Hive, Spark) size it.
func decimalBytes(precision int) int {
	return int(math.Ceil((math.Log2(math.Pow(10, float64(precision))-1) + 1) / 8))
}

// ---- nodes: parquet-go's Group orders fields by name; SeaTunnel's columns keep their order

// pqGroup is a group node whose fields keep the order they are given in.
type pqGroup []pq.Field

func (g pqGroup) ID() int                           { return 0 }
func (g pqGroup) String() string                    { return "group" }
func (g pqGroup) Type() pq.Type                     { return pq.Group{}.Type() }
func (g pqGroup) Optional() bool                    { return false }
func (g pqGroup) Repeated() bool                    { return false }
func (g pqGroup) Required() bool                    { return true }
func (g pqGroup) Leaf() bool                        { return false }
func (g pqGroup) Fields() []pq.Field                { return g }
func (g pqGroup) Encoding() encoding.Encoding       { return nil }
func (g pqGroup) Compression() compress.Codec       { return nil }
func (g pqGroup) GoType() reflect.Type              { return reflect.TypeOf(struct{}{}) }
func (f pqField) Name() string                      { return f.name }
func (f pqField) Value(reflect.Value) reflect.Value { return reflect.Value{} }

// pqField names a node in its group.
type pqField struct {
	pq.Node
	name string
}

// ---- the file's types as SeaTunnel types

// parquetColumnType maps a column of a parquet file to the SeaTunnel type it is read as.
func parquetColumnType(c *pq.Column) (types.DataType, error) {
	if c.Repeated() {
		// a bare repeated field (not in a LIST) is a list of its values
		elem, err := parquetNodeType(c)
		if err != nil {
			return types.DataType{}, err
		}
		return types.ArrayOf(elem), nil
	}
	return parquetNodeType(c)
}

// parquetNodeType maps a node, ignoring its own repetition.
func parquetNodeType(c *pq.Column) (types.DataType, error) {
	if c.Leaf() {
		return parquetLeafType(c.Type())
	}
	lt := c.Type().LogicalType()
	ct := c.Type().ConvertedType()
	switch {
	case lt != nil && isList(lt) || ct != nil && *ct == deprecated.List:
		elem, err := listElement(c)
		if err != nil {
			return types.DataType{}, err
		}
		et, err := parquetNodeType(elem)
		if err != nil {
			return types.DataType{}, err
		}
		return types.ArrayOf(et), nil
	case lt != nil && isMap(lt) || ct != nil && (*ct == deprecated.Map || *ct == deprecated.MapKeyValue):
		key, val, err := mapKeyValue(c)
		if err != nil {
			return types.DataType{}, err
		}
		kt, err := parquetNodeType(key)
		if err != nil {
			return types.DataType{}, err
		}
		vt := types.Of(types.Null)
		if val != nil {
			if vt, err = parquetNodeType(val); err != nil {
				return types.DataType{}, err
			}
		}
		return types.MapOf(kt, vt), nil
	}
	rt := &types.RowType{}
	for _, f := range c.Columns() {
		t, err := parquetColumnType(f)
		if err != nil {
			return types.DataType{}, fmt.Errorf("%s: %w", f.Name(), err)
		}
		rt.Names = append(rt.Names, f.Name())
		rt.Types = append(rt.Types, t)
	}
	return types.RowOf(rt), nil
}

func isList(lt *pqformat.LogicalType) bool { _, ok := lt.Value.(*pqformat.ListType); return ok }
func isMap(lt *pqformat.LogicalType) bool  { _, ok := lt.Value.(*pqformat.MapType); return ok }

// listElement finds the element of a LIST group by the parquet format's rules for the
// three-level layout and the older two-level ones.
func listElement(c *pq.Column) (*pq.Column, error) {
	kids := c.Columns()
	if len(kids) != 1 || !kids[0].Repeated() {
		return nil, fmt.Errorf("LIST group %q does not hold one repeated field", c.Name())
	}
	rep := kids[0]
	if rep.Leaf() || len(rep.Columns()) > 1 || rep.Name() == "array" || rep.Name() == c.Name()+"_tuple" {
		return rep, nil // the repeated field is the element
	}
	if len(rep.Columns()) == 0 {
		return nil, fmt.Errorf("LIST group %q has an empty element group", c.Name())
	}
	return rep.Columns()[0], nil
}

// mapKeyValue finds the key and value (nil for a set) of a MAP group.
func mapKeyValue(c *pq.Column) (key, val *pq.Column, err error) {
	kids := c.Columns()
	if len(kids) != 1 || !kids[0].Repeated() || kids[0].Leaf() {
		return nil, nil, fmt.Errorf("MAP group %q does not hold one repeated key_value group", c.Name())
	}
	kv := kids[0].Columns()
	switch len(kv) {
	case 1:
		return kv[0], nil, nil
	case 2:
		return kv[0], kv[1], nil
	}
	return nil, nil, fmt.Errorf("MAP group %q: its key_value group has %d fields", c.Name(), len(kv))
}

// parquetLeafType maps a primitive column.
func parquetLeafType(t pq.Type) (types.DataType, error) {
	lt := t.LogicalType()
	if lt != nil && lt.Value != nil {
		switch v := lt.Value.(type) {
		case *pqformat.DecimalType:
			if v.Precision < 1 || v.Precision > 38 || v.Scale < 0 || v.Scale > v.Precision {
				return types.DataType{}, fmt.Errorf("%s does not fit SeaTunnel's decimal (precision 1..38)", v)
			}
			return types.DecimalOf(int(v.Precision), int(v.Scale)), nil
		case *pqformat.DateType:
			return types.Of(types.Date), nil
		case *pqformat.TimeType:
			return types.Of(types.Time), nil
		case *pqformat.TimestampType:
			return types.Of(types.Timestamp), nil
		case *pqformat.NullType:
			return types.Of(types.Null), nil
		case *pqformat.IntType:
			return intLogicalType(v)
		case *pqformat.StringType, *pqformat.EnumType, *pqformat.JsonType, *pqformat.BsonType, *pqformat.UUIDType:
			if t.Kind() == pq.FixedLenByteArray {
				return types.Of(types.Bytes), nil
			}
			return types.Of(types.String), nil
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.Int8:
			return types.Of(types.TinyInt), nil
		case deprecated.Int16, deprecated.Uint8:
			return types.Of(types.SmallInt), nil
		case deprecated.Uint16:
			return types.Of(types.Int), nil
		case deprecated.Uint32:
			return types.Of(types.BigInt), nil
		case deprecated.UTF8, deprecated.Enum, deprecated.Json:
			return types.Of(types.String), nil
		case deprecated.Date:
			return types.Of(types.Date), nil
		case deprecated.TimeMillis, deprecated.TimeMicros:
			return types.Of(types.Time), nil
		case deprecated.TimestampMillis, deprecated.TimestampMicros:
			return types.Of(types.Timestamp), nil
		}
	}
	switch t.Kind() {
	case pq.Boolean:
		return types.Of(types.Boolean), nil
	case pq.Int32:
		return types.Of(types.Int), nil
	case pq.Int64:
		return types.Of(types.BigInt), nil
	case pq.Int96:
		return types.Of(types.Timestamp), nil
	case pq.Float:
		return types.Of(types.Float), nil
	case pq.Double:
		return types.Of(types.Double), nil
	case pq.ByteArray:
		return types.Of(types.Bytes), nil
	case pq.FixedLenByteArray:
		if t.Length() == 12 {
			// an INT96 timestamp written as a 12-byte fixed, as SeaTunnel reads it
			return types.Of(types.Timestamp), nil
		}
		return types.Of(types.Bytes), nil
	}
	return types.DataType{}, fmt.Errorf("parquet type %s has no SeaTunnel type", t)
}

func intLogicalType(v *pqformat.IntType) (types.DataType, error) {
	switch {
	case v.IsSigned && v.BitWidth == 8:
		return types.Of(types.TinyInt), nil
	case v.IsSigned && v.BitWidth == 16, !v.IsSigned && v.BitWidth == 8:
		return types.Of(types.SmallInt), nil
	case v.IsSigned && v.BitWidth == 32, !v.IsSigned && v.BitWidth == 16:
		return types.Of(types.Int), nil
	case v.IsSigned && v.BitWidth == 64, !v.IsSigned && v.BitWidth == 32:
		return types.Of(types.BigInt), nil
	}
	return types.DataType{}, fmt.Errorf("%s does not fit a SeaTunnel integer type", v)
}
