// Package planner turns a job config into a plan: HOCON text → JobConfig → LogicalDag →
// pipelines → the plan the control plane carries (contract.Plan). It is pure and
// deterministic and knows nothing of Temporal.
package planner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
)

// ReadSource reads a config file.
func ReadSource(path string, vars map[string]string, name string) (contract.ConfigSource, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return contract.ConfigSource{}, fmt.Errorf("read job config: %w", err)
	}
	return contract.ConfigSource{File: path, Text: string(b), Vars: vars, Name: name}, nil
}

// Section is one of the three plugin blocks.
type Section string

// The plugin blocks.
const (
	SourceSection    Section = "source"
	TransformSection Section = "transform"
	SinkSection      Section = "sink"
)

// Plugin is one block of source, transform or sink.
type Plugin struct {
	Section     Section
	Index       int
	Name        string // as written
	Inputs      []string
	Output      string
	Parallelism int // 0 when not set
	// PartitionBy asks for the plugin's input partitioned by these fields (Strait's
	// extension on transforms and sinks): rows with equal keys reach the same subtask.
	PartitionBy []string
	Options     *hocon.Value
	Pos         hocon.Pos
}

// Where names the plugin in errors: `sink[0] Assert`.
func (p *Plugin) Where() string { return fmt.Sprintf("%s[%d] %s", p.Section, p.Index, p.Name) }

// JobConfig is a parsed job config.
type JobConfig struct {
	File       string
	Env        contract.Env
	Sources    []*Plugin
	Transforms []*Plugin
	Sinks      []*Plugin
}

// Common plugin options every plugin may carry; the planner reads them.
// maxParallelism bounds a vertex's parallel instances: each is a slot, and a plan of more
// would not fit a workflow's history.
const maxParallelism = 10000

var commonKeys = []string{"plugin_name", "plugin_input", "plugin_output", "source_table_name", "result_table_name", "parallelism", "partition_by"}

// ParseVars splits -i values: each is key=value, or several separated by commas, where
// commas inside quotes or brackets do not separate (`-i strTemplate=[abc,def]`).
func ParseVars(args []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, a := range args {
		for _, part := range splitTopLevel(a) {
			k, v, ok := strings.Cut(part, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, fmt.Errorf("variable %q: expected key=value", part)
			}
			vars[k] = v
		}
	}
	return vars, nil
}

func splitTopLevel(s string) []string {
	var out []string
	depth, quote, start := 0, byte(0), 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// Parse reads a job config in HOCON or JSON (by the file's extension).
func Parse(src contract.ConfigSource) (*JobConfig, error) {
	root, err := hocon.Parse([]byte(src.Text), hocon.Options{
		File:         src.File,
		Vars:         src.Vars,
		ListSections: []string{string(SourceSection), string(TransformSection), string(SinkSection)},
	})
	if err != nil {
		return nil, err
	}
	if root.Kind != hocon.Object {
		return nil, &hocon.Error{Pos: root.Pos, Msg: "a job config is an object with env, source, transform and sink"}
	}
	jc := &JobConfig{File: src.File}
	if jc.Env, err = parseEnv(root.Get("env")); err != nil {
		return nil, err
	}
	if src.Name != "" {
		jc.Env.Name = src.Name
	}
	shade := ""
	if ev := root.Get("env"); ev != nil && ev.Kind == hocon.Object {
		if shade, err = readShade(config.New(ev, "env")); err != nil {
			return nil, err
		}
	}
	for _, sec := range []Section{SourceSection, TransformSection, SinkSection} {
		plugins, err := parsePlugins(sec, root.Get(string(sec)))
		if err != nil {
			return nil, err
		}
		if sec != TransformSection {
			for _, p := range plugins {
				if err := unshade(shade, p); err != nil {
					return nil, err
				}
			}
		}
		switch sec {
		case SourceSection:
			jc.Sources = plugins
		case TransformSection:
			jc.Transforms = plugins
		case SinkSection:
			jc.Sinks = plugins
		}
	}
	for _, f := range root.Fields {
		switch f.Key {
		case "env", "source", "transform", "sink":
		default:
			return nil, &hocon.Error{Pos: f.Value.Pos, Msg: fmt.Sprintf("unknown top-level block %q; a job config has env, source, transform and sink", f.Key)}
		}
	}
	return jc, nil
}

func parseEnv(v *hocon.Value) (contract.Env, error) {
	env := contract.Env{Mode: contract.Batch, Name: "SeaTunnel_Job", Parallelism: 1, RetryTimes: 3, RetryIntervalSeconds: 3}
	if v == nil {
		return env, nil
	}
	if v.Kind != hocon.Object {
		return env, &hocon.Error{Pos: v.Pos, Msg: "env must be an object"}
	}
	o := config.New(v, "env")
	mode, err := o.Enum("job.mode", "BATCH", "BATCH", "STREAMING")
	if err != nil {
		return env, err
	}
	env.Mode = contract.JobMode(mode)
	if env.Name, err = o.String("job.name", env.Name); err != nil {
		return env, err
	}
	p, err := o.Int("parallelism", 1)
	if err != nil {
		return env, err
	}
	if p < 1 || p > maxParallelism {
		return env, o.Errorf("parallelism", "must be between 1 and %d, found %d", maxParallelism, p)
	}
	env.Parallelism = int(p)
	if env.CheckpointInterval, err = o.Int("checkpoint.interval", 0); err != nil {
		return env, err
	}
	if env.CheckpointTimeout, err = o.Int("checkpoint.timeout", 0); err != nil {
		return env, err
	}
	tf, err := o.Int("checkpoint.tolerable-failures", 0)
	if err != nil {
		return env, err
	}
	env.TolerableCheckpointFailures = int(tf)
	rt, err := o.Int("job.retry.times", 3)
	if err != nil {
		return env, err
	}
	env.RetryTimes = int(rt)
	ri, err := o.Int("job.retry.interval.seconds", 3)
	if err != nil {
		return env, err
	}
	env.RetryIntervalSeconds = int(ri)
	if env.SlotWait, err = o.Bool("slot.wait", false); err != nil {
		return env, err
	}
	for _, l := range []struct {
		key string
		to  *int64
	}{{"read_limit.rows_per_second", &env.ReadLimitRows}, {"read_limit.bytes_per_second", &env.ReadLimitBytes}} {
		if *l.to, err = o.Int(l.key, 0); err != nil {
			return env, err
		}
		if *l.to < 0 {
			return env, o.Errorf(l.key, "must be positive, got %d", *l.to)
		}
	}
	if env.SlotAllocationStrategy, err = o.Enum("slot-allocation-strategy", "", "RANDOM", "SLOT_RATIO", "SYSTEM_LOAD"); err != nil {
		return env, err
	}
	if tf := o.Get("tag_filter"); tf != nil && tf.Kind != hocon.Null {
		if tf.Kind != hocon.Object {
			return env, o.Errorf("tag_filter", "expected an object of key = value")
		}
		env.TagFilter = map[string]string{}
		if err := tf.Leaves(func(k string, v *hocon.Value) error {
			switch v.Kind {
			case hocon.String, hocon.Number:
				env.TagFilter[k] = v.Str
			case hocon.Bool:
				env.TagFilter[k] = fmt.Sprint(v.Bool)
			default:
				return o.Errorf("tag_filter."+k, "expected a string")
			}
			return nil
		}); err != nil {
			return env, err
		}
	}
	return env, nil
}

func parsePlugins(sec Section, v *hocon.Value) ([]*Plugin, error) {
	if v == nil || v.Kind == hocon.Null {
		return nil, nil
	}
	var out []*Plugin
	add := func(name string, body *hocon.Value, pos hocon.Pos) error {
		if body.Kind != hocon.Object {
			return &hocon.Error{Pos: body.Pos, Msg: fmt.Sprintf("%s[%d] %s: expected an object of options, found %s", sec, len(out), name, body.Kind)}
		}
		p := &Plugin{Section: sec, Index: len(out), Name: name, Options: body, Pos: pos}
		if pn := body.Get("plugin_name"); pn != nil && pn.Kind == hocon.String {
			p.Name = pn.Str
		}
		if p.Name == "" {
			return &hocon.Error{Pos: body.Pos, Msg: fmt.Sprintf("%s[%d]: plugin_name is required", sec, len(out))}
		}
		o := config.New(body, p.Where())
		var err error
		if p.Output, err = o.String("plugin_output", ""); err != nil {
			return err
		}
		if p.Output == "" {
			if p.Output, err = o.String("result_table_name", ""); err != nil {
				return err
			}
		}
		if p.Inputs, err = o.StringList("plugin_input"); err != nil {
			return err
		}
		if len(p.Inputs) == 0 {
			if p.Inputs, err = o.StringList("source_table_name"); err != nil {
				return err
			}
		}
		par, err := o.Int("parallelism", 0)
		if err != nil {
			return err
		}
		if o.Has("parallelism") && (par < 1 || par > maxParallelism) {
			return o.Errorf("parallelism", "must be between 1 and %d, found %d", maxParallelism, par)
		}
		p.Parallelism = int(par)
		if sec != SourceSection && !connector.PluginOwnsPartitionBy(string(sec), p.Name) {
			if p.PartitionBy, err = o.StringList(connector.EnginePartitionBy); err != nil {
				return err
			}
		}
		out = append(out, p)
		return nil
	}
	switch v.Kind {
	case hocon.Object:
		for _, f := range v.Fields {
			if err := add(f.Key, f.Value, f.Value.Pos); err != nil {
				return nil, err
			}
		}
	case hocon.Array:
		for _, e := range v.Elems {
			name := ""
			if e.Kind == hocon.Object {
				if pn := e.Get("plugin_name"); pn != nil {
					name = pn.Str
				}
			}
			if err := add(name, e, e.Pos); err != nil {
				return nil, err
			}
		}
	default:
		return nil, &hocon.Error{Pos: v.Pos, Msg: fmt.Sprintf("%s must be an object of plugin blocks or a list of them", sec)}
	}
	return out, nil
}

// IsJSON reports whether a file name is a JSON job config.
func IsJSON(file string) bool { return strings.EqualFold(filepath.Ext(file), ".json") }
