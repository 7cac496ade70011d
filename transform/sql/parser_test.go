package sql

import (
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/types"
)

func TestParsePrint(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"select * from t", "SELECT * FROM t"},
		{"SELECT *, id as id_ FROM fake", "SELECT *, id AS id_ FROM fake"},
		{"select t.* from t", "SELECT t.* FROM t"},
		{"select a+1 b, c from t where x>1", "SELECT a + 1 AS b, c FROM t WHERE x > 1"},
		{"select `end`, `a b` from t", "SELECT `end`, `a b` FROM t"},
		{"select 'it''s' from t;", "SELECT 'it''s' FROM t"},
		{"select -x, not a = b from t", "SELECT -x, NOT a = b FROM t"},
		{"select a from t where a in (1, 2) and b not like 'x%' and c is not null", "SELECT a FROM t WHERE a IN (1, 2) AND b NOT LIKE 'x%' AND c IS NOT NULL"},
		{"select case when a then 1 else 2 end from t", "SELECT CASE WHEN a THEN 1 ELSE 2 END FROM t"},
		{"select case a when 1 then 'x' end from t", "SELECT CASE a WHEN 1 THEN 'x' END FROM t"},
		{"select cast(a as decimal(10,2)) from t", "SELECT CAST(a AS decimal(10, 2)) FROM t"},
		{"select extract(year from d) from t", "SELECT EXTRACT(YEAR FROM d) FROM t"},
		{"select trim(both 'x' from s), TRIM(s) from t", "SELECT trim(BOTH 'x' FROM s), TRIM(s) FROM t"},
		{"select position('a' in s) from t", "SELECT position('a' IN s) FROM t"},
		{"select current_date, now() from t", "SELECT current_date, now() FROM t"},
		{"select a from t as x", "SELECT a FROM t AS x"},
		{"select a -- comment\nfrom /* c */ t", "SELECT a FROM t"},
		{"select a between 1 and 2 from t", "SELECT a BETWEEN 1 AND 2 FROM t"},
		{"select (a + b) * c from t", "SELECT (a + b) * c FROM t"},
		{"select a || b || c from t", "SELECT a || b || c FROM t"},
		{"select DATE '2021-01-01' from t", "SELECT DATE '2021-01-01' FROM t"},
	} {
		s, err := Parse(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got := s.String(); got != c.out {
			t.Errorf("%q:\n got %s\nwant %s", c.in, got, c.out)
		}
		// printing is stable
		s2, err := Parse(s.String())
		if err != nil || s2.String() != s.String() {
			t.Errorf("%q reprints as %q (%v)", s.String(), s2, err)
		}
	}
}

func TestPrecedence(t *testing.T) {
	for _, c := range []struct{ in, tree string }{
		{"a + b * c", "(a + (b * c))"},
		{"a * b + c", "((a * b) + c)"},
		{"a - b - c", "((a - b) - c)"},
		{"a || b + c", "(a || (b + c))"},
		{"a = 1 or b = 2 and c = 3", "((a = 1) OR ((b = 2) AND (c = 3)))"},
		{"not a = 1 and b", "((NOT (a = 1)) AND b)"},
		{"-a * b", "((-a) * b)"},
		{"a > b + 1", "(a > (b + 1))"},
	} {
		s, err := Parse("select " + c.in + " from t")
		if err != nil {
			t.Fatal(err)
		}
		if got := tree(s.Items[0].Expr); got != c.tree {
			t.Errorf("%s: %s, want %s", c.in, got, c.tree)
		}
	}
}

func tree(n Node) string {
	switch n := n.(type) {
	case *Binary:
		return "(" + tree(n.L) + " " + n.Op + " " + tree(n.R) + ")"
	case *Unary:
		if n.Op == "NOT" {
			return "(NOT " + tree(n.X) + ")"
		}
		return "(" + n.Op + tree(n.X) + ")"
	}
	return n.String()
}

func TestCompileErrors(t *testing.T) {
	runErrCases(t, []errCase{
		{"select nme from t", `unknown column "nme" at 1:8`},
		{"select i,\n  nme\nfrom t", `unknown column "nme" at 2:3`},
		{"select x.i from t", `unknown column or table "x" at 1:8`},
		{"select foo(1) from t", "unknown function foo at 1:8"},
		{"select count(*) from t", "aggregate function COUNT is not supported"},
		{"select sum(i) from t", "aggregate function SUM is not supported"},
		{"select count(distinct i) from t", "aggregate functions are not supported"},
		{"select i from t join u on t.i = u.i", "JOIN is not supported: the Sql transform reads one table at 1:17"},
		{"select i from t, u", "JOIN is not supported"},
		{"select i from t left join u on 1 = 1", "JOIN is not supported"},
		{"select i from t group by i", "GROUP BY is not supported: the Sql transform works one row at a time at 1:17"},
		{"select i from t where i > 1 order by i", "ORDER BY is not supported: the Sql transform works one row at a time at 1:29"},
		{"select i from t limit 1", "LIMIT is not supported"},
		{"select distinct i from t", "SELECT DISTINCT is not supported"},
		{"select i from t union select i from t", "UNION is not supported"},
		{"select i from (select 1 from t)", "sub-queries are not supported: FROM names the input table at 1:15"},
		{"select i from t where i in (select 1 from t)", "sub-queries are not supported"},
		{"select (select 1 from t) from t", "sub-queries are not supported"},
		{"select i from t where exists (select 1)", "sub-queries are not supported"},
		{"select i from a.b", "qualified table names are not supported"},
		{"update t set i = 1", "only SELECT statements are supported"},
		{"select i from t; select 1 from t", "only one statement is allowed"},
		{"select i from t where", "expected an expression, found the end of the query"},
		{"select i", "expected FROM <table>"},
		{"select from t", "unexpected keyword FROM"},
		{"select 'abc from t", "unterminated string literal at 1:8"},
		{"select `abc from t", "unterminated quoted name"},
		{"select i from t /* x", "unterminated comment"},
		{"select i # 1 from t", `expected "," or FROM, found "#"`},
		{"select i ? from t", "query parameters are not supported"},
		{"select i from t where i = ?", "query parameters are not supported"},
		{"select 1a from t", "malformed number"},
		{"select cast(i as foo) from t", "unknown type foo for CAST"},
		{"select cast(i as decimal) from t", "DECIMAL needs a precision and a scale"},
		{"select cast(i as decimal(50, 2)) from t", "out of range"},
		{"select cast(m as string) from t", "cannot cast map<string, int> to string"},
		{"select cast(dt as int) from t", "cannot cast date to int"},
		{"select cast(tm as date) from t", "cannot cast time to date"},
		{"select i + s from t", "operator + cannot be applied to int and string at 1:10"},
		{"select dt + 1 from t", "operator + cannot be applied to date and int"},
		{"select -s from t", "unary - needs a number"},
		{"select s > 1 from t", "cannot compare string with int"},
		{"select bo > bo from t", "booleans can only be compared with = or <>"},
		{"select m > m from t", "cannot be ordered"},
		{"select i from t where i", "WHERE needs a condition, i is int at 1:23"},
		{"select i from t where s and bo", "AND needs conditions on both sides"},
		{"select not i from t", "NOT needs a condition"},
		{"select upper(i, 2) from t", "UPPER takes 1 argument, found 2"},
		{"select substring(s) from t", "SUBSTRING takes 2 to 3 arguments, found 1"},
		{"select concat() from t", "CONCAT takes at least 1 argument, found 0"},
		{"select pi(1) from t", "PI takes 0 arguments, found 1"},
		{"select i, i from t", `duplicate output column "i"`},
		{"select *, i from t", `duplicate output column "i"`},
		{"select x.* from t", `unknown table "x"`},
		{"select r.inner.nope from t", `unknown field "nope" in r.inner`},
		{"select r.m.a.b from t", "a map value can only be read by one key at the end"},
		{"select i.x from t", "i is a int, it has no field"},
		{"select case when i then 1 end from t", "WHEN needs a condition"},
		{"select case when i > 1 then 's' else 1 end from t", "CASE branches have different types: string and int"},
		{"select case when i > 1 then 1 end from t where i > case when true then 's' else 2 end", "CASE branches have different types"},
		{"select abs(s) from t", "ABS needs a number, s is string"},
		{"select left(s, 'x') from t", "LEFT needs a number"},
		{"select upper(m) from t", "UPPER needs a string"},
		{"select year(tm) from t", "YEAR needs a date or a timestamp, tm is time"},
		{"select hour(dt) from t", "HOUR needs a time or a timestamp, dt is date"},
		{"select dateadd(s, 1) from t", "DATEADD needs a date, time or timestamp"},
		{"select dateadd(ts, 1, 'DECADE') from t", "DATEADD does not know the unit 'DECADE'"},
		{"select datediff(dt, dt, 'HOUR') from t", "DATEDIFF by HOUR needs two timestamps or two times"},
		{"select date_trunc(ts, 'WEEK') from t", "DATE_TRUNC does not know the unit 'WEEK'"},
		{"select extract(epoch from ts) from t", "EXTRACT does not know the field EPOCH"},
		{"select extract(year from s) from t", "EXTRACT needs a date, time or timestamp"},
		{"select parsedatetime(s, s) from t", "PARSEDATETIME needs its pattern as a string literal"},
		{"select parsedatetime(s, 'HH') from t", "has neither a year (yy) nor minutes (mm)"},
		{"select formatdatetime(dt, 'HH') from t", "needs a time of day, the value is a date"},
		{"select formatdatetime(tm, 'yyyy') from t", "needs a date, the value is a time"},
		{"select formatdatetime(ts, 'yyyy z') from t", "time-zone pattern letters"},
		{"select formatdatetime(ts, 'yyyy-bb') from t", "unknown pattern letter 'b'"},
		{"select formatdatetime(ts, 'yyyy ''x') from t", "unterminated quote"},
		{"select formatdatetime(ts, 'ddd') from t", "too many pattern letters"},
		{"select from_unixtime(ts, 'yyyy') from t", "FROM_UNIXTIME needs a whole number of seconds"},
		{"select from_unixtime(1, 'yyyy', 'Mars/Base') from t", `unknown time zone "Mars/Base"`},
		{"select from_unixtime(1, 'yyyy', 'UTC+25') from t", `invalid time zone "UTC+25"`},
		{"select regexp_like(s, '(?<=a)b') from t", "invalid regular expression"},
		{"select regexp_like(s, 'a', 'x') from t", "unsupported regular expression mode"},
		{"select regexp_replace(s, 'a', '$2') from t", "no group 2"},
		{"select s like 1 from t", "a LIKE pattern must be a string"},
		{"select s like 'a' escape 'xy' from t", "ESCAPE needs a string literal of one character"},
		{"select s like 'a\\' from t", "LIKE pattern ends with the escape character"},
		{"select i in () from t", "IN needs at least one value"},
		{"select i in (m) from t", "IN lists cannot hold a map"},
		{"select count(*) over () from t", "aggregate"},
		{"select coalesce(i, m) from t", "COALESCE: argument 2 is map<string, int>, the result is int"},
		{"select mod(s, 2) from t", "MOD needs a number"},
		{"select interval '1' day from t", "INTERVAL is not supported"},
		{"select x::int from t", "the :: cast is not supported"},
		{"select arr[1] from t", "array subscripts are not supported"},
		{"with x as (select 1) select * from x", "WITH (common table expressions) is not supported"},
		{"select i from t where i ilike 'a'", "ILIKE is not supported"},
		{"select end from t", "unexpected keyword END; quote a column with this name as `end`"},
		{"", "expected SELECT, found the end of the query"},
	})
}

func TestNesting(t *testing.T) {
	deep := strings.Repeat("(", 500) + "1" + strings.Repeat(")", 500)
	if _, err := Parse("select " + deep + " from t"); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Fatalf("deep nesting: %v", err)
	}
	ok := strings.Repeat("(", 50) + "1" + strings.Repeat(")", 50)
	if _, err := Compile("select "+ok+" from t", testSchema); err != nil {
		t.Fatal(err)
	}
	long := "select 1" + strings.Repeat(" + 1", 5000) + " from t"
	p, err := Compile(long, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	if p.Output().Types[0].Kind != types.Int {
		t.Fatal(p.Output())
	}
}

// Output names: the alias, a column's last name part, or the expression's text.
func TestOutputNames(t *testing.T) {
	restore := SetLocalZone(time.UTC)
	defer restore()
	p, err := Compile("select i, t.s, r.inner.x, i + 1, upper(s), `weird name`, i as `apply`, 'x' as \"q\", pi() from t",
		&types.RowType{Names: append(append([]string{}, testSchema.Names...), "weird name"), Types: append(append([]types.DataType{}, testSchema.Types...), types.Of(types.Int))}, "t")
	if err != nil {
		t.Fatal(err)
	}
	want := "i, s, x, i + 1, upper(s), weird name, apply, q, pi()"
	if got := strings.Join(p.Output().Names, ", "); got != want {
		t.Fatalf("names %q, want %q", got, want)
	}
}

// The FROM name is not checked: SeaTunnel reads its input whatever the query calls it.
func TestAnyTableName(t *testing.T) {
	for _, q := range []string{"select * from anyTableName", "select anyTableName.i from anyTableName", "select x.i from whatever x", "select t.i from other"} {
		if _, err := Compile(q, testSchema, "t"); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"select * from t",
		"select id, regexp_replace(name, '.+', 'b') as name, age+1 as age, pi() as pi, c_row from fake",
		"select i from t where ( i = 1 or i in (8, 9) ) and s <> 'x' and s like '%Din_' and e is null",
		"select case when s in ('x') then 1 else 0 end as a, cast(d as decimal(10, 2)) from t",
		"select trim(both 'x' from s), position('a' in s), substring(s from 1 for 2), extract(year from ts) from t",
		"select `a b`, \"c\", r.inner.x, m.key, DATE '2021-01-01', TIMESTAMP '2021-01-01 10:00:00' from t -- c\n/* c */",
		"select i between 1 and 2, not bo, -i, +d, 'it''s' || s from t where i is not null",
		"select to_date(s, 'yyyy-MM-dd'), formatdatetime(ts, 'EEE, d MMM yyyy HH:mm:ss'), from_unixtime(1, 'yyyy', 'UTC+8') from t",
		"select 1e10, .5, 99999999999999999999999999, x::int, count(*) over () from t group by x",
		"select s from t where s like 'a!%' escape '!' and regexp_like(s, '[a-z]+', 'i')",
		"select nullif(null, i), coalesce(ns, s), ifnull(ni, 1), mod(dec, 3), round(d, 2), trunc(dec), sign(nd) from t where nullif(null, i)",
		"select dateadd(ts, 1, 'MONTH'), datediff(dt, ts, 'YEAR'), date_trunc(ts, 'HOUR'), week(dt), dayname(ts), hour(tm), is_date(s, 'yyyy') from t",
		"select lpad(s, 10, '*'), insert(s, 2, 2, 'x'), locate('o', s, -1), regexp_substr(s, 'l+', 1, 2), soundex(s), translate(s, 'lo', 'x') from t",
	} {
		f.Add(s)
	}
	schema := testSchema
	f.Fuzz(func(t *testing.T, q string) {
		if len(q) > 4096 {
			return
		}
		s, err := Parse(q)
		if err != nil {
			var pe *Error
			if !errorsAs(err, &pe) || pe.Line < 1 || pe.Col < 1 {
				t.Fatalf("%q: error without a position: %v", q, err)
			}
			return
		}
		// what parses prints as SQL that parses to the same text
		text := s.String()
		s2, err := Parse(text)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", q, text, err)
		}
		if s2.String() != text {
			t.Fatalf("%q printed as %q, reprinted as %q", q, text, s2.String())
		}
		// compiling and running never panics
		p, err := Compile(q, schema, "t")
		if err != nil {
			return
		}
		out := make([]rowValue, len(p.Output().Names))
		_, _ = p.Eval(testRow(), out)
		nulls := make([]rowValue, len(schema.Names))
		_, _ = p.Eval(nulls, out)
	})
}

// A malformed input type is an error, not a crash.
func TestMalformedTypes(t *testing.T) {
	rt := &types.RowType{Names: []string{"r", "m"}, Types: []types.DataType{{Kind: types.Row}, {Kind: types.Map}}}
	for _, q := range []string{"select r.x from t", "select m.k from t"} {
		if _, err := Compile(q, rt); err == nil || !strings.Contains(err.Error(), "incomplete type") {
			t.Errorf("%s: %v", q, err)
		}
	}
	if _, err := Compile("select r, m from t", rt); err != nil {
		t.Error(err)
	}
}
