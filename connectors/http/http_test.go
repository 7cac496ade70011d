package http

import (
	"context"
	"encoding/json"
	"fmt"
	nethttp "net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/internal/httpmock"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// mock serves SeaTunnel's mock server responses (testdata/seatunnel/mockserver-config.json).
func mock(t *testing.T) *httpmock.Server {
	t.Helper()
	exps, err := httpmock.Load(filepath.Join("testdata", "seatunnel", "mockserver-config.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := httpmock.Start(exps)
	t.Cleanup(s.Close)
	return s
}

func options(t *testing.T, block string) *config.Options {
	t.Helper()
	root, err := hocon.Parse([]byte(block), hocon.Options{File: "http.conf"})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return config.New(root, "Http")
}

func newSource(t *testing.T, block string, mode connector.JobMode) (connector.Source, error) {
	t.Helper()
	build, _, ok := connector.LookupSource("Http")
	if !ok {
		t.Fatal("Http source not registered")
	}
	return build(&connector.SourceContext{Context: context.Background(), Options: options(t, block), Job: connector.Job{Mode: mode}, Parallelism: 1})
}

// texts is each row's fields as text.
func texts(rows []row.Row) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		for _, v := range r.Fields {
			if v.T == types.Null {
				out[i] = append(out[i], "<null>")
			} else {
				out[i] = append(out[i], string(row.AppendText(nil, v)))
			}
		}
	}
	return out
}

func readAll(t *testing.T, block string) ([]row.Row, error) {
	t.Helper()
	src, err := newSource(t, block, connector.Batch)
	if err != nil {
		t.Fatalf("new source: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := conntest.Rows(ctx, src, 1)
	if err != nil {
		return nil, err
	}
	return rows[0], nil
}

const pretty = "[ {\n  \"name\" : \"lzl\",\n  \"age\" : 18\n}, {\n  \"name\" : \"pizz\",\n  \"age\" : 19\n} ]"

// The source blocks of SeaTunnel's connector-http-e2e configs, with the URL pointing at the
// test server instead of host mockserver:1080 (e2e/http_suite_test.go runs the configs
// themselves unchanged).
func TestSourceSeaTunnelResponses(t *testing.T) {
	srv := mock(t)
	books := [][]string{
		{"Nigel Rees", "reference", "8.95", "Sayings of the Century"},
		{"Evelyn Waugh", "fiction", "12.99", "Sword of Honour"},
		{"Herman Melville", "fiction", "8.99", "Moby Dick"},
		{"J. R. R. Tolkien", "fiction", "22.99", "The Lord of the Rings"},
	}
	bookSchema := `schema = { fields { author = string, category = string, price = string, title = string } }`
	pageSchema := `schema = { fields { name = string, age = int } }`
	tests := []struct {
		name, block string
		want        [][]string // nil: check count only
		count       int
		queries     []string // the query strings of the requests, in order
		path        string
	}{
		{name: "json", path: "/example/http", count: 5, block: `url = "URL/example/http", method = GET, format = json
			schema = { fields { c_string = string, c_boolean = boolean, c_int = int, c_date = date, c_timestamp = timestamp, c_map = "map<string, string>", c_array = "array<int>", c_bytes = bytes, c_decimal = "decimal(38, 18)" } }`},
		{name: "content_field", path: "/contentjson/mock", want: books, block: `url = "URL/contentjson/mock", format = json, content_field = "$.store.book.*"` + "\n" + bookSchema},
		{name: "json_field", path: "/jsonpath/mock", want: books, block: `url = "URL/jsonpath/mock", format = json
			json_field = { category = "$.store.book[*].category", author = "$.store.book[*].author", title = "$.store.book[*].title", price = "$.store.book[*].price" }` + "\n" + bookSchema},
		{name: "pages total_page_size", path: "/query/pages", queries: []string{"page=1", "page=2"},
			want: [][]string{{"name1", "69"}, {"name2", "51"}, {"name1", "69"}, {"name2", "51"}},
			block: `url = "URL/query/pages", format = json, json_field = { name = "$.data[*].name", age = "$.data[*].age" }
			pageing = { total_page_size = 2, page_field = page }` + "\n" + pageSchema},
		{name: "pages start_page_number", path: "/query/pages", queries: []string{"page=2"},
			want: [][]string{{"name1", "69"}, {"name2", "51"}},
			block: `url = "URL/query/pages", format = json, json_field = { name = "$.data[*].name", age = "$.data[*].age" }
			pageing = { total_page_size = 2, page_field = page, start_page_number = 2 }` + "\n" + pageSchema},
		{name: "pages batch_size", path: "/query/pagesNoPageNum", queries: []string{"page=1", "page=2"}, count: 12,
			block: `url = "URL/query/pagesNoPageNum", format = json, json_field = { name = "$.data[*].name", age = "$.data[*].age" }
			pageing = { batch_size = 10, page_field = page }` + "\n" + pageSchema},
		{name: "form body", path: "/example/formBody", want: [][]string{{"lzl", "18"}, {"pizz", "19"}},
			block: `url = "URL/example/formBody", method = POST, params = {id = 1}, format = json` + "\n" + pageSchema},
		{name: "json body", path: "/example/jsonBody", want: [][]string{{"lzl", "18"}, {"pizz", "19"}},
			block: `url = "URL/example/jsonBody", method = POST, body="{"id":1}", format = json` + "\n" + pageSchema},
		{name: "multi lines", path: "/example/httpMultiLine", want: [][]string{{"Jone", "22", "1000"}, {"vieech", "24", "3000"}},
			block: `url = "URL/example/httpMultiLine", format = json, enable_multi_lines = true
			schema = { fields { name = string, age = int, salary = int } }`},
		{name: "no schema", path: "/example/jsonBody", want: [][]string{{pretty}},
			block: `url = "URL/example/jsonBody", method = POST, body="{"id":1}"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n0 := len(requests(srv, tc.path))
			rows, err := readAll(t, strings.ReplaceAll(tc.block, "URL", srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			got := texts(rows)
			if tc.want != nil {
				if len(got) != len(tc.want) {
					t.Fatalf("got %d rows %q, want %d", len(got), got, len(tc.want))
				}
				for i := range tc.want {
					for j := range tc.want[i] {
						if got[i][j] != tc.want[i][j] {
							t.Errorf("row %d field %d: got %q, want %q", i, j, got[i][j], tc.want[i][j])
						}
					}
				}
			} else if len(got) != tc.count {
				t.Fatalf("got %d rows, want %d", len(got), tc.count)
			}
			reqs := requests(srv, tc.path)[n0:]
			for _, r := range reqs {
				if !r.Matched {
					t.Errorf("request %s %s?%s %q matched no expectation", r.Method, r.Path, r.Query, r.Body)
				}
			}
			if tc.queries != nil {
				var qs []string
				for _, r := range reqs {
					qs = append(qs, r.Query)
				}
				if fmt.Sprint(qs) != fmt.Sprint(tc.queries) {
					t.Errorf("requests %q, want %q", qs, tc.queries)
				}
			} else if len(reqs) != 1 {
				t.Errorf("%d requests, want 1", len(reqs))
			}
		})
	}
}

func requests(s *httpmock.Server, path string) []httpmock.Recorded {
	var out []httpmock.Recorded
	for _, m := range []string{"GET", "POST"} {
		out = append(out, s.Requests(m, path)...)
	}
	return out
}

// The first row of /example/http, field by field.
func TestSourceJSONTypes(t *testing.T) {
	srv := mock(t)
	rows, err := readAll(t, `url = "`+srv.URL+`/example/http", format = json
		schema = { fields { c_map = "map<string, string>", c_array = "array<int>", c_string = string, c_boolean = boolean, c_tinyint = tinyint,
		c_bigint = bigint, c_bytes = bytes, c_date = date, c_timestamp = timestamp,
		c_row = { C_STRING = string, C_INT = int, C_DATE = date } } }`)
	if err != nil {
		t.Fatal(err)
	}
	got := texts(rows[:1])[0]
	want := []string{`{"ccQcS":"PrhhP","ypJZu":"MsOdX","YFBJW":"iPXGR","ipjwT":"kcgPQ","EpKKR":"jgRfX"}`, "[887776100, 1633238485, 1009033208, 600614572, 1487972145]",
		"WArEB", "false", "-90", "4712806879122100224", "[67, 115, 107, 86, 116]" /* base64 Q3NrVnQ= */, "2022-04-27", "2022-01-26T17:39", "[bYjyZ, 977226449, 2022-04-25]"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d: got %q, want %q", i, got[i], want[i])
		}
	}
}

// flaky answers 503 to the first n requests, then 200 with a JSON array of one row.
func flaky(t *testing.T, n int32, status int) (*httpmock.Server, *atomic.Int32) {
	srv := httpmock.Start(nil)
	t.Cleanup(srv.Close)
	var calls atomic.Int32
	srv.Override = func(w nethttp.ResponseWriter, r *nethttp.Request, _ []byte) bool {
		if calls.Add(1) <= n {
			w.WriteHeader(status)
			w.Write([]byte("busy"))
			return true
		}
		w.Write([]byte(`[{"name":"a","age":1}]`))
		return true
	}
	return srv, &calls
}

// retryCase is a server that answers status to the first failures requests and accepts
// the next, and a client that tries retry times.
type retryCase struct {
	name      string
	failures  int32
	status    int
	retry     int
	calls     int32  // the requests the server gets
	err       string // what the error contains, URL standing for the server's; "" succeeds
	permanent bool   // the error is one no restart mends
}

// runRetryCases runs each case against a flaky server of its own: send makes the
// requests, to the server at url with the retry option, and returns their error.
func runRetryCases(t *testing.T, cases []retryCase, send func(t *testing.T, url string, retry int) error) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, calls := flaky(t, tc.failures, tc.status)
			tc.check(t, srv.URL, calls, send(t, srv.URL, tc.retry))
		})
	}
}

// check checks the outcome of tc against a flaky server at url: the error, and the
// requests made.
func (tc retryCase) check(t *testing.T, url string, calls *atomic.Int32, err error) {
	t.Helper()
	if tc.err == "" {
		if err != nil {
			t.Fatal(err)
		}
	} else if want := strings.ReplaceAll(tc.err, "URL", url); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want it to contain %q", err, want)
	} else if connector.IsPermanent(err) != tc.permanent {
		t.Errorf("permanent %v, want %v", connector.IsPermanent(err), tc.permanent)
	}
	if got := calls.Load(); got != tc.calls {
		t.Errorf("%d requests, want %d", got, tc.calls)
	}
}

func TestSourceRetries(t *testing.T) {
	runRetryCases(t, []retryCase{
		{"succeeds on the third try", 2, 503, 3, 3, "", false},
		{"gives up after the tries", 5, 503, 3, 3, "GET URL/rows: the server answered 503 Service Unavailable (3 attempts): busy", false},
		{"no retry without retry", 1, 500, 0, 1, "the server answered 500 Internal Server Error: busy", false},
		{"a 404 is not tried again", 1, 404, 3, 1, "GET URL/rows: the server answered 404 Not Found: busy", false},
	}, func(t *testing.T, url string, retry int) error {
		rows, err := readAll(t, fmt.Sprintf(`url = "%s/rows", format = json, retry = %d, retry_backoff_multiplier_ms = 1, retry_backoff_max_ms = 5
			schema = { fields { name = string, age = int } }`, url, retry))
		if err == nil && len(rows) != 1 {
			t.Fatalf("rows %v", texts(rows))
		}
		return err
	})
}

func TestSourceUnreachable(t *testing.T) {
	srv := httpmock.Start(nil)
	url := srv.URL
	srv.Close()
	_, err := readAll(t, `url = "`+url+`/x", retry = 2, retry_backoff_multiplier_ms = 1`)
	if err == nil || !strings.Contains(err.Error(), "GET "+url+"/x") || !strings.Contains(err.Error(), "(2 attempts)") {
		t.Fatalf("err %v", err)
	}
}

// In STREAMING mode the source reads the URL again, every poll_interval_millis, all pages
// each time.
func TestSourceStreamingPolls(t *testing.T) {
	srv := mock(t)
	src, err := newSource(t, `url = "`+srv.URL+`/query/pages", format = json, poll_interval_millis = 1
		json_field = { name = "$.data[*].name", age = "$.data[*].age" }, pageing = { total_page_size = 2, page_field = page }
		schema = { fields { name = string, age = int } }`, connector.Streaming)
	if err != nil {
		t.Fatal(err)
	}
	if src.Boundedness() != connector.Unbounded {
		t.Fatal("a STREAMING source must be unbounded")
	}
	ec := conntest.NewEnumContext(1)
	en, _ := src.CreateEnumerator(ec, nil)
	en.Run(context.Background())
	rd := conntest.OpenReader(t, src, connector.ReaderContext{Parallelism: 1}, ec.Assigned[0])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := 0
	for n < 12 { // three reads of both pages
		b := row.NewBatch(1024)
		done, err := rd.PollNext(ctx, b)
		if err != nil || done {
			t.Fatalf("done %v, err %v", done, err)
		}
		n += b.Len()
	}
	rd.Close()
	var qs []string
	for _, r := range srv.Requests("GET", "/query/pages") {
		qs = append(qs, r.Query)
	}
	if want := "[page=1 page=2 page=1 page=2 page=1 page=2]"; fmt.Sprint(qs) != want {
		t.Errorf("requests %v, want %s", qs, want)
	}
}

func TestSourceConfigErrors(t *testing.T) {
	tests := []struct{ block, want string }{
		{`url = "http://x", schema = { fields { a = int } }`, "format"},
		{`url = "http://x", method = PUT`, "method"},
		{`url = "http://x", format = json, schema = { fields { a = int } }, json_field = { b = "$.b" }`, "json_field"},
		{`url = "http://x", format = json, schema = { fields { a = int } }, content_field = "$.[?(@.a)]"`, "content_field"},
		{`url = "http://x", pageing = { batch_size = 0 }`, "pageing.batch_size"},
		{`url = ""`, "url"},
	}
	for _, tc := range tests {
		_, err := newSource(t, tc.block, connector.Batch)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one naming %s", tc.block, err, tc.want)
		}
	}
}

// ---- sink ----

var sinkTable = &catalog.Table{Path: catalog.TablePath{Table: "http_sink_1"}, Columns: []catalog.Column{
	{Name: "id", Type: types.Of(types.Int)},
	{Name: "val_bool", Type: types.Of(types.Boolean)},
	{Name: "val_float", Type: types.Of(types.Float)},
	{Name: "val_string", Type: types.Of(types.String)},
	{Name: "val_ts", Type: types.Of(types.Timestamp)},
}}

func newSink(t *testing.T, block string) (connector.Writer, error) {
	t.Helper()
	build, _, _ := connector.LookupSink("Http")
	s, err := build(&connector.SinkContext{Context: context.Background(), Options: options(t, block), Inputs: []*catalog.Table{sinkTable}})
	if err != nil {
		t.Fatalf("new sink: %v", err)
	}
	return s.CreateWriter(connector.WriterContext{}, nil)
}

func sinkRows(t *testing.T, n int) *row.Batch {
	b := row.NewBatch(n)
	conv := literalRow(t)
	for i := 1; i <= n; i++ {
		r := b.Add(row.Insert, sinkTable.ID(), 5)
		copy(r.Fields, conv(fmt.Sprintf(`[%d, true, 4.3, "NEW", "2020-02-02T02:02:02"]`, i)))
	}
	return b
}

func TestSinkPostsEachRow(t *testing.T) {
	srv := mock(t)
	w, err := newSink(t, `url = "`+srv.URL+`/example/webhook", headers { token = "9e32e859ef044462a257e1fc76730066" }`)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(context.Background(), sinkRows(t, 3)); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests("POST", "/example/webhook")
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		want := fmt.Sprintf(`{"id":%d,"val_bool":true,"val_float":4.3,"val_string":"NEW","val_ts":"2020-02-02T02:02:02"}`, i+1)
		if string(r.Body) != want {
			t.Errorf("body %d: %s, want %s", i, r.Body, want)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("content type %q", ct)
		}
		if !r.Matched {
			t.Errorf("request %d matched no expectation", i)
		}
		var m map[string]any
		if err := json.Unmarshal(r.Body, &m); err != nil {
			t.Errorf("body %d is not JSON: %v", i, err)
		}
	}
}

func TestSinkRefused(t *testing.T) {
	runRetryCases(t, []retryCase{
		{"503 then accepted", 2, 503, 3, 3, "", false},
		{"503 after the tries", 9, 503, 2, 2, "POST URL/hook: the server answered 503 Service Unavailable (2 attempts): busy", false},
		{"404 at once", 9, 404, 3, 1, "POST URL/hook: the server answered 404 Not Found: busy", true},
	}, func(t *testing.T, url string, retry int) error {
		w, err := newSink(t, fmt.Sprintf(`url = "%s/hook", retry = %d, retry_backoff_multiplier_ms = 1`, url, retry))
		if err != nil {
			t.Fatal(err)
		}
		return w.Write(context.Background(), sinkRows(t, 1))
	})
}

// literalRow converts a HOCON list literal into the sink table's fields.
func literalRow(t *testing.T) func(string) []row.Value {
	return func(s string) []row.Value {
		root, err := hocon.Parse([]byte("v = "+s), hocon.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var conv literal.Converter
		fields, err := conv.ConvertFields(root.Get("v"), sinkTable.RowType())
		if err != nil {
			t.Fatal(err)
		}
		return fields
	}
}
