package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Names of the series the coordinator's activities record through the Temporal SDK's
// metrics handler (activity.GetMetricsHandler), tagged with "job" and "pipeline". The
// handler of this package keeps them in a Checkpoints collector instead of a plain vector,
// so that a pipeline's series go once it stops checkpointing.
const (
	// CheckpointsCompleted counts a pipeline's completed checkpoints (a counter).
	CheckpointsCompleted = "strait_checkpoints_completed_total"
	// CheckpointLastCompleted is when a pipeline's last checkpoint completed, in Unix
	// seconds (a gauge).
	CheckpointLastCompleted = "strait_checkpoint_last_completed_timestamp_seconds"
	// CheckpointAge is the time since then, computed when scraped.
	CheckpointAge = "strait_checkpoint_age_seconds"
)

// CheckpointRetention is how long a pipeline's checkpoint series outlive its last completed
// checkpoint at least; a pipeline whose checkpoints come further apart keeps them ten of its
// intervals.
const CheckpointRetention = 10 * time.Minute

// Checkpoints is a collector of the pipelines' completed checkpoints as a worker saw them.
type Checkpoints struct {
	now func() time.Time

	mu sync.Mutex
	m  map[pipelineID]*checkpointSeries

	completed, last, age *prometheus.Desc
}

type pipelineID struct{ job, pipeline string }

type checkpointSeries struct {
	completed      float64
	last, previous time.Time // the last two completions
}

// NewCheckpoints makes the collector.
func NewCheckpoints() *Checkpoints {
	l := []string{"job", "pipeline"}
	return &Checkpoints{
		now:       time.Now,
		m:         map[pipelineID]*checkpointSeries{},
		completed: prometheus.NewDesc(CheckpointsCompleted, "Checkpoints of the pipeline that completed (their manifest written).", l, nil),
		last:      prometheus.NewDesc(CheckpointLastCompleted, "When the pipeline's last checkpoint completed, in Unix seconds.", l, nil),
		age:       prometheus.NewDesc(CheckpointAge, "Time since the pipeline's last checkpoint completed.", l, nil),
	}
}

func (c *Checkpoints) series(job, pipeline string) *checkpointSeries {
	k := pipelineID{job, pipeline}
	s := c.m[k]
	if s == nil {
		s = &checkpointSeries{}
		c.m[k] = s
	}
	return s
}

// count adds n completed checkpoints of a pipeline.
func (c *Checkpoints) count(job, pipeline string, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.series(job, pipeline).completed += float64(n)
}

// setLast records when a pipeline's last checkpoint completed.
func (c *Checkpoints) setLast(job, pipeline string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.series(job, pipeline)
	if at.After(s.last) {
		s.previous, s.last = s.last, at
	}
}

// Describe implements prometheus.Collector.
func (c *Checkpoints) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.completed
	ch <- c.last
	ch <- c.age
}

// Collect implements prometheus.Collector. A pipeline whose last checkpoint is older than
// CheckpointRetention and ten of its intervals has ended (or moved to another worker): its
// series are dropped.
func (c *Checkpoints) Collect(ch chan<- prometheus.Metric) {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, s := range c.m {
		keep := CheckpointRetention
		if !s.previous.IsZero() {
			keep = max(keep, 10*s.last.Sub(s.previous))
		}
		if s.last.IsZero() {
			s.last = now // counted before its time was set
		}
		if now.Sub(s.last) > keep {
			delete(c.m, k)
			continue
		}
		ch <- prometheus.MustNewConstMetric(c.completed, prometheus.CounterValue, s.completed, k.job, k.pipeline)
		ch <- prometheus.MustNewConstMetric(c.last, prometheus.GaugeValue, float64(s.last.UnixMilli())/1000, k.job, k.pipeline)
		ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, max(now.Sub(s.last).Seconds(), 0), k.job, k.pipeline)
	}
}
