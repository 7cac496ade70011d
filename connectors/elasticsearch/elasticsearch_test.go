package elasticsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	_ "github.com/strait-dev/strait/connectors/fake"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/planner"
	"github.com/strait-dev/strait/row"
)

// server is the test's search server: STRAIT_TEST_ELASTICSEARCH, the URL (credentials
// included) of an Elasticsearch-compatible API, which `make zincsearch` starts (ZincSearch).
func server(t *testing.T) string {
	t.Helper()
	u := os.Getenv("STRAIT_TEST_ELASTICSEARCH")
	if u == "" {
		t.Fatal("STRAIT_TEST_ELASTICSEARCH is not set: run the tests with make (make zincsearch starts the server)")
	}
	return u
}

var indexSeq atomic.Int64

// newIndex names an index of its own for a test.
func newIndex(t *testing.T) string {
	name := fmt.Sprintf("strait-%s-%d-%d", strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), time.Now().UnixNano()%1e9, indexSeq.Add(1))
	dropIndexes(t, name)
	return name
}

// dropIndexes deletes indexes when the test ends (those that exist).
func dropIndexes(t *testing.T, names ...string) {
	t.Cleanup(func() {
		c := testClient(t)
		ctx := context.Background()
		for _, n := range names {
			if ok, _ := c.exists(ctx, n); ok {
				if err := c.deleteIndex(ctx, n); err != nil {
					t.Errorf("delete index %s: %v", n, err)
				}
			}
		}
	})
}

// docs reads an index's documents by id, once the server shows want of them (it indexes
// in the background), and those ids when named.
func docs(t *testing.T, index string, want int, ids ...string) map[string]map[string]any {
	t.Helper()
	return docsUntil(t, index, fmt.Sprintf("%d documents with ids %v", want, ids), func(got map[string]map[string]any) bool {
		for _, id := range ids {
			if got[id] == nil {
				return false
			}
		}
		return len(got) == want
	})
}

// docsAre waits until an index holds exactly the documents want (by id, as JSON).
func docsAre(t *testing.T, index string, want map[string]string) {
	t.Helper()
	docsUntil(t, index, fmt.Sprintf("the documents %v", want), func(got map[string]map[string]any) bool {
		if len(got) != len(want) {
			return false
		}
		for id, w := range want {
			if got[id] == nil || asJSON(got[id]) != w {
				return false
			}
		}
		return true
	})
}

// docsUntil reads an index's documents by id until ok holds of them, for 30 seconds.
func docsUntil(t *testing.T, index, what string, ok func(map[string]map[string]any) bool) map[string]map[string]any {
	t.Helper()
	c := testClient(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var r struct {
			Hits struct {
				Hits []struct {
					ID     string         `json:"_id"`
					Source map[string]any `json:"_source"`
				} `json:"hits"`
			} `json:"hits"`
		}
		q := map[string]any{"query": map[string]any{"match_all": map[string]any{}}, "size": 1000}
		err := c.json(context.Background(), http.MethodPost, indexPath(index)+"/_search", q, &r)
		out := map[string]map[string]any{}
		for _, h := range r.Hits.Hits {
			delete(h.Source, "@timestamp") // ZincSearch's own
			out[h.ID] = h.Source
		}
		if err == nil && ok(out) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("index %s: after 30 s it holds %s (%v), want %s", index, asJSON(out), err, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func testClient(t *testing.T) *client {
	t.Helper()
	c, err := newClient(&ConnOptions{Hosts: []string{server(t)}, TLSVerifyCertificate: true, TLSVerifyHostname: true})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func rows(tbl *catalog.Table, kinds []row.Kind, rs ...[]row.Value) *row.Batch {
	b := row.NewBatch(len(rs) + 1)
	for i, r := range rs {
		k := row.Insert
		if kinds != nil {
			k = kinds[i]
		}
		copy(b.Add(k, tbl.ID(), len(r)).Fields, r)
	}
	return b
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Rows become documents with every field, ids from the primary key; CDC updates replace
// them and deletes remove them; a second table of the same sink goes to its own index.
func TestSinkUpsertsAndDeletes(t *testing.T) {
	index := newIndex(t)
	orders := conntest.Table("shop.orders", "id", "bigint", "region", "string", "amount", "decimal(10, 2)", "day", "date",
		"at", "timestamp", "tags", "array<string>", "item", "{sku = string, qty = int}")
	s, err := conntest.BuildSink(t, "Elasticsearch", fmt.Sprintf(`hosts = [%q]
index = %q
primary_keys = ["id", "region"]
key_delimiter = "$"
max_batch_size = 2`, server(t), index), orders)
	if err != nil {
		t.Fatal(err)
	}
	ts := func(s string) row.Value { v, _ := time.Parse("2006-01-02T15:04:05", s); return row.TimestampOf(v) }
	dec := func(s string) row.Value {
		v, err := literal.ParseDecimal(s, 10, 2)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	item := func(sku string, qty int32) row.Value {
		return row.RowValue([]row.Value{row.StringValue(sku), row.IntValue(qty)})
	}
	tags := row.ArrayValue([]row.Value{row.StringValue("a"), row.StringValue("b")})
	day := row.DateValue(19109)
	first := rows(orders, nil,
		[]row.Value{row.BigIntValue(1), row.StringValue("eu"), dec("10.50"), day, ts("2022-04-27T14:30:00"), tags, item("x", 1)},
		[]row.Value{row.BigIntValue(2), row.StringValue("us"), dec("3.00"), day, ts("2022-04-27T14:31:00"), tags, item("y", 2)},
		[]row.Value{row.BigIntValue(3), row.StringValue("eu"), dec("7.25"), day, ts("2022-04-27T14:32:00"), tags, item("z", 3)})
	changes := rows(orders, []row.Kind{row.UpdateBefore, row.UpdateAfter, row.Delete},
		[]row.Value{row.BigIntValue(1), row.StringValue("eu"), dec("10.50"), day, ts("2022-04-27T14:30:00"), tags, item("x", 1)},
		[]row.Value{row.BigIntValue(1), row.StringValue("eu"), dec("99.99"), day, ts("2022-04-27T15:00:00"), tags, item("x", 9)},
		[]row.Value{row.BigIntValue(2), row.StringValue("us"), dec("3.00"), day, ts("2022-04-27T14:31:00"), tags, item("y", 2)})
	if err := conntest.Write(t, s, first); err != nil {
		t.Fatal(err)
	}
	// ZincSearch indexes in the background and may apply a delete before an index still
	// queued (Elasticsearch keeps their order): the changes go once the inserts are seen
	docs(t, index, 3, "1$eu", "2$us", "3$eu")
	if err := conntest.Write(t, s, changes); err != nil {
		t.Fatal(err)
	}
	// the server may show the delete before the update: wait for both
	docsAre(t, index, map[string]string{
		"1$eu": `{"amount":99.99,"at":"2022-04-27T15:00","day":"2022-04-27","id":1,"item":{"qty":9,"sku":"x"},"region":"eu","tags":["a","b"]}`,
		"3$eu": `{"amount":7.25,"at":"2022-04-27T14:32","day":"2022-04-27","id":3,"item":{"qty":3,"sku":"z"},"region":"eu","tags":["a","b"]}`,
	})
	// in one request, a document's last action is the one sent
	ww, _ := s.CreateWriter(connector.WriterContext{Job: connector.Job{ID: 7}, Epoch: 1}, nil)
	if err := ww.Write(context.Background(), rows(orders, []row.Kind{row.Insert, row.Delete, row.Insert},
		[]row.Value{row.BigIntValue(8), row.StringValue("eu"), dec("1.00"), day, ts("2022-04-27T14:30:00"), tags, item("q", 1)},
		[]row.Value{row.BigIntValue(8), row.StringValue("eu"), dec("1.00"), day, ts("2022-04-27T14:30:00"), tags, item("q", 1)},
		[]row.Value{row.BigIntValue(9), row.StringValue("eu"), dec("2.00"), day, ts("2022-04-27T14:30:00"), tags, item("r", 2)})); err != nil {
		t.Fatal(err)
	}
	if _, err := ww.PrepareCommit(context.Background(), 9); err != nil {
		t.Fatal(err)
	}
	if d := docs(t, index, 3, "1$eu", "3$eu", "9$eu"); d["8$eu"] != nil {
		t.Errorf("a document inserted and deleted in one request is there: %v", d)
	}
}

// ${field} picks each row's index; the save modes create the index (with a mapping) or
// refuse to run; DROP_DATA empties it; a DELETE without primary keys is refused.
func TestSinkIndexPerRowAndSaveModes(t *testing.T) {
	base := newIndex(t)
	tbl := conntest.Table("t", "id", "int", "zone", "string")
	s := written(t, fmt.Sprintf("hosts = [%q]\nindex = \"%s-${zone}\"\nprimary_keys = [id]", server(t), base), tbl, rows(tbl, nil, []row.Value{row.IntValue(1), row.StringValue("a")},
		[]row.Value{row.IntValue(2), row.StringValue("b")}, []row.Value{row.IntValue(3), row.StringValue("a")}))
	dropIndexes(t, base+"-a", base+"-b")
	if a, b := docs(t, base+"-a", 2), docs(t, base+"-b", 1); a["1"] == nil || a["3"] == nil || b["2"] == nil {
		t.Errorf("per-row indexes: a %v, b %v", a, b)
	}

	missing := newIndex(t)
	s, err := conntest.BuildSink(t, "Elasticsearch", fmt.Sprintf("hosts = [%q]\nindex = %q\nschema_save_mode = ERROR_WHEN_SCHEMA_NOT_EXIST", server(t), missing), tbl)
	if err != nil {
		t.Fatal(err)
	}
	if err := conntest.Write(t, s); err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), missing) {
		t.Errorf("ERROR_WHEN_SCHEMA_NOT_EXIST on a missing index: %v", err)
	}

	idx := newIndex(t)
	conf := fmt.Sprintf("hosts = [%q]\nindex = %q\nprimary_keys = [id]\n", server(t), idx)
	s, _ = conntest.BuildSink(t, "Elasticsearch", conf, tbl)
	if err := conntest.Write(t, s, rows(tbl, nil, []row.Value{row.IntValue(1), row.StringValue("a")})); err != nil {
		t.Fatal(err)
	}
	docs(t, idx, 1)
	var mapping map[string]any
	if err := testClient(t).json(context.Background(), http.MethodGet, indexPath(idx)+"/_mapping", nil, &mapping); err != nil || !strings.Contains(asJSON(mapping), `"zone"`) {
		t.Errorf("the created index's mapping: %v %v", asJSON(mapping), err)
	}
	s, _ = conntest.BuildSink(t, "Elasticsearch", conf+"data_save_mode = ERROR_WHEN_DATA_EXISTS", tbl)
	if err := conntest.Write(t, s); err == nil || !strings.Contains(err.Error(), "holds 1 documents") {
		t.Errorf("ERROR_WHEN_DATA_EXISTS on an index with a document: %v", err)
	}
	s, _ = conntest.BuildSink(t, "Elasticsearch", conf+"data_save_mode = DROP_DATA", tbl)
	if err := conntest.Write(t, s, rows(tbl, nil, []row.Value{row.IntValue(5), row.StringValue("z")})); err != nil {
		t.Fatal(err)
	}
	if got := docs(t, idx, 1, "5"); got["5"] == nil {
		t.Errorf("after DROP_DATA: %v", got)
	}

	s, _ = conntest.BuildSink(t, "Elasticsearch", fmt.Sprintf("hosts = [%q]\nindex = %q", server(t), newIndex(t)), tbl)
	err = conntest.Write(t, s, rows(tbl, []row.Kind{row.Delete}, []row.Value{row.IntValue(1), row.StringValue("a")}))
	if err == nil || !connector.IsPermanent(err) || !strings.Contains(err.Error(), "primary_keys") {
		t.Errorf("a DELETE without primary keys: %v", err)
	}
}

// Options are checked where the config names them; a document the server refuses fails the
// write naming its id, index and the server's reason.
func TestSinkErrors(t *testing.T) {
	tbl := conntest.Table("t", "id", "int")
	for _, c := range []struct{ conf, want string }{
		{`index = x`, "hosts"},
		{`hosts = ["localhost:1"]`, "index"},
		{"hosts = [\"localhost:1\"]\nindex = x\nprimary_keys = [nope]", `primary_keys: table t has no field "nope"`},
		{"hosts = [\"localhost:1\"]\nindex = x\nmax_batch_size = 0", "max_batch_size"},
		{"hosts = [\"localhost:1\"]\nindex = x\nschema_save_mode = SOMETIMES", "schema_save_mode"},
	} {
		if _, err := conntest.BuildSink(t, "Elasticsearch", c.conf, tbl); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.conf, err, c.want)
		}
	}
	// an unreachable server: the bulk request fails after its attempts, naming the plugin
	s, err := conntest.BuildSink(t, "Elasticsearch", "hosts = [\"127.0.0.1:1\"]\nindex = x\nschema_save_mode = IGNORE\nmax_retry_count = 2", tbl)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.(connector.SinkSetup).Setup(context.Background()); err != nil {
		t.Fatalf("IGNORE with APPEND_DATA reaches out: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := conntest.Write(t, s, rows(tbl, nil, []row.Value{row.IntValue(1)})); err == nil || !strings.Contains(err.Error(), "sink[0] Elasticsearch: bulk request of 1 documents") {
		t.Errorf("an unreachable server: %v", err)
	}
	var out bulkResponse
	_ = json.Unmarshal([]byte(`{"errors":true,"items":[{"index":{"_index":"i","_id":"7","status":400,"error":{"type":"mapper_parsing_exception","reason":"failed to parse field [id]"}}}]}`), &out)
	w := &writer{s: &Sink{}}
	if err := w.outcome(&out); err == nil || !connector.IsPermanent(err) || !strings.Contains(err.Error(), `document "7" in index i (status 400): mapper_parsing_exception: failed to parse field [id]`) {
		t.Errorf("a refused document: %v", err)
	}
}

// The source reads a query's hits, page by page, into rows typed by the schema or by the
// mapping, _id included; a restored split skips what it had emitted.
func TestSourceReadsPages(t *testing.T) {
	index := newIndex(t)
	tbl := conntest.Table("t", "id", "bigint", "name", "string", "score", "double", "tags", "array<string>")
	s, err := conntest.BuildSink(t, "Elasticsearch", fmt.Sprintf("hosts = [%q]\nindex = %q\nprimary_keys = [id]", server(t), index), tbl)
	if err != nil {
		t.Fatal(err)
	}
	var in [][]row.Value
	for i := 0; i < 25; i++ {
		in = append(in, []row.Value{row.BigIntValue(int64(i)), row.StringValue(fmt.Sprintf("n%02d", i)), row.DoubleValue(float64(i) / 2),
			row.ArrayValue([]row.Value{row.StringValue("t")})})
	}
	if err := conntest.Write(t, s, rows(tbl, nil, in...)); err != nil {
		t.Fatal(err)
	}
	docs(t, index, 25)

	src := mustSource(t, fmt.Sprintf(`hosts = [%q]
index = %q
scroll_size = 4
query = {"range": {"id": {"gte": 5}}}
schema = { fields { _id = string, id = bigint, name = string, score = double, tags = "array<string>" } }`, server(t), index))
	got := conntest.AllRows(t, src, 1)
	if len(got) != 20 {
		t.Fatalf("%d rows, want the 20 of id >= 5", len(got))
	}
	for _, r := range got {
		id := r.Fields[1].I
		want := fmt.Sprintf("%d %d n%02d %s [t]", id, id, id, row.DoubleValue(float64(id)/2))
		if g := fmt.Sprintf("%s %s %s %s %s", r.Fields[0], r.Fields[1], r.Fields[2], r.Fields[3], r.Fields[4]); g != want {
			t.Errorf("row %s, want %s", g, want)
		}
	}

	// without a schema: the source fields, typed by the mapping and array_column
	src, err = buildSource(t, fmt.Sprintf(`hosts = [%q]
index = %q
source = [_id, name, tags]
array_column = { tags = "array<string>" }`, server(t), index))
	if err != nil {
		t.Fatal(err)
	}
	if tt := src.Tables()[0].RowType(); strings.Join(tt.Names, ",") != "_id,name,tags" || tt.Types[2].String() != "array<string>" {
		t.Errorf("table %v %v", tt.Names, tt.Types)
	}
	if got := conntest.AllRows(t, src, 1); len(got) != 25 {
		t.Errorf("%d rows, want 25", len(got))
	}

	// no source fields: every field of the mapping (on ZincSearch, whose mapping has one
	// numeric type, numbers are doubles)
	src, err = buildSource(t, fmt.Sprintf("hosts = [%q]\nindex = %q\nsource = []", server(t), index))
	if err != nil {
		t.Fatal(err)
	}
	if tt := src.Tables()[0].RowType(); strings.Join(tt.Names, ",") != "id,name,score,tags" {
		t.Errorf("the fields of the mapping: %v", tt.Names)
	}
	if got := conntest.AllRows(t, src, 1); len(got) != 25 || got[0].Fields[1].String() != "n00" {
		t.Errorf("%d rows, want 25; the first %v", len(got), got[0].Fields)
	}

	// a restored split goes on after what it had emitted
	src, _ = buildSource(t, fmt.Sprintf("hosts = [%q]\nindex = %q\nscroll_size = 10\nschema = { fields { id = bigint } }", server(t), index))
	r := conntest.OpenReader(t, src, connector.ReaderContext{Index: 0, Parallelism: 1}, []connector.Split{splitState{Index: 0, Emitted: 18}.split()})
	var n int
	for {
		b := row.NewBatch(100)
		done := conntest.Poll(context.Background(), t, r, b)
		n += len(b.Rows)
		if done {
			break
		}
	}
	if n != 7 {
		t.Errorf("a split restored after 18 of 25 hits read %d more", n)
	}
}

// Every SeaTunnel type goes through the sink as SeaTunnel writes it (decimals as numbers,
// dates, times and timestamps as ISO text, bytes as base64, rows and maps as objects) and
// comes back through the source, typed by the schema, as the value written.
func TestTypesRoundTrip(t *testing.T) {
	ts, _ := time.Parse(time.RFC3339Nano, "2024-02-29T13:14:15.123Z")
	dec, err := literal.ParseDecimal("123456.789", 12, 3)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, typ string
		v         row.Value
		json      string // the document's field
	}{
		{"c_boolean", "boolean", row.BoolValue(true), `true`},
		{"c_tinyint", "tinyint", row.TinyIntValue(-7), `-7`},
		{"c_smallint", "smallint", row.SmallIntValue(-300), `-300`},
		{"c_int", "int", row.IntValue(70000), `70000`},
		{"c_bigint", "bigint", row.BigIntValue(4_000_000_000_123), `4000000000123`},
		{"c_float", "float", row.FloatValue(1.5), `1.5`},
		{"c_double", "double", row.DoubleValue(-2.25e-3), `-0.00225`},
		{"c_decimal", "decimal(12, 3)", dec, `123456.789`},
		{"c_string", "string", row.StringValue(`héllo "q" \ ü`), `"héllo \"q\" \\ ü"`},
		{"c_date", "date", row.DateOf(ts), `"2024-02-29"`},
		{"c_time", "time", row.TimeOf(ts), `"13:14:15.123"`},
		{"c_timestamp", "timestamp", row.TimestampOf(ts), `"2024-02-29T13:14:15.123"`},
		{"c_bytes", "bytes", row.BytesValue([]byte{0, 1, 0xfe, 'a'}), `"AAH+YQ=="`},
		{"c_array", "array<int>", row.ArrayValue([]row.Value{row.IntValue(1), row.IntValue(2)}), `[1,2]`},
		{"c_map", "map<string, int>", row.MapOfValues(&row.MapValue{Keys: []row.Value{row.StringValue("k")}, Vals: []row.Value{row.IntValue(3)}}), `{"k":3}`},
		{"c_row", "{x = int, y = string}", row.RowValue([]row.Value{row.IntValue(4), row.StringValue("z")}), `{"x":4,"y":"z"}`},
		{"c_null", "string", row.NullValue(), `null`},
	}
	cols := []string{"id", "int"}
	fields := []row.Value{row.IntValue(1)}
	schema := "id = int"
	for _, c := range cases {
		cols = append(cols, c.name, c.typ)
		fields = append(fields, c.v)
		schema += fmt.Sprintf(", %s = %q", c.name, c.typ)
	}
	tbl := conntest.Table("t", cols...)
	index := newIndex(t)
	written(t, fmt.Sprintf("hosts = [%q]\nindex = %q\nprimary_keys = [id]", server(t), index), tbl, rows(tbl, nil, fields))
	doc := docs(t, index, 1, "1")["1"]
	for _, c := range cases {
		t.Run("sink/"+c.name, func(t *testing.T) {
			if g := asJSON(doc[c.name]); g != c.json {
				t.Errorf("document field %s = %s, want %s", c.name, g, c.json)
			}
		})
	}

	src := mustSource(t, fmt.Sprintf("hosts = [%q]\nindex = %q\nschema = { fields { %s } }", server(t), index, schema))
	got := conntest.AllRows(t, src, 1)
	if len(got) != 1 {
		t.Fatalf("%d rows, want 1", len(got))
	}
	for i, c := range cases {
		t.Run("source/"+c.name, func(t *testing.T) {
			if g, w := got[0].Fields[i+1].String(), c.v.String(); g != w {
				t.Errorf("field %s read as %s, want %s", c.name, g, w)
			}
		})
	}
}

// A document the server refuses (a value its mapping cannot read) fails the write, naming
// the document's id, its index and the server's reason, and is not retried.
func TestSinkRefusedDocument(t *testing.T) {
	index := newIndex(t)
	body := map[string]any{"mappings": map[string]any{"properties": map[string]any{"n": map[string]any{"type": "integer"}}}}
	if err := testClient(t).json(context.Background(), http.MethodPut, indexPath(index), body, nil); err != nil {
		t.Fatal(err)
	}
	tbl := conntest.Table("t", "id", "int", "n", "string")
	s, err := conntest.BuildSink(t, "Elasticsearch", fmt.Sprintf("hosts = [%q]\nindex = %q\nprimary_keys = [id]", server(t), index), tbl)
	if err != nil {
		t.Fatal(err)
	}
	err = conntest.Write(t, s, rows(tbl, nil, []row.Value{row.IntValue(1), row.StringValue("5")}, []row.Value{row.IntValue(2), row.StringValue("not a number")}))
	want := fmt.Sprintf(`the server refused the index of document "2" in index %s`, index)
	if err == nil || !connector.IsPermanent(err) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "not a number") {
		t.Errorf("a document the mapping refuses: %v\nwant a permanent error with %q and the value", err, want)
	}
}

// RECREATE_SCHEMA deletes the index with its documents and mapping and creates it with the
// table's fields.
func TestSinkRecreateSchema(t *testing.T) {
	index := newIndex(t)
	old := conntest.Table("t", "id", "int", "zone", "string")
	written(t, fmt.Sprintf("hosts = [%q]\nindex = %q\nprimary_keys = [id]", server(t), index), old, rows(old, nil, []row.Value{row.IntValue(1), row.StringValue("a")}, []row.Value{row.IntValue(2), row.StringValue("b")}))
	docs(t, index, 2)
	tbl := conntest.Table("t", "id", "int", "amount", "double")
	written(t, fmt.Sprintf("hosts = [%q]\nindex = %q\nprimary_keys = [id]\nschema_save_mode = RECREATE_SCHEMA", server(t), index), tbl, rows(tbl, nil, []row.Value{row.IntValue(3), row.DoubleValue(1.5)}))
	if got := docs(t, index, 1, "3"); asJSON(got["3"]) != `{"amount":1.5,"id":3}` {
		t.Errorf("after RECREATE_SCHEMA: %s", asJSON(got))
	}
	var mapping map[string]any
	if err := testClient(t).json(context.Background(), http.MethodGet, indexPath(index)+"/_mapping", nil, &mapping); err != nil {
		t.Fatal(err)
	}
	if m := asJSON(mapping); strings.Contains(m, `"zone"`) || !strings.Contains(m, `"amount"`) {
		t.Errorf("the recreated index's mapping: %s", m)
	}
}

// The example job plans: its options are the sink's.
func TestExampleJobPlans(t *testing.T) {
	text, err := os.ReadFile("../../examples/fake_to_elasticsearch.conf")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planner.Plan(contract.ConfigSource{File: "fake_to_elasticsearch.conf", Text: string(text)}, connector.Job{ID: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Pipelines) != 1 {
		t.Errorf("%d pipelines, want 1", len(plan.Pipelines))
	}
	bad := strings.Replace(string(text), "max_batch_size = 100", "max_batch_size = 0", 1)
	if _, err := planner.Plan(contract.ConfigSource{File: "fake_to_elasticsearch.conf", Text: bad}, connector.Job{ID: 1}); err == nil || !strings.Contains(err.Error(), "max_batch_size") {
		t.Errorf("max_batch_size = 0 planned: %v", err)
	}
}

// buildSource builds the Elasticsearch source of a batch job with one reader.
// mustSource builds the source of conf for a BATCH job of one reader; an error fails the
// test.
// written builds the Elasticsearch sink of conf for tbl and writes the batches with it, as
// a subtask of a job does; it returns the sink.
func written(t *testing.T, conf string, tbl *catalog.Table, batches ...*row.Batch) connector.Sink {
	t.Helper()
	s, err := conntest.BuildSink(t, "Elasticsearch", conf, tbl)
	if err != nil {
		t.Fatal(err)
	}
	if err := conntest.Write(t, s, batches...); err != nil {
		t.Fatal(err)
	}
	return s
}

func mustSource(t *testing.T, conf string) connector.Source {
	t.Helper()
	return conntest.MustSource(t, "Elasticsearch", conf, connector.Batch, 1)
}

func buildSource(t *testing.T, conf string) (connector.Source, error) {
	return conntest.BuildSource(t, "Elasticsearch", conf, connector.Batch, 1)
}
