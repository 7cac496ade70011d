package planvertex

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/types"
)

// table has every field of a catalog table set, so a field the encoding loses fails the
// round trip.
func table() *catalog.Table {
	return &catalog.Table{Catalog: "c", Path: catalog.TablePath{Database: "db", Schema: "s", Table: "t"},
		Columns: []catalog.Column{{Name: "id", Type: types.Of(types.BigInt), Nullable: true, Length: 20, Scale: 2,
			DefaultValue: 1.5, Comment: "key", SourceType: "BIGINT"}},
		PrimaryKey:     &catalog.PrimaryKey{Name: "pk", Columns: []string{"id"}},
		ConstraintKeys: []catalog.ConstraintKey{{Name: "u", Type: "UNIQUE_KEY", Columns: []catalog.ConstraintCol{{Name: "id", Sort: "ASC"}}}},
		Comment:        "orders"}
}

func TestTablesTravelAsThePlannerDerivedThem(t *testing.T) {
	tb := table()
	rv := reflect.ValueOf(*tb)
	for i := 0; i < rv.NumField(); i++ {
		if rv.Field(i).IsZero() {
			t.Fatalf("the fixture leaves Table.%s unset", rv.Type().Field(i).Name)
		}
	}
	v := &Vertex{Vertex: &contract.Vertex{ID: 2, Kind: contract.SinkVertex, Plugin: "Console", Where: "sink[0] Console"},
		Tables: []*catalog.Table{tb}, InputTables: []*catalog.Table{tb}}
	if err := v.Encode(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v.Vertex)
	if err != nil {
		t.Fatal(err)
	}
	var cv contract.Vertex
	if err := json.Unmarshal(b, &cv); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(&cv)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Tables, v.Tables) || !reflect.DeepEqual(back.InputTables, v.InputTables) {
		t.Fatalf("decoded %+v and %+v, encoded %+v", back.Tables[0], back.InputTables[0], tb)
	}
}

// A vertex without tables travels as the planner's vertices always did: its tables null,
// its input tables left out.
func TestEncodeKeepsThePayloadShape(t *testing.T) {
	for _, c := range []struct {
		name   string
		tables []*catalog.Table
		want   string
	}{
		{"none", nil, `"tables":null`},
		{"empty", []*catalog.Table{}, `"tables":[]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := &Vertex{Vertex: &contract.Vertex{ID: 1, Kind: contract.SourceVertex}, Tables: c.tables, InputTables: []*catalog.Table{}}
			if err := v.Encode(); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(v.Vertex)
			if !strings.Contains(string(b), c.want) || strings.Contains(string(b), "inputTables") {
				t.Fatalf("%s", b)
			}
		})
	}
}

func TestDecodeNamesWhatItDoesNotKnow(t *testing.T) {
	if _, err := Decode(nil); err == nil {
		t.Fatal("no vertex decoded")
	}
	cv := &contract.Vertex{ID: 3, Where: "source[0] X", Tables: json.RawMessage(`[{"path":{"table":"t"},"columns":[],"partitions":1}]`)}
	if _, err := Decode(cv); err == nil || !strings.Contains(err.Error(), `"partitions"`) || !strings.HasPrefix(err.Error(), "source[0] X: vertex 3: tables:") {
		t.Fatalf("a table with a field this build lacks: %v", err)
	}
}

type sinkOptions struct {
	Mode string `opt:"mode" default:"A" doc:"a choice"`
}

// seen is what the test sink's factory was given.
var seen struct {
	ctx  *connector.SinkContext
	mode string
}

type testSink struct{ connector.Sink }

func init() {
	connector.RegisterSink("PlanVertexSink", "Records what it is built from.", func(ctx *connector.SinkContext, c *sinkOptions) (connector.Sink, error) {
		seen.ctx, seen.mode = ctx, c.Mode
		return testSink{}, nil
	})
}

func TestPluginsAreBuiltFromTheVertex(t *testing.T) {
	tb := table()
	raw, _ := json.Marshal([]*catalog.Table{tb})
	cv := &contract.Vertex{ID: 2, Kind: contract.SinkVertex, Plugin: "PlanVertexSink", Where: "sink[0] PlanVertexSink",
		Options: json.RawMessage(`{"mode":"B"}`), Tables: raw, InputTables: raw}
	v, err := Decode(cv)
	if err != nil {
		t.Fatal(err)
	}
	job := contract.Job{ID: 7, Name: "j", Mode: contract.Streaming}
	if _, err := v.Sink(job); err != nil {
		t.Fatal(err)
	}
	if seen.mode != "B" || seen.ctx.Job != job || len(seen.ctx.Inputs) != 1 || seen.ctx.Inputs[0].ID() != tb.ID() || seen.ctx.Context == nil {
		t.Fatalf("the factory got mode %q and %+v", seen.mode, seen.ctx)
	}
	cv.Plugin = "NoSuchSink"
	if _, err := v.Sink(job); err == nil || err.Error() != `sink[0] PlanVertexSink: sink plugin "NoSuchSink" is not in this runner` {
		t.Fatalf("an unknown plugin: %v", err)
	}
	cv.Plugin, cv.Options = "PlanVertexSink", json.RawMessage(`{"mode":`)
	if _, err := v.Sink(job); err == nil || !strings.HasPrefix(err.Error(), "sink[0] PlanVertexSink: options:") {
		t.Fatalf("options that do not parse: %v", err)
	}
}
