// Package jsonpath is the JsonPath transform: it reads JSON held in a field and extracts
// values with JSONPath expressions into new fields, as SeaTunnel's JsonPath does.
//
//	JsonPath {
//	  row_error_handle_way = FAIL              # or SKIP: drop the row
//	  columns = [
//	    { src_field = data, path = "$.a.b", dest_field = b, dest_type = int,
//	      column_error_handle_way = SKIP }     # FAIL, SKIP (null) or SKIP_ROW
//	  ]
//	}
//
// The source field is a string or bytes holding JSON text, or an array, map or row, which is
// first written as JSON (a row as an array of its fields). dest_type (default string) is any
// Strait type. Each output field is appended after the input fields (or overwrites an input
// field of the same name, taking the new type); like SeaTunnel, it is a nullable column of
// length 200 whose default is "".
//
// Errors of the data follow SeaTunnel: text that is not valid JSON, and a definite path that
// selects nothing or meets a value it cannot step into, are handled by the column's
// column_error_handle_way, or when that is unset by row_error_handle_way (default FAIL). An
// empty text and a selected value that does not convert to dest_type fail the job whatever
// the options say. A null source field gives null.
//
// JSON is read as SeaTunnel reads it with json-smart in permissive mode: text that is not
// JSON (single quotes, unquoted names and values, NaN, repeated commas, trailing text) is
// rewritten as the JSON it stands for first (Permissive).
package jsonpath

import (
	"context"
	"errors"
	"fmt"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
	"github.com/strait-dev/strait/types"
)

// Name is the plugin name.
const Name = "JsonPath"

func init() {
	xform.Register(Name, "Extracts values from JSON held in fields with JSONPath expressions into new fields.", New)
}

// Config is JsonPath's options.
type Config struct {
	RowWay  string         `opt:"row_error_handle_way" default:"FAIL" enum:"FAIL,SKIP" doc:"what a data error of a column without column_error_handle_way does: FAIL fails the job, SKIP drops the row"`
	Columns []ColumnConfig `opt:"columns,required" doc:"the fields to extract, one object per field"`
}

// ColumnConfig is one entry of JsonPath's columns.
type ColumnConfig struct {
	SrcField  string       `opt:"src_field,required" doc:"the field holding the JSON, not blank: a string or bytes field, or an array, map or row written as JSON first"`
	Path      string       `opt:"path,required" doc:"the JSONPath selecting the value, not blank"`
	DestField string       `opt:"dest_field,required" doc:"the field the value goes to, not blank; one named like an input field overwrites it"`
	DestType  *hocon.Value `opt:"dest_type" default:"string" doc:"the type of dest_field: a type name such as int, decimal(10, 2) or array<string>, or an object of row fields"`
	Way       string       `opt:"column_error_handle_way" enum:"FAIL,SKIP,SKIP_ROW" doc:"what invalid JSON or a path selecting nothing does: FAIL fails the job, SKIP gives null, SKIP_ROW drops the row; unset, row_error_handle_way decides"`

	At *config.Options `opt:"."` // the entry's own options, so that errors point at it
}

// Way is an error handling way.
type Way uint8

// The ways; WayUnset is a column that defers to the row's way.
const (
	WayUnset Way = iota
	WayFail
	WaySkip
	WaySkipRow
)

var wayNames = [...]string{"", "FAIL", "SKIP", "SKIP_ROW"}

func (w Way) String() string { return wayNames[w] }

func parseWay(s string) Way {
	for i, n := range wayNames {
		if i > 0 && n == s {
			return Way(i)
		}
	}
	return WayUnset
}

type column struct {
	opts    *config.Options
	key     string // columns[i], for errors
	src     string
	dest    string
	path    *Path
	typ     types.DataType
	way     Way
	srcSlot int // index into the distinct source fields
}

// Transform is a configured JsonPath.
type Transform struct {
	where  string
	rowWay Way
	cols   []column
	srcIdx [][]int // per table, per source slot: the field's position
	w      *xform.Widen
	xform.Base

	conv    converter
	vals    []row.Value
	spans   []span
	docs    []docState
	jsonBuf []byte
	listBuf []byte
}

type docState struct {
	ready  bool
	null   bool
	doc    string
	err    error // the text is not JSON
	shared bool  // several columns read this source: remember its objects
	memo   memo
}

// New builds a JsonPath from its options and its input tables.
func New(o *config.Options, inputs []*catalog.Table, c *Config) (*Transform, error) {
	t := &Transform{where: o.Where(), rowWay: parseWay(c.RowWay)}
	slots := map[string]int{}
	var srcNames []string
	for i, cc := range c.Columns {
		col, err := readColumn(fmt.Sprintf("columns[%d]", i), cc)
		if err != nil {
			return nil, err
		}
		slot, ok := slots[col.src]
		if !ok {
			slot = len(srcNames)
			slots[col.src] = slot
			srcNames = append(srcNames, col.src)
		}
		col.srcSlot = slot
		t.cols = append(t.cols, col)
	}
	out := make([]catalog.Column, len(t.cols))
	for i, col := range t.cols {
		out[i] = catalog.Column{Name: col.dest, Type: col.typ, Nullable: true, Length: 200, DefaultValue: ""}
	}
	all := make([][]catalog.Column, len(inputs))
	for k, in := range inputs {
		idx := make([]int, len(srcNames))
		for s, name := range srcNames {
			var first *column // the first column reading this field, for errors
			for i := range t.cols {
				if t.cols[i].srcSlot == s {
					first = &t.cols[i]
					break
				}
			}
			j, err := xform.FieldIndex(first.opts, "src_field", name, in)
			if err != nil {
				return nil, err
			}
			switch in.Columns[j].Type.Kind {
			case types.String, types.Bytes, types.Array, types.Map, types.Row, types.Null:
			default:
				return nil, first.opts.Errorf("src_field", "field %q is of type %s; JsonPath reads JSON from string, bytes, array, map or row fields", name, in.Columns[j].Type)
			}
			idx[s] = j
		}
		t.srcIdx = append(t.srcIdx, idx)
		all[k] = out
	}
	t.w, t.Tables = xform.NewWiden(o.Where(), inputs, all)
	t.vals = make([]row.Value, len(t.cols))
	t.docs = make([]docState, len(srcNames))
	for i := range t.cols {
		for j := range t.cols {
			if i != j && t.cols[i].srcSlot == t.cols[j].srcSlot {
				t.docs[t.cols[i].srcSlot].shared = true
			}
		}
	}
	return t, nil
}

func readColumn(key string, cc ColumnConfig) (column, error) {
	c := cc.At
	col := column{opts: c, key: key, src: cc.SrcField, dest: cc.DestField, way: parseWay(cc.Way)}
	for _, opt := range [...]struct{ name, value string }{{"path", cc.Path}, {"src_field", cc.SrcField}, {"dest_field", cc.DestField}} {
		if xform.TrimJava(opt.value) == "" {
			return col, c.Errorf(opt.name, "option is required and must not be blank")
		}
	}
	var err error
	if col.path, err = Compile(cc.Path); err != nil {
		return col, c.Errorf("path", "%v", err)
	}
	if col.typ, err = catalog.TypeOf(cc.DestType); err != nil {
		return col, c.Errorf("dest_type", "%v", err)
	}
	return col, nil
}

// Process extracts the fields of every row.
func (t *Transform) Process(_ context.Context, in *row.Batch) (*row.Batch, error) {
	b := t.w.Begin(in)
rows:
	for i := range in.Rows {
		r := &in.Rows[i]
		p, k, err := b.Route(r)
		if err != nil {
			return nil, err
		}
		srcIdx := t.srcIdx[k]
		for s := range t.docs {
			t.docs[s].ready = false
		}
		for c := range t.cols {
			col := &t.cols[c]
			v, err := t.extract(r, col, srcIdx[col.srcSlot])
			if err == nil {
				t.vals[c] = v
				continue
			}
			var de *dataError
			if errors.As(err, &de) {
				switch col.way {
				case WaySkip: // the column is null
					t.vals[c] = row.NullValue()
					continue
				case WaySkipRow:
					continue rows
				case WayUnset:
					if t.rowWay == WaySkip {
						continue rows
					}
				}
			}
			b.Fail()
			return nil, t.rowError(col, r, srcIdx[col.srcSlot], err)
		}
		o := b.Row(r, r.Kind, p)
		for c, x := range p.Idx {
			o.Fields[x] = t.vals[c]
		}
	}
	return b.Done(), nil
}

func (t *Transform) rowError(col *column, r *row.Row, src int, err error) error {
	var text string
	if d := &t.docs[col.srcSlot]; d.ready {
		text = d.doc
	} else {
		text = r.Fields[src].String()
	}
	return fmt.Errorf("%s: %s (src_field %q, path %q, dest_field %q): %v; value: %s",
		t.where, col.key, col.src, col.path.text, col.dest, err, xform.Clip(text))
}

// extract evaluates one column on one row. Errors of the data come back as *dataError.
func (t *Transform) extract(r *row.Row, col *column, src int) (row.Value, error) {
	d := &t.docs[col.srcSlot]
	if !d.ready {
		t.load(d, r.Fields[src])
	}
	switch {
	case d.null:
		return row.NullValue(), nil
	case d.doc == "":
		return row.Value{}, errors.New("the JSON text is empty")
	case d.err != nil:
		return row.Value{}, d.err
	}
	var m *memo
	if d.shared {
		m = &d.memo
	}
	spans, err := col.path.Eval(d.doc, t.spans, m)
	t.spans = spans
	if err != nil {
		return row.Value{}, err
	}
	doc, at := d.doc, 0
	if col.path.definite {
		at = spans[0].start
	} else {
		// the list of selected values, as one JSON array
		t.listBuf = append(t.listBuf[:0], '[')
		for j, s := range spans {
			if j > 0 {
				t.listBuf = append(t.listBuf, ',')
			}
			t.listBuf = append(t.listBuf, d.doc[s.start:s.end]...)
		}
		t.listBuf = append(t.listBuf, ']')
		doc = string(t.listBuf)
	}
	return t.conv.convert(doc, at, col.typ)
}

// load prepares the JSON text of a source field for this row.
func (t *Transform) load(d *docState, v row.Value) {
	d.ready, d.null, d.doc, d.err = true, false, "", nil
	d.memo.reset()
	switch {
	case v.T == types.Null:
		d.null = true
		return
	case v.T == types.String || v.T == types.Bytes:
		d.doc = v.S
	default:
		t.jsonBuf = appendValue(t.jsonBuf[:0], v)
		d.doc = string(t.jsonBuf)
	}
	if d.doc != "" {
		if Check(d.doc) != nil {
			// not JSON: read it as SeaTunnel's json-smart would
			doc, err := Permissive(d.doc)
			if err != nil {
				d.err = &dataError{err.Error()}
				return
			}
			d.doc = doc
		}
	}
}
