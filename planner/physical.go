package planner

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/strait-dev/strait/connector"
)

// Partitioning says how rows of an exchange edge spread over the consumer's subtasks.
type Partitioning string

// The partitionings.
const (
	// Forward sends subtask i's rows to subtask i (equal parallelism).
	Forward Partitioning = "forward"
	// Rebalance spreads batches round-robin over the consumer's subtasks.
	Rebalance Partitioning = "rebalance"
	// Hash sends each row to the subtask its key fields hash to.
	Hash Partitioning = "hash"
	// Broadcast sends every row to every subtask.
	Broadcast Partitioning = "broadcast"
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

// Group returns the task group with this id.
func (p *Pipeline) Group(id int) *TaskGroup {
	for i := range p.TaskGroups {
		if p.TaskGroups[i].ID == id {
			return &p.TaskGroups[i]
		}
	}
	return nil
}

// Edge returns the edge with this id.
func (p *Pipeline) Edge(id int) *Edge {
	for i := range p.Edges {
		if p.Edges[i].ID == id {
			return &p.Edges[i]
		}
	}
	return nil
}

// PhysicalPlan is everything needed to run a job.
type PhysicalPlan struct {
	Job       connector.Job `json:"job"`
	Env       Env           `json:"env"`
	Vertices  []*Vertex     `json:"vertices"`
	Pipelines []Pipeline    `json:"pipelines"`
	Warnings  []string      `json:"warnings,omitempty"`
}

// Vertex returns the vertex with this id.
func (pp *PhysicalPlan) Vertex(id int) *Vertex { return pp.Vertices[id-1] }

// Timeout bounds planning for a caller that has no deadline of its own to give (the command
// line): as long as the PlanJob activity may take.
const Timeout = 2 * time.Minute

// Plan parses, checks and plans a job config, for a caller with no deadline of its own (a
// test, a tool): PlanContext with context.Background().
func Plan(src Source, job connector.Job) (*PhysicalPlan, error) {
	return PlanContext(context.Background(), src, job)
}

// PlanContext parses, checks and plans a job config within ctx, the planning deadline: a
// plugin that reaches out while it is built (a database's columns, a connection check)
// gives up when ctx is done, and planning fails with its error.
func PlanContext(ctx context.Context, src Source, job connector.Job) (*PhysicalPlan, error) {
	jc, err := Parse(src)
	if err != nil {
		return nil, err
	}
	d, err := BuildDag(ctx, jc, job)
	if err != nil {
		return nil, err
	}
	return Physical(d), nil
}

// Physical splits the DAG into pipelines (its connected parts) and fuses each pipeline's
// straight chains of equal parallelism into task groups.
func Physical(d *LogicalDag) *PhysicalPlan {
	pp := &PhysicalPlan{Job: d.Job, Env: d.Env, Vertices: d.Vertices, Warnings: d.Warnings}
	n := len(d.Vertices)
	consumers := make([][]int, n+1)
	for _, v := range d.Vertices {
		for _, in := range v.Inputs {
			consumers[in] = append(consumers[in], v.ID)
		}
	}
	// connected components with a union-find over the edges
	parent := make([]int, n+1)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, v := range d.Vertices {
		for _, in := range v.Inputs {
			parent[find(v.ID)] = find(in)
		}
	}
	// pipelines are numbered in the order of their first vertex (sources come first)
	compOf := map[int]int{}
	for _, v := range d.Vertices {
		r := find(v.ID)
		if _, ok := compOf[r]; !ok {
			compOf[r] = len(pp.Pipelines)
			pp.Pipelines = append(pp.Pipelines, Pipeline{ID: len(pp.Pipelines) + 1})
		}
		p := &pp.Pipelines[compOf[r]]
		p.Vertices = append(p.Vertices, v.ID)
	}
	for i := range pp.Pipelines {
		fuse(d, &pp.Pipelines[i], consumers)
	}
	return pp
}

// fuse builds the task groups of a pipeline: a vertex joins its input's group when it has
// exactly one input, that input has exactly one consumer, and both have the same
// parallelism. Every other connection is an exchange edge.
func fuse(d *LogicalDag, p *Pipeline, consumers [][]int) {
	groupOf := map[int]int{}
	for _, id := range p.Vertices { // vertices are in topological order
		v := d.vertex(id)
		if len(v.Inputs) == 1 && len(v.PartitionBy) == 0 {
			in := d.vertex(v.Inputs[0])
			if len(consumers[in.ID]) == 1 && in.Parallelism == v.Parallelism {
				g := groupOf[in.ID]
				p.TaskGroups[g].Vertices = append(p.TaskGroups[g].Vertices, id)
				groupOf[id] = g
				continue
			}
		}
		groupOf[id] = len(p.TaskGroups)
		p.TaskGroups = append(p.TaskGroups, TaskGroup{ID: len(p.TaskGroups) + 1, Vertices: []int{id}, Parallelism: v.Parallelism})
	}
	for _, id := range p.Vertices {
		v := d.vertex(id)
		for _, in := range v.Inputs {
			from, to := groupOf[in], groupOf[id]
			if from == to {
				continue
			}
			part := Rebalance
			if d.vertex(in).Parallelism == v.Parallelism {
				part = Forward
			}
			if len(v.PartitionBy) > 0 {
				part = Hash
			}
			e := Edge{ID: len(p.Edges) + 1, From: from + 1, To: to + 1, FromVertex: in, ToVertex: id, Partitioning: part, KeyFields: v.PartitionBy}
			p.Edges = append(p.Edges, e)
			p.TaskGroups[from].Outputs = append(p.TaskGroups[from].Outputs, e.ID)
			p.TaskGroups[to].Inputs = append(p.TaskGroups[to].Inputs, e.ID)
		}
	}
	sort.SliceStable(p.TaskGroups, func(i, j int) bool { return p.TaskGroups[i].ID < p.TaskGroups[j].ID })
}

// String names an edge for plans and errors.
func (e Edge) String() string {
	s := fmt.Sprintf("e%d: g%d(v%d) -> g%d(v%d) %s", e.ID, e.From, e.FromVertex, e.To, e.ToVertex, e.Partitioning)
	if len(e.KeyFields) > 0 {
		s += fmt.Sprintf(" by %v", e.KeyFields)
	}
	return s
}
