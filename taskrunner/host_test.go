package taskrunner

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/contract"
)

func TestCPUTimes(t *testing.T) {
	cases := []struct {
		name        string
		stat        string
		idle, total uint64
		ok          bool
	}{
		{"all fields", "cpu  10 2 30 400 50 6 7 8 0 0\ncpu0 1 1 1 1 1 1 1 1 0 0\n", 450, 513, true},
		{"four fields, no iowait", "cpu 10 20 30 40\n", 40, 100, true},
		{"too few fields", "cpu 10 20 30\n", 0, 0, false},
		{"idle and iowait only", "cpu 0 0 0 5 5\n", 10, 10, true},
		{"not the cpu line", "intr 1 2 3 4 5\n", 0, 0, false},
		{"a field that is no number", "cpu 1 2 x 4 5\n", 0, 0, false},
		{"empty", "", 0, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			idle, total, ok := cpuTimes(strings.NewReader(c.stat))
			if idle != c.idle || total != c.total || ok != c.ok {
				t.Fatalf("got idle %d total %d ok %v, want %d %d %v", idle, total, ok, c.idle, c.total, c.ok)
			}
		})
	}
}

func TestMemoryFraction(t *testing.T) {
	cases := []struct {
		name    string
		meminfo string
		want    float64
	}{
		{"a quarter in use", "MemTotal:  1000 kB\nMemFree: 100 kB\nMemAvailable:  750 kB\n", 0.25},
		{"no total", "MemAvailable: 750 kB\n", 0},
		{"nothing available", "MemTotal: 1000 kB\n", 1},
		{"a broken line is skipped", "MemTotal: 1000 kB\nMemAvailable: x kB\nMemAvailable: 500 kB\n", 0.5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := memoryFraction(strings.NewReader(c.meminfo)); got != c.want {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestAdvertisedAddress(t *testing.T) {
	host, err := os.Hostname()
	if err != nil || host == "" {
		t.Fatalf("no host name: %v", err)
	}
	cases := []struct {
		listen, advertise, want string
	}{
		{"127.0.0.1:7000", "", "127.0.0.1:7000"},
		{"127.0.0.1:7000", "runner-a:9000", "runner-a:9000"},
		{":7000", "", host + ":7000"},
		{"0.0.0.0:7000", "", host + ":7000"},
		{"[::]:7000", "", host + ":7000"},
		{"not an address", "", "not an address"},
	}
	for _, c := range cases {
		if got := AdvertisedAddress(c.listen, c.advertise); got != c.want {
			t.Errorf("AdvertisedAddress(%q, %q) = %q, want %q", c.listen, c.advertise, got, c.want)
		}
	}
}

// A runner reports its load at every interval, and a report that fails does not stop the
// next.
func TestReportLoad(t *testing.T) {
	r := New(Config{ID: "r1", Slots: 2, Tags: map[string]string{"zone": "a"}, Address: "h:1"}, nil)
	defer r.Close()
	if info := r.Info(); info.ID != "r1" || info.TaskQueue != contract.RunnerQueue("r1") || info.Slots != 2 ||
		info.Tags["zone"] != "a" || info.Address != "h:1" {
		t.Fatalf("info %+v", info)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	loads := make(chan contract.Load, 16)
	sent := 0
	go r.ReportLoad(ctx, 10*time.Millisecond, func(_ context.Context, l contract.Load) error {
		sent++
		loads <- l
		if sent == 1 {
			return errors.New("Temporal unavailable")
		}
		return nil
	})
	for range 2 {
		select {
		case l := <-loads:
			if l.At.IsZero() || l.CPU < 0 || l.CPU > 1 || l.Memory < 0 || l.Memory > 1 {
				t.Fatalf("load %+v", l)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no load report")
		}
	}
}
