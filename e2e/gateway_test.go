package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gwJob is a job as the gateway's job-info, running-jobs and finished-jobs show it.
type gwJob struct {
	JobID                string            `json:"jobId"`
	JobName              string            `json:"jobName"`
	JobStatus            string            `json:"jobStatus"`
	EnvOptions           map[string]string `json:"envOptions"`
	CreateTime           string            `json:"createTime"`
	FinishTime           string            `json:"finishTime"`
	ErrorMsg             *string           `json:"errorMsg"`
	PluginJarsUrls       []any             `json:"pluginJarsUrls"`
	IsStartWithSavePoint bool              `json:"isStartWithSavePoint"`
	JobDag               struct {
		JobID         string `json:"jobId"`
		PipelineEdges map[string][]struct {
			InputVertexID  string `json:"inputVertexId"`
			TargetVertexID string `json:"targetVertexId"`
		} `json:"pipelineEdges"`
		EnvOptions    map[string]string `json:"envOptions"`
		VertexInfoMap []struct {
			VertexID   int      `json:"vertexId"`
			Type       string   `json:"type"`
			VertexName string   `json:"vertexName"`
			TablePaths []string `json:"tablePaths"`
		} `json:"vertexInfoMap"`
	} `json:"jobDag"`
	Metrics struct {
		SourceReceivedCount      string            `json:"SourceReceivedCount"`
		SinkWriteCount           string            `json:"SinkWriteCount"`
		SourceReceivedQPS        string            `json:"SourceReceivedQPS"`
		SinkWriteQPS             string            `json:"SinkWriteQPS"`
		TableSourceReceivedCount map[string]string `json:"TableSourceReceivedCount"`
		TableSinkWriteCount      map[string]string `json:"TableSinkWriteCount"`
	} `json:"metrics"`
}

// gwCall sends a request to the gateway and returns the status and body.
func gwCall(t *testing.T, method, url, body string) (int, []byte) {
	t.Helper()
	code, _, b := secCall(t, http.DefaultClient, method, url, "", body)
	return code, b
}

// gwGet sends a request that must answer 200 and decodes the answer.
func gwGet(t *testing.T, method, url, body string, v any) {
	t.Helper()
	code, b := gwCall(t, method, url, body)
	if code != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, url, code, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s %s: %v\n%s", method, url, err, b)
	}
}

// gwWait polls job-info until the job is in state; another end fails the test.
func gwWait(t *testing.T, gw, id, state string, until func(gwJob) bool) gwJob {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var j gwJob
		gwGet(t, "GET", gw+"/job-info/"+id, "", &j)
		if j.JobStatus == state && (until == nil || until(j)) {
			return j
		}
		switch j.JobStatus {
		case "FINISHED", "FAILED", "CANCELED", "SAVEPOINT_DONE":
			if j.JobStatus != state {
				msg := ""
				if j.ErrorMsg != nil {
					msg = *j.ErrorMsg
				}
				t.Fatalf("job %s ended %s, want %s: %s", id, j.JobStatus, state, msg)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s is %s, not %s within 2 minutes", id, j.JobStatus, state)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func gwHas(jobs []gwJob, id string) bool {
	for _, j := range jobs {
		if j.JobID == id {
			return true
		}
	}
	return false
}

var seaTunnelTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$`)

// TestGateway drives `strait dev` through its HTTP gateway as a SeaTunnel REST client
// would: submit, watch, stop, list.
func TestGateway(t *testing.T) {
	port := freePort(t)
	gwPort := freePort(t)
	gw := fmt.Sprintf("http://127.0.0.1:%d", gwPort)
	dev := start(t, "dev", "dev", "--headless", "--port", strconv.Itoa(port), "--gateway", fmt.Sprintf("127.0.0.1:%d", gwPort),
		"--slots", "6", "--checkpoint-dir", t.TempDir())
	eventually(t, 60*time.Second, "the gateway answers with the runner registered", func() bool {
		resp, err := http.Get(gw + "/overview")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var o map[string]string
		return resp.StatusCode == 200 && json.NewDecoder(resp.Body).Decode(&o) == nil && o["workers"] == "1"
	})
	if !strings.Contains(dev.output(), "Gateway: http://127.0.0.1:"+strconv.Itoa(gwPort)) {
		t.Fatalf("dev does not name the gateway:\n%s", dev.output())
	}

	var batchID string
	t.Run("a batch job runs to the end with its counts", func(t *testing.T) {
		body := `{
  "env": {"job.mode": "BATCH", "parallelism": 2},
  "source": [{"plugin_name": "FakeSource", "plugin_output": "fake", "row.num": 7,
              "schema": {"fields": {"id": "bigint", "name": "string"}}}],
  "transform": [],
  "sink": [{"plugin_name": "Assert", "plugin_input": ["fake"],
            "rules": {"row_rules": [{"rule_type": "MIN_ROW", "rule_value": 14}, {"rule_type": "MAX_ROW", "rule_value": 14}]}}]
}`
		var sub struct{ JobID, JobName string }
		gwGet(t, "POST", gw+"/submit-job?jobName=gateway_batch", body, &sub)
		if _, err := strconv.ParseInt(sub.JobID, 10, 64); err != nil || sub.JobName != "gateway_batch" {
			t.Fatalf("submit-job answered %+v", sub)
		}
		batchID = sub.JobID
		j := gwWait(t, gw, sub.JobID, "FINISHED", nil)
		m := j.Metrics
		if m.SourceReceivedCount != "14" || m.SinkWriteCount != "14" || m.TableSourceReceivedCount["fake"] != "14" || m.TableSinkWriteCount["fake"] != "14" {
			t.Fatalf("metrics %+v", m)
		}
		if j.JobName != "gateway_batch" || j.ErrorMsg != nil || !seaTunnelTime.MatchString(j.CreateTime) || !seaTunnelTime.MatchString(j.FinishTime) {
			t.Fatalf("job %+v", j)
		}
		d := j.JobDag
		if d.JobID != sub.JobID || len(d.VertexInfoMap) != 2 || d.EnvOptions["job.mode"] != "BATCH" || j.EnvOptions["parallelism"] != "2" {
			t.Fatalf("jobDag %+v", d)
		}
		if v := d.VertexInfoMap[0]; v.VertexID != 1 || v.Type != "source" || v.VertexName != "pipeline-1 [Source[0]-FakeSource]" || len(v.TablePaths) != 1 || v.TablePaths[0] != "fake" {
			t.Fatalf("source vertex %+v", v)
		}
		if v := d.VertexInfoMap[1]; v.VertexID != 2 || v.Type != "sink" || v.VertexName != "pipeline-1 [Sink[0]-Assert]" {
			t.Fatalf("sink vertex %+v", v)
		}
		if e := d.PipelineEdges["1"]; len(e) != 1 || e[0].InputVertexID != "1" || e[0].TargetVertexID != "2" {
			t.Fatalf("pipelineEdges %+v", d.PipelineEdges)
		}
	})

	t.Run("a bad config is refused with the place named", func(t *testing.T) {
		cases := []struct{ name, query, body, want string }{
			{"bad field type", "", `{"source": [{"plugin_name": "FakeSource", "schema": {"fields": {"id": "bigint"}}}],
  "sink": [{"plugin_name": "Assert", "rules": {"field_rules": [{"field_name": "id", "field_type": "strng"}]}}]}`,
				`sink[0] Assert: rules.field_rules[0].field_type: unknown type "strng"`},
			{"HOCON syntax", "?format=hocon", "env {\n  job.mode = \n", "request.conf:"},
			{"JSON syntax", "", "{\"env\": {\"job.mode\": \"BATCH\",}}", "request.json:1:"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				id := strconv.FormatInt(time.Now().UnixNano()/1000, 10)
				code, b := gwCall(t, "POST", gw+"/submit-job?jobId="+id+strings.Replace(c.query, "?", "&", 1), c.body)
				var e struct{ Status, Message string }
				if code != 400 || json.Unmarshal(b, &e) != nil || e.Status != "fail" || !strings.Contains(e.Message, c.want) {
					t.Fatalf("got %d %s, want 400 naming %q", code, b, c.want)
				}
				// nothing was submitted: the id is unknown
				code, b = gwCall(t, "GET", gw+"/job-info/"+id, "")
				if code != 200 || strings.TrimSpace(string(b)) != `{"jobId":"`+id+`"}` {
					t.Fatalf("job-info of the refused job: %d %s", code, b)
				}
			})
		}
	})

	t.Run("stop-job ends a streaming job CANCELED and the lists follow", func(t *testing.T) {
		hocon := `
env { job.mode = STREAMING, parallelism = 1, checkpoint.interval = 1000 }
source { FakeSource { plugin_output = "fake", row.num = 10, schema = { fields { id = bigint } } } }
sink { Console { plugin_input = "fake", log.print.data = false } }`
		var sub struct{ JobID, JobName string }
		gwGet(t, "POST", gw+"/submit-job?format=hocon&jobName=gateway_stream", hocon, &sub)
		// RUNNING with its rows read (counts come with the checkpoints): the tasks run
		gwWait(t, gw, sub.JobID, "RUNNING", func(j gwJob) bool { return j.Metrics.SourceReceivedCount == "10" })
		var running []gwJob
		gwGet(t, "GET", gw+"/running-jobs", "", &running)
		if !gwHas(running, sub.JobID) || gwHas(running, batchID) {
			t.Fatalf("running-jobs %+v", running)
		}
		id, _ := strconv.ParseInt(sub.JobID, 10, 64)
		var stopped struct{ JobID int64 }
		gwGet(t, "POST", gw+"/stop-job", fmt.Sprintf(`{"jobId": %d, "isStopWithSavePoint": false}`, id), &stopped)
		if stopped.JobID != id {
			t.Fatalf("stop-job answered %+v", stopped)
		}
		j := gwWait(t, gw, sub.JobID, "CANCELED", nil)
		if j.FinishTime == "" || j.Metrics.SourceReceivedCount != "10" {
			t.Fatalf("canceled job %+v", j)
		}
		gwGet(t, "GET", gw+"/running-jobs", "", &running)
		if gwHas(running, sub.JobID) {
			t.Fatal("running-jobs still lists the canceled job")
		}
		for _, c := range []struct {
			state             string
			stream, batchList bool
		}{{"", true, true}, {"/CANCELED", true, false}, {"/FINISHED", false, true}, {"/FAILED", false, false}} {
			var list []gwJob
			gwGet(t, "GET", gw+"/finished-jobs"+c.state, "", &list)
			if gwHas(list, sub.JobID) != c.stream || gwHas(list, batchID) != c.batchList {
				t.Fatalf("finished-jobs%s lists the streaming job %v and the batch job %v", c.state, gwHas(list, sub.JobID), gwHas(list, batchID))
			}
		}
		var o map[string]string
		eventually(t, 30*time.Second, "the overview counts the jobs and the freed slots", func() bool {
			gwGet(t, "GET", gw+"/overview", "", &o)
			return o["totalSlot"] == "6" && o["unassignedSlot"] == "6" && o["workers"] == "1" &&
				o["runningJobs"] == "0" && o["finishedJobs"] == "1" && o["cancelledJobs"] == "1" && o["failedJobs"] == "0"
		})
	})
}
