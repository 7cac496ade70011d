package conntest

import (
	"context"
	"strings"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func typesTable(t *testing.T) *catalog.Table {
	t.Helper()
	rt, err := types.Parse(`{id = int, d = "decimal(10, 2)", m = "map<string, array<int>>", r = {a = bigint, b = string}, n = null}`)
	if err != nil {
		t.Fatal(err)
	}
	return catalog.FromRowType(catalog.TablePath{Database: "db", Table: "t"}, rt.Row)
}

func TestAssertTypes(t *testing.T) {
	tab := typesTable(t)
	dec := func(s string, scale int) row.Value {
		v, err := row.ParseDecimal(s, 10, scale)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	m := row.MapOfValues(&row.MapValue{Keys: []row.Value{row.StringValue("k")}, Vals: []row.Value{row.ArrayValue([]row.Value{row.IntValue(1)})}})
	good := []row.Value{row.IntValue(1), dec("1.50", 2), m, row.RowValue([]row.Value{row.BigIntValue(2), row.StringValue("x")}), row.NullValue()}
	mk := func(change func(f []row.Value)) []row.Row {
		f := append([]row.Value(nil), good...)
		if change != nil {
			change(f)
		}
		return []row.Row{{Kind: row.Insert, Table: tab.ID(), Fields: f}}
	}
	ctx := context.Background()
	if err := AssertTypes(ctx, tab, mk(nil)); err != nil {
		t.Fatalf("rows of the table's types: %v", err)
	}
	for _, c := range []struct {
		name   string
		change func(f []row.Value)
		cols   []string
		want   string // "" when the rows pass
	}{
		{"int as bigint", func(f []row.Value) { f[0] = row.BigIntValue(1) }, nil, "fieldName=id"},
		{"decimal of another scale", func(f []row.Value) { f[1] = dec("1.5", 1) }, nil, "fieldName=d"},
		{"map of strings", func(f []row.Value) {
			f[2] = row.MapOfValues(&row.MapValue{Keys: []row.Value{row.StringValue("k")}, Vals: []row.Value{row.ArrayValue([]row.Value{row.StringValue("1")})}})
		}, nil, "fieldName=m"},
		{"row field", func(f []row.Value) { f[3] = row.RowValue([]row.Value{row.IntValue(2), row.StringValue("x")}) }, nil, "fieldName=r"},
		{"null in an int column", func(f []row.Value) { f[0] = row.NullValue() }, nil, "field id is null"},
		{"a value in the null column", func(f []row.Value) { f[4] = row.IntValue(1) }, nil, "fieldName=n"},
		{"a column left out", func(f []row.Value) { f[0] = row.BigIntValue(1) }, []string{"d", "m"}, ""},
	} {
		err := AssertTypes(ctx, tab, mk(c.change), c.cols...)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if err := AssertTypes(ctx, tab, mk(nil), "nope"); err == nil || !strings.Contains(err.Error(), `column "nope" is not in table db.t`) {
		t.Errorf("unknown column: %v", err)
	}
}
