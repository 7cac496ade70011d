// Package freeport picks TCP ports for servers that bind them later.
package freeport

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// Pick picks a port that is free now, for a server whose port is told to others before it
// binds it (a frontend a test hands to its clients). It is drawn below the kernel's
// ephemeral range where that leaves room: a port the kernel hands out for bind(0) may be
// given next to the local end of an outgoing connection (many of them while tests run side
// by side) in the moment between the check and the server's bind. Within that room, Pick
// and PickInternal draw from halves of their own, so that a server picking its internal
// ports as it starts never takes the port another process was just told to bind.
func Pick(ip string) (int, error) {
	lo, hi := portPool()
	return pickIn(ip, lo+(hi-lo)/2, hi)
}

// PickInternal picks a port that is free now for a server's own use, which it binds at once
// and names to no other process (the embedded Temporal's history, matching and worker
// services): the lower half of Pick's room.
func PickInternal(ip string) (int, error) {
	lo, hi := portPool()
	return pickIn(ip, lo, lo+(hi-lo)/2)
}

func pickIn(ip string, lo, hi int) (int, error) {
	if hi > lo {
		for i := 0; i < 64; i++ {
			p := lo + rand.IntN(hi-lo)
			if l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(p))); err == nil {
				l.Close()
				return p, nil
			}
		}
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// portPool is the room Pick and PickInternal share: from 10000 up to the start of the ephemeral
// range, or nothing when that range is unknown or starts too low.
func portPool() (lo, hi int) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, 0
	}
	low, err := strconv.Atoi(f[0])
	if err != nil || low < 12000 {
		return 0, 0
	}
	return 10000, low
}
