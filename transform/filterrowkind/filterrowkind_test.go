package filterrowkind_test

import (
	"fmt"
	"testing"

	"github.com/strait-dev/strait/planner/plantest"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	_ "github.com/strait-dev/strait/transform/filterrowkind"
	"github.com/strait-dev/strait/transform/internal/optiontest"
	"github.com/strait-dev/strait/transform/internal/transformtest"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func changelog(table string) *row.Batch {
	b := row.NewBatch(8)
	for i, k := range []row.Kind{row.Insert, row.UpdateBefore, row.UpdateAfter, row.Delete, row.Insert, row.Delete} {
		r := b.Add(k, table, 1)
		r.Fields[0] = row.IntValue(int32(i))
	}
	return b
}

func TestFilterRowKind(t *testing.T) {
	tab := transformtest.Table(t, "id = int")
	for _, c := range []struct {
		opts string
		want []int32
	}{
		{`exclude_kinds = ["DELETE"]`, []int32{0, 1, 2, 4}},
		{`exclude_kinds = [INSERT]`, []int32{1, 2, 3, 5}},
		{`include_kinds = [INSERT]`, []int32{0, 4}},
		{`include_kinds = ["update_before", "+U"]`, []int32{1, 2}},
		{`include_kinds = "INSERT,DELETE"`, []int32{0, 3, 4, 5}},
		{`exclude_kinds = [INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]`, nil},
	} {
		tr := transformtest.MustBuild(t, "FilterRowKind", c.opts, tab)
		in := changelog(tab.ID())
		out, err := tr.Process(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		if out != in {
			t.Errorf("%s: the batch was not reused", c.opts)
		}
		var got []int32
		for _, r := range out.Rows {
			got = append(got, int32(r.Fields[0].I))
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: kept %v, want %v", c.opts, got, c.want)
		}
		out.Release()
		if !tr.Outputs()[0].RowType().Equal(tab.RowType()) {
			t.Errorf("%s: output changed", c.opts)
		}
	}
}

func TestFilterRowKindErrors(t *testing.T) {
	tab := transformtest.Table(t, "id = int")
	transformtest.BuildErrors(t, "FilterRowKind", tab, []transformtest.ErrorCase{
		{``, "set one of include_kinds and exclude_kinds"},
		{`include_kinds = [INSERT], exclude_kinds = [DELETE]`, "mutually exclusive"},
		{`include_kinds = []`, "include_kinds: list at least one row kind"},
		{`exclude_kinds = [INSERT, UPSERT]`, `exclude_kinds[1]: unknown row kind "UPSERT"`},
		{`exclude_kinds = {a = 1}`, "exclude_kinds: expected a list"},
	})
}

// filter_row_kind_exclude_delete.conf's FilterRowKind (the whole job runs in e2e): the
// schema unchanged, every row but the deletes kept as it came.
func TestFilterRowKindE2E(t *testing.T) {
	job := transformtest.BuildJob(t, transformtest.LoadJob(t, "transform/filter_row_kind_exclude_delete.conf"))
	if !job.Output.RowType().Equal(job.Source.RowType()) {
		t.Errorf("output %s, want the source's %s", job.Output.RowType(), job.Source.RowType())
	}
	in := row.NewBatch(8)
	for i, k := range []row.Kind{row.Insert, row.UpdateBefore, row.UpdateAfter, row.Delete, row.Insert, row.Delete} {
		r := in.Add(k, job.Source.ID(), 4)
		r.Fields[0], r.Fields[1], r.Fields[2] = row.IntValue(int32(i)), row.StringValue(fmt.Sprint("n", i)), row.IntValue(20)
		r.Fields[3] = transformtest.CRow(int32(i))
	}
	rows, err := transformtest.Run(t, in, job.Transforms...)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprint(r.Kind, r.Fields))
	}
	want := "[INSERT [0 n0 20 [[0]]] UPDATE_BEFORE [1 n1 20 [[1]]] UPDATE_AFTER [2 n2 20 [[2]]] INSERT [4 n4 20 [[4]]]]"
	if fmt.Sprint(got) != want {
		t.Fatalf("rows %v, want %s", got, want)
	}
}

func BenchmarkFilterRowKind(b *testing.B) {
	tab := transformtest.Table(b, "id = int, name = string")
	tr := transformtest.MustBuild(b, "FilterRowKind", `exclude_kinds = [DELETE]`, tab)
	kinds := []row.Kind{row.Insert, row.UpdateBefore, row.UpdateAfter, row.Delete}
	transformtest.BenchRowsKind(b, tab.ID(), tr.Process, func(i int) row.Kind { return kinds[i%4] }, func(i int) []row.Value {
		return []row.Value{row.IntValue(int32(i)), row.StringValue("x")}
	})
}

func TestFilterRowKindOptions(t *testing.T) {
	optiontest.Check(t, plantest.Warnings, `id = int`, []optiontest.Case{
		{Block: `FilterRowKind { plugin_input = src, plugin_output = out, include_kinds = [INSERT] }`},
		{Block: `FilterRowKind { exclude_kinds = [DELETE], exclude_kind = [INSERT] }`, Warning: `unknown option "exclude_kind" (did you mean "exclude_kinds"?)`},
		{Block: `FilterRowKind { include_kind = [INSERT] }`, Err: "transform[0] FilterRowKind: set one of include_kinds and exclude_kinds"},
	})
}

// A change of the input's columns passes through as it is.
func TestFilterRowKindPassesSchemaChanges(t *testing.T) {
	tab := transformtest.Table(t, "id = int")
	tr := transformtest.MustBuild(t, "FilterRowKind", `exclude_kinds = [DELETE]`, tab)
	st, ok := tr.(connector.SchemaChangeTransform)
	if !ok {
		t.Fatal("FilterRowKind does not follow schema changes")
	}
	c := &connector.SchemaChange{ID: "1", Table: tab.ID(), Columns: []connector.ColumnChange{
		{Op: connector.AddColumn, Column: catalog.Column{Name: "name", Type: types.Of(types.String), Nullable: true}}}}
	out, err := st.ApplySchemaChange(t.Context(), c)
	if err != nil || out != c {
		t.Fatalf("got %v, %v; want the change itself", out, err)
	}
	// the rows after it pass by their kind, whatever their width
	in := transformtest.Batch(tab.ID(), row.Delete, []row.Value{row.IntValue(1), row.StringValue("a")})
	kept, err := tr.Process(t.Context(), in)
	if err != nil || kept.Len() != 0 {
		t.Fatalf("kept %d rows, %v", kept.Len(), err)
	}
	kept.Release()
}
