package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/secret"
	"github.com/strait-dev/strait/taskrunner"
)

// Runner runs the activities a runner serves on its own task queue.
type Runner struct {
	Runner *taskrunner.Runner
}

// DeployTasks hands a deployment to the runner and returns as soon as its tasks started.
func (a *Runner) DeployTasks(ctx context.Context, d contract.Deployment) error {
	if err := openVertices(d.Vertices); err != nil {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("deployment of pipeline %d of job %d: %v", d.Pipeline.ID, d.Job.ID, err),
			contract.DeployFailedType, nil)
	}
	if err := a.Runner.Deploy(ctx, d); err != nil {
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.DeployFailedType, nil)
	}
	return nil
}

// TriggerCheckpoint starts a checkpoint at the pipeline's source tasks on this runner.
func (a *Runner) TriggerCheckpoint(ctx context.Context, req contract.TriggerRequest) error {
	return a.Runner.Trigger(req)
}

// CancelTasks cancels a pipeline's tasks of an epoch (and older) on this runner.
func (a *Runner) CancelTasks(ctx context.Context, req contract.CancelRequest) error {
	a.Runner.Cancel(req)
	return nil
}

// SignalReporter delivers task reports as signals to the pipeline workflow's id, so they
// reach whichever run of it is current.
type SignalReporter struct {
	Client client.Client
}

// Report sends one report. A pipeline that no longer exists has nothing to hear: that is
// not an error.
func (r *SignalReporter) Report(ctx context.Context, to contract.ReportTo, rep contract.TaskReport) error {
	rep = redacted(rep)
	err := r.Client.SignalWorkflow(ctx, string(to), "", contract.TaskReportSignal, rep)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil
	}
	return err
}

// redacted is a report whose task errors carry no secret value the runner opened for its
// plugins (a driver's error may quote a connection string); the report's own slice is
// copied, not changed.
func redacted(rep contract.TaskReport) contract.TaskReport {
	copied := false
	for i, t := range rep.Tasks {
		if t.Error == "" {
			continue
		}
		if r := secret.Redact(t.Error); r != t.Error {
			if !copied {
				rep.Tasks, copied = append([]contract.TaskStatus(nil), rep.Tasks...), true
			}
			rep.Tasks[i].Error = r
		}
	}
	return rep
}

// RegisterRunner tells the resource manager about a runner, starting the manager if it is
// not running yet.
func RegisterRunner(ctx context.Context, c client.Client, info contract.RunnerInfo) error {
	if info.Started.IsZero() {
		info.Started = time.Now()
	}
	_, err := c.SignalWithStartWorkflow(ctx, contract.ResourceManagerID, contract.RegisterRunnerSignal, info,
		client.StartWorkflowOptions{
			ID:            contract.ResourceManagerID,
			TaskQueue:     contract.JobsQueue,
			StaticSummary: "Strait resource manager: runners and slots",
		}, contract.ResourceManagerWorkflowName, contract.ResourceState{})
	if err != nil {
		return fmt.Errorf("register runner %s: %w", info.ID, err)
	}
	return nil
}

// ReportLoad tells the resource manager a runner's load.
func ReportLoad(ctx context.Context, c client.Client, runnerID string, load contract.Load) error {
	if err := c.SignalWorkflow(ctx, contract.ResourceManagerID, "", contract.RunnerLoadSignal,
		contract.RunnerLoad{RunnerID: runnerID, Load: load}); err != nil {
		return fmt.Errorf("load report of runner %s: %w", runnerID, err)
	}
	return nil
}

// RunnerLease holds the runner's lease for as long as the runner lives: it heartbeats (kept
// outside history by Temporal) well inside the heartbeat timeout and ends cleanly when the
// runner stops, which tells the resource manager the runner left. If the process dies the
// heartbeats stop and the resource manager declares the runner lost.
func (a *Runner) RunnerLease(ctx context.Context, in contract.LeaseInput) error {
	interval := activity.GetInfo(ctx).HeartbeatTimeout / 4
	if interval <= 0 || interval > 5*time.Second {
		interval = 2 * time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		activity.RecordHeartbeat(ctx, in.Generation)
		select {
		case <-ctx.Done():
			// the server ended the lease (no heartbeat in time, or the resource manager moved
			// to a new run): the runner asks whether it is still held alive
			a.Runner.LeaseEnded()
			return ctx.Err()
		case <-a.Runner.Done():
			return nil
		case <-t.C:
		}
	}
}
