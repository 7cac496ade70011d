package filter_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/planner/plantest"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/row"
	_ "github.com/strait-dev/strait/transform/filter"
	"github.com/strait-dev/strait/transform/internal/optiontest"
	"github.com/strait-dev/strait/transform/internal/transformtest"
)

func input(t testing.TB) *catalog.Table {
	tab := transformtest.Table(t, `id = int, name = string, age = int, card = int, tags = "array<string>"`)
	tab.PrimaryKey = &catalog.PrimaryKey{Name: "pk", Columns: []string{"id"}}
	tab.ConstraintKeys = []catalog.ConstraintKey{
		{Name: "uk_card", Type: "UNIQUE_KEY", Columns: []catalog.ConstraintCol{{Name: "card"}}},
		{Name: "ix_name_age", Type: "INDEX_KEY", Columns: []catalog.ConstraintCol{{Name: "name"}, {Name: "age"}}},
	}
	return tab
}

func rows(tab *catalog.Table) *row.Batch {
	return transformtest.Batch(tab.ID(), row.UpdateAfter,
		[]row.Value{row.IntValue(1), row.StringValue("Joy Ding"), row.IntValue(20), row.IntValue(123),
			row.ArrayValue([]row.Value{row.StringValue("a")})},
		[]row.Value{row.IntValue(2), row.NullValue(), row.IntValue(21), row.IntValue(124), row.NullValue()})
}

func TestFilter(t *testing.T) {
	tab := input(t)
	for _, c := range []struct {
		opts        string
		cols        string
		pk          bool
		constraints string
		first       string
	}{
		{`include_fields = [name, card]`, "name card", false, "uk_card", "[Joy Ding 123]"},
		{`fields = [card, id]`, "card id", true, "uk_card", "[123 1]"},
		{`include_fields = "age,name"`, "age name", false, "ix_name_age", "[20 Joy Ding]"},
		{`exclude_fields = [age]`, "id name card tags", true, "uk_card", "[1 Joy Ding 123 [a]]"},
		{`exclude_fields = [tags, id]`, "name age card", false, "uk_card ix_name_age", "[Joy Ding 20 123]"},
		{`include_fields = [id, name, age, card, tags]`, "id name age card tags", true, "uk_card ix_name_age", "[1 Joy Ding 20 123 [a]]"},
		{`exclude_fields = []`, "id name age card tags", true, "uk_card ix_name_age", "[1 Joy Ding 20 123 [a]]"},
		{`include_fields = []`, "", false, "", "[]"},
	} {
		tr := transformtest.MustBuild(t, "Filter", c.opts, tab)
		out := tr.Outputs()[0]
		var names, cks []string
		for _, col := range out.Columns {
			names = append(names, col.Name)
			if !col.Type.Equal(tab.Columns[tab.ColumnIndex(col.Name)].Type) {
				t.Errorf("%s: column %s changed type", c.opts, col.Name)
			}
		}
		for _, k := range out.ConstraintKeys {
			cks = append(cks, k.Name)
		}
		if strings.Join(names, " ") != c.cols || (out.PrimaryKey != nil) != c.pk || strings.Join(cks, " ") != c.constraints {
			t.Errorf("%s: columns %v pk %v keys %v", c.opts, names, out.PrimaryKey, cks)
		}
		if out.ID() != tab.ID() {
			t.Errorf("%s: table id %s", c.opts, out.ID())
		}
		got, err := transformtest.Run(t, rows(tab), tr)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Kind != row.UpdateAfter || got[0].Table != tab.ID() || len(got[0].Fields) != len(out.Columns) {
			t.Fatalf("%s: rows %v", c.opts, got)
		}
		if s := fmt.Sprint(got[0].Fields); s != c.first {
			t.Errorf("%s: first row %s, want %s", c.opts, s, c.first)
		}
	}
}

func TestFilterIdentityKeepsBatch(t *testing.T) {
	tab := input(t)
	tr := transformtest.MustBuild(t, "Filter", `include_fields = [id, name, age, card, tags]`, tab)
	in := rows(tab)
	out, _ := tr.Process(t.Context(), in)
	if out != in {
		t.Fatal("identity filter copied the batch")
	}
	out.Release()
}

// A projection's output must not share nested values with the released input batch.
func TestFilterMovesNestedValues(t *testing.T) {
	tab := input(t)
	tr := transformtest.MustBuild(t, "Filter", `include_fields = [tags]`, tab)
	in := rows(tab)
	nested := in.Rows[0].Fields[4]
	out, err := tr.Process(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	transformtest.Unshared(t, nested, out.Rows[0].Fields[0])
	out.Release()
}

func TestFilterErrors(t *testing.T) {
	tab := input(t)
	transformtest.BuildErrors(t, "Filter", tab, []transformtest.ErrorCase{
		{``, "set one of include_fields and exclude_fields"},
		{`include_fields = [id], exclude_fields = [age]`, "mutually exclusive"},
		{`fields = [id], exclude_fields = [age]`, "mutually exclusive"},
		{`include_fields = [id, nom]`, `include_fields: field "nom" is not in the input table`},
		{`fields = [nom, x]`, `fields: fields "nom", "x" are not in the input table`},
		{`exclude_fields = [Age]`, `field "Age" is not in`},
		{`include_fields = [id, id]`, `include_fields[1]: field "id" is listed twice`},
		{`include_fields = {a = b}`, `include_fields: expected a list`},
	})
}

// The Filter transforms of filter_transform.conf and fakesource_to_assert.conf (the whole
// jobs run in e2e): the listed fields, in the listed order.
func TestFilterE2E(t *testing.T) {
	nested := transformtest.CRow(7)
	noon := row.TimeValue(int64(12*time.Hour + 34*time.Minute + 56*time.Second))
	for _, c := range []struct {
		file, schema string
		in           []row.Value
		out          string
	}{
		{"transform/filter_transform.conf", "{age = int, name = string, c_row = {c_row = {c_int = int}}}",
			[]row.Value{row.IntValue(1), row.StringValue("Joy"), row.IntValue(20), nested}, "[20 Joy [[7]]]"},
		{"fake/fakesource_to_assert.conf", "{name = string, age = int, c_time = time}",
			[]row.Value{row.StringValue("Joy"), row.IntValue(40000), noon}, "[Joy 40000 12:34:56]"},
	} {
		job := transformtest.BuildJobFile(t, c.file, c.schema)
		rows, err := transformtest.Run(t, transformtest.Batch(job.Source.ID(), row.Insert, c.in), job.Transforms...)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if len(rows) != 1 || fmt.Sprint(rows[0].Fields) != c.out {
			t.Errorf("%s: rows %v, want %s", c.file, rows, c.out)
		}
	}
}

func BenchmarkFilter(b *testing.B) {
	tab := input(b)
	for _, opts := range []string{`include_fields = [name, card]`, `exclude_fields = [age]`} {
		b.Run(strings.Fields(opts)[0], func(b *testing.B) {
			tr := transformtest.MustBuild(b, "Filter", opts, tab)
			transformtest.BenchRows(b, tab.ID(), tr.Process, func(i int) []row.Value {
				return []row.Value{row.IntValue(int32(i)), row.StringValue("Joy Ding"), row.IntValue(20), row.IntValue(123), row.NullValue()}
			})
		})
	}
}

func TestFilterTwoTables(t *testing.T) {
	a := transformtest.Table(t, `id = int, name = string`)
	a.Path = catalog.TablePath{Table: "a"}
	b := transformtest.Table(t, `name = string, id = int, z = int`)
	b.Path = catalog.TablePath{Table: "b"}
	tr := transformtest.MustBuild(t, "Filter", `exclude_fields = [id]`, a, b)
	in := row.NewBatch(4)
	r := in.Add(row.Insert, "a", 2)
	r.Fields[0], r.Fields[1] = row.IntValue(1), row.StringValue("A")
	r = in.Add(row.Insert, "b", 3)
	r.Fields[0], r.Fields[1], r.Fields[2] = row.StringValue("B"), row.IntValue(2), row.IntValue(3)
	rows, err := transformtest.Run(t, in, tr)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rows[0].Fields) != "[A]" || fmt.Sprint(rows[1].Fields) != "[B 3]" {
		t.Fatalf("rows %v", rows)
	}
	in = row.NewBatch(1)
	in.Add(row.Insert, "c", 2)
	if _, err := tr.Process(t.Context(), in); err == nil {
		t.Fatal("a row of an unknown table passed")
	}
}

func TestFilterOptions(t *testing.T) {
	optiontest.Check(t, plantest.Warnings, `id = int, name = string`, []optiontest.Case{
		{Block: `Filter { plugin_input = src, plugin_output = out, include_fields = [id] }`},
		{Block: `Filter { fields = [id] }`},
		{Block: `Filter { exclude_fields = [id], exclude_field = [name] }`, Warning: `unknown option "exclude_field" (did you mean "exclude_fields"?)`},
		{Block: `Filter { include_fields = [id], inclde_fields = [name] }`, Warning: `unknown option "inclde_fields" (did you mean "include_fields"?)`},
		{Block: `Filter { field = [id] }`, Err: "transform[0] Filter: set one of include_fields and exclude_fields"},
	})
}
