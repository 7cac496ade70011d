package taskrunner

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strait-dev/strait/contract"
)

// RetainEnded is how long the runner keeps exporting the counters of a pipeline whose tasks
// all ended here: long enough for a scrape (and a dashboard) to see their last values, short
// enough to bound the series of a busy runner.
const RetainEnded = 10 * time.Minute

// taskStats is what a task measures besides its rows: the time it spent processing and the
// time it waited on a full downstream (Flink's busy and back-pressured time), and its last
// checkpoint. The data path adds to them once per batch.
type taskStats struct {
	busy, backPressured  atomic.Int64 // nanoseconds
	ckptBytes, ckptNanos atomic.Int64 // the last checkpoint's state size and duration

	lag atomic.Value // lagSource of the task's reader, when it has one

	failing atomic.Value // failedCount of the task's reader, when it counts the records it skips
}

// RowsFailed is implemented by source readers that skip records they cannot read instead of
// failing (Kafka's format_error_handle_way = skip): how many so far. The task counts them
// as its failed rows (Counters.RowsFailed).
type RowsFailed interface {
	RowsFailed() int64
}

// failedCount holds a reader's RowsFailed.
type failedCount struct{ f RowsFailed }

// watchFailed keeps the reader for the task's failed rows when it counts the records it
// skips.
func (s *taskStats) watchFailed(r any) {
	if f, ok := r.(RowsFailed); ok {
		s.failing.Store(failedCount{f})
	}
}

// rowsFailed is how many records the task's reader skipped so far.
func (s *taskStats) rowsFailed() int64 {
	if fc, ok := s.failing.Load().(failedCount); ok {
		return fc.f.RowsFailed()
	}
	return 0
}

// lagSource is what a source reader tells of how far behind its source's end it is.
type lagSource struct{ r any }

// RecordsBehind is implemented by readers that know how many records remain between what
// they read and the end of each partition they read (Kafka).
type RecordsBehind interface {
	RecordsBehind() map[string]int64
}

// BytesBehind is implemented by readers of a change log that know how many bytes of it
// remain unread (the binlog of MySQL, the WAL of PostgreSQL); ok is false while unknown.
type BytesBehind interface {
	BytesBehind() (n int64, ok bool)
}

// since adds the time from start to now to the task's busy time, less the time it was back
// pressured meanwhile (bp0 is the back-pressured time at start).
func (s *taskStats) since(start time.Time, bp0 int64) {
	d := int64(time.Since(start)) - (s.backPressured.Load() - bp0)
	if d > 0 {
		s.busy.Add(d)
	}
}

// TaskMetrics is one task's numbers for the metrics: its counters, times and lag.
type TaskMetrics struct {
	TaskInfo
	// Busy and BackPressured are the time the task spent processing batches and waiting to
	// hand them to a full downstream.
	Busy, BackPressured time.Duration
	// CheckpointBytes and CheckpointDuration describe the task's last checkpoint: the state
	// it wrote and the time from its barrier to its acknowledgement.
	CheckpointBytes    int64
	CheckpointDuration time.Duration
	// RecordsBehind (by partition) and BytesBehind (-1 when unknown) are its source's lag.
	RecordsBehind map[string]int64
	BytesBehind   int64
	// Source and Sink say whether the task's chain starts with a source or ends with a sink.
	Source, Sink bool
	// Ended is set for the tasks of a pipeline that no longer runs here.
	Ended bool
}

type statsKey struct {
	job      int64
	pipeline int
	task     contract.TaskID
}

type pipelineKey struct {
	job      int64
	pipeline int
}

// ledger keeps the totals of tasks whose deployment ended, so counters keep their last
// value when a task ends and go on from it when the pipeline is deployed here again.
type ledger struct {
	mu    sync.Mutex
	tasks map[statsKey]*TaskMetrics
	ended map[pipelineKey]time.Time // when the pipeline's last deployment here ended
	ckpts map[pipelineKey]*pipelineCheckpoints
}

func newLedger() *ledger {
	return &ledger{tasks: map[statsKey]*TaskMetrics{}, ended: map[pipelineKey]time.Time{}, ckpts: map[pipelineKey]*pipelineCheckpoints{}}
}

// retire adds the final numbers of an ended deployment's tasks.
func (l *ledger) retire(ms []TaskMetrics, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range ms {
		k := statsKey{m.Job, m.Pipeline, m.Task}
		old := l.tasks[k]
		if old == nil {
			old = &TaskMetrics{TaskInfo: TaskInfo{Job: m.Job, Pipeline: m.Pipeline, Task: m.Task}, BytesBehind: -1}
			l.tasks[k] = old
		}
		old.Epoch, old.State, old.Source, old.Sink, old.Ended = m.Epoch, m.State, m.Source, m.Sink, true
		old.Counters.Add(m.Counters)
		old.Busy += m.Busy
		old.BackPressured += m.BackPressured
		if m.CheckpointDuration > 0 {
			old.CheckpointBytes, old.CheckpointDuration = m.CheckpointBytes, m.CheckpointDuration
		}
		l.ended[pipelineKey{m.Job, m.Pipeline}] = at
	}
}

// merge adds the retired totals to the live tasks' numbers and appends the retired tasks
// that do not run now; pipelines that ended here longer than RetainEnded ago and run no
// more are forgotten.
func (l *ledger) merge(live []TaskMetrics, now time.Time) []TaskMetrics {
	l.mu.Lock()
	defer l.mu.Unlock()
	running := map[pipelineKey]bool{}
	seen := map[statsKey]bool{}
	for i := range live {
		m := &live[i]
		running[pipelineKey{m.Job, m.Pipeline}] = true
		k := statsKey{m.Job, m.Pipeline, m.Task}
		if seen[k] {
			continue // two epochs at once while an older one stops: its totals are added once
		}
		seen[k] = true
		if old := l.tasks[k]; old != nil {
			m.Counters.Add(old.Counters)
			m.Busy += old.Busy
			m.BackPressured += old.BackPressured
			if m.CheckpointDuration == 0 {
				m.CheckpointBytes, m.CheckpointDuration = old.CheckpointBytes, old.CheckpointDuration
			}
		}
	}
	for pk, at := range l.ended {
		if !running[pk] && now.Sub(at) > RetainEnded {
			delete(l.ended, pk)
		}
	}
	var keys []statsKey
	for k := range l.tasks {
		pk := pipelineKey{k.job, k.pipeline}
		if _, kept := l.ended[pk]; !kept {
			delete(l.tasks, k)
			continue
		}
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].less(keys[j]) })
	for _, k := range keys {
		m := *l.tasks[k]
		m.Counters = contract.Counters{}
		m.Counters.Add(l.tasks[k].Counters)
		live = append(live, m)
	}
	return live
}

func (a statsKey) less(b statsKey) bool {
	if a.job != b.job {
		return a.job < b.job
	}
	if a.pipeline != b.pipeline {
		return a.pipeline < b.pipeline
	}
	return a.task.String() < b.task.String()
}

// metrics is the task's numbers now.
func (t *task) metrics() TaskMetrics {
	ex := t.ex
	m := TaskMetrics{TaskInfo: t.info(), Busy: time.Duration(t.stats.busy.Load()), BackPressured: time.Duration(t.stats.backPressured.Load()),
		CheckpointBytes: t.stats.ckptBytes.Load(), CheckpointDuration: time.Duration(t.stats.ckptNanos.Load()), BytesBehind: -1}
	for _, vid := range t.group.Vertices {
		switch ex.vertices[vid].Kind {
		case contract.SourceVertex:
			m.Source = true
		case contract.SinkVertex:
			m.Sink = true
		}
	}
	if src, ok := t.stats.lag.Load().(lagSource); ok && !m.State.Terminal() {
		if rb, ok := src.r.(RecordsBehind); ok {
			m.RecordsBehind = rb.RecordsBehind()
		}
		if bb, ok := src.r.(BytesBehind); ok {
			if n, known := bb.BytesBehind(); known {
				m.BytesBehind = n
			}
		}
	}
	return m
}

// watchLag keeps the reader for the lag metrics when it can tell its lag.
func (s *taskStats) watchLag(r any) {
	_, rb := r.(RecordsBehind)
	_, bb := r.(BytesBehind)
	if rb || bb {
		s.lag.Store(lagSource{r})
	}
}

// checkpointed records a checkpoint's state size and how long the task took from its barrier
// to its acknowledgement.
func (s *taskStats) checkpointed(bytes int, start time.Time) {
	s.ckptBytes.Store(int64(bytes))
	s.ckptNanos.Store(int64(time.Since(start)))
}

// TaskMetrics lists the numbers of the tasks the runner hosts now and of the tasks of
// pipelines that ended here within RetainEnded, with the totals of earlier deployments
// added: counters never go back.
func (r *Runner) TaskMetrics() []TaskMetrics {
	// under the runner's lock, so an execution that ends meanwhile is counted once: live or
	// retired
	r.mu.Lock()
	defer r.mu.Unlock()
	var live []TaskMetrics
	for _, ex := range r.execs {
		for _, t := range ex.tasks {
			live = append(live, t.metrics())
		}
	}
	sort.Slice(live, func(i, j int) bool {
		a, b := live[i], live[j]
		return statsKey{a.Job, a.Pipeline, a.Task}.less(statsKey{b.Job, b.Pipeline, b.Task})
	})
	return r.ledger.merge(live, time.Now())
}

// retire moves an ended execution's numbers to the ledger; the runner's lock is held.
func (ex *execution) retire() {
	ms := make([]TaskMetrics, 0, len(ex.tasks))
	for _, t := range ex.tasks {
		ms = append(ms, t.metrics())
	}
	ex.r.ledger.retire(ms, time.Now())
}
