package fieldmapper_test

import (
	"strings"
	"testing"

	"github.com/strait-dev/strait/planner/plantest"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/row"
	_ "github.com/strait-dev/strait/transform/fieldmapper"
	"github.com/strait-dev/strait/transform/internal/optiontest"
	"github.com/strait-dev/strait/transform/internal/transformtest"
)

func input(t testing.TB) *catalog.Table {
	tab := transformtest.Table(t, `id = int, name = string, age = int, card = int`)
	tab.Columns[1].Comment = "the name"
	tab.Columns[1].Length = 64
	tab.PrimaryKey = &catalog.PrimaryKey{Name: "pk", Columns: []string{"id"}}
	tab.ConstraintKeys = []catalog.ConstraintKey{{Name: "uk", Type: "UNIQUE_KEY", Columns: []catalog.ConstraintCol{{Name: "card"}}}}
	return tab
}

func TestFieldMapper(t *testing.T) {
	tab := input(t)
	for _, c := range []struct {
		opts, cols string
		pk, uk     bool
		first      string
		same       bool
	}{
		{`field_mapper = { id = id, card = card, name = new_name }`, "id card new_name", true, true, "[1 123 Joy Ding]", false},
		{`field_mapper { card = card_no, id = id }`, "card_no id", true, false, "[123 1]", false},
		{`field_mapper { id = key, name = name }`, "key name", false, false, "[1 Joy Ding]", false},
		{`field_mapper { id = a, name = b, age = c, card = d }`, "a b c d", false, false, "[1 Joy Ding 20 123]", true},
		{`field_mapper { id = id, name = name, age = age, card = card }`, "id name age card", true, true, "[1 Joy Ding 20 123]", true},
	} {
		tr := transformtest.MustBuild(t, "FieldMapper", c.opts, tab)
		out := tr.Outputs()[0]
		var names []string
		for _, col := range out.Columns {
			names = append(names, col.Name)
		}
		if strings.Join(names, " ") != c.cols || (out.PrimaryKey != nil) != c.pk || (len(out.ConstraintKeys) > 0) != c.uk {
			t.Errorf("%s: columns %v pk %v keys %v", c.opts, names, out.PrimaryKey, out.ConstraintKeys)
		}
		if i := out.ColumnIndex("new_name"); i >= 0 && (out.Columns[i].Comment != "the name" || out.Columns[i].Length != 64) {
			t.Errorf("%s: renamed column lost its attributes: %+v", c.opts, out.Columns[i])
		}
		in := transformtest.Batch(tab.ID(), row.Delete,
			[]row.Value{row.IntValue(1), row.StringValue("Joy Ding"), row.IntValue(20), row.IntValue(123)})
		transformtest.ProcessFirst(t, c.opts, tr, in, c.same, row.Delete, c.first)
	}
}

func TestFieldMapperErrors(t *testing.T) {
	tab := input(t)
	transformtest.BuildErrors(t, "FieldMapper", tab, []transformtest.ErrorCase{
		{``, "field_mapper: option is required"},
		{`field_mapper = [id]`, "field_mapper: expected an object"},
		{`field_mapper { nom = x }`, `field_mapper: field "nom" is not in the input table`},
		{`field_mapper { nom = x, y = z }`, `field_mapper: fields "nom", "y" are not in`},
		{`field_mapper { id = x, name = x }`, `field_mapper.name: output field "x" is already the name of "id"`},
		{`field_mapper { id = {a = b} }`, `field_mapper.id: expected a string`},
		{`field_mapper { id = "" }`, `field_mapper.id: the output name of field "id" is empty`},
	})
}

// field_mapper_transform.conf's FieldMapper (the whole job runs in e2e): the mapped fields in
// the mapping's order, renamed, the others dropped.
func TestFieldMapperE2E(t *testing.T) {
	job := transformtest.BuildJobFile(t, "transform/field_mapper_transform.conf",
		"{id = int, age_as = int, int1_as = int, name = string, c_row = {c_row = {c_int = int}}}")
	in := transformtest.Batch(job.Source.ID(), row.Insert,
		[]row.Value{row.IntValue(1), row.StringValue("Joy"), row.IntValue(20), row.StringValue("s"), row.IntValue(5), row.BigIntValue(9), transformtest.CRow(7)},
		[]row.Value{row.IntValue(2), row.NullValue(), row.IntValue(30), row.NullValue(), row.NullValue(), row.NullValue(), row.NullValue()},
	)
	transformtest.RunRows(t, in, job.Transforms, "[1 20 5 Joy [[7]]]", "[2 30 null null null]")
}

func BenchmarkFieldMapper(b *testing.B) {
	tab := input(b)
	tr := transformtest.MustBuild(b, "FieldMapper", `field_mapper = { id = id, card = card, name = new_name }`, tab)
	transformtest.BenchRows(b, tab.ID(), tr.Process, func(i int) []row.Value {
		return []row.Value{row.IntValue(int32(i)), row.StringValue("Joy Ding"), row.IntValue(20), row.IntValue(123)}
	})
}

func TestFieldMapperOptions(t *testing.T) {
	optiontest.Check(t, plantest.Warnings, `id = int, name = string`, []optiontest.Case{
		{Block: `FieldMapper { plugin_input = src, plugin_output = out, parallelism = 1, field_mapper { id = key } }`},
		{Block: `FieldMapper { field_mapper { id = key }, field_maper { name = n } }`, Warning: `unknown option "field_maper.name"`},
		{Block: `FieldMapper { field_mapper { id = key }, field_mappr = x }`, Warning: `unknown option "field_mappr" (did you mean "field_mapper"?)`},
		{Block: `FieldMapper { field_maper { id = key } }`, Err: "transform[0] FieldMapper: field_mapper: option is required"},
	})
}
