package connector

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/strait-dev/strait/config"
)

// SourceFactory builds a source from its options; it checks them all and fails with a
// config.Error naming the bad option.
type SourceFactory func(ctx *SourceContext) (Source, error)

// SinkFactory builds a sink from its options.
type SinkFactory func(ctx *SinkContext) (Sink, error)

// TransformFactory builds a transform from its options and input tables.
type TransformFactory func(ctx *TransformContext) (Transform, error)

// Plugin describes a registered plugin: what `strait plugins` lists and the docs show.
type Plugin struct {
	Kind string       // source, sink or transform
	Name string       // SeaTunnel's plugin name, as registered
	Doc  string       // what the plugin does, one paragraph
	Spec *config.Spec // its options
}

type entry[F any] struct {
	Plugin
	factory F
}

type registry[F any] struct {
	mu sync.RWMutex
	m  map[string]entry[F]
}

func (r *registry[F]) add(p Plugin, f F) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]entry[F]{}
	}
	key := strings.ToLower(p.Name)
	if _, dup := r.m[key]; dup {
		panic(fmt.Sprintf("connector: %s %q registered twice", p.Kind, p.Name))
	}
	r.m[key] = entry[F]{Plugin: p, factory: f}
}

func (r *registry[F]) get(name string) (entry[F], bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.m[strings.ToLower(name)]
	return e, ok
}

func (r *registry[F]) plugins() []Plugin {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Plugin, 0, len(r.m))
	for _, e := range r.m {
		out = append(out, e.Plugin)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (r *registry[F]) names() []string {
	var out []string
	for _, p := range r.plugins() {
		out = append(out, p.Name)
	}
	return out
}

var (
	sources    registry[SourceFactory]
	sinks      registry[SinkFactory]
	transforms registry[TransformFactory]
)

// register adds a plugin whose options are the struct C to r: its factory decodes the
// options of its context (options finds them there) into a C and hands it to f.
func register[F ~func(X) (P, error), X, P, C any](r *registry[F], kind, name, doc string, options func(X) *config.Options, f func(X, *C) (P, error)) {
	r.add(Plugin{Kind: kind, Name: name, Doc: doc, Spec: config.SpecOf[C]()}, func(ctx X) (P, error) {
		c, err := config.Decode[C](options(ctx))
		if err != nil {
			var none P
			return none, err
		}
		return f(ctx, c)
	})
}

// RegisterSource registers a source under its SeaTunnel plugin name, with its options as
// the struct C (see config.Spec). The engine decodes the plugin's block into a C and hands
// it to f; an option the spec does not know is warned about. Call it from init.
func RegisterSource[C any](name, doc string, f func(ctx *SourceContext, c *C) (Source, error)) {
	register(&sources, "source", name, doc, func(ctx *SourceContext) *config.Options { return ctx.Options }, f)
}

// RegisterSink registers a sink under its SeaTunnel plugin name, with its options as C.
func RegisterSink[C any](name, doc string, f func(ctx *SinkContext, c *C) (Sink, error)) {
	register(&sinks, "sink", name, doc, func(ctx *SinkContext) *config.Options { return ctx.Options }, f)
}

// RegisterTransform registers a transform under its SeaTunnel plugin name, with its
// options as C.
func RegisterTransform[C any](name, doc string, f func(ctx *TransformContext, c *C) (Transform, error)) {
	register(&transforms, "transform", name, doc, func(ctx *TransformContext) *config.Options { return ctx.Options }, f)
}

// LookupSource finds a source by name in any case; it returns the canonical name.
func LookupSource(name string) (SourceFactory, string, bool) {
	e, ok := sources.get(name)
	return e.factory, e.Name, ok
}

// LookupSink finds a sink by name in any case.
func LookupSink(name string) (SinkFactory, string, bool) {
	e, ok := sinks.get(name)
	return e.factory, e.Name, ok
}

// LookupTransform finds a transform by name in any case.
func LookupTransform(name string) (TransformFactory, string, bool) {
	e, ok := transforms.get(name)
	return e.factory, e.Name, ok
}

// LookupPlugin finds a plugin of a kind (source, sink, transform) by name in any case.
func LookupPlugin(kind, name string) (Plugin, bool) {
	var e Plugin
	var ok bool
	switch kind {
	case "source":
		var x entry[SourceFactory]
		x, ok = sources.get(name)
		e = x.Plugin
	case "sink":
		var x entry[SinkFactory]
		x, ok = sinks.get(name)
		e = x.Plugin
	case "transform":
		var x entry[TransformFactory]
		x, ok = transforms.get(name)
		e = x.Plugin
	}
	return e, ok
}

// Plugins lists every registered plugin: sources, then sinks, then transforms, each by name.
func Plugins() []Plugin {
	out := sources.plugins()
	out = append(out, sinks.plugins()...)
	return append(out, transforms.plugins()...)
}

// SourceNames, SinkNames and TransformNames list what is registered, sorted.
func SourceNames() []string    { return sources.names() }
func SinkNames() []string      { return sinks.names() }
func TransformNames() []string { return transforms.names() }

// EnginePartitionBy is the option by which the engine hash-partitions a transform's or
// sink's input (Strait's extension). A plugin that has an option of that name for itself
// (the file sinks' partition directories) declares it with OwnsPartitionBy, and the engine
// then leaves the option to the plugin.
const EnginePartitionBy = "partition_by"

var ownPartitionBy sync.Map // "sink:<lower name>" -> true

// OwnsPartitionBy declares that the plugin of this kind ("sink" or "transform") reads
// partition_by itself. Call it from init, beside the registration.
func OwnsPartitionBy(kind, name string) {
	ownPartitionBy.Store(kind+":"+strings.ToLower(name), true)
}

// PluginOwnsPartitionBy reports whether the plugin declared partition_by as its own.
func PluginOwnsPartitionBy(kind, name string) bool {
	_, ok := ownPartitionBy.Load(kind + ":" + strings.ToLower(name))
	return ok
}
