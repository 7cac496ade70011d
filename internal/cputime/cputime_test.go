//go:build unix

package cputime

import "testing"

func TestUsedGrows(t *testing.T) {
	t0 := Used()
	x := 0
	for i := range 50_000_000 {
		x += i & 7
	}
	if t1 := Used(); t0 <= 0 || t1 <= t0 || x == 0 {
		t.Fatalf("CPU time went from %v to %v", t0, t1)
	}
}
