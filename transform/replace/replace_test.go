package replace_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strait-dev/strait/planner/plantest"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/optiontest"
	"github.com/strait-dev/strait/transform/internal/transformtest"
	_ "github.com/strait-dev/strait/transform/replace"
)

func TestReplace(t *testing.T) {
	tab := transformtest.Table(t, "id = int, name = string")
	for _, c := range []struct {
		opts string
		in   string
		want string
	}{
		{`replace_field = name, pattern = " ", replacement = "_", is_regex = true`, "Joy Ding Dom", "Joy_Ding_Dom"},
		{`replace_field = name, pattern = " ", replacement = "_", is_regex = true, replace_first = true`, "Joy Ding Dom", "Joy_Ding Dom"},
		{`replace_field = name, pattern = ".+", replacement = "b", is_regex = true, replace_first = true`, "hello", "b"},
		{`replace_field = name, pattern = ".", replacement = "x"`, "a.b.c", "axbxc"},
		{`replace_field = name, pattern = ".", replacement = "x", replace_first = true`, "a.b.c", "axbxc"},
		{`replace_field = name, pattern = "(\\w+) (\\w+)", replacement = "$2, $1", is_regex = true`, "Joy Ding", "Ding, Joy"},
		{`replace_field = name, pattern = "o*", replacement = "X", is_regex = true`, "foo", "XfXX"},
		{`replace_field = name, pattern = "", replacement = "-"`, "ab", "-a-b-"},
		{`replace_field = name, pattern = "z", replacement = "y", is_regex = "true"`, "abc", "abc"},
		{`replace_field = name, pattern = "$", replacement = "$"`, "a$b", "a$b"},
	} {
		tr := transformtest.MustBuild(t, "Replace", c.opts, tab)
		rows, err := transformtest.Run(t, transformtest.Batch(tab.ID(), row.Insert,
			[]row.Value{row.IntValue(1), row.StringValue(c.in)},
			[]row.Value{row.IntValue(2), row.NullValue()}), tr)
		if err != nil {
			t.Fatalf("%s: %v", c.opts, err)
		}
		if got := rows[0].Fields[1].S; got != c.want || rows[0].Fields[0].I != 1 {
			t.Errorf("%s: %q -> %q, want %q", c.opts, c.in, got, c.want)
		}
		if !rows[1].Fields[1].IsNull() {
			t.Errorf("%s: null became %v", c.opts, rows[1].Fields[1])
		}
		if out := tr.Outputs()[0]; !out.RowType().Equal(tab.RowType()) {
			t.Errorf("%s: output %v", c.opts, out.RowType())
		}
	}
}

func TestReplaceKeepsBatch(t *testing.T) {
	tab := transformtest.Table(t, "name = string")
	tr := transformtest.MustBuild(t, "Replace", `replace_field = name, pattern = a, replacement = b`, tab)
	in := transformtest.Batch(tab.ID(), row.Insert, []row.Value{row.StringValue("aa")})
	out, err := tr.Process(t.Context(), in)
	if err != nil || out != in || out.Rows[0].Fields[0].S != "bb" {
		t.Fatalf("got %v %v", out, err)
	}
	out.Release()
}

func TestReplaceNonStringFields(t *testing.T) {
	tab := transformtest.Table(t, `n = int, d = date, f = double`)
	b := func() *row.Batch {
		return transformtest.Batch(tab.ID(), row.Insert,
			[]row.Value{row.IntValue(1213), row.DateValue(19000), row.DoubleValue(1.5)})
	}
	tr := transformtest.MustBuild(t, "Replace", `replace_field = n, pattern = "1", replacement = "9"`, tab)
	rows, err := transformtest.Run(t, b(), tr)
	if err != nil || rows[0].Fields[0] != row.IntValue(9293) {
		t.Fatalf("int: %v %v", rows, err)
	}
	tr = transformtest.MustBuild(t, "Replace", `replace_field = d, pattern = "^2022", replacement = "2021", is_regex = true`, tab)
	rows, err = transformtest.Run(t, b(), tr)
	if err != nil || rows[0].Fields[1].String() != "2021-01-08" {
		t.Fatalf("date: %v %v", rows, err)
	}
	tr = transformtest.MustBuild(t, "Replace", `replace_field = n, pattern = "1", replacement = "x"`, tab)
	_, err = transformtest.Run(t, b(), tr)
	if err == nil || !strings.Contains(err.Error(), `"1213"`) || !strings.Contains(err.Error(), "not a int") {
		t.Fatalf("bad int result: %v", err)
	}
}

func TestReplaceErrors(t *testing.T) {
	tab := transformtest.Table(t, "id = int, name = string, b = bytes, a = \"array<int>\"")
	transformtest.BuildErrors(t, "Replace", tab, []transformtest.ErrorCase{
		{`pattern = a, replacement = b`, "replace_field: option is required"},
		{`replace_field = name, replacement = b`, "pattern: option is required"},
		{`replace_field = name, pattern = a`, "replacement: option is required"},
		{`replace_field = nom, pattern = a, replacement = b`, `replace_field: field "nom" is not in the input table`},
		{`replace_field = name, pattern = "(", replacement = b, is_regex = true`, "pattern: error parsing regexp"},
		{`replace_field = name, pattern = "a(?=b)", replacement = b, is_regex = true`, "pattern: error parsing regexp"},
		{`replace_field = name, pattern = "(a)", replacement = "$2", is_regex = true`, "replacement: no group 2"},
		{`replace_field = name, pattern = a, replacement = b, is_regex = maybe`, "is_regex: expected true or false"},
		{`replace_field = b, pattern = a, replacement = b`, "replace_field: field \"b\" is of type bytes"},
		{`replace_field = a, pattern = a, replacement = b`, "replace_field: field \"a\" is of type array<int>"},
	})
}

// replace_transform.conf's Replace (the whole job runs in e2e; e2e also breaks its
// replacement and sees Assert fail): the first match of ".+", the whole name, becomes "b".
func TestReplaceE2E(t *testing.T) {
	job := transformtest.BuildJob(t, transformtest.LoadJob(t, "transform/replace_transform.conf"))
	in := transformtest.Batch(job.Source.ID(), row.Insert,
		[]row.Value{row.IntValue(1), row.StringValue("Joy Ding")},
		[]row.Value{row.IntValue(2), row.StringValue("x")},
		[]row.Value{row.IntValue(3), row.StringValue("")},
		[]row.Value{row.IntValue(4), row.NullValue()},
	)
	rows, err := transformtest.Run(t, in, job.Transforms...)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprint(r.Fields))
	}
	if want := "[[1 b] [2 b] [3 ] [4 null]]"; fmt.Sprint(got) != want {
		t.Fatalf("rows %v, want %s", got, want)
	}
}

func BenchmarkReplace(b *testing.B) {
	tab := transformtest.Table(b, "id = int, name = string")
	for _, c := range []struct{ name, opts string }{
		{"literal", `replace_field = name, pattern = " ", replacement = "_"`},
		{"regex", `replace_field = name, pattern = "\\s+", replacement = "_", is_regex = true`},
		{"regex_first", `replace_field = name, pattern = ".+", replacement = "b", is_regex = true, replace_first = true`},
	} {
		b.Run(c.name, func(b *testing.B) {
			tr := transformtest.MustBuild(b, "Replace", c.opts, tab)
			transformtest.BenchRows(b, tab.ID(), tr.Process, func(i int) []row.Value {
				return []row.Value{row.IntValue(int32(i)), row.StringValue("Joy Ding May Dom")}
			})
		})
	}
}

func TestReplaceOptions(t *testing.T) {
	optiontest.Check(t, plantest.Warnings, `id = int, name = string`, []optiontest.Case{
		{Block: `Replace { plugin_input = src, plugin_output = out, replace_field = name, pattern = a, replacement = b, is_regex = true, replace_first = true }`},
		{Block: `Replace { replace_field = name, pattern = a, replacement = b, is_regx = true }`, Warning: `unknown option "is_regx" (did you mean "is_regex"?)`},
		{Block: `Replace { replace_field = name, pattern = a, replacment = b }`, Err: "transform[0] Replace: replacement: option is required"},
	})
}
