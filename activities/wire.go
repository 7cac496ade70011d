package activities

import (
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/planvertex"
	"github.com/strait-dev/strait/secret"
)

// The workflows and the packages that do the work speak the same contract types: the
// planner makes a contract.Plan, the runner runs a contract.Deployment and the checkpoint
// store writes a contract.Manifest. What the activities add is the secrets: a config is
// planned opened, and a vertex's options are opened just before its plugin is built.

// openVertex is a vertex of the plan, its sealed options opened with the process's key and
// its tables decoded, as its plugin is built from it. The plan's own vertex is left sealed.
func openVertex(v *contract.Vertex) (*planvertex.Vertex, error) {
	if v != nil {
		c := *v
		if err := openVertices([]*contract.Vertex{&c}); err != nil {
			return nil, err
		}
		v = &c
	}
	return planvertex.Decode(v)
}

// openVertices opens the sealed options of vertices in place with the process's key.
func openVertices(vs []*contract.Vertex) error {
	key, err := secret.Current()
	if err != nil {
		return err
	}
	return secret.OpenVertices(key, vs)
}
