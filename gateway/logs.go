package gateway

import (
	"context"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// DefaultLogLines is how many of its own log lines the gateway keeps for /logs and /log.
const DefaultLogLines = 4096

// gatewayLog is the name under which /logs and /log serve every line the gateway kept;
// job-<id>.log holds the lines about one job.
const gatewayLog = "strait-gateway.log"

// WithLogLines sets how many log lines the gateway keeps (default DefaultLogLines).
func WithLogLines(n int) Option {
	return func(g *gateway) {
		if n > 0 {
			g.logLines = n
		}
	}
}

// logLine is one kept line and the job it is about (0: none).
type logLine struct {
	job  int64
	text string
}

// logRing keeps the last lines the gateway logged at INFO or above, whatever level its
// output handler shows.
type logRing struct {
	mu    sync.Mutex
	lines []logLine
	next  int
	full  bool
}

func newLogRing(n int) *logRing { return &logRing{lines: make([]logLine, n)} }

func (r *logRing) add(l logLine) {
	r.mu.Lock()
	r.lines[r.next] = l
	r.next = (r.next + 1) % len(r.lines)
	r.full = r.full || r.next == 0
	r.mu.Unlock()
}

// snapshot returns the kept lines, oldest first, that keep says to.
func (r *logRing) snapshot(keep func(logLine) bool) []logLine {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []logLine
	visit := func(ls []logLine) {
		for _, l := range ls {
			if keep(l) {
				out = append(out, l)
			}
		}
	}
	if r.full {
		visit(r.lines[r.next:])
	}
	visit(r.lines[:r.next])
	return out
}

// ringHandler hands each record to the gateway's output handler and keeps INFO and above
// in the ring, as text lines.
type ringHandler struct {
	inner  slog.Handler
	ring   *logRing
	attrs  []slog.Attr
	prefix string // the groups opened, dotted
}

func (h *ringHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelInfo || h.inner.Enabled(ctx, l)
}

func (h *ringHandler) Handle(ctx context.Context, rec slog.Record) error {
	if rec.Level >= slog.LevelInfo {
		h.ring.add(h.line(rec))
	}
	if h.inner.Enabled(ctx, rec.Level) {
		return h.inner.Handle(ctx, rec)
	}
	return nil
}

func (h *ringHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.inner = h.inner.WithAttrs(as)
	c.attrs = slices.Clip(h.attrs)
	for _, a := range as {
		a.Key = h.prefix + a.Key
		c.attrs = append(c.attrs, a)
	}
	return &c
}

func (h *ringHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.inner = h.inner.WithGroup(name)
	c.prefix = h.prefix + name + "."
	return &c
}

// line renders a record as `2006-01-02 15:04:05.000 INFO message key=value ...` and finds
// the job it is about (its "job" attribute).
func (h *ringHandler) line(rec slog.Record) logLine {
	var b strings.Builder
	b.WriteString(rec.Time.Format("2006-01-02 15:04:05.000"))
	b.WriteByte(' ')
	b.WriteString(rec.Level.String())
	b.WriteByte(' ')
	b.WriteString(rec.Message)
	l := logLine{}
	put := func(a slog.Attr) {
		if a.Key == "job" && l.job == 0 {
			l.job, _ = strconv.ParseInt(a.Value.String(), 10, 64)
		}
		fmt.Fprintf(&b, " %s=%s", a.Key, quoteIfNeeded(a.Value.String()))
	}
	for _, a := range h.attrs {
		put(a)
	}
	rec.Attrs(func(a slog.Attr) bool {
		a.Key = h.prefix + a.Key
		put(a)
		return true
	})
	l.text = b.String()
	return l
}

func quoteIfNeeded(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\"=") {
		return strconv.Quote(s)
	}
	return s
}

// LogLink is one log as SeaTunnel's /logs?format=json lists it.
type LogLink struct {
	Node    string `json:"node"`
	LogLink string `json:"logLink"`
	LogName string `json:"logName"`
}

// logNames are the logs kept: the gateway's, then one per job with lines, newest job last.
func (g *gateway) logNames() []string {
	seen := map[int64]bool{}
	names := []string{gatewayLog}
	for _, l := range g.ring.snapshot(func(l logLine) bool { return l.job != 0 }) {
		if !seen[l.job] {
			seen[l.job] = true
			names = append(names, jobLogName(l.job))
		}
	}
	return names
}

func jobLogName(id int64) string { return fmt.Sprintf("job-%d.log", id) }

// logText is a log's content, false when there is no such log.
func (g *gateway) logText(name string) (string, bool) {
	keep := func(logLine) bool { return true }
	if name != gatewayLog {
		idText, ok := strings.CutPrefix(strings.TrimSuffix(name, ".log"), "job-")
		id, err := strconv.ParseInt(idText, 10, 64)
		if !ok || err != nil || !strings.HasSuffix(name, ".log") {
			return "", false
		}
		keep = func(l logLine) bool { return l.job == id }
	}
	lines := g.ring.snapshot(keep)
	if len(lines) == 0 && name != gatewayLog {
		return "", false
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return b.String(), true
}

// base is the scheme, host and API prefix (v2's none, v1's /hazelcast/rest/maps) the
// request came by, for links back to the gateway.
func base(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	prefix := ""
	if strings.HasPrefix(r.URL.Path, v1Prefix+"/") {
		prefix = v1Prefix
	}
	return scheme + "://" + r.Host + prefix
}

// logs answers /logs and /logs/{param}: the list of logs (html, or json with
// ?format=json), only a job's with a job id, or a log's content when param names one.
func (g *gateway) logs(w http.ResponseWriter, r *http.Request) error {
	param := strings.Trim(r.PathValue("param"), "/")
	if strings.Contains(param, ".log") {
		return g.serveLog(w, param)
	}
	var list []LogLink
	for _, n := range g.logNames() {
		if param != "" && !strings.Contains(n, param) {
			continue
		}
		list = append(list, LogLink{Node: r.Host, LogLink: base(r) + "/logs/" + n, LogName: n})
	}
	switch f := strings.ToLower(r.URL.Query().Get("format")); f {
	case "json":
		if list == nil {
			list = []LogLink{}
		}
		return ok(w, list)
	case "", "html":
		var links strings.Builder
		for _, l := range list {
			links.WriteString(logLinkHTML(l.LogLink, l.Node+"-"+l.LogName))
		}
		return writeHTML(w, links.String())
	default:
		return badRequest("format %q: expected json or html", f)
	}
}

// nodeLog answers /log and /log/{name}: the gateway's own logs as an html list, or one's
// content.
func (g *gateway) nodeLog(w http.ResponseWriter, r *http.Request) error {
	if name := strings.Trim(r.PathValue("name"), "/"); name != "" {
		return g.serveLog(w, name)
	}
	var links strings.Builder
	for _, n := range g.logNames() {
		links.WriteString(logLinkHTML("log/"+n, n))
	}
	return writeHTML(w, links.String())
}

// allLogNames answers /get-all-log-name: the names of the logs kept.
func (g *gateway) allLogNames(w http.ResponseWriter, _ *http.Request) error {
	return ok(w, g.logNames())
}

func (g *gateway) serveLog(w http.ResponseWriter, name string) error {
	text, found := g.logText(name)
	if !found {
		return badRequest("no log named %q: the gateway keeps %s and job-<id>.log for the jobs its kept lines name", name, gatewayLog)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(text))
	return nil
}

func logLinkHTML(href, name string) string {
	return "<li><a href=\"" + html.EscapeString(href) + "\">" + html.EscapeString(name) + "</a></li>\n"
}

// writeHTML answers SeaTunnel's log page around the links.
func writeHTML(w http.ResponseWriter, links string) error {
	w.Header().Set("Content-Type", "text/html; charset=UTF-8")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprintf(w, "<html><head><title>Seatunnel log</title></head>\n<body>\n <h2>Seatunnel log</h2>\n <ul>\n%s </ul>\n</body></html>", links)
	return nil
}
