package xform

import (
	"math"
	"strings"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func table(name string, cols ...string) *catalog.Table {
	t := &catalog.Table{Path: catalog.TablePath{Table: name}}
	for _, c := range cols {
		t.Columns = append(t.Columns, catalog.Column{Name: c, Type: types.Of(types.Int), Nullable: true})
	}
	return t
}

func TestWithColumns(t *testing.T) {
	in := table("t", "a", "b")
	in.Columns[1].Comment = "keep me"
	in.PrimaryKey = &catalog.PrimaryKey{Columns: []string{"a"}}
	out, idx := WithColumns(in, []catalog.Column{
		{Name: "c", Type: types.Of(types.String)},
		{Name: "b", Type: types.Of(types.String), Comment: "not me"},
		{Name: "a", Type: types.Of(types.Int), Comment: "nor me"},
		{Name: "c", Type: types.Of(types.Double)},
	})
	if got := out.RowType().String(); got != "{a = int, b = string, c = double}" {
		t.Fatalf("row type %s", got)
	}
	if idx[0] != 2 || idx[1] != 1 || idx[2] != 0 || idx[3] != 2 {
		t.Fatalf("idx %v", idx)
	}
	if out.Columns[1].Comment != "keep me" || out.Columns[0].Comment != "" || out.PrimaryKey == nil {
		t.Fatalf("columns %+v", out.Columns)
	}
	if in.RowType().String() != "{a = int, b = int}" {
		t.Fatal("the input changed")
	}
}

func TestProject(t *testing.T) {
	in := table("t", "a", "b", "c")
	in.PrimaryKey = &catalog.PrimaryKey{Columns: []string{"a", "b"}}
	in.ConstraintKeys = []catalog.ConstraintKey{
		{Name: "k1", Columns: []catalog.ConstraintCol{{Name: "c"}}},
		{Name: "k2", Columns: []catalog.ConstraintCol{{Name: "a"}, {Name: "c"}}},
	}
	out := Project(in, []int{2, 0}, []string{"c", "a"})
	if out.RowType().String() != "{c = int, a = int}" || out.PrimaryKey != nil || len(out.ConstraintKeys) != 2 {
		t.Fatalf("%+v", out)
	}
	// keys follow the output names: a renamed key column drops the key
	out = Project(in, []int{0, 1, 2}, []string{"a", "b", "z"})
	if out.PrimaryKey == nil || len(out.ConstraintKeys) != 0 {
		t.Fatalf("%+v", out)
	}
	if len(in.ConstraintKeys) != 2 || in.PrimaryKey == nil {
		t.Fatal("the input changed")
	}
}

func TestRouter(t *testing.T) {
	one := NewRouter([]*catalog.Table{table("a")})
	if one.Route("whatever") != 0 {
		t.Fatal("a single input takes every row")
	}
	r := NewRouter([]*catalog.Table{table("a"), table("b"), table("c")})
	for _, c := range []struct {
		id   string
		want int
	}{{"b", 1}, {"b", 1}, {"a", 0}, {"c", 2}, {"x", -1}, {"c", 2}} {
		if got := r.Route(c.id); got != c.want {
			t.Fatalf("%s -> %d, want %d", c.id, got, c.want)
		}
	}
}

func TestMove(t *testing.T) {
	b := row.NewBatch(4)
	inner := b.Values(2)
	inner[0], inner[1] = row.IntValue(1), row.ArrayValue([]row.Value{row.StringValue("x")})
	m := &row.MapValue{Keys: []row.Value{row.StringValue("k")}, Vals: []row.Value{row.RowValue(inner)}}
	v := Move(row.MapOfValues(m))
	inner[0] = row.IntValue(99)
	inner[1].Elems()[0] = row.StringValue("y")
	got := v.Map().Vals[0].Fields()
	if got[0].I != 1 || got[1].Elems()[0].S != "x" {
		t.Fatalf("moved value shares memory: %v", v)
	}
	if s := Move(row.StringValue("s")); s.S != "s" {
		t.Fatal(s)
	}
	b.Release()
}

func TestParseText(t *testing.T) {
	for _, c := range []struct{ text, typ, want string }{
		{"42", "int", "42"},
		{"-7", "tinyint", "-7"},
		{"true", "boolean", "true"},
		{"FALSE", "boolean", "false"},
		{"1.5", "double", "1.5"},
		{"1.0E10", "double", "1.0E10"},
		{"NaN", "float", "NaN"},
		{"-Infinity", "double", "-Infinity"},
		{"12.345", "decimal(10, 2)", "12.35"},
		{"2024-02-29", "date", "2024-02-29"},
		{"12:34", "time", "12:34"},
		{"12:34:00", "time", "12:34"},
		{"12:34:56.5", "time", "12:34:56.500"},
		{"2024-02-29T12:34:56", "timestamp", "2024-02-29T12:34:56"},
		{"2024-02-29 12:34:56.123456789", "timestamp", "2024-02-29T12:34:56.123456789"},
		{"x", "string", "x"},
	} {
		v, err := ParseText(c.text, types.MustParse(c.typ))
		if err != nil {
			t.Errorf("%s as %s: %v", c.text, c.typ, err)
			continue
		}
		if got := v.String(); got != c.want {
			t.Errorf("%s as %s = %s, want %s", c.text, c.typ, got, c.want)
		}
	}
	for _, c := range []struct{ text, typ string }{
		{"128", "tinyint"}, {"1.5", "int"}, {"yes", "boolean"}, {"inf", "double"}, {"2023-02-29", "date"},
		{"25:00", "time"}, {"2024-02-29", "timestamp"}, {"1234.5", "decimal(4, 1)"}, {"", "int"},
	} {
		if _, err := ParseText(c.text, types.MustParse(c.typ)); err == nil {
			t.Errorf("%q as %s passed", c.text, c.typ)
		}
	}
	if _, err := ParseText("[1]", types.MustParse("array<int>")); err == nil || !strings.Contains(err.Error(), "no text form") {
		t.Errorf("array: %v", err)
	}
}

func TestParseJavaFloat(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
		f  float64
	}{
		{" 1.5 ", true, 1.5}, {"1.5d", true, 1.5}, {"2F", true, 2}, {"+Infinity", true, math.Inf(1)},
		{"0x1p3", true, 8}, {"1e400", true, math.Inf(1)}, {"infinity", false, 0}, {"nan", false, 0}, {"1_0", false, 0}, {"", false, 0},
	} {
		f, ok := ParseJavaFloat(c.s, 64)
		if ok != c.ok || ok && f != c.f {
			t.Errorf("%q: %v %v, want %v %v", c.s, f, ok, c.f, c.ok)
		}
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("é", 200)
	c := Clip(long)
	if len(c) > 300 || !strings.Contains(c, "(400 bytes)") || !strings.HasPrefix(long, strings.Split(c, "...")[0]) {
		t.Fatalf("%q", c)
	}
}
