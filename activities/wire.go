package activities

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/planner"
	"github.com/strait-dev/strait/secret"
	"github.com/strait-dev/strait/taskrunner"
)

// The activities translate between the contract's payloads, which the workflows speak, and
// the types of the packages that do the work: the planner's plan and the runner's
// deployment (the checkpoint store writes the contract's manifest as it is). The plan's
// parts have the same JSON on both sides (it is what travels through Temporal), so they are
// carried over by their JSON; a field one side lacks is an error that names it, never a
// silent drop.

// planOf is a planned job as the control plane carries it.
func planOf(pp *planner.PhysicalPlan) (*contract.Plan, error) {
	var p contract.Plan
	if err := recode(pp, &p); err != nil {
		return nil, fmt.Errorf("job %d: plan: %w", pp.Job.ID, err)
	}
	return &p, nil
}

// vertexOf is a vertex of the plan as the planner builds its plugin from.
func vertexOf(v *contract.Vertex) (*planner.Vertex, error) {
	if v == nil {
		return nil, fmt.Errorf("no vertex")
	}
	var pv planner.Vertex
	if err := recode(v, &pv); err != nil {
		return nil, fmt.Errorf("%s: vertex %d: %w", v.Where, v.ID, err)
	}
	return &pv, nil
}

// openVertex is vertexOf of a vertex whose sealed options are opened with the process's key.
func openVertex(v *contract.Vertex) (*planner.Vertex, error) {
	if v == nil {
		return nil, fmt.Errorf("no vertex")
	}
	c := *v
	if err := openVertices([]*contract.Vertex{&c}); err != nil {
		return nil, err
	}
	return vertexOf(&c)
}

// openVertices opens the sealed options of vertices in place with the process's key.
func openVertices(vs []*contract.Vertex) error {
	key, err := secret.Current()
	if err != nil {
		return err
	}
	return secret.OpenVertices(key, vs)
}

// deploymentOf is a deployment as the runner runs it, its sealed options opened.
func deploymentOf(d contract.Deployment) (taskrunner.Deployment, error) {
	td := taskrunner.Deployment{
		Job:       jobOf(d.Job),
		Epoch:     d.Epoch,
		ReportTo:  d.ReportTo,
		Origin:    d.Origin,
		Tasks:     d.Tasks,
		Placement: d.Placement,
		Restore:   d.Restore,
	}
	where := fmt.Sprintf("deployment of pipeline %d of job %d", d.Pipeline.ID, d.Job.ID)
	if err := openVertices(d.Vertices); err != nil {
		return td, fmt.Errorf("%s: %w", where, err)
	}
	if err := recode(d.Pipeline, &td.Pipeline); err != nil {
		return td, fmt.Errorf("%s: pipeline: %w", where, err)
	}
	if err := recode(d.Vertices, &td.Vertices); err != nil {
		return td, fmt.Errorf("%s: vertices: %w", where, err)
	}
	if err := recode(d.Env, &td.Env); err != nil {
		return td, fmt.Errorf("%s: env: %w", where, err)
	}
	return td, nil
}

func jobOf(j contract.Job) connector.Job {
	return connector.Job{ID: j.ID, Name: j.Name, Mode: connector.JobMode(j.Mode)}
}

// plannedSource is a config as the planner reads it: a sealed one opened with key.
func plannedSource(key *secret.Key, s contract.ConfigSource) (planner.Source, error) {
	s, err := secret.OpenSource(key, s)
	if err != nil {
		return planner.Source{}, err
	}
	return planner.Source{File: s.File, Text: s.Text, Vars: s.Vars, Name: s.Name}, nil
}

// recode carries a value into a type of the same JSON, refusing fields the target lacks.
func recode(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(to); err != nil {
		return fmt.Errorf("%T does not carry over into %T: %w", from, to, err)
	}
	return nil
}
