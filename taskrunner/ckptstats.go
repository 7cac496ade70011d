package taskrunner

import (
	"time"

	"github.com/strait-dev/strait/contract"
)

// defaultStreamingInterval is the checkpoint interval of a streaming job whose env sets none,
// and defaultCheckpointTimeout the timeout of one whose env sets none, as the pipeline's
// coordinator has them.
const (
	defaultStreamingInterval = contract.DefaultStreamingCheckpointInterval
	defaultCheckpointTimeout = contract.DefaultCheckpointTimeout
)

// pipelineCheckpoints is what a runner sees of a pipeline's checkpoints: the triggers it got
// (a trigger tells of the newest completed checkpoint, so one triggered here and not
// completed by the next trigger failed) and how long its own tasks took.
type pipelineCheckpoints struct {
	interval      time.Duration
	lastTriggered int64
	failed        int64
	started       map[int64]time.Time // checkpoint -> when it reached this runner
	lastDuration  time.Duration       // of the newest checkpoint all local tasks acknowledged
}

// PipelineMetrics is a runner's view of one pipeline's checkpoints.
type PipelineMetrics struct {
	Job      int64
	Pipeline int
	// Interval is the pipeline's checkpoint interval (0 without checkpoints).
	Interval time.Duration
	// Failed counts the checkpoints triggered here that did not complete.
	Failed int64
	// LastDuration is the time from the newest checkpoint reaching this runner to the
	// acknowledgement of every task of the pipeline here.
	LastDuration time.Duration
}

// checkpointInterval is the interval the pipeline's coordinator checkpoints at (0: never).
func checkpointInterval(env contract.Env) time.Duration {
	switch {
	case env.CheckpointInterval > 0:
		return time.Duration(env.CheckpointInterval) * time.Millisecond
	case env.Mode == contract.Streaming:
		return defaultStreamingInterval
	}
	return 0
}

// checkpointTimeout is how long the pipeline's coordinator waits for a checkpoint.
func checkpointTimeout(env contract.Env) time.Duration {
	if env.CheckpointTimeout > 0 {
		return time.Duration(env.CheckpointTimeout) * time.Millisecond
	}
	return defaultCheckpointTimeout
}

// pipeline returns the pipeline's checkpoint tally; the ledger's lock is held.
func (l *ledger) pipeline(k pipelineKey) *pipelineCheckpoints {
	p := l.ckpts[k]
	if p == nil {
		p = &pipelineCheckpoints{started: map[int64]time.Time{}}
		l.ckpts[k] = p
	}
	return p
}

// triggered records that checkpoint id was triggered here, the newest completed one being
// completed.
func (l *ledger) triggered(ex *execution, id, completed int64, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.tally(ex)
	if id == p.lastTriggered {
		return // a retried trigger
	}
	if p.lastTriggered > completed {
		p.failed++
	}
	p.lastTriggered = id
	p.reached(id, at)
}

// checkpointStarted records when checkpoint id first reached a task here (its trigger, or a
// barrier from another runner).
func (l *ledger) checkpointStarted(ex *execution, id int64, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tally(ex).reached(id, at)
}

// tally returns the checkpoint tally of ex's pipeline with its interval brought up to date;
// the ledger's lock is held.
func (l *ledger) tally(ex *execution) *pipelineCheckpoints {
	p := l.pipeline(pipelineKey{ex.d.Job.ID, ex.d.Pipeline.ID})
	p.interval = checkpointInterval(ex.d.Env)
	return p
}

// reached records at as the time checkpoint id reached the runner, unless it did before.
func (p *pipelineCheckpoints) reached(id int64, at time.Time) {
	if _, ok := p.started[id]; !ok {
		p.started[id] = at
	}
}

// checkpointAcked records that every local task acknowledged checkpoint id.
func (l *ledger) checkpointAcked(ex *execution, id int64, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.pipeline(pipelineKey{ex.d.Job.ID, ex.d.Pipeline.ID})
	if start, ok := p.started[id]; ok {
		p.lastDuration = at.Sub(start)
	}
	for k := range p.started {
		if k <= id {
			delete(p.started, k)
		}
	}
}

// PipelineMetrics lists the runner's view of the checkpoints of the pipelines it runs or ran
// within RetainEnded.
func (r *Runner) PipelineMetrics() []PipelineMetrics {
	r.mu.Lock()
	running := map[pipelineKey]bool{}
	for k := range r.execs {
		running[pipelineKey{k.job, k.pipeline}] = true
	}
	r.mu.Unlock()
	l := r.ledger
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []PipelineMetrics
	for k, p := range l.ckpts {
		if _, kept := l.ended[k]; !kept && !running[k] {
			delete(l.ckpts, k)
			continue
		}
		out = append(out, PipelineMetrics{Job: k.job, Pipeline: k.pipeline, Interval: p.interval, Failed: p.failed, LastDuration: p.lastDuration})
	}
	return out
}
