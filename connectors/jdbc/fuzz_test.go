package jdbc

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// replacePlaceholders is s with each placeholder ($ and its digits) replaced by what with
// gives for it, in order.
func replacePlaceholders(s string, with func(placeholder string) string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			b.WriteByte(s[i])
			continue
		}
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		b.WriteString(with(s[i:j]))
		i = j - 1
	}
	return b.String()
}

// addSeeds adds the inputs to the fuzz test's corpus.
func addSeeds(f *testing.F, inputs ...string) {
	for _, s := range inputs {
		f.Add(s)
	}
}

// FuzzPositionalParams: any statement is rewritten or refused, never a panic; the rewrite
// numbers the placeholders $1..$n in order and, for a statement without $, turning them
// back into ? gives the statement again (but for spaces put between a placeholder and a
// digit).
func FuzzPositionalParams(f *testing.F) {
	addSeeds(f,
		"insert into t values (?, ?)",
		"select '?', \"a?\" from t where x = ? -- ?\n and y = ?",
		"/* ? */ ? 'it''s ?'",
		"select 'x",
		"/* open",
	)
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
		next := 1
		back := replacePlaceholders(out, func(p string) string {
			if p != "$"+fmt.Sprint(next) {
				t.Fatalf("%q -> %q: placeholder %q, want $%d", q, out, p, next)
			}
			next++
			return "?"
		})
		noSpace := func(s string) string { return strings.ReplaceAll(s, " ", "") }
		if noSpace(back) != noSpace(q) || next-1 != n {
			t.Fatalf("%q -> %q (%d) -> %q", q, out, n, back)
		}
	})
}

// FuzzNamedParams: any statement is rewritten or refused, never a panic; for a statement
// without $, putting :name back for each $n gives the statement again.
func FuzzNamedParams(f *testing.F) {
	addSeeds(f,
		"insert into t (a, b) values(:user_id, :name)",
		"select :a::text, ':b', \":c\" -- :d\n, x[1:2]",
		"/* :x */ :_y1 'it''s :z'",
		"select ':x",
	)
	f.Fuzz(func(t *testing.T, q string) {
		out, names, err := namedParams(q)
		if err != nil || strings.Contains(q, "$") {
			return
		}
		back := replacePlaceholders(out, func(p string) string {
			k, _ := strconv.Atoi(p[1:])
			if k < 1 || k > len(names) {
				t.Fatalf("%q -> %q: placeholder %q of %d names", q, out, p, len(names))
			}
			return ":" + names[k-1]
		})
		if back != q {
			t.Fatalf("%q -> %q %v -> %q", q, out, names, back)
		}
	})
}
