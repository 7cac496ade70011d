package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/planvertex"
)

// LogicalDag is the job's vertices, in plan order (sources, transforms, sinks). While the
// DAG is built each vertex holds the tables its plugin derived; once it is complete they are
// encoded into the vertices as the plan carries them.
type LogicalDag struct {
	Job      connector.Job
	Env      contract.Env
	Vertices []*planvertex.Vertex
	// Warnings are things SeaTunnel would accept silently but a user wants to know, such
	// as options no plugin reads.
	Warnings []string
}

// ConfigError is a job config that cannot run; it names the plugin and what is wrong.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// IsConfigError reports whether err is a bad job config (as opposed to a failure to run).
func IsConfigError(err error) bool {
	var ce *ConfigError
	var he *hocon.Error
	var oe *config.Error
	return errors.As(err, &ce) || errors.As(err, &he) || errors.As(err, &oe)
}

func cfgErr(format string, args ...any) error {
	return &ConfigError{Err: fmt.Errorf(format, args...)}
}

const defaultIdentifier = "default-identifier"

// BuildDag wires the plugins into a DAG and builds every plugin once, which checks its
// options and derives the tables that flow along each edge. ctx is the planning deadline:
// plugins that reach out while they are built (a database's columns) do so within it.
func BuildDag(ctx context.Context, jc *JobConfig, job connector.Job) (*LogicalDag, error) {
	if len(jc.Sources) == 0 || len(jc.Sinks) == 0 {
		return nil, cfgErr("%s: a job needs at least one source and one sink", jc.File)
	}
	job.Name = jc.Env.Name
	job.Mode = jc.Env.Mode
	d := &LogicalDag{Job: job, Env: jc.Env}
	simple := len(jc.Sources) == 1 && len(jc.Transforms) <= 1 && len(jc.Sinks) == 1
	if !simple {
		if err := checkComplexGraph(jc); err != nil {
			return nil, err
		}
	}
	// datasets: name -> producing vertex, and the order they were registered in
	produced := map[string]*planvertex.Vertex{}
	var last *planvertex.Vertex
	newVertex := func(kind contract.VertexKind, p *Plugin) (*planvertex.Vertex, error) {
		raw, err := json.Marshal(p.Options)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Where(), err)
		}
		return &planvertex.Vertex{Vertex: &contract.Vertex{ID: len(d.Vertices) + 1, Kind: kind, Plugin: p.Name, Where: p.Where(),
			Options: raw, Output: p.Output, PartitionBy: p.PartitionBy}}, nil
	}
	register := func(v *planvertex.Vertex) {
		name := v.Output
		if name == "" {
			name = defaultIdentifier
		}
		produced[name] = v
		last = v
		d.Vertices = append(d.Vertices, v)
	}
	for _, p := range jc.Sources {
		v, err := newVertex(contract.SourceVertex, p)
		if err != nil {
			return nil, err
		}
		v.Parallelism = jc.Env.Parallelism
		if p.Parallelism > 0 {
			v.Parallelism = p.Parallelism
		}
		if err := d.buildSource(ctx, v, p); err != nil {
			return nil, err
		}
		register(v)
	}
	// resolve inputs; in a simple graph names are not checked and the chain is linear
	inputsOf := func(p *Plugin, lastChance bool) ([]*planvertex.Vertex, bool) {
		if simple {
			return []*planvertex.Vertex{last}, true
		}
		names := p.Inputs
		if len(names) == 0 {
			names = []string{defaultIdentifier}
		}
		var ins []*planvertex.Vertex
		for _, n := range names {
			v, ok := produced[n]
			if !ok {
				if lastChance {
					return []*planvertex.Vertex{last}, true
				}
				return nil, false
			}
			ins = append(ins, v)
		}
		return ins, true
	}
	// Transforms whose inputs are not there yet wait for a later round, so file order does
	// not matter; a round without progress means the transforms feed each other in a cycle.
	queue := jc.Transforms
	for len(queue) > 0 {
		var waiting []*Plugin
		for _, p := range queue {
			ins, ok := inputsOf(p, false)
			if !ok {
				waiting = append(waiting, p)
				continue
			}
			v, err := newVertex(contract.TransformVertex, p)
			if err != nil {
				return nil, err
			}
			if err := d.connect(v, ins); err != nil {
				return nil, err
			}
			v.Parallelism = ins[0].Parallelism
			if p.Parallelism > 0 {
				v.Parallelism = p.Parallelism
			}
			if err := d.buildTransform(ctx, v, p); err != nil {
				return nil, err
			}
			register(v)
		}
		if len(waiting) == len(queue) {
			return nil, cfgErr("%s: its input %s never becomes available: the transforms feed each other in a cycle", waiting[0].Where(), quoteList(waiting[0].Inputs))
		}
		queue = waiting
	}
	for _, p := range jc.Sinks {
		ins, ok := inputsOf(p, true)
		if !ok {
			return nil, cfgErr("%s: input %s is produced by no source or transform", p.Where(), quoteList(p.Inputs))
		}
		v, err := newVertex(contract.SinkVertex, p)
		if err != nil {
			return nil, err
		}
		if err := d.connect(v, ins); err != nil {
			return nil, err
		}
		// Sinks take the parallelism of their (first) input, as SeaTunnel's engine does.
		v.Parallelism = ins[0].Parallelism
		if err := d.buildSink(ctx, v, p); err != nil {
			return nil, err
		}
		d.Vertices = append(d.Vertices, v)
	}
	for _, v := range d.Vertices {
		if err := v.Encode(); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func quoteList(names []string) string {
	if len(names) == 0 {
		return `"` + defaultIdentifier + `"`
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// checkComplexGraph applies SeaTunnel's validation to anything but one source → at most
// one transform → one sink: names are required, unique, resolvable and all used.
func checkComplexGraph(jc *JobConfig) error {
	outputs := map[string]*Plugin{}
	for _, group := range [][]*Plugin{jc.Sources, jc.Transforms} {
		for _, p := range group {
			if p.Output == "" {
				return cfgErr("%s: plugin_output (or result_table_name) is required when a job has several sources, transforms or sinks", p.Where())
			}
			if prev, dup := outputs[p.Output]; dup {
				return cfgErr("%s: plugin_output %q is already produced by %s; outputs must be different", p.Where(), p.Output, prev.Where())
			}
			outputs[p.Output] = p
		}
	}
	used := map[string]bool{}
	for _, group := range [][]*Plugin{jc.Transforms, jc.Sinks} {
		for _, p := range group {
			if len(p.Inputs) == 0 {
				return cfgErr("%s: plugin_input (or source_table_name) is required when a job has several sources, transforms or sinks", p.Where())
			}
			for _, in := range p.Inputs {
				if _, ok := outputs[in]; !ok {
					return cfgErr("%s: input %q is produced by no source or transform", p.Where(), in)
				}
				used[in] = true
			}
		}
	}
	for _, group := range [][]*Plugin{jc.Sources, jc.Transforms} {
		for _, p := range group {
			if !used[p.Output] {
				return cfgErr("%s: output %q is not used by any transform or sink", p.Where(), p.Output)
			}
		}
	}
	return nil
}

// connect sets v's inputs and the tables it receives. A union needs inputs of equal
// structure and receives the first input's tables: rows of the later inputs are relabelled
// to them (TableAliases), so the vertex sees one table per position whichever input a row
// came from, as SeaTunnel's union does.
func (d *LogicalDag) connect(v *planvertex.Vertex, ins []*planvertex.Vertex) error {
	for _, in := range ins {
		v.Inputs = append(v.Inputs, in.ID)
	}
	first := ins[0].Tables
	v.InputTables = append([]*catalog.Table(nil), first...)
	for _, in := range ins[1:] {
		if len(in.Tables) != len(first) {
			return cfgErr("%s: cannot union inputs with different structures (%s emits %d tables, %s emits %d)",
				v.Where, ins[0].Where, len(first), in.Where, len(in.Tables))
		}
		for i, t := range in.Tables {
			if !t.RowType().Equal(first[i].RowType()) {
				return cfgErr("%s: cannot union inputs with different structures: %s emits %s, %s emits %s",
					v.Where, ins[0].Where, first[i].RowType(), in.Where, t.RowType())
			}
			if t.ID() != first[i].ID() {
				if v.TableAliases == nil {
					v.TableAliases = map[string]string{}
				}
				v.TableAliases[t.ID()] = first[i].ID()
			}
		}
	}
	for _, key := range v.PartitionBy {
		for _, t := range v.InputTables {
			if t.ColumnIndex(key) < 0 {
				return cfgErr("%s: partition_by: table %s has no field %q", v.Where, t.ID(), key)
			}
		}
	}
	return nil
}

func (d *LogicalDag) vertex(id int) *planvertex.Vertex { return d.Vertices[id-1] }

// Vertex returns the vertex with this id.
func (d *LogicalDag) Vertex(id int) *planvertex.Vertex { return d.vertex(id) }

// warnUnused warns about the options the plugin's spec does not know, with the nearest
// name it knows.
func (d *LogicalDag) warnUnused(o *config.Options, kind, name string) {
	p, ok := connector.LookupPlugin(kind, name)
	if !ok {
		return
	}
	for _, u := range p.Spec.Unknown(o, commonKeys...) {
		d.Warnings = append(d.Warnings, o.Where()+": "+u)
	}
}

// lookupPlugin finds the factory of p's plugin of this kind in the registry, names v's
// plugin as registered, and returns the factory and p's options; an unknown name is an
// error listing the known ones.
func lookupPlugin[F any](v *planvertex.Vertex, p *Plugin, kind string, lookup func(string) (F, string, bool), known func() []string) (F, *config.Options, error) {
	f, name, ok := lookup(p.Name)
	if !ok {
		return f, nil, cfgErr("%s: unknown %s plugin %q (known: %s) (at %s)", p.Where(), kind, p.Name, strings.Join(known(), ", "), p.Pos)
	}
	v.Plugin = name
	return f, config.New(p.Options, p.Where()), nil
}

func (d *LogicalDag) buildSource(ctx context.Context, v *planvertex.Vertex, p *Plugin) error {
	f, o, err := lookupPlugin(v, p, "source", connector.LookupSource, connector.SourceNames)
	if err != nil {
		return err
	}
	src, err := f(&connector.SourceContext{Context: ctx, Options: o, Job: d.Job, Parallelism: v.Parallelism, OutputName: p.Output})
	if err != nil {
		return wrapPluginErr(p, err)
	}
	if d.Job.Mode == connector.Batch && src.Boundedness() == connector.Unbounded {
		return cfgErr("%s: the source is unbounded and cannot run in a BATCH job; set env.job.mode = STREAMING", p.Where())
	}
	v.Tables = src.Tables()
	d.warnUnused(o, "source", v.Plugin)
	return nil
}

func (d *LogicalDag) buildTransform(ctx context.Context, v *planvertex.Vertex, p *Plugin) error {
	f, o, err := lookupPlugin(v, p, "transform", connector.LookupTransform, connector.TransformNames)
	if err != nil {
		return err
	}
	t, err := f(&connector.TransformContext{Context: ctx, Options: o, Job: d.Job, Inputs: v.InputTables})
	if err != nil {
		return wrapPluginErr(p, err)
	}
	v.Tables = t.Outputs()
	d.warnUnused(o, "transform", v.Plugin)
	return nil
}

func (d *LogicalDag) buildSink(ctx context.Context, v *planvertex.Vertex, p *Plugin) error {
	f, o, err := lookupPlugin(v, p, "sink", connector.LookupSink, connector.SinkNames)
	if err != nil {
		return err
	}
	if _, err := f(&connector.SinkContext{Context: ctx, Options: o, Job: d.Job, Inputs: v.InputTables}); err != nil {
		return wrapPluginErr(p, err)
	}
	v.Tables = v.InputTables
	d.warnUnused(o, "sink", v.Plugin)
	return nil
}

func wrapPluginErr(p *Plugin, err error) error {
	if IsConfigError(err) || strings.HasPrefix(err.Error(), p.Where()+":") {
		return &ConfigError{Err: err} // it names the plugin already
	}
	return &ConfigError{Err: fmt.Errorf("%s: %w", p.Where(), err)}
}
