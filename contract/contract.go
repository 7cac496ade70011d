// Package contract holds what the control plane and the task runners say to each other:
// task queue names, workflow ids, signal, update and query names, and the payloads. It has no
// behaviour, so the runner can speak it without knowing any workflow.
package contract

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Task queues and well-known ids.
const (
	// JobsQueue is where the workflows and the coordinator activities run.
	JobsQueue = "strait-jobs"
	// ResourceManagerID is the workflow id of the singleton resource manager.
	ResourceManagerID = "strait-resource-manager"
)

// Workflow type names, registered explicitly.
const (
	JobWorkflowName             = "JobWorkflow"
	PipelineWorkflowName        = "PipelineWorkflow"
	ResourceManagerWorkflowName = "ResourceManagerWorkflow"
	// ScheduledJobWorkflowName is what a schedule starts: it starts the job as a JobWorkflow
	// under a fresh job id and waits for it.
	ScheduledJobWorkflowName = "ScheduledJobWorkflow"
)

// ScheduleID is the Temporal schedule id of a Strait schedule's name.
func ScheduleID(name string) string { return "strait-schedule-" + name }

// NewJobID returns a fresh job number: milliseconds since the epoch and three random digits,
// as SeaTunnel's REST clients expect a number.
func NewJobID() int64 {
	return time.Now().UnixMilli()*1000 + rand.Int64N(1000)
}

// Activity names, registered explicitly.
const (
	PlanJobActivity           = "PlanJob"
	AllocateActivity          = "AllocateSlots"
	CommitActivity            = "CommitSinks"
	DeployActivity            = "DeployTasks"
	CancelTasksActivity       = "CancelTasks"
	TriggerCheckpointActivity = "TriggerCheckpoint"
	PersistCheckpointActivity = "PersistCheckpoint"
	LoadCheckpointActivity    = "LoadCheckpoint"
	// RunnerLeaseActivity runs on a runner for as long as it lives; its heartbeats (kept
	// outside history) are the runner's liveness.
	RunnerLeaseActivity = "RunnerLease"
)

// Signal, update and query names.
const (
	TaskReportSignal     = "task-report"
	RegisterRunnerSignal = "register-runner"
	ReleaseSlotsSignal   = "release-slots"
	RunnerLoadSignal     = "runner-load"
	RunnerLostSignal     = "runner-lost"
	// SavepointSignal asks a job (and its pipelines) to take a savepoint and stop.
	SavepointSignal = "savepoint"
	// PipelineStateSignal tells a job workflow that one of its pipelines is RUNNING (its
	// tasks deployed) or PENDING (waiting for slots).
	PipelineStateSignal = "pipeline-state"
	AllocateUpdate      = "allocate-slots"
	StatusQuery         = "status"
	ClusterQuery        = "cluster"
)

// Search attributes Strait registers and keeps current on every job workflow.
const (
	SAJobName  = "StraitJobName"
	SAJobState = "StraitJobState"
	SAJobMode  = "StraitJobMode"
)

// RunnerQueue is the task queue a runner polls for deploy and cancel calls.
func RunnerQueue(runnerID string) string { return "strait-runner-" + runnerID }

// JobWorkflowID is the workflow id of job id.
func JobWorkflowID(jobID int64) string { return fmt.Sprintf("strait-job-%d", jobID) }

// PipelineWorkflowID is the workflow id of pipeline n (1-based) of a job.
func PipelineWorkflowID(jobID int64, pipeline int) string {
	return fmt.Sprintf("strait-job-%d-p%d", jobID, pipeline)
}

// JobState is SeaTunnel's job status.
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

// TaskID names one parallel instance of a task group.
type TaskID struct {
	Group   int `json:"group"`
	Subtask int `json:"subtask"`
}

func (t TaskID) String() string { return fmt.Sprintf("g%d-%d", t.Group, t.Subtask) }

// Counters are a task's row counts. RowsRead counts what a source reader read and
// RowsWritten what a sink writer wrote, so sums over a job are its read and write counts, as
// SeaTunnel reports them; RowsReceived counts what a task took from its inputs over
// exchanges. Bytes are SeaTunnel's row sizes (SeaTunnelRow.getBytesSize: the text of
// strings, the width of numbers). Tables splits the read and written rows and bytes by the
// table id the rows carry.
type Counters struct {
	RowsRead     int64                    `json:"rowsRead"`
	RowsWritten  int64                    `json:"rowsWritten"`
	RowsFailed   int64                    `json:"rowsFailed"`
	RowsReceived int64                    `json:"rowsReceived,omitempty"`
	BytesRead    int64                    `json:"bytesRead,omitempty"`
	BytesWritten int64                    `json:"bytesWritten,omitempty"`
	Tables       map[string]TableCounters `json:"tables,omitempty"`
}

// TableCounters are the rows and bytes of one table that sources read and sinks wrote.
type TableCounters struct {
	RowsRead     int64 `json:"rowsRead,omitempty"`
	BytesRead    int64 `json:"bytesRead,omitempty"`
	RowsWritten  int64 `json:"rowsWritten,omitempty"`
	BytesWritten int64 `json:"bytesWritten,omitempty"`
}

// Add sums counters; the sum never shares the table map of o.
func (c *Counters) Add(o Counters) {
	c.RowsRead += o.RowsRead
	c.RowsWritten += o.RowsWritten
	c.RowsFailed += o.RowsFailed
	c.RowsReceived += o.RowsReceived
	c.BytesRead += o.BytesRead
	c.BytesWritten += o.BytesWritten
	if len(o.Tables) > 0 && c.Tables == nil {
		c.Tables = make(map[string]TableCounters, len(o.Tables))
	}
	for id, t := range o.Tables {
		s := c.Tables[id]
		s.RowsRead += t.RowsRead
		s.BytesRead += t.BytesRead
		s.RowsWritten += t.RowsWritten
		s.BytesWritten += t.BytesWritten
		c.Tables[id] = s
	}
}

// CommitInfo is one sink writer's prepared commit for a checkpoint.
type CommitInfo struct {
	Vertex  int    `json:"vertex"`
	Subtask int    `json:"subtask"`
	Info    []byte `json:"info"`
}

// TaskStatus is what a runner reports of one task.
type TaskStatus struct {
	Task   TaskID    `json:"task"`
	Runner string    `json:"runner,omitempty"`
	State  TaskState `json:"state"`
	Error  string    `json:"error,omitempty"`
	// Permanent marks a failure that running again cannot fix (a broken data check, a value
	// the sink refuses): the pipeline fails without restarting.
	Permanent bool         `json:"permanent,omitempty"`
	Counters  Counters     `json:"counters"`
	Commits   []CommitInfo `json:"commits,omitempty"` // the final commit infos of its sinks
}

// TaskReport is the one signal a runner sends a pipeline for a batch of task changes, or
// for a checkpoint all its tasks of the pipeline acknowledged.
type TaskReport struct {
	RunnerID   string         `json:"runnerId"`
	Epoch      int            `json:"epoch"`
	Tasks      []TaskStatus   `json:"tasks,omitempty"`
	Checkpoint *CheckpointAck `json:"checkpoint,omitempty"`
}

// CheckpointAck carries a runner's tasks' acknowledgements of one checkpoint: where each
// wrote its state, its sinks' commit infos and its counters.
type CheckpointAck struct {
	ID    int64     `json:"id"`
	Tasks []TaskAck `json:"tasks"`
}

// TaskAck is one task's acknowledgement of a checkpoint.
type TaskAck struct {
	Task     TaskID       `json:"task"`
	StateKey string       `json:"stateKey"`
	Commits  []CommitInfo `json:"commits,omitempty"`
	Counters Counters     `json:"counters"`
}

// PipelineState is a pipeline's state as it tells its job.
type PipelineState struct {
	Pipeline int      `json:"pipeline"`
	State    JobState `json:"state"`
}

// TriggerRequest asks a runner to start checkpoint ID at its source tasks of a pipeline.
type TriggerRequest struct {
	JobID        int64 `json:"jobId"`
	Pipeline     int   `json:"pipeline"`
	Epoch        int   `json:"epoch"`
	CheckpointID int64 `json:"checkpointId"`
	// Completed is the newest checkpoint of the pipeline known to be complete (committed):
	// source readers that listen are told of it before they take the new one.
	Completed int64 `json:"completed,omitempty"`
}

// RunnerInfo is what a runner tells the resource manager when it registers.
type RunnerInfo struct {
	ID        string            `json:"id"`
	TaskQueue string            `json:"taskQueue"`
	Slots     int               `json:"slots"`
	Tags      map[string]string `json:"tags,omitempty"`
	Address   string            `json:"address,omitempty"`
	Started   time.Time         `json:"started"`
}

// Load is a runner's resource use as it reports it: fractions of CPU and memory in use.
type Load struct {
	CPU    float64   `json:"cpu"`
	Memory float64   `json:"memory"`
	At     time.Time `json:"at"`
}

// AllocateRequest asks the resource manager for slots for one pipeline deployment: each
// task group's instances go to one runner; different groups may land on different runners.
type AllocateRequest struct {
	Owner     string            `json:"owner"` // the pipeline workflow id and epoch
	Groups    []GroupNeed       `json:"groups"`
	TagFilter map[string]string `json:"tagFilter,omitempty"`
	Strategy  string            `json:"strategy,omitempty"`
}

// GroupNeed is one task group's slot need.
type GroupNeed struct {
	Group int `json:"group"`
	Slots int `json:"slots"`
}

// Total is the number of slots the request needs.
func (r AllocateRequest) Total() int {
	n := 0
	for _, g := range r.Groups {
		n += g.Slots
	}
	return n
}

// SlotGrant is the slots granted to one task group on one runner.
type SlotGrant struct {
	Group     int    `json:"group"`
	RunnerID  string `json:"runnerId"`
	TaskQueue string `json:"taskQueue"`
	Address   string `json:"address,omitempty"` // the runner's exchange address
	Slots     []int  `json:"slots"`
}

// LeaseInput starts a runner's lease.
type LeaseInput struct {
	RunnerID   string `json:"runnerId"`
	Generation int    `json:"generation"`
}

// RunnerLost tells a pipeline that a runner holding its slots is gone.
type RunnerLost struct {
	RunnerID string `json:"runnerId"`
	Reason   string `json:"reason"`
}

// RunnerLoad is a runner's occasional load report.
type RunnerLoad struct {
	RunnerID string `json:"runnerId"`
	Load     Load   `json:"load"`
}

// Allocation is the answer to an AllocateRequest.
type Allocation struct {
	Owner  string      `json:"owner"`
	Grants []SlotGrant `json:"grants"`
}

// ReleaseRequest returns an owner's slots.
type ReleaseRequest struct {
	Owner string `json:"owner"`
}

// CancelRequest asks a runner to cancel a pipeline's tasks of an epoch.
type CancelRequest struct {
	JobID    int64 `json:"jobId"`
	Pipeline int   `json:"pipeline"`
	Epoch    int   `json:"epoch"`
}

// JobInput starts a job: the plain JSON a user may also give to `temporal workflow start
// --type JobWorkflow --task-queue strait-jobs --input '{"config": "env {...} ..."}'`.
type JobInput struct {
	// JobID is the job's number; when 0 it is taken from a workflow id of the form
	// strait-job-<id>, or derived from the run.
	JobID int64 `json:"jobId,omitempty"`
	// Config is the job config text, HOCON or JSON.
	Config string `json:"config"`
	// File names the config in messages; a .json name selects JSON.
	File string `json:"file,omitempty"`
	// Vars are -i variables.
	Vars map[string]string `json:"vars,omitempty"`
	// Name overrides env.job.name.
	Name string `json:"name,omitempty"`
	// Submitted is when the client submitted the job.
	Submitted time.Time `json:"submitted,omitempty"`
	// Restore starts every pipeline from its latest savepoint or checkpoint of this job id.
	Restore bool `json:"restore,omitempty"`
}

// PipelineStatus is one pipeline's part of a job's status.
type PipelineStatus struct {
	ID    int      `json:"id"`
	State JobState `json:"state"`
	Error string   `json:"error,omitempty"`
	// Restarts counts failovers; LastFailure is the cause of the latest.
	Restarts    int          `json:"restarts,omitempty"`
	LastFailure string       `json:"lastFailure,omitempty"`
	Tasks       []TaskStatus `json:"tasks,omitempty"`
	Runners     []string     `json:"runners,omitempty"`
	// Counters are the pipeline's across its attempts: Restored plus its tasks'.
	Counters Counters `json:"counters"`
	// RestoredFrom is the checkpoint the running attempt started from (0: the beginning);
	// Restored are the counts as of that checkpoint, which its tasks go on from.
	RestoredFrom int64    `json:"restoredFrom,omitempty"`
	Restored     Counters `json:"restored,omitempty"`
}

// JobStatus is what the job workflow's status query answers, and its result.
type JobStatus struct {
	JobID     int64            `json:"jobId"`
	Name      string           `json:"name"`
	Mode      string           `json:"mode,omitempty"`
	State     JobState         `json:"state"`
	Error     string           `json:"error,omitempty"`
	Submitted time.Time        `json:"submitted,omitempty"`
	Started   time.Time        `json:"started"`
	Finished  time.Time        `json:"finished,omitempty"`
	Pipelines []PipelineStatus `json:"pipelines,omitempty"`
	Counters  Counters         `json:"counters"`
	Warnings  []string         `json:"warnings,omitempty"`
}
