// Package contract is everything that crosses a process or a Temporal boundary in Strait:
// task queue names, workflow ids, the names of workflows, activities, signals, queries and
// updates, the search attributes, the error types clients match on, every job, pipeline,
// task and runner state, and every payload: workflow inputs and results, activity inputs
// and outputs, signal, update and query payloads.
//
// It has no behaviour (no clock, no randomness, no I/O) and depends on no other package of
// Strait, so every side speaks it without knowing the others: the workflows know no
// connector, the runners know no workflow. Payload field names are part of the recorded
// histories of running jobs; they never change.
package contract

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
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

// Activity names, registered explicitly.
const (
	PlanJobActivity  = "PlanJob"
	AllocateActivity = "AllocateSlots"
	CommitActivity   = "CommitSinks"
	// CommitCheckpointActivity commits (or aborts) every sink of a checkpoint in one
	// activity, the sinks at once; CommitSinks did one sink per activity.
	CommitCheckpointActivity  = "CommitCheckpoint"
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

// DefaultJobName is a job's name when neither its config nor its submitter names it, as
// SeaTunnel names it.
const DefaultJobName = "SeaTunnel_Job"

const jobWorkflowPrefix = "strait-job-"

// RunnerQueue is the task queue a runner polls for deploy and cancel calls.
func RunnerQueue(runnerID string) string { return "strait-runner-" + runnerID }

// JobWorkflowID is the workflow id of job id.
func JobWorkflowID(jobID int64) string { return fmt.Sprintf("%s%d", jobWorkflowPrefix, jobID) }

// PipelineWorkflowID is the workflow id of pipeline n (1-based) of a job.
func PipelineWorkflowID(jobID int64, pipeline int) string {
	return fmt.Sprintf("%s%d-p%d", jobWorkflowPrefix, jobID, pipeline)
}

// ScheduleID is the Temporal schedule id of a Strait schedule's name.
func ScheduleID(name string) string { return "strait-schedule-" + name }

// ScheduledWorkflowID is the workflow id of the runs a Strait schedule starts.
func ScheduledWorkflowID(name string) string { return "strait-scheduled-" + name }

// JobIDFor resolves a job's number: the input's, or the one in a workflow id of the form
// strait-job-<id>, or a stable number derived from the workflow id (a job started by hand
// under an id of the user's choosing).
func JobIDFor(in JobInput, workflowID string) int64 {
	if id, ok := canonicalJobID(in, workflowID); ok {
		return id
	}
	// 53 bits: the id survives JSON readers that hold numbers as doubles (JavaScript, the
	// Temporal CLI's and Web UI's output)
	h := fnv.New64a()
	h.Write([]byte(workflowID))
	return int64(h.Sum64() >> 11)
}

// LegacyJobIDFor is JobIDFor as job workflows started before 53-bit ids derived theirs
// (63 bits); workflow code replaying such a job uses it.
func LegacyJobIDFor(in JobInput, workflowID string) int64 {
	if id, ok := canonicalJobID(in, workflowID); ok {
		return id
	}
	h := fnv.New64a()
	h.Write([]byte(workflowID))
	return int64(h.Sum64() >> 1)
}

func canonicalJobID(in JobInput, workflowID string) (int64, bool) {
	if in.JobID > 0 {
		return in.JobID, true
	}
	if rest, ok := strings.CutPrefix(workflowID, jobWorkflowPrefix); ok {
		if n, err := strconv.ParseInt(rest, 10, 64); err == nil && n > 0 {
			return n, true
		}
	}
	return 0, false
}

// JobNumber composes a job number as SeaTunnel's REST clients expect one: the milliseconds
// of at since the epoch, then three digits of salt (0-999) that keep two jobs submitted in
// the same millisecond apart.
func JobNumber(at time.Time, salt int64) int64 {
	return at.UnixMilli()*1000 + salt%1000
}
