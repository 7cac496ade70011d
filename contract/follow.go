package contract

// A job workflow follows its pipelines by their signals: each pipeline tells it its
// progress (state and counts) and, last, how it ended. So the job's status query answers
// live counts, and the job workflow can continue as new while its pipelines run (a child's
// end reaches only the run that started it, a signal reaches the current run).
const (
	// PipelineProgressSignal carries a PipelineProgress to the job workflow.
	PipelineProgressSignal = "pipeline-progress"
	// DescribePipelinesActivity looks up pipelines the job has not heard from for a while:
	// whether each still runs, and how it ended if not (it was terminated, or its last
	// signal could not be sent).
	DescribePipelinesActivity = "DescribePipelines"
)

// PipelineProgress is a pipeline's progress as its job learns it. Ended: the last one,
// with the pipeline's final status.
type PipelineProgress struct {
	Status PipelineStatus `json:"status"`
	Ended  bool           `json:"ended,omitempty"`
}

// DescribeInput names the pipeline workflows to look up.
type DescribeInput struct {
	WorkflowIDs []string `json:"workflowIds"`
}

// PipelineLookup is what DescribePipelines found of one pipeline workflow: still running,
// or closed with its final status (a terminated or timed-out one reads FAILED).
type PipelineLookup struct {
	WorkflowID string          `json:"workflowId"`
	Running    bool            `json:"running"`
	Status     *PipelineStatus `json:"status,omitempty"`
}

// JobResume carries a running job into a new run of its workflow (continue-as-new).
type JobResume struct {
	Status JobStatus `json:"status"`
	// Running lists the pipelines (by id) that have not ended.
	Running []int `json:"running"`
	// Failure is the first pipeline failure, Stopping that the running pipelines were
	// asked to stop (a failure or the job's cancel).
	Failure  string `json:"failure,omitempty"`
	Stopping bool   `json:"stopping,omitempty"`
	// Announced: the job takes its RUNNING and PENDING states from its pipelines.
	Announced bool `json:"announced,omitempty"`
}
