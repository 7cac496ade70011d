package contract

import (
	"time"

	"github.com/strait-dev/strait/jobinfo"
)

// JobMode is SeaTunnel's env.job.mode.
type JobMode = jobinfo.Mode

// The job modes.
const (
	Batch     = jobinfo.Batch
	Streaming = jobinfo.Streaming
)

// Job identifies a job to the plugins that run in it.
type Job = jobinfo.Job

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
	// Tunables are the job's and its pipelines' timings and history bounds; zero fields
	// are the defaults.
	Tunables Tunables `json:"tunables,omitzero"`
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
	// Checkpoints are the pipeline's checkpoints as its coordinator saw them; Failovers its
	// newest restarts with their causes, oldest first.
	Checkpoints *CheckpointStats `json:"checkpoints,omitempty"`
	Failovers   []Failover       `json:"failovers,omitempty"`
}

// Checkpoint states, as a pipeline's checkpoint history shows them.
const (
	CheckpointInProgress = "IN_PROGRESS"
	CheckpointCompleted  = "COMPLETED"
	CheckpointFailed     = "FAILED"
	// CheckpointDiscarded: the tasks stopped while it was in flight (a failover, the end of
	// the input); not a failure.
	CheckpointDiscarded = "DISCARDED"
)

// RecentCheckpoints and RecentFailovers bound the history a pipeline keeps in its status and
// carries into a new run.
const (
	RecentCheckpoints = 20
	RecentFailovers   = 10
	// failureText bounds a kept failure's text.
	failureText = 1024
)

// CheckpointStats counts a pipeline's checkpoints and keeps the newest, oldest first.
type CheckpointStats struct {
	Completed int64              `json:"completed"`
	Failed    int64              `json:"failed"`
	Recent    []CheckpointRecord `json:"recent,omitempty"`
}

// CheckpointRecord is one checkpoint: when it was triggered, how long it took to complete
// (its manifest written and its sinks committed), the state its tasks wrote, and why it
// failed.
type CheckpointRecord struct {
	ID        int64         `json:"id"`
	Savepoint bool          `json:"savepoint,omitempty"`
	State     string        `json:"state"`
	Triggered time.Time     `json:"triggered"`
	Duration  time.Duration `json:"duration,omitempty"`
	Bytes     int64         `json:"bytes,omitempty"`
	Acks      int           `json:"acks,omitempty"`
	Failure   string        `json:"failure,omitempty"`
}

// Begin records a checkpoint triggered at t.
func (s *CheckpointStats) Begin(id int64, savepoint bool, t time.Time) {
	if s.find(id) != nil {
		return
	}
	s.Recent = append(s.Recent, CheckpointRecord{ID: id, Savepoint: savepoint, State: CheckpointInProgress, Triggered: t})
	if n := len(s.Recent) - RecentCheckpoints; n > 0 {
		s.Recent = append(s.Recent[:0], s.Recent[n:]...)
	}
}

// Complete records a checkpoint completed at t, with its tasks' state size and number.
func (s *CheckpointStats) Complete(id int64, t time.Time, bytes int64, acks int) {
	s.Completed++
	if r := s.find(id); r != nil {
		r.State, r.Duration, r.Bytes, r.Acks = CheckpointCompleted, t.Sub(r.Triggered), bytes, acks
	}
}

// Fail records a checkpoint that failed at t, and why.
func (s *CheckpointStats) Fail(id int64, t time.Time, why string) {
	s.Failed++
	if r := s.find(id); r != nil {
		r.State, r.Duration, r.Failure = CheckpointFailed, t.Sub(r.Triggered), clip(why)
	}
}

// Discard records a checkpoint dropped in flight because its tasks stopped.
func (s *CheckpointStats) Discard(id int64, t time.Time) {
	if r := s.find(id); r != nil && r.State == CheckpointInProgress {
		r.State, r.Duration = CheckpointDiscarded, t.Sub(r.Triggered)
	}
}

func (s *CheckpointStats) find(id int64) *CheckpointRecord {
	for i := len(s.Recent) - 1; i >= 0; i-- {
		if s.Recent[i].ID == id {
			return &s.Recent[i]
		}
	}
	return nil
}

// Copy is a copy that shares nothing with s.
func (s *CheckpointStats) Copy() *CheckpointStats {
	if s == nil {
		return nil
	}
	c := *s
	c.Recent = append([]CheckpointRecord(nil), s.Recent...)
	return &c
}

// Failover is one restart of a pipeline: when, the attempt it ended, and its cause.
type Failover struct {
	At    time.Time `json:"at"`
	Epoch int       `json:"epoch"`
	Cause string    `json:"cause"`
}

// AddFailover keeps a restart among the newest RecentFailovers.
func AddFailover(fs []Failover, f Failover) []Failover {
	f.Cause = clip(f.Cause)
	fs = append(fs, f)
	if n := len(fs) - RecentFailovers; n > 0 {
		fs = append(fs[:0:0], fs[n:]...)
	}
	return fs
}

func clip(s string) string {
	if len(s) <= failureText {
		return s
	}
	cut := failureText
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut-- // not inside a UTF-8 sequence
	}
	return s[:cut] + "…"
}

// PipelineState is the pipeline-state signal: a pipeline's state as it tells its job.
type PipelineState struct {
	Pipeline int      `json:"pipeline"`
	State    JobState `json:"state"`
}
