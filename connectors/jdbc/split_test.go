package jdbc

import "testing"

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
		if got := tc.d.statement(tbl); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.d, got, tc.want)
		}
	}
}
