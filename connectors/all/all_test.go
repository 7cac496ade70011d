package all

import (
	"testing"

	"github.com/strait-dev/strait/connector"
)

// Every connector linked into the binary is registered under its SeaTunnel plugin name, which
// a job config may write in any case. (Jobs run whole through the binary in e2e/.)
func TestRegistry(t *testing.T) {
	for _, n := range []string{"FakeSource", "Jdbc", "Kafka", "LocalFile", "Postgres-CDC", "S3File", "Elasticsearch", "Redis", "Http", "Iceberg", "fakesource", "jdbc"} {
		if _, _, ok := connector.LookupSource(n); !ok {
			t.Errorf("source %s not registered", n)
		}
	}
	for _, n := range []string{"Console", "Assert", "Jdbc", "Kafka", "LocalFile", "S3File", "Elasticsearch", "Redis", "Http", "Iceberg", "console", "assert"} {
		if _, _, ok := connector.LookupSink(n); !ok {
			t.Errorf("sink %s not registered", n)
		}
	}
	if _, _, ok := connector.LookupSource("NoSuchSource"); ok {
		t.Error("an unknown source is registered")
	}
}
