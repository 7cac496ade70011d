package metrics

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/internal/promtest"
)

func gather(t *testing.T, cs ...prometheus.Collector) map[string][]*dto.Metric {
	t.Helper()
	return promtest.Gather(t, cs...)
}

func labels(m *dto.Metric) string {
	var ls []string
	for _, l := range m.GetLabel() {
		ls = append(ls, l.GetName()+"="+l.GetValue())
	}
	sort.Strings(ls)
	return strings.Join(ls, ",")
}

func TestCheckpointsThroughTheSDKHandler(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := NewTemporalHandler(reg)
	at := time.Now().Add(-30 * time.Second).Truncate(time.Millisecond)
	// the SDK's own tags come along with an activity's handler; Strait's series keep theirs
	a := h.WithTags(map[string]string{"namespace": "default", "activity_type": "PersistCheckpoint", "job": "5", "pipeline": "1"})
	a.Counter(CheckpointsCompleted).Inc(1)
	a.Counter(CheckpointsCompleted).Inc(1)
	a.Gauge(CheckpointLastCompleted).Update(float64(at.UnixMilli()) / 1000)
	a.Counter("strait_unknown_total").Inc(1)
	a.Counter("request").Inc(1)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		got[f.GetName()] = f
	}
	tests := []struct {
		family, labels string
		value          func(v float64) bool
	}{
		{CheckpointsCompleted, "job=5,pipeline=1", func(v float64) bool { return v == 2 }},
		{CheckpointLastCompleted, "job=5,pipeline=1", func(v float64) bool { return v == float64(at.UnixMilli())/1000 }},
		{CheckpointAge, "job=5,pipeline=1", func(v float64) bool { return v >= 30 && v < 90 }},
		{"temporal_request", "activity_type=PersistCheckpoint,job=5,namespace=default,pipeline=1", func(v float64) bool { return v == 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.family, func(t *testing.T) {
			f := got[tt.family]
			if f == nil || len(f.GetMetric()) != 1 {
				t.Fatalf("family %s: %v", tt.family, f)
			}
			m := f.GetMetric()[0]
			if labels(m) != tt.labels {
				t.Fatalf("labels %s, want %s", labels(m), tt.labels)
			}
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			if !tt.value(v) {
				t.Fatalf("value %v", v)
			}
		})
	}
	if got["strait_unknown_total"] != nil || got["temporal_strait_unknown_total"] != nil {
		t.Fatal("a Strait name the handler does not know was exported")
	}
}

func TestCheckpointSeriesAreDroppedWhenThePipelineStops(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		completions []time.Duration // after t0
		scrapeAt    time.Duration
		kept        bool
	}{
		{"just completed", []time.Duration{0}, time.Minute, true},
		{"one completion, within the retention", []time.Duration{0}, CheckpointRetention - time.Second, true},
		{"one completion, past the retention", []time.Duration{0}, CheckpointRetention + time.Second, false},
		{"hourly checkpoints keep ten intervals", []time.Duration{0, time.Hour}, 10 * time.Hour, true},
		{"hourly checkpoints, eleven intervals late", []time.Duration{0, time.Hour}, 12 * time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCheckpoints()
			for _, d := range tt.completions {
				c.count("1", "1", 1)
				c.setLast("1", "1", t0.Add(d))
			}
			c.now = func() time.Time { return t0.Add(tt.scrapeAt) }
			got := gather(t, c)
			if kept := len(got[CheckpointsCompleted]) == 1; kept != tt.kept {
				t.Fatalf("kept %v, want %v", kept, tt.kept)
			}
			if tt.kept && got[CheckpointsCompleted][0].GetCounter().GetValue() != float64(len(tt.completions)) {
				t.Fatalf("completed %v", got[CheckpointsCompleted][0])
			}
		})
	}
}

// countingClient answers visibility counts from a table of queries.
type countingClient struct {
	sdkclient.Client
	counts  map[string]int64
	calls   int
	failing bool
}

func (c *countingClient) CountWorkflow(_ context.Context, r *workflowservice.CountWorkflowExecutionsRequest) (*workflowservice.CountWorkflowExecutionsResponse, error) {
	c.calls++
	if c.failing {
		return nil, errors.New("visibility unavailable")
	}
	var n int64
	for frag, v := range c.counts {
		if strings.Contains(r.GetQuery(), frag) {
			n += v
		}
	}
	return &workflowservice.CountWorkflowExecutionsResponse{Count: n}, nil
}

func (c *countingClient) QueryWorkflow(context.Context, string, string, string, ...interface{}) (converter.EncodedValue, error) {
	p, err := converter.GetDefaultDataConverter().ToPayloads(contract.ClusterStatus{Runners: []contract.RunnerView{
		{State: contract.RunnerStateAlive}, {State: contract.RunnerStateAlive}, {State: contract.RunnerStateLost}}})
	if err != nil {
		return nil, err
	}
	return encoded{p}, nil
}

type encoded struct{ p *commonpb.Payloads }

func (e encoded) HasValue() bool { return true }
func (e encoded) Get(v any) error {
	return converter.GetDefaultDataConverter().FromPayloads(e.p, v)
}

func TestJobsByState(t *testing.T) {
	cc := &countingClient{counts: map[string]int64{
		"ExecutionStatus = 'Running' AND StraitJobState = 'RUNNING'":                                                    3,
		"ExecutionStatus != 'Running' AND StraitJobState = 'FINISHED'":                                                  5,
		"ExecutionStatus != 'Running' AND StraitJobState = 'FAILED'":                                                    1,
		"NOT IN ('FINISHED', 'FAILED', 'CANCELED', 'SAVEPOINT_DONE') AND ExecutionStatus IN ('Terminated', 'Canceled')": 2,
	}}
	j := NewJobs(cc, "default", nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j.now = func() time.Time { return now }
	want := map[string]float64{"RUNNING": 3, "FINISHED": 5, "FAILED": 1, "CANCELED": 2, "CREATED": 0, "CANCELING": 0}
	check := func() {
		t.Helper()
		got := gather(t, j)[JobsName]
		if len(got) != 12 {
			t.Fatalf("%d states", len(got))
		}
		for _, m := range got {
			state := m.GetLabel()[0].GetValue()
			if v, ok := want[state]; ok && m.GetGauge().GetValue() != v {
				t.Fatalf("%s: %v jobs, want %v", state, m.GetGauge().GetValue(), v)
			}
		}
	}
	check()
	runners := map[string]float64{}
	for _, m := range gather(t, j)[RunnersName] {
		runners[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
	}
	if runners["ALIVE"] != 2 || runners["LOST"] != 1 {
		t.Fatalf("runners %v, want 2 ALIVE and 1 LOST", runners)
	}
	calls := cc.calls
	// within the cache the counts are reused; after it, counted again; a failing count
	// exports the last ones
	now = now.Add(JobsCacheFor / 2)
	check()
	if cc.calls != calls {
		t.Fatalf("counted again within the cache: %d queries, then %d", calls, cc.calls)
	}
	now = now.Add(JobsCacheFor)
	cc.failing = true
	check()
	if cc.calls == calls {
		t.Fatal("not counted again after the cache")
	}
}
