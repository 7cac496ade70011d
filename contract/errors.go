package contract

// The types of the Temporal application errors Strait's workflows and activities fail with;
// clients, retry policies and the workflows themselves match on them.
const (
	// ConfigErrorType: the job config cannot run (a bad option, a sink whose setup refused);
	// planning is not retried.
	ConfigErrorType = "ConfigError"
	// JobFailedType: a job failed; the error's details carry its final JobStatus.
	JobFailedType = "JobFailed"
	// PipelineFailedType: a pipeline failed; the details carry its final PipelineStatus.
	PipelineFailedType = "PipelineFailed"
	// NoEnoughResource: no runner has the slots an allocation asks for.
	NoEnoughResource = "NoEnoughResource"
	// DeployFailedType: a runner refused a deployment, or an allocation did not fit the plan.
	DeployFailedType = "DeployFailed"
	// CommitFailedType: a sink's commit failed for good, or a checkpoint cannot be stored or
	// found.
	CommitFailedType = "CommitFailed"
)
