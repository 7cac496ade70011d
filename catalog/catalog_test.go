package catalog

import (
	"strings"
	"testing"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/types"
)

func parse(t *testing.T, text string) (*Table, error) {
	t.Helper()
	v, err := hocon.Parse([]byte(text), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatal(err)
	}
	return ParseSchema(config.New(v, "source[0] FakeSource"), "schema", "out")
}

func TestSchemaForms(t *testing.T) {
	tb, err := parse(t, `schema { table = "db.s.t", fields { id = bigint, "c.x" = "decimal(30, 8)", r = { a = int } } }`)
	if err != nil {
		t.Fatal(err)
	}
	if tb.ID() != "db.s.t" || len(tb.Columns) != 3 || tb.Columns[1].Name != "c.x" || tb.Columns[2].Type.String() != "{a = int}" {
		t.Fatalf("%+v", tb)
	}
	tb, err = parse(t, `schema {
  columns = [ { name = id, type = bigint, nullable = false }, { name = name, type = string, columnLength = 10 } ]
  primaryKey { name = pk, columnNames = [id] }
  constraintKeys = [ { constraintName = idx, constraintType = UNIQUE_KEY, constraintColumns = [ { columnName = name, sortType = desc } ] } ]
}`)
	if err != nil {
		t.Fatal(err)
	}
	if tb.ID() != "out" || tb.Columns[0].Nullable || tb.Columns[1].Length != 10 || tb.PrimaryKey.Columns[0] != "id" ||
		tb.ConstraintKeys[0].Columns[0].Sort != "DESC" {
		t.Fatalf("%+v", tb)
	}
}

func TestSchemaErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`schema { fields { a = strng } }`, `schema.fields.a: unknown type "strng"`},
		{`schema { fields { a = int }, columns = [ { name = a, type = int } ] }`, "schema.fields: a schema has either `fields` or `columns`, not both"},
		{`schema { columns = [ { name = a, type = int }, { name = a, type = int } ] }`, `duplicate column "a"`},
		{`schema { fields { "" = int } }`, `a field has an empty name`},
		{`schema { columns = [ { name = " ", type = int } ] }`, `a column has an empty name`},
		{`schema { fields { a = int }, primaryKey { name = pk, columnNames = [b] } }`, `unknown column "b"`},
		{`schema { table = "a.b.c.d", fields { a = int } }`, "more than three parts"},
	} {
		_, err := parse(t, c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.text, err, c.want)
		}
	}
}

// TestKeepPresentKeys: keys naming a column the table lost go, the others stay.
func TestKeepPresentKeys(t *testing.T) {
	str := types.Of(types.String)
	tbl := &Table{
		Columns:    []Column{{Name: "id", Type: str}, {Name: "name", Type: str}},
		PrimaryKey: &PrimaryKey{Name: "pk", Columns: []string{"id", "gone"}},
		ConstraintKeys: []ConstraintKey{
			{Name: "by_name", Type: "INDEX_KEY", Columns: []ConstraintCol{{Name: "name"}}},
			{Name: "by_gone", Type: "UNIQUE_KEY", Columns: []ConstraintCol{{Name: "id"}, {Name: "gone"}}},
		},
	}
	tbl.KeepPresentKeys()
	if tbl.PrimaryKey != nil {
		t.Errorf("the primary key on a missing column stayed: %+v", tbl.PrimaryKey)
	}
	if len(tbl.ConstraintKeys) != 1 || tbl.ConstraintKeys[0].Name != "by_name" {
		t.Errorf("constraint keys %+v, want by_name only", tbl.ConstraintKeys)
	}
	tbl.PrimaryKey = &PrimaryKey{Name: "pk", Columns: []string{"id"}}
	tbl.KeepPresentKeys()
	if tbl.PrimaryKey == nil || len(tbl.ConstraintKeys) != 1 {
		t.Errorf("keys on present columns went: %+v %+v", tbl.PrimaryKey, tbl.ConstraintKeys)
	}
}
