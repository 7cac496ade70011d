package workflows

import (
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// recordedEventsPerRun is the tunable PipelineEventsBeforeContinue of the histories
// TestRecordPipelineHistories records: a run continues as new after three events, and its
// replay must count the same.
const recordedEventsPerRun = 3

// TestReplayRecordedHistories replays histories recorded from real runs on the embedded
// server (see node.TestHistoriesReplay, STRAIT_RECORD_HISTORY, and for the pipeline's rarer
// steps TestRecordPipelineHistories, build tag record): a workflow change that would break
// running jobs fails here. Changes that must alter the command sequence go behind
// workflow.GetVersion.
func TestReplayRecordedHistories(t *testing.T) {
	for _, h := range []struct {
		name string
		// eventsPerRun is the tunable PipelineEventsBeforeContinue when it was recorded; 0 the
		// default
		eventsPerRun int
		// rmEventsPerRun is the resource manager's ResourceEventsBeforeContinue when it was
		// recorded
		rmEventsPerRun int
		// followed: recorded by node.TestJobContinuesAsNewWhileItsPipelinesRun, with its
		// JobEventsBeforeContinue and ProgressInterval
		followed bool
	}{
		{name: "job_history.json"}, {name: "pipeline_history.json"}, {name: "scheduled_history.json"},
		// recorded after pipelines tell their job when they run
		{name: "job_announced_history.json"}, {name: "pipeline_announced_history.json"},
		// a run continuing as new with a checkpoint in flight, and the run completing it
		{name: "pipeline_continued_history.json", eventsPerRun: recordedEventsPerRun},
		{name: "pipeline_resumed_history.json", eventsPerRun: recordedEventsPerRun},
		// a savepoint asked for as the run continues as new, taken in that run
		{name: "pipeline_savepoint_at_continue_history.json", eventsPerRun: recordedEventsPerRun},
		// a runner declared lost while the pipeline stops its tasks
		{name: "pipeline_lost_while_stopping_history.json", eventsPerRun: recordedEventsPerRun},
		// the same three recorded before those steps were versioned: the checkpoint in flight
		// dropped, the savepoint left behind, the lost runner waited for
		{name: "pipeline_unversioned_continued_history.json", eventsPerRun: recordedEventsPerRun},
		{name: "pipeline_unversioned_savepoint_at_continue_history.json", eventsPerRun: recordedEventsPerRun},
		{name: "pipeline_unversioned_lost_while_stopping_history.json", eventsPerRun: recordedEventsPerRun},
		// checkpoints whose manifests a local activity wrote (persist-local-activity)
		{name: "pipeline_persist_local_history.json"},
		// a job that follows its pipeline by signal: its first run continuing as new, the run
		// that ends it, and the pipeline reporting its progress
		{name: "job_followed_history.json", followed: true}, {name: "job_followed_resumed_history.json", followed: true},
		{name: "pipeline_followed_history.json", followed: true},
		// the resource manager: registrations, an allocation by tags, a load report, a
		// release and a registration again, up to its continue-as-new
		// (TestRecordResourceManagerHistories, build tag record); recorded before the
		// update-tags update existed, which changed no command of it
		{name: "resources_history.json", rmEventsPerRun: 6},
		// runner tags replaced by update-tags, an allocation on them, a registration that
		// keeps them (TestRecordResourceManagerHistories/resources_tags)
		{name: "resources_tags_history.json", rmEventsPerRun: 6},
	} {
		t.Run(h.name, func(t *testing.T) {
			recorded := contract.Tunables{PipelineEventsBeforeContinue: h.eventsPerRun,
				ResourceEventsBeforeContinue: h.rmEventsPerRun}
			if h.followed {
				recorded.JobEventsBeforeContinue, recorded.ProgressInterval = followedEventsPerRun, followedProgressInterval
			}
			r := worker.NewWorkflowReplayer()
			registerRecorded(r, recorded)
			r.RegisterWorkflowWithOptions(ScheduledJobWorkflow, workflow.RegisterOptions{Name: contract.ScheduledJobWorkflowName})
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, filepath.Join("testdata", h.name)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// followedEventsPerRun and followedProgressInterval are the tunables
// JobEventsBeforeContinue and ProgressInterval node.TestJobContinuesAsNewWhileItsPipelinesRun
// records the followed histories with.
const (
	followedEventsPerRun     = 3
	followedProgressInterval = 50 * time.Millisecond
)

// registerRecorded registers the job, pipeline and resource manager workflows with a
// replayer, each run taking the tunables it was recorded with when its input carries none:
// the histories recorded before the inputs carried the tunables ran with settings of the
// recording test's own, which their inputs do not show.
func registerRecorded(r worker.WorkflowReplayer, recorded contract.Tunables) {
	or := func(in contract.Tunables) contract.Tunables {
		if in == (contract.Tunables{}) {
			return recorded
		}
		return in
	}
	r.RegisterWorkflowWithOptions(func(ctx workflow.Context, in contract.JobInput) (*contract.JobStatus, error) {
		in.Tunables = or(in.Tunables)
		return JobWorkflow(ctx, in)
	}, workflow.RegisterOptions{Name: contract.JobWorkflowName})
	r.RegisterWorkflowWithOptions(func(ctx workflow.Context, in contract.PipelineInput) (*contract.PipelineStatus, error) {
		in.Tunables = or(in.Tunables)
		return PipelineWorkflow(ctx, in)
	}, workflow.RegisterOptions{Name: contract.PipelineWorkflowName})
	r.RegisterWorkflowWithOptions(func(ctx workflow.Context, in contract.ResourceState) error {
		in.Tunables = or(in.Tunables)
		return ResourceManagerWorkflow(ctx, in)
	}, workflow.RegisterOptions{Name: contract.ResourceManagerWorkflowName})
}
