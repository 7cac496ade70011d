package kafka

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// The protobuf format as SeaTunnel reads and writes it: a record is one message of the type
// protobuf_message_name, declared in the .proto text protobuf_schema (compiled here, with no
// protoc). The row's fields are the message's by name: a top-level field by its name in lower
// case, as SeaTunnel finds it, a nested row's message by the field's own type; a field the
// message lacks reads as null and is not written. Unset scalar fields read as their protobuf
// defaults, as a DynamicMessage gives them.

const formatProtobuf = "protobuf"

// protoFile is the name the schema text is compiled under (it names it in errors).
const protoFile = "protobuf_schema.proto"

// protoMessage compiles a .proto text and finds a top-level message in it (or one named in
// full, package included).
func protoMessage(schema, name string) (protoreflect.MessageDescriptor, error) {
	if strings.TrimSpace(schema) == "" {
		return nil, &optionError{"protobuf_schema", "format protobuf needs the .proto text of the records"}
	}
	if strings.TrimSpace(name) == "" {
		return nil, &optionError{"protobuf_message_name", "format protobuf needs the message of the records"}
	}
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{protoFile: schema}),
	})}
	files, err := c.Compile(context.Background(), protoFile)
	if err != nil {
		return nil, &optionError{"protobuf_schema", err.Error()}
	}
	fd := files[0]
	if md := fd.Messages().ByName(protoreflect.Name(name)); md != nil {
		return md, nil
	}
	if md, ok := fd.FindDescriptorByName(protoreflect.FullName(name)).(protoreflect.MessageDescriptor); ok {
		return md, nil
	}
	var names []string
	for i := 0; i < fd.Messages().Len(); i++ {
		names = append(names, string(fd.Messages().Get(i).Name()))
	}
	return nil, &optionError{"protobuf_message_name", fmt.Sprintf("the schema declares no message %q (it declares %s)", name, strings.Join(names, ", "))}
}

// optionError is an error of one option of the format.
type optionError struct{ key, msg string }

func (e *optionError) Error() string { return e.key + ": " + e.msg }

// optionOf is the option an error of the format is about, and its message without it;
// other errors are the format's.
func optionOf(err error) (key, msg string) {
	var oe *optionError
	if errors.As(err, &oe) {
		return oe.key, oe.msg
	}
	return "format", err.Error()
}

// protoCodec reads and writes the records of one message type as rows of one row type.
type protoCodec struct {
	rt  *types.RowType
	md  protoreflect.MessageDescriptor
	msg *dynamicpb.Message // reused: reset before each record
	// fields are the message fields of the row's fields, by position (nil: not in the
	// message)
	fields []protoreflect.FieldDescriptor
}

func newProtoCodec(schema, message string, rt *types.RowType) (*protoCodec, error) {
	md, err := protoMessage(schema, message)
	if err != nil {
		return nil, err
	}
	fields, err := protoFields(md, rt, "")
	if err != nil {
		return nil, &optionError{"protobuf_schema", fmt.Sprintf("message %s: %v", md.Name(), err)}
	}
	return &protoCodec{rt: rt, md: md, msg: dynamicpb.NewMessage(md), fields: fields}, nil
}

// protoFields maps a row type's fields to a message's, checking that each type can hold
// the other.
func protoFields(md protoreflect.MessageDescriptor, rt *types.RowType, prefix string) ([]protoreflect.FieldDescriptor, error) {
	out := make([]protoreflect.FieldDescriptor, rt.Len())
	for i, name := range rt.Names {
		fd := md.Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			fd = md.Fields().ByName(protoreflect.Name(strings.ToLower(name)))
		}
		if fd == nil {
			continue
		}
		if err := protoFits(fd, rt.Types[i]); err != nil {
			return nil, fmt.Errorf("field %s%s: %w", prefix, name, err)
		}
		out[i] = fd
	}
	return out, nil
}

// protoFits checks that a message field and a row type can hold each other's values.
func protoFits(fd protoreflect.FieldDescriptor, t types.DataType) error {
	switch {
	case t.Kind == types.Map:
		if !fd.IsMap() {
			return fmt.Errorf("is %s, the message's field %s is no map", t, fd.Name())
		}
		return nil
	case t.Kind == types.Array:
		if !fd.IsList() {
			return fmt.Errorf("is %s, the message's field %s is not repeated", t, fd.Name())
		}
		return nil
	case fd.IsList() || fd.IsMap():
		return fmt.Errorf("is %s, the message's field %s is %s", t, fd.Name(), map[bool]string{true: "a map", false: "repeated"}[fd.IsMap()])
	case t.Kind == types.Row:
		if fd.Kind() != protoreflect.MessageKind {
			return fmt.Errorf("is a row, the message's field %s is %s", fd.Name(), fd.Kind())
		}
		_, err := protoFields(fd.Message(), t.Row, string(fd.Name())+".")
		return err
	}
	return nil
}

// decode reads one record into a row.
func (c *protoCodec) decode(value []byte, table string, out *row.Batch) (int, error) {
	c.msg.Reset()
	if err := proto.Unmarshal(value, c.msg); err != nil {
		return 0, fmt.Errorf("not a protobuf %s: %w", c.md.Name(), err)
	}
	r := out.Add(row.Insert, table, c.rt.Len())
	if err := protoRow(c.msg, c.fields, c.rt, r.Fields); err != nil {
		out.Rows = out.Rows[:len(out.Rows)-1]
		return 0, err
	}
	return 1, nil
}

func protoRow(m protoreflect.Message, fields []protoreflect.FieldDescriptor, rt *types.RowType, into []row.Value) error {
	for i, fd := range fields {
		if fd == nil {
			into[i] = row.NullValue()
			continue
		}
		var err error
		t := rt.Types[i]
		switch {
		case fd.IsMap():
			into[i], err = protoMapValue(m.Get(fd).Map(), fd, t)
		case fd.IsList():
			into[i], err = protoListValue(m.Get(fd).List(), fd, t)
		case t.Kind == types.Row:
			sub, _ := protoFields(fd.Message(), t.Row, "")
			nested := make([]row.Value, t.Row.Len())
			err = protoRow(m.Get(fd).Message(), sub, t.Row, nested)
			into[i] = row.RowValue(nested)
		default:
			into[i], err = protoScalar(m.Get(fd), fd, t)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", rt.Names[i], err)
		}
	}
	return nil
}

func protoMapValue(pm protoreflect.Map, fd protoreflect.FieldDescriptor, t types.DataType) (row.Value, error) {
	m := &row.MapValue{Keys: make([]row.Value, 0, pm.Len()), Vals: make([]row.Value, 0, pm.Len())}
	var err error
	pm.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		var kv, vv row.Value
		if kv, err = protoScalar(k.Value(), fd.MapKey(), *t.Key); err != nil {
			return false
		}
		if fd.MapValue().Kind() == protoreflect.MessageKind && t.Elem.Kind == types.Row {
			sub, _ := protoFields(fd.MapValue().Message(), t.Elem.Row, "")
			nested := make([]row.Value, t.Elem.Row.Len())
			err = protoRow(v.Message(), sub, t.Elem.Row, nested)
			vv = row.RowValue(nested)
		} else {
			vv, err = protoScalar(v, fd.MapValue(), *t.Elem)
		}
		if err != nil {
			return false
		}
		m.Keys, m.Vals = append(m.Keys, kv), append(m.Vals, vv)
		return true
	})
	if err != nil {
		return row.Value{}, err
	}
	return row.MapOfValues(m), nil
}

func protoListValue(l protoreflect.List, fd protoreflect.FieldDescriptor, t types.DataType) (row.Value, error) {
	elems := make([]row.Value, l.Len())
	for j := range elems {
		var err error
		if fd.Kind() == protoreflect.MessageKind && t.Elem.Kind == types.Row {
			sub, _ := protoFields(fd.Message(), t.Elem.Row, "")
			nested := make([]row.Value, t.Elem.Row.Len())
			err = protoRow(l.Get(j).Message(), sub, t.Elem.Row, nested)
			elems[j] = row.RowValue(nested)
		} else {
			elems[j], err = protoScalar(l.Get(j), fd, *t.Elem)
		}
		if err != nil {
			return row.Value{}, fmt.Errorf("[%d]: %w", j, err)
		}
	}
	return row.ArrayValue(elems), nil
}

// protoScalar converts a scalar of a message into the row's type.
func protoScalar(v protoreflect.Value, fd protoreflect.FieldDescriptor, t types.DataType) (row.Value, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		s := v.String()
		switch t.Kind {
		case types.String:
			return row.StringValue(s), nil
		case types.Bytes:
			return row.BytesValue([]byte(s)), nil
		}
		return textAs(s, t)
	case protoreflect.BytesKind:
		if t.Kind == types.String {
			return row.StringValue(string(v.Bytes())), nil
		}
		if t.Kind != types.Bytes {
			return row.Value{}, fmt.Errorf("bytes do not read as %s", t)
		}
		return row.BytesValue(v.Bytes()), nil
	case protoreflect.BoolKind:
		if t.Kind == types.String {
			return row.StringValue(fmt.Sprint(v.Bool())), nil
		}
		if t.Kind != types.Boolean {
			return row.Value{}, fmt.Errorf("a bool does not read as %s", t)
		}
		return row.BoolValue(v.Bool()), nil
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return numberAs(v.Float(), 0, true, t)
	case protoreflect.EnumKind:
		if t.Kind == types.String {
			if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
				return row.StringValue(string(ev.Name())), nil
			}
		}
		return numberAs(0, int64(v.Enum()), false, t)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return numberAs(0, int64(v.Uint()), false, t)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		u := v.Uint()
		if u > math.MaxInt64 {
			return row.Value{}, fmt.Errorf("%d is out of range for %s", u, t)
		}
		return numberAs(0, int64(u), false, t)
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return row.Value{}, fmt.Errorf("a message does not read as %s", t)
	}
	return numberAs(0, v.Int(), false, t) // the signed integers
}

// numberAs converts an integer (or a float, isFloat) into a numeric, text, date or timestamp
// type: a date from epoch days, a timestamp from epoch milliseconds.
func numberAs(f float64, n int64, isFloat bool, t types.DataType) (row.Value, error) {
	if isFloat {
		switch t.Kind {
		case types.Float:
			return row.FloatValue(float32(f)), nil
		case types.Double:
			return row.DoubleValue(f), nil
		case types.String:
			return row.StringValue(fmt.Sprint(f)), nil
		case types.Decimal:
			return textAs(fmt.Sprint(f), t)
		}
		if f != math.Trunc(f) {
			return row.Value{}, fmt.Errorf("%v does not read as %s", f, t)
		}
		n = int64(f)
	}
	var lo, hi int64 = math.MinInt64, math.MaxInt64
	switch t.Kind {
	case types.TinyInt:
		lo, hi = math.MinInt8, math.MaxInt8
	case types.SmallInt:
		lo, hi = math.MinInt16, math.MaxInt16
	case types.Int:
		lo, hi = math.MinInt32, math.MaxInt32
	case types.BigInt:
	case types.Float:
		return row.FloatValue(float32(n)), nil
	case types.Double:
		return row.DoubleValue(float64(n)), nil
	case types.String:
		return row.StringValue(fmt.Sprint(n)), nil
	case types.Decimal:
		return textAs(fmt.Sprint(n), t)
	case types.Date:
		return row.DateValue(n), nil
	case types.Timestamp:
		return row.TimestampValue(n * 1e6), nil
	case types.Boolean:
		return row.BoolValue(n != 0), nil
	default:
		return row.Value{}, fmt.Errorf("a number does not read as %s", t)
	}
	if n < lo || n > hi {
		return row.Value{}, fmt.Errorf("%d is out of range for %s", n, t)
	}
	return row.Value{T: t.Kind, I: n}, nil
}

// encode writes a row as one message.
func (c *protoCodec) encode(buf []byte, _ row.Kind, fields []row.Value) ([]byte, error) {
	c.msg.Reset()
	if err := protoSet(c.msg, c.fields, c.rt, fields); err != nil {
		return nil, err
	}
	return proto.MarshalOptions{Deterministic: true}.MarshalAppend(buf, c.msg)
}

func protoSet(m protoreflect.Message, fields []protoreflect.FieldDescriptor, rt *types.RowType, vals []row.Value) error {
	for i, fd := range fields {
		if fd == nil || i >= len(vals) || vals[i].IsNull() {
			continue
		}
		v, t := vals[i], rt.Types[i]
		var err error
		switch {
		case fd.IsMap():
			pm := m.Mutable(fd).Map()
			mv := v.Map()
			for j := range mv.Keys {
				var k, val protoreflect.Value
				if k, err = protoOf(mv.Keys[j], fd.MapKey()); err != nil {
					break
				}
				if fd.MapValue().Kind() == protoreflect.MessageKind {
					nm := pm.NewValue()
					sub, _ := protoFields(fd.MapValue().Message(), t.Elem.Row, "")
					err = protoSet(nm.Message(), sub, t.Elem.Row, mv.Vals[j].Fields())
					val = nm
				} else {
					val, err = protoOf(mv.Vals[j], fd.MapValue())
				}
				if err != nil {
					break
				}
				pm.Set(k.MapKey(), val)
			}
		case fd.IsList():
			l := m.Mutable(fd).List()
			for _, e := range v.Elems() {
				var pv protoreflect.Value
				if fd.Kind() == protoreflect.MessageKind {
					pv = l.NewElement()
					sub, _ := protoFields(fd.Message(), t.Elem.Row, "")
					err = protoSet(pv.Message(), sub, t.Elem.Row, e.Fields())
				} else {
					pv, err = protoOf(e, fd)
				}
				if err != nil {
					break
				}
				l.Append(pv)
			}
		case t.Kind == types.Row:
			sub, _ := protoFields(fd.Message(), t.Row, "")
			err = protoSet(m.Mutable(fd).Message(), sub, t.Row, v.Fields())
		default:
			var pv protoreflect.Value
			if pv, err = protoOf(v, fd); err == nil {
				m.Set(fd, pv)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", rt.Names[i], err)
		}
	}
	return nil
}

// protoOf converts a row value into a scalar of a message field's kind.
func protoOf(v row.Value, fd protoreflect.FieldDescriptor) (protoreflect.Value, error) {
	var n int64
	var f float64
	numeric := true
	switch v.T {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Date:
		n, f = v.I, float64(v.I)
	case types.Timestamp:
		n = v.I / 1e6 // epoch milliseconds
		f = float64(n)
	case types.Boolean:
		n = v.I
		f = float64(n)
	case types.Float:
		f = float64(v.Float32())
		n = int64(f)
	case types.Double:
		f = v.Float64()
		n = int64(f)
	default:
		numeric = false
	}
	switch fd.Kind() {
	case protoreflect.StringKind:
		if v.T == types.String {
			return protoreflect.ValueOfString(v.S), nil
		}
		return protoreflect.ValueOfString(v.String()), nil
	case protoreflect.BytesKind:
		if v.T == types.Bytes || v.T == types.String {
			return protoreflect.ValueOfBytes([]byte(v.S)), nil
		}
	case protoreflect.BoolKind:
		if v.T == types.Boolean {
			return protoreflect.ValueOfBool(v.Bool()), nil
		}
	case protoreflect.FloatKind:
		if numeric {
			return protoreflect.ValueOfFloat32(float32(f)), nil
		}
	case protoreflect.DoubleKind:
		if numeric {
			return protoreflect.ValueOfFloat64(f), nil
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if numeric && n >= math.MinInt32 && n <= math.MaxInt32 {
			return protoreflect.ValueOfInt32(int32(n)), nil
		}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if numeric {
			return protoreflect.ValueOfInt64(n), nil
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if numeric && n >= 0 && n <= math.MaxUint32 {
			return protoreflect.ValueOfUint32(uint32(n)), nil
		}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if numeric && n >= 0 {
			return protoreflect.ValueOfUint64(uint64(n)), nil
		}
	case protoreflect.EnumKind:
		if v.T == types.String {
			if ev := fd.Enum().Values().ByName(protoreflect.Name(v.S)); ev != nil {
				return protoreflect.ValueOfEnum(ev.Number()), nil
			}
		} else if numeric {
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)), nil
		}
	}
	return protoreflect.Value{}, fmt.Errorf("%s %s does not fit the message's %s field %s", v.T, v, fd.Kind(), fd.Name())
}

// textAs converts a text into a type the way config literals convert.
func textAs(s string, t types.DataType) (row.Value, error) {
	return literal.Convert(&hocon.Value{Kind: hocon.String, Str: s}, t)
}
