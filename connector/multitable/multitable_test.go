package multitable

import (
	"testing"

	"github.com/strait-dev/strait/catalog"
)

func TestReplaceTable(t *testing.T) {
	full := &catalog.Table{Path: catalog.TablePath{Database: "db", Schema: "sc", Table: "users"},
		Columns:        []catalog.Column{{Name: "id"}, {Name: "name"}, {Name: "email"}},
		PrimaryKey:     &catalog.PrimaryKey{Name: "pk", Columns: []string{"id"}},
		ConstraintKeys: []catalog.ConstraintKey{{Name: "ix", Type: "INDEX_KEY", Columns: []catalog.ConstraintCol{{Name: "name"}}}, {Name: "uk", Type: "UNIQUE_KEY", Columns: []catalog.ConstraintCol{{Name: "email"}, {Name: "name"}}}}}
	bare := &catalog.Table{Path: catalog.TablePath{Table: "t"}, Columns: []catalog.Column{{Name: "a"}}}
	cases := []struct {
		in   string
		t    *catalog.Table
		want string
	}{
		{"/data/${table_name}", full, "/data/users"},
		{"/data/${database_name}/${schema_name}/${table_name}.csv", full, "/data/db/sc/users.csv"},
		{"${schema_full_name}|${table_full_name}", full, "db.sc|db.sc.users"},
		{"${table_full_name}", bare, "t"},
		{"${schema_full_name}", bare, "${schema_full_name}"}, // no database or schema: left
		{"/x/${database_name}/${table_name}", bare, "/x//t"},
		{"/x/${database_name:public}/${table_name:none}", bare, "/x/public/t"},
		{"${primary_key} ${unique_key} ${field_names}", full, "id email,name id,name,email"},
		{"${primary_key} ${unique_key} ${field_names}", bare, "${primary_key} ${unique_key} a"},
		{"${table_name_suffix} ${table_name", full, "${table_name_suffix} ${table_name"},
		{"no placeholders", full, "no placeholders"},
	}
	for _, c := range cases {
		if got := ReplaceTable(c.in, c.t); got != c.want {
			t.Errorf("ReplaceTable(%q, %s) = %q, want %q", c.in, c.t.ID(), got, c.want)
		}
	}
}
