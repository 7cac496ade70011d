// Package activities holds every I/O the workflows ask for: planning a job, allocating
// slots, committing sinks (coordinator side, on the workers) and deploying or cancelling
// tasks (runner side, on each runner's own task queue).
package activities

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/strait-dev/strait/checkpointstore"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/engineconfig"
	"github.com/strait-dev/strait/planner"
	"github.com/strait-dev/strait/planvertex"
	"github.com/strait-dev/strait/secret"
)

// Coordinator runs the activities of the control plane.
type Coordinator struct {
	Client client.Client
	Log    *slog.Logger
	// Store keeps checkpoints; the same store the runners write task state to.
	Store checkpointstore.Store
	// Engine holds the engine's defaults (strait.yaml); nil means the built-in ones.
	Engine *engineconfig.Config
}

// LoadCheckpoint returns a pipeline's latest completed checkpoint, or nil when it has none.
func (a *Coordinator) LoadCheckpoint(ctx context.Context, in contract.LoadInput) (*contract.Manifest, error) {
	if a.Store == nil {
		return nil, nil
	}
	if in.Checkpoint > 0 {
		m, err := checkpointstore.ReadManifest(ctx, a.Store, in.Job, in.Pipeline, in.Checkpoint)
		if errors.Is(err, checkpointstore.ErrNotFound) {
			return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
				"checkpoint %d of job %d pipeline %d, which this run completed, is gone from the checkpoint store", in.Checkpoint, in.Job, in.Pipeline),
				contract.CommitFailedType, err)
		}
		if err != nil {
			return nil, fmt.Errorf("load checkpoint %d of job %d pipeline %d: %w", in.Checkpoint, in.Job, in.Pipeline, err)
		}
		return m, nil
	}
	m, err := checkpointstore.Latest(ctx, a.Store, in.Job, in.Pipeline)
	if errors.Is(err, checkpointstore.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load the latest checkpoint of job %d pipeline %d: %w", in.Job, in.Pipeline, err)
	}
	return m, nil
}

// PersistCheckpoint writes a checkpoint's manifest, which completes it, and deletes the
// pipeline's checkpoints beyond the retention.
func (a *Coordinator) PersistCheckpoint(ctx context.Context, in contract.PersistInput) error {
	if a.Store == nil {
		return temporal.NewNonRetryableApplicationError("the worker has no checkpoint store", contract.CommitFailedType, nil)
	}
	if err := checkpointstore.WriteManifest(ctx, a.Store, &in.Manifest); err != nil {
		return fmt.Errorf("checkpoint %d of job %d pipeline %d: write its manifest: %w", in.Manifest.Checkpoint, in.Manifest.Job, in.Manifest.Pipeline, err)
	}
	recordCheckpoint(ctx, in.Manifest)
	if err := checkpointstore.Retain(ctx, a.Store, in.Manifest.Job, in.Manifest.Pipeline, in.Retain); err != nil {
		activity.GetLogger(ctx).Warn("old checkpoints not deleted", "error", err)
	}
	return nil
}

// PlanJob parses, checks and plans a job. A bad config fails without retry.
func (a *Coordinator) PlanJob(ctx context.Context, in contract.PlanInput) (*contract.Plan, error) {
	key, err := secret.Current()
	if err != nil {
		return nil, fmt.Errorf("job %d: plan: %w", in.JobID, err)
	}
	src, err := secret.OpenSource(key, in.Source)
	if err != nil {
		return nil, fmt.Errorf("job %d: plan: %w", in.JobID, err)
	}
	p, err := a.planJob(ctx, in, src, key)
	if err != nil {
		// the error is kept in the history and shown: it must not quote a secret
		return nil, scrubbed(err, src)
	}
	return p, nil
}

// scrubbed is err with the secret values of the config masked in its message.
func scrubbed(err error, src contract.ConfigSource) error {
	msg := secret.Scrub(err.Error(), src.Text, src.File, src.Vars)
	if msg == err.Error() {
		return err
	}
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) && ae.NonRetryable() {
		return temporal.NewNonRetryableApplicationError(msg, ae.Type(), nil)
	}
	return errors.New(msg)
}

// planJob plans an opened config.
func (a *Coordinator) planJob(ctx context.Context, in contract.PlanInput, src contract.ConfigSource, key *secret.Key) (*contract.Plan, error) {
	plan, err := planner.PlanContext(ctx, src, connector.Job{ID: in.JobID})
	if err != nil {
		if planner.IsConfigError(err) {
			return nil, temporal.NewNonRetryableApplicationError(err.Error(), contract.ConfigErrorType, nil)
		}
		return nil, fmt.Errorf("job %d: plan: %w", in.JobID, err)
	}
	// the engine's checkpoint defaults apply where the job's env is silent
	eng := a.Engine
	if eng == nil {
		eng = engineconfig.Default()
	}
	env := &plan.Env
	if env.CheckpointInterval == 0 && env.Mode == contract.Streaming {
		env.CheckpointInterval = eng.Checkpoint.Interval
	}
	if env.CheckpointTimeout == 0 {
		env.CheckpointTimeout = eng.Checkpoint.Timeout
	}
	env.CheckpointRetained = eng.Checkpoint.MaxRetained
	if in.Fresh && a.Store != nil {
		left, err := checkpointstore.Forget(ctx, a.Store, in.JobID)
		if err != nil {
			return nil, fmt.Errorf("job %d: delete the checkpoints an earlier run left: %w", in.JobID, err)
		}
		if left != "" {
			plan.Warnings = append(plan.Warnings, fmt.Sprintf(
				"job %d ran before: its checkpoints (%s) were deleted and this run starts clean; restore the job to continue from them instead", in.JobID, left))
		}
	}
	if in.SetupSinks {
		if err := setupSinks(ctx, plan); err != nil {
			return nil, err
		}
	}
	// the plan is kept in the workflow history and shown: its secrets travel sealed
	if err := secret.SealPlan(key, plan); err != nil {
		return nil, fmt.Errorf("job %d: plan: %w", in.JobID, err)
	}
	return plan, nil
}

// setupSinks applies the save modes of the sinks that have them (create the table, delete
// its rows...) before any task runs. A refused setup (the table must exist and does not)
// fails the job; one that could not reach the target is tried again.
func setupSinks(ctx context.Context, plan *contract.Plan) error {
	for _, cv := range plan.Vertices {
		if cv.Kind != contract.SinkVertex {
			continue
		}
		v, err := planvertex.Decode(cv)
		if err != nil {
			return temporal.NewNonRetryableApplicationError(err.Error(), contract.ConfigErrorType, nil)
		}
		s, err := v.Sink(plan.Job)
		if err != nil {
			return temporal.NewNonRetryableApplicationError(err.Error(), contract.ConfigErrorType, nil)
		}
		su, ok := s.(connector.SinkSetup)
		if !ok {
			continue
		}
		if err := su.Setup(ctx); err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, v.Where) {
				msg = v.Where + ": " + msg
			}
			if connector.IsPermanent(err) {
				return temporal.NewNonRetryableApplicationError(msg, contract.ConfigErrorType, nil)
			}
			return errors.New(msg)
		}
	}
	return nil
}

// AllocateSlots asks the resource manager for slots through its update.
func (a *Coordinator) AllocateSlots(ctx context.Context, req contract.AllocateRequest) (*contract.Allocation, error) {
	h, err := a.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   contract.ResourceManagerID,
		UpdateName:   contract.AllocateUpdate,
		UpdateID:     allocationUpdateID(ctx, req.Owner),
		Args:         []any{req},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return nil, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("not enough resources: the pipeline needs %d slots and no runner is registered", req.Total()),
				contract.NoEnoughResource, nil)
		}
		return nil, fmt.Errorf("allocate slots: %w", err)
	}
	var alloc contract.Allocation
	if err := h.Get(ctx, &alloc); err != nil {
		var ae *temporal.ApplicationError
		if errors.As(err, &ae) && ae.Type() == contract.NoEnoughResource {
			return nil, temporal.NewNonRetryableApplicationError(ae.Message(), contract.NoEnoughResource, nil)
		}
		return nil, fmt.Errorf("allocate slots: %w", err)
	}
	return &alloc, nil
}

// allocationUpdateID names one allocation request: the same across the retries of one
// activity, so a retried request is answered once, and new for every other request. The
// owner alone would not do: Temporal answers an update id it has seen with the earlier
// result, and a job run again under its id asks for the same owner.
func allocationUpdateID(ctx context.Context, owner string) string {
	if !activity.IsActivity(ctx) {
		return owner
	}
	info := activity.GetInfo(ctx)
	return fmt.Sprintf("%s@%s/%s", owner, info.WorkflowExecution.RunID, info.ActivityID)
}

// CommitSinks builds a sink's committer and commits one checkpoint's infos, or aborts them
// when the input says so. Committers are idempotent, so a retry after a failure is safe.
func (a *Coordinator) CommitSinks(ctx context.Context, in contract.CommitInput) error {
	v, err := openVertex(in.Vertex)
	if err != nil {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("commit checkpoint %d: %v", in.CheckpointID, err), contract.ConfigErrorType, nil)
	}
	sink, err := v.Sink(in.Job)
	if err != nil {
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.ConfigErrorType, nil)
	}
	c, err := sink.CreateCommitter()
	if err != nil {
		return fmt.Errorf("%s: committer: %w", in.Vertex.Where, err)
	}
	if c == nil {
		return nil
	}
	if in.Abort {
		err = c.Abort(ctx, in.Infos)
	} else {
		err = c.Commit(ctx, connector.CommitRequest{CheckpointID: in.CheckpointID, Final: in.Final, Infos: in.Infos})
	}
	if err == nil {
		return nil
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, in.Vertex.Where) {
		msg = in.Vertex.Where + ": " + msg
	}
	if connector.IsPermanent(err) {
		return temporal.NewNonRetryableApplicationError(msg, contract.CommitFailedType, nil)
	}
	activity.GetLogger(ctx).Warn("commit failed, will retry", "sink", in.Vertex.Where, "error", err)
	return fmt.Errorf("%s: commit: %w", in.Vertex.Where, err)
}

// CommitCheckpoint commits (or aborts) every sink of a checkpoint: the sinks at once, each
// as CommitSinks would. One activity a checkpoint instead of one a sink: fewer events,
// workflow tasks and actions on Temporal, and the sinks' commits overlap. A sink whose
// commit cannot succeed fails it without retry; otherwise a failed one is retried with the
// others (committers are idempotent, so those that succeeded are unchanged).
func (a *Coordinator) CommitCheckpoint(ctx context.Context, in contract.CommitCheckpointInput) error {
	each := in.Each()
	errs := make([]error, len(each))
	var wg sync.WaitGroup
	for i := range each {
		wg.Go(func() { errs[i] = a.CommitSinks(ctx, each[i]) })
	}
	wg.Wait()
	for _, err := range errs {
		var ae *temporal.ApplicationError
		if errors.As(err, &ae) && ae.NonRetryable() {
			return err
		}
	}
	return errors.Join(errs...)
}
