package gateway_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/strait-dev/strait/gateway"
)

// serve starts a gateway over the test cluster with opts and returns its address.
func serve(t *testing.T, opts ...gateway.Option) string {
	t.Helper()
	srv := httptest.NewServer(gateway.New(cl, "default", opts...))
	t.Cleanup(srv.Close)
	return srv.URL
}

// do sends a request with headers and returns the answer, its body read.
func do(t *testing.T, method, url, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// wantFail checks SeaTunnel's error shape with a message holding want.
func wantFail(t *testing.T, resp *http.Response, b []byte, status int, want string) {
	t.Helper()
	var e struct{ Status, Message string }
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("%d, not JSON: %s", resp.StatusCode, b)
	}
	if resp.StatusCode != status || e.Status != "fail" || !strings.Contains(e.Message, want) {
		t.Fatalf("got %d %s, want %d and a message with %q", resp.StatusCode, b, status, want)
	}
}

// With tokens, every endpoint but the API's description wants one; a read-only token
// reads and may not submit or stop.
func TestTokensOnEveryPath(t *testing.T) {
	toks, err := gateway.NewTokens("", "rw-token,ro:ro-token", nil)
	if err != nil {
		t.Fatal(err)
	}
	url := serve(t, gateway.WithTokens(toks))
	cases := []struct {
		name, method, path, body, token string
		status                          int
		want                            string
	}{
		{"overview without a token", "GET", "/overview", "", "", 401, "authentication required"},
		{"submit without a token", "POST", "/submit-job", batch(1), "", 401, "authentication required"},
		{"a bad token", "GET", "/running-jobs", "", "wrong", 401, "not valid"},
		{"an unknown path without a token", "GET", "/no-such-thing", "", "", 401, "authentication required"},
		{"v1 path without a token", "GET", "/hazelcast/rest/maps/overview", "", "", 401, "authentication required"},
		{"read-only token submits", "POST", "/submit-job", batch(1), "ro-token", 403, "read-only"},
		{"read-only token stops", "POST", "/stop-job", `{"jobId": 4242}`, "ro-token", 403, "read-only"},
		{"read-only token reads", "GET", "/job-info/4242", "", "ro-token", 200, ""},
		{"token reads", "GET", "/job-info/4242", "", "rw-token", 200, ""},
		{"token stops", "POST", "/stop-job", `{"jobId": 4242}`, "rw-token", 200, ""},
		{"the API description is open", "GET", "/openapi.json", "", "", 200, ""},
		{"the dashboard's pages are open", "GET", "/ui/", "", "", 200, ""},
		{"the dashboard's script is open", "GET", "/ui/app.js", "", "", 200, ""},
		{"a job's graph without a token", "GET", "/job-graph/4242", "", "", 401, "authentication required"},
		{"a job's config without a token", "GET", "/job-config/4242", "", "", 401, "authentication required"},
		{"the runners without a token", "GET", "/runners", "", "", 401, "authentication required"},
		{"the dashboard's settings without a token", "GET", "/ui-settings", "", "", 401, "authentication required"},
		{"the runners with a read-only token", "GET", "/runners", "", "ro-token", 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := map[string]string{}
			if c.token != "" {
				h["Authorization"] = "Bearer " + c.token
			}
			resp, b := do(t, c.method, url+c.path, c.body, h)
			if c.status == 200 {
				if resp.StatusCode != 200 {
					t.Fatalf("%d %s", resp.StatusCode, b)
				}
				return
			}
			wantFail(t, resp, b, c.status, c.want)
			if c.status == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Fatal("a 401 without WWW-Authenticate")
			}
		})
	}
}

// A body past the limit answers 413 naming the limit, whether it says its length or not.
func TestBodyLimit(t *testing.T) {
	url := serve(t, gateway.WithMaxBody(1000))
	big := `{"env": {"job.mode": "BATCH"}, "pad": "` + strings.Repeat("x", 2000) + `"}`
	resp, b := do(t, "POST", url+"/submit-job", big, nil)
	wantFail(t, resp, b, 413, "larger than the gateway's limit of 1000 bytes")

	// chunked: no Content-Length, the reader stops at the limit
	req, err := http.NewRequest("POST", url+"/stop-job", io.MultiReader(strings.NewReader(big)))
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = -1
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Body.Close()
	b2, _ := io.ReadAll(r2.Body)
	wantFail(t, r2, b2, 413, "1000 bytes")

	resp, b = do(t, "POST", url+"/submit-job", batch(1), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("a config under the limit: %d %s", resp.StatusCode, b)
	}
}

// A config the body limit lets through but Temporal refuses as a workflow input answers
// 413 with Temporal's limit named, not 500.
func TestConfigPastTemporalsLimit(t *testing.T) {
	url := serve(t, gateway.WithMaxBody(8<<20))
	conf := "# " + strings.Repeat("padding ", 3<<17) + "\n" + streamingJob
	resp, b := do(t, "POST", url+"/submit-job?format=hocon", conf, nil)
	wantFail(t, resp, b, 413, "at most 2 MiB")
}

// Past its burst a client gets 429 with Retry-After; another client is not affected.
func TestRateLimit(t *testing.T) {
	url := serve(t, gateway.WithRateLimit(gateway.RateLimit{PerSecond: 0.01, Burst: 2}))
	for i := range 2 {
		if resp, b := do(t, "GET", url+"/job-info/4242", "", nil); resp.StatusCode != 200 {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, b)
		}
	}
	resp, b := do(t, "GET", url+"/job-info/4242", "", nil)
	wantFail(t, resp, b, 429, "too many requests from 127.0.0.1")
	if ra := resp.Header.Get("Retry-After"); ra != fmt.Sprint(100) {
		t.Fatalf("Retry-After %q, want 100 (one request every 100 s)", ra)
	}
}
