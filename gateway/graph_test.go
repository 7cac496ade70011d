package gateway_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/gateway"
)

// A streaming job whose sink is hashed by key: /job-graph shows its vertices, the fused
// source and transform, the hash exchange into the sink, live numbers read from the
// runner's /metrics that rise, and its checkpoints completing; /job-config its config
// masked; /runners the runner and the job's slots.
func TestJobGraph(t *testing.T) {
	id := submitHOCON(t, `
env { job.mode = STREAMING, parallelism = 2, checkpoint.interval = 500 }
source { FakeSource { plugin_output = "fake", row.num = 100000000, split.num = 100, split.read-interval = 1,
  schema = { fields { id = bigint, name = string } } } }
transform { Sql { plugin_input = "fake", plugin_output = "shaped", query = "select id, name from fake" } }
sink { Console { plugin_input = "shaped", partition_by = ["id"], log.print.data = false } }`)
	t.Cleanup(func() { call(t, "POST", "/stop-job", fmt.Sprintf(`{"jobId": %s}`, id)) })
	waitState(t, id, "RUNNING")
	waitTasks(t, id)

	var g gateway.JobGraph
	var first int64
	deadline := time.Now().Add(60 * time.Second)
	for {
		callJSON(t, "GET", "/job-graph/"+id, "", &g)
		if len(g.Pipelines) == 1 && len(g.Pipelines[0].Groups) == 2 {
			sink := g.Pipelines[0].Groups[1]
			if first == 0 {
				first = sink.RowsWritten
			}
			if g.Live && sink.RowsWritten > first && sink.RowsWrittenPerSec > 0 && g.Pipelines[0].Checkpoints.Completed > 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no live, rising numbers and completed checkpoints within 60 s: %+v", g)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if g.JobID != id || g.JobStatus != "RUNNING" || g.Mode != "STREAMING" {
		t.Errorf("job %s %s %s", g.JobID, g.JobStatus, g.Mode)
	}
	var kinds []string
	for _, v := range g.Vertices {
		kinds = append(kinds, fmt.Sprintf("%d:%s:%s:p%d:g%d", v.ID, v.Kind, v.Plugin, v.Pipeline, v.Group))
	}
	if got := strings.Join(kinds, " "); got != "1:source:FakeSource:p1:g1 2:transform:Sql:p1:g1 3:sink:Console:p1:g2" {
		t.Errorf("vertices %s", got)
	}
	p := g.Pipelines[0]
	src, sink := p.Groups[0], p.Groups[1]
	if len(src.Vertices) != 2 || src.Parallelism != 2 || !src.Source || src.Sink || len(src.Tasks) != 2 || src.Runners[0] != "gw" {
		t.Errorf("source group %+v", src)
	}
	if !sink.Sink || sink.RowsWritten == 0 || sink.BytesWritten == 0 || src.RowsRead == 0 || src.BytesReadPerSec <= 0 {
		t.Errorf("numbers: source %+v sink %+v", src.GroupNumbers, sink.GroupNumbers)
	}
	if src.Busy+src.BackPressured <= 0 || src.Busy > 1 || src.BackPressured > 1 {
		t.Errorf("source busy %v backpressured %v", src.Busy, src.BackPressured)
	}
	if len(p.Edges) != 1 || p.Edges[0].Partitioning != "hash" || strings.Join(p.Edges[0].KeyFields, ",") != "id" || p.Edges[0].FromVertex != 2 || p.Edges[0].ToVertex != 3 {
		t.Errorf("edges %+v", p.Edges)
	}
	cps := p.Checkpoints.Recent
	if len(cps) == 0 || cps[0].ID < cps[len(cps)-1].ID {
		t.Fatalf("checkpoints not newest first: %+v", cps)
	}
	var done *gateway.GraphCheckpoint
	for i := range cps {
		if cps[i].State == "COMPLETED" {
			done = &cps[i]
			break
		}
	}
	if done == nil || done.Bytes <= 0 || done.Acks != 4 || done.Triggered.IsZero() {
		t.Errorf("a completed checkpoint: %+v", done)
	}

	var cfg gateway.JobConfig
	callJSON(t, "GET", "/job-config/"+id, "", &cfg)
	if cfg.Format != "hocon" || !strings.Contains(cfg.Config, "partition_by") {
		t.Errorf("config %+v", cfg)
	}
	var runners []gateway.RunnerView
	callJSON(t, "GET", "/runners", "", &runners)
	found := false
	for _, r := range runners {
		if r.ID != "gw" {
			continue
		}
		found = true
		if r.State != "ALIVE" || r.Slots != 8 || r.MetricsAddress == "" || r.Tags["zone"] != "a" {
			t.Errorf("runner %+v", r)
		}
		held := 0
		for _, j := range r.Jobs {
			if j.JobID == id {
				held += j.Slots
			}
		}
		if held != 4 {
			t.Errorf("the job holds %d slots of the runner, want 4: %+v", held, r.Jobs)
		}
	}
	if !found {
		t.Errorf("no runner gw in %+v", runners)
	}
	if code, _ := call(t, "GET", "/job-graph/999999999", ""); code != http.StatusNotFound {
		t.Errorf("an unknown job's graph: %d", code)
	}
	if code, _ := call(t, "GET", "/job-graph/x", ""); code != http.StatusBadRequest {
		t.Errorf("a bad job id: %d", code)
	}
}

// submitHOCON submits a HOCON job config and returns its id.
func submitHOCON(t *testing.T, conf string) string {
	t.Helper()
	var sub gateway.SubmitResponse
	callJSON(t, "POST", "/submit-job?format=hocon", conf, &sub)
	return sub.JobID
}
