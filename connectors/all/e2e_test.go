package all

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/console"
	"github.com/strait-dev/strait/connectors/internal/conntest"
)

// e2eDir holds SeaTunnel's own end-to-end job configs, kept unchanged in the repository.
const e2eDir = "../../testdata/seatunnel-e2e"

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func readConf(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e2eDir, name))
	if err != nil {
		t.Fatalf("e2e config: %v", err)
	}
	return string(b)
}

func run(t *testing.T, name, text string) (string, error) {
	t.Helper()
	out := &lockedBuffer{}
	prev := console.SetOutput(out)
	defer console.SetOutput(prev)
	root, err := conntest.Parse([]byte(text), name, nil)
	if err != nil {
		t.Fatalf("%s: parse: %v", name, err)
	}
	err = conntest.RunJob(context.Background(), root)
	return out.String(), err
}

func TestRegistry(t *testing.T) {
	for _, n := range []string{"FakeSource"} {
		if _, _, ok := connector.LookupSource(n); !ok {
			t.Errorf("source %s not registered", n)
		}
	}
	for _, n := range []string{"Console", "Assert", "console", "assert"} {
		if _, _, ok := connector.LookupSink(n); !ok {
			t.Errorf("sink %s not registered", n)
		}
	}
}

// The e2e configs that need only FakeSource, Console, Assert and pass-through transforms
// (Filter with the listed fields, Sql `select *`) must pass unchanged.
func TestSeaTunnelE2EConfigs(t *testing.T) {
	cases := []struct {
		file  string
		lines int // Console lines expected, -1 to skip the check
	}{
		{"fake/fake_full_types_to_assert.conf", 0},
		{"fake/fake_row_to_assert.conf", 0},
		{"fake/fake_to_assert.conf", 0},
		{"fake/fake_to_assert_with_range.conf", 0},
		{"fake/fake_to_assert_with_template.conf", 0},
		{"fake/fakesource_to_assert.conf", 0},
		{"engine/fakesource_to_console.conf", 5},
		{"engine/batch_fake_multi_table_to_console.conf", 15},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			out, err := run(t, c.file, readConf(t, c.file))
			if err != nil {
				t.Fatalf("%s failed: %v", c.file, err)
			}
			if c.lines >= 0 {
				if got := strings.Count(out, "\n"); got != c.lines {
					t.Errorf("%d console lines, want %d:\n%s", got, c.lines, out)
				}
			}
		})
	}
}

func TestConsoleOutputOfMultiTableJob(t *testing.T) {
	out, err := run(t, "multi", readConf(t, "engine/batch_fake_multi_table_to_console.conf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"subtaskIndex=0  rowIndex=1:  SeaTunnelRow#tableId=fake.table1 SeaTunnelRow#kind=INSERT : 1, A, 100\n",
		"subtaskIndex=0  rowIndex=7:  SeaTunnelRow#tableId=fake.table1 SeaTunnelRow#kind=UPDATE_BEFORE : 1, A, 100\n",
		"subtaskIndex=0  rowIndex=8:  SeaTunnelRow#tableId=fake.table1 SeaTunnelRow#kind=UPDATE_AFTER : 1, A, 300\n",
		"subtaskIndex=0  rowIndex=9:  SeaTunnelRow#tableId=fake.table1 SeaTunnelRow#kind=DELETE : 2, B, 100\n",
		"subtaskIndex=0  rowIndex=3:  SeaTunnelRow#tableId=fake.public.table2 SeaTunnelRow#kind=DELETE : 2, B, 100\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// Copies of the e2e configs with one thing broken must fail, naming what broke.
func TestSeaTunnelE2EBrokenCopies(t *testing.T) {
	cases := []struct {
		file     string
		old, new string
		want     []string
	}{
		{ // a deep equals_to on a scalar
			"fake/fake_full_types_to_assert.conf", "equals_to = 333", "equals_to = 334",
			[]string{"table fake: row :SeaTunnelRow{tableId=fake, kind=+I, fields=[null, AAA, false, 1, 1, 333,", "fail rule: AssertFieldRule(fieldName=c_int, fieldType=INT, fieldRules=[AssertFieldRule.AssertRule(ruleType=NOT_NULL, ruleValue=null, equalTo=334)])", "field c_int = 333 is not equal to equals_to 334"},
		},
		{ // inside a nested row
			"fake/fake_full_types_to_assert.conf", `{ k0 = v0 }
                        ]`, `{ k0 = v1 }
                        ]`,
			[]string{"fieldName=c_row", "is not equal to equals_to"},
		},
		{ // a map keyed by dates
			"fake/fake_full_types_to_assert.conf", `equals_to = { "2024-01-26" = v0 }`, `equals_to = { "2024-01-27" = v0 }`,
			[]string{"fieldName=c_map, fieldType=Map<DATE, STRING>", "field c_map = {2024-01-26=v0} is not equal to equals_to {2024-01-27=v0}"},
		},
		{ // the declared type is checked exactly
			"fake/fake_full_types_to_assert.conf", `field_type = "decimal(30, 8)"`, `field_type = "decimal(30, 7)"`,
			[]string{"fieldName=c_decimal, fieldType=Decimal(30, 7)", "is a decimal(13, 8), not field_type decimal(30, 7)"},
		},
		{
			"fake/fake_row_to_assert.conf", "rule_type = MIN_ROW\n            rule_value = 1", "rule_type = MIN_ROW\n            rule_value = 2",
			[]string{"table fake: row num :1 fail rule: AssertFieldRule.AssertRule(ruleType=MIN_ROW, ruleValue=2.0, equalTo=null)"},
		},
		{ // rows are counted across parallel writers: 2 readers x 1 row > MAX_ROW 1
			"fake/fake_row_to_assert.conf", "parallelism = 1", "parallelism = 2",
			[]string{"row num :2 fail rule: AssertFieldRule.AssertRule(ruleType=MAX_ROW, ruleValue=1.0, equalTo=null)"},
		},
		{
			"fake/fake_to_assert_with_range.conf", "rule_value = 9\n", "rule_value = 0\n",
			[]string{"fieldName=c_tinyint", "breaks rule_type MAX with rule_value 0.0"},
		},
		{
			"fake/fake_to_assert_with_template.conf", "rule_value = 13", "rule_value = 3",
			[]string{"fieldName=c_string", "MAX_LENGTH"},
		},
		{ // a typo in a type is a config error naming the option
			"fake/fake_to_assert_with_template.conf", "field_type = tinyint", "field_type = strng",
			[]string{`sink[0] Assert: rules.field_rules[1].field_type: unknown type "strng" (at fake/fake_to_assert_with_template.conf:`},
		},
		{
			"fake/fake_to_assert_with_template.conf", "field_name = c_int", "field_name = c_integer",
			[]string{`rules.field_rules[3].field_name: unknown field "c_integer" in table default.default.default`},
		},
		{
			"fake/fake_to_assert_with_template.conf", "rule_type = MIN\n", "rule_type = MINIMUM\n",
			[]string{`rules.field_rules[1].field_value[0].rule_type: unknown rule type "MINIMUM"`},
		},
		{
			"fake/fakesource_to_assert.conf", "rule_value = 5\n          }\n        ],", "rule_value = 101\n          }\n        ],",
			[]string{"table fake: row num :100 fail rule: AssertFieldRule.AssertRule(ruleType=MIN_ROW, ruleValue=101.0"},
		},
		{
			"fake/fakesource_to_assert.conf", "rule_value = 32767\n", "rule_value = 2147483647\n",
			[]string{"fieldName=age, fieldType=INT", "breaks rule_type MIN with rule_value 2.147483647E9"},
		},
		{
			"fake/fake_to_assert.conf", "rule_value = 5", "rule_value = 4",
			[]string{"row num :5 fail rule: AssertFieldRule.AssertRule(ruleType=MAX_ROW, ruleValue=4.0"},
		},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file)+"/"+strings.ReplaceAll(c.new, "\n", " "), func(t *testing.T) {
			text := readConf(t, c.file)
			if strings.Count(text, c.old) < 1 {
				t.Fatalf("%q not found in %s", c.old, c.file)
			}
			broken := strings.Replace(text, c.old, c.new, 1)
			_, err := run(t, c.file, broken)
			if err == nil {
				t.Fatalf("broken copy of %s passed", c.file)
			}
			t.Log(err)
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n  %v\nlacks\n  %s", err, w)
				}
			}
		})
	}
}

const multiTable = `
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

func TestMultiTableAssert(t *testing.T) {
	if _, err := run(t, "multi.conf", multiTable); err != nil {
		t.Fatal(err)
	}
	for old, want := range map[string]string{
		`rule_type = MIN_ROW, rule_value = 34`:                  "table test.table2: row num :34 fail rule: AssertFieldRule.AssertRule(ruleType=MIN_ROW, ruleValue=35.0",
		`table-names = ["test.table1", "test.table2"]`:          "table names: [test.table1, test.table2] is not equal to [test.table1, test.table3]",
		`field_name = c_tinyint, field_type = tinyint`:          "fieldType=SMALLINT",
		`field_name = c_int, field_type = int`:                  `tables_configs[0].field_rules[0].field_name: unknown field "c_string" in table test.table1`,
		`{ rule_type = MAX_ROW, rule_value = 32 }`:              "row num :",
		`table_path = "test.table1"`:                            "rules.tables_configs[0].table_path: option is required",
		`fields { c_string = string, c_tinyint = tinyint } } }`: "fieldName=c_tinyint, fieldType=TINYINT",
	} {
		var repl string
		switch {
		case strings.Contains(old, "MIN_ROW"):
			repl = `rule_type = MIN_ROW, rule_value = 35`
		case strings.HasPrefix(old, "table-names"):
			repl = `table-names = ["test.table1", "test.table3"]`
		case strings.Contains(old, "c_tinyint, field_type"):
			repl = `field_name = c_tinyint, field_type = smallint`
		case strings.Contains(old, "c_int"):
			repl = `field_name = c_string, field_type = string`
		case strings.Contains(old, "MAX_ROW"):
			repl = `{ rule_type = MAX_ROW, rule_value = 31 }`
		case strings.HasPrefix(old, "table_path"):
			repl = `tablepath = "test.table1"`
		default:
			repl = `fields { c_string = string, c_tinyint = int } } }`
		}
		_, err := run(t, "multi.conf", strings.Replace(multiTable, old, repl, 1))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s -> %s: error %v, want %q", old, repl, err, want)
		}
	}
}

const catalogRules = `
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

func TestCatalogTableRule(t *testing.T) {
	if _, err := run(t, "catalog.conf", catalogRules); err != nil {
		t.Fatal(err)
	}
	for old, c := range map[string]struct{ repl, want string }{
		`table = "test.fakeTable" }`:            {`table = "test.other" }`, "rules.catalog_table_rule.table_identifier_rule: tableIdentifier: FakeSource.test.fakeTable is not equal to FakeSource.test.other"},
		`primary_key_columns = ["id"]`:          {`primary_key_columns = ["id", "age"]`, "primaryKey columns: [id] is not equal to [id, age]"},
		`primary_key_name = "primary key"`:      {`primary_key_name = "pk"`, "primaryKey: primary key is not equal to pk"},
		`constraint_key_type = UNIQUE_KEY`:      {`constraint_key_type = INDEX_KEY`, "rules.catalog_table_rule.constraint_key_rule: table test.fakeTable: constraintKeys:"},
		`{ name = "age", type = int }`:          {`{ name = "age", type = bigint }`, "rules.catalog_table_rule.column_rule: table test.fakeTable: columns:"},
		`constraint_key_type = UNIQUE_KEY,`:     {`constraint_key_type = PRIMARY,`, `constraint_key_type: unknown value "PRIMARY"`},
		`{ name = "name", type = string, colum`: {`{ name = "name", type = strin, colum`, `column_rule[1].type: unknown type "strin"`},
	} {
		_, err := run(t, "catalog.conf", strings.Replace(catalogRules, old, c.repl, 1))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s: error %v, want %q", old, c.repl, err, c.want)
		}
	}
}

// fake_to_console.variables.conf needs a real Sql transform (a WHERE clause); its source
// part runs here with the variables SeaTunnel's test passes.
func TestVariablesConfigSource(t *testing.T) {
	text := readConf(t, "engine/fake_to_console.variables.conf")
	vars := map[string]string{"resName": "a20260101", "rowNum": "10", "strTemplate": "[abc,def]", "nameType": "string", "nameVal": "abc", "sourceTableName": "sql"}
	root, err := conntest.Parse([]byte(text), "vars.conf", vars)
	if err != nil {
		t.Fatal(err)
	}
	fs := root.Get("source").Fields[0]
	f, _, _ := connector.LookupSource(fs.Key)
	opts := config.New(fs.Value, "source[0] "+fs.Key)
	src, err := f(&connector.SourceContext{Options: opts, Job: connector.Job{Mode: connector.Batch}, Parallelism: 2, OutputName: "a20260101"})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := conntest.Rows(context.Background(), src, 2)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rs := range rows {
		for _, r := range rs {
			n++
			if name := r.Fields[0].S; (name != "abc" && name != "def") || r.Table != "a20260101" {
				t.Fatalf("row %v of %s", r.Fields, r.Table)
			}
		}
	}
	if n != 20 {
		t.Errorf("%d rows, want 2 readers x 10", n)
	}
}
