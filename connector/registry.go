package connector

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// SourceFactory builds a source from its options; it checks them all and fails with a
// config.Error naming the bad option.
type SourceFactory func(ctx *SourceContext) (Source, error)

// SinkFactory builds a sink from its options.
type SinkFactory func(ctx *SinkContext) (Sink, error)

// TransformFactory builds a transform from its options and input tables.
type TransformFactory func(ctx *TransformContext) (Transform, error)

type entry[F any] struct {
	name    string
	factory F
}

type registry[F any] struct {
	mu sync.RWMutex
	m  map[string]entry[F]
}

func (r *registry[F]) add(kind, name string, f F) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]entry[F]{}
	}
	key := strings.ToLower(name)
	if _, dup := r.m[key]; dup {
		panic(fmt.Sprintf("connector: %s %q registered twice", kind, name))
	}
	r.m[key] = entry[F]{name: name, factory: f}
}

func (r *registry[F]) get(name string) (F, string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.m[strings.ToLower(name)]
	return e.factory, e.name, ok
}

func (r *registry[F]) names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.m))
	for _, e := range r.m {
		out = append(out, e.name)
	}
	sort.Strings(out)
	return out
}

var (
	sources    registry[SourceFactory]
	sinks      registry[SinkFactory]
	transforms registry[TransformFactory]
)

// RegisterSource registers a source under its SeaTunnel plugin name. Call it from init.
func RegisterSource(name string, f SourceFactory) { sources.add("source", name, f) }

// RegisterSink registers a sink under its SeaTunnel plugin name.
func RegisterSink(name string, f SinkFactory) { sinks.add("sink", name, f) }

// RegisterTransform registers a transform under its SeaTunnel plugin name.
func RegisterTransform(name string, f TransformFactory) { transforms.add("transform", name, f) }

// LookupSource finds a source by name in any case; it returns the canonical name.
func LookupSource(name string) (SourceFactory, string, bool) { return sources.get(name) }

// LookupSink finds a sink by name in any case.
func LookupSink(name string) (SinkFactory, string, bool) { return sinks.get(name) }

// LookupTransform finds a transform by name in any case.
func LookupTransform(name string) (TransformFactory, string, bool) { return transforms.get(name) }

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
