package contract

import "time"

// JobMode is SeaTunnel's env.job.mode.
type JobMode string

// The job modes.
const (
	Batch     JobMode = "BATCH"
	Streaming JobMode = "STREAMING"
)

// Job identifies a job to the plugins that run in it.
type Job struct {
	ID   int64   `json:"id"`
	Name string  `json:"name"`
	Mode JobMode `json:"mode"`
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
	// Sealed is the config and vars as written, encrypted under the cluster's secret key,
	// when they hold secrets; Config and Vars are then their masked copies, what the
	// Temporal Web UI shows. Empty: Config is the config itself.
	Sealed string `json:"sealed,omitempty"`
	// Resume carries a running job into a new run (continue-as-new): its pipelines keep
	// running and report to the workflow id.
	Resume *JobResume `json:"resume,omitempty"`
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

// PipelineStatus is one pipeline's part of a job's status, the pipeline workflow's status
// query answer and its result.
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

// PipelineState is the pipeline-state signal: a pipeline's state as it tells its job.
type PipelineState struct {
	Pipeline int      `json:"pipeline"`
	State    JobState `json:"state"`
}
