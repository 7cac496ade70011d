package console

import (
	"strings"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// A schema change is printed as SeaTunnel's writer logs it, between the rows before and
// after it, and the writer takes the new columns.
func TestSchemaChangePrinted(t *testing.T) {
	out := capture(t)
	root, err := hocon.Parse([]byte(""), hocon.Options{File: "console.conf"})
	if err != nil {
		t.Fatal(err)
	}
	in := &catalog.Table{Path: catalog.TablePath{Database: "shop", Table: "products"}, Columns: []catalog.Column{
		{Name: "id", Type: types.Of(types.Int)}, {Name: "name", Type: types.Of(types.String)}}}
	build, _, _ := connector.LookupSink("Console")
	s, err := build(&connector.SinkContext{Options: config.New(root, "sink[0] Console"), Inputs: []*catalog.Table{in}})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWriter(connector.WriterContext{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := row.NewBatch(2)
	r := b.Add(row.Insert, "shop.products", 2)
	r.Fields[0], r.Fields[1] = row.IntValue(1), row.StringValue("a")
	if err := w.Write(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	c := &connector.SchemaChange{Table: "shop.products", Columns: []connector.ColumnChange{
		{Op: connector.AddColumn, Column: catalog.Column{Name: "price", Type: types.DecimalOf(10, 2)}},
		{Op: connector.DropColumn, Name: "name"}}}
	if err := w.(connector.SchemaChangeApplier).ApplySchemaChange(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	want := "subtaskIndex=0  rowIndex=1:  SeaTunnelRow#tableId=shop.products SeaTunnelRow#kind=INSERT : 1, a\n" +
		"changed rowType before: id<INT>, name<STRING>\n" +
		"changed rowType after: id<INT>, price<DECIMAL(10, 2)>\n"
	if out.String() != want {
		t.Fatalf("printed\n%s\nwant\n%s", out.String(), want)
	}
	// a change that does not fit the writer's table (a restore's plan is newer) is printed as
	// it is
	c.Statement = "ALTER TABLE products ADD price DECIMAL(10,2), DROP name"
	if err := w.(connector.SchemaChangeApplier).ApplySchemaChange(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "changed rowType of table shop.products: ALTER TABLE products ADD price DECIMAL(10,2), DROP name\n") {
		t.Fatalf("printed\n%s", out.String())
	}
	b.Release()
}
