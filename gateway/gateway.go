// Package gateway is Strait's HTTP submit gateway: SeaTunnel's REST API v2 (submit-job,
// stop-job, job-info, running-jobs, finished-jobs, overview ...) on top of Temporal, so
// SeaTunnel users' REST clients work unchanged. It only talks to Temporal through the
// client: every job is the JobWorkflow `strait-job-<id>`.
package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/strait-dev/strait/dashboard"
	"github.com/strait-dev/strait/secret"

	// the gateway checks a config with the planner before submitting it, as `strait job
	// submit` does, so it knows every plugin
	_ "github.com/strait-dev/strait/connectors/all"
	_ "github.com/strait-dev/strait/transform/all"
)

// DefaultTimeout bounds one request's work against Temporal.
const DefaultTimeout = 30 * time.Second

// DefaultMaxBody bounds a request body: Temporal's default payload limit (the server's
// limit.blobSize.error, 2 MiB). A job config is the job workflow's input, so a larger one
// could not be submitted anyway.
const DefaultMaxBody = 2 << 20

// Option configures the gateway.
type Option func(*gateway)

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(g *gateway) { g.log = l } }

// WithTimeout bounds each request's work (default DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(g *gateway) { g.timeout = d } }

// WithVersion is the version /overview reports as projectVersion.
func WithVersion(v string) Option { return func(g *gateway) { g.version = v } }

// WithTemporalUI is the base address of the Temporal Web UI (http://host:8233), which the
// dashboard links each job's workflow to.
func WithTemporalUI(base string) Option { return func(g *gateway) { g.temporalUI = base } }

// WithTokens makes every request but /openapi.json carry one of the bearer tokens.
func WithTokens(t *Tokens) Option { return func(g *gateway) { g.tokens = t } }

// WithRateLimit limits the requests of each client IP address (off by default).
func WithRateLimit(l RateLimit) Option {
	return func(g *gateway) {
		if l.PerSecond > 0 {
			g.limiter = newLimiter(l)
		}
	}
}

// WithMaxBody bounds a request body (default DefaultMaxBody); a larger one answers 413.
func WithMaxBody(n int64) Option {
	return func(g *gateway) {
		if n > 0 {
			g.maxBody = n
		}
	}
}

type gateway struct {
	c         client.Client
	namespace string
	log       *slog.Logger
	timeout   time.Duration
	version   string
	commit    string
	tokens    *Tokens  // nil: no authentication
	limiter   *limiter // nil: no rate limit
	maxBody   int64
	logLines  int
	ring      *logRing // the gateway's last log lines, for /logs and /log
	mon       *monitor
	// temporalUI is where the Temporal Web UI is served (the dashboard links each job's
	// workflow there); scraper and rates give the dashboard its live numbers.
	temporalUI string
	scraper    *scraper
	rates      *rates

	mu       sync.Mutex
	metas    map[string]*jobMeta // by run id: a job's input and plan
	finished map[string]*JobInfo // by run id: closed runs never change
}

// New returns the gateway's handler: SeaTunnel's REST API v2 paths, answered from
// Temporal in namespace.
func New(c client.Client, namespace string, opts ...Option) http.Handler {
	g := &gateway{c: c, namespace: namespace, log: slog.Default(), timeout: DefaultTimeout, version: "dev",
		commit: buildCommit(), maxBody: DefaultMaxBody, logLines: DefaultLogLines, mon: newMonitor(), scraper: newScraper(), rates: newRates(), metas: map[string]*jobMeta{}, finished: map[string]*JobInfo{}}
	if g.namespace == "" {
		g.namespace = "default"
	}
	for _, o := range opts {
		o(g)
	}
	g.ring = newLogRing(g.logLines)
	// secrets are masked before a line is kept for /logs or written out
	g.log = slog.New(secret.NewHandler(&ringHandler{inner: g.log.Handler(), ring: g.ring}))
	mux := http.NewServeMux()
	routes := g.routes()
	// known paths under any method, to tell a wrong method from an unknown path
	paths := http.NewServeMux()
	for _, r := range routes {
		mux.Handle(r.pattern, g.wrap(r.h))
		_, path, _ := strings.Cut(r.pattern, " ")
		paths.Handle(path, http.NotFoundHandler())
	}
	mux.Handle("/", g.wrap(func(w http.ResponseWriter, r *http.Request) error {
		if r.Method == http.MethodGet && (r.URL.Path == "/" || r.URL.Path == "/ui") {
			http.Redirect(w, r, dashboard.Prefix, http.StatusFound) // a browser's way in
			return nil
		}
		if _, p := paths.Handler(r); p != "" {
			return &httpError{status: http.StatusMethodNotAllowed, msg: fmt.Sprintf("%s is not allowed on %s", r.Method, r.URL.Path)}
		}
		return &httpError{status: http.StatusNotFound, msg: fmt.Sprintf("no such endpoint: %s %s", r.Method, r.URL.Path)}
	}))
	return g.guard(mux)
}

// v1Prefix is where SeaTunnel's REST API v1 served the same paths (Hazelcast's REST
// port); every v2 path is also served under it.
const v1Prefix = "/hazelcast/rest/maps"

// route is one endpoint: a ServeMux pattern and its handler.
type route struct {
	pattern string
	h       func(http.ResponseWriter, *http.Request) error
}

// routes are every endpoint the gateway serves: SeaTunnel's REST API v2, the same under
// v1's prefix, and the API's description.
func (g *gateway) routes() []route {
	v2 := []route{
		{"POST /submit-job", g.submitJob},
		{"POST /submit-jobs", g.submitJobs},
		{"POST /stop-job", g.stopJob},
		{"POST /stop-jobs", g.stopJobs},
		{"GET /job-info/{jobId}", g.jobInfo},
		{"GET /job-info/{$}", noJobID},
		{"GET /job-info", noJobID},
		{"GET /running-job/{jobId}", g.jobInfo},
		{"GET /running-job/{$}", noJobID},
		{"GET /running-job", noJobID},
		{"GET /running-jobs", g.runningJobs},
		{"GET /finished-jobs/{state}", g.finishedJobs},
		{"GET /finished-jobs/{$}", g.finishedJobs},
		{"GET /finished-jobs", g.finishedJobs},
		{"GET /overview", g.overview},
		{"GET /system-monitoring-information", g.systemInfo},
		{"POST /encrypt-config", g.encryptConfigHandler},
		{"POST /update-tags", g.updateTags},
		{"GET /logs", g.logs},
		{"GET /logs/{param}", g.logs},
		{"GET /log", g.nodeLog},
		{"GET /log/{name}", g.nodeLog},
		{"GET /get-all-log-name", g.allLogNames},
		{"GET /thread-dump", g.threadDump},
		{"GET /running-threads", g.runningThreads},
	}
	out := make([]route, 0, 2*len(v2)+1)
	out = append(out, v2...)
	for _, r := range v2 {
		method, path, _ := strings.Cut(r.pattern, " ")
		out = append(out, route{method + " " + v1Prefix + path, r.h})
	}
	ui := dashboard.Handler()
	return append(out,
		route{"GET /openapi.json", g.openAPI},
		// the dashboard's own, for what SeaTunnel's API has no shape for
		route{"GET /job-graph/{jobId}", g.jobGraph},
		route{"GET /job-config/{jobId}", g.jobConfig},
		route{"GET /runners", g.runners},
		route{"GET /ui-settings", g.uiSettings},
		// the dashboard's pages, which hold no data: every number they show comes from the
		// endpoints above, with the same tokens
		route{"GET " + dashboard.Prefix, func(w http.ResponseWriter, r *http.Request) error {
			ui.ServeHTTP(w, r)
			return nil
		}},
	)
}

// UISettings are what the dashboard needs to know of the gateway: where the Temporal Web
// UI is, the namespace, the version.
type UISettings struct {
	TemporalUI string `json:"temporalUI"`
	Namespace  string `json:"namespace"`
	Version    string `json:"version"`
}

func (g *gateway) uiSettings(w http.ResponseWriter, _ *http.Request) error {
	return ok(w, UISettings{TemporalUI: strings.TrimRight(g.temporalUI, "/"), Namespace: g.namespace, Version: g.version})
}

// guard answers what comes before any endpoint: the client's rate, then its token.
func (g *gateway) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.limiter != nil {
			if ok, wait := g.limiter.allow(clientIP(r)); !ok {
				g.fail(w, r, g.limiter.refuse(w, r, wait))
				return
			}
		}
		if g.tokens != nil && !open(r) {
			if err := g.tokens.authorize(r); err != nil {
				if err.(*httpError).status == http.StatusUnauthorized {
					w.Header().Set("WWW-Authenticate", `Bearer realm="strait"`)
				}
				g.fail(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// open reports the requests served without a token: the API's description and the
// dashboard's pages (and the redirects to them), which say nothing of the cluster or its
// jobs.
func open(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p := r.URL.Path
	return p == "/openapi.json" || p == "/" || p == "/ui" || strings.HasPrefix(p, dashboard.Prefix)
}

// httpError is an answer other than 200: SeaTunnel's {"status":"fail","message":...}.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// errResponse is SeaTunnel's error body.
type errResponse struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// wrap gives a handler its deadline, turns its error into SeaTunnel's error shape and
// keeps a panic from reaching the server.
func (g *gateway) wrap(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), g.timeout)
		defer cancel()
		r = r.WithContext(ctx)
		defer func() {
			if p := recover(); p != nil {
				g.log.Error("gateway: request panicked", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
				writeJSON(w, http.StatusInternalServerError, errResponse{Status: "fail", Message: fmt.Sprintf("internal error: %v", p)})
			}
		}()
		if err := h(w, r); err != nil {
			g.fail(w, r, err)
		}
	})
}

// fail answers an error in SeaTunnel's shape, logging it by its status.
func (g *gateway) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusInternalServerError
	var he *httpError
	if errors.As(err, &he) {
		status = he.status
	}
	if status >= 500 && status != http.StatusNotImplemented {
		g.log.Error("gateway: request failed", "method", r.Method, "path", r.URL.Path, "error", err)
	} else {
		g.log.Info("gateway: request refused", "method", r.Method, "path", r.URL.Path, "client", clientIP(r), "status", status, "error", err)
	}
	writeJSON(w, status, errResponse{Status: "fail", Message: err.Error()})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func ok(w http.ResponseWriter, v any) error {
	writeJSON(w, http.StatusOK, v)
	return nil
}

func noJobID(http.ResponseWriter, *http.Request) error {
	return badRequest("The jobId must not be empty.")
}

// buildCommit is the short VCS revision the binary was built from, "unknown" without one.
func buildCommit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value[:min(len(s.Value), 7)]
			}
		}
	}
	return "unknown"
}
