package jdbc

import (
	"fmt"
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
