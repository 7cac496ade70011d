package sql_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/transformtest"

	"github.com/strait-dev/strait/transform/sql"
)

// The tests here build the Sql transform of SeaTunnel's job files and run explicit rows through
// it, checking values the files' Assert rules do not. The whole jobs run through the strait
// binary in e2e/ (transform/*.conf, transform-v2/sql_transform/*.conf).

func useUTC() func() { return sql.SetLocalZone(time.UTC) }

// runRows runs rows of the job's source table through its transforms.
func runRows(t *testing.T, job *transformtest.Job, rows ...[]row.Value) []row.Row {
	t.Helper()
	out, err := transformtest.Run(t, transformtest.Batch(job.Source.ID(), row.Insert, rows...), job.Transforms...)
	if err != nil {
		t.Fatalf("process: %v", err)
	}
	return out
}

func rowText(r row.Row) string {
	parts := make([]string, len(r.Fields))
	for i, v := range r.Fields {
		parts[i] = v.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func decimal(t *testing.T, s string, precision, scale int) row.Value {
	t.Helper()
	v, err := row.ParseDecimal(s, precision, scale)
	if err != nil {
		t.Fatalf("decimal %s: %v", s, err)
	}
	return v
}

// criteria_filter.conf: of its nine rows only id 1 passes every condition of the WHERE clause.
func TestE2ECriteriaFilter(t *testing.T) {
	defer useUTC()()
	job := transformtest.BuildJob(t, transformtest.LoadJob(t, "transform/criteria_filter.conf"))
	person := func(id int32, name string, age int32, email string) []row.Value {
		e := row.NullValue()
		if email != "" {
			e = row.StringValue(email)
		}
		return []row.Value{row.IntValue(id), row.StringValue(name), row.IntValue(age), e}
	}
	rows := runRows(t, job,
		person(1, "Joy Ding", 20, ""),
		person(2, "May Ding", 22, "may_ding@apache.com"),
		person(3, "Kin Dom", 21, "kin_dom@apache.com"),
		person(4, "LeBron Ding", 38, ""),
		person(8, "Wang DingCC", 34, ""),
		person(9, "Zu DingDD", 33, ""),
		person(10, "Zhang DingEE", 40, ""),
		person(11, "Lin Qiang", 40, ""),
		person(12, "Yu Liang", 40, ""),
	)
	if len(rows) != 1 || rowText(rows[0]) != "[1, Joy Ding, 20, null]" {
		t.Fatalf("rows %v, want only [1, Joy Ding, 20, null]", rows)
	}
}

// func_string.conf: every string function of its query on the file's row.
func TestE2EFuncString(t *testing.T) {
	defer useUTC()()
	job := transformtest.BuildJob(t, transformtest.LoadJob(t, "transform/func_string.conf"))
	str := row.StringValue
	rows := runRows(t, job, []row.Value{row.IntValue(1), str("Joy Ding"), str("A"), str("b"), str("&"), str("&^^$wef9"),
		row.IntValue(98), str("0037"), str("7"), str("*Joy_Ding@s.com*"), str("Joy_WWWDing@s.com"), str("2020-10-01"),
		row.TimestampOf(time.Date(2022, 12, 12, 23, 34, 45, 0, time.UTC))})
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
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
}

// binary_expression.conf: arithmetic on int and double columns, and string concatenation.
func TestE2EBinaryExpression(t *testing.T) {
	defer useUTC()()
	job := transformtest.BuildJobFile(t, "transform/binary_expression.conf",
		"{id = int, id2 = int, price = double, price2 = double, price3 = double, name = string}")
	rows := runRows(t, job, []row.Value{row.IntValue(1), row.StringValue("Joy Ding"), row.DoubleValue(134.22)})
	if len(rows) != 1 || rowText(rows[0]) != "[2, 4, 44.74, 100.0, 18.619999999999994, Joy Ding_1]" {
		t.Errorf("binary_expression: %v", rows)
	}
}

// case_when.conf: CASE WHEN on comparisons of every numeric type, IN and boolean text.
func TestE2ECaseWhen(t *testing.T) {
	defer useUTC()()
	job := transformtest.BuildJob(t, transformtest.LoadJob(t, "transform/case_when.conf"))
	rows := runRows(t, job, []row.Value{row.StringValue("c_string"), row.BoolValue(true), row.TinyIntValue(117),
		row.SmallIntValue(15987), row.IntValue(56387395), row.BigIntValue(7084913402530365000), row.FloatValue(1.23),
		row.DoubleValue(1.23), decimal(t, "2924137191386439303744.39292216", 30, 8), row.BytesValue([]byte("miIZj")),
		row.DateOf(time.Date(2023, 4, 22, 0, 0, 0, 0, time.UTC)), row.TimestampOf(time.Date(2023, 4, 22, 23, 20, 58, 0, time.UTC))})
	if len(rows) != 1 || rowText(rows[0]) != "[1, 0, 1, 0, 1, 1, 0]" {
		t.Errorf("case_when: %v", rows)
	}
}

// sql_transform.conf: nested row, map, array and decimal columns pass through; the name is
// replaced whole, the age incremented, pi() added.
func TestE2ESqlTransformTypes(t *testing.T) {
	defer useUTC()()
	job := transformtest.BuildJobFile(t, "transform/sql_transform.conf",
		"{id = int, name = string, age = int, pi = double, c_time = time, c_timestamp = timestamp, c_date = date, c_map = map<string, string>, c_array = array<int>, c_decimal = decimal(30, 8), c_row = {c_row = {c_int = int}}}")
	m := row.MapOfValues(&row.MapValue{Keys: []row.Value{row.StringValue("k")}, Vals: []row.Value{row.StringValue("v")}})
	arr := row.ArrayValue([]row.Value{row.IntValue(1), row.IntValue(2)})
	dec := decimal(t, "123.45678901", 30, 8)
	nested := transformtest.CRow(7)
	tm := row.TimeValue(int64(10*time.Hour + 11*time.Minute))
	ts := row.TimestampOf(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	day := row.DateOf(time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC))
	rows := runRows(t, job,
		[]row.Value{row.IntValue(1), row.StringValue("Joy Ding"), row.IntValue(20), tm, ts, day, m, arr, dec, nested},
		[]row.Value{row.IntValue(2), row.StringValue("x"), row.IntValue(-1), tm, ts, day, m, arr, dec, nested},
	)
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, w := range [][]row.Value{
		{row.IntValue(1), row.StringValue("b"), row.IntValue(21), row.DoubleValue(math.Pi), tm, ts, day, m, arr, dec, nested},
		{row.IntValue(2), row.StringValue("b"), row.IntValue(0), row.DoubleValue(math.Pi), tm, ts, day, m, arr, dec, nested},
	} {
		for j, v := range w {
			if !row.Equal(rows[i].Fields[j], v) {
				t.Errorf("row %d field %s = %v, want %v", i, job.Output.Columns[j].Name, rows[i].Fields[j], v)
			}
		}
	}
}

// fake_to_console.variables.conf with the variables SeaTunnel's test passes: the WHERE clause
// made of them keeps the rows named abc.
func TestE2EVariables(t *testing.T) {
	vars := map[string]string{"resName": "a20260101", "rowNum": "10", "strTemplate": "[abc,def]", "nameType": "string", "nameVal": "abc", "sourceTableName": "sql"}
	job := transformtest.BuildJob(t, transformtest.LoadJobVars(t, "engine/fake_to_console.variables.conf", vars))
	var in [][]row.Value
	for _, name := range []string{"abc", "def", "abc", "xyz"} {
		in = append(in, []row.Value{row.StringValue(name), row.IntValue(1)})
	}
	rows := runRows(t, job, in...)
	if got := fmt.Sprint(rows); len(rows) != 2 || rowText(rows[0]) != "[abc, 1]" || rowText(rows[1]) != "[abc, 1]" {
		t.Fatalf("rows %s", got)
	}
}

// inner_query.conf: nested rows and map keys.
func TestE2EInnerQuery(t *testing.T) {
	job := transformtest.BuildJobFile(t, "transform-v2/sql_transform/inner_query.conf",
		"{c_date = date, c_string = string, c_inner_string = string, c_inner_timestamp = timestamp, inner_map = map<string, string>, map_val = string, map_not_exist_val = string}")
	s := row.StringValue("innerQuery")
	m := row.MapOfValues(&row.MapValue{Keys: []row.Value{s}, Vals: []row.Value{s}})
	inner := row.RowValue([]row.Value{row.IntValue(1), s, row.TimestampValue(0), m})
	rows := runRows(t, job, []row.Value{s, row.DateValue(1), row.RowValue([]row.Value{inner, s})})
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
	wantRow := []row.Value{row.DateValue(1), s, s, row.TimestampValue(0), m, s, {}}
	for i, w := range wantRow {
		if !row.Equal(rows[0].Fields[i], w) {
			t.Errorf("field %d = %v, want %v", i, rows[0].Fields[i], w)
		}
	}
}
