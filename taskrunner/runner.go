// Package taskrunner is the data plane: a runner owns slots, takes deployments of a
// pipeline's task instances, runs each fused task group as one goroutine driving
// source → transforms → sink, hands batches between task groups through bounded exchanges,
// and reports task state changes through a Reporter. It knows connectors, never a workflow.
package taskrunner

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strait-dev/strait/checkpointstore"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/exchange"
)

// Reporter delivers a runner's task reports to where the deployment said they go.
type Reporter interface {
	Report(ctx context.Context, to contract.ReportTo, r contract.TaskReport) error
}

// Config configures a runner.
type Config struct {
	ID        string
	Slots     int
	Tags      map[string]string
	BatchSize int
	Logger    *slog.Logger
	// Address is the exchange address other runners reach this one at.
	Address string
	// Server and Client are the runner's data exchange; without them every task of a
	// pipeline must run here.
	Server *exchange.Server
	Client *exchange.Client
	// Store keeps the tasks' checkpoint state; without it checkpoints cannot be taken.
	Store checkpointstore.Store
}

// Runner hosts slots and runs deployed tasks.
type Runner struct {
	cfg      Config
	reporter Reporter
	log      *slog.Logger
	// metricsAddr is where the process serves /metrics (a string once set).
	metricsAddr atomic.Value

	mu    sync.Mutex
	execs map[execKey]*execution
	done  map[execKey]bool // deployments that ended, so a retried deploy is not run twice

	baseCtx context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup

	lease      *lease
	leaseEnded chan struct{}

	ledger *ledger // the numbers of ended deployments, for the metrics
}

type execKey struct {
	job      int64
	pipeline int
	epoch    int
	origin   string
}

// New makes a runner. Call Close to stop every task.
func New(cfg Config, reporter Reporter) *Runner {
	if cfg.Slots <= 0 {
		cfg.Slots = 4
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 1024
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Runner{
		cfg: cfg, reporter: reporter, log: cfg.Logger.With("runner", cfg.ID),
		execs: map[execKey]*execution{}, done: map[execKey]bool{},
		baseCtx: ctx, stop: stop,
		lease: newLease(), leaseEnded: make(chan struct{}, 1),
		ledger: newLedger(),
	}
}

// ID is the runner's id.
func (r *Runner) ID() string { return r.cfg.ID }

// Slots is the number of slots the runner offers.
func (r *Runner) Slots() int { return r.cfg.Slots }

// Address is where the runner's exchange server listens ("" without one).
func (r *Runner) Address() string { return r.cfg.Address }

// Tags are the runner's tags.
func (r *Runner) Tags() map[string]string { return r.cfg.Tags }

// Deploy starts the deployment's tasks and returns once they are started; the tasks run on
// in the runner. Deploying the same pipeline epoch twice is a no-op, so the call may be
// retried. The vertices' options must be open (no sealed secret): the plugins are built from
// them as they are.
func (r *Runner) Deploy(ctx context.Context, d contract.Deployment) error {
	key := execKey{d.Job.ID, d.Pipeline.ID, d.Epoch, d.Origin}
	if err := r.checkLease(); err != nil {
		return fmt.Errorf("deploy pipeline %d of job %d: %w", d.Pipeline.ID, d.Job.ID, err)
	}
	r.mu.Lock()
	if _, running := r.execs[key]; running || r.done[key] {
		r.mu.Unlock()
		return nil
	}
	r.mu.Unlock()
	ex, err := newExecution(r, d)
	if err != nil {
		return fmt.Errorf("deploy pipeline %d of job %d: %w", d.Pipeline.ID, d.Job.ID, err)
	}
	r.mu.Lock()
	// an older epoch of the same pipeline is fenced off
	for k, old := range r.execs {
		if k.job == key.job && k.pipeline == key.pipeline && (k.epoch < key.epoch || k.origin != key.origin) {
			old.cancel()
		}
	}
	r.execs[key] = ex
	r.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		ex.run()
		r.mu.Lock()
		ex.retire()
		delete(r.execs, key)
		r.done[key] = true
		r.mu.Unlock()
	}()
	return nil
}

// Cancel cancels a pipeline's tasks of the given epoch and older ones. Their CANCELED
// states are reported as usual.
func (r *Runner) Cancel(req contract.CancelRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, ex := range r.execs {
		if k.job == req.JobID && k.pipeline == req.Pipeline && k.epoch <= req.Epoch {
			ex.cancel()
		}
	}
}

// Trigger starts a checkpoint at the source tasks of a pipeline's deployment here. A trigger
// for another epoch is stale and ignored.
func (r *Runner) Trigger(req contract.TriggerRequest) error {
	if r.cfg.Store == nil {
		return fmt.Errorf("runner %s has no checkpoint store", r.cfg.ID)
	}
	r.mu.Lock()
	var ex *execution
	for k, e := range r.execs {
		if k.job == req.JobID && k.pipeline == req.Pipeline && k.epoch == req.Epoch {
			ex = e
		}
	}
	r.mu.Unlock()
	if ex == nil {
		return nil
	}
	return ex.trigger(req.CheckpointID, req.Completed)
}

// Close cancels every task and waits for them to end.
func (r *Runner) Close() {
	r.stop()
	r.wg.Wait()
}

// Done is closed when the runner stops.
func (r *Runner) Done() <-chan struct{} { return r.baseCtx.Done() }

// TaskInfo is a snapshot of one task for status displays.
type TaskInfo struct {
	Job      int64
	Pipeline int
	Epoch    int
	Task     contract.TaskID
	State    contract.TaskState
	Counters contract.Counters
	// Queued is the number of batches waiting in the task's input queue.
	Queued int
}

// info is the task's snapshot now.
func (t *task) info() TaskInfo {
	ex := t.ex
	ti := TaskInfo{Job: ex.d.Job.ID, Pipeline: ex.d.Pipeline.ID, Epoch: ex.d.Epoch,
		Task: t.id, State: t.state(), Counters: t.counters()}
	if in := ex.inboxes[t.id]; in != nil {
		ti.Queued = len(in.ch)
	}
	return ti
}

// Tasks lists the tasks the runner hosts now, with their counters.
func (r *Runner) Tasks() []TaskInfo {
	r.mu.Lock()
	execs := make([]*execution, 0, len(r.execs))
	for _, ex := range r.execs {
		execs = append(execs, ex)
	}
	r.mu.Unlock()
	var out []TaskInfo
	for _, ex := range execs {
		for _, t := range ex.tasks {
			out = append(out, t.info())
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Job != b.Job {
			return a.Job < b.Job
		}
		if a.Pipeline != b.Pipeline {
			return a.Pipeline < b.Pipeline
		}
		return a.Task.String() < b.Task.String()
	})
	return out
}

// JobCounters sums the counters of a job's tasks hosted here now.
func (r *Runner) JobCounters(jobID int64) contract.Counters {
	var c contract.Counters
	for _, t := range r.Tasks() {
		if t.Job == jobID {
			c.Add(t.Counters)
		}
	}
	return c
}

// report sends a report, retrying until it is delivered or the runner stops: a report is
// never dropped while Temporal is briefly unreachable. It reports whether it was delivered.
func (r *Runner) report(to contract.ReportTo, rep contract.TaskReport) bool {
	backoff := 100 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(r.baseCtx, 10*time.Second)
		err := r.reporter.Report(ctx, to, rep)
		cancel()
		if err == nil {
			return true
		}
		if r.baseCtx.Err() != nil {
			r.log.Warn("report not delivered: runner stopping", "to", to, "error", err)
			return false
		}
		r.log.Warn("report not delivered, retrying", "to", to, "error", err, "in", backoff)
		select {
		case <-time.After(backoff):
		case <-r.baseCtx.Done():
			return false
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}
