package jdbc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// srcConf is the options of a Jdbc source reading url, plus body.
func srcConf(url, body string) string {
	return fmt.Sprintf("url = %q\ndriver = \"org.postgresql.Driver\"\n%s\n", url, body)
}

func newTestSource(t testing.TB, conf string, parallelism int) (*Source, error) {
	t.Helper()
	s, err := buildMySource(t, conf, parallelism)
	if err != nil {
		return nil, err
	}
	return s.(*Source), nil
}

func mustTestSource(t testing.TB, conf string, parallelism int) *Source {
	t.Helper()
	s, err := newTestSource(t, conf, parallelism)
	if err != nil {
		t.Fatalf("NewSource: %v", err)
	}
	return s
}

// readSource reads a whole source with p readers and returns the rows per reader.
func readSource(t testing.TB, s *Source, p int) [][]row.Row {
	t.Helper()
	return conntest.ReaderRows(t, s, p)
}

var srcFlatten = conntest.Flatten

func srcSchema(t testing.TB, conn *pgx.Conn) string {
	t.Helper()
	var s string
	if err := conn.QueryRow(context.Background(), "SELECT current_schema()").Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// checkIDs checks that the rows' first fields are exactly the ids 1..n, each once.
func checkSourceIDs(t *testing.T, rows []row.Row, n int) {
	t.Helper()
	seen := map[int64]int{}
	for _, r := range rows {
		seen[r.Fields[0].I]++
	}
	for id := int64(1); id <= int64(n); id++ {
		if seen[id] != 1 {
			t.Errorf("id %d read %d times", id, seen[id])
		}
	}
	if len(rows) != n {
		t.Errorf("%d rows read, want %d", len(rows), n)
	}
}

func srcDec(s string, p, scale int) row.Value {
	v, err := row.ParseDecimal(s, p, scale)
	if err != nil {
		panic(err)
	}
	return v
}

func srcArr(vs ...row.Value) row.Value { return row.ArrayValue(vs) }

const allTypesDDL = `
CREATE TYPE mood AS ENUM ('sad', 'happy');
CREATE TABLE all_types (
	id int PRIMARY KEY,
	b bool, i2 smallint, i4 int, i8 bigint, f4 real, f8 double precision,
	n numeric(10,2), nu numeric, n5 numeric(5,0), n15 numeric(15,0), n30 numeric(30,0), nneg numeric(4,-2),
	m money,
	c char(3), vc varchar(10) NOT NULL DEFAULT '', t text, nm name, u uuid, j json, jb jsonb, x xml,
	ip inet, iv interval, pt point, e mood,
	by bytea, d date, tm time, ttz timetz, ts timestamp(3), tstz timestamptz,
	ai int[], ai2 smallint[], ai8 bigint[], at text[], avc varchar(5)[], an numeric(6,2)[], ad date[],
	ab bool[], af8 float8[], ats timestamp[], au uuid[], ajb jsonb[], ainet inet[], ae int[]
);
COMMENT ON COLUMN all_types.t IS 'some text';
INSERT INTO all_types VALUES (1,
	true, -32768, 2147483647, -9223372036854775808, 1.5, 3.141592653589793,
	12345678.9, 1.23456789012345678901234, -12345, 123456789012345, 123456789012345678901234567890, 123400,
	'1234.56',
	'ab', 'hello', 'tëxt ✓', 'name1', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": 1}', '{"a": 1}', '<a>1</a>',
	'192.168.0.1/24', '1 day 02:03:04', '(1,2)', 'happy',
	'\x0102ff', '2024-02-29', '13:14:15.123456', '10:00:00+02', '2024-01-02 03:04:05.123', '2024-01-02 03:04:05.123456+02',
	'{1,NULL,3}', '{1,2}', '{9223372036854775807}', '{"a","b c",NULL}', '{"x"}', '{1.5,-2.25}', '{2024-01-01}',
	'{t,f}', '{1.5}', '{"2024-01-01 00:00:00"}', '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', ARRAY['{"k": 2}'::jsonb], '{10.0.0.1}', '{}');
INSERT INTO all_types (id) VALUES (2);
`

func TestSourceTypes(t *testing.T) {
	url, conn := testDB(t)
	mustExec(t, conn, allTypesDDL)
	schema := srcSchema(t, conn)

	day := func(y int, m time.Month, d int) row.Value {
		return row.DateOf(time.Date(y, m, d, 0, 0, 0, 0, time.UTC))
	}
	str := row.StringValue
	want := []struct {
		name     string
		typ      string
		nullable bool
		length   int64
		v        row.Value
	}{
		{"id", "int", false, 0, row.IntValue(1)},
		{"b", "boolean", true, 0, row.BoolValue(true)},
		{"i2", "smallint", true, 0, row.SmallIntValue(-32768)},
		{"i4", "int", true, 0, row.IntValue(math.MaxInt32)},
		{"i8", "bigint", true, 0, row.BigIntValue(math.MinInt64)},
		{"f4", "float", true, 0, row.FloatValue(1.5)},
		{"f8", "double", true, 0, row.DoubleValue(math.Pi)},
		{"n", "decimal(10, 2)", true, 0, srcDec("12345678.90", 10, 2)},
		// an unbounded numeric keeps each value's own scale, as SeaTunnel reads it
		{"nu", "decimal(38, 10)", true, 0, srcDec("1.23456789012345678901234", 38, 23)},
		{"n5", "int", true, 0, row.IntValue(-12345)},
		{"n15", "bigint", true, 0, row.BigIntValue(123456789012345)},
		{"n30", "decimal(30, 0)", true, 0, srcDec("123456789012345678901234567890", 30, 0)},
		{"nneg", "int", true, 0, row.IntValue(123400)},
		{"m", "decimal(30, 2)", true, 30, srcDec("1234.56", 30, 2)},
		{"c", "string", true, 12, str("ab ")},
		{"vc", "string", false, 40, str("hello")},
		{"t", "string", true, 0, str("tëxt ✓")},
		{"nm", "string", true, 0, str("name1")},
		{"u", "string", true, 128, str("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")},
		{"j", "string", true, 0, str(`{"a": 1}`)},
		{"jb", "string", true, 0, str(`{"a": 1}`)},
		{"x", "string", true, 0, str("<a>1</a>")},
		{"ip", "string", true, 0, str("192.168.0.1/24")},
		{"iv", "string", true, 0, str("1 day 02:03:04")},
		{"pt", "string", true, 0, str("(1,2)")},
		{"e", "string", true, 0, str("happy")},
		{"by", "bytes", true, 0, row.BytesValue([]byte{1, 2, 0xff})},
		{"d", "date", true, 0, day(2024, 2, 29)},
		{"tm", "time", true, 0, row.TimeValue(int64(13*time.Hour + 14*time.Minute + 15*time.Second + 123456*time.Microsecond))},
		{"ttz", "time", true, 0, row.TimeValue(int64(8 * time.Hour))},
		{"ts", "timestamp", true, 0, row.TimestampOf(time.Date(2024, 1, 2, 3, 4, 5, 123e6, time.UTC))},
		{"tstz", "timestamp", true, 0, row.TimestampOf(time.Date(2024, 1, 2, 1, 4, 5, 123456e3, time.UTC))},
		{"ai", "array<int>", true, 0, srcArr(row.IntValue(1), row.NullValue(), row.IntValue(3))},
		{"ai2", "array<smallint>", true, 0, srcArr(row.SmallIntValue(1), row.SmallIntValue(2))},
		{"ai8", "array<bigint>", true, 0, srcArr(row.BigIntValue(math.MaxInt64))},
		{"at", "array<string>", true, 0, srcArr(str("a"), str("b c"), row.NullValue())},
		{"avc", "array<string>", true, 0, srcArr(str("x"))},
		{"an", "array<decimal(6, 2)>", true, 0, srcArr(srcDec("1.50", 6, 2), srcDec("-2.25", 6, 2))},
		{"ad", "array<date>", true, 0, srcArr(day(2024, 1, 1))},
		{"ab", "array<boolean>", true, 0, srcArr(row.BoolValue(true), row.BoolValue(false))},
		{"af8", "array<double>", true, 0, srcArr(row.DoubleValue(1.5))},
		{"ats", "array<timestamp>", true, 0, srcArr(row.TimestampOf(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)))},
		{"au", "array<string>", true, 0, srcArr(str("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"))},
		{"ajb", "array<string>", true, 0, srcArr(str(`{"k": 2}`))},
		{"ainet", "string", true, 0, str("{10.0.0.1}")},
		{"ae", "array<int>", true, 0, srcArr()},
	}

	s := mustTestSource(t, srcConf(url, `table_path = "test.`+schema+`.all_types"
		decimal_type_narrowing = true`), 2)
	tables := s.Tables()
	if len(tables) != 1 {
		t.Fatalf("%d tables", len(tables))
	}
	tbl := tables[0]
	if got, wantPath := tbl.Path, (catalog.TablePath{Database: "test", Schema: schema, Table: "all_types"}); got != wantPath {
		t.Errorf("path = %+v, want %+v", got, wantPath)
	}
	if tbl.PrimaryKey == nil || tbl.PrimaryKey.Name != "all_types_pkey" || strings.Join(tbl.PrimaryKey.Columns, ",") != "id" {
		t.Errorf("primary key = %+v", tbl.PrimaryKey)
	}
	if len(tbl.ConstraintKeys) != 1 || tbl.ConstraintKeys[0].Type != "UNIQUE_KEY" {
		t.Errorf("constraint keys = %+v", tbl.ConstraintKeys)
	}
	if len(tbl.Columns) != len(want) {
		t.Fatalf("%d columns, want %d", len(tbl.Columns), len(want))
	}
	for i, w := range want {
		c := tbl.Columns[i]
		if c.Name != w.name || c.Type.String() != w.typ || c.Nullable != w.nullable || c.Length != w.length {
			t.Errorf("column %d = %s %s nullable=%v length=%d, want %s %s nullable=%v length=%d",
				i, c.Name, c.Type, c.Nullable, c.Length, w.name, w.typ, w.nullable, w.length)
		}
	}
	if c := tbl.Columns[tbl.ColumnIndex("t")]; c.Comment != "some text" {
		t.Errorf("comment of t = %q", c.Comment)
	}

	rows := srcFlatten(readSource(t, s, 2))
	sort.Slice(rows, func(i, j int) bool { return rows[i].Fields[0].I < rows[j].Fields[0].I })
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, w := range want {
		got := rows[0].Fields[i]
		if !row.Equal(got, w.v) || (got.T == types.Decimal && got.DecimalScale() != w.v.DecimalScale()) {
			t.Errorf("%s = %v (%s), want %v", w.name, got, got.T, w.v)
		}
		if w.name == "vc" {
			if got := rows[1].Fields[i]; !row.Equal(got, row.StringValue("")) {
				t.Errorf("vc of the second row = %v, want its default", got)
			}
		} else if i > 0 && !rows[1].Fields[i].IsNull() {
			t.Errorf("%s of the NULL row = %v", w.name, rows[1].Fields[i])
		}
	}
	// the values of the first row have exactly their columns' types, as the Assert sink checks
	// them (decimals of the column's scale, elements too); but an unbounded numeric, whose
	// values keep their own scales, and the arrays holding a NULL element, which Assert's check
	// refuses as SeaTunnel's does (row.Equal above compares their elements)
	var typed []string
	for _, c := range tbl.Columns {
		if c.Name != "nu" && c.Name != "ai" && c.Name != "at" {
			typed = append(typed, c.Name)
		}
	}
	if err := conntest.AssertTypes(t.Context(), tbl, rows[:1], typed...); err != nil {
		t.Error(err)
	}
	for _, r := range rows {
		if r.Table != "test."+schema+".all_types" || r.Kind != row.Insert {
			t.Errorf("row of %q, kind %s", r.Table, r.Kind)
		}
	}

	// a query: unbounded numeric is decimal(38,18), the table is the first column's
	// (decimal_type_narrowing is off by default, as SeaTunnel has it for PostgreSQL)
	s = mustTestSource(t, srcConf(url, `query = "select nu, n5, vc, n5 + 1 as expr from all_types order by id"`), 1)
	tbl = s.Tables()[0]
	if tbl.ID() != "all_types" || tbl.PrimaryKey != nil {
		t.Errorf("query table %s, primary key %+v", tbl.ID(), tbl.PrimaryKey)
	}
	var types []string
	for _, c := range tbl.Columns {
		types = append(types, fmt.Sprintf("%s %s %v", c.Name, c.Type, c.Nullable))
	}
	if got, w := strings.Join(types, ", "), "nu decimal(38, 18) true, n5 decimal(5, 0) true, vc string false, expr decimal(38, 18) true"; got != w {
		t.Errorf("query columns = %s, want %s", got, w)
	}
	rows = srcFlatten(readSource(t, s, 1))
	if len(rows) != 2 || rows[0].Fields[0].String() != "1.23456789012345678901234" || rows[0].Fields[1].String() != "-12345" ||
		rows[0].Fields[3].String() != "-12344" {
		t.Errorf("query rows = %v", rows)
	}

	// an expression first: SeaTunnel's default table path
	s = mustTestSource(t, srcConf(url, `query = "select 1 as one, id from all_types"`), 1)
	if id := s.Tables()[0].ID(); id != "default.default.default" {
		t.Errorf("table of an expression query = %s", id)
	}
}

func TestSourceArrayErrors(t *testing.T) {
	url, conn := testDB(t)
	mustExec(t, conn, `CREATE TABLE grid (id int, g int[]); INSERT INTO grid VALUES (1, '{{1,2},{3,4}}')`)
	s := mustTestSource(t, srcConf(url, `table_path = "grid"`), 1)
	_, err := conntest.Rows(context.Background(), s, 1)
	if err == nil || !strings.Contains(err.Error(), `column "g"`) || !strings.Contains(err.Error(), "2-dimensional") {
		t.Errorf("err = %v", err)
	}
	mustExec(t, conn, `CREATE TABLE far (ts timestamp); INSERT INTO far VALUES ('9999-12-31 23:59:59')`)
	s = mustTestSource(t, srcConf(url, `table_path = "far"`), 1)
	_, err = conntest.Rows(context.Background(), s, 1)
	if err == nil || !strings.Contains(err.Error(), "9999-12-31 23:59:59") {
		t.Errorf("err = %v", err)
	}
}

func TestSourceSplitParallel(t *testing.T) {
	url, conn := testDB(t)
	mustExec(t, conn, `CREATE TABLE big (id bigint PRIMARY KEY, g int, name text);
		INSERT INTO big SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE i % 97 END, 'n' || i FROM generate_series(1, 1000) i`)
	for _, tc := range []struct {
		name   string
		body   string
		splits int
	}{
		{"table_path by primary key", `table_path = "big"
			split.size = 100`, 10},
		{"table_path by partition_column with nulls", `table_path = "big"
			partition_column = "g"
			split.size = 300`, 4},
		{"table_path small", `table_path = "big"`, 1},
		{"query with partition_column", `query = "select * from big"
			partition_column = "id"
			partition_num = 7`, 7},
		{"query with nullable partition_column", `query = "select id, g from big"
			partition_column = "g"`, 3},
		{"query without partition_column", `query = "select * from big"`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustTestSource(t, srcConf(url, tc.body), 3)
			ec := conntest.NewEnumContext(3)
			conntest.RunEnumerator(context.Background(), t, s, ec, nil)
			n := 0
			for _, splits := range ec.Assigned {
				n += len(splits)
			}
			if n != tc.splits {
				t.Errorf("%d splits, want %d", n, tc.splits)
			}
			perReader := readSource(t, s, 3)
			rows := srcFlatten(perReader)
			checkSourceIDs(t, rows, 1000)
			if tc.splits >= 3 {
				for i, r := range perReader {
					if len(r) == 0 {
						t.Errorf("reader %d read nothing", i)
					}
				}
			}
		})
	}

	// explicit bounds leave out the rows outside them, and NULLs
	s := mustTestSource(t, srcConf(url, `query = "select id, g from big"
		partition_column = "g"
		partition_lower_bound = 10
		partition_upper_bound = 19
		partition_num = 3`), 2)
	var want int
	if err := conn.QueryRow(context.Background(), "select count(*) from big where g between 10 and 19").Scan(&want); err != nil {
		t.Fatal(err)
	}
	if rows := srcFlatten(readSource(t, s, 2)); len(rows) != want {
		t.Errorf("%d rows within the bounds, want %d", len(rows), want)
	}
}

func TestSourceQueryWhere(t *testing.T) {
	url, conn := testDB(t)
	mustExec(t, conn, `CREATE TABLE people (id int PRIMARY KEY, name text NOT NULL);
		INSERT INTO people SELECT i, 'p' || i FROM generate_series(1, 100) i`)
	schema := srcSchema(t, conn)
	for _, tc := range []struct {
		name, body, id string
		ids            []int64
	}{
		{"query with where", `query = "select id, name from people where id > 97;"`, "people", []int64{98, 99, 100}},
		{"query ending with a comment", `query = "select id, name from people where id > 97 -- the last ones"
			partition_column = "id"`, "people", []int64{98, 99, 100}},
		{"query and where_condition", `query = "select id, name from people where id > 90"
			where_condition = "where id <= 92"`, "people", []int64{91, 92}},
		{"table_path and where_condition", `table_path = "` + schema + `.people"
			where_condition = "WHERE id % 50 = 0"`, schema + ".people", []int64{50, 100}},
		{"query and table_path", `table_path = "` + schema + `.people"
			query = "select id from people where id < 3"`, schema + ".people", []int64{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustTestSource(t, srcConf(url, tc.body), 2)
			if id := s.Tables()[0].ID(); id != tc.id {
				t.Errorf("table id %s, want %s", id, tc.id)
			}
			var ids []int64
			for _, r := range srcFlatten(readSource(t, s, 2)) {
				ids = append(ids, r.Fields[0].I)
				if r.Table != tc.id {
					t.Errorf("row of %s", r.Table)
				}
			}
			sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
			if fmt.Sprint(ids) != fmt.Sprint(tc.ids) {
				t.Errorf("ids %v, want %v", ids, tc.ids)
			}
		})
	}
	// query and table_path: the path's primary key is kept when the query has its columns
	s := mustTestSource(t, srcConf(url, `table_path = "`+schema+`.people"
		query = "select id, name from people"`), 1)
	if pk := s.Tables()[0].PrimaryKey; pk == nil || pk.Columns[0] != "id" {
		t.Errorf("primary key %+v", pk)
	}
	s = mustTestSource(t, srcConf(url, `table_path = "`+schema+`.people"
		query = "select name from people"`), 1)
	if pk := s.Tables()[0].PrimaryKey; pk != nil {
		t.Errorf("primary key %+v of a query without its column", pk)
	}
}

func TestSourceTableList(t *testing.T) {
	url, conn := testDB(t)
	mustExec(t, conn, `CREATE TABLE a (id int PRIMARY KEY, x text);
		CREATE TABLE b (k bigint, y float8);
		INSERT INTO a SELECT i, 'a' || i FROM generate_series(1, 50) i;
		INSERT INTO b SELECT i, i / 2.0 FROM generate_series(1, 30) i`)
	schema := srcSchema(t, conn)
	s := mustTestSource(t, srcConf(url, `
		table_list = [
			{ table_path = "`+schema+`.a", where_condition = "where id <= 40" }
			{ table_path = "`+schema+`.b", query = "select k, y from b where k > 10" }
		]
		where_condition = "where true"
		split.size = 10`), 2)
	tables := s.Tables()
	if len(tables) != 2 || tables[0].ID() != schema+".a" || tables[1].ID() != schema+".b" {
		t.Fatalf("tables %v", tables)
	}
	if got := tables[1].Columns[1].Type.String(); got != "double" {
		t.Errorf("b.y is %s", got)
	}
	count := map[string]int{}
	for _, r := range srcFlatten(readSource(t, s, 2)) {
		count[r.Table]++
		if r.Table == schema+".a" && r.Fields[0].T != types.Int {
			t.Errorf("a row %v", r.Fields)
		}
	}
	if count[schema+".a"] != 40 || count[schema+".b"] != 20 || len(count) != 2 {
		t.Errorf("rows per table %v", count)
	}

	_, err := newTestSource(t, srcConf(url, `table_list = [{ query = "select * from a" }, { query = "select id from a" }]`), 1)
	if err == nil || !strings.Contains(err.Error(), "table_list[1]") {
		t.Errorf("duplicate tables: %v", err)
	}
}

func TestSourceSnapshotRestore(t *testing.T) {
	url, conn := testDB(t)
	mustExec(t, conn, `CREATE TABLE r (id int PRIMARY KEY); INSERT INTO r SELECT generate_series(1, 100)`)
	ctx := context.Background()
	s := mustTestSource(t, srcConf(url, `table_path = "r"
		split.size = 25`), 2)

	// the enumerator hands out reader 0's splits; reader 1 has not registered yet
	ec := conntest.NewEnumContext(2)
	ec.Registered = []int{0}
	en := conntest.RunEnumerator(ctx, t, s, ec, nil)
	if len(ec.Assigned[0]) != 2 || len(ec.Assigned[1]) != 0 || !ec.NoMore[0] {
		t.Fatalf("assigned %v", ec.Assigned)
	}
	state, err := en.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}

	// reader 0 reads part of its first split, then checkpoints
	rd := conntest.OpenReader(t, s, connector.ReaderContext{Index: 0, Parallelism: 2}, ec.Assigned[0])
	b := row.NewBatch(10)
	if done, err := rd.PollNext(ctx, b); err != nil || done || b.Len() != 10 {
		t.Fatalf("PollNext: done=%v err=%v rows=%d", done, err, b.Len())
	}
	b.Release()
	splits, err := rd.SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(splits) != 2 || splits[0].ID != ec.Assigned[0][0].ID {
		t.Fatalf("snapshot %v", splits)
	}
	rd.Close()

	// the restored enumerator plans nothing again: the table may be gone
	mustExec(t, conn, `ALTER TABLE r RENAME TO r_old; CREATE VIEW r AS SELECT * FROM r_old`)
	ec2 := conntest.NewEnumContext(2)
	conntest.RunEnumerator(ctx, t, s, ec2, state)
	if len(ec2.Assigned[0]) != 0 || len(ec2.Assigned[1]) != 2 || !ec2.NoMore[0] || !ec2.NoMore[1] {
		t.Errorf("restored enumerator assigned %v", ec2.Assigned)
	}

	// the restored readers read the unfinished split again from its beginning
	var all []row.Row
	for i, sp := range [][]connector.Split{splits, ec2.Assigned[1]} {
		rd := conntest.OpenReader(t, s, connector.ReaderContext{Index: i, Parallelism: 2}, sp)
		for {
			b := row.NewBatch(7)
			done := conntest.Poll(ctx, t, rd, b)
			for j := range b.Rows {
				all = append(all, b.Rows[j].Clone())
			}
			b.Release()
			if done {
				break
			}
		}
		rd.Close()
	}
	checkSourceIDs(t, all, 100)
}

func TestSourceErrors(t *testing.T) {
	url, conn := testDB(t)
	mustExec(t, conn, `CREATE TABLE e (id int, s text, f float8, b bool)`)
	for _, tc := range []struct {
		name string
		conf string
		want []string
	}{
		{"bad driver", `url = "` + url + `"
			driver = "com.mysql.cj.jdbc.Driver"
			query = "select 1"`, []string{"driver", "com.mysql.cj.jdbc.Driver"}},
		{"bad query", srcConf(url, `query = "select nope from e"`), []string{"source[0] Jdbc: query:", `column "nope" does not exist`, "42703"}},
		{"syntax error", srcConf(url, `query = "selec 1"`), []string{"query:", "syntax error"}},
		{"not a select", srcConf(url, `query = "delete from e"`), []string{"query:"}},
		{"missing table", srcConf(url, `table_path = "public.nothere"`), []string{"table_path:", "public.nothere does not exist"}},
		{"other database", srcConf(url, `table_path = "otherdb.public.e"`), []string{"table_path:", "otherdb"}},
		{"bad where", srcConf(url, `table_path = "e"
			where_condition = "id > 1"`), []string{"where_condition:", "must start with `where`"}},
		{"failing where", srcConf(url, `table_path = "e"
			where_condition = "where nope > 1"`), []string{"where_condition:", `"nope" does not exist`}},
		{"nothing to read", srcConf(url, ``), []string{"query:", "table_path"}},
		{"list and query", srcConf(url, `query = "select 1"
			table_list = [{ table_path = "e" }]`), []string{"table_list:", "not both"}},
		{"unknown partition column", srcConf(url, `query = "select * from e"
			partition_column = "x"`), []string{"partition_column:", `"x"`, "id, s, f, b"}},
		{"boolean partition column", srcConf(url, `query = "select * from e"
			partition_column = "b"`), []string{"partition_column:", "boolean"}},
		{"fractional bound of an integer column", srcConf(url, `query = "select * from e"
			partition_column = "id"
			partition_lower_bound = 1.5`), []string{"partition_lower_bound:", "not an integer"}},
		{"bad distribution factors", srcConf(url, `table_path = "e"
			split.even-distribution.factor.lower-bound = 10
			split.even-distribution.factor.upper-bound = 1`), []string{"split.even-distribution.factor.lower-bound:"}},
		{"bad bounds", srcConf(url, `query = "select * from e"
			partition_column = "id"
			partition_lower_bound = 10
			partition_upper_bound = 1`), []string{"partition_lower_bound:"}},
		{"bad split size", srcConf(url, `table_path = "e"
			split.size = 0`), []string{"split.size:"}},
		{"list entry", srcConf(url, `table_list = [{ table_path = "e" }, { query = "select * from nothere" }]`), []string{"table_list[1].query:", "nothere"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newTestSource(t, tc.conf, 1)
			if err == nil {
				t.Fatal("no error")
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Errorf("not a config error: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestSourceChangedColumns(t *testing.T) {
	url, conn := testDB(t)
	mustExec(t, conn, `CREATE TABLE ch (id int, v numeric(10,2)); INSERT INTO ch VALUES (1, 2.5)`)
	s := mustTestSource(t, srcConf(url, `table_path = "ch"`), 1)
	mustExec(t, conn, `ALTER TABLE ch ALTER COLUMN v TYPE numeric(12,4)`)
	_, err := conntest.Rows(context.Background(), s, 1)
	if err == nil || !strings.Contains(err.Error(), `column "v" changed since the job started`) {
		t.Errorf("err = %v", err)
	}
}
