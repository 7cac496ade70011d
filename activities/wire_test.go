package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	_ "github.com/strait-dev/strait/connectors/all"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/secret"
)

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

func TestCommitWithoutItsVertexFails(t *testing.T) {
	if _, err := openVertex(nil); err == nil {
		t.Fatal("a commit without its vertex was accepted")
	}
}

// TestConfigSourceOpensForThePlanner: the planner reads the contract's config source; a
// plain one reaches it unchanged, a sealed one as it was written.
func TestConfigSourceOpensForThePlanner(t *testing.T) {
	key, err := secret.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	plain := contract.ConfigSource{File: "job.conf", Text: "env {}", Vars: map[string]string{"a": "b"}, Name: "n"}
	src, err := secret.OpenSource(key, plain)
	if err != nil {
		t.Fatal(err)
	}
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
	src, err = secret.OpenSource(key, sealed)
	if err != nil {
		t.Fatal(err)
	}
	if src.Text != conf || src.Vars["a"] != "b" || src.Name != "n" || src.File != "job.conf" {
		t.Fatalf("planned source %+v", src)
	}
	other, _ := secret.NewKey()
	if _, err := secret.OpenSource(other, sealed); err == nil || !strings.Contains(err.Error(), key.ID()) {
		t.Fatalf("a config sealed under another key: %v", err)
	}
}

// TestPlanSecretsTravelSealed plans a job whose sink has a secret: the plan the history
// keeps holds it sealed, and the runner's deployment and the committer's vertex open it.
func TestPlanSecretsTravelSealed(t *testing.T) {
	key := useNewKey(t)
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
	if err := openVertices(vs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(vs[len(vs)-1].Options), `"plan-S3-Secret"`) {
		t.Fatalf("the runner's vertex: %s", vs[len(vs)-1].Options)
	}
	if strings.Contains(string(sink.Options), `"plan-S3-Secret"`) {
		t.Fatalf("opening the runner's copy opened the plan's vertex: %s", sink.Options)
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
	key := useNewKey(t)
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

// useNewKey has the process seal and open secrets with a new key until the test ends, and
// returns the key.
func useNewKey(t *testing.T) *secret.Key {
	t.Helper()
	key, err := secret.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	secret.Use(key)
	t.Cleanup(func() { secret.Use(nil) })
	return key
}
