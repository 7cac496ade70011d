package localfile

import (
	"testing"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/file"
)

// TestRegistered checks that LocalFile's source and sink are the file core's, with its
// option specs, their docs, and partition_by kept for the sink's directories.
func TestRegistered(t *testing.T) {
	for kind, want := range map[string]*config.Spec{"source": config.SpecOf[file.SourceConfig](), "sink": config.SpecOf[file.SinkConfig]()} {
		p, ok := connector.LookupPlugin(kind, "LocalFile")
		if !ok || p.Spec == nil || p.Doc == "" {
			t.Fatalf("the LocalFile %s is not registered with a spec and a doc: %+v", kind, p)
		}
		if len(p.Spec.Fields) != len(want.Fields) {
			t.Fatalf("the LocalFile %s reads %d options, the core's spec has %d", kind, len(p.Spec.Fields), len(want.Fields))
		}
	}
	if !connector.PluginOwnsPartitionBy("sink", "LocalFile") {
		t.Fatal("LocalFile's sink does not keep partition_by for its directories")
	}
}
