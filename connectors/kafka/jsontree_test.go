package kafka

import (
	"fmt"
	"testing"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/row"
)

// sameTree tells whether two value trees hold the same JSON, field order and duplicates
// included.
func sameTree(a, b *hocon.Value) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Str != b.Str || a.Bool != b.Bool || len(a.Fields) != len(b.Fields) || len(a.Elems) != len(b.Elems) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i].Key != b.Fields[i].Key || !sameTree(a.Fields[i].Value, b.Fields[i].Value) {
			return false
		}
	}
	for i := range a.Elems {
		if !sameTree(a.Elems[i], b.Elems[i]) {
			return false
		}
	}
	return true
}

// checkTreeAsParsed reads a text with jsonTree: when it reads it, parseJSON must read the
// same tree; when it leaves it to the general path, it must say so and nothing else.
func checkTreeAsParsed(t *testing.T, tree *jsonTree, in string) (read bool) {
	t.Helper()
	got, err := tree.parse([]byte(in))
	if err != nil {
		if err != errSlowPath {
			t.Fatalf("%q: the tree reader failed itself: %v", in, err)
		}
		return false
	}
	want, err := parseJSON([]byte(in))
	if err != nil {
		t.Fatalf("%q: read as a tree, parseJSON fails: %v", in, err)
	}
	if !sameTree(got, want) {
		t.Fatalf("%q: read as a tree differently from parseJSON", in)
	}
	return true
}

func TestJSONTreeMatchesParseJSON(t *testing.T) {
	var tree jsonTree // one reader for all: its storage is reused record after record
	for _, c := range []struct {
		in     string
		direct bool // read without the general path
	}{
		{`{"before":null,"after":{"id":1,"name":"a"},"op":"c","ts_ms":1}`, true},
		{` { "a" : [ 1 , -2.5e3 , true , false , null , "x" , { } , [ ] ] } `, true},
		{`{"a":1,"a":2}`, true}, // duplicates kept, in order
		{`{"s":"a\"b\u00e9\n"}`, true},
		{`"top"`, true},
		{`null`, true},
		{``, true},
		{`  `, true},
		{`[{"x":{"y":{"z":[[[]]]}}}]`, true},
		{"{\"s\":\"é ü\"}", true},
		{`{"a":1} x`, false},
		{`{"a":01}`, false},
		{`{"a":1,}`, false},
		{`{"a" 1}`, false},
		{`{a:1}`, false},
		{`[1 2]`, false},
		{`{"a":tru}`, false},
		{"{\"s\":\"a\x01\"}", false},
		{"{\"s\":\"\xff\"}", true}, // not UTF-8: replaced, as encoding/json replaces it
		{`{"a":[1,`, false},
	} {
		if got := checkTreeAsParsed(t, &tree, c.in); got != c.direct {
			t.Errorf("%q: read as a tree %v, want %v", c.in, got, c.direct)
		}
	}
}

// FuzzJSONTree: whatever jsonTree reads, parseJSON reads the same.
func FuzzJSONTree(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null,"x"]}`, `{"s":"a\\"b"}`, `[{},[]]`, `-1.5e-3`, `{"a":{"b":{"c":1}}}`} {
		f.Add(s)
	}
	var tree jsonTree
	f.Fuzz(func(t *testing.T, in string) { checkTreeAsParsed(t, &tree, in) })
}

// TestCDCDecoderReusesScratch: rows decoded from many records, each read into the storage
// the record before it used, from a buffer overwritten after each, keep their own values.
func TestCDCDecoderReusesScratch(t *testing.T) {
	dec := mustDecoder(t, "debezium_json", benchType)
	out := row.NewBatch(4096)
	defer out.Release()
	buf := make([]byte, 0, 512)
	const n = 1000
	for i := range n {
		switch i % 3 {
		case 0:
			buf = fmt.Appendf(buf[:0], `{"before":null,"after":{"id":%d,"name":"n%d","city":"c"},"op":"c"}`, i, i)
		case 1:
			buf = fmt.Appendf(buf[:0], `{"before":{"id":%d,"name":"old%d"},"after":{"id":%d,"name":"n%d","note":"x\"y"},"op":"u"}`, i, i, i, i)
		default:
			buf = fmt.Appendf(buf[:0], `{"schema":{},"payload":{"before":{"id":%d,"name":"n%d"},"after":null,"op":"d"}}`, i, i)
		}
		if _, err := dec.decode(buf, "t", out); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		clear(buf[:cap(buf)])
	}
	k := 0
	for i := range n {
		want := []string{fmt.Sprintf("%s n%d", row.Insert, i)}
		if i%3 == 1 {
			want = []string{fmt.Sprintf("%s old%d", row.UpdateBefore, i), fmt.Sprintf("%s n%d", row.UpdateAfter, i)}
		} else if i%3 == 2 {
			want = []string{fmt.Sprintf("%s n%d", row.Delete, i)}
		}
		for _, w := range want {
			r := out.Rows[k]
			if got := fmt.Sprintf("%s %s", r.Kind, r.Fields[1].S); got != w || r.Fields[0].I != int64(i) {
				t.Fatalf("row %d: %s (id %d), want %s (id %d)", k, got, r.Fields[0].I, w, i)
			}
			k++
		}
	}
	if k != out.Len() {
		t.Fatalf("%d rows, want %d", out.Len(), k)
	}
}
