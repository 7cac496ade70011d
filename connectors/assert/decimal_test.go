package assert

import (
	"context"
	"math/big"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func TestParseBigDecimal(t *testing.T) {
	cases := []struct {
		in       string
		unscaled string
		scale    int
		ok       bool
	}{
		{"123.45", "12345", 2, true},
		{"123.450", "123450", 3, true},
		{"-0.5", "-5", 1, true},
		{"+7", "7", 0, true},
		{".5", "5", 1, true},
		{"5.", "5", 0, true},
		{"1.2345E+2", "12345", 2, true},
		{"12345e-2", "12345", 2, true},
		{"1E+3", "1", -3, true},
		{"99999.99999999", "9999999999999", 8, true},
		{"", "", 0, false},
		{".", "", 0, false},
		{"1.2.3", "", 0, false},
		{"12a", "", 0, false},
		{"1e", "", 0, false},
		{"1e999", "", 0, false},
		{"NaN", "", 0, false},
	}
	for _, c := range cases {
		v, ok := parseBigDecimal(c.in)
		if ok != c.ok {
			t.Errorf("%q: ok %v, want %v", c.in, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if v.Unscaled().String() != c.unscaled || v.DecimalScale() != c.scale {
			t.Errorf("%q: %s scale %d, want %s scale %d", c.in, v.Unscaled(), v.DecimalScale(), c.unscaled, c.scale)
		}
	}
}

// equals_to on a decimal compares value and scale, as SeaTunnel's BigDecimal.equals does,
// never the literal rounded to the column's scale.
func TestDecimalEqualsTo(t *testing.T) {
	cases := []struct {
		rule string
		want string // "" passes, else a substring of the error
	}{
		{`{equals_to = 123.45}`, ""},
		{`{equals_to = "123.45"}`, ""},
		{`{equals_to = "1.2345E+2"}`, ""},
		{`{equals_to = "12345e-2"}`, ""},
		// an unquoted number is a Java double first: 123.450 prints as 123.45
		{`{equals_to = 123.450}`, ""},
		// digits beyond the column's scale: a different number, not one to round
		{`{equals_to = "123.4500000001"}`, "is not equal to equals_to 123.4500000001"},
		{`{equals_to = 123.4549}`, "is not equal to equals_to 123.4549"},
		// the same number written with another scale
		{`{equals_to = "123.450"}`, "written with its scale"},
		{`{equals_to = "1.2345E+2"}, {equals_to = "12345E-1"}`, "is not equal to equals_to 12345E-1"},
	}
	for _, c := range cases {
		err := checkRule(t, `{field_name = c_decimal, field_type = "decimal(10, 2)", field_value = [`+c.rule+`]}`, nil)
		wantErr(t, c.rule, err, c.want)
	}
}

// Decimals inside arrays, maps and rows keep the literal's digits too.
func TestNestedDecimalEqualsTo(t *testing.T) {
	rt := types.MustParse(`{
		d_array = "array<decimal(5, 2)>", d_map = "map<string, decimal(5, 2)>",
		d_keys = "map<decimal(5, 2), int>", d_row = {x = "decimal(5, 2)", y = string}
	}`).Row
	p, _ := catalog.ParsePath("t", false)
	table := catalog.FromRowType(p, rt)
	dec := func(unscaled int64) row.Value { return row.DecimalValue(big.NewInt(unscaled), 2) }
	one := func(k, v row.Value) row.Value {
		return row.MapOfValues(&row.MapValue{Keys: []row.Value{k}, Vals: []row.Value{v}})
	}
	cases := []struct {
		rule string
		want string
	}{
		{`{field_name = d_array, field_type = "array<decimal(5, 2)>", field_value = [{equals_to = [1.25, "2.50"]}]}`, ""},
		{`{field_name = d_array, field_type = "array<decimal(5, 2)>", field_value = [{equals_to = [1.25, "2.5"]}]}`, "written with its scale"},
		{`{field_name = d_array, field_type = "array<decimal(5, 2)>", field_value = [{equals_to = [1.25, "2.501"]}]}`, "is not equal"},
		{`{field_name = d_map, field_type = "map<string, decimal(5, 2)>", field_value = [{equals_to = {k = 3.75}}]}`, ""},
		{`{field_name = d_map, field_type = "map<string, decimal(5, 2)>", field_value = [{equals_to = "{\"k\": \"3.750\"}"}]}`, "written with its scale"},
		{`{field_name = d_keys, field_type = "map<decimal(5, 2), int>", field_value = [{equals_to = {"1.00" = 4}}]}`, ""},
		{`{field_name = d_keys, field_type = "map<decimal(5, 2), int>", field_value = [{equals_to = {"1.0" = 4}}]}`, "written with its scale"},
		{`{field_name = d_row, field_type = {x = "decimal(5, 2)", y = string}, field_value = [{equals_to = [0.10, "a"]}]}`, "written with its scale"},
		{`{field_name = d_row, field_type = {x = "decimal(5, 2)", y = string}, field_value = [{equals_to = {x = "0.10", y = "a"}}]}`, ""},
		{`{field_name = d_row, field_type = {x = "decimal(5, 2)", y = string}, field_value = [{equals_to = {x = "0.104", y = "a"}}]}`, "is not equal"},
	}
	for _, c := range cases {
		s := mustSink(t, "rules { field_rules = [ "+c.rule+" ] }", table)
		w, err := s.CreateWriter(connector.WriterContext{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := row.NewBatch(1)
		r := b.Add(row.Insert, "t", 4)
		r.Fields[0] = row.ArrayValue([]row.Value{dec(125), dec(250)})
		r.Fields[1] = one(row.StringValue("k"), dec(375))
		r.Fields[2] = one(dec(100), row.IntValue(4))
		r.Fields[3] = row.RowValue([]row.Value{dec(10), row.StringValue("a")})
		err = w.Write(context.Background(), b)
		wantErr(t, c.rule, err, c.want)
	}
}
