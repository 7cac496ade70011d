package jsonpath_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strait-dev/strait/planner/plantest"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/optiontest"
	"github.com/strait-dev/strait/transform/internal/transformtest"
	_ "github.com/strait-dev/strait/transform/jsonpath"
)

const dataDoc = `{"data": {"c_string": "this is a string", "c_boolean": true, "c_integer": 42, "c_float": 3.14,
 "c_double": 3.14, "c_decimal": 10.55, "c_date": "2023-10-29", "c_datetime": "16:12:43.459",
 "c_array": ["item1", "item2", "item3"]}}`

// dataColumns is the columns option of a JsonPath that reads the field data: each item is a
// path, a destination field and its type (empty: string).
func dataColumns(items ...[3]string) string {
	var b strings.Builder
	b.WriteString("columns = [\n")
	for _, it := range items {
		fmt.Fprintf(&b, "  { \"src_field\" = \"data\", \"path\" = %q, \"dest_field\" = %q", it[0], it[1])
		if it[2] != "" {
			fmt.Fprintf(&b, ", \"dest_type\" = %q", it[2])
		}
		b.WriteString(" }\n")
	}
	return b.String() + "]"
}

// TestJsonPathData reads the document of SeaTunnel's JsonPath docs, and the text SeaTunnel's
// own JsonPath test produces: its HOCON template loses the inner quotes, and json-smart, which
// SeaTunnel reads JSON with, takes the result anyway. Strait reads it the same way. Text that
// even json-smart rejects is still an error naming the place.
func TestJsonPathData(t *testing.T) {
	for _, c := range []struct {
		name    string
		columns [][3]string
		doc     string
		schema  string // the output table's row type
		want    string // the row's new fields
	}{
		{
			name: "doc example",
			columns: [][3]string{
				{"$.data.c_string", "c1_string", ""},
				{"$.data.c_boolean", "c1_boolean", "boolean"},
				{"$.data.c_integer", "c1_integer", "int"},
				{"$.data.c_float", "c1_float", "float"},
				{"$.data.c_double", "c1_double", "double"},
				{"$.data.c_decimal", "c1_decimal", "decimal(4,2)"},
				{"$.data.c_date", "c1_date", "date"},
				{"$.data.c_datetime", "c1_datetime", "time"},
				{"$.data.c_array", "c1_array", "array<string>"},
			},
			doc:    dataDoc,
			schema: "{data = string, c1_string = string, c1_boolean = boolean, c1_integer = int, c1_float = float, c1_double = double, c1_decimal = decimal(4, 2), c1_date = date, c1_datetime = time, c1_array = array<string>}",
			want:   "[this is a string true 42 3.14 3.14 10.55 2023-10-29 16:12:43.459 [item1, item2, item3]]",
		},
		{
			name: "permissive text",
			columns: [][3]string{
				{"$.data.c_string", "s", ""},
				{"$.data.c_boolean", "b", "boolean"},
				{"$.data.c_integer", "i", "int"},
				{"$.data.c_decimal", "d", "decimal(4,2)"},
				{"$.data.c_date", "dt", "date"},
				{"$.data.c_datetime", "tm", "time"},
			},
			doc:    `{data:{c_string: this is a string,c_boolean: true,c_integer: 42,c_decimal: 10.55,c_date:'2023-10-29',c_datetime:"16:12:43.459"}}`,
			schema: "{data = string, s = string, b = boolean, i = int, d = decimal(4, 2), dt = date, tm = time}",
			want:   "[this is a string true 42 10.55 2023-10-29 16:12:43.459]",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			tab := transformtest.Table(t, `data = string`)
			tr := transformtest.MustBuild(t, "JsonPath", dataColumns(c.columns...), tab)
			out := tr.Outputs()[0]
			if got := out.RowType().String(); got != c.schema {
				t.Fatalf("output %s\nwant %s", got, c.schema)
			}
			for _, col := range out.Columns[1:] {
				if !col.Nullable || col.Length != 200 || col.DefaultValue != "" {
					t.Errorf("column %+v", col)
				}
			}
			rows, err := transformtest.Run(t, transformtest.Batch(tab.ID(), row.Insert, []row.Value{row.StringValue(c.doc)}), tr)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(rows[0].Fields[1:]); got != c.want {
				t.Fatalf("row %s\nwant %s", got, c.want)
			}
			for i, col := range out.Columns {
				if v := rows[0].Fields[i]; v.T != col.Type.Kind {
					t.Errorf("%s holds a %s", col.Name, v.T)
				}
			}
			_, err = transformtest.Run(t, transformtest.Batch(tab.ID(), row.Insert, []row.Value{row.StringValue(`{data: [1, }`)}), tr)
			if err == nil || !strings.Contains(err.Error(), "offset 11") {
				t.Fatalf("error %v", err)
			}
		})
	}
}

func TestJsonPathSources(t *testing.T) {
	tab := transformtest.Table(t, `s = string, b = bytes, m = "map<string, string>", a = "array<int>", r = { name = string, age = int }, n = string`)
	tr := transformtest.MustBuild(t, "JsonPath", `
columns = [
  { src_field = s, path = "$.k", dest_field = from_s },
  { src_field = b, path = "$.k", dest_field = from_b },
  { src_field = m, path = "$.k", dest_field = from_m },
  { src_field = a, path = "$[1]", dest_field = from_a, dest_type = int },
  { src_field = r, path = "$[0]", dest_field = name },
  { src_field = r, path = "$[1]", dest_field = age, dest_type = int },
  { src_field = r, path = "$", dest_field = whole },
  { src_field = n, path = "$.k", dest_field = from_n },
]`, tab)
	m := &row.MapValue{Keys: []row.Value{row.StringValue("k")}, Vals: []row.Value{row.StringValue("from map")}}
	rows, err := transformtest.Run(t, transformtest.Batch(tab.ID(), row.Insert, []row.Value{
		row.StringValue(`{"k": "from string"}`), row.BytesValue([]byte(`{"k": "from bytes"}`)), row.MapOfValues(m),
		row.ArrayValue([]row.Value{row.IntValue(1), row.IntValue(2)}),
		row.RowValue([]row.Value{row.StringValue("a"), row.IntValue(18)}), row.NullValue(),
	}), tr)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rows[0].Fields[6:]); got != `[from string from bytes from map 2 a 18 ["a",18] null]` {
		t.Fatalf("got %s", got)
	}
}

func TestJsonPathErrorHandling(t *testing.T) {
	tab := transformtest.Table(t, `id = bigint, data = string`)
	batch := func() *row.Batch {
		return transformtest.Batch(tab.ID(), row.Insert,
			[]row.Value{row.BigIntValue(1), row.StringValue(`{"f1": "v1"}`)},
			[]row.Value{row.BigIntValue(2), row.StringValue(`{"f1": "v1", "f2": "v2"}`)},
			[]row.Value{row.BigIntValue(3), row.StringValue(`{"f1": `)},
			[]row.Value{row.BigIntValue(4), row.NullValue()})
	}
	for _, c := range []struct {
		row, col  string // row_error_handle_way, column_error_handle_way of the f2 column
		want, err string
	}{
		{"", "", "", "No results for path: $['f2']"},
		{"FAIL", "", "", "No results for path: $['f2']"},
		{"SKIP", "", "[2 v1 v2] [4 null null]", ""},
		{"", "SKIP", "[1 v1 null] [2 v1 v2] [4 null null]", "invalid JSON"},
		{"SKIP", "SKIP", "[1 v1 null] [2 v1 v2] [4 null null]", ""},
		{"", "SKIP_ROW", "", "invalid JSON"},
		{"SKIP", "SKIP_ROW", "[2 v1 v2] [4 null null]", ""},
		{"SKIP", "FAIL", "", "No results for path: $['f2']"},
		{"skip", "skip", "[1 v1 null] [2 v1 v2] [4 null null]", ""},
	} {
		opts := "columns = [{src_field = data, path = \"$.f1\", dest_field = data_f1},\n" +
			"{src_field = data, path = \"$.f2\", dest_field = data_f2"
		if c.col != "" {
			opts += ", column_error_handle_way = " + c.col
		}
		opts += "}]"
		if c.row != "" {
			opts += "\nrow_error_handle_way = " + c.row
		}
		tr := transformtest.MustBuild(t, "JsonPath", opts, tab)
		rows, err := transformtest.Run(t, batch(), tr)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("row %q column %q: error %v, want %q", c.row, c.col, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("row %q column %q: %v", c.row, c.col, err)
			continue
		}
		var got []string
		for _, r := range rows {
			got = append(got, fmt.Sprintf("[%v %v %v]", r.Fields[0], r.Fields[2], r.Fields[3]))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("row %q column %q: rows %s, want %s", c.row, c.col, strings.Join(got, " "), c.want)
		}
	}
}

func TestJsonPathFatalErrors(t *testing.T) {
	tab := transformtest.Table(t, `data = string`)
	for _, c := range []struct{ opts, doc, msg string }{
		// a value that does not convert fails whatever the options say, as in SeaTunnel
		{`row_error_handle_way = SKIP, columns = [{src_field = data, path = "$.a", dest_field = a, dest_type = int, column_error_handle_way = SKIP}]`,
			`{"a": "x"}`, `"x" is not an int`},
		{`row_error_handle_way = SKIP, columns = [{src_field = data, path = "$.a", dest_field = a}]`,
			``, "the JSON text is empty"},
	} {
		tr := transformtest.MustBuild(t, "JsonPath", c.opts, tab)
		_, err := transformtest.Run(t, transformtest.Batch(tab.ID(), row.Insert, []row.Value{row.StringValue(c.doc)}), tr)
		if err == nil || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "columns[0]") {
			t.Errorf("%s: error %v, want %q", c.opts, err, c.msg)
		}
	}
}

func TestJsonPathOverwrite(t *testing.T) {
	tab := transformtest.Table(t, `id = int, data = string`)
	tab.PrimaryKey = &catalog.PrimaryKey{Name: "pk", Columns: []string{"id"}}
	tr := transformtest.MustBuild(t, "JsonPath", `columns = [{src_field = data, path = "$.n", dest_field = data, dest_type = int}]`, tab)
	out := tr.Outputs()[0]
	if got := out.RowType().String(); got != "{id = int, data = int}" || out.PrimaryKey == nil {
		t.Fatalf("output %s", got)
	}
	in := transformtest.Batch(tab.ID(), row.Insert, []row.Value{row.IntValue(1), row.StringValue(`{"n": 7}`)},
		[]row.Value{row.IntValue(2), row.StringValue(`{}`)})
	if _, err := tr.Process(t.Context(), in); err == nil {
		t.Fatal("a missing value passed with FAIL")
	}
	tr = transformtest.MustBuild(t, "JsonPath", `row_error_handle_way = SKIP, columns = [{src_field = data, path = "$.n", dest_field = data, dest_type = int}]`, tab)
	in = transformtest.Batch(tab.ID(), row.Insert, []row.Value{row.IntValue(1), row.StringValue(`{"n": 7}`)},
		[]row.Value{row.IntValue(2), row.StringValue(`{}`)}, []row.Value{row.IntValue(3), row.StringValue(`{"n": 9}`)})
	res, err := tr.Process(t.Context(), in)
	if err != nil || res != in {
		t.Fatalf("in place: %v, reused %v", err, res == in)
	}
	if got := fmt.Sprint(res.Rows); res.Len() != 2 || res.Rows[0].Fields[1] != row.IntValue(7) || res.Rows[1].Fields[1] != row.IntValue(9) {
		t.Fatalf("rows %s", got)
	}
	res.Release()
}

func TestJsonPathConfigErrors(t *testing.T) {
	tab := transformtest.Table(t, `data = string, n = int`)
	transformtest.BuildErrors(t, "JsonPath", tab, []transformtest.ErrorCase{
		{``, "columns: option is required"},
		{`columns = {a = b}`, "columns: expected a list of objects"},
		{`columns = [{path = "$.a", dest_field = x}]`, "columns[0].src_field: option is required"},
		{`columns = [{src_field = data, dest_field = x}]`, "columns[0].path: option is required"},
		{`columns = [{src_field = data, path = "$.a"}]`, "columns[0].dest_field: option is required"},
		{`columns = [{src_field = data, path = " ", dest_field = x}]`, "columns[0].path: option is required and must not be blank"},
		{`columns = [{src_field = nope, path = "$.a", dest_field = x}]`, `columns[0].src_field: field "nope" is not in the input table`},
		{`columns = [{src_field = n, path = "$.a", dest_field = x}]`, `columns[0].src_field: field "n" is of type int`},
		{`columns = [{src_field = data, path = "$.a(", dest_field = x}]`, "columns[0].path: path \"$.a(\": functions"},
		{`columns = [{src_field = data, path = "$[?(@.a)]", dest_field = x}]`, "columns[0].path: path \"$[?(@.a)]\": filters"},
		{`columns = [{src_field = data, path = "$.a", dest_field = x, dest_type = "integr"}]`, "columns[0].dest_type:"},
		{`columns = [{src_field = data, path = "$.a", dest_field = x, column_error_handle_way = IGNORE}]`, `columns[0].column_error_handle_way: unknown value "IGNORE"`},
		{`row_error_handle_way = SKIP_ROW, columns = []`, `row_error_handle_way: unknown value "SKIP_ROW"`},
	})
}

// JsonPath reads arrays and rows as their JSON text: the first element of an array, an element
// of a nested row by position, and every element of its array typed.
func TestJsonPathArraysAndRows(t *testing.T) {
	str := row.StringValue
	ints := row.ArrayValue([]row.Value{row.IntValue(1), row.IntValue(2), row.IntValue(3)})
	for _, c := range []struct {
		name, schema, columns string
		in                    []row.Value
		want                  []row.Value // the fields JsonPath adds
	}{
		{"array", `c_array = "array<string>"`, `columns = [ { "src_field" = "c_array", "path" = "$[0]", "dest_field" = "first" } ]`,
			[]row.Value{row.ArrayValue([]row.Value{str("x"), str("y")})}, []row.Value{str("x")}},
		{"nested row", `c_row = { c_map = "map<string, map<string, string>>", c_array = "array<int>", c_string = string }`,
			`columns = [ { "src_field" = "c_row", "path" = "$[2]", "dest_field" = "test_str", "dest_type" = "string" },
			             { "src_field" = "c_row", "path" = "$[1][*]", "dest_field" = "ints", "dest_type" = "array<int>" } ]`,
			[]row.Value{row.RowValue([]row.Value{
				row.MapOfValues(&row.MapValue{Keys: []row.Value{str("k")}, Vals: []row.Value{row.MapOfValues(&row.MapValue{Keys: []row.Value{str("a")}, Vals: []row.Value{str("b")}})}}),
				ints,
				str("s"),
			})}, []row.Value{str("s"), ints}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tab := transformtest.Table(t, c.schema)
			tr := transformtest.MustBuild(t, "JsonPath", c.columns, tab)
			rows, err := transformtest.Run(t, transformtest.Batch(tab.ID(), row.Insert, c.in), tr)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 {
				t.Fatalf("%d rows", len(rows))
			}
			got := rows[0].Fields[len(c.in):]
			if len(got) != len(c.want) {
				t.Fatalf("new fields %v, want %v", got, c.want)
			}
			for i, w := range c.want {
				if !row.Equal(got[i], w) {
					t.Errorf("new field %d = %v (%s), want %v (%s)", i, got[i], got[i].T, w, w.T)
				}
			}
		})
	}
}

func BenchmarkJsonPath(b *testing.B) {
	tab := transformtest.Table(b, `id = int, data = string`)
	for _, c := range []struct{ name, opts string }{
		{"one_string", `columns = [{src_field = data, path = "$.data.c_string", dest_field = s}]`},
		{"five_typed", `columns = [
  {src_field = data, path = "$.data.c_string", dest_field = s},
  {src_field = data, path = "$.data.c_integer", dest_field = i, dest_type = int},
  {src_field = data, path = "$.data.c_double", dest_field = d, dest_type = double},
  {src_field = data, path = "$.data.c_date", dest_field = dt, dest_type = date},
  {src_field = data, path = "$.data.c_array[1]", dest_field = a},
]`},
		{"wildcard", `columns = [{src_field = data, path = "$.data.c_array[*]", dest_field = a, dest_type = "array<string>"}]`},
	} {
		b.Run(c.name, func(b *testing.B) {
			tr := transformtest.MustBuild(b, "JsonPath", c.opts, tab)
			transformtest.BenchRows(b, tab.ID(), tr.Process, func(i int) []row.Value {
				return []row.Value{row.IntValue(int32(i)), row.StringValue(dataDoc)}
			})
		})
	}
}

func TestJsonPathErrorPosition(t *testing.T) {
	tab := transformtest.Table(t, `data = string, n = int`)
	_, err := transformtest.Build(t, "JsonPath", "columns = [\n  {src_field = data, path = \"$.a\", dest_field = a},\n  {src_field = n, path = \"$.a\", dest_field = b}\n]", tab)
	if err == nil || !strings.Contains(err.Error(), "columns[1].src_field") || !strings.Contains(err.Error(), "(at test.conf:3:") {
		t.Fatalf("error %v does not point at the option", err)
	}
}

func TestJsonPathOptions(t *testing.T) {
	optiontest.Check(t, plantest.Warnings, `data = string`, []optiontest.Case{
		{Block: `JsonPath { plugin_input = src, plugin_output = out, row_error_handle_way = skip, columns = [{src_field = data, path = "$.a", dest_field = a, dest_type = int, column_error_handle_way = SKIP_ROW}] }`},
		{Block: `JsonPath { columns = [{src_field = data, path = "$.a", dest_field = a}], row_error_handle = SKIP }`, Warning: `unknown option "row_error_handle" (did you mean "row_error_handle_way"?)`},
		{Block: `JsonPath { columns = [{src_field = data, path = "$.a", dest_field = a}, {src_field = data, path = "$.b", dest_field = b, dest_typ = int}] }`, Warning: `unknown option "columns[1].dest_typ" (did you mean "columns[1].dest_type"?) at job.conf:4:`},
		{Block: `JsonPath { column = [{src_field = data, path = "$.a", dest_field = a}] }`, Err: "transform[0] JsonPath: columns: option is required"},
		{Block: `JsonPath { columns = [{src_field = data, dest_field = a}] }`, Err: "transform[0] JsonPath: columns[0].path: option is required"},
	})
}
