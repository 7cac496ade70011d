package contract

import (
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/planner"
)

// Deployment hands a runner the task instances of one pipeline it must run.
type Deployment struct {
	Job      connector.Job     `json:"job"`
	Pipeline planner.Pipeline  `json:"pipeline"`
	Vertices []*planner.Vertex `json:"vertices"` // the pipeline's vertices
	// Epoch numbers the pipeline's deployments; a runner drops calls of an older epoch and
	// the pipeline ignores their reports.
	Epoch      int    `json:"epoch"`
	WorkflowID string `json:"workflowId"` // where reports go
	// RunID is the pipeline workflow run that deployed; a job restored under its id deploys
	// again from a new run, which is a new deployment even at the same epoch.
	RunID string   `json:"runId,omitempty"`
	Tasks []TaskID `json:"tasks"` // the instances this runner runs
	// Placement says where every task of the pipeline runs, so exchanges can reach the
	// tasks on other runners.
	Placement []TaskPlacement `json:"placement,omitempty"`
	// Restore, when set, starts every task from a completed checkpoint.
	Restore *Restore    `json:"restore,omitempty"`
	Env     planner.Env `json:"env"`
}

// TaskPlacement is where one task runs.
type TaskPlacement struct {
	Task    TaskID `json:"task"`
	Runner  string `json:"runner"`
	Address string `json:"address,omitempty"`
}

// Restore names the checkpoint a deployment starts from and where each task's state is.
type Restore struct {
	Checkpoint int64             `json:"checkpoint"`
	States     map[string]string `json:"states"` // task (g<group>-<subtask>) -> state key
}
