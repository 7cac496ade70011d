package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// breakage is one piece of a config replaced, and how the run of the broken copy must end: exit
// 1 with the job FAILED when a rule is broken, exit 2 before anything runs when the config is
// wrong, its output holding every want.
type breakage struct {
	old, new string
	code     int
	want     []string
}

// runBroken writes text with b applied as name in a temporary folder, runs it and checks how
// it ends.
func runBroken(t *testing.T, name, text string, b breakage) {
	t.Helper()
	if !strings.Contains(text, b.old) {
		t.Fatalf("%s does not contain %q", name, b.old)
	}
	code, out := run(t, "run", writeFile(t, name, strings.Replace(text, b.old, b.new, 1)))
	if b.code == 2 {
		if code != 2 {
			t.Fatalf("exit %d, want 2 (a config error)\n%s", code, tail(out, 20))
		}
		if strings.Contains(out, "submitted") {
			t.Fatalf("the job ran despite the config error:\n%s", tail(out, 20))
		}
		for _, w := range b.want {
			if !strings.Contains(out, w) {
				t.Errorf("the output does not hold %q:\n%s", w, tail(out, 20))
			}
		}
		return
	}
	checkRun(t, name, code, out, b.code, b.want...)
}

func readSeaTunnel(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(seatunnel(rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Copies of SeaTunnel's FakeSource → Assert configs with one rule or option broken fail, and
// say what broke as SeaTunnel's Assert says it: the row, the rule, and why.
func TestAssertBrokenCopies(t *testing.T) {
	cases := []struct {
		file string
		breakage
	}{
		{"fake/fake_full_types_to_assert.conf", breakage{ // a deep equals_to on a scalar
			"equals_to = 333", "equals_to = 334", 1,
			[]string{"table fake: row :SeaTunnelRow{tableId=fake, kind=+I, fields=[null, AAA, false, 1, 1, 333,", "fail rule: AssertFieldRule(fieldName=c_int, fieldType=INT, fieldRules=[AssertFieldRule.AssertRule(ruleType=NOT_NULL, ruleValue=null, equalTo=334)])", "field c_int = 333 is not equal to equals_to 334"},
		}},
		{"fake/fake_full_types_to_assert.conf", breakage{ // inside a nested row
			"{ k0 = v0 }\n                        ]", "{ k0 = v1 }\n                        ]", 1,
			[]string{"fieldName=c_row", "is not equal to equals_to"},
		}},
		{"fake/fake_full_types_to_assert.conf", breakage{ // a map keyed by dates
			`equals_to = { "2024-01-26" = v0 }`, `equals_to = { "2024-01-27" = v0 }`, 1,
			[]string{"fieldName=c_map, fieldType=Map<DATE, STRING>", "field c_map = {2024-01-26=v0} is not equal to equals_to {2024-01-27=v0}"},
		}},
		{"fake/fake_full_types_to_assert.conf", breakage{ // the declared type is checked exactly
			`field_type = "decimal(30, 8)"`, `field_type = "decimal(30, 7)"`, 1,
			[]string{"fieldName=c_decimal, fieldType=Decimal(30, 7)", "is a decimal(13, 8), not field_type decimal(30, 7)"},
		}},
		{"fake/fake_row_to_assert.conf", breakage{
			"rule_type = MIN_ROW\n            rule_value = 1", "rule_type = MIN_ROW\n            rule_value = 2", 1,
			[]string{"table fake: row num :1 fail rule: AssertFieldRule.AssertRule(ruleType=MIN_ROW, ruleValue=2.0, equalTo=null)"},
		}},
		{"fake/fake_row_to_assert.conf", breakage{ // rows are counted across parallel writers: 2 readers x 1 row > MAX_ROW 1
			"parallelism = 1", "parallelism = 2", 1,
			[]string{"row num :2 fail rule: AssertFieldRule.AssertRule(ruleType=MAX_ROW, ruleValue=1.0, equalTo=null)"},
		}},
		{"fake/fake_to_assert_with_range.conf", breakage{
			"rule_value = 9\n", "rule_value = 0\n", 1,
			[]string{"fieldName=c_tinyint", "breaks rule_type MAX with rule_value 0.0"},
		}},
		{"fake/fake_to_assert_with_template.conf", breakage{
			"rule_value = 13", "rule_value = 3", 1,
			[]string{"fieldName=c_string", "MAX_LENGTH"},
		}},
		{"fake/fake_to_assert_with_template.conf", breakage{ // a typo in a type is a config error naming the option
			"field_type = tinyint", "field_type = strng", 2,
			[]string{`sink[0] Assert: rules.field_rules[1].field_type: unknown type "strng"`, "fake_to_assert_with_template.conf:"},
		}},
		{"fake/fake_to_assert_with_template.conf", breakage{
			"field_name = c_int", "field_name = c_integer", 2,
			[]string{`rules.field_rules[3].field_name: unknown field "c_integer" in table default.default.default`},
		}},
		{"fake/fake_to_assert_with_template.conf", breakage{
			"rule_type = MIN\n", "rule_type = MINIMUM\n", 2,
			[]string{`rules.field_rules[1].field_value[0].rule_type: unknown rule type "MINIMUM"`},
		}},
		{"fake/fakesource_to_assert.conf", breakage{
			"rule_value = 5\n          }\n        ],", "rule_value = 101\n          }\n        ],", 1,
			[]string{"table fake: row num :100 fail rule: AssertFieldRule.AssertRule(ruleType=MIN_ROW, ruleValue=101.0"},
		}},
		{"fake/fakesource_to_assert.conf", breakage{
			"rule_value = 32767\n", "rule_value = 2147483647\n", 1,
			[]string{"fieldName=age, fieldType=INT", "breaks rule_type MIN with rule_value 2.147483647E9"},
		}},
		{"fake/fake_to_assert.conf", breakage{
			"rule_value = 5", "rule_value = 4", 1,
			[]string{"row num :5 fail rule: AssertFieldRule.AssertRule(ruleType=MAX_ROW, ruleValue=4.0"},
		}},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file)+"/"+strings.ReplaceAll(c.new, "\n", " "), func(t *testing.T) {
			runBroken(t, c.file, readSeaTunnel(t, c.file), c.breakage)
		})
	}
}

// assertMultiTable has FakeSource make two tables over two readers, and Assert check each by
// its own rules (tables_configs) and that exactly these two arrived (table-names).
const assertMultiTable = `
env { parallelism = 2, job.mode = BATCH }
source {
  FakeSource {
    tables_configs = [
      { row.num = 16, split.num = 3, schema { table = "test.table1", fields { c_int = int, c_bigint = bigint } } },
      { row.num = 17, schema { table = "test.table2", fields { c_string = string, c_tinyint = tinyint } } }
    ]
  }
}
sink {
  Assert {
    rules = {
      table-names = ["test.table1", "test.table2"]
      tables_configs = [
        {
          table_path = "test.table1"
          row_rules = [ { rule_type = MAX_ROW, rule_value = 32 }, { rule_type = MIN_ROW, rule_value = 32 } ]
          field_rules = [ { field_name = c_int, field_type = int, field_value = [ { rule_type = NOT_NULL } ] } ]
        },
        {
          table_path = "test.table2"
          row_rules = [ { rule_type = MAX_ROW, rule_value = 34 }, { rule_type = MIN_ROW, rule_value = 34 } ]
          field_rules = [ { field_name = c_tinyint, field_type = tinyint, field_value = [ { rule_type = MAX, rule_value = 127 } ] } ]
        }
      ]
    }
  }
}`

func TestAssertMultiTable(t *testing.T) {
	code, out := run(t, "run", writeJob(t, assertMultiTable))
	checkRun(t, "multi-table", code, out, 0, "Total Read Count : 66", "Total Write Count : 66")
	for _, b := range []breakage{
		{`rule_type = MIN_ROW, rule_value = 34`, `rule_type = MIN_ROW, rule_value = 35`, 1,
			[]string{"table test.table2: row num :34 fail rule: AssertFieldRule.AssertRule(ruleType=MIN_ROW, ruleValue=35.0"}},
		{`table-names = ["test.table1", "test.table2"]`, `table-names = ["test.table1", "test.table3"]`, 1,
			[]string{"table names: [test.table1, test.table2] is not equal to [test.table1, test.table3]"}},
		{`field_name = c_tinyint, field_type = tinyint`, `field_name = c_tinyint, field_type = smallint`, 1,
			[]string{"fieldType=SMALLINT"}},
		{`field_name = c_int, field_type = int`, `field_name = c_string, field_type = string`, 2,
			[]string{`tables_configs[0].field_rules[0].field_name: unknown field "c_string" in table test.table1`}},
		{`{ rule_type = MAX_ROW, rule_value = 32 }`, `{ rule_type = MAX_ROW, rule_value = 31 }`, 1,
			[]string{"table test.table1: row num :", "ruleType=MAX_ROW, ruleValue=31.0"}},
		{`table_path = "test.table1"`, `tablepath = "test.table1"`, 2,
			[]string{"rules.tables_configs[0].table_path: option is required"}},
		{`fields { c_string = string, c_tinyint = tinyint } } }`, `fields { c_string = string, c_tinyint = int } } }`, 1,
			[]string{"fieldName=c_tinyint, fieldType=TINYINT"}},
	} {
		t.Run(b.new, func(t *testing.T) { runBroken(t, "multi.conf", assertMultiTable, b) })
	}
}

// assertCatalogRules has Assert check the table FakeSource declares with columns, keys and a
// name (catalog_table_rule) besides its rows.
const assertCatalogRules = `
env { job.mode = BATCH }
source {
  FakeSource {
    row.num = 10
    schema = {
      table = "test.fakeTable"
      columns = [
        { name = id, type = bigint }
        { name = name, type = string, columnLength = 8 }
        { name = age, type = int }
      ]
      primaryKey = { name = "primary key", columnNames = ["id"] }
      constraintKeys = [ { constraintName = "unique_name", constraintType = UNIQUE_KEY, constraintColumns = [ { columnName = "id", sortType = ASC } ] } ]
    }
    result_table_name = "fake"
  }
}
sink {
  Assert {
    rules {
      catalog_table_rule {
        table_identifier_rule = { catalog_name = "FakeSource", table = "test.fakeTable" }
        primary_key_rule = { primary_key_name = "primary key", primary_key_columns = ["id"] }
        constraint_key_rule = [
          { constraint_key_name = "unique_name", constraint_key_type = UNIQUE_KEY,
            constraint_key_columns = [ { constraint_key_column_name = "id", constraint_key_sort_type = ASC } ] }
        ]
        column_rule = [
          { name = "id", type = bigint }
          { name = "name", type = string, column_length = 8 }
          { name = "age", type = int }
        ]
      }
      field_rules = [ { field_name = name, field_type = string, field_value = [ { rule_type = MIN_LENGTH, rule_value = 8 }, { rule_type = MAX_LENGTH, rule_value = 8 } ] } ]
    }
  }
}`

func TestAssertCatalogTableRule(t *testing.T) {
	code, out := run(t, "run", writeJob(t, assertCatalogRules))
	checkRun(t, "catalog_table_rule", code, out, 0, "Total Write Count : 10")
	for _, b := range []breakage{
		{`table = "test.fakeTable" }`, `table = "test.other" }`, 2,
			[]string{"rules.catalog_table_rule.table_identifier_rule: tableIdentifier: FakeSource.test.fakeTable is not equal to FakeSource.test.other"}},
		{`primary_key_columns = ["id"]`, `primary_key_columns = ["id", "age"]`, 2,
			[]string{"primaryKey columns: [id] is not equal to [id, age]"}},
		{`primary_key_name = "primary key"`, `primary_key_name = "pk"`, 2,
			[]string{"primaryKey: primary key is not equal to pk"}},
		{`constraint_key_type = UNIQUE_KEY`, `constraint_key_type = INDEX_KEY`, 2,
			[]string{"rules.catalog_table_rule.constraint_key_rule: table test.fakeTable: constraintKeys:"}},
		{`{ name = "age", type = int }`, `{ name = "age", type = bigint }`, 2,
			[]string{"rules.catalog_table_rule.column_rule: table test.fakeTable: columns:"}},
		{`constraint_key_type = UNIQUE_KEY,`, `constraint_key_type = PRIMARY,`, 2,
			[]string{`constraint_key_type: unknown value "PRIMARY"`}},
		{`{ name = "name", type = string, colum`, `{ name = "name", type = strin, colum`, 2,
			[]string{`column_rule[1].type: unknown type "strin"`}},
	} {
		t.Run(b.new, func(t *testing.T) { runBroken(t, "catalog.conf", assertCatalogRules, b) })
	}
}
