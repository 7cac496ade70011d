package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"
)

// SeaTunnel's Elasticsearch end-to-end configs (connectors/elasticsearch/testdata/seatunnel),
// run unchanged by strait run with the checks of its ElasticsearchIT. They reach the server
// as https://elasticsearch:9200, user elastic, password elasticsearch: a TLS front there
// passes the requests to ZincSearch's Elasticsearch API.

func esSuite(name string) string { return connectorSuite("elasticsearch", name) }

// esFront serves https://elasticsearch:9200 in front of the test server, taking SeaTunnel's
// credentials; it returns the test server's URL.
func esFront(t *testing.T) string {
	t.Helper()
	base := testServer(t, "STRAIT_TEST_ELASTICSEARCH", "ZincSearch (scripts/zincsearch.sh)")
	mappedHost(t, "elasticsearch", "scripts/zincsearch.sh")
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	user := target.User
	target.User = nil
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = target.Host
		p, _ := user.Password()
		r.Out.SetBasicAuth(user.Username(), p)
	}}
	lis, err := net.Listen("tcp", "127.0.0.1:9200")
	if err != nil {
		t.Fatalf("the TLS front of SeaTunnel's configs needs 127.0.0.1:9200: %v", err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "elastic" || p != "elasticsearch" {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	srv.Listener.Close()
	srv.Listener = lis
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return base
}

// esDo sends a request to the test server, as the user its address names; the caller reads
// and closes the answer.
func esDo(t *testing.T, base, method, path, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, strings.TrimRight(base, "/")+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if u := req.URL.User; u != nil {
		p, _ := u.Password()
		req.SetBasicAuth(u.Username(), p)
		req.URL.User = nil
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// esRequest sends a request to the test server and decodes its answer.
func esRequest(t *testing.T, base, method, path, body string, out any) {
	t.Helper()
	resp := esDo(t, base, method, path, body)
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		t.Fatalf("%s %s: %s %s", method, path, resp.Status, b.String())
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}

// esSearchResult is a search's answer: the documents found, each with its id.
type esSearchResult struct {
	Hits struct {
		Hits []struct {
			ID     string         `json:"_id"`
			Source map[string]any `json:"_source"`
		} `json:"hits"`
	} `json:"hits"`
}

// esDeleteIndex removes an index an earlier run left (ZincSearch's own API: its
// Elasticsearch API has no index delete).
func esDeleteIndex(t *testing.T, base, index string) {
	t.Helper()
	u, _ := url.Parse(base)
	p, _ := u.User.Password()
	req, _ := http.NewRequest(http.MethodDelete, fmt.Sprintf("%s://%s/api/index/%s", u.Scheme, u.Host, index), nil)
	req.SetBasicAuth(u.User.Username(), p)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// esSources reads an index's documents once it holds n: their _source without ZincSearch's
// @timestamp.
func esSources(t *testing.T, base, index string, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var r esSearchResult
		esRequest(t, base, http.MethodPost, "/"+index+"/_search", `{"query":{"match_all":{}},"size":1000}`, &r)
		if len(r.Hits.Hits) == n {
			out := make([]map[string]any, 0, n)
			for _, h := range r.Hits.Hits {
				delete(h.Source, "@timestamp")
				out = append(out, h.Source)
			}
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("index %s holds %d documents after 30 s, want %d", index, len(r.Hits.Hits), n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// testElasticsearchWithMultiSink: FakeSource's two tables reach the indexes their names
// make, each document as SeaTunnel's IT lists it.
func TestSeaTunnelElasticsearchMultiSink(t *testing.T) {
	base := esFront(t)
	for _, idx := range []string{"st_index5", "st_index6"} {
		esDeleteIndex(t, base, idx)
	}
	const config = "fakesource_to_elasticsearch_multi_sink.conf"
	code, out := run(t, "run", esSuite(config))
	checkRun(t, config, code, out, 0)
	for idx, want := range map[string]string{
		"st_index5": `{"c_smallint":2,"c_string":"NEW","c_float":4.3,"c_double":5.3,"c_decimal":6.3,"id":1,"c_int":3,"c_bigint":4,"c_bool":true,"c_tinyint":1}`,
		"st_index6": `{"c_smallint":2,"c_float":4.3,"c_double":5.3,"c_decimal":6.3,"id":1,"c_int":3,"c_bigint":4,"c_bool":true,"c_tinyint":1}`,
	} {
		got := esSources(t, base, idx, 1)
		var w map[string]any
		_ = json.Unmarshal([]byte(want), &w)
		if g, ww := canonical(got[0]), canonical(w); g != ww {
			t.Errorf("%s:\n got %s\nwant %s", idx, g, ww)
		}
	}
}

// testElasticsearchWithSchema: the IT's 100 documents of st_index, read with a range query
// of c_int 10..20 and the schema, reach st_index2 field by field; the timestamp, read from
// epoch milliseconds, is written as its date and time (the IT turns it back into
// milliseconds to compare, as here).
func TestSeaTunnelElasticsearchWithSchema(t *testing.T) {
	base := esFront(t)
	for _, idx := range []string{"st_index", "st_index2"} {
		esDeleteIndex(t, base, idx)
	}
	now := time.Now().UnixMilli()
	today := time.Now().Format("2006-01-02")
	var bulk strings.Builder
	want := map[float64]map[string]any{}
	for i := 0; i < 100; i++ {
		doc := map[string]any{"c_map": map[string]any{"key": i}, "c_array": []int{1, 2, 3}, "c_string": "string", "c_boolean": false,
			"c_tinyint": 1, "c_smallint": 1, "c_bigint": 1, "c_float": 1.1, "c_double": 1.1, "c_decimal": 1.1,
			"c_bytes": base64.StdEncoding.EncodeToString([]byte("test")), "c_int": i, "c_date": today, "c_timestamp": now, "c_null": nil}
		b, _ := json.Marshal(doc)
		bulk.WriteString(`{"index":{"_index":"st_index"}}` + "\n" + string(b) + "\n")
		if i >= 10 && i <= 20 {
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			want[float64(i)] = m
		}
	}
	esRequest(t, base, http.MethodPost, "/_bulk", bulk.String(), nil)
	esSources(t, base, "st_index", 100)
	const config = "elasticsearch_source_and_sink.conf"
	code, out := run(t, "run", esSuite(config))
	checkRun(t, config, code, out, 0)
	got := esSources(t, base, "st_index2", len(want))
	for _, g := range got {
		i, _ := g["c_int"].(float64)
		w, ok := want[i]
		if !ok {
			t.Errorf("a document of c_int %v, outside the query", g["c_int"])
			continue
		}
		// the timestamp is written as text: back to milliseconds, as the IT compares it
		if s, ok := g["c_timestamp"].(string); ok {
			ts, err := time.ParseInLocation("2006-01-02T15:04:05.999999999", s, time.UTC)
			if err != nil {
				ts, err = time.ParseInLocation("2006-01-02T15:04", s, time.UTC)
			}
			if err == nil {
				g["c_timestamp"] = float64(ts.UnixMilli())
			}
		}
		if gs, ws := canonical(g), canonical(w); gs != ws {
			t.Errorf("c_int %v:\n got %s\nwant %s", i, gs, ws)
		}
	}
}

// canonical is a document's JSON with its keys sorted.
func canonical(m map[string]any) string {
	b, _ := json.Marshal(m)
	return string(b)
}
