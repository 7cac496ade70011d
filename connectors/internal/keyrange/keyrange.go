// Package keyrange cuts a table's rows into ranges of an integer key: the splits the Jdbc
// source and the change sources' snapshots read in parallel, planned from the key's
// smallest and largest values and the table's row count, and each range's SQL condition.
package keyrange

import (
	"math/big"
	"strconv"
	"strings"
)

// Even cuts lo..hi (inclusive) into n ranges whose widths differ by at most one; fewer
// when the span holds fewer than n values. When lo > hi there is the one range lo..hi.
func Even(lo, hi int64, n int) [][2]int64 {
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

// Condition is the WHERE condition of a range on an integer column, key quoted as the
// database quotes it: key >= lo AND key <= hi (either bound may be open, not both), or, with
// nulls, those rows and the rows whose key is NULL.
func Condition(key string, lo, hi *int64, nulls bool) string {
	var conds []string
	if lo != nil {
		conds = append(conds, key+" >= "+strconv.FormatInt(*lo, 10))
	}
	if hi != nil {
		conds = append(conds, key+" <= "+strconv.FormatInt(*hi, 10))
	}
	cond := strings.Join(conds, " AND ")
	if nulls {
		cond = "(" + cond + ") OR " + key + " IS NULL"
	}
	return cond
}

// Range is a range of a table's rows, read by one SELECT. Lo and Hi are inclusive bounds of
// the key column (nil leaves that side open); Nulls adds the rows whose key is NULL. A range
// without Key is the whole table. It holds no progress: it is read from its beginning
// whenever it is read. Its JSON is what the change sources keep in their checkpoints.
type Range struct {
	Table string `json:"table"`
	Key   string `json:"key,omitempty"`
	Lo    *int64 `json:"lo,omitempty"`
	Hi    *int64 `json:"hi,omitempty"`
	Nulls bool   `json:"nulls,omitempty"`
}

// Whole reports whether the range is the whole table.
func (r *Range) Whole() bool { return r.Key == "" || (r.Lo == nil && r.Hi == nil) }

// Contains reports whether a row whose key is k (null: isNull) is in the range.
func (r *Range) Contains(k int64, isNull bool) bool {
	if isNull {
		return r.Nulls || (r.Lo == nil && r.Hi == nil)
	}
	return (r.Lo == nil || k >= *r.Lo) && (r.Hi == nil || k <= *r.Hi)
}

// Statement is the SELECT of the table, selectAll, narrowed to the range; quote quotes the
// key as the database does.
func (r *Range) Statement(selectAll string, quote func(string) string) string {
	if r.Whole() {
		return selectAll
	}
	return selectAll + " WHERE " + Condition(quote(r.Key), r.Lo, r.Hi, r.Nulls)
}

// Plan cuts a table into ranges of its key of about size rows each: rows of them over the
// key's values lo..hi (valid false when the table is empty). The first range takes the NULL
// keys when the key is nullable; the first and last are open below and above, so rows
// written after the plan are in one. A table without key, of one key value or of no more
// than size rows is one range.
func Plan(table, key string, lo, hi int64, valid bool, rows, size int64, nullable bool) []Range {
	if key == "" || !valid || lo == hi || size <= 0 || rows <= size {
		return []Range{{Table: table}}
	}
	n := (rows + size - 1) / size
	bounds := Even(lo, hi, int(min(n, 1<<20)))
	out := make([]Range, len(bounds))
	for i, b := range bounds {
		from, to := b[0], b[1]
		out[i] = Range{Table: table, Key: key, Lo: &from, Hi: &to}
		if i == 0 {
			out[i].Lo, out[i].Nulls = nil, nullable
		}
		if i == len(bounds)-1 {
			out[i].Hi = nil
		}
	}
	return out
}
