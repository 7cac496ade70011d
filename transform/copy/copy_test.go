package copy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strait-dev/strait/planner/plantest"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/row"
	_ "github.com/strait-dev/strait/transform/copy"
	"github.com/strait-dev/strait/transform/internal/optiontest"
	"github.com/strait-dev/strait/transform/internal/transformtest"
)

func input(t testing.TB) *catalog.Table {
	tab := transformtest.Table(t, `id = int, name = string, age = int, tags = "array<string>"`)
	tab.PrimaryKey = &catalog.PrimaryKey{Name: "pk", Columns: []string{"id"}}
	return tab
}

func batch(tab *catalog.Table) *row.Batch {
	return transformtest.Batch(tab.ID(), row.UpdateBefore,
		[]row.Value{row.IntValue(1), row.StringValue("Joy"), row.IntValue(20), row.ArrayValue([]row.Value{row.StringValue("a")})},
		[]row.Value{row.IntValue(2), row.NullValue(), row.IntValue(21), row.NullValue()})
}

func TestCopy(t *testing.T) {
	tab := input(t)
	for _, c := range []struct {
		opts, schema, first string
		same                bool
	}{
		{`src_field = name, dest_field = name1`, "{id = int, name = string, age = int, tags = array<string>, name1 = string}", "[1 Joy 20 [a] Joy]", false},
		{`fields { name1 = name, name2 = name, age1 = age }`, "{id = int, name = string, age = int, tags = array<string>, name1 = string, name2 = string, age1 = int}", "[1 Joy 20 [a] Joy Joy 20]", false},
		{`fields { tags2 = tags }`, "{id = int, name = string, age = int, tags = array<string>, tags2 = array<string>}", "[1 Joy 20 [a] [a]]", false},
		// a copy onto an existing field overwrites it and takes the source's type
		{`fields { name = id }`, "{id = int, name = int, age = int, tags = array<string>}", "[1 1 20 [a]]", true},
		{`fields { name = age, age = name }`, "{id = int, name = int, age = string, tags = array<string>}", "[1 20 Joy [a]]", true},
		{`fields { x = id, name = x }`, "", "", false},
		{`fields { a = id }, src_field = name, dest_field = b`, "{id = int, name = string, age = int, tags = array<string>, a = int}", "[1 Joy 20 [a] 1]", false},
	} {
		tr, err := transformtest.Build(t, "Copy", c.opts, tab)
		if c.schema == "" {
			if err == nil {
				t.Errorf("%s: no error", c.opts)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.opts, err)
		}
		out := tr.Outputs()[0]
		if s := out.RowType().String(); s != c.schema {
			t.Errorf("%s: schema %s, want %s", c.opts, s, c.schema)
		}
		if out.PrimaryKey == nil || out.ID() != tab.ID() {
			t.Errorf("%s: lost the key or the table id", c.opts)
		}
		transformtest.ProcessFirst(t, c.opts, tr, batch(tab), c.same, row.UpdateBefore, c.first)
	}
}

func TestCopyIsDeep(t *testing.T) {
	tab := input(t)
	tr := transformtest.MustBuild(t, "Copy", `fields { tags2 = tags }`, tab)
	res, err := tr.Process(t.Context(), batch(tab))
	if err != nil {
		t.Fatal(err)
	}
	transformtest.Unshared(t, res.Rows[0].Fields[3], res.Rows[0].Fields[4])
	res.Release()
}

func TestCopyErrors(t *testing.T) {
	tab := input(t)
	transformtest.BuildErrors(t, "Copy", tab, []transformtest.ErrorCase{
		{``, "fields: option is required"},
		{`src_field = name`, "dest_field: option is required"},
		{`dest_field = name2`, "src_field: option is required"},
		{`src_field = nom, dest_field = x`, `src_field: field "nom" is not in the input table`},
		{`fields { x = nom }`, `fields: field "nom" is not in the input table`},
		{`fields = [a]`, "fields: expected an object"},
		{`fields { x = "" }`, `fields.x: the source field of "x" is empty`},
	})
}

// copy_transform.conf's two Copy transforms (the whole job runs in e2e): name copied to
// name1, then id, name and the nested row copied once more, each copy equal to its source.
func TestCopyE2E(t *testing.T) {
	job := transformtest.BuildJobFile(t, "transform/copy_transform.conf",
		"{id = int, name = string, c_row = {c_row = {c_int = int}}, name1 = string, id_1 = int, name2 = string, name3 = string, c_row_1 = {c_row = {c_int = int}}}")
	in := transformtest.Batch(job.Source.ID(), row.Insert,
		[]row.Value{row.IntValue(1), row.StringValue("Joy"), transformtest.CRow(7)},
		[]row.Value{row.IntValue(2), row.NullValue(), row.NullValue()},
	)
	transformtest.RunRows(t, in, job.Transforms, "[1 Joy [[7]] Joy 1 Joy Joy [[7]]]", "[2 null null null 2 null null null]")
}

func BenchmarkCopy(b *testing.B) {
	tab := input(b)
	tr := transformtest.MustBuild(b, "Copy", `fields { name1 = name, age1 = age }`, tab)
	transformtest.BenchRows(b, tab.ID(), tr.Process, func(i int) []row.Value {
		return []row.Value{row.IntValue(int32(i)), row.StringValue("Joy Ding"), row.IntValue(20), row.NullValue()}
	})
}

func TestCopyTwoTables(t *testing.T) {
	a := transformtest.Table(t, `id = int, name = string`)
	a.Path = catalog.TablePath{Database: "db", Table: "a"}
	b := transformtest.Table(t, `name = string, x = double, y = int`)
	b.Path = catalog.TablePath{Database: "db", Table: "b"}
	tr := transformtest.MustBuild(t, "Copy", `fields { n2 = name }`, a, b)
	outs := tr.Outputs()
	if len(outs) != 2 || outs[0].RowType().String() != "{id = int, name = string, n2 = string}" ||
		outs[1].RowType().String() != "{name = string, x = double, y = int, n2 = string}" || outs[1].ID() != "db.b" {
		t.Fatalf("outputs %v %v", outs[0].RowType(), outs[1].RowType())
	}
	in := row.NewBatch(4)
	r := in.Add(row.Insert, "db.b", 3)
	r.Fields[0], r.Fields[1], r.Fields[2] = row.StringValue("B"), row.DoubleValue(1), row.IntValue(2)
	r = in.Add(row.Insert, "db.a", 2)
	r.Fields[0], r.Fields[1] = row.IntValue(1), row.StringValue("A")
	rows, err := transformtest.Run(t, in, tr)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rows[0].Fields) != "[B 1.0 2 B]" || fmt.Sprint(rows[1].Fields) != "[1 A A]" || rows[0].Table != "db.b" {
		t.Fatalf("rows %v", rows)
	}
	in = row.NewBatch(1)
	in.Add(row.Insert, "db.c", 2)
	if _, err := tr.Process(t.Context(), in); err == nil || !strings.Contains(err.Error(), `"db.c"`) {
		t.Fatalf("unknown table: %v", err)
	}
	if _, err := transformtest.Build(t, "Copy", `fields { n2 = id }`, a, b); err == nil || !strings.Contains(err.Error(), "db.b") {
		t.Fatalf("a field missing from one table: %v", err)
	}
}

func TestCopyBadRowWidth(t *testing.T) {
	tab := input(t)
	tr := transformtest.MustBuild(t, "Copy", `fields { n = name }`, tab)
	in := row.NewBatch(1)
	in.Add(row.Insert, tab.ID(), 2)
	if _, err := tr.Process(t.Context(), in); err == nil || !strings.Contains(err.Error(), "has 2 fields, but its table has 4") {
		t.Fatalf("got %v", err)
	}
}

func TestCopyOptions(t *testing.T) {
	optiontest.Check(t, plantest.Warnings, `id = int, name = string`, []optiontest.Case{
		{Block: `Copy { plugin_input = src, plugin_output = out, fields { n = name } }`},
		{Block: `Copy { src_field = name, dest_field = n }`},
		{Block: `Copy { fields { n = name }, feilds { m = name } }`, Warning: `unknown option "feilds.m"`},
		{Block: `Copy { fields { n = name }, dest_feild = x }`, Warning: `unknown option "dest_feild" (did you mean "dest_field"?) at job.conf:4:`},
		{Block: `Copy { feilds { n = name } }`, Err: "transform[0] Copy: fields: option is required"},
		{Block: `Copy { src_field = name }`, Err: "transform[0] Copy: dest_field: option is required"},
	})
}
