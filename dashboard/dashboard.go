// Package dashboard is Strait's job dashboard: the browser pages the gateway serves under
// /ui/ (the job list, a job's live DAG, checkpoints and restarts, the cluster's runners). The
// pages are built from dashboard/web by `make ui` (esbuild bundles the scripts with dagre,
// which lays the graph out) into dist/, which is embedded in the binary: nothing is fetched
// at run time. The pages hold no data; they read it from the gateway's REST API with the
// user's bearer token.
package dashboard

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed all:dist
var dist embed.FS

// Prefix is where the gateway serves the dashboard.
const Prefix = "/ui/"

// csp keeps the pages to their own scripts and to the gateway they came from.
const csp = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// Built reports whether the binary holds the dashboard's pages (built by `make ui`).
func Built() bool {
	_, err := fs.Stat(dist, "dist/index.html")
	return err == nil
}

// Handler serves the dashboard's files for paths under Prefix.
func Handler() http.Handler {
	files, _ := fs.Sub(dist, "dist")
	etags := map[string]string{}
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		if b, err := fs.ReadFile(files, p); err == nil {
			sum := sha256.Sum256(b)
			etags[p] = `"` + hex.EncodeToString(sum[:8]) + `"`
		}
		return nil
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(r.URL.Path, Prefix)), "/")
		if name == "" || name == "." {
			name = "index.html"
		}
		tag, ok := etags[name]
		if !ok {
			if !Built() {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = w.Write([]byte("The dashboard's pages are not in this binary: build it with `make build` (which runs `make ui`).\n"))
				return
			}
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", tag)
		if r.Header.Get("If-None-Match") == tag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		b, err := fs.ReadFile(files, name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		switch path.Ext(name) {
		case ".html":
			h.Set("Content-Type", "text/html; charset=utf-8")
		case ".js":
			h.Set("Content-Type", "text/javascript; charset=utf-8")
		case ".css":
			h.Set("Content-Type", "text/css; charset=utf-8")
		default:
			h.Set("Content-Type", http.DetectContentType(b))
		}
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(b)
	})
}
