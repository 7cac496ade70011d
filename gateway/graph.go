package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/jobclient"
	"github.com/strait-dev/strait/secret"
)

// The dashboard's own endpoints: what SeaTunnel's REST API has no shape for. /job-graph is
// a job's plan as it runs (pipelines, fused task groups, exchange edges) with each group's
// live numbers, its checkpoints and its restarts; /runners the resource manager's view of
// the runners and their slots; /job-config a job's config with its secrets masked.

// JobGraph is a job's plan with its live state.
type JobGraph struct {
	JobID      string `json:"jobId"`
	JobName    string `json:"jobName"`
	JobStatus  string `json:"jobStatus"`
	Mode       string `json:"mode,omitempty"`
	ErrorMsg   string `json:"errorMsg,omitempty"`
	CreateTime string `json:"createTime"`
	FinishTime string `json:"finishTime,omitempty"`
	// TemporalURL is the job's workflow in the Temporal Web UI, when the gateway knows
	// where that is served.
	TemporalURL string            `json:"temporalUrl,omitempty"`
	Vertices    []GraphVertex     `json:"vertices"`
	Pipelines   []GraphPipeline   `json:"pipelines"`
	Counters    contract.Counters `json:"counters"`
	Warnings    []string          `json:"warnings,omitempty"`
	// SampledAt is when the live numbers were read; Live says whether any runner answered,
	// LiveErrors which runners did not.
	SampledAt  time.Time `json:"sampledAt"`
	Live       bool      `json:"live"`
	LiveErrors []string  `json:"liveErrors,omitempty"`
}

// GraphVertex is one plugin of the plan.
type GraphVertex struct {
	ID          int      `json:"id"`
	Kind        string   `json:"kind"`
	Plugin      string   `json:"plugin"`
	Name        string   `json:"name"`
	Where       string   `json:"where"`
	Output      string   `json:"output,omitempty"`
	Inputs      []int    `json:"inputs,omitempty"`
	Tables      []string `json:"tables"`
	Pipeline    int      `json:"pipeline"`
	Group       int      `json:"group"`
	Parallelism int      `json:"parallelism"`
}

// GraphPipeline is one pipeline: its state, task groups, edges, checkpoints and restarts.
type GraphPipeline struct {
	ID           int                 `json:"id"`
	State        string              `json:"state"`
	Error        string              `json:"error,omitempty"`
	Restarts     int                 `json:"restarts"`
	LastFailure  string              `json:"lastFailure,omitempty"`
	Failovers    []contract.Failover `json:"failovers"`
	Runners      []string            `json:"runners"`
	Groups       []GraphGroup        `json:"groups"`
	Edges        []GraphEdge         `json:"edges"`
	Checkpoints  GraphCheckpoints    `json:"checkpoints"`
	RestoredFrom int64               `json:"restoredFrom,omitempty"`
}

// GraphCheckpoints are a pipeline's checkpoints, newest first, durations in milliseconds.
type GraphCheckpoints struct {
	Completed int64             `json:"completed"`
	Failed    int64             `json:"failed"`
	Recent    []GraphCheckpoint `json:"recent"`
}

// GraphCheckpoint is one checkpoint.
type GraphCheckpoint struct {
	ID         int64     `json:"id"`
	Savepoint  bool      `json:"savepoint,omitempty"`
	State      string    `json:"state"`
	Triggered  time.Time `json:"triggered"`
	DurationMs int64     `json:"durationMs"`
	Bytes      int64     `json:"bytes"`
	Acks       int       `json:"acks"`
	Failure    string    `json:"failure,omitempty"`
}

// GraphGroup is a task group: a chain of fused vertices run by Parallelism tasks.
type GraphGroup struct {
	ID          int         `json:"id"`
	Vertices    []int       `json:"vertices"`
	Parallelism int         `json:"parallelism"`
	Runners     []string    `json:"runners"`
	Tasks       []GraphTask `json:"tasks"`
	GroupNumbers
}

// GroupNumbers are a task group's numbers: totals, rates over the last seconds (0 until
// two reads are a second apart) and the share of time its tasks were busy and back
// pressured (0..1, averaged over its tasks).
type GroupNumbers struct {
	RowsIn             int64   `json:"rowsIn"`
	RowsRead           int64   `json:"rowsRead"`
	RowsWritten        int64   `json:"rowsWritten"`
	BytesRead          int64   `json:"bytesRead"`
	BytesWritten       int64   `json:"bytesWritten"`
	RowsInPerSec       float64 `json:"rowsInPerSec"`
	RowsWrittenPerSec  float64 `json:"rowsWrittenPerSec"`
	BytesReadPerSec    float64 `json:"bytesReadPerSec"`
	BytesWrittenPerSec float64 `json:"bytesWrittenPerSec"`
	Busy               float64 `json:"busy"`
	BackPressured      float64 `json:"backPressured"`
	Queued             int     `json:"queued"`
	Source             bool    `json:"source"`
	Sink               bool    `json:"sink"`
}

// GraphTask is one task instance of a group.
type GraphTask struct {
	Task   string `json:"task"`
	Runner string `json:"runner,omitempty"`
	State  string `json:"state"`
	Error  string `json:"error,omitempty"`
}

// GraphEdge is an exchange between two task groups; BackPressured is its producer's share of
// time spent waiting on it.
type GraphEdge struct {
	ID            int      `json:"id"`
	From          int      `json:"from"`
	To            int      `json:"to"`
	FromVertex    int      `json:"fromVertex"`
	ToVertex      int      `json:"toVertex"`
	Partitioning  string   `json:"partitioning"`
	KeyFields     []string `json:"keyFields,omitempty"`
	BackPressured float64  `json:"backPressured"`
}

// jobGraph answers GET /job-graph/{jobId}.
func (g *gateway) jobGraph(w http.ResponseWriter, r *http.Request) error {
	x, m, err := g.pathJob(r)
	if err != nil {
		return err
	}
	st, _ := g.status(r.Context(), x)
	gr := graphOf(x, m, st)
	gr.TemporalURL = g.workflowURL(x)
	if x.running && m.plan != nil {
		g.addLive(r.Context(), gr, st)
	}
	return ok(w, gr)
}

// pathJob finds the job a path's jobId names, its newest run and what its history says of
// it; 404 when there is no such job.
func (g *gateway) pathJob(r *http.Request) (execution, *jobMeta, error) {
	id, err := parseJobID(r.PathValue("jobId"))
	if err != nil {
		return execution{}, nil, err
	}
	x, found, err := g.lookup(r.Context(), id)
	if err != nil {
		return x, nil, err
	}
	if !found {
		return x, nil, &httpError{status: http.StatusNotFound, msg: fmt.Sprintf("no job %d", id)}
	}
	m, err := g.meta(r.Context(), x)
	return x, m, err
}

// workflowURL is a run's page in the Temporal Web UI.
func (g *gateway) workflowURL(x execution) string {
	if g.temporalUI == "" {
		return ""
	}
	return fmt.Sprintf("%s/namespaces/%s/workflows/%s/%s/history", strings.TrimRight(g.temporalUI, "/"),
		url.PathEscape(g.namespace), url.PathEscape(x.wid), url.PathEscape(x.runID))
}

// graphOf lays a job's plan out with the counters its status holds.
func graphOf(x execution, m *jobMeta, st *contract.JobStatus) *JobGraph {
	gr := &JobGraph{JobID: strconv.FormatInt(x.jobID, 10), JobName: st.Name, JobStatus: string(st.State), Mode: st.Mode,
		ErrorMsg: st.Error, Vertices: []GraphVertex{}, Pipelines: []GraphPipeline{}, Counters: st.Counters, Warnings: st.Warnings}
	created := m.input.Submitted
	if created.IsZero() {
		created = x.start
	}
	gr.CreateTime = created.Local().Format(timeLayout)
	if st.State.Terminal() && !st.Finished.IsZero() {
		gr.FinishTime = st.Finished.Local().Format(timeLayout)
	}
	if m.plan == nil {
		return gr
	}
	if gr.Mode == "" {
		gr.Mode = string(m.plan.Env.Mode)
	}
	statusOf := map[int]*contract.PipelineStatus{}
	for i := range st.Pipelines {
		statusOf[st.Pipelines[i].ID] = &st.Pipelines[i]
	}
	place := map[int][2]int{} // vertex -> pipeline, group
	for _, p := range m.plan.Pipelines {
		ps := statusOf[p.ID]
		if ps == nil {
			ps = &contract.PipelineStatus{ID: p.ID, State: contract.JobCreated}
		}
		gp := GraphPipeline{ID: p.ID, State: string(ps.State), Error: ps.Error, Restarts: ps.Restarts, LastFailure: ps.LastFailure,
			Failovers: append([]contract.Failover{}, ps.Failovers...), Runners: append([]string{}, ps.Runners...),
			Groups: []GraphGroup{}, Edges: []GraphEdge{}, Checkpoints: checkpointsOf(ps.Checkpoints), RestoredFrom: ps.RestoredFrom}
		tasks := map[contract.TaskID]contract.TaskStatus{}
		for _, t := range ps.Tasks {
			tasks[t.Task] = t
		}
		for _, tg := range p.TaskGroups {
			gg := GraphGroup{ID: tg.ID, Vertices: append([]int{}, tg.Vertices...), Parallelism: tg.Parallelism, Runners: []string{}, Tasks: []GraphTask{}}
			seen := map[string]bool{}
			for i := 0; i < tg.Parallelism; i++ {
				tid := contract.TaskID{Group: tg.ID, Subtask: i}
				t, ok := tasks[tid]
				state := string(t.State)
				if !ok || state == "" {
					state = "CREATED"
				}
				gg.Tasks = append(gg.Tasks, GraphTask{Task: tid.String(), Runner: t.Runner, State: state, Error: t.Error})
				if t.Runner != "" && !seen[t.Runner] {
					seen[t.Runner] = true
					gg.Runners = append(gg.Runners, t.Runner)
				}
				gg.RowsIn += t.Counters.RowsRead + t.Counters.RowsReceived
				gg.RowsRead += t.Counters.RowsRead
				gg.RowsWritten += t.Counters.RowsWritten
				gg.BytesRead += t.Counters.BytesRead
				gg.BytesWritten += t.Counters.BytesWritten
			}
			sort.Strings(gg.Runners)
			for _, vid := range tg.Vertices {
				place[vid] = [2]int{p.ID, tg.ID}
				if v := m.plan.Vertex(vid); v != nil {
					gg.Source = gg.Source || v.Kind == contract.SourceVertex
					gg.Sink = gg.Sink || v.Kind == contract.SinkVertex
				}
			}
			gp.Groups = append(gp.Groups, gg)
		}
		for _, e := range p.Edges {
			gp.Edges = append(gp.Edges, GraphEdge{ID: e.ID, From: e.From, To: e.To, FromVertex: e.FromVertex, ToVertex: e.ToVertex,
				Partitioning: string(e.Partitioning), KeyFields: e.KeyFields})
		}
		gr.Pipelines = append(gr.Pipelines, gp)
	}
	for _, v := range m.plan.Vertices {
		if v == nil {
			continue
		}
		pl := place[v.ID]
		gr.Vertices = append(gr.Vertices, GraphVertex{ID: v.ID, Kind: string(v.Kind), Plugin: v.Plugin, Name: vertexName(pl[0], v),
			Where: v.Where, Output: v.Output, Inputs: v.Inputs, Tables: tableIDs(v), Pipeline: pl[0], Group: pl[1], Parallelism: v.Parallelism})
	}
	return gr
}

// checkpointsOf lists a pipeline's checkpoints newest first.
func checkpointsOf(s *contract.CheckpointStats) GraphCheckpoints {
	out := GraphCheckpoints{Recent: []GraphCheckpoint{}}
	if s == nil {
		return out
	}
	out.Completed, out.Failed = s.Completed, s.Failed
	for i := len(s.Recent) - 1; i >= 0; i-- {
		c := s.Recent[i]
		out.Recent = append(out.Recent, GraphCheckpoint{ID: c.ID, Savepoint: c.Savepoint, State: c.State, Triggered: c.Triggered,
			DurationMs: c.Duration.Milliseconds(), Bytes: c.Bytes, Acks: c.Acks, Failure: c.Failure})
	}
	return out
}

// addLive reads the job's runners' /metrics and puts each group's live numbers on the graph:
// a task's numbers come from the runner its pipeline placed it on (a runner it ran on before
// a failover may still show its old totals).
func (g *gateway) addLive(ctx context.Context, gr *JobGraph, st *contract.JobStatus) {
	cs, err := jobclient.Cluster(ctx, g.c)
	if err != nil {
		gr.LiveErrors = append(gr.LiveErrors, fmt.Sprintf("runners: %v", err))
		return
	}
	placed := map[string]bool{} // runner ids hosting the job's tasks
	for _, p := range st.Pipelines {
		for _, t := range p.Tasks {
			if t.Runner != "" {
				placed[t.Runner] = true
			}
		}
	}
	seen := map[string]bool{}
	var addrs []string
	for _, rs := range cs.Runners {
		if a := rs.MetricsAddress; placed[rs.ID] && a != "" && !seen[a] {
			seen[a] = true
			addrs = append(addrs, a)
		}
	}
	sort.Strings(addrs)
	samples, errs := g.scraper.job(ctx, addrs, mustInt64(gr.JobID))
	for _, e := range errs {
		gr.LiveErrors = append(gr.LiveErrors, e.Error())
	}
	now := time.Now()
	gr.SampledAt = now
	gr.Live = len(addrs) > len(errs)
	// the placement of each task, as its pipeline says
	runnerOf := map[groupKey]map[string]string{}
	for _, p := range st.Pipelines {
		for _, t := range p.Tasks {
			k := groupKey{p.ID, t.Task.Group}
			if runnerOf[k] == nil {
				runnerOf[k] = map[string]string{}
			}
			runnerOf[k][t.Task.String()] = t.Runner
		}
	}
	cur := jobSample{at: now, groups: map[groupKey]totals{}}
	queued := map[groupKey]int{}
	seenTask := map[string]bool{}
	for _, s := range samples {
		group, ok := groupOfTask(s.task)
		if !ok {
			continue
		}
		k := groupKey{s.pipeline, group}
		if want := runnerOf[k][s.task]; want != "" && want != s.runner {
			continue
		}
		tk := fmt.Sprintf("%d/%s", s.pipeline, s.task)
		if seenTask[tk] {
			continue
		}
		seenTask[tk] = true
		t := cur.groups[k]
		t.add(s)
		cur.groups[k] = t
		queued[k] += int(s.queued)
	}
	base := g.rates.observe(mustInt64(gr.JobID), cur)
	for pi := range gr.Pipelines {
		p := &gr.Pipelines[pi]
		bp := map[int]float64{}
		for gi := range p.Groups {
			gg := &p.Groups[gi]
			k := groupKey{p.ID, gg.ID}
			t, ok := cur.groups[k]
			if !ok {
				continue
			}
			// live totals go on from the status's; they never go back
			gg.RowsIn = max(gg.RowsIn, int64(t.rowsIn))
			gg.RowsRead = max(gg.RowsRead, int64(t.rowsRead))
			gg.RowsWritten = max(gg.RowsWritten, int64(t.rowsWritten))
			gg.BytesRead = max(gg.BytesRead, int64(t.bytesRead))
			gg.BytesWritten = max(gg.BytesWritten, int64(t.bytesWritten))
			gg.Queued = queued[k]
			if base == nil {
				continue
			}
			b, ok := base.groups[k]
			if !ok {
				continue
			}
			secs := now.Sub(base.at).Seconds()
			per := func(a, b float64) float64 { return max(0, (a-b)/secs) }
			gg.RowsInPerSec = per(t.rowsIn, b.rowsIn)
			gg.RowsWrittenPerSec = per(t.rowsWritten, b.rowsWritten)
			gg.BytesReadPerSec = per(t.bytesRead, b.bytesRead)
			gg.BytesWrittenPerSec = per(t.bytesWritten, b.bytesWritten)
			n := float64(max(gg.Parallelism, 1))
			gg.Busy = min(1, per(t.busy, b.busy)/n)
			gg.BackPressured = min(1, per(t.backPressured, b.backPressured)/n)
			bp[gg.ID] = gg.BackPressured
		}
		for ei := range p.Edges {
			p.Edges[ei].BackPressured = bp[p.Edges[ei].From]
		}
	}
}

// groupOfTask reads the group of a task name g<group>-<subtask>.
func groupOfTask(task string) (int, bool) {
	rest, ok := strings.CutPrefix(task, "g")
	if !ok {
		return 0, false
	}
	gs, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(gs)
	return n, err == nil
}

func mustInt64(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// RunnerView is one runner as the resource manager sees it.
type RunnerView struct {
	ID             string            `json:"id"`
	State          string            `json:"state"`
	Address        string            `json:"address,omitempty"`
	MetricsAddress string            `json:"metricsAddress,omitempty"`
	Started        time.Time         `json:"started"`
	Tags           map[string]string `json:"tags"`
	Slots          int               `json:"slots"`
	Used           int               `json:"used"`
	// Jobs are the slots in use by job id ("" for an owner that is no job's).
	Free int         `json:"free"`
	Jobs []RunnerJob `json:"jobs"`
	// TagsUpdated: the tags were set by update-tags.
	TagsUpdated bool       `json:"tagsUpdated,omitempty"`
	CPU         *float64   `json:"cpu,omitempty"`
	Memory      *float64   `json:"memory,omitempty"`
	LoadAt      *time.Time `json:"loadAt,omitempty"`
}

// RunnerJob is the slots a job holds on a runner.
type RunnerJob struct {
	JobID    string `json:"jobId"`
	Pipeline int    `json:"pipeline"`
	Slots    int    `json:"slots"`
}

// runners answers GET /runners: every runner the resource manager knows, alive first.
func (g *gateway) runners(w http.ResponseWriter, r *http.Request) error {
	cs, err := jobclient.Cluster(r.Context(), g.c)
	if err != nil {
		return err
	}
	out := []RunnerView{}
	for _, rs := range cs.Runners {
		v := RunnerView{ID: rs.ID, State: string(rs.State), Address: rs.Address, MetricsAddress: rs.MetricsAddress,
			Started: rs.Started, Tags: rs.Tags, Slots: rs.Slots, Free: rs.Free, Jobs: []RunnerJob{}, TagsUpdated: rs.TagsUpdated}
		if v.Tags == nil {
			v.Tags = map[string]string{}
		}
		held := map[RunnerJob]int{}
		var order []RunnerJob
		for _, o := range rs.Owner {
			if o == "" {
				continue
			}
			v.Used++
			k := ownerJob(o)
			if _, ok := held[k]; !ok {
				order = append(order, k)
			}
			held[k]++
		}
		for _, k := range order {
			k.Slots = held[k]
			v.Jobs = append(v.Jobs, k)
		}
		if l := rs.Load; l != nil {
			cpu, mem, at := l.CPU, l.Memory, l.At
			v.CPU, v.Memory, v.LoadAt = &cpu, &mem, &at
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i].State == string(contract.RunnerStateLost)) != (out[j].State == string(contract.RunnerStateLost)) {
			return out[j].State == string(contract.RunnerStateLost)
		}
		return out[i].ID < out[j].ID
	})
	return ok(w, out)
}

// ownerJob reads the job and pipeline of a slot owner: a pipeline workflow id and epoch,
// strait-job-<id>-p<n>#<epoch>.
func ownerJob(owner string) RunnerJob {
	wid, _, _ := strings.Cut(owner, "#")
	rest, ok := strings.CutPrefix(wid, "strait-job-")
	if !ok {
		return RunnerJob{JobID: wid}
	}
	id, p, ok := strings.Cut(rest, "-p")
	if !ok {
		return RunnerJob{JobID: rest}
	}
	n, _ := strconv.Atoi(p)
	return RunnerJob{JobID: id, Pipeline: n}
}

// JobConfig is a job's config as submitted, its secrets masked.
type JobConfig struct {
	JobID  string            `json:"jobId"`
	File   string            `json:"file,omitempty"`
	Format string            `json:"format"`
	Config string            `json:"config"`
	Vars   map[string]string `json:"vars,omitempty"`
}

// jobConfig answers GET /job-config/{jobId}.
func (g *gateway) jobConfig(w http.ResponseWriter, r *http.Request) error {
	x, m, err := g.pathJob(r)
	if err != nil {
		return err
	}
	if m.input.Config == "" {
		return errors.New("the job's input holds no config")
	}
	text, vars := secret.MaskConfig(m.input.Config, m.input.File, m.input.Vars)
	format := "hocon"
	if strings.HasSuffix(strings.ToLower(m.input.File), ".json") {
		format = "json"
	}
	return ok(w, JobConfig{JobID: strconv.FormatInt(x.jobID, 10), File: m.input.File, Format: format, Config: text, Vars: vars})
}
