package planner

import (
	"context"
	"sort"
	"time"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
)

// Timeout bounds planning for a caller that has no deadline of its own to give (the command
// line): as long as the PlanJob activity may take.
const Timeout = 2 * time.Minute

// Plan parses, checks and plans a job config, for a caller with no deadline of its own (a
// test, a tool): PlanContext with context.Background().
func Plan(src contract.ConfigSource, job connector.Job) (*contract.Plan, error) {
	return PlanContext(context.Background(), src, job)
}

// PlanContext parses, checks and plans a job config within ctx, the planning deadline: a
// plugin that reaches out while it is built (a database's columns, a connection check)
// gives up when ctx is done, and planning fails with its error.
func PlanContext(ctx context.Context, src contract.ConfigSource, job connector.Job) (*contract.Plan, error) {
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
// straight chains of equal parallelism into task groups: the plan as the control plane
// carries it.
func Physical(d *LogicalDag) *contract.Plan {
	pp := &contract.Plan{Job: d.Job, Env: d.Env,
		Vertices: make([]*contract.Vertex, len(d.Vertices)), Warnings: d.Warnings}
	for i, v := range d.Vertices {
		pp.Vertices[i] = v.Vertex
	}
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
			pp.Pipelines = append(pp.Pipelines, contract.Pipeline{ID: len(pp.Pipelines) + 1})
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
func fuse(d *LogicalDag, p *contract.Pipeline, consumers [][]int) {
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
		p.TaskGroups = append(p.TaskGroups, contract.TaskGroup{ID: len(p.TaskGroups) + 1, Vertices: []int{id}, Parallelism: v.Parallelism})
	}
	for _, id := range p.Vertices {
		v := d.vertex(id)
		for _, in := range v.Inputs {
			from, to := groupOf[in], groupOf[id]
			if from == to {
				continue
			}
			part := contract.PartitionRebalance
			if d.vertex(in).Parallelism == v.Parallelism {
				part = contract.PartitionForward
			}
			if len(v.PartitionBy) > 0 {
				part = contract.PartitionHash
			}
			e := contract.Edge{ID: len(p.Edges) + 1, From: from + 1, To: to + 1, FromVertex: in, ToVertex: id, Partitioning: part, KeyFields: v.PartitionBy}
			p.Edges = append(p.Edges, e)
			p.TaskGroups[from].Outputs = append(p.TaskGroups[from].Outputs, e.ID)
			p.TaskGroups[to].Inputs = append(p.TaskGroups[to].Inputs, e.ID)
		}
	}
	sort.SliceStable(p.TaskGroups, func(i, j int) bool { return p.TaskGroups[i].ID < p.TaskGroups[j].ID })
}
