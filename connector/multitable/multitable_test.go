package multitable

import (
	"strings"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
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

// tableSink is a sink built by BuildDecoded's test: it keeps the options it was built from.
type tableSink struct {
	c *testOptions
}

func (tableSink) CreateWriter(connector.WriterContext, [][]byte) (connector.Writer, error) {
	return nil, nil
}
func (tableSink) CreateCommitter() (connector.Committer, error) { return nil, nil }

type testOptions struct {
	Path  string `opt:"path,required"`
	Batch int64  `opt:"batch_size" default:"10"`
}

func decodedSink(t *testing.T, src string, inputs ...*catalog.Table) (connector.Sink, error) {
	t.Helper()
	root, err := hocon.Parse([]byte(src), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := &connector.SinkContext{Options: config.New(root, "sink[0] Test"), Inputs: inputs}
	return BuildDecoded(ctx, func(ctx *connector.SinkContext, c *testOptions) (connector.Sink, error) {
		if len(ctx.Inputs) != 1 {
			t.Errorf("a table's sink built with %d tables", len(ctx.Inputs))
		}
		return tableSink{c}, nil
	})
}

func TestBuildDecoded(t *testing.T) {
	users := &catalog.Table{Path: catalog.TablePath{Database: "db", Table: "users"}, Columns: []catalog.Column{{Name: "id"}}}
	orders := &catalog.Table{Path: catalog.TablePath{Database: "db", Table: "orders"}, Columns: []catalog.Column{{Name: "id"}}}
	s, err := decodedSink(t, `path = "/data/${table_name}"`, users, orders)
	if err != nil {
		t.Fatal(err)
	}
	m := s.(*Sink)
	for id, want := range map[string]string{"db.users": "/data/users", "db.orders": "/data/orders"} {
		got := m.sinks[id].(tableSink).c
		if got.Path != want || got.Batch != 10 {
			t.Errorf("%s: decoded %+v, want path %s and the default batch size", id, got, want)
		}
	}
	one, err := decodedSink(t, `path = "/data/${table_name}", batch_size = 3`, users)
	if err != nil {
		t.Fatal(err)
	}
	if c := one.(tableSink).c; c.Path != "/data/users" || c.Batch != 3 {
		t.Errorf("one table: %+v", c)
	}
	for src, want := range map[string]string{
		`batch_size = 3`:                         "table db.users: sink[0] Test: path: option is required",
		`path = x, batch_size = "${table_name}"`: `table db.users: sink[0] Test: batch_size: "users" is not an integer`,
	} {
		if _, err := decodedSink(t, src, users, orders); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", src, err, want)
		}
	}
}

// A sink registered with RegisterSink is listed with its options' spec, and the registry's
// factory builds it once per input table.
func TestRegisterSink(t *testing.T) {
	RegisterSink("MultitableTestSink", "a sink of the package's tests", func(_ *connector.SinkContext, c *testOptions) (connector.Sink, error) {
		return tableSink{c}, nil
	})
	build, name, ok := connector.LookupSink("multitabletestsink")
	if !ok || name != "MultitableTestSink" {
		t.Fatalf("not registered: %q %v", name, ok)
	}
	root, err := hocon.Parse([]byte(`path = "/data/${table_name}"`), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatal(err)
	}
	users := &catalog.Table{Path: catalog.TablePath{Database: "db", Table: "users"}, Columns: []catalog.Column{{Name: "id"}}}
	orders := &catalog.Table{Path: catalog.TablePath{Database: "db", Table: "orders"}, Columns: []catalog.Column{{Name: "id"}}}
	s, err := build(&connector.SinkContext{Options: config.New(root, "sink[0] MultitableTestSink"), Inputs: []*catalog.Table{users, orders}})
	if err != nil {
		t.Fatal(err)
	}
	m := s.(*Sink)
	if got := m.sinks["db.orders"].(tableSink).c.Path; got != "/data/orders" {
		t.Errorf("orders' sink built with path %q", got)
	}
}
