package contract

// JobState is SeaTunnel's job status; a pipeline's status takes the same values, and a few
// of its own while it deploys, commits or restarts.
type JobState string

// The job states.
const (
	JobCreated      JobState = "CREATED"
	JobInitializing JobState = "INITIALIZING"
	JobPending      JobState = "PENDING"
	JobScheduled    JobState = "SCHEDULED"
	JobRunning      JobState = "RUNNING"
	JobFailing      JobState = "FAILING"
	JobFailed       JobState = "FAILED"
	JobCanceling    JobState = "CANCELING"
	JobCanceled     JobState = "CANCELED"
	JobFinished     JobState = "FINISHED"
	// JobDoingSavepoint and JobSavepointDone: a savepoint is being taken; it was taken and
	// the job stopped (restore it with `strait job restore`).
	JobDoingSavepoint JobState = "DOING_SAVEPOINT"
	JobSavepointDone  JobState = "SAVEPOINT_DONE"
)

// The states only a pipeline passes through.
const (
	// PipelineDeploying: slots are granted and the tasks are being handed to the runners.
	PipelineDeploying JobState = "DEPLOYING"
	// PipelineCommitting: every task closed; the sinks' committers run.
	PipelineCommitting JobState = "COMMITTING"
	// PipelineRestarting: a failover waits its retry interval before it deploys again.
	PipelineRestarting JobState = "RESTARTING"
)

// Terminal reports whether no change follows the state.
func (s JobState) Terminal() bool {
	return s == JobFailed || s == JobCanceled || s == JobFinished || s == JobSavepointDone
}

// TaskState is the seed's task state machine: CREATED → INIT → READY_START → STARTING →
// RUNNING → PREPARE_CLOSE → CLOSED, and CANCELING → CANCELED, FAILED from anywhere.
type TaskState string

// The task states.
const (
	TaskCreated      TaskState = "CREATED"
	TaskInit         TaskState = "INIT"
	TaskReadyStart   TaskState = "READY_START"
	TaskStarting     TaskState = "STARTING"
	TaskRunning      TaskState = "RUNNING"
	TaskPrepareClose TaskState = "PREPARE_CLOSE"
	TaskClosed       TaskState = "CLOSED"
	TaskCanceling    TaskState = "CANCELING"
	TaskCanceled     TaskState = "CANCELED"
	TaskFailed       TaskState = "FAILED"
)

// Terminal reports whether the task has ended.
func (s TaskState) Terminal() bool {
	return s == TaskClosed || s == TaskCanceled || s == TaskFailed
}

// RunnerState is a runner's state in the resource manager.
type RunnerState string

// The runner states.
const (
	// RunnerStateAlive: registered, and its lease is kept alive.
	RunnerStateAlive RunnerState = "ALIVE"
	// RunnerStateLost: its lease lapsed; it has no free slots until it registers again.
	RunnerStateLost RunnerState = "LOST"
)
