// Package worker registers Strait's workflows and activities on Temporal workers: the jobs
// worker (workflows and coordinator activities, any number of processes) and a runner's own
// worker (deploy and cancel, on the runner's task queue).
package worker

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/activities"
	"github.com/strait-dev/strait/checkpointstore"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/engineconfig"
	"github.com/strait-dev/strait/taskrunner"
	"github.com/strait-dev/strait/workflows"
)

// RegisterWorkflows registers the workflows under their explicit names.
func RegisterWorkflows(r sdkworker.WorkflowRegistry) {
	for name, fn := range map[string]any{
		contract.JobWorkflowName:             workflows.JobWorkflow,
		contract.PipelineWorkflowName:        workflows.PipelineWorkflow,
		contract.ResourceManagerWorkflowName: workflows.ResourceManagerWorkflow,
		contract.ScheduledJobWorkflowName:    workflows.ScheduledJobWorkflow,
	} {
		r.RegisterWorkflowWithOptions(fn, workflow.RegisterOptions{Name: name})
	}
}

// RegisterCoordinatorActivities registers the control plane's activities.
func RegisterCoordinatorActivities(r sdkworker.ActivityRegistry, a *activities.Coordinator) {
	registerActivities(r, map[string]any{
		contract.PlanJobActivity:           a.PlanJob,
		contract.AllocateActivity:          a.AllocateSlots,
		contract.CommitActivity:            a.CommitSinks,
		contract.CommitCheckpointActivity:  a.CommitCheckpoint,
		contract.PersistCheckpointActivity: a.PersistCheckpoint,
		contract.LoadCheckpointActivity:    a.LoadCheckpoint,
		contract.DescribePipelinesActivity: a.DescribePipelines,
	})
}

// RegisterRunnerActivities registers a runner's activities.
func RegisterRunnerActivities(r sdkworker.ActivityRegistry, a *activities.Runner) {
	registerActivities(r, map[string]any{
		contract.DeployActivity:            a.DeployTasks,
		contract.CancelTasksActivity:       a.CancelTasks,
		contract.TriggerCheckpointActivity: a.TriggerCheckpoint,
		contract.RunnerLeaseActivity:       a.RunnerLease,
	})
}

// registerActivities registers each function under its name.
func registerActivities(r sdkworker.ActivityRegistry, byName map[string]any) {
	for name, fn := range byName {
		r.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
}

// NewJobsWorker makes the worker that hosts the workflows and coordinator activities.
func NewJobsWorker(c client.Client, log *slog.Logger, store checkpointstore.Store, engine *engineconfig.Config) sdkworker.Worker {
	w := sdkworker.New(c, contract.JobsQueue, sdkworker.Options{
		BuildID: BuildID(),
		// A workflow task waits this long for the worker that ran the workflow last before
		// any worker may take it: the time a job stands still when that worker died or
		// Temporal restarted (the SDK's default is 5 s). A miss costs a replay, which
		// continue-as-new keeps short.
		StickyScheduleToStartTimeout: 2 * time.Second,
		Interceptors:                 []interceptor.WorkerInterceptor{&heartbeats{}},
	})
	RegisterWorkflows(w)
	RegisterCoordinatorActivities(w, &activities.Coordinator{Client: c, Log: log, Store: store, Engine: engine})
	return w
}

// NewRunnerWorker makes the worker a runner serves its deploy and cancel calls on.
func NewRunnerWorker(c client.Client, r *taskrunner.Runner) sdkworker.Worker {
	w := sdkworker.New(c, contract.RunnerQueue(r.ID()), sdkworker.Options{
		BuildID:                            BuildID(),
		MaxConcurrentActivityExecutionSize: max(r.Slots(), 4)*2 + 2,
		// heartbeats of the lease must reach the server well inside its timeout
		MaxHeartbeatThrottleInterval: 2 * time.Second,
	})
	RegisterRunnerActivities(w, &activities.Runner{Runner: r})
	return w
}

// EnsureSearchAttributes registers Strait's search attributes in the namespace if they are
// missing, so a job can be listed and filtered by name, state and mode.
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	want := contract.SearchAttributes
	have, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("list search attributes: %w", err)
	}
	missing := map[string]enums.IndexedValueType{}
	for k, t := range want {
		if _, ok := have.GetCustomAttributes()[k]; !ok {
			missing[k] = t
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if _, err := c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: missing,
	}); err != nil {
		return fmt.Errorf("add search attributes: %w", err)
	}
	return nil
}

// BuildID names the code a worker runs: the module's version and VCS revision from the
// binary's build information. Given to the SDK as the worker's build id and as its binary
// checksum, it stands for the checksum the SDK would otherwise compute of the whole
// executable when the first worker starts (hundreds of milliseconds for a binary of Strait's
// size; the build id option alone does not spare it).
func BuildID() string {
	buildIDOnce.Do(func() {
		defer func() { sdkworker.SetBinaryChecksum(buildID) }()
		buildID = "strait"
		info, ok := debug.ReadBuildInfo()
		if !ok {
			return
		}
		if v := info.Main.Version; v != "" && v != "(devel)" {
			buildID += "@" + v
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision":
				buildID += "+" + s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				buildID += "-dirty"
			}
		}
	})
	return buildID
}

var (
	buildIDOnce sync.Once
	buildID     string
)
