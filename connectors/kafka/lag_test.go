package kafka

import (
	"fmt"
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
)

// TestRecordsBehind: a reader tells, per partition, how many records it has yet to read, as
// of the partition's last fetch; it counts down as the reader reads.
func TestRecordsBehind(t *testing.T) {
	addr := testBroker(t)
	topic := newTopic(t, addr, 1)
	var vals []string
	for i := 0; i < 50; i++ {
		vals = append(vals, seatunnelJSON(i))
	}
	produce(t, addr, topic, 0, vals...)
	src := mustSource(t, connector.Streaming, 1, fmt.Sprintf("bootstrap.servers = %q\ntopic = %q\nstart_mode = earliest\nschema = { fields { id = bigint } }", addr, topic))
	ec := conntest.NewEnumContext(1)
	enumerate(t, src, ec)
	r := streamingReader(t, src, ec.Assigned[0])
	lr := r.(*reader)
	if got := lr.RecordsBehind(); len(got) != 0 {
		t.Fatalf("lag %v before any fetch", got)
	}
	readUntil(t, r, 10)
	key := topic + "-0"
	// the fetch told of 50 records; the poll took the first 10
	if n, ok := lr.RecordsBehind()[key]; !ok || n != 40 {
		t.Fatalf("after 10 of 50 records: lag %v, want %s 40", lr.RecordsBehind(), key)
	}
	readUntil(t, r, 40)
	if n := lr.RecordsBehind()[key]; n != 0 {
		t.Fatalf("after every record: lag %v", lr.RecordsBehind())
	}
	produce(t, addr, topic, 0, seatunnelJSON(50), seatunnelJSON(51))
	readUntil(t, r, 1)
	if n := lr.RecordsBehind()[key]; n > 1 {
		t.Fatalf("one of two new records read: lag %d", n)
	}
}
