package sql_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/strait-dev/strait/planner/plantest"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/optiontest"
	"github.com/strait-dev/strait/transform/internal/transformtest"
	"github.com/strait-dev/strait/transform/sql"
	"github.com/strait-dev/strait/types"
)

func people(t testing.TB) *catalog.Table {
	tab := transformtest.Table(t, `id = bigint, name = string, age = int, tags = "array<string>", email = string`)
	tab.Path = catalog.TablePath{Database: "db", Table: "people"}
	tab.Columns[0].Nullable = false
	tab.Columns[1].Length = 64
	tab.Columns[1].Comment = "the name"
	tab.PrimaryKey = &catalog.PrimaryKey{Name: "pk", Columns: []string{"id"}}
	tab.ConstraintKeys = []catalog.ConstraintKey{
		{Name: "uk_email", Type: "UNIQUE_KEY", Columns: []catalog.ConstraintCol{{Name: "email"}}},
		{Name: "ix_name", Type: "INDEX_KEY", Columns: []catalog.ConstraintCol{{Name: "name"}}},
	}
	return tab
}

func person(id int64, name string, age int32, email string) []row.Value {
	e := row.NullValue()
	if email != "" {
		e = row.StringValue(email)
	}
	return []row.Value{row.BigIntValue(id), row.StringValue(name), row.IntValue(age),
		row.ArrayValue([]row.Value{row.StringValue("t" + name)}), e}
}

func build(t *testing.T, query string, inputs ...*catalog.Table) connector.Transform {
	t.Helper()
	return transformtest.MustBuild(t, "Sql", `query = """`+query+`"""`, inputs...)
}

func TestConfigErrors(t *testing.T) {
	tab := people(t)
	for _, c := range []struct{ opts, want string }{
		{`query = "select nme from people"`, `transform[0] Test: query: unknown column "nme" at 1:8 (at test.conf:1:9)`},
		{`query = """select id,
    nme from people"""`, `query: unknown column "nme" at 2:5`},
		{`query = "select id from people group by id"`, "query: GROUP BY is not supported"},
		{`other = 1`, "query: option is required"},
		{`query = "  "`, "query: the query is empty"},
		{`query = "select * from people", engine = spark`, `engine: unknown value "spark"`},
	} {
		_, err := transformtest.Build(t, "Sql", c.opts, tab)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.opts, err, c.want)
		}
	}
	if _, err := transformtest.Build(t, "Sql", `query = "select * from people", engine = ZETA`, tab); err != nil {
		t.Errorf("engine = ZETA: %v", err)
	}
}

func TestOutputTable(t *testing.T) {
	tab := people(t)
	tr := build(t, "select id, name as full_name, age + 1 as next_age, email from people", tab)
	out := tr.Outputs()[0]
	if out.ID() != "db.people" {
		t.Errorf("path %s", out.ID())
	}
	if got := out.RowType().String(); got != "{id = bigint, full_name = string, next_age = int, email = string}" {
		t.Errorf("columns %s", got)
	}
	if c := out.Columns[0]; c.Nullable {
		t.Errorf("id keeps NOT NULL: %+v", c)
	}
	if c := out.Columns[1]; c.Length != 64 || c.Comment != "the name" {
		t.Errorf("full_name keeps the column's details: %+v", c)
	}
	if c := out.Columns[2]; !c.Nullable || c.Comment != "" {
		t.Errorf("computed column: %+v", c)
	}
	if out.PrimaryKey == nil || out.PrimaryKey.Columns[0] != "id" {
		t.Errorf("primary key %v", out.PrimaryKey)
	}
	if len(out.ConstraintKeys) != 1 || out.ConstraintKeys[0].Name != "uk_email" {
		t.Errorf("constraint keys %v (ix_name's column was renamed)", out.ConstraintKeys)
	}
	if tab.Columns[1].Name != "name" || len(tab.ConstraintKeys) != 2 {
		t.Error("the input table changed")
	}
	out = build(t, "select name from people", tab).Outputs()[0]
	if out.PrimaryKey != nil {
		t.Errorf("primary key without its column: %v", out.PrimaryKey)
	}
}

func batchOf(table string, kinds []row.Kind, rows ...[]row.Value) *row.Batch {
	b := row.NewBatch(len(rows))
	for i, vals := range rows {
		k := row.Insert
		if kinds != nil {
			k = kinds[i]
		}
		r := b.Add(k, table, len(vals))
		copy(r.Fields, vals)
	}
	return b
}

func TestProcess(t *testing.T) {
	tab := people(t)
	ctx := context.Background()
	kinds := []row.Kind{row.Insert, row.UpdateBefore, row.UpdateAfter, row.Delete}
	mk := func() *row.Batch {
		return batchOf(tab.ID(), kinds,
			person(1, "Joy", 20, "joy@x"), person(2, "May", 30, ""),
			person(3, "Kin", 40, "kin@x"), person(4, "Dom", 50, ""))
	}
	check := func(name string, b *row.Batch, want string) {
		t.Helper()
		var lines []string
		for _, r := range b.Rows {
			vals := make([]string, len(r.Fields))
			for i, v := range r.Fields {
				vals[i] = v.String()
			}
			lines = append(lines, r.Kind.Short()+" "+r.Table+" "+strings.Join(vals, ","))
		}
		if got := strings.Join(lines, "; "); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}

	// run processes a new batch of the four people with query
	run := func(query string) (in, out *row.Batch) {
		t.Helper()
		in = mk()
		out, err := build(t, query, tab).Process(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return in, out
	}

	// SELECT * with WHERE: filtered in place, kinds and tables kept
	in, out := run("select * from people where age > 25 and email is null")
	if out != in {
		t.Error("SELECT * WHERE should filter in place")
	}
	check("filter", out, "-U db.people 2,May,30,[tMay],null; -D db.people 4,Dom,50,[tDom],null")
	out.Release()

	// SELECT * alone: the batch as it is
	if in, out = run("select * from people"); out != in || out.Len() != 4 {
		t.Error("SELECT * should pass the batch through")
	}
	out.Release()

	// a narrower projection: rewritten in place
	in, out = run("select upper(name) as n, age * 2 as a2, id from people where id % 2 = 1")
	if out != in {
		t.Error("a narrower projection should be rewritten in place")
	}
	check("narrow", out, "+I db.people JOY,40,1; +U db.people KIN,80,3")
	out.Release()

	// columns that trade places go through scratch
	_, out = run("select email, name, id, age, tags from people")
	check("swap", out, "+I db.people joy@x,Joy,1,20,[tJoy]; -U db.people null,May,2,30,[tMay]; +U db.people kin@x,Kin,3,40,[tKin]; -D db.people null,Dom,4,50,[tDom]")
	out.Release()
	_, out = run("select age, id, id + age as s from people where age < 45")
	check("swap2", out, "+I db.people 20,1,21; -U db.people 30,2,32; +U db.people 40,3,43")
	out.Release()

	// a wider projection: a new batch; nested values are copied out of the input's memory
	in, out = run("select *, tags as tags2, length(name) as len from people where id < 3")
	if out == in {
		t.Error("a wider projection needs a new batch")
	}
	// reuse pooled batches, overwriting whatever memory the input had
	for k := 0; k < 4; k++ {
		junk := mk()
		for i := range junk.Rows {
			junk.Rows[i].Fields[3] = row.ArrayValue([]row.Value{row.StringValue("junk")})
		}
		junk.Release()
	}
	check("wide", out, "+I db.people 1,Joy,20,[tJoy],joy@x,[tJoy],3; -U db.people 2,May,30,[tMay],null,[tMay],3")
	out.Release()

	// empty batches pass
	empty := row.NewBatch(4)
	if out, err := build(t, "select id from people", tab).Process(ctx, empty); err != nil || out.Len() != 0 {
		t.Fatalf("empty: %v %v", out, err)
	}
}

func TestProcessErrors(t *testing.T) {
	tab := people(t)
	ctx := context.Background()
	for _, c := range []struct{ query, want string }{
		{"select id / (age - 20) as x from people", "transform[0] Test: evaluating id / (age - 20): division by zero"},
		{"select id, id / (age - 20) as x, name, age, tags, email from people", "evaluating id / (age - 20): division by zero"},
		{"select * from people where id / (age - 20) > 1", "evaluating WHERE id / (age - 20) > 1: division by zero"},
		{"select name from people where id / (age - 20) > 1", "evaluating WHERE"},
		{"select cast(name as int) as x from people", "evaluating CAST(name AS int): cannot cast 'Joy' to int"},
	} {
		in := batchOf(tab.ID(), nil, person(1, "Joy", 20, ""))
		_, err := build(t, c.query, tab).Process(ctx, in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.query, err, c.want)
		}
	}
	// a row of the wrong width
	in := batchOf(tab.ID(), nil, []row.Value{row.BigIntValue(1)})
	if _, err := build(t, "select id from people", tab).Process(ctx, in); err == nil || !strings.Contains(err.Error(), "has 1 fields, but its table has 5") {
		t.Errorf("width: %v", err)
	}
}

func TestMultipleInputs(t *testing.T) {
	a := transformtest.Table(t, "id = int, name = string")
	a.Path = catalog.TablePath{Table: "a"}
	b := transformtest.Table(t, "name = string, id = bigint, extra = double")
	b.Path = catalog.TablePath{Table: "b"}
	tr := build(t, "select id + 1 as id, upper(name) as name from t where id > 1", a, b)
	outs := tr.Outputs()
	if len(outs) != 2 || outs[0].ID() != "a" || outs[1].ID() != "b" {
		t.Fatalf("outputs %v", outs)
	}
	if outs[0].RowType().String() != "{id = int, name = string}" || outs[1].RowType().String() != "{id = bigint, name = string}" {
		t.Fatalf("types %v %v", outs[0].RowType(), outs[1].RowType())
	}
	in := row.NewBatch(4)
	add := func(table string, vals ...row.Value) {
		r := in.Add(row.Insert, table, len(vals))
		copy(r.Fields, vals)
	}
	add("a", row.IntValue(1), row.StringValue("x"))
	add("b", row.StringValue("y"), row.BigIntValue(2), row.DoubleValue(1))
	add("a", row.IntValue(5), row.StringValue("z"))
	out, err := tr.Process(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out.Rows {
		got = append(got, r.Table+":"+r.Fields[0].String()+","+r.Fields[1].String())
	}
	if strings.Join(got, " ") != "b:3,Y a:6,Z" {
		t.Fatalf("rows %v", got)
	}
	in = row.NewBatch(1)
	add("c", row.IntValue(1))
	if _, err := tr.Process(context.Background(), in); err == nil || !strings.Contains(err.Error(), `table "c"`) {
		t.Fatalf("unknown table: %v", err)
	}
}

// The clock reads the same for every row of a batch.
func TestClockPerBatch(t *testing.T) {
	tab := transformtest.Table(t, "id = int")
	tr := build(t, "select current_timestamp as now, id from t", tab)
	in := row.NewBatch(200)
	for i := 0; i < 200; i++ {
		r := in.Add(row.Insert, tab.ID(), 1)
		r.Fields[0] = row.IntValue(int32(i))
	}
	out, err := tr.Process(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	first := out.Rows[0].Fields[0]
	if first.T != types.Timestamp {
		t.Fatal(first)
	}
	for _, r := range out.Rows {
		if r.Fields[0] != first {
			t.Fatal("the clock moved within a batch")
		}
	}
}

// Per batch, nothing is allocated but the output strings.
func TestAllocations(t *testing.T) {
	tab := transformtest.Table(t, "id = bigint, name = string, age = int, score = double, ts = timestamp")
	for _, c := range []struct {
		query string
		max   float64
	}{
		{"select * from t where age > 10 and id % 2 = 0", 0},
		{"select id, name, age * 2 as a2, score + 1.5 as s from t where age > 10 and id % 2 = 0", 0},
		{"select id, name, age * 2 as a2, score + 1.5 as s, upper(name) as un from t where age > 10 and id % 2 = 0", 1024},
		{"select id, age from t where name like '%Ding' or name in ('Kin Dom')", 0},
		{"select id, name || '_' || id as x, lower(name) as y from t", 12}, // arena chunks only
	} {
		tr := build(t, c.query, tab)
		in := row.NewBatch(1024)
		allocs := testing.AllocsPerRun(20, func() {
			in.Reset()
			for i := 0; i < 1024; i++ {
				r := in.Add(row.Insert, "t", 5)
				copy(r.Fields, benchRow(i))
			}
			out, err := tr.Process(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if out != in {
				t.Fatal("expected in place")
			}
		})
		// benchRow allocates nothing: its values are built from constants
		if allocs > c.max {
			t.Errorf("%s: %v allocations per batch of 1024 rows, want at most %v", c.query, allocs, c.max)
		}
	}
}

// A WHERE clause of the null type keeps nothing and does not crash.
func TestNullWhere(t *testing.T) {
	tab := people(t)
	in := batchOf(tab.ID(), nil, person(1, "Joy", 20, ""))
	out, err := build(t, "select * from people where nullif(null, id)", tab).Process(context.Background(), in)
	if err != nil || out.Len() != 0 {
		t.Fatalf("%v %v", out, err)
	}
}

// TestBatchMatchesRowByRow runs queries over batches that span several tiles, with nulls and
// random values, and compares every output row with the row-at-a-time evaluation of the same
// compiled query: the batch kernels must keep the same rows, in order, with the same values.
func TestBatchMatchesRowByRow(t *testing.T) {
	tab := transformtest.Table(t, "id = bigint, name = string, age = int, score = double, ts = timestamp")
	tab.Path.Table = "t"
	queries := []string{
		"select id, name, age * 2 as a2, score + 1.5 as s, upper(name) as un from t where age > 10 and id % 2 = 0",
		"select * from t where age > 10 and id % 2 = 0",
		"select * from t where id % 4 <> 1 or age <= 3",
		"select id, lower(name) as n, score * 2 as s2 from t where score > 0.5",
		"select age + 1 as a, age - 1 as b, id * 3 as c, id / 7 as d, id % 5 as e from t where name like 'a%' or age is null",
		"select name, upper(name) as u, age from t where age in (1, 2, 3, 50) and score >= 0.25",
		"select id, name, age, score from t where not (age < 20)",
		"select id * 2 as id, name, age, score, ts from t",
		"select age * 3 as a, age + 2147483647 as b, score * -0.0 as c, score + 0.5 as d, score / 4 as e from t",
		"select id * -1 as a, id - 9 as b, score * -2.5 as c, score - 1 as d, age % 4 as e from t",
	}
	// every comparison of a column, and of a column op constant, with a constant, at the
	// ends of the integer range too
	for _, op := range []string{"=", "<>", "<", "<=", ">", ">="} {
		for _, c := range []string{"-3", "0", "20", "9223372036854775807", "-9223372036854775807"} {
			queries = append(queries, "select * from t where age "+op+" "+c, "select * from t where id % 8 "+op+" "+c)
		}
	}
	rt := tab.RowType()
	rnd := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "b", "Z", "é", " ", "q"}
	mkRow := func() []row.Value {
		f := []row.Value{
			row.BigIntValue(rnd.Int64N(1000) - 500),
			row.StringValue(""),
			row.IntValue(rnd.Int32N(60)),
			row.DoubleValue(rnd.Float64()),
			row.TimestampValue(rnd.Int64N(1 << 40)),
		}
		var sb strings.Builder
		for range rnd.IntN(12) {
			sb.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		f[1] = row.StringValue(sb.String())
		for i := range f {
			if rnd.IntN(10) == 0 {
				f[i] = row.NullValue()
			}
		}
		return f
	}
	for _, q := range queries {
		tr := build(t, q, tab)
		ref, err := sql.Compile(q, rt)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 127, 128, 129, 1000} {
			inputs := make([][]row.Value, n)
			in := row.NewBatch(n)
			for i := range inputs {
				inputs[i] = mkRow()
				r := in.Add(row.Insert, tab.ID(), len(inputs[i]))
				copy(r.Fields, inputs[i])
			}
			var want [][]row.Value
			for _, f := range inputs {
				out := make([]row.Value, ref.Output().Len())
				keep, err := ref.Eval(f, out)
				if err != nil {
					t.Fatalf("%s: row by row: %v", q, err)
				}
				if keep {
					want = append(want, out)
				}
			}
			got, err := tr.Process(context.Background(), in)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if got.Len() != len(want) {
				t.Fatalf("%s, %d rows: kept %d rows, row by row %d", q, n, got.Len(), len(want))
			}
			for i := range want {
				if g, w := got.Rows[i].Fields, want[i]; !reflect.DeepEqual(g, w) {
					t.Fatalf("%s, %d rows: row %d = %v, row by row %v", q, n, i, g, w)
				}
			}
			got.Release()
		}
	}
}

func TestSqlOptions(t *testing.T) {
	optiontest.Check(t, plantest.Warnings, `id = int, name = string`, []optiontest.Case{
		{Block: `Sql { plugin_input = src, plugin_output = out, query = "select id from src", engine = zeta }`},
		{Block: `Sql { query = "select id from src", engin = zeta }`, Warning: `unknown option "engin" (did you mean "engine"?)`},
		{Block: `Sql { qeury = "select id from src" }`, Err: "transform[0] Sql: query: option is required"},
	})
}
