package main

import (
	"math"
	"testing"
)

func TestParsePhases(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[string]float64
	}{
		{"config 0.001s node 0.180s submit 0.019s wait 0.192s", map[string]float64{"config": 0.001, "node": 0.18, "submit": 0.019, "wait": 0.192}},
		{"", map[string]float64{}},
		{"node 0.5s wait", map[string]float64{"node": 0.5}}, // a name without its time is skipped
		{"node x wait 0.2s", map[string]float64{"wait": 0.2}},
	} {
		got := parsePhases(tc.in)
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %v, want %v", tc.in, got, tc.want)
			continue
		}
		for k, v := range tc.want {
			if math.Abs(got[k]-v) > 1e-9 {
				t.Errorf("%q: %s = %v, want %v", tc.in, k, got[k], v)
			}
		}
	}
}

func TestComparisonDerivedValues(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		in                        comparison
		rowsPerSec, anchor, ratio float64
	}{
		{"rows and anchor", comparison{Rows: 1000, Secs: 2, AnchorSecs: 1}, 500, 1000, 0.5},
		{"faster than the anchor", comparison{Rows: 100, Secs: 1, AnchorSecs: 3}, 100, 100.0 / 3, 3},
		{"no anchor", comparison{Rows: 100, Secs: 4}, 25, 0, 0},
		{"a given ratio is kept", comparison{Secs: 1, AnchorSecs: 2, Ratio: 0.7}, 0, 0, 0.7},
		{"a count", comparison{Value: 24}, 0, 0, 0},
	} {
		r := &report{} // no folder: nothing written
		r.add(tc.in)
		got := r.Comparisons[0]
		if math.Abs(got.RowsPerSec-tc.rowsPerSec) > 1e-9 || math.Abs(got.AnchorRowsPerSec-tc.anchor) > 1e-9 || math.Abs(got.Ratio-tc.ratio) > 1e-9 {
			t.Errorf("%s: rows/s %v anchor %v ratio %v, want %v %v %v", tc.name, got.RowsPerSec, got.AnchorRowsPerSec, got.Ratio, tc.rowsPerSec, tc.anchor, tc.ratio)
		}
	}
}

func TestStamp(t *testing.T) {
	r := &report{Date: "2026-12-01T17:04:40Z"}
	if got := r.stamp(); got != "2026-12-01T1704Z" {
		t.Errorf("stamp %q", got)
	}
}
