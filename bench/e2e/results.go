package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A comparison is one line of the results: Strait's measure beside its anchor (a bare Go
// program doing the same work, built and run in the same bench run), as a ratio.
type comparison struct {
	Section string `json:"section"`
	Name    string `json:"name"`
	Rows    int    `json:"rows,omitempty"`
	// Secs is Strait's median time; RowsPerSec the rows over it.
	Secs       float64 `json:"secs"`
	RowsPerSec float64 `json:"rows_per_sec,omitempty"`
	PeakRSSMB  int64   `json:"peak_rss_mb,omitempty"`
	// Anchor is what Strait is compared with, AnchorSecs its median time.
	Anchor           string  `json:"anchor,omitempty"`
	AnchorSecs       float64 `json:"anchor_secs,omitempty"`
	AnchorRowsPerSec float64 `json:"anchor_rows_per_sec,omitempty"`
	AnchorPeakRSSMB  int64   `json:"anchor_peak_rss_mb,omitempty"`
	// Ratio is Strait's throughput over the anchor's (AnchorSecs / Secs) unless Note says
	// otherwise.
	Ratio  float64 `json:"ratio,omitempty"`
	Target string  `json:"target,omitempty"`
	Runs   int     `json:"runs"`
	// Value is a measure that is not a time (a count), instead of Secs.
	Value float64 `json:"value,omitempty"`
	Note  string  `json:"note,omitempty"`
}

// report collects the comparisons of a run and writes them as JSON and Markdown.
type report struct {
	Date        string       `json:"date"`
	LoadBefore  string       `json:"load_before"`
	LoadAfter   string       `json:"load_after,omitempty"`
	GOMAXPROCS  int          `json:"gomaxprocs"`
	Comparisons []comparison `json:"comparisons"`
	dir         string
}

var results = &report{}

func (r *report) start(dir string, procs int) {
	r.dir, r.GOMAXPROCS = dir, procs
	r.Date = time.Now().UTC().Format(time.RFC3339)
	r.LoadBefore = loadAverage()
}

// add records a comparison, prints it, and rewrites the result files, so a run that stops
// midway keeps what it measured.
func (r *report) add(c comparison) {
	if c.Rows > 0 && c.Secs > 0 {
		c.RowsPerSec = float64(c.Rows) / c.Secs
	}
	if c.Rows > 0 && c.AnchorSecs > 0 {
		c.AnchorRowsPerSec = float64(c.Rows) / c.AnchorSecs
	}
	if c.Ratio == 0 && c.AnchorSecs > 0 && c.Secs > 0 {
		c.Ratio = c.AnchorSecs / c.Secs
	}
	r.Comparisons = append(r.Comparisons, c)
	fmt.Println("  " + c.line())
	r.write()
}

func (c comparison) line() string {
	var b strings.Builder
	if c.Value != 0 {
		fmt.Fprintf(&b, "%-44s %8.1f", c.Name, c.Value)
	} else {
		fmt.Fprintf(&b, "%-44s %8.3f s", c.Name, c.Secs)
	}
	if c.RowsPerSec > 0 {
		fmt.Fprintf(&b, " %8.0f k rows/s", c.RowsPerSec/1e3)
	}
	if c.PeakRSSMB > 0 {
		fmt.Fprintf(&b, " RSS %4d MB", c.PeakRSSMB)
	}
	if c.Anchor != "" {
		fmt.Fprintf(&b, " | %s %.3f s", c.Anchor, c.AnchorSecs)
		if c.AnchorRowsPerSec > 0 {
			fmt.Fprintf(&b, " %.0f k rows/s", c.AnchorRowsPerSec/1e3)
		}
		if c.AnchorPeakRSSMB > 0 {
			fmt.Fprintf(&b, " RSS %d MB", c.AnchorPeakRSSMB)
		}
	}
	if c.Ratio > 0 {
		fmt.Fprintf(&b, " | ratio %.2f", c.Ratio)
	}
	if c.Target != "" {
		fmt.Fprintf(&b, " (target %s)", c.Target)
	}
	if c.Note != "" {
		fmt.Fprintf(&b, " — %s", c.Note)
	}
	return b.String()
}

// write puts the results into <dir>/results-<date>.json and .md.
func (r *report) write() {
	if r.dir == "" {
		return
	}
	r.LoadAfter = loadAverage()
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		fail(fmt.Errorf("results: %w", err))
	}
	base := filepath.Join(r.dir, "results-"+r.stamp())
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		fail(fmt.Errorf("results: %w", err))
	}
	if err := os.WriteFile(base+".json", append(b, '\n'), 0o644); err != nil {
		fail(fmt.Errorf("results: %w", err))
	}
	if err := os.WriteFile(base+".md", []byte(r.markdown()), 0o644); err != nil {
		fail(fmt.Errorf("results: %w", err))
	}
}

// stamp names a run's files: its date and UTC start time (results-2026-12-01T1702Z), so
// runs of one day, of different sections, keep their own files.
func (r *report) stamp() string {
	t, err := time.Parse(time.RFC3339, r.Date)
	if err != nil {
		return r.Date[:10]
	}
	return t.UTC().Format("2006-01-02T1504Z")
}

func (r *report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# make bench, %s\n\nGOMAXPROCS=%d for the jobs; load average before: %s, after: %s\n\n",
		r.Date, r.GOMAXPROCS, r.LoadBefore, r.LoadAfter)
	b.WriteString("| section | measure | Strait | rows/s | peak RSS | anchor | anchor rows/s | anchor RSS | ratio | target | runs | note |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, c := range r.Comparisons {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s |\n",
			c.Section, c.Name, c.measure(), kRows(c.RowsPerSec), mb(c.PeakRSSMB), anchorText(c), kRows(c.AnchorRowsPerSec),
			mb(c.AnchorPeakRSSMB), ratioText(c.Ratio), c.Target, c.Runs, c.Note)
	}
	return b.String()
}

// measure is the comparison's time, or its value when it is a count.
func (c comparison) measure() string {
	if c.Value != 0 {
		return fmt.Sprintf("%.1f", c.Value)
	}
	return fmt.Sprintf("%.3f s", c.Secs)
}

func anchorText(c comparison) string {
	if c.Anchor == "" {
		return ""
	}
	return fmt.Sprintf("%s (%.3f s)", c.Anchor, c.AnchorSecs)
}

func kRows(v float64) string {
	if v == 0 {
		return ""
	}
	return fmt.Sprintf("%.0f k", v/1e3)
}

func mb(v int64) string {
	if v == 0 {
		return ""
	}
	return fmt.Sprintf("%d MB", v)
}

func ratioText(v float64) string {
	if v == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f", v)
}

// loadAverage is the machine's 1, 5 and 15 minute load averages: the machine is shared, and
// the results say how busy it was.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
