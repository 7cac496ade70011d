package contract

import "time"

// The checkpoint defaults, as SeaTunnel's engine has them: the interval of a STREAMING job
// whose env and engine config set none, the timeout of a checkpoint, and how many completed
// checkpoints a pipeline keeps.
const (
	DefaultStreamingCheckpointInterval = 30 * time.Second
	DefaultCheckpointTimeout           = 10 * time.Minute
	DefaultRetainedCheckpoints         = 3
)

// PersistInput asks for a checkpoint's manifest to be written (the commit point) and old
// checkpoints beyond the retention to be deleted.
type PersistInput struct {
	Manifest Manifest `json:"manifest"`
	Retain   int      `json:"retain"`
}

// LoadInput asks for a pipeline's checkpoint to restore; the answer is a *Manifest, nil when
// there is none.
type LoadInput struct {
	Job      int64 `json:"job"`
	Pipeline int   `json:"pipeline"`
	// Checkpoint names the checkpoint to load; 0 loads the newest in the store (an explicit
	// restore of a job).
	Checkpoint int64 `json:"checkpoint,omitempty"`
}

// Manifest is a completed checkpoint of a pipeline: where each task's state is, the sinks'
// commit infos and the counts as of the checkpoint. The checkpoint store writes it as it is
// (manifest.json), and writing it is the checkpoint's commit point.
type Manifest struct {
	Job        int64            `json:"job"`
	Pipeline   int              `json:"pipeline"`
	Checkpoint int64            `json:"checkpoint"`
	Savepoint  bool             `json:"savepoint,omitempty"`
	Completed  time.Time        `json:"completed"`
	Tasks      []ManifestTask   `json:"tasks"`
	Commits    map[int][][]byte `json:"commits,omitempty"` // sink vertex -> commit infos
	// Counters are the pipeline's counts as of the checkpoint, across attempts: a restore
	// goes on counting from them, so a job's totals match what its sinks hold.
	Counters Counters `json:"counters,omitempty"`
}

// ManifestTask is one task's part of a checkpoint.
type ManifestTask struct {
	Task string `json:"task"` // g<group>-<subtask>
	Key  string `json:"key"`  // the blob with its state
}

// CommitCheckpointInput asks for every sink's committer to commit (or abort) a checkpoint's
// infos, in one activity.
type CommitCheckpointInput struct {
	Job          Job          `json:"job"`
	CheckpointID int64        `json:"checkpointId"`
	Final        bool         `json:"final"`
	Abort        bool         `json:"abort,omitempty"`
	Sinks        []SinkCommit `json:"sinks"`
}

// SinkCommit is one sink's part of a CommitCheckpointInput: its writers' infos in subtask
// order.
type SinkCommit struct {
	Vertex *Vertex  `json:"vertex"`
	Infos  [][]byte `json:"infos"`
}

// Each is the input as one CommitInput per sink.
func (in CommitCheckpointInput) Each() []CommitInput {
	out := make([]CommitInput, len(in.Sinks))
	for i, s := range in.Sinks {
		out[i] = CommitInput{Job: in.Job, Vertex: s.Vertex, CheckpointID: in.CheckpointID, Final: in.Final, Infos: s.Infos, Abort: in.Abort}
	}
	return out
}

// CommitInput asks for one sink's committer to commit a checkpoint's infos.
type CommitInput struct {
	Job          Job      `json:"job"`
	Vertex       *Vertex  `json:"vertex"`
	CheckpointID int64    `json:"checkpointId"`
	Final        bool     `json:"final"`
	Infos        [][]byte `json:"infos"`
	// Abort discards the infos' prepared writes instead: their checkpoint never completed
	// and the job stopped (cancelled, or failed past its retries).
	Abort bool `json:"abort,omitempty"`
}
