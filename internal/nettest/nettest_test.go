package nettest

import (
	"net"
	"testing"
	"time"
)

func TestClosedAddrRefuses(t *testing.T) {
	if c, err := net.DialTimeout("tcp", ClosedAddr(t), time.Second); err == nil {
		c.Close()
		t.Fatal("a connection to the closed address was accepted")
	}
}

func TestSilentAddrNeverAnswers(t *testing.T) {
	c, err := net.DialTimeout("tcp", SilentAddr(t), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	var b [1]byte
	if n, err := c.Read(b[:]); n != 0 || err == nil {
		t.Fatalf("read %d bytes, %v; want a timeout", n, err)
	}
}
