package iceberg

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	ice "github.com/apache/iceberg-go"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/internal/civil"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func sortStrings(s []string) { sort.Strings(s) }

// icebergSchema is the Iceberg schema of a table Strait creates, as SeaTunnel builds it:
// fields numbered from 1 in column order (nested fields after their parent), a column
// nullable unless it is a primary key column, and the primary key (iceberg.table.primary-keys,
// else the table's own) as the schema's identifier fields.
func icebergSchema(t *catalog.Table, primaryKeys []string) (*ice.Schema, error) {
	if len(primaryKeys) == 0 && t.PrimaryKey != nil {
		primaryKeys = t.PrimaryKey.Columns
	}
	pk := map[string]bool{}
	for _, k := range primaryKeys {
		if t.ColumnIndex(k) < 0 {
			return nil, fmt.Errorf("primary key column %q is not a column of the input (%s)", k, columnNames(t))
		}
		pk[k] = true
	}
	next := 1
	fields := make([]ice.NestedField, len(t.Columns))
	var ids []int
	for i, c := range t.Columns {
		id := next
		next++
		typ, err := icebergType(c.Type, &next)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Name, err)
		}
		fields[i] = ice.NestedField{ID: id, Name: c.Name, Type: typ, Required: pk[c.Name], Doc: c.Comment}
		if pk[c.Name] {
			ids = append(ids, id)
		}
	}
	return ice.NewSchemaWithIdentifiers(0, ids, fields...), nil
}

func columnNames(t *catalog.Table) string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// icebergType maps a Strait type to Iceberg's, numbering nested fields from *next.
// tinyint and smallint widen to int, timestamp is a timestamp with time zone holding the
// wall clock as UTC (as SeaTunnel's type mapper does), and a null column is a string.
func icebergType(t types.DataType, next *int) (ice.Type, error) {
	switch t.Kind {
	case types.Null, types.String:
		return ice.PrimitiveTypes.String, nil
	case types.Boolean:
		return ice.PrimitiveTypes.Bool, nil
	case types.TinyInt, types.SmallInt, types.Int:
		return ice.PrimitiveTypes.Int32, nil
	case types.BigInt:
		return ice.PrimitiveTypes.Int64, nil
	case types.Float:
		return ice.PrimitiveTypes.Float32, nil
	case types.Double:
		return ice.PrimitiveTypes.Float64, nil
	case types.Decimal:
		return ice.DecimalTypeOf(t.Precision, t.Scale), nil
	case types.Bytes:
		return ice.PrimitiveTypes.Binary, nil
	case types.Date:
		return ice.PrimitiveTypes.Date, nil
	case types.Time:
		return ice.PrimitiveTypes.Time, nil
	case types.Timestamp:
		return ice.PrimitiveTypes.TimestampTz, nil
	case types.Array:
		elem, err := icebergType(*t.Elem, next)
		if err != nil {
			return nil, err
		}
		id := *next
		*next++
		return &ice.ListType{ElementID: id, Element: elem}, nil
	case types.Map:
		key, err := icebergType(*t.Key, next)
		if err != nil {
			return nil, err
		}
		val, err := icebergType(*t.Elem, next)
		if err != nil {
			return nil, err
		}
		kid, vid := *next, *next+1
		*next += 2
		return &ice.MapType{KeyID: kid, KeyType: key, ValueID: vid, ValueType: val}, nil
	case types.Row:
		st := &ice.StructType{}
		for i, n := range t.Row.Names {
			id := *next
			*next++
			ft, err := icebergType(t.Row.Types[i], next)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", n, err)
			}
			st.FieldList = append(st.FieldList, ice.NestedField{ID: id, Name: n, Type: ft})
		}
		return st, nil
	}
	return nil, fmt.Errorf("type %s has no Iceberg type", t)
}

// straitType maps an Iceberg type to Strait's, for a source without a schema: int is int,
// long bigint, timestamps (with or without zone, micro or nanoseconds) timestamp, uuid
// string, fixed and binary bytes.
func straitType(t ice.Type) (types.DataType, error) {
	switch t := t.(type) {
	case ice.BooleanType:
		return types.Of(types.Boolean), nil
	case ice.Int32Type:
		return types.Of(types.Int), nil
	case ice.Int64Type:
		return types.Of(types.BigInt), nil
	case ice.Float32Type:
		return types.Of(types.Float), nil
	case ice.Float64Type:
		return types.Of(types.Double), nil
	case ice.DecimalType:
		return types.DecimalOf(t.Precision(), t.Scale()), nil
	case ice.DateType:
		return types.Of(types.Date), nil
	case ice.TimeType:
		return types.Of(types.Time), nil
	case ice.TimestampType, ice.TimestampTzType, ice.TimestampNsType, ice.TimestampTzNsType:
		return types.Of(types.Timestamp), nil
	case ice.StringType, ice.UUIDType:
		return types.Of(types.String), nil
	case ice.BinaryType, ice.FixedType:
		return types.Of(types.Bytes), nil
	case *ice.ListType:
		e, err := straitType(t.Element)
		if err != nil {
			return types.DataType{}, err
		}
		return types.ArrayOf(e), nil
	case *ice.MapType:
		k, err := straitType(t.KeyType)
		if err != nil {
			return types.DataType{}, err
		}
		v, err := straitType(t.ValueType)
		if err != nil {
			return types.DataType{}, err
		}
		return types.MapOf(k, v), nil
	case *ice.StructType:
		rt := &types.RowType{}
		for _, f := range t.FieldList {
			ft, err := straitType(f.Type)
			if err != nil {
				return types.DataType{}, fmt.Errorf("field %s: %w", f.Name, err)
			}
			rt.Names = append(rt.Names, f.Name)
			rt.Types = append(rt.Types, ft)
		}
		return types.RowOf(rt), nil
	}
	return types.DataType{}, fmt.Errorf("Iceberg type %s has no Strait type", t)
}

// ---- rows to Arrow ----

// appendValue appends a Strait value to an Arrow builder of the Iceberg type it, whose
// Strait type (for nested rows' field names) is st. Integers widen, floats widen to
// double, decimals are rescaled when that loses nothing.
func appendValue(b array.Builder, v row.Value, it ice.Type, st types.DataType) error {
	if v.IsNull() {
		b.AppendNull()
		return nil
	}
	bad := func() error { return fmt.Errorf("a %s value does not fit Iceberg type %s", v.T, it) }
	switch it := it.(type) {
	case ice.BooleanType:
		if v.T != types.Boolean {
			return bad()
		}
		b.(*array.BooleanBuilder).Append(v.Bool())
	case ice.Int32Type:
		if !v.T.IsInteger() || v.I < math.MinInt32 || v.I > math.MaxInt32 {
			return bad()
		}
		b.(*array.Int32Builder).Append(int32(v.I))
	case ice.Int64Type:
		if !v.T.IsInteger() {
			return bad()
		}
		b.(*array.Int64Builder).Append(v.I)
	case ice.Float32Type:
		if v.T != types.Float {
			return bad()
		}
		b.(*array.Float32Builder).Append(v.Float32())
	case ice.Float64Type:
		switch v.T {
		case types.Float:
			b.(*array.Float64Builder).Append(float64(v.Float32()))
		case types.Double:
			b.(*array.Float64Builder).Append(v.Float64())
		default:
			return bad()
		}
	case ice.DecimalType:
		n, err := decimalOf(v, it.Precision(), it.Scale())
		if err != nil {
			return err
		}
		b.(*array.Decimal128Builder).Append(n)
	case ice.DateType:
		if v.T != types.Date {
			return bad()
		}
		b.(*array.Date32Builder).Append(arrow.Date32(v.I))
	case ice.TimeType:
		if v.T != types.Time {
			return bad()
		}
		b.(*array.Time64Builder).Append(arrow.Time64(v.I / 1000))
	case ice.TimestampType, ice.TimestampTzType:
		switch v.T {
		case types.Timestamp:
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(civil.FloorDiv(v.I, 1000)))
		case types.Date:
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(v.I * 86400e6))
		default:
			return bad()
		}
	case ice.TimestampNsType, ice.TimestampTzNsType:
		if v.T != types.Timestamp {
			return bad()
		}
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(v.I))
	case ice.StringType:
		switch v.T {
		case types.String, types.Bytes:
			b.(*array.StringBuilder).Append(v.S)
		case types.Array, types.Map, types.Row:
			b.(*array.StringBuilder).Append(string(row.AppendJSONAs(nil, v, st)))
		default:
			b.(*array.StringBuilder).Append(string(row.AppendText(nil, v)))
		}
	case ice.BinaryType:
		if v.T != types.Bytes && v.T != types.String {
			return bad()
		}
		b.(*array.BinaryBuilder).AppendString(v.S)
	case ice.FixedType:
		if v.T != types.Bytes && v.T != types.String || len(v.S) != it.Len() {
			return fmt.Errorf("a %s value of %d bytes does not fit Iceberg type %s", v.T, len(v.S), it)
		}
		b.(*array.FixedSizeBinaryBuilder).Append([]byte(v.S))
	case *ice.ListType:
		if v.T != types.Array {
			return bad()
		}
		lb := b.(*array.ListBuilder)
		lb.Append(true)
		var et types.DataType
		if st.Elem != nil {
			et = *st.Elem
		}
		for _, e := range v.Elems() {
			if err := appendValue(lb.ValueBuilder(), e, it.Element, et); err != nil {
				return err
			}
		}
	case *ice.MapType:
		if v.T != types.Map {
			return bad()
		}
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		var kt, vt types.DataType
		if st.Key != nil {
			kt, vt = *st.Key, *st.Elem
		}
		m := v.Map()
		for i := range m.Keys {
			if m.Keys[i].IsNull() {
				return fmt.Errorf("a map key is null; Iceberg map keys are required")
			}
			if err := appendValue(mb.KeyBuilder(), m.Keys[i], it.KeyType, kt); err != nil {
				return err
			}
			if err := appendValue(mb.ItemBuilder(), m.Vals[i], it.ValueType, vt); err != nil {
				return err
			}
		}
	case *ice.StructType:
		if v.T != types.Row || st.Row == nil {
			return bad()
		}
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		fields := v.Fields()
		for j, f := range it.FieldList {
			k := st.Row.Index(f.Name)
			if k < 0 || k >= len(fields) {
				sb.FieldBuilder(j).AppendNull()
				continue
			}
			if err := appendValue(sb.FieldBuilder(j), fields[k], f.Type, st.Row.Types[k]); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
	default:
		return fmt.Errorf("Strait does not write Iceberg type %s", it)
	}
	return nil
}

var bigTen = big.NewInt(10)

// decimalOf is a numeric value as an Arrow decimal of the scale, refused when its digits
// exceed the precision or rescaling would drop a non-zero digit.
func decimalOf(v row.Value, precision, scale int) (decimal128.Num, error) {
	var unscaled *big.Int
	from := 0
	switch {
	case v.T == types.Decimal:
		unscaled, from = v.Unscaled(), v.DecimalScale()
	case v.T.IsInteger():
		unscaled = big.NewInt(v.I)
	default:
		return decimal128.Num{}, fmt.Errorf("a %s value does not fit Iceberg type decimal(%d, %d)", v.T, precision, scale)
	}
	u := new(big.Int).Set(unscaled)
	if scale > from {
		u.Mul(u, new(big.Int).Exp(bigTen, big.NewInt(int64(scale-from)), nil))
	} else if scale < from {
		q, r := new(big.Int).QuoRem(u, new(big.Int).Exp(bigTen, big.NewInt(int64(from-scale)), nil), new(big.Int))
		if r.Sign() != 0 {
			return decimal128.Num{}, fmt.Errorf("decimal %s has more than %d digits after the point", row.AppendDecimal(nil, v), scale)
		}
		u = q
	}
	if len(new(big.Int).Abs(u).String()) > precision {
		return decimal128.Num{}, fmt.Errorf("decimal %s has more digits than decimal(%d, %d) holds", row.AppendDecimal(nil, v), precision, scale)
	}
	return decimal128.FromBigInt(u), nil
}

// ---- Arrow to rows ----

// valueOf reads the value at i of an Arrow array as the Strait type t.
func valueOf(a arrow.Array, i int, t types.DataType) (row.Value, error) {
	if a.IsNull(i) {
		return row.NullValue(), nil
	}
	switch a := a.(type) {
	case *array.Boolean:
		return row.BoolValue(a.Value(i)), nil
	case *array.Int8:
		return intOf(int64(a.Value(i)), t)
	case *array.Int16:
		return intOf(int64(a.Value(i)), t)
	case *array.Int32:
		return intOf(int64(a.Value(i)), t)
	case *array.Int64:
		return intOf(a.Value(i), t)
	case *array.Float32:
		if t.Kind == types.Double {
			return row.DoubleValue(float64(a.Value(i))), nil
		}
		return row.FloatValue(a.Value(i)), nil
	case *array.Float64:
		if t.Kind == types.Float {
			return row.FloatValue(float32(a.Value(i))), nil
		}
		return row.DoubleValue(a.Value(i)), nil
	case *array.Decimal128:
		scale := int(a.DataType().(*arrow.Decimal128Type).Scale)
		v := row.DecimalValue(a.Value(i).BigInt(), scale)
		if t.Kind == types.Decimal && t.Scale != scale {
			n, err := decimalOf(v, t.Precision, t.Scale)
			if err != nil {
				return row.Value{}, err
			}
			return row.DecimalValue(n.BigInt(), t.Scale), nil
		}
		return v, nil
	case *array.Date32:
		if t.Kind == types.Timestamp {
			return row.TimestampValue(int64(a.Value(i)) * 86400e9), nil
		}
		return row.DateValue(int64(a.Value(i))), nil
	case *array.Time64:
		n := int64(a.Value(i))
		if a.DataType().(*arrow.Time64Type).Unit == arrow.Microsecond {
			n *= 1000
		}
		return row.TimeValue(n), nil
	case *array.Timestamp:
		n := int64(a.Value(i))
		switch a.DataType().(*arrow.TimestampType).Unit {
		case arrow.Second:
			n *= 1e9
		case arrow.Millisecond:
			n *= 1e6
		case arrow.Microsecond:
			n *= 1e3
		}
		if t.Kind == types.Date {
			return row.DateValue(civil.FloorDiv(n, 86400e9)), nil
		}
		return row.TimestampValue(n), nil
	case *array.String: // the value aliases the array's buffer: copied
		return textOf(strings.Clone(a.Value(i)), t), nil
	case *array.LargeString:
		return textOf(strings.Clone(a.Value(i)), t), nil
	case *array.Binary:
		return bytesOf(a.Value(i), t), nil
	case *array.LargeBinary:
		return bytesOf(a.Value(i), t), nil
	case *array.FixedSizeBinary:
		return bytesOf(a.Value(i), t), nil
	case *array.Map:
		if t.Kind != types.Map {
			return row.Value{}, fmt.Errorf("a map is read as %s", t)
		}
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		m := &row.MapValue{}
		for j := int(start); j < int(end); j++ {
			k, err := valueOf(keys, j, *t.Key)
			if err != nil {
				return row.Value{}, err
			}
			v, err := valueOf(items, j, *t.Elem)
			if err != nil {
				return row.Value{}, err
			}
			m.Keys, m.Vals = append(m.Keys, k), append(m.Vals, v)
		}
		return row.MapOfValues(m), nil
	case array.ListLike:
		if t.Kind != types.Array {
			return row.Value{}, fmt.Errorf("a list is read as %s", t)
		}
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		elems := make([]row.Value, 0, end-start)
		for j := int(start); j < int(end); j++ {
			e, err := valueOf(vals, j, *t.Elem)
			if err != nil {
				return row.Value{}, err
			}
			elems = append(elems, e)
		}
		return row.ArrayValue(elems), nil
	case *array.Struct:
		if t.Kind != types.Row {
			return row.Value{}, fmt.Errorf("a struct is read as %s", t)
		}
		st := a.DataType().(*arrow.StructType)
		fields := make([]row.Value, t.Row.Len())
		for k, name := range t.Row.Names {
			j, ok := st.FieldIdx(name)
			if !ok {
				continue
			}
			v, err := valueOf(a.Field(j), i, t.Row.Types[k])
			if err != nil {
				return row.Value{}, fmt.Errorf("field %s: %w", name, err)
			}
			fields[k] = v
		}
		return row.RowValue(fields), nil
	}
	if s, ok := a.(interface{ ValueStr(int) string }); ok {
		return textOf(s.ValueStr(i), t), nil
	}
	return row.Value{}, fmt.Errorf("Arrow type %s is not read", a.DataType())
}

func intOf(n int64, t types.DataType) (row.Value, error) {
	switch t.Kind {
	case types.TinyInt:
		if n < math.MinInt8 || n > math.MaxInt8 {
			return row.Value{}, fmt.Errorf("%d does not fit tinyint", n)
		}
		return row.TinyIntValue(int8(n)), nil
	case types.SmallInt:
		if n < math.MinInt16 || n > math.MaxInt16 {
			return row.Value{}, fmt.Errorf("%d does not fit smallint", n)
		}
		return row.SmallIntValue(int16(n)), nil
	case types.Int:
		if n < math.MinInt32 || n > math.MaxInt32 {
			return row.Value{}, fmt.Errorf("%d does not fit int", n)
		}
		return row.IntValue(int32(n)), nil
	case types.Float:
		return row.FloatValue(float32(n)), nil
	case types.Double:
		return row.DoubleValue(float64(n)), nil
	case types.Decimal:
		return row.DecimalValue(new(big.Int).Mul(big.NewInt(n), new(big.Int).Exp(bigTen, big.NewInt(int64(t.Scale)), nil)), t.Scale), nil
	case types.String:
		return row.StringValue(fmt.Sprint(n)), nil
	}
	return row.BigIntValue(n), nil
}

func textOf(s string, t types.DataType) row.Value {
	if t.Kind == types.Bytes {
		return row.BytesValue([]byte(s))
	}
	return row.StringValue(s)
}

func bytesOf(b []byte, t types.DataType) row.Value {
	if t.Kind == types.String {
		return row.StringValue(string(b))
	}
	return row.BytesValue(b)
}
