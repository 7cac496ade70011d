package row

import (
	"bytes"
	"strings"
	"testing"
)

// TestArenaKeepsStringsAcrossReuse writes many strings through one reused buffer and checks
// every kept string still holds its text, across blocks and for long strings.
func TestArenaKeepsStringsAcrossReuse(t *testing.T) {
	var a Arena
	buf := make([]byte, 0, 4096)
	var kept, want []string
	for i := 0; i < 5000; i++ {
		n := i % 97
		if i%500 == 0 {
			n = arenaChunk // longer than an eighth of a block: its own allocation
		}
		buf = append(buf[:0], strings.Repeat(string(rune('a'+i%26)), n)...)
		kept = append(kept, a.Keep(buf))
		want = append(want, string(buf))
		for j := range buf {
			buf[j] = '#'
		}
	}
	for i := range kept {
		if kept[i] != want[i] {
			t.Fatalf("string %d: %q, want %q", i, kept[i], want[i])
		}
	}
	if a.Keep(nil) != "" || a.Keep(bytes.Repeat([]byte{'x'}, 0)) != "" {
		t.Fatal("an empty input is not the empty string")
	}
}

// TestArenaAllocatesPerBlock checks that short strings share blocks.
func TestArenaAllocatesPerBlock(t *testing.T) {
	var a Arena
	b := []byte("twelve bytes")
	allocs := testing.AllocsPerRun(1000, func() { a.Keep(b) })
	if allocs > 0.01 {
		t.Fatalf("%.3f allocations a string, want at most one a block", allocs)
	}
}
