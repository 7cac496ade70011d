package jdbc

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// FuzzPositionalParams: any statement is rewritten or refused, never a panic; the rewrite
// numbers the placeholders $1..$n in order and, for a statement without $, turning them
// back into ? gives the statement again (but for spaces put between a placeholder and a
// digit).
func FuzzPositionalParams(f *testing.F) {
	for _, s := range []string{
		"insert into t values (?, ?)",
		"select '?', \"a?\" from t where x = ? -- ?\n and y = ?",
		"/* ? */ ? 'it''s ?'",
		"select 'x",
		"/* open",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		out, n, err := positionalParams(q)
		if err != nil {
			return
		}
		if strings.Contains(q, "$") {
			return
		}
		// every $ is a placeholder, numbered in order; turned back into ?, the statement is
		// the input but for the spaces that keep a placeholder apart from a digit
		var b strings.Builder
		next := 1
		for i := 0; i < len(out); i++ {
			if out[i] != '$' {
				b.WriteByte(out[i])
				continue
			}
			j := i + 1
			for j < len(out) && out[j] >= '0' && out[j] <= '9' {
				j++
			}
			if out[i+1:j] != fmt.Sprint(next) {
				t.Fatalf("%q -> %q: placeholder %q, want $%d", q, out, out[i:j], next)
			}
			next++
			b.WriteByte('?')
			i = j - 1
		}
		noSpace := func(s string) string { return strings.ReplaceAll(s, " ", "") }
		if back := b.String(); noSpace(back) != noSpace(q) || next-1 != n {
			t.Fatalf("%q -> %q (%d) -> %q", q, out, n, back)
		}
	})
}

// FuzzNamedParams: any statement is rewritten or refused, never a panic; for a statement
// without $, putting :name back for each $n gives the statement again.
func FuzzNamedParams(f *testing.F) {
	for _, s := range []string{
		"insert into t (a, b) values(:user_id, :name)",
		"select :a::text, ':b', \":c\" -- :d\n, x[1:2]",
		"/* :x */ :_y1 'it''s :z'",
		"select ':x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		out, names, err := namedParams(q)
		if err != nil || strings.Contains(q, "$") {
			return
		}
		var b strings.Builder
		for i := 0; i < len(out); i++ {
			if out[i] != '$' {
				b.WriteByte(out[i])
				continue
			}
			j := i + 1
			for j < len(out) && out[j] >= '0' && out[j] <= '9' {
				j++
			}
			k, _ := strconv.Atoi(out[i+1 : j])
			if k < 1 || k > len(names) {
				t.Fatalf("%q -> %q: placeholder %q of %d names", q, out, out[i:j], len(names))
			}
			b.WriteString(":" + names[k-1])
			i = j - 1
		}
		if b.String() != q {
			t.Fatalf("%q -> %q %v -> %q", q, out, names, b.String())
		}
	})
}
