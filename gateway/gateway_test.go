package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/gateway"
	"github.com/strait-dev/strait/jobclient"
	"github.com/strait-dev/strait/node"
)

// base is the gateway under test, served over HTTP in front of an embedded Temporal server
// with a worker and one runner of 8 slots; cl is that server's client.
var (
	base string
	cl   client.Client
)

func TestMain(m *testing.M) {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ckpt, err := os.MkdirTemp("", "strait-gateway-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	n, stop, err := node.New(context.Background(), node.Config{Worker: true, Runners: []node.RunnerSpec{{ID: "gw", Slots: 8, Tags: map[string]string{"zone": "a"}}},
		Logger: log, CheckpointDir: ckpt, MetricsAddr: "127.0.0.1:0"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the embedded cluster:", err)
		os.Exit(1)
	}
	srv := httptest.NewServer(gateway.New(n.Client, n.Namespace, gateway.WithLogger(log), gateway.WithVersion("test")))
	base, cl = srv.URL, n.Client
	code := m.Run()
	srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	_ = stop(ctx)
	cancel()
	os.RemoveAll(ckpt)
	os.Exit(code)
}

// call sends a request and returns the status and body.
func call(t *testing.T, method, path, body string) (int, []byte) {
	t.Helper()
	resp, b := do(t, method, base+path, body, nil)
	return resp.StatusCode, b
}

// callJSON sends a request, wants 200 and decodes the answer into v.
func callJSON(t *testing.T, method, path, body string, v any) {
	t.Helper()
	code, b := call(t, method, path, body)
	if code != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, path, code, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s %s: %v\n%s", method, path, err, b)
	}
}

// waitState polls job-info until the job is in state, failing on another end.
func waitState(t *testing.T, id, state string) gateway.JobInfo {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		var v gateway.JobInfo
		callJSON(t, "GET", "/job-info/"+id, "", &v)
		if v.JobStatus == state {
			return v
		}
		switch v.JobStatus {
		case "FINISHED", "FAILED", "CANCELED", "SAVEPOINT_DONE":
			t.Fatalf("job %s ended %s, want %s: %s", id, v.JobStatus, state, v.ErrorMsg)
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s is %s, not %s within 90 s", id, v.JobStatus, state)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitTasks waits until every task of the job runs: a job is RUNNING as soon as its
// pipelines are scheduled, before they have their slots.
func waitTasks(t *testing.T, id string) {
	t.Helper()
	var jid int64
	fmt.Sscan(id, &jid)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		st, err := jobclient.Status(ctx, cl, jid)
		cancel()
		running := err == nil && len(st.Pipelines) > 0
		for _, p := range st.Pipelines {
			running = running && p.State == contract.JobRunning && len(p.Tasks) > 0
			for _, task := range p.Tasks {
				running = running && task.State == contract.TaskRunning
			}
		}
		if running {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the tasks of job %s do not run within 60 s", id)
}

const batchJob = `{
  "env": {"job.mode": "BATCH", "parallelism": 2},
  "source": [{"plugin_name": "FakeSource", "plugin_output": "fake", "row.num": %d,
              "schema": {"fields": {"id": "bigint", "name": "string"}}}],
  "transform": [],
  "sink": [{"plugin_name": "Assert", "plugin_input": ["fake"],
            "rules": {"row_rules": [{"rule_type": "MIN_ROW", "rule_value": %d}, {"rule_type": "MAX_ROW", "rule_value": %d}],
                      "field_rules": [{"field_name": "id", "field_type": "%s"}]}}]
}`

func batch(rows int) string { return fmt.Sprintf(batchJob, rows, 2*rows, 2*rows, "bigint") }

const streamingJob = `
env { job.mode = STREAMING, parallelism = 1, checkpoint.interval = 1000 }
source { FakeSource { plugin_output = "fake", row.num = 10, schema = { fields { id = bigint } } } }
sink { Console { plugin_input = "fake", log.print.data = false } }`

// Requests SeaTunnel refuses are refused the same way: {"status":"fail","message":...}.
func TestRefusedRequests(t *testing.T) {
	cases := []struct {
		name, method, path, body string
		status                   int
		want                     string
	}{
		{"empty body", "POST", "/submit-job", "", 400, "Request body is empty."},
		{"not JSON", "POST", "/submit-job", "{\n  \"env\": {,\n}", 400, "Invalid JSON format in request body: request.json:2:11"},
		{"savepoint without a job id", "POST", "/submit-job?isStartWithSavePoint=true", batch(1), 400, "Please provide jobId when start with save point."},
		{"bad job id", "POST", "/submit-job?jobId=abc", batch(1), 400, `jobId "abc" is not a job id`},
		{"bad format", "POST", "/submit-job?format=xml", batch(1), 400, `format "xml"`},
		{"unknown plugin", "POST", "/submit-job", `{"source": [{"plugin_name": "NoSuchSource"}], "sink": [{"plugin_name": "Console"}]}`, 400,
			`config error: source[0] NoSuchSource: unknown source plugin "NoSuchSource"`},
		{"bad option", "POST", "/submit-job", fmt.Sprintf(batchJob, 1, 2, 2, "strng"), 400,
			`sink[0] Assert: rules.field_rules[0].field_type: unknown type "strng"`},
		{"HOCON syntax", "POST", "/submit-job?format=hocon", "env {\n  job.mode = \n", 400, "request.conf:"},
		{"one bad config of several", "POST", "/submit-jobs", "[" + batch(1) + "," + fmt.Sprintf(batchJob, 1, 2, 2, "strng") + "]", 400,
			`job[1]: config error: sink[0] Assert`},
		{"submit-jobs not an array", "POST", "/submit-jobs", batch(1), 400, "expected an array"},
		{"stop without a job id", "POST", "/stop-job", `{"isStopWithSavePoint": false}`, 400, "jobId cannot be empty."},
		{"stop with a bad job id", "POST", "/stop-job", `{"jobId": "x1"}`, 400, `jobId "x1" is not a job id`},
		{"savepoint of no job", "POST", "/stop-job", `{"jobId": 4242, "isStopWithSavePoint": true}`, 400, "The job with id '4242' not running, save point failed"},
		{"one bad stop of several", "POST", "/stop-jobs", `[{"jobId": 4242}, {}]`, 400, "job[1]: jobId cannot be empty."},
		{"job-info without an id", "GET", "/job-info/", "", 400, "The jobId must not be empty."},
		{"running-job without an id", "GET", "/running-job", "", 400, "The jobId must not be empty."},
		{"job-info of a bad id", "GET", "/job-info/abc", "", 400, `jobId "abc" is not a job id`},
		{"unknown path", "GET", "/no-such-thing", "", 404, "no such endpoint"},
		{"wrong method", "DELETE", "/job-info/1", "", 405, "DELETE is not allowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, b := call(t, c.method, c.path, c.body)
			var e struct{ Status, Message string }
			if err := json.Unmarshal(b, &e); err != nil {
				t.Fatalf("%d, not JSON: %s", code, b)
			}
			if code != c.status || e.Status != "fail" || !strings.Contains(e.Message, c.want) {
				t.Fatalf("got %d %s, want %d and a message with %q", code, b, c.status, c.want)
			}
		})
	}
}

// An unknown job answers {"jobId": "<id>"}; stopping it is no error, as in SeaTunnel.
func TestUnknownJob(t *testing.T) {
	for _, path := range []string{"/job-info/4242", "/running-job/4242"} {
		code, b := call(t, "GET", path, "")
		if code != 200 || strings.TrimSpace(string(b)) != `{"jobId":"4242"}` {
			t.Fatalf("%s: %d %s", path, code, b)
		}
	}
	code, b := call(t, "POST", "/stop-job", `{"jobId": 4242, "isStopWithSavePoint": false}`)
	if code != 200 || strings.TrimSpace(string(b)) != `{"jobId":4242}` {
		t.Fatalf("stop-job: %d %s", code, b)
	}
}

// submit-jobs takes each job's params; the jobs run to the end and the finished list shows
// them; a restore under one of the ids runs again.
func TestSubmitJobsWithParams(t *testing.T) {
	id1, id2 := jobclient.NewJobID(), jobclient.NewJobID()+1
	// the schema's field order must survive taking "params" out
	body := fmt.Sprintf(`[
  {"params": {"jobId": "%d", "jobName": "first"}, %s,
  {"params": {"jobId": %d, "jobName": "second"}, %s
]`, id1, strings.TrimPrefix(batch(3), "{"), id2, strings.TrimPrefix(batch(4), "{"))
	var out []gateway.SubmitResponse
	callJSON(t, "POST", "/submit-jobs", body, &out)
	want := []gateway.SubmitResponse{{JobID: fmt.Sprint(id1), JobName: "first"}, {JobID: fmt.Sprint(id2), JobName: "second"}}
	if len(out) != 2 || out[0] != want[0] || out[1] != want[1] {
		t.Fatalf("got %+v, want %+v", out, want)
	}
	for i, rows := range []int{3, 4} {
		v := waitState(t, out[i].JobID, "FINISHED")
		if v.JobName != want[i].JobName || v.Metrics.SourceReceivedCount != fmt.Sprint(2*rows) || v.Metrics.SinkWriteCount != fmt.Sprint(2*rows) {
			t.Fatalf("job %d: %+v", i, v)
		}
	}
	var finished []gateway.JobInfo
	callJSON(t, "GET", "/finished-jobs/finished", "", &finished)
	seen := 0
	for _, j := range finished {
		if j.JobID == out[0].JobID || j.JobID == out[1].JobID {
			seen++
		}
		if j.JobStatus != "FINISHED" {
			t.Fatalf("finished-jobs/finished lists a %s job", j.JobStatus)
		}
	}
	if seen != 2 {
		t.Fatalf("finished-jobs/finished lists %d of the 2 jobs", seen)
	}
	callJSON(t, "GET", "/finished-jobs/UNKNOWABLE", "", &finished)
	if len(finished) != 0 {
		t.Fatalf("finished-jobs/UNKNOWABLE: %+v", finished)
	}

	// a restore of a job without a savepoint or checkpoint starts it over
	var sub gateway.SubmitResponse
	callJSON(t, "POST", fmt.Sprintf("/submit-job?jobId=%d&isStartWithSavePoint=true&jobName=again", id1), batch(3), &sub)
	if sub.JobID != fmt.Sprint(id1) || sub.JobName != "again" {
		t.Fatalf("restore: %+v", sub)
	}
	v := waitState(t, sub.JobID, "FINISHED")
	if !v.IsStartWithSavePoint || v.JobName != "again" {
		t.Fatalf("restored job: %+v", v)
	}
}

// stop-job with a savepoint ends a streaming job SAVEPOINT_DONE; submitted again with
// isStartWithSavePoint it runs under the same id; stop-jobs cancels it.
func TestStopWithSavepointAndRestore(t *testing.T) {
	var sub gateway.SubmitResponse
	callJSON(t, "POST", "/submit-job?format=hocon&jobName=stream", streamingJob, &sub)
	v := waitState(t, sub.JobID, "RUNNING")
	waitTasks(t, sub.JobID)
	if v.IsStartWithSavePoint || v.ErrorMsg != nil || v.FinishTime != "" {
		t.Fatalf("running job: %+v", v)
	}
	if mode, _ := v.EnvOptions.Get("job.mode"); mode != "STREAMING" {
		t.Fatalf("envOptions %v", v.EnvOptions)
	}
	// rows read, so the savepoint holds state to restore from
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var v gateway.JobInfo
		callJSON(t, "GET", "/job-info/"+sub.JobID, "", &v)
		if n, _ := strconv.Atoi(v.Metrics.SourceReceivedCount); n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s read nothing within 60 s", sub.JobID)
		}
	}
	var stopped gateway.StopResponse
	callJSON(t, "POST", "/stop-job", fmt.Sprintf(`{"jobId": %s, "isStopWithSavePoint": true}`, sub.JobID), &stopped)
	if fmt.Sprint(stopped.JobID) != sub.JobID {
		t.Fatalf("stop-job answered %+v", stopped)
	}
	waitState(t, sub.JobID, "SAVEPOINT_DONE")

	callJSON(t, "POST", "/submit-job?format=hocon&isStartWithSavePoint=true&jobId="+sub.JobID, streamingJob, &sub)
	v = waitState(t, sub.JobID, "RUNNING")
	waitTasks(t, sub.JobID)
	if !v.IsStartWithSavePoint {
		t.Fatalf("restored job: %+v", v)
	}
	var many []gateway.StopResponse
	callJSON(t, "POST", "/stop-jobs", fmt.Sprintf(`[{"jobId": "%s", "isStopWithSavePoint": false}]`, sub.JobID), &many)
	if len(many) != 1 || fmt.Sprint(many[0].JobID) != sub.JobID {
		t.Fatalf("stop-jobs answered %+v", many)
	}
	v = waitState(t, sub.JobID, "CANCELED")
	if v.FinishTime == "" || !bytes.Equal(v.ErrorMsg, []byte("null")) {
		t.Fatalf("canceled job: finishTime %q errorMsg %s", v.FinishTime, v.ErrorMsg)
	}
}

// overview counts the runner's slots, filtered by tags, and the jobs by state.
func TestOverview(t *testing.T) {
	var o gateway.Overview
	callJSON(t, "GET", "/overview", "", &o)
	if o.TotalSlot != "8" || o.Workers != "1" || o.ProjectVersion != "test" || o.GitCommitAbbrev == "" {
		t.Fatalf("overview %+v", o)
	}
	callJSON(t, "GET", "/overview?zone=a", "", &o)
	if o.Workers != "1" {
		t.Fatalf("overview?zone=a %+v", o)
	}
	callJSON(t, "GET", "/overview?zone=b", "", &o)
	if o.Workers != "0" || o.TotalSlot != "0" || o.UnassignedSlot != "0" {
		t.Fatalf("overview?zone=b %+v", o)
	}
}

// SeaTunnel's MultiTableMetricsIT: two sources of 10 and 5 rows of 13 bytes each
// ([3, "C", 100] is a bigint, one character and an int) into two Consoles. job-info gives
// rows and bytes in all and per table, and positive rates.
func TestMultiTableMetrics(t *testing.T) {
	conf, err := os.ReadFile("../testdata/seatunnel-e2e/engine/batch_fake_multi_table_to_console.conf")
	if err != nil {
		t.Fatal(err)
	}
	var sub gateway.SubmitResponse
	callJSON(t, "POST", "/submit-job?format=hocon&jobName=batch_fake_multi_table_to_console", string(conf), &sub)
	v := waitState(t, sub.JobID, "FINISHED")
	const size = 13
	m := v.Metrics
	eq := []struct{ name, got, want string }{
		{"SourceReceivedCount", m.SourceReceivedCount, "15"},
		{"SinkWriteCount", m.SinkWriteCount, "15"},
		{"TableSourceReceivedCount fake.table1", m.TableSourceReceivedCount["fake.table1"], "10"},
		{"TableSourceReceivedCount fake.public.table2", m.TableSourceReceivedCount["fake.public.table2"], "5"},
		{"TableSinkWriteCount fake.table1", m.TableSinkWriteCount["fake.table1"], "10"},
		{"TableSinkWriteCount fake.public.table2", m.TableSinkWriteCount["fake.public.table2"], "5"},
		{"SourceReceivedBytes", m.SourceReceivedBytes, fmt.Sprint(size * 15)},
		{"SinkWriteBytes", m.SinkWriteBytes, fmt.Sprint(size * 15)},
		{"TableSourceReceivedBytes fake.table1", m.TableSourceReceivedBytes["fake.table1"], fmt.Sprint(size * 10)},
		{"TableSourceReceivedBytes fake.public.table2", m.TableSourceReceivedBytes["fake.public.table2"], fmt.Sprint(size * 5)},
		{"TableSinkWriteBytes fake.table1", m.TableSinkWriteBytes["fake.table1"], fmt.Sprint(size * 10)},
		{"TableSinkWriteBytes fake.public.table2", m.TableSinkWriteBytes["fake.public.table2"], fmt.Sprint(size * 5)},
	}
	for _, c := range eq {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	positive := map[string]string{
		"SourceReceivedQPS": m.SourceReceivedQPS, "SinkWriteQPS": m.SinkWriteQPS,
		"SourceReceivedBytesPerSeconds": m.SourceReceivedBytesPerSeconds, "SinkWriteBytesPerSeconds": m.SinkWriteBytesPerSeconds,
	}
	for _, tbl := range []string{"fake.table1", "fake.public.table2"} {
		positive["TableSourceReceivedQPS "+tbl] = m.TableSourceReceivedQPS[tbl]
		positive["TableSinkWriteQPS "+tbl] = m.TableSinkWriteQPS[tbl]
		positive["TableSourceReceivedBytesPerSeconds "+tbl] = m.TableSourceReceivedBytesPerSeconds[tbl]
		positive["TableSinkWriteBytesPerSeconds "+tbl] = m.TableSinkWriteBytesPerSeconds[tbl]
	}
	for name, s := range positive {
		if f, err := strconv.ParseFloat(s, 64); err != nil || f <= 0 {
			t.Errorf("%s = %q, want a positive number", name, s)
		}
	}
}
