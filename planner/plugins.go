package planner

import (
	"context"
	"fmt"

	"github.com/strait-dev/strait/connector"
)

// Where a plugin runs, it is built again from the options the plan carries. The planner built
// it once already, so an error here means the two builds disagree (another version, say).
// These builds have no planning deadline of their own: a plugin that reaches out bounds
// that by its own timeouts.

// BuildSource builds a source vertex's plugin.

func BuildSource(job connector.Job, v *Vertex, parallelism int) (connector.Source, error) {
	f, _, ok := connector.LookupSource(v.Plugin)
	if !ok {
		return nil, fmt.Errorf("%s: source plugin %q is not in this runner", v.Where, v.Plugin)
	}
	o, err := OptionsOf(v)
	if err != nil {
		return nil, err
	}
	s, err := f(&connector.SourceContext{Context: context.Background(), Options: o, Job: job, Parallelism: parallelism, OutputName: v.Output})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.Where, err)
	}
	return s, nil
}

// BuildTransform builds a transform vertex's plugin.
func BuildTransform(job connector.Job, v *Vertex) (connector.Transform, error) {
	f, _, ok := connector.LookupTransform(v.Plugin)
	if !ok {
		return nil, fmt.Errorf("%s: transform plugin %q is not in this runner", v.Where, v.Plugin)
	}
	o, err := OptionsOf(v)
	if err != nil {
		return nil, err
	}
	t, err := f(&connector.TransformContext{Context: context.Background(), Options: o, Job: job, Inputs: v.InputTables})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.Where, err)
	}
	return t, nil
}

// BuildSink builds a sink vertex's plugin (in a runner for its writers, in the control
// plane for its committer).
func BuildSink(job connector.Job, v *Vertex) (connector.Sink, error) {
	f, _, ok := connector.LookupSink(v.Plugin)
	if !ok {
		return nil, fmt.Errorf("%s: sink plugin %q is not in this runner", v.Where, v.Plugin)
	}
	o, err := OptionsOf(v)
	if err != nil {
		return nil, err
	}
	s, err := f(&connector.SinkContext{Context: context.Background(), Options: o, Job: job, Inputs: v.InputTables})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", v.Where, err)
	}
	return s, nil
}
