package kafka

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// canonicalType has a column of every kind canonicalJSON checks.
var canonicalType = &types.RowType{
	Names: []string{"id", "name", "n", "small", "tiny", "score", "ok"},
	Types: []types.DataType{types.Of(types.BigInt), types.Of(types.String), types.Of(types.Int), types.Of(types.SmallInt),
		types.Of(types.TinyInt), types.Of(types.Double), types.Of(types.Boolean)},
}

// reencoded decodes in as the json source does and encodes the row as the json sink does.
func reencoded(t *testing.T, rt *types.RowType, in string) (string, bool) {
	t.Helper()
	dec, err := newDecoder(formatJSON, "", rt, false)
	if err != nil {
		t.Fatal(err)
	}
	b := row.NewBatch(4)
	defer b.Release()
	if n, err := dec.decode([]byte(in), "t", b); err != nil || n != 1 {
		return "", false
	}
	out, err := newJSONEncoder(rt).encode(nil, row.Insert, b.Rows[0].Fields)
	if err != nil {
		t.Fatalf("encode %s: %v", in, err)
	}
	return string(out), true
}

func TestCanonicalJSON(t *testing.T) {
	c := newCanonicalJSON(canonicalType)
	for _, tc := range []struct {
		in        string
		canonical bool
	}{
		{`{"id":1,"name":"a","n":-2,"small":300,"tiny":-12,"score":1.5,"ok":true}`, true},
		{`{"id":null,"name":null,"n":null,"small":null,"tiny":null,"score":null,"ok":null}`, true},
		{`{"id":0,"name":"","n":0,"small":0,"tiny":0,"score":0.0,"ok":false}`, true},
		{`{"id":-922337203685477580,"name":"ünïcode ✓","n":999999999,"small":-9999,"tiny":99,"score":-0.0,"ok":true}`, true},
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":9999999.5,"ok":true}`, true},
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":0.001,"ok":true}`, true},
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":100.0,"ok":true}`, true},
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":123456.789012345,"ok":true}`, true},
		// each of these is read, but the sink would write it otherwise
		{`{"id": 1,"name":"a","n":2,"small":3,"tiny":4,"score":1.5,"ok":true}`, false},      // white space
		{`{"name":"a","id":1,"n":2,"small":3,"tiny":4,"score":1.5,"ok":true}`, false},       // order
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":1.5}`, false},                 // a field missing
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":1.5,"ok":true,"x":1}`, false}, // one more
		{`{"id":1,"name":"a\u0041","n":2,"small":3,"tiny":4,"score":1.5,"ok":true}`, false}, // an escape
		{`{"id":01,"name":"a","n":2,"small":3,"tiny":4,"score":1.5,"ok":true}`, false},
		{`{"id":-0,"name":"a","n":2,"small":3,"tiny":4,"score":1.5,"ok":true}`, false},
		{`{"id":"1","name":"a","n":2,"small":3,"tiny":4,"score":1.5,"ok":true}`, false},
		{`{"id":1,"name":1,"n":2,"small":3,"tiny":4,"score":1.5,"ok":true}`, false},
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":1.50,"ok":true}`, false},
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":1,"ok":true}`, false},
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":1e3,"ok":true}`, false},
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":10000000.0,"ok":true}`, false},
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":0.0001,"ok":true}`, false},
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":0.1000000000000001,"ok":true}`, false},
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":1.5,"ok":true} `, false},
		{`[{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":1.5,"ok":true}]`, false},
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":1.5,"ok":1}`, false},
		{`{"id":1,"name":"a","n":2,"small":3,"tiny":4,"score":1.5,"ok":true`, false},
		{``, false},
	} {
		if got := c.match([]byte(tc.in)); got != tc.canonical {
			t.Errorf("match(%s) = %v, want %v", tc.in, got, tc.canonical)
		}
		if tc.canonical {
			if out, ok := reencoded(t, canonicalType, tc.in); !ok || out != tc.in {
				t.Errorf("%s: the sink writes %s (read: %v)", tc.in, out, ok)
			}
		}
	}
}

func TestJSONEncoding(t *testing.T) {
	if jsonEncoding(canonicalType) == "" || newCanonicalJSON(canonicalType) == nil {
		t.Fatal("no encoding for scalar columns")
	}
	other := &types.RowType{Names: []string{"id", "name"}, Types: []types.DataType{types.Of(types.BigInt), types.Of(types.Int)}}
	if jsonEncoding(other) == jsonEncoding(&types.RowType{Names: other.Names, Types: []types.DataType{types.Of(types.BigInt), types.Of(types.String)}}) {
		t.Fatal("two row types share an encoding")
	}
	for _, rt := range []*types.RowType{
		{Names: []string{"d"}, Types: []types.DataType{types.Of(types.Date)}},
		{Names: []string{"a", "a"}, Types: []types.DataType{types.Of(types.Int), types.Of(types.Int)}},
		jsonRowType,
	} {
		if jsonEncoding(rt) != "" || newCanonicalJSON(rt) != nil {
			t.Errorf("%v: an encoding, though canonicalJSON cannot check every column", rt.Names)
		}
	}
}

// FuzzCanonicalJSON: a record canonicalJSON matches is read by the json source into a row
// the json sink writes as exactly that record.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"name":"a","n":-2,"small":300,"tiny":-12,"score":1.5,"ok":true}`,
		`{"id":null,"name":"x\u00e9","n":0,"small":0,"tiny":0,"score":0.0,"ok":false}`,
		`{"id":9,"name":"é","n":0,"small":0,"tiny":0,"score":0.00123,"ok":false}`,
		`{"id":9,"name":"","n":0,"small":0,"tiny":0,"score":1234567.12345678,"ok":false}`,
	} {
		f.Add(s)
	}
	c := newCanonicalJSON(canonicalType)
	f.Fuzz(func(t *testing.T, in string) {
		if !c.match([]byte(in)) {
			return
		}
		if out, ok := reencoded(t, canonicalType, in); !ok || out != in {
			t.Fatalf("%q matched, but the sink writes %q (read: %v)", in, out, ok)
		}
	})
}

// TestCanonicalDoubles tries many decimal texts of the double's plain range: each one
// canonicalDouble accepts is the double's text as the sink writes it, and each double's text
// as the sink writes it with up to 15 digits is accepted.
func TestCanonicalDoubles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	accepted := 0
	for range 200000 {
		var b []byte
		if rng.IntN(4) == 0 {
			b = append(b, '-')
		}
		for i, n := 0, rng.IntN(8); i < n; i++ {
			b = append(b, byte('0'+rng.IntN(10)))
		}
		if rng.IntN(8) > 0 {
			b = append(b, '.')
			for i, n := 0, rng.IntN(12); i < n; i++ {
				b = append(b, byte('0'+rng.IntN(10)))
			}
		}
		s := string(b)
		if end, ok := canonicalDouble(b, 0); ok && end == len(b) {
			accepted++
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s accepted, not a number: %v", s, err)
			}
			if out := string(row.AppendJavaFloat(nil, f, 64)); out != s {
				t.Fatalf("%s accepted, the sink writes %s", s, out)
			}
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			out := row.AppendJavaFloat(nil, f, 64)
			sig := 0
			for _, c := range bytes.TrimLeft(bytes.TrimLeft(out, "-"), "0.") {
				if c >= '0' && c <= '9' {
					sig++
				}
			}
			end, ok := canonicalDouble(out, 0)
			if plain := bytes.IndexByte(out, 'E') < 0; plain && sig <= 14 && (!ok || end != len(out)) {
				t.Fatalf("%s (the sink's text of %s) not accepted", out, s)
			}
		}
	}
	if accepted < 10000 {
		t.Fatalf("only %d texts accepted", accepted)
	}
}

// TestEncodedRecordsOutliveTheirFetch: a record handed on as it was read keeps its bytes
// after later fetches (the client's buffers are not reused), and the reader hands on exactly
// the canonical records, reading the others into fields.
func TestEncodedRecordsOutliveTheirFetch(t *testing.T) {
	addr := testBroker(t)
	in := newTopic(t, addr, 1)
	const n = 20000
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprintf(`{"id":%d,"name":"name-%d"}`, i, i)
		if i%7 == 3 {
			want[i] = fmt.Sprintf(`{"id": %d, "name": "name-%d"}`, i, i) // not the sink's form
		}
	}
	for i := 0; i < n; i += 5000 {
		produce(t, addr, in, 0, want[i:i+5000]...)
	}
	src := mustSource(t, connector.Batch, 1, fmt.Sprintf(`bootstrap.servers = %q
topic = %q
start_mode = earliest
commit_on_checkpoint = false
schema = { fields { id = bigint, name = string } }`, addr, in))
	ctx := context.Background()
	ec := conntest.NewEnumContext(1)
	enumerate(t, src, ec)
	rd, err := src.CreateReader(connector.ReaderContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: 1, Mode: connector.Batch}})
	if err != nil {
		t.Fatal(err)
	}
	er := rd.(connector.EncodedReader)
	encs := er.Encodings()
	if len(encs) != 1 {
		t.Fatalf("encodings %v", encs)
	}
	for table := range encs {
		er.EmitEncoded(table)
	}
	conntest.StartReader(ctx, t, rd, ec.Assigned[0])
	var held [][]byte // the encoded forms, as the batches handed them on: not copied
	var fields []int64
	for polls := 0; ; polls++ {
		b := row.NewBatch(512) // several polls and fetches
		done := conntest.Poll(ctx, t, rd, b)
		for i := range b.Rows {
			if enc := b.EncodedOf(i); enc != nil {
				held = append(held, enc)
			} else {
				fields = append(fields, b.Rows[i].Fields[0].I)
			}
		}
		b.Release()
		if done {
			break
		}
		if polls > 10000 {
			t.Fatal("the reader did not finish")
		}
	}
	var canonical []string
	spaced := 0
	for i, w := range want {
		if i%7 == 3 {
			if spaced >= len(fields) || fields[spaced] != int64(i) {
				t.Fatalf("record %d was not read into fields", i)
			}
			spaced++
			continue
		}
		canonical = append(canonical, w)
	}
	if len(held) != len(canonical) || spaced != len(fields) {
		t.Fatalf("%d records handed on as read, want %d; %d read into fields, want %d", len(held), len(canonical), len(fields), spaced)
	}
	for i := range held {
		if string(held[i]) != canonical[i] {
			t.Fatalf("encoded record %d is %q after later fetches, want %q", i, held[i], canonical[i])
		}
	}
}
