package gateway

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimit is the request rate each client (remote IP address) may send: a token bucket
// refilled at PerSecond and holding Burst requests. A zero PerSecond turns it off.
type RateLimit struct {
	PerSecond float64
	Burst     int
}

// maxClients bounds the buckets kept: past it, the buckets of clients that have been idle
// long enough to have a full bucket again are dropped (they start full when they return,
// which is what they would have anyway).
const maxClients = 10000

// limiter keeps a token bucket per client IP address.
type limiter struct {
	limit RateLimit
	now   func() time.Time

	mu      sync.Mutex
	clients map[string]*bucket
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(l RateLimit) *limiter {
	if l.Burst < 1 {
		l.Burst = max(1, int(math.Ceil(l.PerSecond)))
	}
	return &limiter{limit: l, now: time.Now, clients: map[string]*bucket{}}
}

// clientIP is the remote address without its port.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// allow takes a token of ip's bucket, or says how long until one is there.
func (l *limiter) allow(ip string) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.clients[ip]
	if !ok {
		if len(l.clients) >= maxClients {
			l.evict(now)
		}
		c = &bucket{lim: rate.NewLimiter(rate.Limit(l.limit.PerSecond), l.limit.Burst)}
		l.clients[ip] = c
	}
	c.seen = now
	res := c.lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	return true, 0
}

// evict drops the buckets that have refilled since their client's last request.
func (l *limiter) evict(now time.Time) {
	full := time.Duration(float64(l.limit.Burst) / l.limit.PerSecond * float64(time.Second))
	for ip, c := range l.clients {
		if now.Sub(c.seen) > full {
			delete(l.clients, ip)
		}
	}
}

// refuse is the 429 answer: SeaTunnel's error shape, with Retry-After in whole seconds.
func (l *limiter) refuse(w http.ResponseWriter, r *http.Request, wait time.Duration) error {
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return &httpError{status: http.StatusTooManyRequests,
		msg: fmt.Sprintf("too many requests from %s: at most %g a second (bursts of %d); retry in %d s", clientIP(r), l.limit.PerSecond, l.limit.Burst, secs)}
}
