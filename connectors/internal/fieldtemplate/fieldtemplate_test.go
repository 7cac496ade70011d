package fieldtemplate

import (
	"testing"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func TestTemplate(t *testing.T) {
	rt := types.MustParse("{id = int, name = string}").Row
	fields := []row.Value{row.IntValue(7), row.StringValue("ann")}
	nullName := []row.Value{row.IntValue(7), row.NullValue()}
	for _, tc := range []struct {
		name       string
		tmpl       Template
		fields     []row.Value
		want, null string
		static     bool
	}{
		{name: "no field", tmpl: Parse("users", rt, false), fields: fields, want: "users", static: true},
		{name: "dollar placeholders", tmpl: Parse("u_${id}-${name}", rt, false), fields: fields, want: "u_7-ann"},
		{name: "bare braces are text without bare", tmpl: Parse("{id}_${id}", rt, false), fields: fields, want: "{id}_7"},
		{name: "an unknown name stays", tmpl: Parse("${age}_${id}", rt, false), fields: fields, want: "${age}_7"},
		{name: "unclosed", tmpl: Parse("a_${id", rt, false), fields: fields, want: "a_${id", static: true},
		{name: "bare placeholders", tmpl: Parse("user:{id}:${name}", rt, true), fields: fields, want: "user:7:ann"},
		{name: "bare unknown", tmpl: Parse("{x}{id}", rt, true), fields: fields, want: "{x}7"},
		{name: "a field", tmpl: Field(1, "name"), fields: fields, want: "ann"},
		{name: "a literal", tmpl: Literal("k"), fields: fields, want: "k", static: true},
		{name: "a null field", tmpl: Parse("k:${id}:${name}", rt, false), fields: nullName, want: "k:7:" + string(row.AppendText(nil, row.NullValue())), null: "name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, null := tc.tmpl.Append(nil, tc.fields)
			if string(got) != tc.want || null != tc.null {
				t.Errorf("%q null %q, want %q null %q", got, null, tc.want, tc.null)
			}
			if s, ok := tc.tmpl.Static(); ok != tc.static || (ok && s != tc.want) {
				t.Errorf("static %q %v", s, ok)
			}
		})
	}
}
