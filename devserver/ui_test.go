//go:build !noembed

package devserver

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/strait-dev/strait/internal/freeport"
)

// TestWebUI starts the embedded server with the Web UI and asks the UI for the page and for
// the namespace's workflows, which it reads from the server.
func TestWebUI(t *testing.T) {
	port, err := freeport.Pick("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	s, err := Start(Options{UI: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if s.UI() != addr {
		t.Fatalf("UI() = %q, want %q", s.UI(), addr)
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/"); code != http.StatusOK || !strings.Contains(strings.ToLower(body), "<html") {
		t.Fatalf("GET /: %d %.200s", code, body)
	}
	if code, body := get("/api/v1/namespaces/default/workflows"); code != http.StatusOK {
		t.Fatalf("GET workflows: %d %.300s", code, body)
	}
	// a busy port is an error at start, not a UI that never comes up
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if _, err := Start(Options{UI: busy.Addr().String()}); err == nil || !strings.Contains(err.Error(), "web ui") {
		t.Fatalf("busy port: %v", err)
	}
}
