package kafka

import (
	"fmt"
	"strings"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// The change-data-capture formats: a record is a change of one or more rows of a table,
// read into the four row kinds the way SeaTunnel's canal, debezium, maxwell and ogg JSON
// schemas read them. Records that are no row change (DDL, heartbeats) give no rows.

// cdcDecoder reads one CDC envelope: parse appends the changes of a record to a list. The
// envelope is read into scratch storage (jsonTree) and the changes' list is reused, so a
// record allocates nothing of its own but what its rows keep.
type cdcDecoder struct {
	rt      *types.RowType
	conv    literal.Converter
	parse   func(v *hocon.Value, out []change) ([]change, error)
	tree    jsonTree
	changes []change
	// debezium reads Debezium's numeric forms of dates, times, timestamps and decimals
	// (debezium.go); logical holds the logical types a record's schema names, by field.
	debezium bool
	logical  map[string]string
}

// change is one row change: its kind and the row object (for an update's before image,
// the after image with the fields the envelope says changed put back).
type change struct {
	kind row.Kind
	obj  *hocon.Value
}

func newCDCDecoder(format string, rt *types.RowType) (decoder, bool) {
	d := &cdcDecoder{rt: rt}
	switch format {
	case "canal_json":
		d.parse = canalChanges
	case "debezium_json":
		d.parse = debeziumChanges
		d.debezium, d.logical = true, map[string]string{}
	case "maxwell_json":
		d.parse = maxwellChanges
	case "ogg_json":
		d.parse = oggChanges
	default:
		return nil, false
	}
	return d, true
}

func (d *cdcDecoder) decode(value []byte, table string, out *row.Batch) (int, error) {
	v, err := d.tree.parse(value)
	if err != nil {
		v, err = parseJSON(value) // the general path: it reads what the tree does not, or names the error
	}
	if err != nil || v == nil || v.Kind == hocon.Null {
		return 0, err
	}
	if v.Kind != hocon.Object {
		return 0, fmt.Errorf("expected a JSON object, found %s", v.Kind)
	}
	if d.debezium {
		var schema *hocon.Value
		if v.Get("payload") != nil {
			schema = v.Get("schema")
		}
		d.logical = debeziumLogical(schema, d.logical)
	}
	changes, err := d.parse(v, d.changes[:0])
	d.changes = changes
	if err != nil {
		return 0, err
	}
	start := len(out.Rows)
	for _, c := range changes {
		if c.obj == nil || c.obj.Kind != hocon.Object {
			out.Rows = out.Rows[:start]
			return 0, fmt.Errorf("a %s change without its row", c.kind)
		}
		if err := d.fill(out.Add(c.kind, table, d.rt.Len()), c.obj); err != nil {
			out.Rows = out.Rows[:start]
			return 0, err
		}
	}
	return len(changes), nil
}

// fill converts the fields of a change's row object into r, by name; a field that does not
// convert is converted again the general way, whose error names it.
func (d *cdcDecoder) fill(r *row.Row, obj *hocon.Value) error {
	for i, name := range d.rt.Names {
		if d.debezium {
			if v, ok := debeziumValue(obj.Get(name), d.rt.Types[i], d.logical[name]); ok {
				r.Fields[i] = v
				continue
			}
		}
		v, err := d.conv.Convert(obj.Get(name), d.rt.Types[i])
		if err != nil {
			if _, slow := d.conv.ConvertFields(obj, d.rt); slow != nil {
				return slow
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		r.Fields[i] = v
	}
	return nil
}

// merged is after with the fields of old put over it: the row before an update whose
// envelope lists only the changed fields.
func merged(after, old *hocon.Value) *hocon.Value {
	if old == nil || old.Kind != hocon.Object {
		return after
	}
	m := &hocon.Value{Kind: hocon.Object}
	for _, f := range after.Fields {
		if ov := old.Get(f.Key); ov != nil {
			m.Fields = append(m.Fields, hocon.Field{Key: f.Key, Value: ov})
		} else {
			m.Fields = append(m.Fields, f)
		}
	}
	return m
}

func elems(v *hocon.Value) []*hocon.Value {
	if v == nil || v.Kind != hocon.Array {
		return nil
	}
	return v.Elems
}

func text(v *hocon.Value) string {
	if v == nil {
		return ""
	}
	return v.Str
}

// canalChanges reads Canal's flat message: data holds the rows, old the changed fields of
// an update's rows; DDL messages (isDdl, or types other than the three) carry no rows. A
// data object instead of an array is one row, as SeaTunnel's canal_json sink writes it.
func canalChanges(v *hocon.Value, out []change) ([]change, error) {
	if b := v.Get("isDdl"); b != nil && b.Kind == hocon.Bool && b.Bool {
		return out, nil
	}
	data := elems(v.Get("data"))
	if d := v.Get("data"); d != nil && d.Kind == hocon.Object {
		data = []*hocon.Value{d}
	}
	switch typ := strings.ToUpper(text(v.Get("type"))); typ {
	case "INSERT":
		for _, d := range data {
			out = append(out, change{row.Insert, d})
		}
	case "DELETE":
		for _, d := range data {
			out = append(out, change{row.Delete, d})
		}
	case "UPDATE":
		old := elems(v.Get("old"))
		for i, d := range data {
			var o *hocon.Value
			if i < len(old) {
				o = old[i]
			}
			out = append(out, change{row.UpdateBefore, merged(d, o)}, change{row.UpdateAfter, d})
		}
	case "":
		return nil, fmt.Errorf("a canal message without a type")
	}
	return out, nil
}

// debeziumChanges reads Debezium's envelope, inside payload when the record carries its
// schema: op c and r insert after, u updates before to after, d deletes before.
func debeziumChanges(v *hocon.Value, out []change) ([]change, error) {
	if p := v.Get("payload"); p != nil && v.Get("schema") != nil {
		if p.Kind == hocon.Null {
			return out, nil // a tombstone
		}
		v = p
	}
	before, after := v.Get("before"), v.Get("after")
	switch op := text(v.Get("op")); op {
	case "c", "r":
		return append(out, change{row.Insert, after}), nil
	case "u":
		return append(out, change{row.UpdateBefore, before}, change{row.UpdateAfter, after}), nil
	case "d":
		return append(out, change{row.Delete, before}), nil
	case "":
		return out, nil // a message of another kind (heartbeat, transaction boundary)
	default:
		return nil, fmt.Errorf("unknown debezium op %q", op)
	}
}

// maxwellChanges reads Maxwell's message: data is the row, old the changed fields of an
// update.
func maxwellChanges(v *hocon.Value, out []change) ([]change, error) {
	data := v.Get("data")
	// the type in any case, compared without making a lower-case copy of it
	switch typ := text(v.Get("type")); {
	case strings.EqualFold(typ, "insert"), strings.EqualFold(typ, "bootstrap-insert"):
		return append(out, change{row.Insert, data}), nil
	case strings.EqualFold(typ, "delete"):
		return append(out, change{row.Delete, data}), nil
	case strings.EqualFold(typ, "update"):
		return append(out, change{row.UpdateBefore, merged(data, v.Get("old"))}, change{row.UpdateAfter, data}), nil
	case typ == "":
		return nil, fmt.Errorf("a maxwell message without a type")
	}
	return out, nil // DDL and bootstrap markers
}

// oggChanges reads Oracle GoldenGate's JSON: op_type I, U, D with before and after images;
// T (truncate) carries no rows. SeaTunnel's ogg_json sink writes {"data":...,"type":...}
// instead, INSERT or DELETE: that is read too.
func oggChanges(v *hocon.Value, out []change) ([]change, error) {
	if v.Get("op_type") == nil && v.Get("data") != nil {
		switch typ := text(v.Get("type")); {
		case strings.EqualFold(typ, "INSERT"):
			return append(out, change{row.Insert, v.Get("data")}), nil
		case strings.EqualFold(typ, "DELETE"):
			return append(out, change{row.Delete, v.Get("data")}), nil
		default:
			return nil, fmt.Errorf("unknown ogg type %q", strings.ToUpper(typ))
		}
	}
	before, after := v.Get("before"), v.Get("after")
	switch op := text(v.Get("op_type")); {
	case strings.EqualFold(op, "I"):
		return append(out, change{row.Insert, after}), nil
	case strings.EqualFold(op, "U"):
		return append(out, change{row.UpdateBefore, before}, change{row.UpdateAfter, after}), nil
	case strings.EqualFold(op, "D"):
		return append(out, change{row.Delete, before}), nil
	case strings.EqualFold(op, "T"):
		return out, nil
	default:
		return nil, fmt.Errorf("unknown ogg op_type %q", strings.ToUpper(op))
	}
}
