package keyrange

import (
	"fmt"
	"math"
	"testing"
)

func TestEven(t *testing.T) {
	for _, tc := range []struct {
		lo, hi int64
		n      int
		want   string
	}{
		{1, 10, 3, "[[1 4] [5 7] [8 10]]"},
		{1, 10, 1, "[[1 10]]"},
		{1, 3, 5, "[[1 1] [2 2] [3 3]]"},
		{5, 5, 2, "[[5 5]]"},
		{-5, 4, 2, "[[-5 -1] [0 4]]"},
		{10, 1, 3, "[[10 1]]"},
		{math.MinInt64, math.MaxInt64, 2, fmt.Sprintf("[[%d -1] [0 %d]]", int64(math.MinInt64), int64(math.MaxInt64))},
		{math.MaxInt64 - 1, math.MaxInt64, 4, fmt.Sprintf("[[%d %d] [%d %d]]", int64(math.MaxInt64-1), int64(math.MaxInt64-1), int64(math.MaxInt64), int64(math.MaxInt64))},
	} {
		if got := fmt.Sprint(Even(tc.lo, tc.hi, tc.n)); got != tc.want {
			t.Errorf("Even(%d, %d, %d) = %s, want %s", tc.lo, tc.hi, tc.n, got, tc.want)
		}
	}
}

func TestCondition(t *testing.T) {
	lo, hi := int64(1), int64(5)
	for _, tc := range []struct {
		lo, hi *int64
		nulls  bool
		want   string
	}{
		{&lo, &hi, false, "k >= 1 AND k <= 5"},
		{nil, &hi, true, "(k <= 5) OR k IS NULL"},
		{&lo, nil, false, "k >= 1"},
	} {
		if got := Condition("k", tc.lo, tc.hi, tc.nulls); got != tc.want {
			t.Errorf("Condition = %q, want %q", got, tc.want)
		}
	}
}

// TestPlan: ranges of about size rows that cover every key, the NULLs in the first, open at
// both ends; one range where there is nothing to cut.
func TestPlan(t *testing.T) {
	rs := Plan("t", "id", 1, 100, true, 100, 30, true)
	if len(rs) != 4 || rs[0].Lo != nil || !rs[0].Nulls || rs[3].Hi != nil {
		t.Fatalf("ranges %+v", rs)
	}
	for k := int64(-5); k <= 105; k++ {
		in := 0
		for i := range rs {
			if rs[i].Contains(k, false) {
				in++
			}
		}
		if in != 1 {
			t.Fatalf("key %d is in %d ranges", k, in)
		}
	}
	if !rs[0].Contains(0, true) || rs[1].Contains(0, true) {
		t.Error("the NULL keys are not in the first range alone")
	}
	if got := rs[1].Statement("SELECT * FROM t", func(s string) string { return `"` + s + `"` }); got != `SELECT * FROM t WHERE "id" >= 26 AND "id" <= 50` {
		t.Errorf("statement %q", got)
	}
	for _, one := range [][]Range{
		Plan("t", "", 1, 100, true, 100, 30, true),
		Plan("t", "id", 0, 0, false, 0, 30, true),
		Plan("t", "id", 7, 7, true, 100, 30, true),
		Plan("t", "id", 1, 100, true, 30, 30, true),
	} {
		if len(one) != 1 || !one[0].Whole() || one[0].Statement("SELECT 1", nil) != "SELECT 1" {
			t.Errorf("want the whole table: %+v", one)
		}
	}
}
