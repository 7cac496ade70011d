package gateway

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseTokens(t *testing.T) {
	toks := parseTokens(strings.Split("# admins\n  alpha  \n\nro:beta\nro:\n#ro:gamma\n", "\n"))
	if len(toks) != 2 || toks[0].readOnly || !toks[1].readOnly {
		t.Fatalf("tokens %+v", toks)
	}
}

func TestNewTokensWantsOne(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("# nothing yet\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, env, want string }{
		{"", "", "hold no token"},
		{file, "", "hold no token"},
		{file + ".missing", "a", "no such file"},
	} {
		if _, err := NewTokens(c.file, c.env, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewTokens(%q, %q): %v, want %q", c.file, c.env, err, c.want)
		}
	}
}

// authorize answers 401 without a token or with an unknown one, 403 for a read-only token
// that would change something, and lets the rest through.
func TestAuthorize(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("# the operators\nfile-rw\nro:file-ro\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	toks, err := NewTokens(file, "env-a, env-b ro:env-ro", nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, method, auth string
		status             int
	}{
		{"no header", "GET", "", 401},
		{"not bearer", "GET", "Basic dXNlcjpwYXNz", 401},
		{"empty bearer", "GET", "Bearer ", 401},
		{"unknown token", "GET", "Bearer nope", 401},
		{"a prefix of a token", "GET", "Bearer env-", 401},
		{"env token", "POST", "Bearer env-a", 0},
		{"second env token", "POST", "Bearer env-b", 0},
		{"file token", "POST", "bearer file-rw", 0},
		{"read-only token reads", "GET", "Bearer file-ro", 0},
		{"read-only env token reads", "HEAD", "Bearer env-ro", 0},
		{"read-only token writes", "POST", "Bearer file-ro", 403},
		{"read-only prefix is not part of the token", "GET", "Bearer ro:file-ro", 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(c.method, "/submit-job", nil)
			if c.auth != "" {
				r.Header.Set("Authorization", c.auth)
			}
			err := toks.authorize(r)
			status := 0
			if he, ok := err.(*httpError); ok {
				status = he.status
			} else if err != nil {
				t.Fatalf("not an httpError: %v", err)
			}
			if status != c.status {
				t.Fatalf("status %d (%v), want %d", status, err, c.status)
			}
		})
	}
}

// The token file is read again when it changes: a new token works at once, a removed one
// no longer does, and a removed file revokes its tokens but not the environment's.
func TestTokenFileReload(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	write := func(text string, at time.Time) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, at, at); err != nil {
			t.Fatal(err)
		}
	}
	base := time.Now().Add(-time.Hour)
	write("old\n", base)
	toks, err := NewTokens(file, "env", nil)
	if err != nil {
		t.Fatal(err)
	}
	has := func(tok string) bool { _, ok := toks.match(tok); return ok }
	if !has("old") || has("new") {
		t.Fatal("before the change")
	}
	write("new\n", base.Add(time.Minute))
	if has("old") || !has("new") || !has("env") {
		t.Fatal("after the change: old refused, new and env accepted")
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if has("new") || !has("env") {
		t.Fatal("after the file is removed: its tokens refused, env's accepted")
	}
	write("again\n", base.Add(2*time.Minute))
	if !has("again") {
		t.Fatal("the file's return is not read")
	}
}

// Each client IP has its bucket; an empty bucket answers how long until the next request.
func TestLimiter(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newLimiter(RateLimit{PerSecond: 2, Burst: 3})
	l.now = func() time.Time { return now }
	for i := range 3 {
		if ok, _ := l.allow("10.0.0.1"); !ok {
			t.Fatalf("request %d of the burst refused", i)
		}
	}
	ok, wait := l.allow("10.0.0.1")
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("past the burst: %v, wait %s", ok, wait)
	}
	if ok, _ := l.allow("10.0.0.2"); !ok {
		t.Fatal("another client shares the first one's bucket")
	}
	now = now.Add(500 * time.Millisecond)
	if ok, _ := l.allow("10.0.0.1"); !ok {
		t.Fatal("a token refilled after 0.5 s is refused")
	}
	w := httptest.NewRecorder()
	err := l.refuse(w, httptest.NewRequest("GET", "/overview", nil), 1200*time.Millisecond)
	if he := err.(*httpError); he.status != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "2" {
		t.Fatalf("refuse: %v, Retry-After %q", err, w.Header().Get("Retry-After"))
	}
}

// Past maxClients, the buckets of clients idle long enough to be full again are dropped.
func TestLimiterEvictsIdleClients(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newLimiter(RateLimit{PerSecond: 10, Burst: 10})
	l.now = func() time.Time { return now }
	for i := range maxClients {
		l.allow(strconv.Itoa(i))
	}
	n := len(l.clients)
	now = now.Add(2 * time.Second)
	l.allow("fresh")
	if len(l.clients) != 1 || n != maxClients {
		t.Fatalf("%d buckets before, %d after the sweep", n, len(l.clients))
	}
}
