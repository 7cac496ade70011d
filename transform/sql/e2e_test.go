package sql_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/transformtest"
	"github.com/strait-dev/strait/types"

	"github.com/strait-dev/strait/transform/sql"
)

func useUTC() func() { return sql.SetLocalZone(time.UTC) }

// sourceRows returns the rows a job's FakeSource emits: its literal `rows` when it has them,
// else random rows of its schema.
func sourceRows(t *testing.T, job *transformtest.Job) []*row.Batch {
	t.Helper()
	rows, err := job.SourceOpts.ObjectList("rows")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		return job.Fake(job.RowNum(), 16, 7)
	}
	rt := job.Source.RowType()
	b := row.NewBatch(len(rows))
	var conv literal.Converter
	for _, r := range rows {
		kindName, _ := r.String("kind", "INSERT")
		kind, ok := row.ParseKind(kindName)
		if !ok {
			t.Fatalf("row kind %q", kindName)
		}
		fields, err := conv.ConvertFields(r.Get("fields"), rt)
		if err != nil {
			t.Fatalf("row fields: %v", err)
		}
		out := b.Add(kind, job.Source.ID(), len(fields))
		copy(out.Fields, fields)
	}
	return []*row.Batch{b}
}

func runJob(t *testing.T, job *transformtest.Job) []row.Row {
	t.Helper()
	var all []row.Row
	for _, b := range sourceRows(t, job) {
		rows, err := transformtest.Run(t, b, job.Transforms...)
		if err != nil {
			t.Fatalf("process: %v", err)
		}
		all = append(all, rows...)
	}
	return all
}

// The e2e job files of SeaTunnel that use the Sql transform: the query compiles against the
// source schema and the output satisfies the Assert sink's rules.
func TestE2EJobs(t *testing.T) {
	defer useUTC()()
	shared := []string{
		"transform/sql_transform.conf",
		"transform/criteria_filter.conf",
		"transform/case_when.conf",
		"transform/func_string.conf",
		"transform/binary_expression.conf",
		"fake/fake_to_assert.conf",
	}
	for _, rel := range shared {
		t.Run(rel, func(t *testing.T) {
			job := transformtest.BuildJob(t, transformtest.LoadJob(t, rel))
			rows := runJob(t, job)
			if fails := checkAssert(job, rows); len(fails) > 0 {
				t.Fatal(strings.Join(fails, "\n"))
			}
		})
	}
	// more of SeaTunnel's Sql e2e jobs, kept in testdata
	for _, name := range []string{"func_datetime", "func_from_unixtime", "func_numeric", "func_system", "sql_all_columns"} {
		t.Run(name, func(t *testing.T) {
			root, err := hocon.ParseFile(filepath.Join("testdata", name+".conf"), hocon.Options{ListSections: []string{"source", "transform", "sink"}})
			if err != nil {
				t.Fatal(err)
			}
			job := transformtest.BuildJob(t, root)
			rows := runJob(t, job)
			if len(rows) == 0 {
				t.Fatal("no rows")
			}
			if fails := checkAssert(job, rows); len(fails) > 0 {
				t.Fatal(strings.Join(fails, "\n"))
			}
		})
	}
}

// The exact values of the e2e jobs with literal rows, beyond what Assert checks.
func TestE2EValues(t *testing.T) {
	defer useUTC()()
	job := transformtest.BuildJob(t, transformtest.LoadJob(t, "transform/criteria_filter.conf"))
	rows := runJob(t, job)
	if len(rows) != 1 || rows[0].Fields[0].I != 1 || rows[0].Fields[3].T != types.Null {
		t.Fatalf("criteria_filter: %v", rows)
	}
	job = transformtest.BuildJob(t, transformtest.LoadJob(t, "transform/func_string.conf"))
	rows = runJob(t, job)
	out := job.Output
	want := map[string]string{
		"c1_1": "65", "c2_1": "98", "c4_1": "64", "c4_2": "8", "c4_3": "8", "c5_1": "b",
		"c1_2": "A1!", "c6_1": "7", "c7_1": "0037", "name1": "J** Ding", "name2": "joy ding",
		"name3": "JOY DING", "name4": "Joy", "name5": "Ding", "name6": "**Joy Ding",
		"name7": "Joy Ding**", "c8_1": "Joy_Ding@s.com*", "c8_2": "*Joy_Ding@s.com",
		"c8_3": "Joy_Ding@s.com", "c9_1": "Joy_WDing@s.com", "name8": "true", "c10_1": "2020",
		"c10_2": "10", "name9": "Joy Ding Joy Ding Joy Ding ", "name10": "Joy_Ding",
		"name11": "J352", "name12": "Joy Ding   ", "name13": "Joy", "id1": "1",
		"c11_1": "2022-12-12", "name14": "Joy DING", "name15": "Joy Ding",
	}
	for name, w := range want {
		i := out.ColumnIndex(name)
		if i < 0 {
			t.Errorf("no column %s", name)
			continue
		}
		if got := rows[0].Fields[i].String(); got != w {
			t.Errorf("%s = %q, want %q", name, got, w)
		}
	}
	if u := rows[0].Fields[out.ColumnIndex("uuid")].S; len(u) != 36 || u[14] != '4' {
		t.Errorf("uuid %q", u)
	}
	job = transformtest.BuildJob(t, transformtest.LoadJob(t, "transform/binary_expression.conf"))
	rows = runJob(t, job)
	if got := rowText(rows[0]); got != "[2, 4, 44.74, 100.0, 18.619999999999994, Joy Ding_1]" {
		t.Errorf("binary_expression: %s", got)
	}
	if got := job.Output.RowType().String(); got != "{id = int, id2 = int, price = double, price2 = double, price3 = double, name = string}" {
		t.Errorf("binary_expression types: %s", got)
	}
	job = transformtest.BuildJob(t, transformtest.LoadJob(t, "transform/case_when.conf"))
	rows = runJob(t, job)
	if got := rowText(rows[0]); got != "[1, 0, 1, 0, 1, 1, 0]" {
		t.Errorf("case_when: %s", got)
	}
}

func rowText(r row.Row) string {
	parts := make([]string, len(r.Fields))
	for i, v := range r.Fields {
		parts[i] = v.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// The sql_transform job: nested row, map, array and decimal columns pass through.
func TestE2ESqlTransformTypes(t *testing.T) {
	job := transformtest.BuildJob(t, transformtest.LoadJob(t, "transform/sql_transform.conf"))
	got := job.Output.RowType().String()
	want := "{id = int, name = string, age = int, pi = double, c_time = time, c_timestamp = timestamp, c_date = date, c_map = map<string, string>, c_array = array<int>, c_decimal = decimal(30, 8), c_row = {c_row = {c_int = int}}}"
	if got != want {
		t.Fatalf("output\n got %s\nwant %s", got, want)
	}
	rows := runJob(t, job)
	for _, r := range rows {
		if r.Fields[1].S != "b" {
			t.Fatalf("name %q", r.Fields[1].S)
		}
	}
}

// fake_to_console.variables.conf with the variables SeaTunnel's test passes.
func TestE2EVariables(t *testing.T) {
	dir := transformtest.E2EDir(t)
	vars := map[string]string{"resName": "a20260101", "rowNum": "10", "strTemplate": "[abc,def]", "nameType": "string", "nameVal": "abc", "sourceTableName": "sql"}
	root, err := hocon.ParseFile(filepath.Join(dir, "engine/fake_to_console.variables.conf"), hocon.Options{Vars: vars, ListSections: []string{"source", "transform", "sink"}})
	if err != nil {
		t.Fatal(err)
	}
	job := transformtest.BuildJob(t, root)
	b := row.NewBatch(4)
	for _, name := range []string{"abc", "def", "abc", "xyz"} {
		r := b.Add(row.Insert, job.Source.ID(), 2)
		r.Fields[0], r.Fields[1] = row.StringValue(name), row.IntValue(1)
	}
	rows, err := transformtest.Run(t, b, job.Transforms...)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Fields[0].S != "abc" {
		t.Fatalf("rows %v", rows)
	}
}

// inner_query.conf: nested rows and map keys (its FakeSource fills strings from a template,
// so the rows are made here).
func TestE2EInnerQuery(t *testing.T) {
	root, err := hocon.ParseFile(filepath.Join("testdata", "inner_query.conf"), hocon.Options{ListSections: []string{"source", "transform", "sink"}})
	if err != nil {
		t.Fatal(err)
	}
	job := transformtest.BuildJob(t, root)
	got := job.Output.RowType().String()
	want := "{c_date = date, c_string = string, c_inner_string = string, c_inner_timestamp = timestamp, inner_map = map<string, string>, map_val = string, map_not_exist_val = string}"
	if got != want {
		t.Fatalf("output\n got %s\nwant %s", got, want)
	}
	s := row.StringValue("innerQuery")
	m := row.MapOfValues(&row.MapValue{Keys: []row.Value{s}, Vals: []row.Value{s}})
	inner := row.RowValue([]row.Value{row.IntValue(1), s, row.TimestampValue(0), m})
	b := row.NewBatch(1)
	r := b.Add(row.Insert, job.Source.ID(), 3)
	r.Fields[0], r.Fields[1], r.Fields[2] = s, row.DateValue(1), row.RowValue([]row.Value{inner, s})
	rows, err := transformtest.Run(t, b, job.Transforms...)
	if err != nil {
		t.Fatal(err)
	}
	wantRow := []row.Value{row.DateValue(1), s, s, row.TimestampValue(0), m, s, {}}
	for i, w := range wantRow {
		if !row.Equal(rows[0].Fields[i], w) {
			t.Errorf("field %d = %v, want %v", i, rows[0].Fields[i], w)
		}
	}
}

// checkAssert evaluates the Assert sink's rules of a job on the output rows, comparing
// equals_to as a value of the field's type (as SeaTunnel's Assert does): row_rules MIN_ROW and
// MAX_ROW; field_rules with field_type, NOT_NULL, NULL, MIN, MAX, MIN_LENGTH, MAX_LENGTH and
// equals_to.
func checkAssert(job *transformtest.Job, rows []row.Row) []string {
	var fails []string
	for _, f := range job.Root.Get("sink").Fields {
		if f.Key != "Assert" {
			continue
		}
		rules := f.Value.Lookup("rules")
		if rr := rules.Get("row_rules"); rr != nil {
			for _, r := range rr.Elems {
				n := num(r.Get("rule_value"))
				switch strings.ToUpper(r.Get("rule_type").Str) {
				case "MIN_ROW":
					if float64(len(rows)) < n {
						fails = append(fails, fmt.Sprintf("MIN_ROW %v: %d rows", n, len(rows)))
					}
				case "MAX_ROW":
					if float64(len(rows)) > n {
						fails = append(fails, fmt.Sprintf("MAX_ROW %v: %d rows", n, len(rows)))
					}
				}
			}
		}
		fr := rules.Get("field_rules")
		if fr == nil {
			continue
		}
		for _, r := range fr.Elems {
			name := r.Get("field_name").Str
			idx := job.Output.ColumnIndex(name)
			if idx < 0 {
				fails = append(fails, fmt.Sprintf("field %s is not in the output %v", name, job.Output.RowType()))
				continue
			}
			typ := job.Output.Columns[idx].Type
			if ft := r.Get("field_type"); ft != nil {
				want, err := catalog.TypeOf(ft)
				if err != nil {
					fails = append(fails, fmt.Sprintf("field %s: bad field_type: %v", name, err))
				} else if !typ.Equal(want) {
					fails = append(fails, fmt.Sprintf("field %s: type %s, want %s", name, typ, want))
				}
			}
			fv := r.Get("field_value")
			if fv == nil {
				continue
			}
			for _, rule := range fv.Elems {
				kind := ""
				if rt := rule.Get("rule_type"); rt != nil {
					kind = strings.ToUpper(rt.Str)
				}
				val := num(rule.Get("rule_value"))
				var want row.Value
				eq := rule.Get("equals_to")
				if eq != nil {
					var err error
					if want, err = literal.Convert(eq, typ); err != nil {
						fails = append(fails, fmt.Sprintf("field %s: equals_to: %v", name, err))
						continue
					}
				}
				for _, out := range rows {
					v := out.Fields[idx]
					bad := ""
					switch kind {
					case "NOT_NULL":
						if v.IsNull() {
							bad = "is null"
						}
					case "NULL":
						if !v.IsNull() {
							bad = "is not null"
						}
					case "MIN", "MAX":
						f, _ := v.AsFloat64()
						if !v.IsNull() && (kind == "MIN" && f < val || kind == "MAX" && f > val) {
							bad = fmt.Sprintf("%v violates %s %v", v, kind, val)
						}
					case "MIN_LENGTH", "MAX_LENGTH":
						n := float64(len([]rune(v.String())))
						if !v.IsNull() && (kind == "MIN_LENGTH" && n < val || kind == "MAX_LENGTH" && n > val) {
							bad = fmt.Sprintf("%q violates %s %v", v.String(), kind, val)
						}
					}
					if eq != nil && bad == "" && !row.Equal(v, want) {
						bad = fmt.Sprintf("%v is not equal to %v", v, want)
					}
					if bad != "" {
						fails = append(fails, fmt.Sprintf("field %s: %s", name, bad))
						break
					}
				}
			}
		}
	}
	return fails
}

func num(v *hocon.Value) float64 {
	if v == nil {
		return 0
	}
	f, _ := strconv.ParseFloat(v.Str, 64)
	return f
}
