package freeport

import "testing"

// TestPickBelowEphemeral: picked ports stay out of the range the kernel gives to the local
// ends of outgoing connections.
func TestPickBelowEphemeral(t *testing.T) {
	lo, hi := portPool()
	if hi <= lo {
		t.Skip("no room below the ephemeral range here")
	}
	for i := 0; i < 20; i++ {
		p, err := Pick("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		if p < lo || p >= hi {
			t.Fatalf("port %d outside [%d, %d)", p, lo, hi)
		}
	}
}
