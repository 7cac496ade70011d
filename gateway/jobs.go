package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/jobclient"
	"github.com/strait-dev/strait/planner"
	"github.com/strait-dev/strait/secret"
)

// timeLayout is SeaTunnel's yyyy-MM-dd HH:mm:ss, in the gateway's local time.
const timeLayout = "2006-01-02 15:04:05"

// JobInfo is a job as SeaTunnel's job-info, running-jobs and finished-jobs show it.
// finishTime and errorMsg are there once the job has ended (errorMsg null without an
// error).
type JobInfo struct {
	JobID                string          `json:"jobId"`
	JobName              string          `json:"jobName"`
	JobStatus            string          `json:"jobStatus"`
	EnvOptions           Ordered         `json:"envOptions"`
	CreateTime           string          `json:"createTime"`
	FinishTime           string          `json:"finishTime,omitempty"`
	ErrorMsg             json.RawMessage `json:"errorMsg,omitempty"`
	JobDag               JobDag          `json:"jobDag"`
	PluginJarsUrls       []string        `json:"pluginJarsUrls"`
	IsStartWithSavePoint bool            `json:"isStartWithSavePoint"`
	Metrics              Metrics         `json:"metrics"`
}

// JobDag is the job's plan as SeaTunnel's jobDag shows it: vertices, and per pipeline the
// edges between them.
type JobDag struct {
	JobID         string               `json:"jobId"`
	PipelineEdges map[string][]DagEdge `json:"pipelineEdges"`
	EnvOptions    Ordered              `json:"envOptions"`
	VertexInfoMap []VertexInfo         `json:"vertexInfoMap"`
}

// DagEdge connects two vertices.
type DagEdge struct {
	InputVertexID  string `json:"inputVertexId"`
	TargetVertexID string `json:"targetVertexId"`
}

// VertexInfo is one plugin of the plan.
type VertexInfo struct {
	VertexID   int      `json:"vertexId"`
	Type       string   `json:"type"`
	VertexName string   `json:"vertexName"`
	TablePaths []string `json:"tablePaths"`
}

// Metrics are SeaTunnel's job metrics, values as strings as SeaTunnel renders them. Rates
// are averages over the job's run time; Strait counts rows, not bytes, so the byte metrics
// stay 0. Per-table counts are filled where a task's rows belong to one table.
type Metrics struct {
	SourceReceivedCount                string            `json:"SourceReceivedCount"`
	SourceReceivedQPS                  string            `json:"SourceReceivedQPS"`
	SourceReceivedBytes                string            `json:"SourceReceivedBytes"`
	SourceReceivedBytesPerSeconds      string            `json:"SourceReceivedBytesPerSeconds"`
	SinkWriteCount                     string            `json:"SinkWriteCount"`
	SinkWriteQPS                       string            `json:"SinkWriteQPS"`
	SinkWriteBytes                     string            `json:"SinkWriteBytes"`
	SinkWriteBytesPerSeconds           string            `json:"SinkWriteBytesPerSeconds"`
	TableSourceReceivedCount           map[string]string `json:"TableSourceReceivedCount"`
	TableSourceReceivedBytes           map[string]string `json:"TableSourceReceivedBytes"`
	TableSourceReceivedBytesPerSeconds map[string]string `json:"TableSourceReceivedBytesPerSeconds"`
	TableSourceReceivedQPS             map[string]string `json:"TableSourceReceivedQPS"`
	TableSinkWriteCount                map[string]string `json:"TableSinkWriteCount"`
	TableSinkWriteQPS                  map[string]string `json:"TableSinkWriteQPS"`
	TableSinkWriteBytes                map[string]string `json:"TableSinkWriteBytes"`
	TableSinkWriteBytesPerSeconds      map[string]string `json:"TableSinkWriteBytesPerSeconds"`
	// SourceFailedCount is Strait's own (SeaTunnel has no such metric): the records the
	// sources could not read and skipped (Kafka's format_error_handle_way = skip).
	SourceFailedCount string `json:"SourceFailedCount"`
}

// Ordered is a JSON object that keeps its keys in order.
type Ordered []KV

// KV is one key of an Ordered object.
type KV struct {
	Key, Value string
}

// MarshalJSON writes the object in order.
func (o Ordered) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, kv := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, mustJSON(kv.Key)...)
		b = append(b, ':')
		b = append(b, mustJSON(kv.Value)...)
	}
	return append(b, '}'), nil
}

// Get returns a key's value.
func (o Ordered) Get(key string) (string, bool) {
	for _, kv := range o {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}

// UnmarshalJSON reads an object of scalars (key order is not kept).
func (o *Ordered) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	*o = (*o)[:0]
	for _, k := range keys {
		*o = append(*o, KV{Key: k, Value: fmt.Sprint(m[k])})
	}
	return nil
}

// execution is one run of a job's workflow, as Temporal's visibility describes it.
type execution struct {
	jobID   int64
	wid     string
	runID   string
	name    string
	state   contract.JobState // the search attribute, or derived from how the run closed
	start   time.Time
	close   time.Time
	running bool
}

func executionOf(e *workflowpb.WorkflowExecutionInfo) execution {
	sum := jobclient.SummaryOf(e)
	return execution{
		jobID:   sum.JobID,
		wid:     sum.WorkflowID,
		runID:   e.GetExecution().GetRunId(),
		name:    sum.Name,
		state:   sum.State,
		start:   sum.Started,
		close:   sum.Closed,
		running: e.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING,
	}
}

// executions lists the job workflows, the newest run of each job id; runningOnly keeps to
// open runs (an open run is always its job's newest).
func (g *gateway) executions(ctx context.Context, runningOnly bool) ([]execution, error) {
	q := fmt.Sprintf("WorkflowType = '%s'", contract.JobWorkflowName)
	if runningOnly {
		q += " AND ExecutionStatus = 'Running'"
	}
	newest := map[int64]execution{}
	var token []byte
	for {
		resp, err := g.c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: g.namespace, Query: q, NextPageToken: token})
		if err != nil {
			return nil, fmt.Errorf("list jobs: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			x := executionOf(e)
			if old, ok := newest[x.jobID]; !ok || x.start.After(old.start) {
				newest[x.jobID] = x
			}
		}
		token = resp.GetNextPageToken()
		if len(token) == 0 {
			break
		}
	}
	out := make([]execution, 0, len(newest))
	for _, x := range newest {
		out = append(out, x)
	}
	return out, nil
}

// jobMeta is what a job's history says of it once: its input and the plan it runs.
type jobMeta struct {
	input contract.JobInput
	plan  *contract.Plan // nil until planned, or when planning failed
	env   Ordered
}

const cacheLimit = 4096

// cachePut stores v in a cache of at most cacheLimit entries, starting it afresh when full
// (what it holds can always be read again from Temporal).
func cachePut[V any](m map[string]V, k string, v V) {
	if len(m) >= cacheLimit {
		clear(m)
	}
	m[k] = v
}

// meta reads a run's input (its first history event) and the PlanJob activity's result.
// It is kept once the plan is known or the run has closed.
func (g *gateway) meta(ctx context.Context, x execution) (*jobMeta, error) {
	g.mu.Lock()
	m, ok := g.metas[x.runID]
	g.mu.Unlock()
	if ok {
		return m, nil
	}
	m = &jobMeta{}
	dc := converter.GetDefaultDataConverter()
	it := g.c.GetWorkflowHistory(ctx, x.wid, x.runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	planScheduled := int64(-1)
	// the plan is among the first events; a long history is not read to its end
	for n := 0; n < 200 && it.HasNext() && m.plan == nil; n++ {
		ev, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("history of job %d: %w", x.jobID, err)
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
			if in := ev.GetWorkflowExecutionStartedEventAttributes().GetInput(); in != nil {
				if err := dc.FromPayloads(in, &m.input); err != nil {
					g.log.Warn("gateway: job input not readable", "job", x.jobID, "error", err)
				}
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			if ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == contract.PlanJobActivity {
				planScheduled = ev.GetEventId()
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			a := ev.GetActivityTaskCompletedEventAttributes()
			if a.GetScheduledEventId() == planScheduled {
				var plan contract.Plan
				if err := dc.FromPayloads(a.GetResult(), &plan); err != nil {
					g.log.Warn("gateway: job plan not readable", "job", x.jobID, "error", err)
				} else {
					m.plan = &plan
				}
			}
		}
	}
	m.env = envOptions(m.input)
	if m.plan != nil || !x.running {
		g.mu.Lock()
		cachePut(g.metas, x.runID, m)
		g.mu.Unlock()
	}
	return m, nil
}

// envOptions is the config's env block, flattened to dotted keys with string values, as
// SeaTunnel shows it, its secrets masked (a job's input holds its config masked already,
// unless it was started by hand).
func envOptions(in contract.JobInput) Ordered {
	out := Ordered{}
	if in.Config == "" {
		return out
	}
	text, vars := secret.MaskConfig(in.Config, in.File, in.Vars)
	root, err := hocon.Parse([]byte(text), hocon.Options{File: in.File, Vars: vars,
		ListSections: []string{string(planner.SourceSection), string(planner.TransformSection), string(planner.SinkSection)}})
	if err != nil {
		return out
	}
	if env := root.Get("env"); env != nil && env.Kind == hocon.Object {
		_ = env.Leaves(func(k string, v *hocon.Value) error {
			switch v.Kind {
			case hocon.Array:
				b, _ := v.MarshalJSON()
				out = append(out, KV{k, string(b)})
			case hocon.Bool:
				out = append(out, KV{k, strconv.FormatBool(v.Bool)})
			case hocon.Null:
				out = append(out, KV{k, ""})
			default:
				out = append(out, KV{k, v.Str})
			}
			return nil
		})
	}
	return out
}

// status is a run's status: the workflow's own for a running job, its result for a closed
// run. When Temporal cannot answer the query (no worker), the search attributes stand in.
func (g *gateway) status(ctx context.Context, x execution) (*contract.JobStatus, bool) {
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var st *contract.JobStatus
	var err error
	if x.running {
		st, err = jobclient.Status(qctx, g.c, x.jobID)
	} else {
		st, err = jobclient.Wait(qctx, g.c.GetWorkflow(qctx, x.wid, x.runID))
	}
	answered := err == nil && st != nil
	if !answered {
		g.log.Warn("gateway: job status not available, showing its search attributes", "job", x.jobID, "error", err)
		st = &contract.JobStatus{}
	}
	if st.JobID == 0 {
		st.JobID = x.jobID
	}
	if st.Name == "" {
		st.Name = x.name
	}
	if st.State == "" {
		st.State = x.state
	}
	if st.Started.IsZero() {
		st.Started = x.start
	}
	if st.Finished.IsZero() && !x.running {
		st.Finished = x.close
	}
	return st, answered
}

// view is a run as SeaTunnel shows a job.
func (g *gateway) view(ctx context.Context, x execution) (*JobInfo, error) {
	if !x.running {
		g.mu.Lock()
		v, ok := g.finished[x.runID]
		g.mu.Unlock()
		if ok {
			return v, nil
		}
	}
	m, err := g.meta(ctx, x)
	if err != nil {
		return nil, err
	}
	st, answered := g.status(ctx, x)
	v := build(x, m, st, time.Now())
	if !x.running && answered {
		g.mu.Lock()
		cachePut(g.finished, x.runID, v)
		g.mu.Unlock()
	}
	return v, nil
}

// build assembles a job's view from its run, input and plan, and status.
func build(x execution, m *jobMeta, st *contract.JobStatus, now time.Time) *JobInfo {
	id := strconv.FormatInt(x.jobID, 10)
	created := m.input.Submitted
	if created.IsZero() {
		created = x.start
	}
	v := &JobInfo{
		JobID:                id,
		JobName:              st.Name,
		JobStatus:            string(st.State),
		EnvOptions:           m.env,
		CreateTime:           created.Local().Format(timeLayout),
		JobDag:               dagOf(id, m),
		PluginJarsUrls:       []string{},
		IsStartWithSavePoint: m.input.Restore,
	}
	end := now
	if st.State.Terminal() {
		if !st.Finished.IsZero() {
			end = st.Finished
			v.FinishTime = st.Finished.Local().Format(timeLayout)
		}
		v.ErrorMsg = json.RawMessage("null")
		if st.Error != "" {
			v.ErrorMsg = mustJSON(st.Error)
		}
	}
	v.Metrics = metricsOf(st, m.plan, end.Sub(st.Started))
	return v
}

func dagOf(id string, m *jobMeta) JobDag {
	d := JobDag{JobID: id, PipelineEdges: map[string][]DagEdge{}, EnvOptions: m.env, VertexInfoMap: []VertexInfo{}}
	if m.plan == nil {
		return d
	}
	pipelineOf := map[int]int{}
	for _, p := range m.plan.Pipelines {
		edges := []DagEdge{}
		for _, vid := range p.Vertices {
			pipelineOf[vid] = p.ID
			v := m.plan.Vertex(vid)
			if v == nil {
				continue
			}
			for _, in := range v.Inputs {
				edges = append(edges, DagEdge{InputVertexID: strconv.Itoa(in), TargetVertexID: strconv.Itoa(vid)})
			}
		}
		d.PipelineEdges[strconv.Itoa(p.ID)] = edges
	}
	for _, vx := range m.plan.Vertices {
		if vx == nil {
			continue
		}
		d.VertexInfoMap = append(d.VertexInfoMap, VertexInfo{VertexID: vx.ID, Type: string(vx.Kind),
			VertexName: vertexName(pipelineOf[vx.ID], vx), TablePaths: tableIDs(vx)})
	}
	return d
}

// vertexName is SeaTunnel's: `pipeline-1 [Source[0]-FakeSource]`.
func vertexName(pipeline int, v *contract.Vertex) string {
	kind := string(v.Kind)
	if kind != "" {
		kind = strings.ToUpper(kind[:1]) + kind[1:]
	}
	idx := "0"
	// Where is `sink[0] Assert`
	if i, j := strings.IndexByte(v.Where, '['), strings.IndexByte(v.Where, ']'); i >= 0 && j > i {
		idx = v.Where[i+1 : j]
	}
	return fmt.Sprintf("pipeline-%d [%s[%s]-%s]", pipeline, kind, idx, v.Plugin)
}

// metricsOf sums a job's counters SeaTunnel's way: rows and bytes (SeaTunnel's row sizes)
// read and written, in all and per table, with their rates over the job's run time, and the
// records the sources skipped. Tasks report rows by the table id they carry; a task whose
// counters have no tables (a runner of an older release) gives its rows to the table of its
// task group's one source or sink.
func metricsOf(st *contract.JobStatus, plan *contract.Plan, elapsed time.Duration) Metrics {
	m := Metrics{
		TableSourceReceivedCount: map[string]string{}, TableSourceReceivedBytes: map[string]string{},
		TableSourceReceivedBytesPerSeconds: map[string]string{}, TableSourceReceivedQPS: map[string]string{},
		TableSinkWriteCount: map[string]string{}, TableSinkWriteQPS: map[string]string{},
		TableSinkWriteBytes: map[string]string{}, TableSinkWriteBytesPerSeconds: map[string]string{},
	}
	secs := elapsed.Seconds()
	rate := func(n int64) string {
		if secs <= 0 {
			return "0.0"
		}
		return javaDouble(float64(n) / secs)
	}
	total := st.Counters
	if total.RowsRead == 0 && total.RowsWritten == 0 {
		// a status without the job's sum: add the pipelines'
		total = contract.Counters{}
		for _, p := range st.Pipelines {
			total.Add(p.Counters)
		}
	}
	m.SourceReceivedCount, m.SinkWriteCount = strconv.FormatInt(total.RowsRead, 10), strconv.FormatInt(total.RowsWritten, 10)
	m.SourceReceivedQPS, m.SinkWriteQPS = rate(total.RowsRead), rate(total.RowsWritten)
	m.SourceReceivedBytes, m.SinkWriteBytes = strconv.FormatInt(total.BytesRead, 10), strconv.FormatInt(total.BytesWritten, 10)
	m.SourceReceivedBytesPerSeconds, m.SinkWriteBytesPerSeconds = rate(total.BytesRead), rate(total.BytesWritten)
	m.SourceFailedCount = strconv.FormatInt(total.RowsFailed, 10)

	tables := tableCounters(st, plan)
	for tbl, n := range tables {
		if n.RowsRead > 0 || n.BytesRead > 0 {
			m.TableSourceReceivedCount[tbl], m.TableSourceReceivedQPS[tbl] = strconv.FormatInt(n.RowsRead, 10), rate(n.RowsRead)
			m.TableSourceReceivedBytes[tbl], m.TableSourceReceivedBytesPerSeconds[tbl] = strconv.FormatInt(n.BytesRead, 10), rate(n.BytesRead)
		}
		if n.RowsWritten > 0 || n.BytesWritten > 0 {
			m.TableSinkWriteCount[tbl], m.TableSinkWriteQPS[tbl] = strconv.FormatInt(n.RowsWritten, 10), rate(n.RowsWritten)
			m.TableSinkWriteBytes[tbl], m.TableSinkWriteBytesPerSeconds[tbl] = strconv.FormatInt(n.BytesWritten, 10), rate(n.BytesWritten)
		}
	}
	return m
}

// tableCounters adds up the job's counters by table, from its tasks.
func tableCounters(st *contract.JobStatus, plan *contract.Plan) map[string]contract.TableCounters {
	var sum contract.Counters
	for _, ps := range st.Pipelines {
		sum.Add(contract.Counters{Tables: ps.Restored.Tables}) // as of the checkpoint restored
		for _, t := range ps.Tasks {
			if len(t.Counters.Tables) > 0 || plan == nil || ps.ID < 1 || ps.ID > len(plan.Pipelines) {
				sum.Add(contract.Counters{Tables: t.Counters.Tables})
				continue
			}
			g := plan.Pipelines[ps.ID-1].Group(t.Task.Group)
			if g == nil {
				continue
			}
			by := map[string]contract.TableCounters{}
			if tbl, ok := oneTable(plan, g, contract.SourceVertex); ok {
				by[tbl] = contract.TableCounters{RowsRead: t.Counters.RowsRead}
			}
			if tbl, ok := oneTable(plan, g, contract.SinkVertex); ok {
				w := by[tbl]
				w.RowsWritten = t.Counters.RowsWritten
				by[tbl] = w
			}
			sum.Add(contract.Counters{Tables: by})
		}
	}
	return sum.Tables
}

// oneTable is the table of a task group's only vertex of a kind, when it has one table.
func oneTable(plan *contract.Plan, g *contract.TaskGroup, kind contract.VertexKind) (string, bool) {
	var found *contract.Vertex
	for _, id := range g.Vertices {
		if v := plan.Vertex(id); v != nil && v.Kind == kind {
			if found != nil {
				return "", false
			}
			found = v
		}
	}
	if found == nil {
		return "", false
	}
	if ids := tableIDs(found); len(ids) == 1 {
		return ids[0], true
	}
	return "", false
}

// tableIDs are the ids of the tables a plan's vertex emits (a sink: receives), none when
// they cannot be read.
func tableIDs(v *contract.Vertex) []string {
	ids := []string{}
	var tables []*catalog.Table
	if json.Unmarshal(v.Tables, &tables) != nil {
		return ids
	}
	for _, t := range tables {
		if t != nil {
			ids = append(ids, t.ID())
		}
	}
	return ids
}

// javaDouble renders a rate as Java's Double.toString does for ordinary values: 12.0, 0.5.
func javaDouble(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// parseJobID reads a path's job id.
func parseJobID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, badRequest("jobId %q is not a job id (a number)", s)
	}
	return id, nil
}

// jobInfo answers job-info and running-job: the job, or {"jobId": "<id>"} when there is no
// such job, as SeaTunnel answers.
func (g *gateway) jobInfo(w http.ResponseWriter, r *http.Request) error {
	raw := r.PathValue("jobId")
	id, err := parseJobID(raw)
	if err != nil {
		return err
	}
	x, found, err := g.lookup(r.Context(), id)
	if err != nil {
		return err
	}
	if !found {
		return ok(w, map[string]string{"jobId": raw})
	}
	v, err := g.view(r.Context(), x)
	if err != nil {
		return err
	}
	return ok(w, v)
}

// lookup finds a job's newest run; found is false when there is no such job.
func (g *gateway) lookup(ctx context.Context, id int64) (x execution, found bool, err error) {
	wid, err := jobclient.WorkflowID(ctx, g.c, id)
	if err != nil {
		return x, false, nil
	}
	desc, err := g.c.DescribeWorkflowExecution(ctx, wid, "")
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return x, false, nil
		}
		return x, false, fmt.Errorf("job %d: %w", id, err)
	}
	x = executionOf(desc.GetWorkflowExecutionInfo())
	x.jobID = id
	return x, true, nil
}

// views builds the views of some runs, a few at a time.
func (g *gateway) views(ctx context.Context, xs []execution) ([]*JobInfo, error) {
	out := make([]*JobInfo, len(xs))
	errs := make([]error, len(xs))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, x := range xs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i], errs[i] = g.view(ctx, x)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// runningJobs lists the jobs that have not ended, oldest first.
func (g *gateway) runningJobs(w http.ResponseWriter, r *http.Request) error {
	xs, err := g.executions(r.Context(), true)
	if err != nil {
		return err
	}
	var live []execution
	for _, x := range xs {
		if x.running && !x.state.Terminal() {
			live = append(live, x)
		}
	}
	sort.Slice(live, func(i, j int) bool { return live[i].start.Before(live[j].start) })
	vs, err := g.views(r.Context(), live)
	if err != nil {
		return err
	}
	out := make([]*JobInfo, 0, len(vs))
	for _, v := range vs {
		if !contract.JobState(v.JobStatus).Terminal() {
			out = append(out, v)
		}
	}
	return ok(w, out)
}

// finishedJobs lists the ended jobs, optionally in one state (FINISHED, CANCELED, FAILED,
// SAVEPOINT_DONE, UNKNOWABLE), by their end, oldest first.
func (g *gateway) finishedJobs(w http.ResponseWriter, r *http.Request) error {
	state := strings.ToUpper(strings.TrimSpace(r.PathValue("state")))
	xs, err := g.executions(r.Context(), false)
	if err != nil {
		return err
	}
	var ended []execution
	for _, x := range xs {
		if (!x.running || x.state.Terminal()) && (state == "" || string(x.state) == state) {
			ended = append(ended, x)
		}
	}
	vs, err := g.views(r.Context(), ended)
	if err != nil {
		return err
	}
	out := make([]*JobInfo, 0, len(vs))
	for _, v := range vs {
		if contract.JobState(v.JobStatus).Terminal() && (state == "" || v.JobStatus == state) {
			out = append(out, v)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].FinishTime < out[j].FinishTime })
	return ok(w, out)
}

// Overview is SeaTunnel's cluster overview; its values are strings, as SeaTunnel renders
// them.
type Overview struct {
	ProjectVersion  string `json:"projectVersion"`
	GitCommitAbbrev string `json:"gitCommitAbbrev"`
	TotalSlot       string `json:"totalSlot"`
	UnassignedSlot  string `json:"unassignedSlot"`
	RunningJobs     string `json:"runningJobs"`
	FinishedJobs    string `json:"finishedJobs"`
	FailedJobs      string `json:"failedJobs"`
	CancelledJobs   string `json:"cancelledJobs"`
	Workers         string `json:"workers"`
}

// overview counts the runners' slots (the query params are a tag filter on the runners)
// and the jobs by state.
func (g *gateway) overview(w http.ResponseWriter, r *http.Request) error {
	tags := map[string]string{}
	for k, v := range r.URL.Query() {
		if len(v) > 0 {
			tags[k] = v[len(v)-1]
		}
	}
	cs, err := jobclient.Cluster(r.Context(), g.c)
	if err != nil {
		return err
	}
	workers, total, free := jobclient.Capacity(cs, tags)
	xs, err := g.executions(r.Context(), false)
	if err != nil {
		return err
	}
	var running, finished, failed, canceled int
	for _, x := range xs {
		switch {
		case x.running && !x.state.Terminal():
			running++
		case x.state == contract.JobFinished:
			finished++
		case x.state == contract.JobFailed:
			failed++
		case x.state == contract.JobCanceled:
			canceled++
		}
	}
	itoa := strconv.Itoa
	return ok(w, Overview{ProjectVersion: g.version, GitCommitAbbrev: g.commit,
		TotalSlot: itoa(total), UnassignedSlot: itoa(free), Workers: itoa(workers),
		RunningJobs: itoa(running), FinishedJobs: itoa(finished), FailedJobs: itoa(failed), CancelledJobs: itoa(canceled)})
}
