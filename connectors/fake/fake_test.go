package fake

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/internal/cputime"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func build(t *testing.T, src string, mode connector.JobMode, p int) (*Source, error) {
	t.Helper()
	out, _ := conntest.Options(t, src, "source[0] FakeSource").String("result_table_name", "")
	s, _, err := conntest.BuildSourceIn(t, "FakeSource", src, connector.SourceContext{Job: connector.Job{Mode: mode}, Parallelism: p, OutputName: out})
	if err != nil {
		return nil, err
	}
	return s.(*Source), nil
}

func mustBuild(t *testing.T, src string, p int) *Source {
	t.Helper()
	s, err := build(t, src, connector.Batch, p)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// readAll reads the source to its end with p readers; the rows of each reader.
func readAll(t *testing.T, s *Source, p int) [][]row.Row {
	t.Helper()
	return conntest.ReaderRows(t, s, p)
}

var flat = conntest.Flatten

const simpleSchema = `schema { fields { id = bigint, name = string, age = int } }`

func TestDefaults(t *testing.T) {
	s := mustBuild(t, simpleSchema+"\nresult_table_name = fake", 1)
	if len(s.tables) != 1 {
		t.Fatalf("tables = %d", len(s.tables))
	}
	tc := s.tables[0]
	if tc.id != "fake" || tc.table.Catalog != "FakeSource" {
		t.Errorf("id = %q, catalog %q", tc.id, tc.table.Catalog)
	}
	if tc.rowNum != 5 || tc.splitNum != 1 || tc.readInterval != 1 {
		t.Errorf("rowNum %d splitNum %d interval %d", tc.rowNum, tc.splitNum, tc.readInterval)
	}
	g := tc.gen
	if g.stringLength != 5 || g.bytesLength != 5 || g.arraySize != 5 || g.mapSize != 5 {
		t.Errorf("sizes %+v", g)
	}
	if g.intMin != 0 || g.intMax != math.MaxInt32 || g.bigintMax != math.MaxInt64 || g.tinyintMax != 127 || g.smallintMax != 32767 {
		t.Errorf("ranges %+v", g)
	}
	if g.floatMax != math.MaxFloat32 || g.doubleMax != math.MaxFloat64 {
		t.Errorf("float ranges %v %v", g.floatMax, g.doubleMax)
	}
	rows := flat(readAll(t, s, 1))
	if len(rows) != 5 {
		t.Fatalf("rows = %d, want 5", len(rows))
	}
	for _, r := range rows {
		if r.Kind != row.Insert || r.Table != "fake" || len(r.Fields) != 3 {
			t.Fatalf("row %+v", r)
		}
		if r.Fields[0].T != types.BigInt || r.Fields[1].T != types.String || len(r.Fields[1].S) != 5 || r.Fields[2].T != types.Int {
			t.Fatalf("row fields %v", r.Fields)
		}
	}
	// default table path without a name
	s = mustBuild(t, simpleSchema, 1)
	if s.tables[0].id != "default.default.default" {
		t.Errorf("default id = %q", s.tables[0].id)
	}
	if s.Boundedness() != connector.Bounded {
		t.Error("BATCH source should be bounded")
	}
	s2, _ := build(t, simpleSchema, connector.Streaming, 1)
	if s2.Boundedness() != connector.Unbounded {
		t.Error("STREAMING source should be unbounded")
	}
}

func TestSplits(t *testing.T) {
	cases := []struct {
		rowNum, splitNum, p int
		want                [][]int // per reader: split sizes in order
	}{
		{5, 1, 1, [][]int{{5}}},
		{10, 3, 2, [][]int{{4, 4, 2}, {4, 4, 2}}},
		{5, 10, 1, [][]int{{1, 1, 1, 1, 1}}},
		{100, 5, 1, [][]int{{20, 20, 20, 20, 20}}},
		{0, 1, 2, [][]int{nil, nil}},
	}
	for _, c := range cases {
		s := mustBuild(t, simpleSchema+"\nrow.num = "+itoa(c.rowNum)+"\nsplit.num = "+itoa(c.splitNum), c.p)
		ec := conntest.NewEnumContext(c.p)
		en, err := s.CreateEnumerator(ec, nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = en.Open(context.Background())
		if err := en.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		for r := 0; r < c.p; r++ {
			if !ec.NoMore[r] {
				t.Errorf("%+v: reader %d got no NoMoreSplits", c, r)
			}
			var sizes []int
			for i, sp := range ec.Assigned[r] {
				var d splitData
				if err := json.Unmarshal(sp.Data, &d); err != nil {
					t.Fatal(err)
				}
				sizes = append(sizes, d.Rows)
				if d.Index%c.p != r || sp.ID != "default.default.default_"+itoa(d.Index) {
					t.Errorf("%+v: reader %d split %d = %+v (id %s)", c, r, i, d, sp.ID)
				}
			}
			if !slices.Equal(sizes, c.want[r]) {
				t.Errorf("%+v: reader %d sizes %v, want %v", c, r, sizes, c.want[r])
			}
		}
		total := 0
		for _, rs := range readAll(t, s, c.p) {
			total += len(rs)
		}
		if total != c.rowNum*c.p {
			t.Errorf("%+v: read %d rows, want %d", c, total, c.rowNum*c.p)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestEnumeratorRestoreAndLateReaders(t *testing.T) {
	s := mustBuild(t, simpleSchema+"\nrow.num = 4\nsplit.num = 2", 2)
	ec := conntest.NewEnumContext(2)
	ec.Registered = []int{0}
	en, _ := s.CreateEnumerator(ec, nil)
	_ = en.Run(context.Background())
	if len(ec.Assigned[0]) != 2 || len(ec.Assigned[1]) != 0 || ec.NoMore[1] {
		t.Fatalf("before registration: %v %v", ec.Assigned, ec.NoMore)
	}
	_ = en.RegisterReader(1)
	if len(ec.Assigned[1]) != 2 || !ec.NoMore[1] {
		t.Fatalf("after registration: %v", ec.Assigned)
	}
	state, err := en.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	// a restored enumerator does not assign again what it had assigned
	ec2 := conntest.NewEnumContext(2)
	en2 := conntest.RunEnumerator(context.Background(), t, s, ec2, state)
	if len(ec2.Assigned[0])+len(ec2.Assigned[1]) != 0 || !ec2.NoMore[0] || !ec2.NoMore[1] {
		t.Fatalf("restored assigned %v", ec2.Assigned)
	}
	// splits given back go to their owner again
	if err := en2.AddSplitsBack(ec.Assigned[1][:1], 1); err != nil {
		t.Fatal(err)
	}
	_ = en2.RegisterReader(1)
	if len(ec2.Assigned[1]) != 1 || ec2.Assigned[1][0].ID != ec.Assigned[1][0].ID {
		t.Fatalf("re-assigned %v", ec2.Assigned)
	}
	if _, err := s.CreateEnumerator(ec2, []byte("{bad")); err == nil {
		t.Error("bad enumerator state accepted")
	}
}

func TestFixedRows(t *testing.T) {
	src := `
schema = { table = "fake.table1", fields { id = bigint, name = string, score = int } }
split.num = 2
rows = [
  { kind = INSERT, fields = [1, "A", 100] },
  { kind = update_before, fields = [1, "A", 100] },
  { kind = UPDATE_AFTER, fields = {id = 1, name = "A", score = 300} },
  { kind = "-D", fields = [2, "B"] },
  { fields = [3, "C", 100] }
]`
	s := mustBuild(t, src, 2)
	per := readAll(t, s, 2)
	all := flat(per)
	// 2 readers x 2 splits x 5 rows
	if len(all) != 20 {
		t.Fatalf("rows = %d, want 20", len(all))
	}
	k := conntest.Kinds(per[0])
	if k[row.Insert] != 4 || k[row.UpdateBefore] != 2 || k[row.UpdateAfter] != 2 || k[row.Delete] != 2 {
		t.Errorf("kinds %v", k)
	}
	r := per[0][2]
	if r.Table != "fake.table1" || r.Fields[2].I != 300 || r.Fields[1].S != "A" {
		t.Errorf("row by name = %+v", r)
	}
	if !per[0][3].Fields[2].IsNull() {
		t.Errorf("missing field should be null: %v", per[0][3].Fields)
	}
}

func TestFixedRowsCurrentTime(t *testing.T) {
	src := `
schema = { fields { d = date, t = time, ts = timestamp, s = string } }
rows = [ { kind = INSERT, fields = ["CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "CURRENT_DATE"] } ]`
	s := mustBuild(t, src, 1)
	before := time.Now()
	rows := flat(readAll(t, s, 1))
	after := time.Now()
	f := rows[0].Fields
	if !row.Equal(f[0], row.DateOf(before)) && !row.Equal(f[0], row.DateOf(after)) {
		t.Errorf("CURRENT_DATE = %v", f[0])
	}
	ts := f[2].I
	if ts < row.TimestampOf(before).I || ts > row.TimestampOf(after).I {
		t.Errorf("CURRENT_TIMESTAMP = %v, not between %v and %v", f[2], before, after)
	}
	if f[1].T != types.Time || f[3].S != "CURRENT_DATE" {
		t.Errorf("fields %v", f)
	}
}

func TestFullTypes(t *testing.T) {
	src := `
row.num = 20
schema = {
  fields {
    c_map = "map<string, array<int>>"
    c_map2 = "map<boolean, tinyint>"
    c_array = "array<int>"
    c_string = string
    c_boolean = boolean
    c_tinyint = tinyint
    c_smallint = smallint
    c_int = int
    c_bigint = bigint
    c_float = float
    c_double = double
    c_decimal = "decimal(30, 8)"
    c_decimal2 = "decimal(38, 18)"
    c_null = "null"
    c_bytes = bytes
    c_date = date
    c_time = time
    c_timestamp = timestamp
    c_row = { c_int = int, c_row = { c_string = string } }
  }
}`
	s := mustBuild(t, src, 1)
	tab := s.tables[0].table
	rows := flat(readAll(t, s, 1))
	if len(rows) != 20 {
		t.Fatalf("rows %d", len(rows))
	}
	// every value has exactly its column's type, as the Assert sink checks it: c_null null,
	// every other column not null
	if err := conntest.AssertTypes(t.Context(), tab, rows); err != nil {
		t.Fatal(err)
	}
	year := time.Now().Year()
	for _, r := range rows {
		if m := r.Fields[0].Map(); len(m.Keys) != 5 || len(m.Vals[0].Elems()) != 5 {
			t.Errorf("map %v", r.Fields[0])
		}
		if m := r.Fields[1].Map(); len(m.Keys) > 2 {
			t.Errorf("boolean-keyed map has %d keys", len(m.Keys))
		}
		if d := r.Fields[15].DateTime(); d.Year() != year || d.Day() > 28 {
			t.Errorf("date %v", r.Fields[15])
		}
		if r.Fields[16].I%int64(time.Second) != 0 {
			t.Errorf("time has a fraction: %v", r.Fields[16])
		}
		if ts := r.Fields[17].Time(); ts.Year() != year || ts.Nanosecond() != 0 {
			t.Errorf("timestamp %v", r.Fields[17])
		}
		if f := r.Fields[9].Float32(); f < 0 || math.IsInf(float64(f), 0) {
			t.Errorf("float %v", f)
		}
	}
}

func TestRangesAndTemplates(t *testing.T) {
	src := `
row.num = 300
string.template = ["tyrantlucifer", "hailin", "kris", "fanjia", "zongwen", "gaojun"]
tinyint.min = 1
tinyint.max = 9
smallint.fake.mode = "template"
smallint.template = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]
int.min = 20
int.max = 29
bigint.min = 30
bigint.max = 39
float.min = 40.0
float.max = 43.0
double.template = "44.5, 45.5"
date.year.template = [2020]
date.month.template = [2]
date.day.template = [29]
time.hour.template = [23]
time.minute.template = [59]
time.second.template = [58]
schema {
  fields {
    c_string = string
    c_tinyint = tinyint
    c_smallint = smallint
    c_int = int
    c_bigint = bigint
    c_float = float
    c_double = double
    c_date = date
    c_time = time
    c_timestamp = timestamp
    c_array = "array<tinyint>"
  }
}`
	s := mustBuild(t, src, 1)
	rows := flat(readAll(t, s, 1))
	seen := map[int64]bool{}
	for _, r := range rows {
		f := r.Fields
		if l := len(f[0].S); l < 4 || l > 13 {
			t.Errorf("string %q", f[0].S)
		}
		// ranges are [min, max), as commons-lang RandomUtils draws them
		if f[1].I < 1 || f[1].I >= 9 {
			t.Errorf("tinyint %d", f[1].I)
		}
		if f[2].I < 10 || f[2].I > 19 {
			t.Errorf("smallint %d", f[2].I)
		}
		seen[f[2].I] = true
		if f[3].I < 20 || f[3].I >= 29 {
			t.Errorf("int %d", f[3].I)
		}
		if f[4].I < 30 || f[4].I >= 39 {
			t.Errorf("bigint %d", f[4].I)
		}
		if v := f[5].Float32(); v < 40 || v >= 43 {
			t.Errorf("float %v", v)
		}
		if v := f[6].Float64(); v != 44.5 && v != 45.5 {
			t.Errorf("double %v", v)
		}
		if !row.Equal(f[7], row.DateOf(time.Date(2020, 2, 29, 0, 0, 0, 0, time.UTC))) {
			t.Errorf("date %v", f[7])
		}
		if f[8].String() != "23:59:58" || f[9].String() != "2020-02-29T23:59:58" {
			t.Errorf("time %v timestamp %v", f[8], f[9])
		}
		for _, e := range f[10].Elems() {
			if e.T != types.TinyInt || e.I < 1 || e.I >= 9 {
				t.Errorf("array elem %v", e)
			}
		}
	}
	if len(seen) != 10 {
		t.Errorf("smallint template values seen: %v (want all 10)", seen)
	}
}

// A template wins whatever the mode says, as in SeaTunnel: the e2e config's
// `smalling.fake.mode` typo still gets smallint values from smallint.template.
func TestTemplateWinsOverMode(t *testing.T) {
	src := `
row.num = 50
smalling.fake.mode = "template"
smallint.template = [10, 11]
int.fake.mode = range
int.template = [7]
schema { fields { a = smallint, b = int } }`
	for _, r := range flat(readAll(t, mustBuild(t, src, 1), 1)) {
		if a := r.Fields[0].I; a != 10 && a != 11 {
			t.Fatalf("smallint %d", a)
		}
		if b := r.Fields[1].I; b != 7 {
			t.Fatalf("int %d", b)
		}
	}
}

func TestSizes(t *testing.T) {
	src := `
row.num = 3
string.length = 9
bytes.length = 3
array.size = 2
map.size = 4
schema { fields { s = string, b = bytes, a = "array<string>", m = "map<bigint, string>" } }`
	for _, r := range flat(readAll(t, mustBuild(t, src, 1), 1)) {
		f := r.Fields
		if len(f[0].S) != 9 || len(f[1].S) != 3 || len(f[2].Elems()) != 2 || len(f[2].Elems()[0].S) != 9 || len(f[3].Map().Keys) != 4 {
			t.Errorf("sizes: %v", f)
		}
		for _, c := range f[0].S + f[1].S {
			if !strings.ContainsRune(letters, c) {
				t.Errorf("not a letter: %q", c)
			}
		}
	}
}

func TestColumnsForm(t *testing.T) {
	src := `
row.num = 4
double.max = 100
schema = {
  table = "test.fakeTable"
  columns = [
    { name = id, type = bigint, defaultValue = 7 }
    { name = name, type = string, columnLength = 12 }
    { name = label, type = string, defaultValue = "hello" }
    { name = price, type = double, columnScale = 2, }
    { name = raw, type = bytes, defaultValue = "abc" }
    { name = d, type = date, defaultValue = "2024/01/26" }
    { name = now, type = timestamp, defaultValue = "CURRENT_TIMESTAMP" }
    { name = tags, type = "array<int>", defaultValue = 3 }
    { name = plain, type = string }
    { name = dec, type = "decimal(6, 2)", defaultValue = "12.5" }
  ]
  primaryKey = { name = "primary key", columnNames = ["id"] }
}`
	s := mustBuild(t, src, 1)
	if s.tables[0].id != "test.fakeTable" || s.tables[0].table.PrimaryKey == nil {
		t.Fatalf("table %+v", s.tables[0].table)
	}
	for _, r := range flat(readAll(t, s, 1)) {
		f := r.Fields
		if f[0].I != 7 || len(f[1].S) != 12 || f[2].S != "hello" || f[4].S != "abc" || f[5].String() != "2024-01-26" {
			t.Errorf("defaults: %v", f)
		}
		if p := f[3].Float64(); p != math.Round(p*100)/100 {
			t.Errorf("price %v not rounded to 2 places", p)
		}
		if time.Since(f[6].Time().Add(-localOffset())) > time.Minute {
			t.Errorf("CURRENT_TIMESTAMP default %v", f[6])
		}
		if e := f[7].Elems(); len(e) != 5 || e[0].I != 3 {
			t.Errorf("array default %v", f[7])
		}
		if len(f[8].S) != 5 {
			t.Errorf("plain string %q: want string.length", f[8].S)
		}
		if f[9].String() != "12.50" {
			t.Errorf("decimal default %v", f[9])
		}
	}
}

func localOffset() time.Duration {
	_, off := time.Now().Zone()
	return time.Duration(off) * time.Second
}

func TestMultiTable(t *testing.T) {
	src := `
tables_configs = [
  { row.num = 16, schema { table = "test.table1", fields { c_int = int, c_bigint = bigint } } },
  { row.num = 17, split.num = 2, schema { table = "test.table2", fields { c_string = string, c_tinyint = tinyint } } }
]`
	s := mustBuild(t, src, 2)
	if got := s.Tables(); len(got) != 2 || got[0].ID() != "test.table1" || got[1].ID() != "test.table2" {
		t.Fatalf("tables %v", got)
	}
	all := flat(readAll(t, s, 2))
	counts := map[string]int{}
	for _, r := range all {
		counts[r.Table]++
		if r.Table == "test.table1" && (len(r.Fields) != 2 || r.Fields[0].T != types.Int) {
			t.Fatalf("row %v", r)
		}
	}
	if counts["test.table1"] != 32 || counts["test.table2"] != 34 {
		t.Errorf("counts %v", counts)
	}

	s = mustBuild(t, `table-names = ["test.table1", "test.table2", "test.table3"]
`+simpleSchema, 1)
	if ids := conntest.Tables(flat(readAll(t, s, 1))); strings.Join(ids, ",") != "test.table1,test.table2,test.table3" {
		t.Errorf("table-names ids %v", ids)
	}
}

func TestConfigErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{`row.num = 5`, "schema: option is required"},
		{simpleSchema + "\nrow.num = -1", "row.num: must be between"},
		{simpleSchema + "\nrow.num = abc", `row.num: "abc" is not an integer`},
		{simpleSchema + "\nsplit.num = 0", "split.num: must be at least 1"},
		{simpleSchema + "\nsplit.read-interval = -5", "split.read-interval: must not be negative"},
		{simpleSchema + "\nstring.length = -1", "string.length: must be between"},
		{simpleSchema + "\ntinyint.min = -1", "tinyint.min: should be >= 0 and <= 127, got -1"},
		{simpleSchema + "\ntinyint.max = 300", "tinyint.max: should be >= 0 and <= 127"},
		{simpleSchema + "\nint.min = 10\nint.max = 5", "int.min: 10 is greater than int.max 5"},
		{simpleSchema + "\nfloat.max = 1e39", "float.max: should be >= 0"},
		{simpleSchema + "\ndouble.min = -1", "double.min: should be >= 0"},
		{simpleSchema + "\nint.fake.mode = template", "int.fake.mode: is template, but int.template is not set"},
		{simpleSchema + "\nstring.fake.mode = fancy", `string.fake.mode: unknown value "fancy"`},
		{simpleSchema + "\ntinyint.template = [1, 300]", "tinyint.template: element 1"},
		{simpleSchema + "\nint.template = [1, x]", "int.template: element 1"},
		{simpleSchema + "\ndate.month.template = [13]", "date.month.template: element 0"},
		{simpleSchema + "\nrows = [{kind = INSERTED, fields = [1, a, 2]}]", `rows[0].kind: unknown row kind "INSERTED"`},
		{simpleSchema + "\nrows = [{kind = INSERT}]", "rows[0].fields: option is required"},
		{simpleSchema + "\nrows = [{kind = INSERT, fields = [1, a, 2]}, {fields = [1, b, x]}]", `rows[1].fields[2]: expected int`},
		{simpleSchema + "\nrows = 5", "rows: expected a list of objects"},
		{`schema { fields { a = strng } }`, `unknown type "strng"`},
		{`schema { columns = [{name = a, type = int, defaultValue = "x"}] }`, "defaultValue: expected int"},
		{`tables_configs = [{schema { table = "a", fields { x = int } }}, {schema { table = "a", fields { y = int } }}]`, "must be unique"},
		{`tables_configs = []`, "tables_configs: needs at least one"},
		{`tables_configs = [{row.num = 3}]`, "tables_configs[0].schema: option is required"},
	}
	for _, c := range cases {
		_, err := build(t, c.src, connector.Batch, 1)
		if err == nil {
			t.Errorf("%s: no error, want %q", c.src, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "source[0] FakeSource") {
			t.Errorf("%s:\n  error %q\n  want  %q", c.src, err, c.want)
		}
	}
}

func TestBadRowErrorHasPosition(t *testing.T) {
	_, err := build(t, simpleSchema+"\nrows = [\n  {fields = [1, \"a\", 300000000000]}\n]", connector.Batch, 1)
	if err == nil || !strings.Contains(err.Error(), "rows[0].fields[2]: expected int") || !strings.Contains(err.Error(), "(at job.conf:3:") {
		t.Fatalf("error = %v", err)
	}
}

// newReader builds a reader handed its splits as the enumerator hands them, with no more
// to come.
func newReader(t *testing.T, s *Source, mode connector.JobMode) connector.Reader {
	t.Helper()
	s.mode = mode
	ec := conntest.NewEnumContext(1)
	conntest.RunEnumerator(context.Background(), t, s, ec, nil)
	return conntest.OpenReader(t, s, connector.ReaderContext{Index: 0, Parallelism: 1}, ec.Assigned[0])
}

func TestSnapshotRestore(t *testing.T) {
	s := mustBuild(t, simpleSchema+"\nrow.num = 25\nsplit.num = 2\nsplit.read-interval = 0", 1)
	r := newReader(t, s, connector.Batch)
	ctx := context.Background()
	b := row.NewBatch(5)
	done, err := r.PollNext(ctx, b)
	if err != nil || done || b.Len() != 5 {
		t.Fatalf("first poll: %d rows, done %v, %v", b.Len(), done, err)
	}
	st, err := r.SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 2 {
		t.Fatalf("state has %d splits, want 2", len(st))
	}
	var d splitData
	_ = json.Unmarshal(st[0].Data, &d)
	if d.Emitted != 5 || d.Rows != 13 {
		t.Fatalf("split state %+v", d)
	}
	// a restored reader resumes after the emitted rows
	r2 := conntest.OpenReader(t, s, connector.ReaderContext{Index: 0, Parallelism: 1}, st)
	total := 0
	for i := 0; ; i++ {
		b.Reset()
		done := conntest.Poll(ctx, t, r2, b)
		total += b.Len()
		if done {
			break
		}
		if i > 100 {
			t.Fatal("reader never finished")
		}
	}
	if total != 20 {
		t.Fatalf("restored reader emitted %d rows, want 20", total)
	}
	if st, _ := r2.SnapshotState(2); len(st) != 0 {
		t.Errorf("finished reader state %v", st)
	}
	// bad split data fails the next poll
	r3, _ := s.CreateReader(connector.ReaderContext{})
	r3.AddSplits([]connector.Split{{ID: "x", Data: []byte("nope")}})
	if _, err := r3.PollNext(ctx, b); err == nil {
		t.Error("bad split accepted")
	}
	r3, _ = s.CreateReader(connector.ReaderContext{})
	r3.AddSplits([]connector.Split{{ID: "x", Data: []byte(`{"table":"other","index":0,"rows":1}`)}})
	if _, err := r3.PollNext(ctx, b); err == nil || !strings.Contains(err.Error(), "other") {
		t.Errorf("foreign split: %v", err)
	}
}

func TestReadInterval(t *testing.T) {
	s := mustBuild(t, simpleSchema+"\nrow.num = 3\nsplit.num = 3\nsplit.read-interval = 40", 1)
	start := time.Now()
	rows := flat(readAll(t, s, 1))
	if el := time.Since(start); el < 80*time.Millisecond {
		t.Errorf("3 splits 40 ms apart took %v", el)
	}
	if len(rows) != 3 {
		t.Errorf("rows %d", len(rows))
	}
}

func TestStreamingIdles(t *testing.T) {
	s := mustBuild(t, simpleSchema+"\nrow.num = 3", 1)
	r := newReader(t, s, connector.Streaming)
	ctx := context.Background()
	b := row.NewBatch(10)
	done, err := r.PollNext(ctx, b)
	if done || err != nil || b.Len() != 3 {
		t.Fatalf("first poll %d %v %v", b.Len(), done, err)
	}
	b.Reset()
	start := time.Now()
	done, err = r.PollNext(ctx, b)
	if done || err != nil || b.Len() != 0 || time.Since(start) < idleWait/2 {
		t.Fatalf("idle poll %d %v %v after %v", b.Len(), done, err, time.Since(start))
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	start = time.Now()
	if _, err := r.PollNext(cctx, b); err == nil || time.Since(start) > idleWait/2 {
		t.Errorf("cancelled poll: %v after %v", err, time.Since(start))
	}
}

func TestWaitsForSplits(t *testing.T) {
	s := mustBuild(t, simpleSchema, 1)
	r, _ := s.CreateReader(connector.ReaderContext{})
	b := row.NewBatch(10)
	done, err := r.PollNext(context.Background(), b)
	if done || err != nil || b.Len() != 0 {
		t.Fatalf("poll without splits: %v %v", done, err)
	}
	r.NoMoreSplits()
	if done, _ := r.PollNext(context.Background(), b); !done {
		t.Error("bounded reader without splits should be done")
	}
}

func TestRegistered(t *testing.T) {
	f, name, ok := connector.LookupSource("fakesource")
	if !ok || name != "FakeSource" || f == nil {
		t.Fatal("FakeSource not registered")
	}
}

// BenchmarkFakeReader measures random row generation for five columns (bigint, string,
// int, double, timestamp) in one reader.
func BenchmarkFakeReader(b *testing.B) {
	root, err := hocon.Parse([]byte(`
row.num = 2000000000
schema { fields { id = bigint, name = string, age = int, score = double, ts = timestamp } }`), hocon.Options{})
	if err != nil {
		b.Fatal(err)
	}
	build, _, _ := connector.LookupSource("FakeSource")
	src, err := build(&connector.SourceContext{Context: context.Background(), Options: config.New(root, "bench"), Job: connector.Job{Mode: connector.Batch}, Parallelism: 1})
	if err != nil {
		b.Fatal(err)
	}
	ec := conntest.NewEnumContext(1)
	en, _ := src.CreateEnumerator(ec, nil)
	_ = en.Run(context.Background())
	r := conntest.OpenReader(b, src, connector.ReaderContext{}, ec.Assigned[0])
	ctx := context.Background()
	batch := row.NewBatch(row.DefaultBatchSize)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Used()
	rows := 0
	for rows < b.N {
		batch.Reset()
		conntest.Poll(ctx, b, r, batch)
		rows += batch.Len()
	}
	b.StopTimer()
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	if cpu := cputime.Used() - cpu0; cpu > 0 {
		b.ReportMetric(float64(rows)/cpu.Seconds(), "rows/cpu-s")
	}
}

// TestImpossibleDateFails: a day template may draw a day its month does not have; SeaTunnel's
// LocalDate.of then fails the job, and so does Strait, naming the date, rather than rolling
// into the next month.
func TestImpossibleDateFails(t *testing.T) {
	s := mustBuild(t, `
row.num = 10
date.year.template = [2023]
date.month.template = [2]
date.day.template = [29]
schema { fields { d = date } }`, 1)
	_, err := conntest.Rows(context.Background(), s, 1)
	if err == nil || !strings.Contains(err.Error(), "date.day.template: day 29 does not exist in 2023-02") {
		t.Fatalf("error %v", err)
	}
}

// unknownOptions builds a FakeSource as the planner does and returns its warnings about
// options its spec does not know.
func unknownOptions(t *testing.T, src string) []string {
	t.Helper()
	_, o, err := conntest.BuildSourceIn(t, "FakeSource", src, connector.SourceContext{Job: connector.Job{Mode: connector.Batch}, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	return conntest.Unknown(t, "source", "FakeSource", o, "plugin_output", "result_table_name", "parallelism")
}

func TestUnknownOptionsAreWarned(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"known options", simpleSchema + "\nrow.num = 3\nresult_table_name = t\nvector.dimension = 8\nstring.template = [a]\nrows = [{kind = INSERT, fields = [1, a, 2]}]", nil},
		{"a misspelt option", simpleSchema + "\nrow.nmu = 3", []string{`unknown option "row.nmu" (did you mean "row.num"?) at job.conf:2:11`}},
		{"a misspelt option of a row", simpleSchema + "\nrows = [{knid = DELETE, fields = [1, a, 2]}]", []string{`unknown option "rows[0].knid" (did you mean "rows[0].kind"?) at job.conf:2:17`}},
		{"a misspelt option of a table", "tables_configs = [{ schema { fields { a = int } }, split.nmu = 2 }]", []string{`unknown option "tables_configs[0].split.nmu" (did you mean "tables_configs[0].split.num"?) at job.conf:1:64`}},
		{"an option of another plugin", simpleSchema + "\nbootstrap.servers = x", []string{`unknown option "bootstrap.servers" at job.conf:2:21`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conntest.Warnings(t, unknownOptions(t, tc.src), tc.want)
		})
	}
}

func TestRequiredOptions(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`row.num = 5`, "source[0] FakeSource: schema: option is required (or use tables_configs) (at job.conf:1:1)"},
		{`tables_configs = [{ row.num = 3 }]`, "source[0] FakeSource: tables_configs[0].schema: option is required (at job.conf:1:19)"},
		{simpleSchema + "\nrows = [{kind = INSERT}]", "source[0] FakeSource: rows[0].fields: option is required (at job.conf:2:9)"},
	} {
		_, err := build(t, tc.src, connector.Batch, 1)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n  error %v\n  want  %s", tc.src, err, tc.want)
		}
	}
}
