// Package planvertex is a plan's vertex as the code that builds its plugin reads it: the
// contract's vertex with its catalog tables decoded, and the plugin built from its plugin
// name, options and tables through the plugin registry (connector). The planner fills a
// vertex's tables while it builds the DAG and encodes them once, into the contract's vertex;
// the runners and the committers decode them once and build the plugin again where it runs.
package planvertex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
)

// Vertex is a plan's vertex with its tables as catalog tables. Tables and InputTables are
// the contract vertex's fields of the same names, decoded (they shadow the encoded ones,
// which Encode writes).
type Vertex struct {
	*contract.Vertex
	// Tables are the tables the vertex emits (sources, transforms) or receives (sinks).
	Tables []*catalog.Table
	// InputTables are the tables the vertex receives (transforms, sinks). A union receives
	// the tables of its first input, as SeaTunnel gives a union its first input's catalog
	// table.
	InputTables []*catalog.Table
}

// Decode reads a plan vertex's tables. A field of a table this build does not know is an
// error naming it, never a silent drop.
func Decode(v *contract.Vertex) (*Vertex, error) {
	if v == nil {
		return nil, errors.New("no vertex")
	}
	d := &Vertex{Vertex: v}
	if err := decodeTables(v.Tables, &d.Tables); err != nil {
		return nil, fmt.Errorf("%s: vertex %d: tables: %w", v.Where, v.ID, err)
	}
	if err := decodeTables(v.InputTables, &d.InputTables); err != nil {
		return nil, fmt.Errorf("%s: vertex %d: input tables: %w", v.Where, v.ID, err)
	}
	return d, nil
}

// DecodeAll decodes vertices in order.
func DecodeAll(vs []*contract.Vertex) ([]*Vertex, error) {
	out := make([]*Vertex, len(vs))
	for i, v := range vs {
		d, err := Decode(v)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

func decodeTables(raw json.RawMessage, to *[]*catalog.Table) error {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(to)
}

// Encode writes the vertex's tables into its contract vertex, as they travel: the emitted
// tables always (null when there are none), the received ones when there are any.
func (v *Vertex) Encode() error {
	raw, err := json.Marshal(v.Tables)
	if err != nil {
		return fmt.Errorf("%s: tables: %w", v.Where, err)
	}
	v.Vertex.Tables, v.Vertex.InputTables = raw, nil
	if len(v.InputTables) > 0 {
		if v.Vertex.InputTables, err = json.Marshal(v.InputTables); err != nil {
			return fmt.Errorf("%s: input tables: %w", v.Where, err)
		}
	}
	return nil
}

// ParseOptions parses the vertex's carried options again.
func (v *Vertex) ParseOptions() (*config.Options, error) {
	root, err := hocon.Parse(v.Vertex.Options, hocon.Options{File: v.Where})
	if err != nil {
		return nil, fmt.Errorf("%s: options: %w", v.Where, err)
	}
	return config.New(root, v.Where), nil
}

// Where a plugin runs, it is built again from the options the plan carries. The planner built
// it once already, so an error here means the two builds disagree (another version, say).
// These builds have no planning deadline of their own: a plugin that reaches out bounds
// that by its own timeouts.

// Source builds a source vertex's plugin, to run with parallelism readers.
func (v *Vertex) Source(job connector.Job, parallelism int) (connector.Source, error) {
	return build(v, "source", connector.LookupSource, func(f connector.SourceFactory, o *config.Options) (connector.Source, error) {
		return f(&connector.SourceContext{Context: context.Background(), Options: o, Job: job, Parallelism: parallelism, OutputName: v.Output,
			Planned: v.Tables})
	})
}

// Transform builds a transform vertex's plugin.
func (v *Vertex) Transform(job connector.Job) (connector.Transform, error) {
	return build(v, "transform", connector.LookupTransform, func(f connector.TransformFactory, o *config.Options) (connector.Transform, error) {
		return f(&connector.TransformContext{Context: context.Background(), Options: o, Job: job, Inputs: v.InputTables})
	})
}

// Sink builds a sink vertex's plugin (in a runner for its writers, in the control plane for
// its committer and its save mode).
func (v *Vertex) Sink(job connector.Job) (connector.Sink, error) {
	return build(v, "sink", connector.LookupSink, func(f connector.SinkFactory, o *config.Options) (connector.Sink, error) {
		return f(&connector.SinkContext{Context: context.Background(), Options: o, Job: job, Inputs: v.InputTables})
	})
}

// build looks the vertex's plugin up, parses its options and calls its factory.
func build[F, P any](v *Vertex, kind string, lookup func(string) (F, string, bool), call func(F, *config.Options) (P, error)) (P, error) {
	var none P
	f, _, ok := lookup(v.Plugin)
	if !ok {
		return none, fmt.Errorf("%s: %s plugin %q is not in this runner", v.Where, kind, v.Plugin)
	}
	o, err := v.ParseOptions()
	if err != nil {
		return none, err
	}
	p, err := call(f, o)
	if err != nil {
		return none, fmt.Errorf("%s: %w", v.Where, err)
	}
	return p, nil
}
