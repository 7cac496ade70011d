// Package promtest reads Prometheus collectors in tests.
package promtest

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Gather registers the collectors with a pedantic registry, gathers it and returns the series
// by family name; a failed gathering fails the test.
func Gather(t testing.TB, cs ...prometheus.Collector) map[string][]*dto.Metric {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	for _, c := range cs {
		reg.MustRegister(c)
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]*dto.Metric{}
	for _, f := range fams {
		out[f.GetName()] = f.GetMetric()
	}
	return out
}
