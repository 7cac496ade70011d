package planner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/planvertex"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// Minimal plugins for planning tests: they only declare tables.

type testSource struct{ tables []*catalog.Table }

func (s *testSource) Boundedness() connector.Boundedness { return connector.Bounded }
func (s *testSource) Tables() []*catalog.Table           { return s.tables }
func (s *testSource) CreateEnumerator(connector.EnumeratorContext, []byte) (connector.Enumerator, error) {
	return nil, nil
}
func (s *testSource) CreateReader(connector.ReaderContext) (connector.Reader, error) { return nil, nil }

type testTransform struct{ out []*catalog.Table }

func (t *testTransform) Outputs() []*catalog.Table                                   { return t.out }
func (t *testTransform) Open(context.Context) error                                  { return nil }
func (t *testTransform) Close() error                                                { return nil }
func (t *testTransform) Process(_ context.Context, b *row.Batch) (*row.Batch, error) { return b, nil }

type testSink struct{}

func (testSink) CreateWriter(connector.WriterContext, [][]byte) (connector.Writer, error) {
	return nil, nil
}
func (testSink) CreateCommitter() (connector.Committer, error) { return nil, nil }

var errNoContext = errors.New("the factory got no planning context")

type planSourceOptions struct {
	Width int64 `opt:"width" default:"1" doc:"the number of int fields of its table"`
	// AwaitDeadline stands for a source that reaches a database that does not answer
	AwaitDeadline bool `opt:"await_deadline" default:"false" doc:"wait for the planning deadline, then fail"`
}

type planSinkOptions struct {
	Mode     string `opt:"mode" default:"A" enum:"A,B" doc:"a choice, checked only"`
	Password string `opt:"password,secret" doc:"a secret, never shown"`
}

type noOptions struct{}

func init() {
	connector.RegisterSource("PlanSource", "Declares one table of int fields.", func(ctx *connector.SourceContext, c *planSourceOptions) (connector.Source, error) {
		if ctx.Context == nil {
			return nil, errNoContext
		}
		if c.AwaitDeadline {
			<-ctx.Context.Done()
			return nil, ctx.Context.Err()
		}
		rt := &types.RowType{}
		for i := 0; i < int(c.Width); i++ {
			rt.Names = append(rt.Names, string(rune('a'+i)))
			rt.Types = append(rt.Types, types.Of(types.Int))
		}
		return &testSource{tables: []*catalog.Table{catalog.FromRowType(catalog.TablePath{Table: ctx.OutputName}, rt)}}, nil
	})
	connector.RegisterTransform("PlanTransform", "Passes its inputs on.", func(ctx *connector.TransformContext, _ *noOptions) (connector.Transform, error) {
		if ctx.Context == nil {
			return nil, errNoContext
		}
		return &testTransform{out: ctx.Inputs}, nil
	})
	connector.RegisterSink("PlanSink", "Accepts its inputs and writes nothing.", func(ctx *connector.SinkContext, _ *planSinkOptions) (connector.Sink, error) {
		if ctx.Context == nil {
			return nil, errNoContext
		}
		return testSink{}, nil
	})
}

func plan(t *testing.T, text string) (*contract.Plan, error) {
	t.Helper()
	return Plan(contract.ConfigSource{File: "job.conf", Text: text}, connector.Job{ID: 1})
}

func TestPlanSimpleChainFuses(t *testing.T) {
	pp, err := plan(t, `
env { parallelism = 2, job.mode = batch, spark.master = local }
source { PlanSource { result_table_name = "x" } }
transform { plantransform { source_table_name = "whatever" } }
sink { PLANSINK {} }`)
	if err != nil {
		t.Fatal(err)
	}
	if len(pp.Pipelines) != 1 || len(pp.Pipelines[0].TaskGroups) != 1 {
		t.Fatalf("want one fused task group, got %+v", pp.Pipelines)
	}
	g := pp.Pipelines[0].TaskGroups[0]
	if len(g.Vertices) != 3 || g.Parallelism != 2 {
		t.Fatalf("group = %+v", g)
	}
	if pp.Job.Mode != contract.Batch || pp.Pipelines[0].Slots() != 2 {
		t.Fatalf("mode %s slots %d", pp.Job.Mode, pp.Pipelines[0].Slots())
	}
}

func TestPlanTwoPipelines(t *testing.T) {
	pp, err := plan(t, `
source {
  PlanSource { result_table_name = "a" }
  PlanSource { result_table_name = "b" }
}
sink {
  PlanSink { source_table_name = "a" }
  PlanSink { plugin_input = "b" }
}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(pp.Pipelines) != 2 {
		t.Fatalf("want 2 pipelines, got %d", len(pp.Pipelines))
	}
	for _, p := range pp.Pipelines {
		if len(p.TaskGroups) != 1 || len(p.TaskGroups[0].Vertices) != 2 {
			t.Fatalf("pipeline %d: %+v", p.ID, p.TaskGroups)
		}
	}
}

func TestPlanUnionAndParallelismMakeExchanges(t *testing.T) {
	pp, err := plan(t, `
env { parallelism = 2 }
source {
  PlanSource { plugin_output = "a" }
  PlanSource { plugin_output = "b", parallelism = 3 }
}
transform {
  PlanTransform { plugin_input = ["a", "b"], plugin_output = "u", parallelism = 1 }
}
sink { PlanSink { plugin_input = "u" } }`)
	if err != nil {
		t.Fatal(err)
	}
	if len(pp.Pipelines) != 1 {
		t.Fatalf("want 1 pipeline, got %d", len(pp.Pipelines))
	}
	p := pp.Pipelines[0]
	if len(p.TaskGroups) != 3 || len(p.Edges) != 2 {
		t.Fatalf("groups %+v edges %+v", p.TaskGroups, p.Edges)
	}
	for _, e := range p.Edges {
		if e.Partitioning != contract.PartitionRebalance {
			t.Errorf("edge %s: want rebalance", edgeText(e))
		}
	}
	if p.Slots() != 2+3+1 {
		t.Errorf("slots = %d", p.Slots())
	}
	// the union receives the first input's table; rows of b take on a's
	for _, cv := range pp.Vertices {
		if cv.Plugin != "PlanTransform" {
			continue
		}
		v, err := planvertex.Decode(cv)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.InputTables) != 1 || v.InputTables[0].ID() != "a" || len(v.TableAliases) != 1 || v.TableAliases["b"] != "a" {
			t.Errorf("union vertex: input tables %v, aliases %v", v.InputTables, v.TableAliases)
		}
	}
	var sb strings.Builder
	WriteText(&sb, pp)
	if !strings.Contains(sb.String(), "(union)") || !strings.Contains(sb.String(), "exchange") {
		t.Errorf("text plan:\n%s", sb.String())
	}
	sb.Reset()
	WriteDot(&sb, pp)
	if !strings.HasPrefix(sb.String(), "digraph") {
		t.Errorf("dot:\n%s", sb.String())
	}
}

func TestPlanFanOutIsNotFused(t *testing.T) {
	pp, err := plan(t, `
source { PlanSource { plugin_output = "a" } }
sink {
  PlanSink { plugin_input = "a" }
  PlanSink { plugin_input = "a" }
}`)
	if err != nil {
		t.Fatal(err)
	}
	p := pp.Pipelines[0]
	if len(p.TaskGroups) != 3 || len(p.Edges) != 2 || p.Edges[0].Partitioning != contract.PartitionForward {
		t.Fatalf("groups %+v edges %+v", p.TaskGroups, p.Edges)
	}
}

func TestPlanErrors(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"no sink", `source { PlanSource {} }`, "at least one source and one sink"},
		{"unknown source", `source { Nope {} }
sink { PlanSink {} }`, `source[0] Nope: unknown source plugin "Nope"`},
		{"bad enum", `source { PlanSource {} }
sink { PlanSink { mode = c } }`, `sink[0] PlanSink: mode: unknown value "c"`},
		{"complex needs outputs", `source { PlanSource {}, PlanSource { plugin_output = b } }
sink { PlanSink { plugin_input = b } }`, "plugin_output (or result_table_name) is required"},
		{"duplicate outputs", `source { PlanSource { plugin_output = a }, PlanSource { plugin_output = a } }
sink { PlanSink { plugin_input = a } }`, "must be different"},
		{"missing input", `source { PlanSource { plugin_output = a }, PlanSource { plugin_output = b } }
sink { PlanSink { plugin_input = c } }`, `input "c" is produced by no source`},
		{"unused output", `source { PlanSource { plugin_output = a }, PlanSource { plugin_output = b } }
sink { PlanSink { plugin_input = a } }`, `output "b" is not used`},
		{"union of different schemas", `source { PlanSource { plugin_output = a }, PlanSource { plugin_output = b, width = 2 } }
sink { PlanSink { plugin_input = [a, b] } }`, "different structures"},
		{"cycle", `source { PlanSource { plugin_output = a } }
transform { PlanTransform { plugin_input = c, plugin_output = b }, PlanTransform { plugin_input = b, plugin_output = c } }
sink { PlanSink { plugin_input = a } }`, "cycle"},
		{"bad env", `env { parallelism = many }
source { PlanSource {} }
sink { PlanSink {} }`, `env: parallelism: "many" is not an integer`},
		{"bad mode", `env { job.mode = sometimes }
source { PlanSource {} }
sink { PlanSink {} }`, `job.mode: unknown value "sometimes"`},
		{"negative parallelism", `env { parallelism = -4 }
source { PlanSource {} }
sink { PlanSink {} }`, `env: parallelism: must be between 1 and 10000, found -4`},
		{"zero plugin parallelism", `source { PlanSource { parallelism = 0 } }
sink { PlanSink {} }`, `parallelism: must be between 1 and 10000, found 0`},
		{"negative read limit", `env { read_limit.rows_per_second = -5 }
source { PlanSource {} }
sink { PlanSink {} }`, `env: read_limit.rows_per_second: must be positive, got -5`},
		{"syntax", "source { PlanSource { a = } ", "job.conf:"},
		{"unknown block", `sources { }
source { PlanSource {} }
sink { PlanSink {} }`, `unknown top-level block "sources"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := plan(t, c.text)
			if err == nil {
				t.Fatal("want an error")
			}
			if !IsConfigError(err) {
				t.Errorf("%v is not a config error", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestPlanJSONConfig(t *testing.T) {
	pp, err := Plan(contract.ConfigSource{File: "job.json", Text: `{
  "env": {"job.mode": "BATCH", "parallelism": 3},
  "source": [{"plugin_name": "PlanSource", "plugin_output": "t"}],
  "sink": [{"plugin_name": "PlanSink", "plugin_input": ["t"]}]
}`}, connector.Job{})
	if err != nil {
		t.Fatal(err)
	}
	if pp.Vertices[0].Parallelism != 3 || pp.Vertices[1].Plugin != "PlanSink" {
		t.Fatalf("%+v", pp.Vertices)
	}
}

func TestPlanWarnsAboutUnusedOptions(t *testing.T) {
	pp, err := plan(t, `source { PlanSource { widht = 3 } }
sink { PlanSink {} }`)
	if err != nil {
		t.Fatal(err)
	}
	if len(pp.Warnings) != 1 || !strings.Contains(pp.Warnings[0], "widht") || !strings.Contains(pp.Warnings[0], "job.conf:1:") {
		t.Fatalf("warnings %q", pp.Warnings)
	}
}

func TestParseVars(t *testing.T) {
	vars, err := ParseVars([]string{"a=1", "strTemplate=[abc,def]", "x=1,y=2", `q="a,b"`, "eq=a=b"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "1", "strTemplate": "[abc,def]", "x": "1", "y": "2", "q": `"a,b"`, "eq": "a=b"}
	for k, v := range want {
		if vars[k] != v {
			t.Errorf("%s = %q, want %q", k, vars[k], v)
		}
	}
	if _, err := ParseVars([]string{"novalue"}); err == nil {
		t.Error("want an error for a variable without =")
	}
}

func TestPartitionByMakesAHashExchange(t *testing.T) {
	pp, err := plan(t, `
env { parallelism = 3 }
source { PlanSource { plugin_output = "a", width = 2 } }
sink { PlanSink { plugin_input = "a", partition_by = [b] } }`)
	if err != nil {
		t.Fatal(err)
	}
	p := pp.Pipelines[0]
	if len(p.TaskGroups) != 2 || len(p.Edges) != 1 || p.Edges[0].Partitioning != contract.PartitionHash || p.Edges[0].KeyFields[0] != "b" {
		t.Fatalf("groups %+v edges %+v", p.TaskGroups, p.Edges)
	}
	_, err = plan(t, `
source { PlanSource { plugin_output = "a" } }
sink { PlanSink { plugin_input = "a", partition_by = "nope" } }`)
	if err == nil || !strings.Contains(err.Error(), `partition_by: table a has no field "nope"`) {
		t.Fatalf("%v", err)
	}
}

// The planning deadline reaches every factory: one that waits on a database that does not
// answer gives up when the caller's deadline passes, and planning fails naming the plugin.
func TestPlanContextReachesFactories(t *testing.T) {
	const job = `source { PlanSource { plugin_output = a, await_deadline = %s } }
transform { PlanTransform { plugin_input = a, plugin_output = b } }
sink { PlanSink { plugin_input = b } }`
	for _, tc := range []struct {
		name, wait string
		want       error
	}{
		{"every factory has a context", "false", nil},
		{"a factory waiting on it stops at the deadline", "true", context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			_, err := PlanContext(ctx, contract.ConfigSource{File: "job.conf", Text: strings.Replace(job, "%s", tc.wait, 1)}, connector.Job{ID: 1})
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if tc.want != nil && !strings.HasPrefix(err.Error(), "source[0] PlanSource: ") {
				t.Fatalf("error %q does not name the plugin", err)
			}
		})
	}
	// Plan, for callers without a deadline, gives the factories one too
	if _, err := Plan(contract.ConfigSource{File: "job.conf", Text: strings.Replace(job, "%s", "false", 1)}, connector.Job{ID: 1}); err != nil {
		t.Fatal(err)
	}
}

func TestWriteTextMasksSecrets(t *testing.T) {
	pp, err := plan(t, `
source { PlanSource { plugin_output = "a" } }
sink { PlanSink { plugin_input = "a", mode = B, password = "plan-Secret" } }`)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	WriteText(&sb, pp)
	text := sb.String()
	if strings.Contains(text, "plan-Secret") || !strings.Contains(text, `"password":"******"`) || !strings.Contains(text, `"mode":"B"`) {
		t.Errorf("text plan:\n%s", text)
	}
}
