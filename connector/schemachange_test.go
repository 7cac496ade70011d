package connector

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/types"
)

func products() *catalog.Table {
	col := func(name string, k types.Kind) catalog.Column {
		return catalog.Column{Name: name, Type: types.Of(k), Nullable: true}
	}
	return &catalog.Table{
		Path:       catalog.TablePath{Database: "shop", Table: "products"},
		Columns:    []catalog.Column{col("id", types.Int), col("name", types.String), col("weight", types.Float)},
		PrimaryKey: &catalog.PrimaryKey{Name: "PRIMARY", Columns: []string{"id"}},
		ConstraintKeys: []catalog.ConstraintKey{{Name: "by_name", Type: "INDEX_KEY",
			Columns: []catalog.ConstraintCol{{Name: "name"}}}},
	}
}

func names(t *catalog.Table) string {
	var out []string
	for _, c := range t.Columns {
		out = append(out, c.Name+":"+c.Type.String())
	}
	return strings.Join(out, " ")
}

func TestSchemaChangeApply(t *testing.T) {
	str := catalog.Column{Name: "x", Type: types.Of(types.String)}
	big := func(name string) catalog.Column { return catalog.Column{Name: name, Type: types.Of(types.BigInt)} }
	for _, c := range []struct {
		name    string
		changes []ColumnChange
		want    string
		keys    string // the index's columns after the change
	}{
		{"add last", []ColumnChange{{Op: AddColumn, Column: str}}, "id:int name:string weight:float x:string", "name"},
		{"add first", []ColumnChange{{Op: AddColumn, Column: str, First: true}}, "x:string id:int name:string weight:float", "name"},
		{"add after", []ColumnChange{{Op: AddColumn, Column: str, After: "ID"}}, "id:int x:string name:string weight:float", "name"},
		{"two adds", []ColumnChange{{Op: AddColumn, Column: str}, {Op: AddColumn, Column: big("y"), After: "x"}},
			"id:int name:string weight:float x:string y:bigint", "name"},
		{"drop", []ColumnChange{{Op: DropColumn, Name: "Weight"}}, "id:int name:string", "name"},
		{"drop an indexed column", []ColumnChange{{Op: DropColumn, Name: "name"}}, "id:int weight:float", ""},
		{"modify in place", []ColumnChange{{Op: ModifyColumn, Column: big("weight")}}, "id:int name:string weight:bigint", "name"},
		{"modify first", []ColumnChange{{Op: ModifyColumn, Column: big("weight"), First: true}}, "weight:bigint id:int name:string", "name"},
		{"modify after", []ColumnChange{{Op: ModifyColumn, Column: big("id"), After: "weight"}}, "name:string weight:float id:bigint", "name"},
		{"change renames", []ColumnChange{{Op: ChangeColumn, Name: "name", Column: str}}, "id:int x:string weight:float", "x"},
		{"change and move", []ColumnChange{{Op: ChangeColumn, Name: "name", Column: str, After: "weight"}}, "id:int weight:float x:string", "x"},
		{"change the key", []ColumnChange{{Op: ChangeColumn, Name: "id", Column: big("pid")}}, "pid:bigint name:string weight:float", "name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := products()
			got, err := (&SchemaChange{Table: "shop.products", Columns: c.changes}).Apply(in)
			if err != nil {
				t.Fatal(err)
			}
			if names(got) != c.want {
				t.Fatalf("columns %s, want %s", names(got), c.want)
			}
			if names(in) != "id:int name:string weight:float" {
				t.Fatalf("the input changed: %s", names(in))
			}
			keys := ""
			if len(got.ConstraintKeys) > 0 {
				keys = got.ConstraintKeys[0].Columns[0].Name
			}
			if keys != c.keys {
				t.Fatalf("index on %q, want %q", keys, c.keys)
			}
			if c.name == "change the key" && got.PrimaryKey.Columns[0] != "pid" {
				t.Fatalf("primary key %v", got.PrimaryKey.Columns)
			}
		})
	}
}

func TestSchemaChangeApplyErrors(t *testing.T) {
	for _, c := range []struct {
		change ColumnChange
		want   string
	}{
		{ColumnChange{Op: AddColumn, Column: catalog.Column{Name: "NAME"}}, `column "NAME" exists`},
		{ColumnChange{Op: DropColumn, Name: "nope"}, `no column "nope"`},
		{ColumnChange{Op: DropColumn, Name: "id"}, `column "id" is part of the primary key`},
		{ColumnChange{Op: ModifyColumn, Column: catalog.Column{Name: "nope"}}, `no column "nope"`},
		{ColumnChange{Op: ChangeColumn, Name: "name", Column: catalog.Column{Name: "weight"}}, `column "weight" exists`},
		{ColumnChange{Op: AddColumn, Column: catalog.Column{Name: "x"}, After: "nope"}, `no column "nope" to place it after`},
		{ColumnChange{Op: "RENAME"}, `unknown column change "RENAME"`},
	} {
		_, err := (&SchemaChange{Table: "shop.products", Columns: []ColumnChange{c.change}}).Apply(products())
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "table shop.products") {
			t.Errorf("%s: %v, want %q", c.change, err, c.want)
		}
	}
}

// A restored writer's input is the one its states keep for the planned table (the last
// state that keeps one), none when no state does; a state that is not JSON is an error.
func TestRestoredInput(t *testing.T) {
	planned := &catalog.Table{Path: catalog.TablePath{Database: "shop", Table: "t"}}
	state := func(table string, cols ...string) []byte {
		in := &catalog.Table{Path: catalog.TablePath{Database: "shop", Table: table}}
		for _, c := range cols {
			in.Columns = append(in.Columns, catalog.Column{Name: c, Type: types.Of(types.Int)})
		}
		b, err := json.Marshal(map[string]any{"input": in, "next_checkpoint": 3})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		states [][]byte
		want   string // the columns of the input found, "-" for none
	}{
		{"no states", nil, "-"},
		{"states without an input", [][]byte{nil, []byte(`{"next_checkpoint":3}`)}, "-"},
		{"another table's", [][]byte{state("u", "a")}, "-"},
		{"the table's", [][]byte{state("t", "a", "b"), nil}, "a,b"},
		{"the last of two", [][]byte{state("t", "a"), state("t", "a", "c")}, "a,c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := RestoredInput(planned, tc.states)
			if err != nil {
				t.Fatal(err)
			}
			got := "-"
			if in != nil {
				var names []string
				for _, c := range in.Columns {
					names = append(names, c.Name)
				}
				got = strings.Join(names, ",")
			}
			if got != tc.want {
				t.Fatalf("input %s, want %s", got, tc.want)
			}
		})
	}
	if _, err := RestoredInput(planned, [][]byte{[]byte("{")}); err == nil || !strings.Contains(err.Error(), "bad writer state") {
		t.Fatalf("a state that is not JSON: %v", err)
	}
}
