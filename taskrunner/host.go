package taskrunner

import (
	"net"
	"os"
	"runtime/debug"

	"github.com/strait-dev/strait/contract"
)

// DefaultID is a runner id stable across restarts on one host: the host name.
func DefaultID() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "runner"
	}
	return h
}

// AdvertisedAddress is the exchange address other runners use: advertise when given, else
// the listen address with an unspecified host replaced by the host name.
func AdvertisedAddress(listen, advertise string) string {
	if advertise != "" {
		return advertise
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		}
	}
	return net.JoinHostPort(host, port)
}

// TuneGC sets the garbage collector for a process that hosts runners. The data path's live
// heap is a few batches per task; collecting it at 4x growth instead of 2x halves the GC
// work (and its write barriers) for a few MB of memory. GOGC, when set, wins.
func TuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

// Info is what the runner tells the resource manager when it registers.
func (r *Runner) Info() contract.RunnerInfo {
	info := contract.RunnerInfo{ID: r.cfg.ID, TaskQueue: contract.RunnerQueue(r.cfg.ID), Slots: r.cfg.Slots,
		Tags: r.cfg.Tags, Address: r.cfg.Address}
	if a, ok := r.metricsAddr.Load().(string); ok {
		info.MetricsAddress = a
	}
	return info
}

// SetMetricsAddress tells the runner where its process serves /metrics, which it registers
// with. A listen address of any host is advertised with the host of the exchange address.
func (r *Runner) SetMetricsAddress(listen string) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if h, _, err := net.SplitHostPort(r.cfg.Address); err == nil {
			host = h
		}
	}
	r.metricsAddr.Store(net.JoinHostPort(host, port))
}
