package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/internal/nettest"
)

func TestProbeHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.Error(w, "no", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name, url, want string
	}{
		{"answers", srv.URL + "/metrics", ""},
		{"answers 503", srv.URL + "/other", "HTTP 503"},
		{"refused", "http://" + nettest.ClosedAddr(t) + "/metrics", "connection refused"},
		{"bad url", "::", "--url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := probeHTTP(ctx, tc.url)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestParseRetention(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"7d", 7 * 24 * time.Hour, false},
		{"72h", 72 * time.Hour, false},
		{"30d", 30 * 24 * time.Hour, false},
		{"0d", 0, true},
		{"xd", 0, true},
		{"week", 0, true},
	} {
		got, err := parseRetention(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("parseRetention(%q) = %s, %v; want %s, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}
