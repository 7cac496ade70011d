// Package metrics serves Prometheus metrics for a Strait process: the Go runtime and
// process, each runner's task and slot metrics, and the Temporal SDK's own metrics through
// an adapter of the SDK's metrics handler.
package metrics

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	sdkclient "go.temporal.io/sdk/client"
)

// NewRegistry returns a registry with the Go runtime and process collectors.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// ServeOr serves /metrics on addr, or on fallback when addr is in use ("" for none), until
// ctx ends. It returns the address it listens on.
func ServeOr(ctx context.Context, addr, fallback string, reg *prometheus.Registry, log *slog.Logger) (string, error) {
	got, err := Serve(ctx, addr, reg, log)
	if err != nil && fallback != "" && errors.Is(err, syscall.EADDRINUSE) {
		log.Info("metrics address in use, serving on another", "address", addr, "fallback", fallback)
		return Serve(ctx, fallback, reg, log)
	}
	return got, err
}

// Serve serves /metrics on addr until ctx ends. It returns the address it listens on.
func Serve(ctx context.Context, addr string, reg *prometheus.Registry, log *slog.Logger) (string, error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "error", err)
		}
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	return lis.Addr().String(), nil
}

// TemporalHandler adapts the Temporal SDK's metrics to a Prometheus registry. The SDK names
// metrics and tags freely; each (name, tag keys) pair becomes one Prometheus vector.
type TemporalHandler struct {
	reg  *prometheus.Registry
	tags map[string]string
	vecs *vecs
	// ckpts keeps the Strait series recorded through the handler (names starting strait_).
	ckpts *Checkpoints
}

type vecs struct {
	mu sync.Mutex
	m  map[string]prometheus.Collector
}

// NewTemporalHandler makes the adapter. It registers the Checkpoints collector that the
// Strait series recorded through it go to.
func NewTemporalHandler(reg *prometheus.Registry) *TemporalHandler {
	ckpts := NewCheckpoints()
	if err := reg.Register(ckpts); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if c, ok := are.ExistingCollector.(*Checkpoints); ok {
				ckpts = c
			}
		}
	}
	return &TemporalHandler{reg: reg, tags: map[string]string{}, vecs: &vecs{m: map[string]prometheus.Collector{}}, ckpts: ckpts}
}

var _ sdkclient.MetricsHandler = (*TemporalHandler)(nil)

// WithTags returns a handler adding tags.
func (h *TemporalHandler) WithTags(tags map[string]string) sdkclient.MetricsHandler {
	merged := make(map[string]string, len(h.tags)+len(tags))
	for k, v := range h.tags {
		merged[k] = v
	}
	for k, v := range tags {
		merged[k] = v
	}
	return &TemporalHandler{reg: h.reg, tags: merged, vecs: h.vecs, ckpts: h.ckpts}
}

func promName(name string) string {
	return "temporal_" + strings.NewReplacer(".", "_", "-", "_").Replace(strings.TrimPrefix(name, "temporal_"))
}

func (h *TemporalHandler) labels() ([]string, []string) {
	keys := make([]string, 0, len(h.tags))
	for k := range h.tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = h.tags[k]
	}
	return keys, vals
}

func (h *TemporalHandler) vec(kind, name string, keys []string, mk func() prometheus.Collector) prometheus.Collector {
	id := kind + "|" + name + "|" + strings.Join(keys, ",")
	h.vecs.mu.Lock()
	defer h.vecs.mu.Unlock()
	if c, ok := h.vecs.m[id]; ok {
		return c
	}
	c := mk()
	if err := h.reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			c = are.ExistingCollector
		} else {
			c = nil // same name with other labels: keep the first shape, drop this one
		}
	}
	h.vecs.m[id] = c
	return c
}

// series returns the series of the handler's labels in its vector of kind and name, which
// mk makes on first use; ok is false when the name is registered with other labels or as
// another kind.
func series[V prometheus.Collector, M any](h *TemporalHandler, kind, name string, mk func(keys []string) V, with func(V, ...string) M) (m M, ok bool) {
	keys, vals := h.labels()
	v, ok := h.vec(kind, name, keys, func() prometheus.Collector { return mk(keys) }).(V)
	if !ok {
		return m, false
	}
	return with(v, vals...), true
}

// strait reports whether name is one of Strait's own series, which the handler keeps apart
// from the SDK's.
func strait(name string) bool { return strings.HasPrefix(name, "strait_") }

// Counter implements the SDK's handler.
func (h *TemporalHandler) Counter(name string) sdkclient.MetricsCounter {
	if strait(name) {
		if name != CheckpointsCompleted {
			return counterFunc(func(int64) {})
		}
		job, pipeline := h.tags["job"], h.tags["pipeline"]
		return counterFunc(func(d int64) { h.ckpts.count(job, pipeline, d) })
	}
	m, ok := series(h, "c", name, func(keys []string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: promName(name), Help: "Temporal SDK " + name}, keys)
	}, (*prometheus.CounterVec).WithLabelValues)
	if !ok {
		return counterFunc(func(int64) {})
	}
	return counterFunc(func(d int64) { m.Add(float64(d)) })
}

// Gauge implements the SDK's handler.
func (h *TemporalHandler) Gauge(name string) sdkclient.MetricsGauge {
	if strait(name) {
		if name != CheckpointLastCompleted {
			return gaugeFunc(func(float64) {})
		}
		job, pipeline := h.tags["job"], h.tags["pipeline"]
		return gaugeFunc(func(v float64) { h.ckpts.setLast(job, pipeline, time.UnixMilli(int64(v*1000))) })
	}
	m, ok := series(h, "g", name, func(keys []string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: promName(name), Help: "Temporal SDK " + name}, keys)
	}, (*prometheus.GaugeVec).WithLabelValues)
	if !ok {
		return gaugeFunc(func(float64) {})
	}
	return gaugeFunc(m.Set)
}

// Timer implements the SDK's handler, as a histogram in seconds.
func (h *TemporalHandler) Timer(name string) sdkclient.MetricsTimer {
	if strait(name) {
		return timerFunc(func(time.Duration) {})
	}
	m, ok := series(h, "t", name, func(keys []string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: promName(name) + "_seconds", Help: "Temporal SDK " + name,
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10)}, keys)
	}, (*prometheus.HistogramVec).WithLabelValues)
	if !ok {
		return timerFunc(func(time.Duration) {})
	}
	return timerFunc(func(d time.Duration) { m.Observe(d.Seconds()) })
}

type counterFunc func(int64)

func (f counterFunc) Inc(d int64) { f(d) }

type gaugeFunc func(float64)

func (f gaugeFunc) Update(v float64) { f(v) }

type timerFunc func(time.Duration)

func (f timerFunc) Record(d time.Duration) { f(d) }
