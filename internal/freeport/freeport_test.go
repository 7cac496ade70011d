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

// TestPickAndPickInternalApart: the ports servers pick for themselves and the ports callers
// are told to bind come from halves that do not meet.
func TestPickAndPickInternalApart(t *testing.T) {
	lo, hi := portPool()
	if hi <= lo {
		t.Skip("no room below the ephemeral range here")
	}
	mid := lo + (hi-lo)/2
	for i := 0; i < 20; i++ {
		p, err := Pick("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		q, err := PickInternal("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		if p < mid || p >= hi || q < lo || q >= mid {
			t.Fatalf("Pick %d, PickInternal %d: want [%d, %d) and [%d, %d)", p, q, mid, hi, lo, mid)
		}
	}
}
