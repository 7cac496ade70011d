package contract

import "encoding/json"

// PlanInput is the PlanJob activity's input.
type PlanInput struct {
	JobID  int64        `json:"jobId"`
	Source ConfigSource `json:"source"`
	// SetupSinks applies the sinks' save modes once planned (a job that is not restored).
	SetupSinks bool `json:"setupSinks,omitempty"`
	// Fresh marks a job that is not restored: checkpoints an earlier run under its id left
	// in the store are deleted, and the plan's warnings say so.
	Fresh bool `json:"fresh,omitempty"`
}

// ConfigSource is a job config as it is planned.
type ConfigSource struct {
	// File names the config in errors; its extension decides the format (.json is JSON).
	File string `json:"file"`
	// Text is the config itself.
	Text string `json:"text"`
	// Vars are the -i key=value variables.
	Vars map[string]string `json:"vars,omitempty"`
	// Name overrides env.job.name when set.
	Name string `json:"name,omitempty"`
	// Sealed is JobInput.Sealed: the config and vars to plan, Text and Vars being masked.
	Sealed string `json:"sealed,omitempty"`
}

// Plan is the PlanJob activity's result: everything needed to run a job, as the control
// plane carries it. The planner makes it; the control plane reads only the env, the
// pipelines' task groups and the vertices' ids and kinds, and hands the rest to the
// runners and committers as it is.
type Plan struct {
	Job       Job        `json:"job"`
	Env       Env        `json:"env"`
	Vertices  []*Vertex  `json:"vertices"`
	Pipelines []Pipeline `json:"pipelines"`
	Warnings  []string   `json:"warnings,omitempty"`
}

// Vertex returns the vertex with this id, nil when the plan has none.
func (p *Plan) Vertex(id int) *Vertex { return vertexByID(p.Vertices, id) }

// vertexByID returns the vertex of vs with this id, nil when vs has none.
func vertexByID(vs []*Vertex, id int) *Vertex {
	for _, v := range vs {
		if v.ID == id {
			return v
		}
	}
	return nil
}

// Env is the job's env block.
type Env struct {
	Mode               JobMode `json:"mode"`
	Name               string  `json:"name"`
	Parallelism        int     `json:"parallelism"`
	CheckpointInterval int64   `json:"checkpointInterval,omitempty"` // ms; 0 = unset
	CheckpointTimeout  int64   `json:"checkpointTimeout,omitempty"`  // ms; 0 = unset
	// TolerableCheckpointFailures is how many checkpoints in a row may fail before the
	// pipeline fails (checkpoint.tolerable-failures).
	TolerableCheckpointFailures int `json:"tolerableCheckpointFailures,omitempty"`
	// CheckpointRetained is how many completed checkpoints are kept (the engine's
	// checkpoint.max-retained).
	CheckpointRetained     int               `json:"checkpointRetained,omitempty"`
	RetryTimes             int               `json:"retryTimes"`
	RetryIntervalSeconds   int               `json:"retryIntervalSeconds"`
	TagFilter              map[string]string `json:"tagFilter,omitempty"`
	SlotWait               bool              `json:"slotWait,omitempty"`
	SlotAllocationStrategy string            `json:"slotAllocationStrategy,omitempty"`
	// ReadLimitRows and ReadLimitBytes cap what each source reader reads per second
	// (read_limit.rows_per_second, read_limit.bytes_per_second); 0 is no limit.
	ReadLimitRows  int64 `json:"readLimitRows,omitempty"`
	ReadLimitBytes int64 `json:"readLimitBytes,omitempty"`
}

// VertexKind is source, transform or sink.
type VertexKind string

// The vertex kinds.
const (
	SourceVertex    VertexKind = "source"
	TransformVertex VertexKind = "transform"
	SinkVertex      VertexKind = "sink"
)

// Vertex is one plugin instance of the job's DAG. Its options and its tables travel as the
// planner wrote them: the plugin is built again where it runs.
type Vertex struct {
	ID          int             `json:"id"`
	Kind        VertexKind      `json:"kind"`
	Plugin      string          `json:"plugin"` // canonical plugin name
	Where       string          `json:"where"`  // `sink[0] Assert`
	Options     json.RawMessage `json:"options"`
	Inputs      []int           `json:"inputs,omitempty"` // vertex ids; several = union
	Output      string          `json:"output,omitempty"` // dataset name
	Parallelism int             `json:"parallelism"`
	// PartitionBy are the fields the vertex's input is hash-partitioned by.
	PartitionBy []string `json:"partitionBy,omitempty"`
	// Tables are the catalog tables the vertex emits (sources, transforms) or receives
	// (sinks); InputTables those a transform or sink receives.
	Tables      json.RawMessage `json:"tables"`
	InputTables json.RawMessage `json:"inputTables,omitempty"`
	// TableAliases maps the table ids of a union's later inputs to the first input's.
	TableAliases map[string]string `json:"tableAliases,omitempty"`
}

// Partitioning says how rows of an exchange edge spread over the consumer's subtasks.
type Partitioning string

// The partitionings.
const (
	// PartitionForward sends subtask i's rows to subtask i (equal parallelism).
	PartitionForward Partitioning = "forward"
	// PartitionRebalance spreads batches round-robin over the consumer's subtasks.
	PartitionRebalance Partitioning = "rebalance"
	// PartitionHash sends each row to the subtask its key fields hash to.
	PartitionHash Partitioning = "hash"
	// PartitionBroadcast sends every row to every subtask.
	PartitionBroadcast Partitioning = "broadcast"
)

// TaskGroup is a chain of vertices fused into one task: one goroutine per parallel instance,
// rows handed from operator to operator without serialization.
type TaskGroup struct {
	ID          int   `json:"id"`
	Vertices    []int `json:"vertices"` // the chain, upstream first
	Parallelism int   `json:"parallelism"`
	Inputs      []int `json:"inputs,omitempty"`  // exchange edge ids
	Outputs     []int `json:"outputs,omitempty"` // exchange edge ids
}

// Edge is an exchange between two task groups: where the plan could not fuse.
type Edge struct {
	ID           int          `json:"id"`
	From         int          `json:"from"` // task group
	To           int          `json:"to"`   // task group
	FromVertex   int          `json:"fromVertex"`
	ToVertex     int          `json:"toVertex"`
	Partitioning Partitioning `json:"partitioning"`
	KeyFields    []string     `json:"keyFields,omitempty"`
}

// Pipeline is one connected part of the DAG: it is scheduled, checkpointed, fails and
// recovers on its own.
type Pipeline struct {
	ID         int         `json:"id"` // 1-based
	Vertices   []int       `json:"vertices"`
	TaskGroups []TaskGroup `json:"taskGroups"`
	Edges      []Edge      `json:"edges,omitempty"`
}

// Slots is the number of slots the pipeline needs: one per task instance.
func (p *Pipeline) Slots() int {
	n := 0
	for _, g := range p.TaskGroups {
		n += g.Parallelism
	}
	return n
}

// Group returns the task group with this id, nil when the pipeline has none.
func (p *Pipeline) Group(id int) *TaskGroup {
	for i := range p.TaskGroups {
		if p.TaskGroups[i].ID == id {
			return &p.TaskGroups[i]
		}
	}
	return nil
}

// Edge returns the edge with this id, nil when the pipeline has none.
func (p *Pipeline) Edge(id int) *Edge {
	for i := range p.Edges {
		if p.Edges[i].ID == id {
			return &p.Edges[i]
		}
	}
	return nil
}
