package workflows

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// TestReplayRecordedHistories replays histories recorded from real runs on the embedded
// server (see node.TestHistoriesReplay, STRAIT_RECORD_HISTORY): a workflow change that would
// break running jobs fails here. Changes that must alter the command sequence go behind
// workflow.GetVersion.
func TestReplayRecordedHistories(t *testing.T) {
	for _, name := range []string{"job_history.json", "pipeline_history.json", "scheduled_history.json",
		// recorded after pipelines tell their job when they run
		"job_announced_history.json", "pipeline_announced_history.json"} {
		t.Run(name, func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(JobWorkflow, workflow.RegisterOptions{Name: contract.JobWorkflowName})
			r.RegisterWorkflowWithOptions(PipelineWorkflow, workflow.RegisterOptions{Name: contract.PipelineWorkflowName})
			r.RegisterWorkflowWithOptions(ResourceManagerWorkflow, workflow.RegisterOptions{Name: contract.ResourceManagerWorkflowName})
			r.RegisterWorkflowWithOptions(ScheduledJobWorkflow, workflow.RegisterOptions{Name: contract.ScheduledJobWorkflowName})
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, filepath.Join("testdata", name)); err != nil {
				t.Fatal(err)
			}
		})
	}
}
