package gateway

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// The ring keeps INFO and above whatever the output shows, the newest n lines, each with
// the job it names.
func TestLogRing(t *testing.T) {
	var out bytes.Buffer
	ring := newLogRing(3)
	log := slog.New(&ringHandler{inner: slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn}), ring: ring})
	log.Debug("not kept")
	log.Info("gateway: job submitted", "job", int64(11), "name", "a b")
	log.With("job", 12).WithGroup("req").Warn("gateway: config warning", "warning", "x")
	log.Info("gateway: request refused", "status", 400)
	log.Error("gateway: request failed", "job", "11")
	lines := ring.snapshot(func(logLine) bool { return true })
	if len(lines) != 3 {
		t.Fatalf("%d lines kept, want 3: %+v", len(lines), lines)
	}
	if lines[0].job != 12 || !strings.Contains(lines[0].text, "WARN gateway: config warning job=12 req.warning=x") {
		t.Fatalf("first line %+v", lines[0])
	}
	if lines[1].job != 0 || lines[2].job != 11 {
		t.Fatalf("jobs %d %d", lines[1].job, lines[2].job)
	}
	if strings.Contains(out.String(), "submitted") || !strings.Contains(out.String(), "config warning") {
		t.Fatalf("the output handler's level is not kept:\n%s", out.String())
	}
}

func TestLogText(t *testing.T) {
	g := &gateway{ring: newLogRing(10)}
	log := slog.New(&ringHandler{inner: slog.DiscardHandler, ring: g.ring})
	log.Info("one", "job", 5)
	log.Info("two")
	log.Info("three", "job", 7)
	if names := g.logNames(); strings.Join(names, ",") != "strait-gateway.log,job-5.log,job-7.log" {
		t.Fatalf("names %v", names)
	}
	cases := []struct {
		name  string
		found bool
		lines int
	}{
		{"strait-gateway.log", true, 3}, {"job-5.log", true, 1}, {"job-6.log", false, 0},
		{"job-x.log", false, 0}, {"job-5", false, 0}, {"other.log", false, 0},
	}
	for _, c := range cases {
		text, found := g.logText(c.name)
		if found != c.found || strings.Count(text, "\n") != c.lines {
			t.Errorf("%s: found %v, %q", c.name, found, text)
		}
	}
}

func TestParseGoroutine(t *testing.T) {
	block := "goroutine 42 [select, 2 minutes]:\n" +
		"net/http.(*conn).readRequest(0xc000123, {0x1, 0x2})\n\t/usr/lib/go/src/net/http/server.go:1000 +0x1f\n" +
		"net/http.(*conn).serve(0xc000123)\n\t/usr/lib/go/src/net/http/server.go:2000 +0x5a\n" +
		"created by net/http.(*Server).Serve in goroutine 1\n\t/usr/lib/go/src/net/http/server.go:3000 +0x4d"
	gr, ok := parseGoroutine(block)
	want := Goroutine{ThreadName: "goroutine 42 net/http.(*conn).serve", ThreadID: 42, ThreadState: "WAITING", GoState: "select, 2 minutes",
		StackTrace: "net/http.(*conn).readRequest(/usr/lib/go/src/net/http/server.go:1000)\nnet/http.(*conn).serve(/usr/lib/go/src/net/http/server.go:2000)"}
	if !ok || gr != want {
		t.Fatalf("got %+v\nwant %+v", gr, want)
	}
	if _, ok := parseGoroutine("not a goroutine"); ok {
		t.Fatal("a block that is no goroutine parsed")
	}
	for state, java := range map[string]string{"running": "RUNNABLE", "syscall, 3 minutes": "RUNNABLE", "sleep": "TIMED_WAITING",
		"sync.Mutex.Lock": "BLOCKED", "chan receive": "WAITING", "IO wait": "WAITING"} {
		if got := javaState(state); got != java {
			t.Errorf("javaState(%q) = %s, want %s", state, got, java)
		}
	}
	if p := packageOf("net/http.(*conn).serve"); p != "net/http" {
		t.Errorf("packageOf: %s", p)
	}
	if p := packageOf("main.main"); p != "main" {
		t.Errorf("packageOf: %s", p)
	}
}

// The dump of this process holds this test's goroutine.
func TestGoroutinesOfThisProcess(t *testing.T) {
	found := false
	for _, gr := range goroutines() {
		found = found || strings.Contains(gr.StackTrace, "TestGoroutinesOfThisProcess")
		if gr.ThreadID <= 0 || gr.ThreadState == "" {
			t.Fatalf("goroutine %+v", gr)
		}
	}
	if !found {
		t.Fatal("this test's goroutine is not in the dump")
	}
}

func TestUnit(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 1000: "1000", 1025: "1.0K", 16 << 30: "16.0G", 135<<20 + 700<<10: "135.7M"} {
		if got := unit(n); got != want {
			t.Errorf("unit(%d) = %s, want %s", n, got, want)
		}
	}
	if p := percent(1, 4); p != "25.00%" {
		t.Errorf("percent %s", p)
	}
}

// encrypt-config encodes the top-level sensitive options of sources and sinks with
// base64, keeping everything else and the key order.
func TestEncryptConfig(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	cases := []struct {
		name, in, want, err string
	}{
		{"base64", `{"env": {"parallelism": 1, "shade.identifier": "base64"},
 "source": [{"plugin_name": "MySQL-CDC", "username": "seatunnel", "password": "seatunnel_password", "port": 3306, "nested": {"password": "x"}}],
 "transform": [],
 "sink": [{"plugin_name": "Jdbc", "token": 12345, "auth": true, "user": "u"}]}`,
			`{"env":{"parallelism":1,"shade.identifier":"base64"},"source":[{"plugin_name":"MySQL-CDC","username":"` + b64("seatunnel") +
				`","password":"` + b64("seatunnel_password") + `","port":3306,"nested":{"password":"x"}}],"transform":[],"sink":[{"plugin_name":"Jdbc","token":"` +
				b64("12345") + `","auth":"` + b64("true") + `","user":"u"}]}`, ""},
		{"nested identifier", `{"env": {"shade": {"identifier": "BASE64"}}, "source": [{"password": "p"}], "sink": [{"plugin_name": "Console"}]}`,
			`{"env":{"shade":{"identifier":"BASE64"}},"source":[{"password":"` + b64("p") + `"}],"sink":[{"plugin_name":"Console"}]}`, ""},
		{"no shade", `{"env": {}, "source": [{"password": "p"}], "sink": [{"password": "q"}]}`,
			`{"env":{},"source":[{"password":"p"}],"sink":[{"password":"q"}]}`, ""},
		{"unknown shade", `{"env": {"shade.identifier": "aes"}, "source": [{}], "sink": [{}]}`, "", `unknown config shade "aes"`},
		{"no source", `{"env": {"shade.identifier": "base64"}, "sink": [{}]}`, "", "Miss <Source> config!"},
		{"no sink", `{"source": [{}], "sink": []}`, "", "Miss <Sink> config!"},
		{"not an object", `[1]`, "", "a job config is a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseOrdered([]byte(c.in))
			if err == nil {
				err = encryptConfig(cfg)
			}
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(cfg)
			if err != nil || string(got) != c.want {
				t.Fatalf("got  %s (%v)\nwant %s", got, err, c.want)
			}
		})
	}
}
