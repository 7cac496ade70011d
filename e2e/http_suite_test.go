package e2e

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	"github.com/strait-dev/strait/internal/httpmock"
)

// SeaTunnel's own Http end-to-end configs (connector-http-e2e), kept unchanged in
// connectors/http/testdata/seatunnel, run by strait run against the expectations of their mock
// server (mockserver-config.json) served by a test server, with the checks HttpIT makes. The
// configs name the host mockserver:1080; strait reaches the test server as its HTTP proxy.

func httpSuite(name string) string { return connectorSuite("http", name) }

func TestHTTPSuite(t *testing.T) {
	exps, err := httpmock.Load(httpSuite("mockserver-config.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httpmock.Start(exps)
	defer srv.Close()
	env := []string{"HTTP_PROXY=" + srv.URL, "http_proxy=", "NO_PROXY=", "no_proxy="}
	for _, conf := range []string{
		"http_json_to_assert.conf",
		"http_contentjson_to_assert.conf",
		"http_jsonpath_to_assert.conf",
		"http_multilinejson_to_assert.conf",
		"http_formrequestbody_to_assert.conf",
		"http_jsonrequestbody_to_assert.conf",
		"http_page_increase_page_num.conf",
		"http_page_increase_no_page_num.conf",
		"httpnoschema_to_http.conf",
		"http_page_increase_start_num.conf",
		"fake_to_multitable.conf",
	} {
		t.Run(conf, func(t *testing.T) {
			code, out := runCmd(t, []string{strait}, env, "run", httpSuite(conf))
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, tail(out, 40))
			}
		})
	}
	// testMultiTableHttp: the rows of both tables, one POST each, as SeaTunnel writes them
	reqs := srv.Requests("POST", "/example/httpMultiTableContentSink")
	var got []map[string]any
	for _, r := range reqs {
		var m map[string]any
		if err := json.Unmarshal(r.Body, &m); err != nil {
			t.Fatalf("body %s: %v", r.Body, err)
		}
		got = append(got, m)
	}
	sort.Slice(got, func(i, j int) bool { return got[i]["id"].(float64) < got[j]["id"].(float64) })
	for i, id := range []float64{1, 2} {
		want := map[string]any{"id": id, "val_bool": true, "val_int8": 1.0, "val_int16": 2.0, "val_int32": 3.0, "val_int64": 4.0,
			"val_float": 4.3, "val_double": 5.3, "val_decimal": 6.3, "val_string": "NEW", "val_unixtime_micros": "2020-02-02T02:02:02"}
		if i >= len(got) || !reflect.DeepEqual(got[i], want) {
			t.Errorf("multi-table sink bodies %v, want row %v", got, want)
		}
	}
	if len(got) != 2 {
		t.Errorf("%d multi-table sink requests, want 2", len(got))
	}
}
