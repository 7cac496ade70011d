package filterrowkind_test

import (
	"fmt"
	"strings"
	"testing"

	_ "github.com/strait-dev/strait/transform/filterrowkind"
	"github.com/strait-dev/strait/transform/internal/optiontest"
	"github.com/strait-dev/strait/transform/internal/transformtest"

	"github.com/strait-dev/strait/row"
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
	for _, c := range []struct{ opts, msg string }{
		{``, "set one of include_kinds and exclude_kinds"},
		{`include_kinds = [INSERT], exclude_kinds = [DELETE]`, "mutually exclusive"},
		{`include_kinds = []`, "include_kinds: list at least one row kind"},
		{`exclude_kinds = [INSERT, UPSERT]`, `exclude_kinds[1]: unknown row kind "UPSERT"`},
		{`exclude_kinds = {a = 1}`, "exclude_kinds: expected a list"},
	} {
		_, err := transformtest.Build(t, "FilterRowKind", c.opts, tab)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: error %v, want %q", c.opts, err, c.msg)
		}
	}
}

func TestFilterRowKindE2E(t *testing.T) {
	job := transformtest.BuildJob(t, transformtest.LoadJob(t, "transform/filter_row_kind_exclude_delete.conf"))
	rows := job.RunJob(t, 30, 2)
	if len(rows) != job.RowNum() {
		t.Fatalf("%d rows, want %d", len(rows), job.RowNum())
	}
	if fails := job.CheckAssert(rows); len(fails) > 0 {
		t.Fatal(fails)
	}
	// the same transform on a changelog drops the deletes
	in := changelog(job.Source.ID())
	tr := job.Transforms[0]
	out, err := tr.Process(t.Context(), in)
	if err != nil || out.Len() != 4 {
		t.Fatalf("changelog: %d rows, %v", out.Len(), err)
	}
	for _, r := range out.Rows {
		if r.Kind == row.Delete {
			t.Fatal("a DELETE passed")
		}
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

// TestFilterRowKindE2EWithConnectors runs the job file with the real FakeSource and Assert sink.
func TestFilterRowKindE2EWithConnectors(t *testing.T) {
	n, err := transformtest.RunWithConnectors(t, transformtest.LoadJob(t, "transform/filter_row_kind_exclude_delete.conf"))
	if err != nil {
		t.Fatalf("after %d rows: %v", n, err)
	}
	if n == 0 {
		t.Fatal("no rows reached the sink")
	}
}

func TestFilterRowKindOptions(t *testing.T) {
	optiontest.Check(t, `id = int`, []optiontest.Case{
		{Block: `FilterRowKind { plugin_input = src, plugin_output = out, include_kinds = [INSERT] }`},
		{Block: `FilterRowKind { exclude_kinds = [DELETE], exclude_kind = [INSERT] }`, Warning: `unknown option "exclude_kind" (did you mean "exclude_kinds"?)`},
		{Block: `FilterRowKind { include_kind = [INSERT] }`, Err: "transform[0] FilterRowKind: set one of include_kinds and exclude_kinds"},
	})
}
