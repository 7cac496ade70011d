package contract

import "fmt"

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

// TaskReport is the task-report signal: the one signal a runner sends a pipeline for a
// batch of task changes, or for a checkpoint all its tasks of the pipeline acknowledged.
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
	// Declined, when set, says why the checkpoint cannot complete on the runner (a task's
	// state could not be stored): the coordinator aborts it at once. Tasks then holds the
	// acknowledgements of the runner's tasks that had stored theirs.
	Declined string `json:"declined,omitempty"`
}

// TaskAck is one task's acknowledgement of a checkpoint.
type TaskAck struct {
	Task     TaskID `json:"task"`
	StateKey string `json:"stateKey"`
	// StateBytes is the size of the state the task wrote.
	StateBytes int64        `json:"stateBytes,omitempty"`
	Commits    []CommitInfo `json:"commits,omitempty"`
	Counters   Counters     `json:"counters"`
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

// CancelRequest asks a runner to cancel a pipeline's tasks of an epoch.
type CancelRequest struct {
	JobID    int64 `json:"jobId"`
	Pipeline int   `json:"pipeline"`
	Epoch    int   `json:"epoch"`
}
