package rowkindextractor_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strait-dev/strait/planner/plantest"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/optiontest"
	"github.com/strait-dev/strait/transform/internal/transformtest"
	_ "github.com/strait-dev/strait/transform/rowkindextractor"
	"github.com/strait-dev/strait/types"
)

func changelog(table string) *row.Batch {
	b := row.NewBatch(8)
	for i, k := range []row.Kind{row.Insert, row.UpdateBefore, row.UpdateAfter, row.Delete} {
		r := b.Add(k, table, 2)
		r.Fields[0] = row.BigIntValue(int64(i))
		r.Fields[1] = row.StringValue("n")
	}
	return b
}

func TestRowKindExtractor(t *testing.T) {
	tab := transformtest.Table(t, `pk_id = bigint, name = string`)
	tab.PrimaryKey = &catalog.PrimaryKey{Name: "pk", Columns: []string{"pk_id"}}
	for _, c := range []struct{ opts, field, want string }{
		{``, "row_kind", "+I -U +U -D"},
		{`transform_type = SHORT`, "row_kind", "+I -U +U -D"},
		{`custom_field_name = custom_name, transform_type = FULL`, "custom_name", "INSERT UPDATE_BEFORE UPDATE_AFTER DELETE"},
		{`transform_type = full`, "row_kind", "INSERT UPDATE_BEFORE UPDATE_AFTER DELETE"},
	} {
		tr := transformtest.MustBuild(t, "RowKindExtractor", c.opts, tab)
		out := tr.Outputs()[0]
		col := out.Columns[len(out.Columns)-1]
		if len(out.Columns) != 3 || col.Name != c.field || col.Type.Kind != types.String || col.Nullable ||
			col.Length != 13 || col.DefaultValue != "+I" || out.PrimaryKey == nil {
			t.Errorf("%s: output %+v", c.opts, out)
		}
		rows, err := transformtest.Run(t, changelog(tab.ID()), tr)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, r := range rows {
			if r.Kind != row.Insert || r.Fields[0].I != int64(i) || r.Fields[1].S != "n" {
				t.Errorf("%s: row %d is %s %v", c.opts, i, r.Kind, r.Fields)
			}
			got = append(got, r.Fields[2].S)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: kinds %v, want %s", c.opts, got, c.want)
		}
	}
}

func TestRowKindExtractorErrors(t *testing.T) {
	tab := transformtest.Table(t, `row_kind = string, name = string`)
	transformtest.BuildErrors(t, "RowKindExtractor", tab, []transformtest.ErrorCase{
		{``, `custom_field_name: field "row_kind" already exists`},
		{`custom_field_name = name`, `custom_field_name: field "name" already exists`},
		{`custom_field_name = k, transform_type = LONG`, `transform_type: unknown value "LONG"`},
		{`custom_field_name = ""`, `custom_field_name: the field name is empty`},
	})
}

// The documentation's example: a changelog becomes append-only rows carrying their kind.
func TestRowKindExtractorJob(t *testing.T) {
	root := transformtest.Parse(t, `
source {
  FakeSource {
    schema = { fields { pk_id = bigint, name = string, score = int } }
  }
}
transform {
  RowKindExtractor {
    custom_field_name = "custom_name"
    transform_type = FULL
    result_table_name = "trans_result"
  }
}
sink { Console { source_table_name = "trans_result" } }
`)
	job := transformtest.BuildJob(t, root)
	if got := fmt.Sprint(job.Output.RowType()); got != "{pk_id = bigint, name = string, score = int, custom_name = string}" {
		t.Fatalf("output %s", got)
	}
}

func BenchmarkRowKindExtractor(b *testing.B) {
	tab := transformtest.Table(b, `pk_id = bigint, name = string`)
	tr := transformtest.MustBuild(b, "RowKindExtractor", ``, tab)
	kinds := []row.Kind{row.Insert, row.UpdateBefore, row.UpdateAfter, row.Delete}
	transformtest.BenchRowsKind(b, tab.ID(), tr.Process, func(i int) row.Kind { return kinds[i%4] }, func(i int) []row.Value {
		return []row.Value{row.BigIntValue(int64(i)), row.StringValue("name")}
	})
}

// RowKindExtractor has no required option: its block may be empty.
func TestRowKindExtractorOptions(t *testing.T) {
	optiontest.Check(t, plantest.Warnings, `id = int`, []optiontest.Case{
		{Block: `RowKindExtractor {}`},
		{Block: `RowKindExtractor { plugin_input = src, plugin_output = out, custom_field_name = kind, transform_type = full }`},
		{Block: `RowKindExtractor { custom_fild_name = kind }`, Warning: `unknown option "custom_fild_name" (did you mean "custom_field_name"?)`},
		{Block: `RowKindExtractor { transform_type = LONG }`, Err: `transform[0] RowKindExtractor: transform_type: unknown value "LONG"; expected one of SHORT, FULL`},
	})
}
