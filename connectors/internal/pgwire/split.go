package pgwire

import (
	"math/big"
	"strconv"
	"strings"
)

// EvenRanges cuts lo..hi (inclusive) into n ranges whose widths differ by at most one; fewer
// when the span holds fewer than n values. When lo > hi there is the one range lo..hi.
func EvenRanges(lo, hi int64, n int) [][2]int64 {
	if n < 1 {
		n = 1
	}
	if lo > hi {
		return [][2]int64{{lo, hi}}
	}
	one := big.NewInt(1)
	span := new(big.Int).Sub(big.NewInt(hi), big.NewInt(lo))
	span.Add(span, one)
	if span.IsInt64() && span.Int64() < int64(n) {
		n = int(span.Int64())
	}
	size, rem := new(big.Int).QuoRem(span, big.NewInt(int64(n)), new(big.Int))
	r := rem.Int64()
	out := make([][2]int64, 0, n)
	start := big.NewInt(lo)
	end := new(big.Int)
	for i := 0; i < n; i++ {
		end.Add(start, size)
		if int64(i) >= r {
			end.Sub(end, one)
		}
		out = append(out, [2]int64{start.Int64(), end.Int64()})
		start.Add(end, one)
	}
	return out
}

// RangeCondition is the WHERE condition of a range split on an integer column: key >= lo
// AND key <= hi (either bound may be open, not both), or, with nulls, those rows and the
// rows whose key is NULL.
func RangeCondition(key string, lo, hi *int64, nulls bool) string {
	k := QuoteIdent(key)
	var conds []string
	if lo != nil {
		conds = append(conds, k+" >= "+strconv.FormatInt(*lo, 10))
	}
	if hi != nil {
		conds = append(conds, k+" <= "+strconv.FormatInt(*hi, 10))
	}
	cond := strings.Join(conds, " AND ")
	if nulls {
		cond = "(" + cond + ") OR " + k + " IS NULL"
	}
	return cond
}
