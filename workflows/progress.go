package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// progress sends a pipeline's progress to the job that follows it (contract.ReportTo):
// when something changed, at most once per the tunable ProgressInterval, else once per
// ProgressHeartbeat, and its end last. A signal that cannot be delivered means the job
// workflow is gone (terminated, or ended without the pipeline): the pipeline then stops
// its tasks and ends CANCELED, as it would had the job canceled it.
type progress struct {
	to string
	// sent is what the last signal said; sentAt when.
	sent   progressKey
	sentAt time.Time
	// timer fires at due; inflight is the last signal's delivery.
	timer    workflow.Future
	cancel   workflow.CancelFunc
	due      time.Time
	inflight workflow.Future
	// orphaned: a signal could not be delivered; stop cancels the pipeline.
	orphaned bool
	stop     workflow.CancelFunc
}

// progressKey is what a progress signal is sent again for when it changes.
type progressKey struct {
	state                          contract.JobState
	read, written, failed, inBytes int64
	outBytes                       int64
	restarts, runners              int
}

func keyOf(st *contract.PipelineStatus) progressKey {
	c := &st.Counters
	return progressKey{state: st.State, read: c.RowsRead, written: c.RowsWritten, failed: c.RowsFailed,
		inBytes: c.BytesRead, outBytes: c.BytesWritten, restarts: st.Restarts, runners: len(st.Runners)}
}

// following sets the pipeline up to report to its job, if one follows it: the returned
// context is canceled when the job is found gone.
func (pr *pipelineRun) following(ctx workflow.Context) workflow.Context {
	if pr.in.ReportTo == "" {
		return ctx
	}
	ctx, stop := workflow.WithCancel(ctx)
	pr.progress = &progress{to: pr.in.ReportTo, stop: stop, sentAt: workflow.Now(ctx)}
	return ctx
}

// armProgress adds the progress timer and the last signal's delivery to a selector.
func (pr *pipelineRun) armProgress(ctx workflow.Context, sel workflow.Selector) {
	p := pr.progress
	if p == nil || p.orphaned {
		return
	}
	if f := p.inflight; f != nil {
		sel.AddFuture(f, func(f workflow.Future) {
			if p.inflight == f {
				p.inflight = nil
			}
			if err := f.Get(ctx, nil); err != nil {
				workflow.GetLogger(ctx).Warn("the job that follows this pipeline is gone: stopping", "job", p.to, "error", err)
				p.orphaned = true
				p.stop()
			}
		})
	}
	st := pr.snapshot()
	wait := pr.tunables.ProgressHeartbeat
	if keyOf(st) != p.sent {
		wait = pr.tunables.ProgressInterval
	}
	due := p.sentAt.Add(wait)
	if now := workflow.Now(ctx); !due.After(now) {
		pr.sendProgress(ctx, st, false)
		due = workflow.Now(ctx).Add(pr.tunables.ProgressHeartbeat)
	}
	if p.timer == nil || !p.due.Equal(due) {
		if p.cancel != nil {
			p.cancel()
		}
		tctx, cancel := workflow.WithCancel(ctx)
		p.timer, p.cancel, p.due = workflow.NewTimer(tctx, due.Sub(workflow.Now(ctx))), cancel, due
	}
	timer := p.timer
	sel.AddFuture(timer, func(workflow.Future) {
		if p.timer == timer {
			p.timer, p.cancel = nil, nil
		}
	})
}

// sendProgress signals the pipeline's status to its job: while it runs without its tasks
// (the job keeps states and counts), at its end whole, as the child's result was.
func (pr *pipelineRun) sendProgress(ctx workflow.Context, st *contract.PipelineStatus, ended bool) workflow.Future {
	p := pr.progress
	sent := *st
	if !ended {
		sent.Tasks = nil
	}
	f := workflow.SignalExternalWorkflow(ctx, p.to, "", contract.PipelineProgressSignal,
		contract.PipelineProgress{Status: sent, Ended: ended})
	p.sent, p.sentAt, p.inflight = keyOf(st), workflow.Now(ctx), f
	return f
}

// stopProgress cancels the progress timer when the pipeline stops watching its tasks.
func (pr *pipelineRun) stopProgress() {
	if p := pr.progress; p != nil && p.cancel != nil {
		p.cancel()
		p.timer, p.cancel = nil, nil
	}
}

// tellEnd sends the job the pipeline's final status, unless the run continues as new, and
// waits for its delivery (a job that is gone has nothing to learn).
func (pr *pipelineRun) tellEnd(ctx workflow.Context, end *ending) {
	p := pr.progress
	if p == nil || p.orphaned || isContinueAsNew(end.err) {
		return
	}
	pr.stopProgress()
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	st := pr.snapshot()
	if end.status != nil {
		st = end.status
	}
	_ = pr.sendProgress(dctx, st, true).Get(dctx, nil)
}
