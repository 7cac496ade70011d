package jdbc

import (
	"math"
	"strings"
	"testing"
)

func TestSplitStatement(t *testing.T) {
	tbl := &srcTable{sql: `SELECT * FROM "s"."t"`}
	lo, hi := int64(-3), int64(9)
	for _, tc := range []struct {
		d    srcSplit
		want string
	}{
		{srcSplit{Table: "t"}, `SELECT * FROM "s"."t"`},
		{srcSplit{Table: "t", Key: "id"}, `SELECT * FROM "s"."t"`},
		{srcSplit{Table: "t", Key: "id", Lo: &lo, Hi: &hi}, "SELECT * FROM (SELECT * FROM \"s\".\"t\"\n) st_jdbc_splitter WHERE" + ` "id" >= -3 AND "id" <= 9`},
		{srcSplit{Table: "t", Key: `a"b`, Hi: &hi, Nulls: true}, "SELECT * FROM (SELECT * FROM \"s\".\"t\"\n) st_jdbc_splitter WHERE" + ` ("a""b" <= 9) OR "a""b" IS NULL`},
		{srcSplit{Table: "t", Key: "id", Lo: &lo}, "SELECT * FROM (SELECT * FROM \"s\".\"t\"\n) st_jdbc_splitter WHERE" + ` "id" >= -3`},
	} {
		if got := tc.d.statement(&connConfig{}, tbl); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.d, got, tc.want)
		}
	}
}

func TestSplitConditions(t *testing.T) {
	tbl := &srcTable{sql: `SELECT * FROM "t"`, key: "s", split: splitKey{kind: keyString, expr: `"s"::text`}}
	a, b, h := "a'b", "m", 2
	for _, tc := range []struct {
		d    srcSplit
		want string
	}{
		{srcSplit{Table: "t", Key: "s", To: &a, Nulls: true}, `("s"::text < 'a''b') OR "s" IS NULL`},
		{srcSplit{Table: "t", Key: "s", From: &a, To: &b}, `"s"::text >= 'a''b' AND "s"::text < 'm'`},
		{srcSplit{Table: "t", Key: "s", From: &b, To: &b, ToIncl: true}, `"s"::text >= 'm' AND "s"::text <= 'm'`},
		{srcSplit{Table: "t", Key: "s", From: &b}, `"s"::text >= 'm'`},
		{srcSplit{Table: "t", Key: "s", Nulls: true}, ``},
		{srcSplit{Table: "t", Key: "s", Hash: &h, Mod: 5, Nulls: true}, `(abs(hashtext("s"::text)::int8) % 5 = 2) OR "s" IS NULL`},
	} {
		if got := tc.d.condition(&connConfig{}, tbl); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.d, got, tc.want)
		}
	}
}

func TestDistributionFactor(t *testing.T) {
	for _, tc := range []struct {
		lo, hi string
		rows   int64
		want   float64
		ok     bool
	}{
		{"1", "1000", 1000, 1, true},
		{"0", "96", 1000, 0.097, true},
		{"-1.5", "1.5", 3, 1.3334, true}, // rounded up
		{"1", "2", 0, math.MaxFloat64, true},
		{"NaN", "1", 10, 0, false},
	} {
		got, ok := distributionFactor(tc.lo, tc.hi, tc.rows)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s..%s over %d rows: %v %v, want %v %v", tc.lo, tc.hi, tc.rows, got, ok, tc.want, tc.ok)
		}
	}
}

func TestBase95(t *testing.T) {
	for _, s := range []string{"", "a", "Zz~ ", "hello world"} {
		w := max(len(s), 1)
		back := fromBase95(base95(s, w), w)
		if want := s + strings.Repeat(" ", w-len(s)); back != want {
			t.Errorf("%q: back as %q", s, back)
		}
	}
	// characters beyond 32-126 count as the nearest of them; the order is kept
	if base95("a\x01", 2).Cmp(base95("a ", 2)) != 0 || base95("é", 2).Cmp(base95("~~", 2)) != 0 {
		t.Error("clamping")
	}
	if base95("ab", 3).Cmp(base95("abc", 3)) >= 0 || base95("b", 3).Cmp(base95("abc", 3)) <= 0 {
		t.Error("order")
	}
}
