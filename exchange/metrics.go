package exchange

import (
	"errors"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics counts the exchange's traffic per job, pipeline and edge.
type Metrics struct {
	BytesSent       *prometheus.CounterVec
	BatchesSent     *prometheus.CounterVec
	BytesReceived   *prometheus.CounterVec
	BatchesReceived *prometheus.CounterVec
}

// NewMetrics creates the counters and registers them with reg (when reg is not nil).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	labels := []string{"job", "pipeline", "edge"}
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "strait", Subsystem: "exchange", Name: name, Help: help}, labels)
	}
	m := &Metrics{
		BytesSent:       counter("sent_bytes_total", "Encoded batch bytes sent to other runners."),
		BatchesSent:     counter("sent_batches_total", "Batches sent to other runners."),
		BytesReceived:   counter("received_bytes_total", "Encoded batch bytes received from other runners."),
		BatchesReceived: counter("received_batches_total", "Batches received from other runners."),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.BytesSent, m.BatchesSent, m.BytesReceived, m.BatchesReceived} {
			if err := reg.Register(c); err != nil {
				var are prometheus.AlreadyRegisteredError
				if !errors.As(err, &are) {
					return nil, err
				}
			}
		}
	}
	return m, nil
}

// edgeCounters are one channel's counters, looked up once.
type edgeCounters struct {
	bytes, batches prometheus.Counter
}

func (c *edgeCounters) add(n int) {
	if c.bytes != nil {
		c.bytes.Add(float64(n))
		c.batches.Inc()
	}
}

func (m *Metrics) sent(k Key) edgeCounters {
	if m == nil {
		return edgeCounters{}
	}
	l := keyLabels(k)
	return edgeCounters{m.BytesSent.WithLabelValues(l...), m.BatchesSent.WithLabelValues(l...)}
}

func (m *Metrics) received(k Key) edgeCounters {
	if m == nil {
		return edgeCounters{}
	}
	l := keyLabels(k)
	return edgeCounters{m.BytesReceived.WithLabelValues(l...), m.BatchesReceived.WithLabelValues(l...)}
}

func keyLabels(k Key) []string {
	return []string{strconv.FormatInt(k.Job, 10), strconv.Itoa(k.Pipeline), strconv.Itoa(k.Edge)}
}
