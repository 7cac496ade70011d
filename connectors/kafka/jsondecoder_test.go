package kafka

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/strait-dev/strait/config/hocon"

	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// jsonRowType has a field of every kind the direct reader converts, and nested ones.
var jsonRowType = &types.RowType{
	Names: []string{"id", "name", "score", "ok", "d", "at", "dec", "tags", "m", "r", "bin"},
	Types: []types.DataType{types.Of(types.BigInt), types.Of(types.String), types.Of(types.Double), types.Of(types.Boolean),
		types.Of(types.Date), types.Of(types.Timestamp), types.DecimalOf(10, 2), types.ArrayOf(types.Of(types.Int)),
		types.MapOf(types.Of(types.String), types.Of(types.String)),
		types.RowOf(&types.RowType{Names: []string{"x"}, Types: []types.DataType{types.Of(types.Int)}}), types.Of(types.Bytes)},
}

// treeRows reads a record the way the change formats read theirs: the value tree,
// converted by literal.Converter; an array is a row per element.
func treeRows(value []byte, rt *types.RowType) ([][]row.Value, error) {
	v, err := parseJSON(value)
	if err != nil || v == nil || v.Kind == hocon.Null {
		return nil, err
	}
	elems := []*hocon.Value{v}
	if v.Kind == hocon.Array {
		elems = v.Elems
	}
	var conv literal.Converter
	var out [][]row.Value
	for _, e := range elems {
		if e.Kind != hocon.Object {
			return nil, fmt.Errorf("expected a JSON object, found %s", e.Kind)
		}
		fields, err := conv.ConvertFields(e, rt)
		if err != nil {
			return nil, err
		}
		out = append(out, fields)
	}
	return out, nil
}

// checkSameAsTree reads a record with the json format's decoder and with the value tree
// (hocon.ParseJSON and literal.Converter, as the change formats read theirs): where both
// read it, they read the same rows; with both set, they read or refuse the same records.
// (They differ at the edges of the syntax: the decoder takes control characters in strings,
// as SeaTunnel's Jackson reader does, and the tree takes a form feed for white space.)
func checkSameAsTree(t *testing.T, in string, both bool) (read bool) {
	t.Helper()
	out := row.NewBatch(16)
	defer out.Release()
	_, err := newJSONDecoder(jsonRowType).decode([]byte(in), "t", out)
	want, treeErr := treeRows([]byte(in), jsonRowType)
	if both && (err == nil) != (treeErr == nil) {
		t.Fatalf("%q: the decoder says %v, the value tree %v", in, err, treeErr)
	}
	if err != nil || treeErr != nil {
		return err == nil
	}
	if len(out.Rows) != len(want) {
		t.Fatalf("%q: %d rows, the value tree reads %d", in, len(out.Rows), len(want))
	}
	if !utf8.ValidString(in) {
		return true // the value tree writes U+FFFD for bytes that are not UTF-8; the decoder keeps them
	}
	for i := range want {
		if !row.Equal(row.RowValue(out.Rows[i].Fields), row.RowValue(want[i])) {
			t.Fatalf("%q: read as\n%v\nthe value tree reads\n%v", in, out.Rows[i].Fields, want[i])
		}
	}
	return true
}

func TestJSONDecoderMatchesTree(t *testing.T) {
	for _, c := range []struct {
		in   string
		read bool
	}{
		{`{"id":1,"name":"a","score":1.5,"ok":true,"d":"2024-01-01","at":"2024-01-01T12:59:23","dec":"12.345","bin":"dGVzdA=="}`, true},
		{` { "id" : -0 , "name" : "é ü", "score": 1e3, "ok": false } `, true},
		{`{"id":"42","score":"2.5","name":7.25}`, true}, // numbers from text, text from numbers
		{`{"id":1,"id":2}`, true}, // the last duplicate
		{`{"tags":[1,2,3],"m":{"k":"v"},"r":{"x":5},"other":{"a":[1,{"b":null}]}}`, true}, // nested values
		{`{"name":"a\"b\u00e9"}`, true},
		{`{"other":"a\\b","id":3}`, true},
		{`{}`, true},
		{`{"id":null,"name":null}`, true},
		{`[{"id":1},{"id":2,"name":"b"}]`, true}, // an array of rows
		{`[]`, true},
		{`null`, true},
		{`{"id":1} x`, false}, // trailing text
		{`{"id":01}`, false},  // not JSON
		{`{"id":1.}`, false},  // not JSON
		{`{"id":1,}`, false},  // not JSON
		{`{"id":"x"}`, false}, // not a number
		{`[{"id":1},2]`, false},
		{"{\"name\":\"\xff\"}", true}, // not UTF-8: replaced, as encoding/json does
		{`{"id":1`, false},
	} {
		if got := checkSameAsTree(t, c.in, true); got != c.read {
			t.Errorf("%q: read %v, want %v", c.in, got, c.read)
		}
	}
}

// FuzzJSONDecoder: what both the json format's decoder and the value tree read, they read
// the same.
func FuzzJSONDecoder(f *testing.F) {
	for _, s := range []string{`{"id":1,"name":"a","score":1.5,"ok":true}`, `{"tags":[1,2],"m":{"k":"v"},"r":{"x":1}}`,
		`{"name":"a\"b"}`, `{"id":"1e2"}`, `{"x":[{},[],"",0,-1.5e-3,true,false,null]}`, `[{"id":1}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) { checkSameAsTree(t, in, false) })
}

// TestJSONDecoderKeepsText: the text of string fields outlives the record it was read
// from, across the arena's chunks, and a long text too.
func TestJSONDecoderKeepsText(t *testing.T) {
	d := newJSONDecoder(jsonRowType)
	const arenaChunk = 16 << 10 // row.Arena's block
	long := strings.Repeat("x", arenaChunk)
	rec := make([]byte, 0, 2*arenaChunk)
	var rows [][]row.Value
	var want []string
	for i := range 3 * arenaChunk / 16 {
		name := fmt.Sprintf("name-%d", i)
		if i%500 == 7 {
			name = long
		}
		rec = fmt.Appendf(rec[:0], `{"id":%d,"name":%q}`, i, name)
		out := row.NewBatch(1)
		if _, err := d.decode(rec, "t", out); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		for j := range rec {
			rec[j] = '#' // the record's buffer reused, as a client reuses it
		}
		rows, want = append(rows, append([]row.Value(nil), out.Rows[0].Fields...)), append(want, name)
	}
	for i, dst := range rows {
		if got := dst[1].S; got != want[i] {
			t.Fatalf("row %d: name %.20q, want %.20q", i, got, want[i])
		}
	}
}
