package kafka

import (
	"fmt"
	"strings"
	"testing"

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

// slowRow reads a record the general way: the value tree, converted.
func slowRow(value []byte, rt *types.RowType) ([]row.Value, error) {
	v, err := parseJSON(value)
	if err != nil || v == nil {
		return nil, err
	}
	var conv literal.Converter
	return conv.ConvertFields(v, rt)
}

// checkSameAsTree reads a record with the direct reader: when it reads it, the general path
// must read the same row.
func checkSameAsTree(t *testing.T, in string) (read bool) {
	t.Helper()
	var conv literal.Converter
	r := newJSONRowReader(jsonRowType, &conv)
	dst := make([]row.Value, jsonRowType.Len())
	err := r.readObject([]byte(in), dst)
	if err != nil {
		if err != errSlowPath {
			t.Fatalf("%q: the direct reader failed itself: %v", in, err)
		}
		return false
	}
	want, err := slowRow([]byte(in), jsonRowType)
	if err != nil {
		t.Fatalf("%q: read directly as %v, the general path fails: %v", in, dst, err)
	}
	if !row.Equal(row.RowValue(dst), row.RowValue(want)) {
		t.Fatalf("%q: read directly as\n%v\nthe general path reads\n%v", in, dst, want)
	}
	return true
}

func TestJSONRowReaderMatchesTree(t *testing.T) {
	for _, c := range []struct {
		in     string
		direct bool // read without the general path
	}{
		{`{"id":1,"name":"a","score":1.5,"ok":true,"d":"2024-01-01","at":"2024-01-01T12:59:23","dec":"12.345","bin":"dGVzdA=="}`, true},
		{` { "id" : -0 , "name" : "é ü", "score": 1e3, "ok": false } `, true},
		{`{"id":"42","score":"2.5","name":7.25}`, true}, // numbers from text, text from numbers
		{`{"id":1,"id":2}`, true}, // the last duplicate
		{`{"tags":[1,2,3],"m":{"k":"v"},"r":{"x":5},"other":{"a":[1,{"b":null}]}}`, true}, // nested values
		{`{"name":"a\"b\u00e9"}`, false},  // escapes: the general path
		{`{"other":"a\\b","id":3}`, true}, // escapes in a skipped field
		{`{}`, true},
		{`{"id":null,"name":null}`, true},
		{`{"id":1} x`, false},           // trailing text
		{`{"id":01}`, false},            // not JSON
		{`{"id":1.}`, false},            // not JSON
		{`{"id":1,}`, false},            // not JSON
		{`{"id":"x"}`, false},           // not a number: the general path names it
		{`[{"id":1}]`, false},           // an array of rows
		{"{\"name\":\"a\x01\"}", false}, // a control character
		{"{\"name\":\"\xff\"}", false},  // not UTF-8
		{`{"id":1`, false},
	} {
		if got := checkSameAsTree(t, c.in); got != c.direct {
			t.Errorf("%q: read directly %v, want %v", c.in, got, c.direct)
		}
	}
}

// FuzzJSONRowReader: whatever the direct reader reads, the general path reads the same.
func FuzzJSONRowReader(f *testing.F) {
	for _, s := range []string{`{"id":1,"name":"a","score":1.5,"ok":true}`, `{"tags":[1,2],"m":{"k":"v"},"r":{"x":1}}`,
		`{"name":"a\"b"}`, `{"id":"1e2"}`, `{"x":[{},[],"",0,-1.5e-3,true,false,null]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) { checkSameAsTree(t, in) })
}

// TestJSONRowReaderKeepsText: the text of string fields outlives the record it was read
// from, across the arena's chunks, and a long text too.
func TestJSONRowReaderKeepsText(t *testing.T) {
	var conv literal.Converter
	r := newJSONRowReader(jsonRowType, &conv)
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
		dst := make([]row.Value, jsonRowType.Len())
		if err := r.readObject(rec, dst); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		for j := range rec {
			rec[j] = '#' // the record's buffer reused, as a client reuses it
		}
		rows, want = append(rows, dst), append(want, name)
	}
	for i, dst := range rows {
		if got := dst[1].S; got != want[i] {
			t.Fatalf("row %d: name %.20q, want %.20q", i, got, want[i])
		}
	}
}
