package dashboard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The pages are served with their types, a strict content security policy and an ETag; the
// binary must hold them (make ui builds them before every build and test).
func TestHandler(t *testing.T) {
	if !Built() {
		t.Fatal("dashboard/dist holds no pages: run `make ui` (make build and make test do)")
	}
	h := Handler()
	get := func(path, etag string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	for path, typ := range map[string]string{"/ui/": "text/html", "/ui/index.html": "text/html", "/ui/app.js": "text/javascript", "/ui/style.css": "text/css", "/ui/theme.js": "text/javascript"} {
		w := get(path, "")
		if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), typ) || w.Body.Len() == 0 {
			t.Errorf("%s: %d %q %d bytes", path, w.Code, w.Header().Get("Content-Type"), w.Body.Len())
		}
		if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if again := get(path, w.Header().Get("ETag")); again.Code != http.StatusNotModified {
			t.Errorf("%s with its ETag: %d", path, again.Code)
		}
	}
	if w := get("/ui/index.html", ""); !strings.Contains(w.Body.String(), `src="app.js"`) {
		t.Errorf("index.html loads no app.js:\n%s", w.Body.String())
	}
	for _, path := range []string{"/ui/nothing.js", "/ui/../go.mod", "/ui/.gitkeep/x"} {
		if w := get(path, ""); w.Code != http.StatusNotFound {
			t.Errorf("%s: %d", path, w.Code)
		}
	}
}
