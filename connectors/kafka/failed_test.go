package kafka

import (
	"fmt"
	"slices"
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
)

// TestSkippedRecordsAreCounted: with format_error_handle_way = skip, the records that do not
// parse are counted as the reader's failed rows; with fail there are none to count, the read
// fails.
func TestSkippedRecordsAreCounted(t *testing.T) {
	addr := testBroker(t)
	topic := newTopic(t, addr, 1)
	produce(t, addr, topic, 0, seatunnelJSON(0), `{"id": "not a number"}`, `{"id":`, seatunnelJSON(3), `not json`, seatunnelJSON(5))
	src := mustSource(t, connector.Streaming, 1, fmt.Sprintf(
		"bootstrap.servers = %q\ntopic = %q\nstart_mode = earliest\nschema = { fields { id = bigint } }\nformat_error_handle_way = skip", addr, topic))
	ec := conntest.NewEnumContext(1)
	enumerate(t, src, ec)
	r := streamingReader(t, src, ec.Assigned[0])
	counted, ok := r.(interface{ RowsFailed() int64 })
	if !ok {
		t.Fatal("the reader does not count the records it skips")
	}
	if n := counted.RowsFailed(); n != 0 {
		t.Fatalf("%d records skipped before any was read", n)
	}
	if got := ids(readUntil(t, r, 3)); !slices.Equal(got, []int64{0, 3, 5}) {
		t.Fatalf("ids %v, want 0, 3 and 5", got)
	}
	if n := counted.RowsFailed(); n != 3 {
		t.Fatalf("%d records counted as skipped, want the 3 that do not parse", n)
	}
}
