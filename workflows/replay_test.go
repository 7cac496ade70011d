package workflows

import (
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// recordedEventsPerRun is PipelineEventsBeforeContinue in the histories
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
		// eventsPerRun is PipelineEventsBeforeContinue when it was recorded; 0 the default
		eventsPerRun int
		// rmEventsPerRun is the resource manager's eventsBeforeContinue when it was recorded
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
			if h.eventsPerRun > 0 {
				fewEventsPerRun(t, h.eventsPerRun)
			}
			if h.followed {
				recordedFollowing(t)
			}
			if h.rmEventsPerRun > 0 {
				old := eventsBeforeContinue
				eventsBeforeContinue = h.rmEventsPerRun
				t.Cleanup(func() { eventsBeforeContinue = old })
			}
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(JobWorkflow, workflow.RegisterOptions{Name: contract.JobWorkflowName})
			r.RegisterWorkflowWithOptions(PipelineWorkflow, workflow.RegisterOptions{Name: contract.PipelineWorkflowName})
			r.RegisterWorkflowWithOptions(ResourceManagerWorkflow, workflow.RegisterOptions{Name: contract.ResourceManagerWorkflowName})
			r.RegisterWorkflowWithOptions(ScheduledJobWorkflow, workflow.RegisterOptions{Name: contract.ScheduledJobWorkflowName})
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, filepath.Join("testdata", h.name)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// recordedFollowing sets JobEventsBeforeContinue and ProgressInterval to what
// node.TestJobContinuesAsNewWhileItsPipelinesRun records the followed histories with.
func recordedFollowing(t *testing.T) {
	events, interval := JobEventsBeforeContinue, ProgressInterval
	JobEventsBeforeContinue, ProgressInterval = 3, 50*time.Millisecond
	t.Cleanup(func() { JobEventsBeforeContinue, ProgressInterval = events, interval })
}
