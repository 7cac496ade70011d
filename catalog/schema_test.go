package catalog

import (
	"strings"
	"testing"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
)

// describe renders a table for comparison: path, columns with types and nullability,
// primary key and constraint keys.
func describe(t *Table) string {
	var b strings.Builder
	b.WriteString(t.ID() + ":")
	for _, c := range t.Columns {
		b.WriteString(" " + c.Name + " " + c.Type.String())
		if !c.Nullable {
			b.WriteString(" not null")
		}
		if c.Length > 0 {
			b.WriteString(" len")
		}
	}
	if t.PrimaryKey != nil {
		b.WriteString(" pk " + t.PrimaryKey.Name + "(" + strings.Join(t.PrimaryKey.Columns, ",") + ")")
	}
	for _, k := range t.ConstraintKeys {
		b.WriteString(" " + k.Type + " " + k.Name + "(")
		for i, c := range k.Columns {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(c.Name + " " + c.Sort)
		}
		b.WriteString(")")
	}
	return b.String()
}

// The forms of SeaTunnel's schema option that ReadonlyConfigParser reads.
func TestSchemaSeaTunnelForms(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"empty", `schema { }`, "out:"},
		{"only a table", `schema { table = "db.t" }`, "db.t:"},
		{"the schema as JSON", `schema = """{"table": "db.t", "fields": {"id": "bigint", "r": {"a": "int"}, "n": "decimal(10, 2)"}}"""`,
			"db.t: id bigint r {a = int} n decimal(10, 2)"},
		{"columns and keys as JSON", `schema = """{"columns": [{"name": "id", "type": "bigint", "nullable": false}, {"name": "s", "type": "string", "columnLength": 10}],
			"primaryKey": {"name": "pk", "columnNames": ["id"]},
			"constraintKeys": [{"constraintName": "uk", "constraintType": "UNIQUE_KEY", "constraintColumns": [{"columnName": "s", "sortType": "DESC"}]}]}"""`,
			"out: id bigint not null s string len pk pk(id) UNIQUE_KEY uk(s DESC)"},
		{"fields as JSON", `schema { table = t, fields = """{"b": "int", "a": "string"}""" }`, "t: b int a string"},
		{"columns as JSON", `schema { columns = """[{"name": "a", "type": "int"}]""" }`, "out: a int"},
		{"keys as JSON", `schema { fields { id = int, s = string }, primaryKey = """{"name": "pk", "columnNames": ["id", "s"]}""", constraintKeys = """[{"constraintName": "k", "constraintType": "KEY", "constraintColumns": [{"columnName": "s"}]}]""" }`,
			"out: id int s string pk pk(id,s) KEY k(s ASC)"},
		{"key columns as JSON and as a list in a string", `schema { fields { id = int, s = string }, primaryKey { name = pk, columnNames = """["s"]""" }, constraintKeys = [ { constraintName = k, constraintType = INDEX_KEY, constraintColumns = """[{"columnName": "id"}]""" } ] }`,
			"out: id int s string pk pk(s) INDEX_KEY k(id ASC)"},
		{"key columns comma-separated", `schema { fields { id = int, s = string }, primaryKey { name = pk, columnNames = "id, s" } }`, "out: id int s string pk pk(id,s)"},
		{"values as strings", `schema { columns = [ { name = a, type = int, nullable = "false", columnLength = "3" } ] }`, "out: a int not null len"},
		{"a row type in columns", `schema { columns = [ { name = r, type = { x = int, y = "array<string>" } }, { name = j, type = "{\"p\": \"bigint\"}" } ] }`,
			"out: r {x = int, y = array<string>} j {p = bigint}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := hocon.Parse([]byte(c.text), hocon.Options{File: "job.conf"})
			if err != nil {
				t.Fatal(err)
			}
			opts := config.New(v, "source[0] FakeSource")
			tb, err := ParseSchema(opts, "schema", "out")
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(tb); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			if u := opts.Unused(); len(u) > 0 {
				t.Errorf("options left unread: %v", u)
			}
		})
	}
}

func TestSchemaJSONErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`schema = """{"fields": {"a": "int"}"""`, "schema: not valid JSON: the text ends before the JSON value does (at job.conf:1:10)"},
		{`schema = """{"fields": {"a": "int"}} x"""`, "schema: not valid JSON: text after the JSON value"},
		{`schema = """{"fields": {"a": "strng"}}"""`, `schema.fields.a: unknown type "strng"`},
		{`schema { columns = "[{\"type\": \"int\"}]" }`, "schema.columns[0].name: option is required"},
		{`schema = "fields"`, "schema: expected an object, found string"},
		{`schema { fields = """{"a": "int"}""", columns = """[{"name": "a", "type": "int"}]""" }`, "not both"},
	} {
		_, err := parse(t, c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.text, err, c.want)
		}
	}
}
