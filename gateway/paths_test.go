package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/strait-dev/strait/gateway"
)

// Each of the paths beyond jobs answers SeaTunnel's shape, or refuses in its error shape.
func TestSeaTunnelPaths(t *testing.T) {
	// a job the gateway logs about, for the job's log
	var sub gateway.SubmitResponse
	callJSON(t, "POST", "/submit-job?jobName=logged", batch(1), &sub)
	waitState(t, sub.JobID, "FINISHED")
	jobLog := "job-" + sub.JobID + ".log"

	cases := []struct {
		name, method, path, body string
		status                   int
		ctype                    string
		want                     []string // in the body
	}{
		{"system monitoring", "GET", "/system-monitoring-information", "", 200, "application/json",
			[]string{`"processors":"`, `"heap.memory.used":"`, `"thread.count":"`, `"minor.gc.count":"`, `"host":"127.0.0.1"`}},
		{"encrypt config", "POST", "/encrypt-config", `{"env": {"shade.identifier": "base64"}, "source": [{"plugin_name": "FakeSource", "password": "seatunnel_password"}], "sink": [{"plugin_name": "Console"}]}`,
			200, "application/json", []string{`"password":"c2VhdHVubmVsX3Bhc3N3b3Jk"`}},
		{"encrypt config, empty", "POST", "/encrypt-config", "", 400, "application/json", []string{"Request body is empty."}},
		{"encrypt config, not JSON", "POST", "/encrypt-config", "{", 400, "application/json", []string{"Invalid JSON format in request body"}},
		{"update tags, empty", "POST", "/update-tags", "", 400, "application/json", []string{"Request body is empty."}},
		{"update tags, not a map", "POST", "/update-tags", "[1]", 400, "application/json", []string{"Invalid JSON format in request body."}},
		{"update tags to the runner's own", "POST", "/update-tags", `{"zone": "a"}`, 200, "application/json", []string{`{"status":"success","message":"update node tags done."}`}},
		{"update tags of no such runner", "POST", "/update-tags?runner=nope", `{"zone": "b"}`, 400, "application/json", []string{`no runner \"nope\" is registered (runners: gw)`}},
		{"logs as json", "GET", "/logs?format=json", "", 200, "application/json", []string{`"logName":"strait-gateway.log"`, `"logName":"` + jobLog + `"`, `"logLink":"http://127.0.0.1:`}},
		{"logs as html", "GET", "/logs", "", 200, "text/html", []string{"<h2>Seatunnel log</h2>", jobLog}},
		{"logs in a bad format", "GET", "/logs?format=xml", "", 400, "application/json", []string{`format \"xml\"`}},
		{"a job's logs", "GET", "/logs/" + sub.JobID + "?format=json", "", 200, "application/json", []string{`"logName":"` + jobLog + `"`}},
		{"a job's log", "GET", "/logs/" + jobLog, "", 200, "text/plain", []string{"INFO gateway: job submitted job=" + sub.JobID + " name=logged"}},
		{"the gateway's log", "GET", "/log/strait-gateway.log", "", 200, "text/plain", []string{"gateway: job submitted"}},
		{"no such log", "GET", "/log/job-1.log", "", 400, "application/json", []string{`no log named \"job-1.log\"`}},
		{"this node's logs", "GET", "/log", "", 200, "text/html", []string{`<a href="log/strait-gateway.log">`}},
		{"log names", "GET", "/get-all-log-name", "", 200, "application/json", []string{`"strait-gateway.log"`, `"` + jobLog + `"`}},
		{"thread dump", "GET", "/thread-dump", "", 200, "application/json", []string{`"threadName":"goroutine `, `"threadState":"`, `"stackTrace":"`}},
		{"running threads", "GET", "/running-threads", "", 200, "application/json", []string{`"classLoader":"net/http"`}},
		{"v1 overview", "GET", "/hazelcast/rest/maps/overview", "", 200, "application/json", []string{`"projectVersion":"test"`}},
		{"v1 job info", "GET", "/hazelcast/rest/maps/job-info/" + sub.JobID, "", 200, "application/json", []string{`"jobName":"logged"`, `"jobStatus":"FINISHED"`}},
		{"v1 log links keep the prefix", "GET", "/hazelcast/rest/maps/logs?format=json", "", 200, "application/json", []string{`/hazelcast/rest/maps/logs/strait-gateway.log"`}},
		{"v1 refusal", "POST", "/hazelcast/rest/maps/stop-job", `{}`, 400, "application/json", []string{"jobId cannot be empty."}},
		{"v1 has no v1 openapi", "GET", "/hazelcast/rest/maps/openapi.json", "", 404, "application/json", []string{"no such endpoint"}},
		{"openapi", "GET", "/openapi.json", "", 200, "application/json", []string{`"openapi": "3.1.0"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, b := do(t, c.method, base+c.path, c.body, nil)
			if resp.StatusCode != c.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), c.ctype) {
				t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
			}
			for _, w := range c.want {
				if !strings.Contains(string(b), w) {
					t.Fatalf("no %q in %s", w, b)
				}
			}
			if c.status != 200 {
				wantFail(t, resp, b, c.status, "")
			}
		})
	}
}

// The v1 path submits as the v2 one does.
func TestV1Submit(t *testing.T) {
	var sub gateway.SubmitResponse
	callJSON(t, "POST", "/hazelcast/rest/maps/submit-job?jobName=v1", batch(2), &sub)
	v := waitState(t, sub.JobID, "FINISHED")
	if v.JobName != "v1" || v.Metrics.SinkWriteCount != "4" {
		t.Fatalf("job %+v", v)
	}
	var infos []json.RawMessage
	callJSON(t, "GET", "/hazelcast/rest/maps/finished-jobs/FINISHED", "", &infos)
	if len(infos) == 0 {
		t.Fatal("no finished job under v1's path")
	}
}
