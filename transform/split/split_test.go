package split_test

import (
	"fmt"
	"testing"

	"github.com/strait-dev/strait/planner/plantest"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/optiontest"
	"github.com/strait-dev/strait/transform/internal/transformtest"
	_ "github.com/strait-dev/strait/transform/split"
	"github.com/strait-dev/strait/types"
)

func TestSplit(t *testing.T) {
	tab := transformtest.Table(t, `name = string, age = int, card = int`)
	for _, c := range []struct {
		opts, in, out string
		schema        string
	}{
		{`separator = " ", split_field = name, output_fields = [first_name, second_name]`, "Joy Ding", "[Joy Ding 20 123 Joy Ding]",
			"{name = string, age = int, card = int, first_name = string, second_name = string}"},
		{`separator = " ", split_field = name, output_fields = [a, b]`, "Joy Ding Dom", "[Joy Ding Dom 20 123 Joy Ding Dom]", ""},
		{`separator = " ", split_field = name, output_fields = [a, b, c]`, "Joy", "[Joy 20 123 Joy null null]", ""},
		{`separator = "\\s*,\\s*", split_field = name, output_fields = [a, b, c]`, "x , y,z", "[x , y,z 20 123 x y z]", ""},
		{`separator = ",", split_field = name, output_fields = [a, b, c]`, "x,,", "[x,, 20 123 x  ]", ""},
		{`separator = "2", split_field = age, output_fields = [a, b]`, "", "[ 20 123  0]", ""},
		{`separator = "1", split_field = card, output_fields = ["card", "x"]`, "", "[ 20  23]",
			"{name = string, age = int, card = string, x = string}"},
		{`separator = " ", split_field = name, output_fields = "f1, f2"`, "a b", "[a b 20 123 a b]", ""},
	} {
		tr := transformtest.MustBuild(t, "Split", c.opts, tab)
		out := tr.Outputs()[0]
		if c.schema != "" && out.RowType().String() != c.schema {
			t.Errorf("%s: schema %s, want %s", c.opts, out.RowType(), c.schema)
		}
		for _, col := range out.Columns[len(tab.Columns):] {
			if col.Type.Kind != types.String || !col.Nullable || col.Length != 200 || col.DefaultValue != "" {
				t.Errorf("%s: new column %+v", c.opts, col)
			}
		}
		rows, err := transformtest.Run(t, transformtest.Batch(tab.ID(), row.Insert,
			[]row.Value{row.StringValue(c.in), row.IntValue(20), row.IntValue(123)},
			[]row.Value{row.NullValue(), row.NullValue(), row.NullValue()}), tr)
		if err != nil {
			t.Fatal(err)
		}
		if s := fmt.Sprint(rows[0].Fields); s != c.out {
			t.Errorf("%s: %q -> %s, want %s", c.opts, c.in, s, c.out)
		}
		for _, v := range rows[1].Fields {
			if !v.IsNull() {
				t.Errorf("%s: a null input gave %v", c.opts, rows[1].Fields)
			}
		}
	}
}

func TestSplitErrors(t *testing.T) {
	tab := transformtest.Table(t, `name = string, age = int`)
	transformtest.BuildErrors(t, "Split", tab, []transformtest.ErrorCase{
		{`split_field = name, output_fields = [a]`, "separator: option is required"},
		{`separator = " ", output_fields = [a]`, "split_field: option is required"},
		{`separator = " ", split_field = name`, "output_fields: option is required"},
		{`separator = " ", split_field = name, output_fields = []`, "output_fields: list at least one output field"},
		{`separator = " ", split_field = nom, output_fields = [a]`, `split_field: field "nom" is not in the input table`},
		{`separator = "[", split_field = name, output_fields = [a]`, "separator: error parsing regexp"},
		{`separator = " ", split_field = name, output_fields = [a, a]`, `output_fields[1]: field "a" is listed twice`},
	})
}

// split_transform.conf's Split (the whole job runs in e2e): age split at its first "1" into
// f1 and the rest f2, f2 null when there is no "1".
func TestSplitE2E(t *testing.T) {
	job := transformtest.BuildJobFile(t, "transform/split_transform.conf",
		"{id = int, name = string, age = int, c_row = {c_row = {c_int = int}}, f1 = string, f2 = string}")
	nested := transformtest.CRow(7)
	in := transformtest.Batch(job.Source.ID(), row.Insert,
		[]row.Value{row.IntValue(1), row.StringValue("a"), row.IntValue(2112), nested},
		[]row.Value{row.IntValue(2), row.StringValue("b"), row.IntValue(345), nested},
		[]row.Value{row.IntValue(3), row.StringValue("c"), row.IntValue(1), nested},
		[]row.Value{row.IntValue(4), row.StringValue("d"), row.IntValue(-10), nested},
	)
	rows, err := transformtest.Run(t, in, job.Transforms...)
	if err != nil {
		t.Fatal(err)
	}
	wantRows := []string{"[1 a 2112 [[7]] 2 12]", "[2 b 345 [[7]] 345 null]", "[3 c 1 [[7]]  ]", "[4 d -10 [[7]] - 0]"}
	if len(rows) != len(wantRows) {
		t.Fatalf("%d rows, want %d", len(rows), len(wantRows))
	}
	for i, w := range wantRows {
		if got := fmt.Sprint(rows[i].Fields); got != w {
			t.Errorf("row %d = %s, want %s", i, got, w)
		}
	}
}

func BenchmarkSplit(b *testing.B) {
	tab := transformtest.Table(b, `name = string, age = int`)
	for _, c := range []struct{ name, opts string }{
		{"literal", `separator = " ", split_field = name, output_fields = [a, b, c]`},
		{"regex", `separator = "\\s+", split_field = name, output_fields = [a, b, c]`},
		{"int", `separator = "1", split_field = age, output_fields = [a, b]`},
	} {
		b.Run(c.name, func(b *testing.B) {
			tr := transformtest.MustBuild(b, "Split", c.opts, tab)
			transformtest.BenchRows(b, tab.ID(), tr.Process, func(i int) []row.Value {
				return []row.Value{row.StringValue("Joy Ding May"), row.IntValue(int32(1000 + i))}
			})
		})
	}
}

func TestSplitOptions(t *testing.T) {
	optiontest.Check(t, plantest.Warnings, `id = int, name = string`, []optiontest.Case{
		{Block: `Split { plugin_input = src, plugin_output = out, separator = " ", split_field = name, output_fields = [a, b] }`},
		{Block: `Split { separator = " ", split_field = name, output_fields = [a], output_field = [b] }`, Warning: `unknown option "output_field" (did you mean "output_fields"?)`},
		{Block: `Split { separator = " ", splitfield = name, output_fields = [a] }`, Err: "transform[0] Split: split_field: option is required"},
	})
}
