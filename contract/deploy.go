package contract

// ReportTo is where a runner sends the reports of a deployment's tasks. The control plane
// names it in the deployment; the runner hands it back with every report and never reads
// it.
type ReportTo string

// Deployment is the DeployTasks activity's input: the task instances of one pipeline that
// one runner must run.
type Deployment struct {
	Job      Job       `json:"job"`
	Pipeline Pipeline  `json:"pipeline"`
	Vertices []*Vertex `json:"vertices"` // the pipeline's vertices
	// Epoch numbers the pipeline's deployments; a runner drops calls of an older epoch and
	// the pipeline ignores their reports.
	Epoch    int      `json:"epoch"`
	ReportTo ReportTo `json:"workflowId"`
	// Origin tells apart the deployers of one pipeline: a job restored under its id deploys
	// again from a new origin, which is a new deployment even at the same epoch. A runner
	// compares it, never interprets it.
	Origin string   `json:"runId,omitempty"`
	Tasks  []TaskID `json:"tasks"` // the instances this runner runs
	// Placement says where every task of the pipeline runs, so exchanges can reach the
	// tasks on other runners.
	Placement []TaskPlacement `json:"placement,omitempty"`
	// Restore, when set, starts every task from a completed checkpoint.
	Restore *Restore `json:"restore,omitempty"`
	Env     Env      `json:"env"`
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
