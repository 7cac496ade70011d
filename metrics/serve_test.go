package metrics_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/strait-dev/strait/metrics"
)

// TestServeOrFallsBackWhenTheAddressIsTaken: strait dev's default port held by another
// process sends /metrics to the fallback; without a fallback the address in use is an error.
func TestServeOrFallsBackWhenTheAddressIsTaken(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg := metrics.NewRegistry()
	if _, err := metrics.ServeOr(ctx, held.Addr().String(), "", reg, log); err == nil {
		t.Fatal("an address in use without a fallback was served")
	}
	addr, err := metrics.ServeOr(ctx, held.Addr().String(), "127.0.0.1:0", reg, log)
	if err != nil {
		t.Fatal(err)
	}
	if addr == held.Addr().String() {
		t.Fatalf("served on the taken address %s", addr)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "go_goroutines") {
		t.Fatalf("GET /metrics on the fallback: %d\n%.200s", resp.StatusCode, body)
	}
}
