package assert

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/benchwrite"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// table t: every kind of column.
func testTable(id string) *catalog.Table {
	rt := types.MustParse(`{
		c_null = null, c_string = string, c_boolean = boolean, c_tinyint = tinyint,
		c_smallint = smallint, c_int = int, c_bigint = bigint, c_float = float, c_double = double,
		c_decimal = "decimal(10, 2)", c_bytes = bytes, c_date = date, c_time = time,
		c_timestamp = timestamp, c_array = "array<int>", c_map = "map<string, int>",
		c_row = {a = int, b = string}
	}`).Row
	p, _ := catalog.ParsePath(id, false)
	t := catalog.FromRowType(p, rt)
	t.Catalog = "FakeSource"
	return t
}

func fullRow(b *row.Batch, table string) *row.Row {
	r := b.Add(row.Insert, table, 17)
	f := r.Fields
	f[0] = row.NullValue()
	f[1] = row.StringValue("AAA")
	f[2] = row.BoolValue(false)
	f[3] = row.TinyIntValue(1)
	f[4] = row.SmallIntValue(2)
	f[5] = row.IntValue(333)
	f[6] = row.BigIntValue(323232)
	f[7] = row.FloatValue(3.1)
	f[8] = row.DoubleValue(9.33333)
	f[9] = row.DecimalValue(big.NewInt(12345), 2)
	f[10] = row.BytesValue([]byte("miIZj"))
	f[11] = row.DateOf(time.Date(2012, 12, 21, 0, 0, 0, 0, time.UTC))
	f[12] = row.TimeValue(int64(12*time.Hour + 34*time.Minute + 56*time.Second))
	f[13] = row.TimestampOf(time.Date(2012, 12, 21, 12, 34, 56, 0, time.UTC))
	f[14] = row.ArrayValue([]row.Value{row.IntValue(0), row.IntValue(1), row.IntValue(2)})
	f[15] = row.MapOfValues(&row.MapValue{Keys: []row.Value{row.StringValue("k")}, Vals: []row.Value{row.IntValue(1)}})
	f[16] = row.RowValue([]row.Value{row.IntValue(7), row.StringValue("x")})
	return r
}

func newSink(t *testing.T, src string, inputs ...*catalog.Table) (*Sink, error) {
	t.Helper()
	root, err := hocon.Parse([]byte(src), hocon.Options{File: "assert.conf"})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	build, _, _ := connector.LookupSink("Assert")
	s, err := build(&connector.SinkContext{Context: context.Background(), Options: config.New(root, "sink[0] Assert"), Inputs: inputs})
	if err != nil {
		return nil, err
	}
	return s.(*Sink), nil
}

// wantErr checks err against want, for the case what: no error when want is "", else an
// error holding want.
func wantErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v", what, err)
	case want != "" && err == nil:
		t.Errorf("%s: passed, want %q", what, want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("%s:\n  error %v\n  want  %q", what, err, want)
	}
}

func mustSink(t *testing.T, src string, inputs ...*catalog.Table) *Sink {
	t.Helper()
	s, err := newSink(t, src, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// check runs one row of table t through a sink with the given field rule.
func checkRule(t *testing.T, rule string, mutate func(f []row.Value)) error {
	t.Helper()
	s := mustSink(t, "rules { field_rules = [ "+rule+" ] }", testTable("t"))
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	b := row.NewBatch(4)
	r := fullRow(b, "t")
	if mutate != nil {
		mutate(r.Fields)
	}
	return w.Write(context.Background(), b)
}

func TestFieldRules(t *testing.T) {
	null := func(i int) func([]row.Value) { return func(f []row.Value) { f[i] = row.NullValue() } }
	set := func(i int, v row.Value) func([]row.Value) { return func(f []row.Value) { f[i] = v } }
	cases := []struct {
		rule   string
		mutate func([]row.Value)
		want   string // "" passes, else a substring of the error
	}{
		// the type check
		{`{field_name = c_null, field_type = "null", field_value = [{rule_type = NULL}]}`, nil, ""},
		{`{field_name = c_null, field_type = null, field_value = [{rule_type = NULL}]}`, nil, ""},
		{`{field_name = c_null, field_type = string, field_value = [{rule_type = NULL}]}`, nil, "field c_null is null, which only field_type \"null\" accepts"},
		{`{field_name = c_string, field_type = "null"}`, nil, "is a string, not field_type null"},
		{`{field_name = c_string, field_type = string}`, null(1), "field c_string is null"},
		{`{field_name = c_boolean, field_type = boolean}`, nil, ""},
		{`{field_name = c_tinyint, field_type = tinyint}`, nil, ""},
		{`{field_name = c_tinyint, field_type = smallint}`, nil, "field c_tinyint = 1 is a tinyint, not field_type smallint"},
		{`{field_name = c_smallint, field_type = smallint}`, nil, ""},
		{`{field_name = c_int, field_type = int}`, nil, ""},
		{`{field_name = c_int, field_type = bigint}`, nil, "fieldType=BIGINT"},
		{`{field_name = c_bigint, field_type = long}`, nil, ""},
		{`{field_name = c_float, field_type = float}`, nil, ""},
		{`{field_name = c_float, field_type = double}`, nil, "is a float, not field_type double"},
		{`{field_name = c_double, field_type = double}`, nil, ""},
		{`{field_name = c_decimal, field_type = "decimal(10, 2)"}`, nil, ""},
		{`{field_name = c_decimal, field_type = "decimal(5, 2)"}`, nil, ""},
		{`{field_name = c_decimal, field_type = "decimal(4, 2)"}`, nil, "is a decimal(5, 2), not field_type decimal(4, 2)"},
		{`{field_name = c_decimal, field_type = "decimal(10, 3)"}`, nil, "fieldType=Decimal(10, 3)"},
		{`{field_name = c_bytes, field_type = bytes}`, nil, ""},
		{`{field_name = c_date, field_type = date}`, nil, ""},
		{`{field_name = c_date, field_type = timestamp}`, nil, "is a date, not field_type timestamp"},
		{`{field_name = c_time, field_type = time}`, nil, ""},
		{`{field_name = c_timestamp, field_type = timestamp}`, nil, ""},
		{`{field_name = c_array, field_type = "array<int>"}`, nil, ""},
		{`{field_name = c_array, field_type = "array<bigint>"}`, nil, "fieldType=ARRAY<BIGINT>"},
		{`{field_name = c_array, field_type = "array<int>"}`, set(14, row.ArrayValue([]row.Value{row.IntValue(1), row.NullValue()})), "not field_type array<int>"},
		{`{field_name = c_map, field_type = "map<string, int>"}`, nil, ""},
		{`{field_name = c_map, field_type = "map<string, string>"}`, nil, "fieldType=Map<STRING, STRING>"},
		{`{field_name = c_row, field_type = {a = int, b = string}}`, nil, ""},
		{`{field_name = c_row, field_type = "{a = int, b = string}"}`, nil, ""},
		{`{field_name = c_row, field_type = {a = int, b = int}}`, nil, "fieldType=ROW<a INT,b INT>"},
		{`{field_name = c_row, field_type = {a = int}}`, nil, "fieldType=ROW<a INT>"},
		// value rules
		{`{field_name = c_string, field_type = string, field_value = [{rule_type = NOT_NULL}]}`, nil, ""},
		{`{field_name = c_null, field_type = "null", field_value = [{rule_type = NOT_NULL}]}`, nil, "field c_null = null breaks rule_type NOT_NULL"},
		{`{field_name = c_string, field_type = string, field_value = [{rule_type = NULL}]}`, nil, "field c_string = AAA breaks rule_type NULL"},
		{`{field_name = c_int, field_type = int, field_value = [{rule_type = MIN, rule_value = 333}, {rule_type = MAX, rule_value = 333}]}`, nil, ""},
		{`{field_name = c_int, field_type = int, field_value = [{rule_type = MIN, rule_value = 334}]}`, nil, "field c_int = 333 breaks rule_type MIN with rule_value 334.0"},
		{`{field_name = c_int, field_type = int, field_value = [{rule_type = MAX, rule_value = "332.5"}]}`, nil, "breaks rule_type MAX with rule_value 332.5"},
		{`{field_name = c_decimal, field_type = "decimal(10, 2)", field_value = [{rule_type = MIN, rule_value = 123.45}, {rule_type = MAX, rule_value = 123.45}]}`, nil, ""},
		{`{field_name = c_float, field_type = float, field_value = [{rule_type = MAX, rule_value = 3.1}]}`, nil, ""}, // 3.1f widens to 3.0999999046325684
		{`{field_name = c_float, field_type = float, field_value = [{rule_type = MIN, rule_value = 3.1}]}`, nil, "breaks rule_type MIN"},
		{`{field_name = c_string, field_type = string, field_value = [{rule_type = MIN, rule_value = 0}]}`, nil, "field c_string = AAA is not a number, so it breaks rule_type MIN"},
		{`{field_name = c_string, field_type = string, field_value = [{rule_type = MIN_LENGTH, rule_value = 3}, {rule_type = MAX_LENGTH, rule_value = 3}]}`, nil, ""},
		{`{field_name = c_string, field_type = string, field_value = [{rule_type = MAX_LENGTH, rule_value = 2}]}`, nil, "breaks rule_type MAX_LENGTH with rule_value 2.0"},
		{`{field_name = c_string, field_type = string, field_value = [{rule_type = MAX_LENGTH, rule_value = 2}]}`, set(1, row.StringValue("é😀")), "breaks rule_type MAX_LENGTH"}, // 3 UTF-16 units
		{`{field_name = c_string, field_type = string, field_value = [{rule_type = MAX_LENGTH, rule_value = 3}]}`, set(1, row.StringValue("é😀")), ""},
		{`{field_name = c_int, field_type = int, field_value = [{rule_type = MIN_LENGTH, rule_value = 3}, {rule_type = MAX_LENGTH, rule_value = 3}]}`, nil, ""},
		{`{field_name = c_time, field_type = time, field_value = [{rule_type = MAX_LENGTH, rule_value = 5}]}`, set(12, row.TimeValue(int64(12*time.Hour))), ""}, // LocalTime "12:00"
		{`{field_name = c_null, field_type = "null", field_value = [{rule_type = MAX_LENGTH, rule_value = 0}]}`, nil, ""},
		// equals_to, converted with the column type
		{`{field_name = c_string, field_type = string, field_value = [{equals_to = "AAA"}]}`, nil, ""},
		{`{field_name = c_string, field_type = string, field_value = [{equals_to = "AAB"}]}`, nil, "field c_string = AAA is not equal to equals_to AAB"},
		{`{field_name = c_boolean, field_type = boolean, field_value = [{rule_type = NOT_NULL, equals_to = false}]}`, nil, ""},
		{`{field_name = c_tinyint, field_type = tinyint, field_value = [{equals_to = 1}]}`, nil, ""},
		{`{field_name = c_int, field_type = int, field_value = [{equals_to = "333"}]}`, nil, ""},
		{`{field_name = c_float, field_type = float, field_value = [{equals_to = 3.1}]}`, nil, ""},
		{`{field_name = c_double, field_type = double, field_value = [{equals_to = 9.33333}]}`, nil, ""},
		{`{field_name = c_decimal, field_type = "decimal(10, 2)", field_value = [{equals_to = 123.45}]}`, nil, ""},
		{`{field_name = c_decimal, field_type = "decimal(10, 2)", field_value = [{equals_to = "123.450"}]}`, nil, "written with its scale"},
		{`{field_name = c_decimal, field_type = "decimal(10, 2)", field_value = [{equals_to = 123.46}]}`, nil, "is not equal to equals_to 123.46"},
		{`{field_name = c_bytes, field_type = bytes, field_value = [{equals_to = "bWlJWmo="}]}`, nil, ""},
		{`{field_name = c_date, field_type = date, field_value = [{equals_to = "2012-12-21"}]}`, nil, ""},
		{`{field_name = c_time, field_type = time, field_value = [{equals_to = "12:34:56"}]}`, nil, ""},
		{`{field_name = c_timestamp, field_type = timestamp, field_value = [{equals_to = "2012-12-21 12:34:56"}]}`, nil, ""},
		{`{field_name = c_array, field_type = "array<int>", field_value = [{equals_to = [0, 1, 2]}]}`, nil, ""},
		{`{field_name = c_array, field_type = "array<int>", field_value = [{equals_to = [0, 1]}]}`, nil, "field c_array = [0, 1, 2] is not equal to equals_to [0, 1]"},
		{`{field_name = c_map, field_type = "map<string, int>", field_value = [{equals_to = {k = 1}}]}`, nil, ""},
		{`{field_name = c_map, field_type = "map<string, int>", field_value = [{equals_to = "{\"k\": 1}"}]}`, nil, ""},
		{`{field_name = c_map, field_type = "map<string, int>", field_value = [{equals_to = {k = 2}}]}`, nil, "{k=1} is not equal to equals_to {k=2}"},
		{`{field_name = c_row, field_type = {a = int, b = string}, field_value = [{equals_to = [7, "x"]}]}`, nil, ""},
		{`{field_name = c_row, field_type = {a = int, b = string}, field_value = [{equals_to = {a = 7, b = "x"}}]}`, nil, ""},
		{`{field_name = c_row, field_type = {a = int, b = string}, field_value = [{equals_to = [7, "y"]}]}`, nil, "is not equal to equals_to [7, y]"},
		// equals_to is skipped for null values, but the rule type is still checked
		{`{field_name = c_string, field_type = "null", field_value = [{equals_to = "AAA"}]}`, null(1), ""},
		{`{field_name = c_string, field_type = "null", field_value = [{rule_type = NOT_NULL, equals_to = "AAA"}]}`, null(1), "breaks rule_type NOT_NULL"},
		// an entry with neither rule_type nor equals_to passes; so does a rule without field_value
		{`{field_name = c_int, field_type = int, field_value = [{}]}`, nil, ""},
		{`{field_name = c_int, field_type = int}`, nil, ""},
	}
	for _, c := range cases {
		err := checkRule(t, c.rule, c.mutate)
		wantErr(t, c.rule, err, c.want)
	}
}

func TestFieldErrorMessage(t *testing.T) {
	err := checkRule(t, `{field_name = c_int, field_type = int, field_value = [{rule_type = MIN, rule_value = 334}, {equals_to = 5}]}`, nil)
	want := "sink[0] Assert: table t: row :SeaTunnelRow{tableId=t, kind=+I, fields=[null, AAA, false, 1, 2, 333, 323232, 3.1, 9.33333, 123.45, [109, 105, 73, 90, 106], 2012-12-21, 12:34:56, 2012-12-21T12:34:56, [0, 1, 2], {k=1}, SeaTunnelRow{tableId=, kind=+I, fields=[7, x]}]} fail rule: AssertFieldRule(fieldName=c_int, fieldType=INT, fieldRules=[AssertFieldRule.AssertRule(ruleType=MIN, ruleValue=334.0, equalTo=null), AssertFieldRule.AssertRule(ruleType=null, ruleValue=null, equalTo=5)]) (field c_int = 333 breaks rule_type MIN with rule_value 334.0)"
	if err == nil || err.Error() != want {
		t.Errorf("error\n  %v\nwant\n  %s", err, want)
	}
}

func TestFirstBrokenRowStopsTheWriter(t *testing.T) {
	s := mustSink(t, `rules { field_rules = [ {field_name = c_int, field_type = int, field_value = [{rule_type = MAX, rule_value = 10}]} ] }`, testTable("t"))
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	b := row.NewBatch(8)
	for i := 0; i < 3; i++ {
		fullRow(b, "t").Fields[5] = row.IntValue(int32(i * 10))
	}
	err := w.Write(context.Background(), b)
	if err == nil || !strings.Contains(err.Error(), "fields=[null, AAA, false, 1, 2, 20,") {
		t.Fatalf("error %v", err)
	}
	if err2 := w.Write(context.Background(), row.NewBatch(1)); err2 == nil {
		t.Error("a failed writer accepted more rows")
	}
	if _, err := w.PrepareCommit(context.Background(), 1); err == nil {
		t.Error("a failed writer prepared a commit")
	}
}

func TestConfigErrors(t *testing.T) {
	in := testTable("t")
	cases := []struct{ src, want string }{
		{``, "sink[0] Assert: rules: option is required"},
		{`rules = 5`, "rules: expected an object"},
		{`rules {}`, "rules: Assert rule config is empty"},
		{`rules { rule_ruls = [] }`, "rules: Assert rule config is empty"},
		{`rules { table-names = [] }`, "rules.table-names: is empty"},
		{`rules { row_rules = [{rule_value = 1}] }`, "rules.row_rules[0].rule_type: option is required"},
		{`rules { row_rules = [{rule_type = MAX_ROW}] }`, "rules.row_rules[0].rule_value: option is required for rule_type MAX_ROW"},
		{`rules { row_rules = [{rule_type = MAX_ROW, rule_value = many}] }`, `rules.row_rules[0].rule_value: "many" is not a number`},
		{`rules { row_rules = [{rule_type = BIGGEST, rule_value = 1}] }`, `rules.row_rules[0].rule_type: unknown rule type "BIGGEST"`},
		{`rules { row_rules = 3 }`, "rules.row_rules: expected a list of objects"},
		{`rules { field_rules = [{field_type = int}] }`, "rules.field_rules[0].field_name: option is required"},
		{`rules { field_rules = [{field_name = c_int}] }`, "rules.field_rules[0].field_type: option is required"},
		{`rules { field_rules = [{field_name = c_int, field_type = 5}] }`, "rules.field_rules[0].field_type: expected a type"},
		{`rules { field_rules = [{field_name = c_int, field_type = "array<strng>"}] }`, `rules.field_rules[0].field_type: unknown type "strng" at offset 6 of "array<strng>"`},
		{`rules { field_rules = [{field_name = c_int, field_type = {a = strng}}] }`, `rules.field_rules[0].field_type: a: unknown type "strng"`},
		{`rules { field_rules = [{field_name = c_nope, field_type = int}] }`, `rules.field_rules[0].field_name: unknown field "c_nope" in table t (fields: c_null, c_string,`},
		{`rules { field_rules = [{field_name = C_INT, field_type = int}] }`, `unknown field "C_INT"`},
		{`rules { field_rules = [{field_name = c_int, field_type = int, field_value = [{rule_type = MIN_ROW, rule_value = 1}]}] }`, "rules.field_rules[0].field_value[0].rule_type: MIN_ROW is a row rule"},
		{`rules { field_rules = [{field_name = c_int, field_type = int, field_value = [{rule_type = MIN}]}] }`, "rules.field_rules[0].field_value[0].rule_value: option is required for rule_type MIN"},
		{`rules { field_rules = [{field_name = c_int, field_type = int, field_value = [{rule_type = MAX_LENGTH}]}] }`, "rule_value: option is required for rule_type MAX_LENGTH"},
		{`rules { field_rules = [{field_name = c_int, field_type = int, field_value = {rule_type = MIN}}] }`, "rules.field_rules[0].field_value: expected a list of objects"},
		{`rules { field_rules = [{field_name = c_tinyint, field_type = tinyint, field_value = [{equals_to = 300}]}] }`, "rules.field_rules[0].field_value[0].equals_to: as tinyint of field c_tinyint: expected tinyint (-128..127), got 300 (at assert.conf:1:"},
		{`rules { field_rules = [{field_name = c_array, field_type = "array<int>", field_value = [{equals_to = [1, x]}]}] }`, "equals_to: as array<int> of field c_array: [1]: expected int"},
		{`rules { tables_configs = [{ row_rules = [] }] }`, "rules.tables_configs[0].table_path: option is required"},
		{`rules { tables_configs = [] }`, "Assert rule config is empty"},
		{`rules { tables_configs = [{ table_path = t, field_rules = [{field_name = x, field_type = int}] }] }`, `rules.tables_configs[0].field_rules[0].field_name: unknown field "x"`},
		{`rules { catalog_table_rule { primary_key_rule = { primary_key_columns = [id] } } }`, "rules.catalog_table_rule.primary_key_rule: table t: primaryKey is null"},
		{`rules { catalog_table_rule { constraint_key_rule = [] } }`, "constraintKeys is null"},
		{`rules { catalog_table_rule { table_identifier_rule = { table = t } } }`, "rules.catalog_table_rule.table_identifier_rule.catalog_name: option is required"},
		{`rules { catalog_table_rule { table_identifier_rule = { catalog_name = FakeSource, table = "a.b.c.d" } } }`, "has more than three parts"},
		{`rules { catalog_table_rule { column_rule = [{ name = c_int }] } }`, "rules.catalog_table_rule.column_rule[0].type: option is required"},
	}
	for _, c := range cases {
		_, err := newSink(t, c.src, in)
		if err == nil {
			t.Errorf("%s: no error, want %q", c.src, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n  error %v\n  want  %q", c.src, err, c.want)
		}
	}
}

func TestUnknownKeysAreIgnored(t *testing.T) {
	mustSink(t, `rules { rule_ruls = [{rule_type = MAX_ROW, rule_value = 5}], field_rules = [{field_name = c_int, field_type = int, colour = red}] }
	extra = 1`, testTable("t"))
}

func TestNeedsInputForFieldRules(t *testing.T) {
	if _, err := newSink(t, `rules { field_rules = [{field_name = c_int, field_type = int}] }`); err == nil || !strings.Contains(err.Error(), "does not know the schema") {
		t.Errorf("error %v", err)
	}
	// row rules and table-names need no schema
	mustSink(t, `rules { row_rules = [{rule_type = MAX_ROW, rule_value = 5}], table-names = [a] }`)
}

func writeRows(t *testing.T, w connector.Writer, table string, n int) error {
	t.Helper()
	b := row.NewBatch(n + 1)
	for i := 0; i < n; i++ {
		fullRow(b, table)
	}
	return w.Write(context.Background(), b)
}

func prepare(t *testing.T, ws ...connector.Writer) [][]byte {
	t.Helper()
	var infos [][]byte
	for _, w := range ws {
		info, err := w.PrepareCommit(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, info)
	}
	return infos
}

func TestRowRulesAcrossWriters(t *testing.T) {
	s := mustSink(t, `rules { row_rules = [{rule_type = MAX_ROW, rule_value = 10}, {rule_type = MIN_ROW, rule_value = 8}] }`, testTable("t"))
	w1, _ := s.CreateWriter(connector.WriterContext{Index: 0, Parallelism: 2}, nil)
	w2, _ := s.CreateWriter(connector.WriterContext{Index: 1, Parallelism: 2}, nil)
	c, _ := s.CreateCommitter()
	ctx := context.Background()
	if err := writeRows(t, w1, "t", 3); err != nil {
		t.Fatal(err)
	}
	if err := writeRows(t, w2, "t", 3); err != nil {
		t.Fatal(err)
	}
	infos := prepare(t, w1, w2)
	// 6 rows: MIN_ROW only matters at the end
	if err := c.Commit(ctx, connector.CommitRequest{CheckpointID: 1, Infos: infos}); err != nil {
		t.Fatalf("non-final commit: %v", err)
	}
	err := c.Commit(ctx, connector.CommitRequest{CheckpointID: 1, Final: true, Infos: infos})
	if err == nil || !strings.Contains(err.Error(), "sink[0] Assert: table t: row num :6 fail rule: AssertFieldRule.AssertRule(ruleType=MIN_ROW, ruleValue=8.0, equalTo=null)") {
		t.Fatalf("final commit: %v", err)
	}
	// a writer restored from its state goes on counting
	st, _ := w2.SnapshotState(2)
	w3, err := s.CreateWriter(connector.WriterContext{Index: 1, Parallelism: 2}, [][]byte{st})
	if err != nil {
		t.Fatal(err)
	}
	_ = writeRows(t, w3, "t", 2)
	infos = prepare(t, w1, w3)
	if err := c.Commit(ctx, connector.CommitRequest{CheckpointID: 2, Final: true, Infos: infos}); err != nil {
		t.Fatalf("8 rows: %v", err)
	}
	// committing again is harmless
	if err := c.Commit(ctx, connector.CommitRequest{CheckpointID: 2, Final: true, Infos: infos}); err != nil {
		t.Fatal(err)
	}
	// MAX_ROW is checked at every commit: 11 rows in all
	_ = writeRows(t, w1, "t", 3)
	infos = prepare(t, w1, w3)
	if err := c.Commit(ctx, connector.CommitRequest{CheckpointID: 3, Infos: infos}); err == nil || !strings.Contains(err.Error(), "row num :11 fail rule: AssertFieldRule.AssertRule(ruleType=MAX_ROW, ruleValue=10.0") {
		t.Fatalf("MAX_ROW: %v", err)
	}
	if err := c.Commit(ctx, connector.CommitRequest{Infos: [][]byte{[]byte("{")}}); err == nil {
		t.Error("bad info accepted")
	}
	if _, err := s.CreateWriter(connector.WriterContext{}, [][]byte{[]byte("x")}); err == nil {
		t.Error("bad state accepted")
	}
	if err := c.Abort(ctx, infos); err != nil {
		t.Error(err)
	}
}

func TestWriterFailsEarlyOnMaxRow(t *testing.T) {
	s := mustSink(t, `rules { row_rules = [{rule_type = MAX_ROW, rule_value = 2}] }`, testTable("t"))
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	if err := writeRows(t, w, "t", 2); err != nil {
		t.Fatal(err)
	}
	if err := writeRows(t, w, "t", 1); err == nil || !strings.Contains(err.Error(), "row num :3 fail rule") {
		t.Fatalf("error %v", err)
	}
}

func TestCountsEveryKind(t *testing.T) {
	s := mustSink(t, `rules { row_rules = [{rule_type = MIN_ROW, rule_value = 4}] }`, testTable("t"))
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	b := row.NewBatch(4)
	for _, k := range []row.Kind{row.Insert, row.UpdateBefore, row.UpdateAfter, row.Delete} {
		fullRow(b, "t").Kind = k
	}
	_ = w.Write(context.Background(), b)
	c, _ := s.CreateCommitter()
	if err := c.Commit(context.Background(), connector.CommitRequest{Final: true, Infos: prepare(t, w)}); err != nil {
		t.Fatal(err)
	}
}

func TestTablesConfigsAndTableNames(t *testing.T) {
	t1, t2 := testTable("db.t1"), testTable("db.t2")
	src := `rules {
	  table-names = ["db.t1", "db.t2"]
	  tables_configs = [
	    { table_path = "db.t1", row_rules = [{rule_type = MIN_ROW, rule_value = 2}],
	      field_rules = [{field_name = c_int, field_type = int, field_value = [{rule_type = MAX, rule_value = 400}]}] },
	    { table_path = "db.t2", row_rules = [{rule_type = MAX_ROW, rule_value = 1}],
	      field_rules = [{field_name = c_int, field_type = int, field_value = [{rule_type = MAX, rule_value = 100}]}] }
	  ]
	}`
	s := mustSink(t, src, t1, t2)
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	c, _ := s.CreateCommitter()
	ctx := context.Background()
	if err := writeRows(t, w, "db.t1", 2); err != nil {
		t.Fatal(err)
	}
	// only table 1 seen so far
	if err := c.Commit(ctx, connector.CommitRequest{Final: true, Infos: prepare(t, w)}); err == nil || !strings.Contains(err.Error(), "table names: [db.t1] is not equal to [db.t1, db.t2]") {
		t.Fatalf("table-names: %v", err)
	}
	// table 2's rules apply to its rows: 333 > 100
	err := writeRows(t, w, "db.t2", 1)
	if err == nil || !strings.Contains(err.Error(), "table db.t2: row :SeaTunnelRow{tableId=db.t2") {
		t.Fatalf("t2 field rule: %v", err)
	}
	// rows of a table without rules of its own pass when several rule sets exist
	w2, _ := s.CreateWriter(connector.WriterContext{}, nil)
	if err := writeRows(t, w2, "db.t9", 1); err != nil {
		t.Fatalf("table without rules: %v", err)
	}
	// the only set of field rules applies to every table, so rows of an unknown table fail
	s = mustSink(t, `rules { tables_configs = [{ table_path = "db.t1", field_rules = [{field_name = c_int, field_type = int}] }] }`, t1, t2)
	w2, _ = s.CreateWriter(connector.WriterContext{}, nil)
	if err := writeRows(t, w2, "db.t2", 1); err != nil {
		t.Fatalf("only rule set on db.t2: %v", err)
	}
	if err := writeRows(t, w2, "db.t9", 1); err == nil || !strings.Contains(err.Error(), "rows of table db.t9 reached the sink") {
		t.Fatalf("unknown table: %v", err)
	}
	// a table_path that is not an input, with several inputs, for a catalog rule
	if _, err := newSink(t, `rules { tables_configs = [{ table_path = "db.t3", catalog_table_rule { column_rule = [] } }] }`, t1, t2); err == nil || !strings.Contains(err.Error(), `rules.tables_configs[0].table_path: table "db.t3" is not among the sink's input tables (db.t1, db.t2)`) {
		t.Fatalf("bad table_path: %v", err)
	}
}

// One set of field rules applies to every table, as SeaTunnel's writer uses it when it is
// the only one; without tables_configs each input table is counted on its own.
func TestRulesWithoutTablesConfigsOnSeveralInputs(t *testing.T) {
	t1, t2 := testTable("db.t1"), testTable("db.t2")
	s := mustSink(t, `rules { row_rules = [{rule_type = MIN_ROW, rule_value = 2}], field_rules = [{field_name = c_int, field_type = int}] }`, t1, t2)
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	_ = writeRows(t, w, "db.t1", 2)
	_ = writeRows(t, w, "db.t2", 1)
	c, _ := s.CreateCommitter()
	if err := c.Commit(context.Background(), connector.CommitRequest{Final: true, Infos: prepare(t, w)}); err == nil || !strings.Contains(err.Error(), "table db.t2: row num :1") {
		t.Fatalf("error %v", err)
	}
}

func TestSingleInputCountsEveryRow(t *testing.T) {
	// rows may carry another table id (a renaming transform): with one input they all count
	s := mustSink(t, `rules { tables_configs = [{ table_path = "t", row_rules = [{rule_type = MIN_ROW, rule_value = 3}], field_rules = [{field_name = c_int, field_type = int}] }] }`, testTable("t"))
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	if err := writeRows(t, w, "renamed", 3); err != nil {
		t.Fatal(err)
	}
	c, _ := s.CreateCommitter()
	if err := c.Commit(context.Background(), connector.CommitRequest{Final: true, Infos: prepare(t, w)}); err != nil {
		t.Fatal(err)
	}
}

func TestRender(t *testing.T) {
	cases := []struct {
		v    row.Value
		want string
	}{
		{row.DecimalValue(big.NewInt(1), 8), "1E-8"},
		{row.DecimalValue(big.NewInt(-15), 7), "-0.0000015"},
		{row.DecimalValue(big.NewInt(-15), 8), "-1.5E-7"},
		{row.DecimalValue(big.NewInt(15), -2), "1.5E+3"},
		{row.DecimalValue(big.NewInt(9999999999999), 8), "99999.99999999"},
		{row.TimeValue(int64(12 * time.Hour)), "12:00"},
		{row.TimeValue(int64(12*time.Hour + time.Second)), "12:00:01"},
		{row.TimeValue(int64(12*time.Hour + 500*time.Millisecond)), "12:00:00.500"},
		{row.TimeValue(int64(12*time.Hour + 5*time.Microsecond)), "12:00:00.000005"},
		{row.TimeValue(int64(12*time.Hour + 5)), "12:00:00.000000005"},
		{row.TimestampOf(time.Date(1960, 1, 2, 3, 4, 0, 0, time.UTC)), "1960-01-02T03:04"},
		{row.FloatValue(40), "40.0"},
		{row.DoubleValue(1e10), "1.0E10"},
		{row.NullValue(), "null"},
		{row.MapOfValues(&row.MapValue{Keys: []row.Value{row.IntValue(1)}, Vals: []row.Value{row.NullValue()}}), "{1=null}"},
	}
	for _, c := range cases {
		if got := string(appendJava(nil, c.v)); got != c.want {
			t.Errorf("appendJava(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	if n := javaLength(row.StringValue("a😀")); n != 3 {
		t.Errorf("javaLength = %d", n)
	}
	if s := javaType(types.MustParse("map<string, {a = int, b = decimal(5, 1)}>")); s != "Map<STRING, ROW<a INT,b Decimal(5, 1)>>" {
		t.Errorf("javaType = %s", s)
	}
}

func TestRegistered(t *testing.T) {
	if _, name, ok := connector.LookupSink("ASSERT"); !ok || name != "Assert" {
		t.Fatal("Assert not registered")
	}
}

// BenchmarkAssertWrite checks a NOT_NULL, a MIN/MAX and an equals_to rule per row.
func BenchmarkAssertWrite(b *testing.B) {
	root, _ := hocon.Parse([]byte(`rules {
	  row_rules = [{rule_type = MAX_ROW, rule_value = 1e18}]
	  field_rules = [
	    {field_name = c_string, field_type = string, field_value = [{rule_type = NOT_NULL}]},
	    {field_name = c_int, field_type = int, field_value = [{rule_type = MIN, rule_value = 0}, {rule_type = MAX, rule_value = 1000}]},
	    {field_name = c_date, field_type = date, field_value = [{equals_to = "2012-12-21"}]}
	  ]
	}`), hocon.Options{})
	build, _, _ := connector.LookupSink("Assert")
	s, err := build(&connector.SinkContext{Context: context.Background(), Options: config.New(root, "bench"), Inputs: []*catalog.Table{testTable("t")}})
	if err != nil {
		b.Fatal(err)
	}
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	batch := row.NewBatch(row.DefaultBatchSize)
	for i := 0; i < row.DefaultBatchSize; i++ {
		fullRow(batch, "t")
	}
	benchwrite.Batches(b, w, batch)
}

func TestUnknownOptionsAreWarned(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"known options", `rules { row_rules = [{rule_type = MAX_ROW, rule_value = 5}], field_rules = [{field_name = c_int, field_type = int, field_value = [{rule_type = NOT_NULL, equals_to = 333}]}], catalog_table_rule { column_rule = [] } }`, nil},
		{"a misspelt rule list", `rules { row_rule = [{rule_type = MAX_ROW, rule_value = 5}], table-names = [t] }`,
			[]string{`unknown option "rules.row_rule" (did you mean "rules.row_rules"?) at assert.conf:1:20`}},
		{"a misspelt option of a field rule", `rules { field_rules = [{field_name = c_int, field_type = int, feild_value = []}] }`,
			[]string{`unknown option "rules.field_rules[0].feild_value" (did you mean "rules.field_rules[0].field_value"?) at assert.conf:1:77`}},
		{"a misspelt option of a value rule", `rules { field_rules = [{field_name = c_int, field_type = int, field_value = [{rule_type = NOT_NULL}, {equal_to = 1}]}] }`,
			[]string{`unknown option "rules.field_rules[0].field_value[1].equal_to" (did you mean "rules.field_rules[0].field_value[1].equals_to"?) at assert.conf:1:114`}},
		{"a misspelt option of a table's rules", `rules { tables_configs = [{ table_path = t, row_rules = [{rule_type = MIN_ROW, rule_value = 1, colour = red}] }] }`,
			[]string{`unknown option "rules.tables_configs[0].row_rules[0].colour" at assert.conf:1:105`}},
		{"an option beside the rules", "rules { table-names = [t] }\nextra = 1", []string{`unknown option "extra" at assert.conf:2:9`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, err := hocon.Parse([]byte(tc.src), hocon.Options{File: "assert.conf"})
			if err != nil {
				t.Fatal(err)
			}
			o := config.New(root, "sink[0] Assert")
			build, _, _ := connector.LookupSink("Assert")
			if _, err := build(&connector.SinkContext{Context: context.Background(), Options: o, Inputs: []*catalog.Table{testTable("t")}}); err != nil {
				t.Fatal(err)
			}
			p, _ := connector.LookupPlugin("sink", "Assert")
			if got := p.Spec.Unknown(o, "plugin_input"); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("warnings\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestRequiredOptions(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{``, "sink[0] Assert: rules: option is required (at assert.conf:1:1)"},
		{`rules { field_rules = [{field_type = int}] }`, "sink[0] Assert: rules.field_rules[0].field_name: option is required (at assert.conf:1:24)"},
		{`rules { tables_configs = [{ row_rules = [] }] }`, "sink[0] Assert: rules.tables_configs[0].table_path: option is required (at assert.conf:1:27)"},
		{`rules { catalog_table_rule { constraint_key_rule = [{ constraint_key_name = k }] } }`, "sink[0] Assert: rules.catalog_table_rule.constraint_key_rule[0].constraint_key_type: option is required (at assert.conf:1:53)"},
		{`rules { catalog_table_rule { constraint_key_rule = [{ constraint_key_type = UNIQUE_KEY, constraint_key_columns = [{}] }] } }`, "sink[0] Assert: rules.catalog_table_rule.constraint_key_rule[0].constraint_key_columns[0].constraint_key_column_name: option is required (at assert.conf:1:115)"},
	} {
		_, err := newSink(t, tc.src, testTable("t"))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n  error %v\n  want  %s", tc.src, err, tc.want)
		}
	}
}
