//go:build !noembed

package devserver

import (
	"net"
	"strings"
	"testing"
)

// TestTakenFrontendPort: a frontend port that is taken is an error naming it, not a crash
// of the process (Temporal's services panic in goroutines of their own on a taken port).
func TestTakenFrontendPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	_, err = Start(Options{Port: port})
	if err == nil || !strings.Contains(err.Error(), "frontend port") || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("error %v", err)
	}
}
