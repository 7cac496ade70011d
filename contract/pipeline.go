package contract

import "time"

// PipelineInput starts a pipeline workflow, and carries its state into the next run when it
// continues as new.
type PipelineInput struct {
	JobID    int64     `json:"jobId"`
	Env      Env       `json:"env"`
	Job      Job       `json:"job"`
	Pipeline Pipeline  `json:"pipeline"`
	Vertices []*Vertex `json:"vertices"`
	// Restore starts the pipeline from its latest completed checkpoint or savepoint.
	Restore bool `json:"restore,omitempty"`
	// Resume carries a running pipeline into a new run (continue-as-new): its tasks keep
	// running on their runners and their signals follow the workflow id.
	Resume *PipelineResume `json:"resume,omitempty"`
	// ReportTo is the workflow id of the job that follows the pipeline by its signals
	// (pipeline-progress); empty: the job waits for the child's end instead.
	ReportTo string `json:"reportTo,omitempty"`
	// Tunables are the pipeline's timings and history bounds, its job's; zero fields are
	// the defaults.
	Tunables Tunables `json:"tunables,omitzero"`
}

// Vertex returns the pipeline's vertex with this id, nil when it has none.
func (in *PipelineInput) Vertex(id int) *Vertex { return vertexByID(in.Vertices, id) }

// PipelineResume is the state a pipeline workflow continues with.
type PipelineResume struct {
	Epoch       int               `json:"epoch"`
	Tasks       []TaskStatus      `json:"tasks"`
	Queues      map[string]string `json:"queues"`
	Runners     []string          `json:"runners"`
	LostRunners []string          `json:"lostRunners,omitempty"`
	Restarts    int               `json:"restarts,omitempty"`
	LastFailure string            `json:"lastFailure,omitempty"`
	NextID      int64             `json:"nextId"`
	Completed   int64             `json:"completed"`
	Failures    int               `json:"failures,omitempty"`
	// RestoredFrom and Restored: the checkpoint the running attempt started from and the
	// counts as of it.
	RestoredFrom int64    `json:"restoredFrom,omitempty"`
	Restored     Counters `json:"restored,omitempty"`
	// Pending is the checkpoint in flight, with the acknowledgements it has so far.
	Pending *PendingResume `json:"pending,omitempty"`
	// Carried: the commit infos of checkpoints that did not complete, committed with the
	// next one that does.
	Carried []CommitInfo `json:"carried,omitempty"`
	// CarriedInManifest: how many of Carried, from the first, a written manifest holds
	// (its commit failed); those are never aborted.
	CarriedInManifest int `json:"carriedInManifest,omitempty"`
	// Checkpoints and Failovers are the history the pipeline's status shows.
	Checkpoints *CheckpointStats `json:"checkpoints,omitempty"`
	Failovers   []Failover       `json:"failovers,omitempty"`
}

// PendingResume is a checkpoint in flight carried into a new run.
type PendingResume struct {
	ID        int64     `json:"id"`
	Savepoint bool      `json:"savepoint,omitempty"`
	Acks      []TaskAck `json:"acks,omitempty"`
	// Deadline is when the checkpoint expires (its trigger plus checkpoint.timeout); the new
	// run keeps it, so continuing as new never extends a checkpoint's time. Zero: a full
	// timeout from the new run's start.
	Deadline time.Time `json:"deadline,omitzero"`
}
