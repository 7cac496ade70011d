package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	_ "github.com/strait-dev/strait/connectors/all"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/planner"
	"github.com/strait-dev/strait/secret"
	"github.com/strait-dev/strait/types"
)

// fullPlan is a plan with every field of the planner's types that travel set, so a field
// added to them fails these tests until the contract carries it.
func fullPlan() *planner.PhysicalPlan {
	table := &catalog.Table{Catalog: "c", Path: catalog.TablePath{Database: "db", Table: "t"},
		Columns: []catalog.Column{{Name: "id", Type: types.Of(types.BigInt), DefaultValue: 1.5, Comment: "key"}}}
	src := &planner.Vertex{ID: 1, Kind: planner.SourceVertex, Plugin: "FakeSource", Where: "source[0] FakeSource",
		Options: json.RawMessage(`{"rows":5}`), Inputs: []int{9}, Output: "a", Parallelism: 2, PartitionBy: []string{"id"},
		Tables: []*catalog.Table{table}, InputTables: []*catalog.Table{table}, TableAliases: map[string]string{"x": "db.t"}}
	sink := &planner.Vertex{ID: 2, Kind: planner.SinkVertex, Plugin: "Console", Where: "sink[0] Console",
		Options: json.RawMessage(`{}`), Inputs: []int{1}, Parallelism: 1, Tables: []*catalog.Table{table}}
	return &planner.PhysicalPlan{
		Job: connector.Job{ID: 7, Name: "j", Mode: connector.Streaming},
		Env: planner.Env{Mode: connector.Streaming, Name: "j", Parallelism: 2, CheckpointInterval: 100, CheckpointTimeout: 200,
			TolerableCheckpointFailures: 1, CheckpointRetained: 2, RetryTimes: 3, RetryIntervalSeconds: 4,
			TagFilter: map[string]string{"zone": "a"}, SlotWait: true, SlotAllocationStrategy: "SLOT_RATIO",
			ReadLimitRows: 10, ReadLimitBytes: 20},
		Vertices: []*planner.Vertex{src, sink},
		Pipelines: []planner.Pipeline{{ID: 1, Vertices: []int{1, 2},
			TaskGroups: []planner.TaskGroup{{ID: 1, Vertices: []int{1}, Parallelism: 2, Inputs: []int{5}, Outputs: []int{1}}, {ID: 2, Vertices: []int{2}, Parallelism: 1, Inputs: []int{1}, Outputs: []int{6}}},
			Edges:      []planner.Edge{{ID: 1, From: 1, To: 2, FromVertex: 1, ToVertex: 2, Partitioning: planner.Hash, KeyFields: []string{"id"}}}}},
		Warnings: []string{"w"},
	}
}

// allSet fails the test for every field of v (a struct) left at its zero value.
func allSet(t *testing.T, v any) {
	t.Helper()
	rv := reflect.Indirect(reflect.ValueOf(v))
	for i := 0; i < rv.NumField(); i++ {
		if rv.Field(i).IsZero() {
			t.Errorf("the fixture leaves %s.%s unset", rv.Type(), rv.Type().Field(i).Name)
		}
	}
}

func TestPlanCarriesOverToTheRunner(t *testing.T) {
	pp := fullPlan()
	p := pp.Pipelines[0]
	for _, v := range []any{pp, pp.Job, pp.Env, pp.Vertices[0], p, p.TaskGroups[0], p.Edges[0]} {
		allSet(t, v)
	}
	cp, err := planOf(pp)
	if err != nil {
		t.Fatal(err)
	}
	if want, got := jsonOf(t, pp), jsonOf(t, cp); want != got {
		t.Fatalf("the plan's JSON changed on its way into the contract:\nplanner  %s\ncontract %s", want, got)
	}
	d := contract.Deployment{Job: cp.Job, Pipeline: cp.Pipelines[0], Vertices: cp.Vertices, Env: cp.Env, Epoch: 3,
		ReportTo: "to", Origin: "o", Tasks: []contract.TaskID{{Group: 1}}, Restore: &contract.Restore{Checkpoint: 1}}
	td, err := deploymentOf(d)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		got, want any
	}{
		{"job", td.Job, pp.Job},
		{"pipeline", td.Pipeline, pp.Pipelines[0]},
		{"vertices", td.Vertices, pp.Vertices},
		{"env", td.Env, pp.Env},
		{"report to", td.ReportTo, d.ReportTo},
		{"origin", td.Origin, d.Origin},
		{"epoch", td.Epoch, d.Epoch},
		{"restore", td.Restore, d.Restore},
	}
	for _, c := range cases {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: the runner got %+v, the planner made %+v", c.name, c.got, c.want)
		}
	}
	v, err := vertexOf(cp.Vertices[0])
	if err != nil || !reflect.DeepEqual(v, pp.Vertices[0]) {
		t.Errorf("the committer's vertex is %+v (%v), the planner made %+v", v, err, pp.Vertices[0])
	}
}

func TestRecodeNamesWhatTheTargetLacks(t *testing.T) {
	type wide struct {
		A     int `json:"a"`
		Extra int `json:"extra"`
	}
	type narrow struct {
		A int `json:"a"`
	}
	var n narrow
	err := recode(wide{A: 1, Extra: 2}, &n)
	if err == nil || !strings.Contains(err.Error(), `"extra"`) {
		t.Fatalf("recode into a type without the field: %v", err)
	}
	if _, err := vertexOf(nil); err == nil {
		t.Fatal("a commit without its vertex was accepted")
	}
}

func TestConfigSourceCarriesOverToThePlanner(t *testing.T) {
	key, err := secret.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	plain := contract.ConfigSource{File: "job.conf", Text: "env {}", Vars: map[string]string{"a": "b"}, Name: "n"}
	src, err := plannedSource(key, plain)
	if err != nil {
		t.Fatal(err)
	}
	allSet(t, src)
	if want, got := jsonOf(t, plain), jsonOf(t, src); want != got {
		t.Fatalf("contract %s, planner %s", want, got)
	}
	// a sealed config is planned as written, not as its masked copy
	conf := `source { Jdbc { url = "jdbc:postgresql://h/db", password = "wire-Secret", query = "select 1" } }`
	in := contract.JobInput{Config: conf, File: "job.conf", Vars: map[string]string{"a": "b"}, Name: "n"}
	if err := secret.SealInput(key, &in); err != nil {
		t.Fatal(err)
	}
	sealed := contract.ConfigSource{File: in.File, Text: in.Config, Vars: in.Vars, Name: in.Name, Sealed: in.Sealed}
	allSet(t, sealed)
	src, err = plannedSource(key, sealed)
	if err != nil {
		t.Fatal(err)
	}
	if src.Text != conf || src.Vars["a"] != "b" || src.Name != "n" || src.File != "job.conf" {
		t.Fatalf("planned source %+v", src)
	}
	other, _ := secret.NewKey()
	if _, err := plannedSource(other, sealed); err == nil || !strings.Contains(err.Error(), key.ID()) {
		t.Fatalf("a config sealed under another key: %v", err)
	}
}

// TestPlanSecretsTravelSealed plans a job whose sink has a secret: the plan the history
// keeps holds it sealed, and the runner's deployment and the committer's vertex open it.
func TestPlanSecretsTravelSealed(t *testing.T) {
	key, err := secret.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	secret.Use(key)
	t.Cleanup(func() { secret.Use(nil) })
	conf := `env { job.mode = BATCH }
source { FakeSource { row.num = 1, schema { fields { id = bigint } } } }
sink { S3File { bucket = "s3a://b", path = "/out", fs.s3a.endpoint = "http://127.0.0.1:1", access_key = "AKID", secret_key = "plan-S3-Secret", file_format_type = json } }`
	in := contract.JobInput{JobID: 9, Config: conf, File: "job.conf"}
	if err := secret.SealInput(key, &in); err != nil {
		t.Fatal(err)
	}
	a := &Coordinator{}
	plan, err := a.PlanJob(context.Background(), contract.PlanInput{JobID: 9, Source: contract.ConfigSource{File: in.File, Text: in.Config, Sealed: in.Sealed}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(plan)
	if strings.Contains(string(b), "plan-S3-Secret") || !strings.Contains(string(b), secret.Prefix) {
		t.Fatalf("the plan shows the secret or does not seal it: %s", b)
	}
	sink := plan.Vertices[len(plan.Vertices)-1]
	v, err := openVertex(sink)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(v.Options), `"plan-S3-Secret"`) {
		t.Fatalf("the committer's vertex: %s", v.Options)
	}
	var vs []*contract.Vertex
	for _, v := range plan.Vertices {
		c := *v
		vs = append(vs, &c)
	}
	d := contract.Deployment{Job: plan.Job, Vertices: vs, Env: plan.Env}
	if len(plan.Pipelines) > 0 {
		d.Pipeline = plan.Pipelines[0]
	}
	td, err := deploymentOf(d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(td.Vertices[len(td.Vertices)-1].Options), `"plan-S3-Secret"`) {
		t.Fatalf("the runner's vertex: %s", td.Vertices[len(td.Vertices)-1].Options)
	}
	other, _ := secret.NewKey()
	secret.Use(other)
	if _, err := openVertex(sink); err == nil || !strings.Contains(err.Error(), key.ID()) {
		t.Fatalf("a runner with another key: %v", err)
	}

	// an input without a sealed config (started by hand, or before configs were sealed)
	// plans its text, and its plan's secrets travel sealed all the same
	secret.Use(key)
	plan, err = a.PlanJob(context.Background(), contract.PlanInput{JobID: 10, Source: contract.ConfigSource{File: "job.conf", Text: conf}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(plan); strings.Contains(string(b), "plan-S3-Secret") {
		t.Fatalf("the plan of a plain input shows the secret: %s", b)
	}
	if v, err := openVertex(plan.Vertices[len(plan.Vertices)-1]); err != nil || !strings.Contains(string(v.Options), `"plan-S3-Secret"`) {
		t.Fatalf("the vertex of a plain input: %v", err)
	}
}

// jsonOf is v's JSON with the keys in a stable order.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var g any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&g); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// A task's error reaches the pipeline without a secret value the runner opened for the
// task's plugins; the runner's own report is left as it was.
func TestReportsRedactOpenedSecrets(t *testing.T) {
	key, err := secret.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	secret.Use(key)
	t.Cleanup(func() { secret.Use(nil) })
	sealed, err := key.SealString("report-Secret-7")
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := json.Marshal(map[string]string{"plugin_name": "Jdbc", "password": sealed})
	if err := openVertices([]*contract.Vertex{{ID: 1, Kind: contract.SinkVertex, Plugin: "Jdbc", Where: "sink[0] Jdbc", Options: opts}}); err != nil {
		t.Fatal(err)
	}
	rep := contract.TaskReport{RunnerID: "r1", Tasks: []contract.TaskStatus{
		{State: contract.TaskRunning},
		{State: contract.TaskFailed, Error: "jdbc sink t: dial mysql://app:report-Secret-7@db: refused"},
	}}
	got := redacted(rep)
	if e := got.Tasks[1].Error; strings.Contains(e, "report-Secret-7") || !strings.Contains(e, "app:******@db") {
		t.Errorf("the reported error: %s", e)
	}
	if !strings.Contains(rep.Tasks[1].Error, "report-Secret-7") {
		t.Error("the runner's own report was changed")
	}
}
