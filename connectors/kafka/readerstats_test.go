package kafka

import (
	"fmt"
	"slices"
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/internal/kafkatest"
)

// earliestReader is a STREAMING reader, from the earliest record, of a new topic of one
// partition holding records, read as rows of a bigint id; options adds to the block.
func earliestReader(t *testing.T, addr string, options string, records ...string) (connector.Reader, string) {
	t.Helper()
	topic := newTopic(t, addr, 1)
	produce(t, addr, topic, 0, records...)
	src := mustSource(t, connector.Streaming, 1, fmt.Sprintf(
		"bootstrap.servers = %q\ntopic = %q\nstart_mode = earliest\nschema = { fields { id = bigint } }\n%s", addr, topic, options))
	ec := conntest.NewEnumContext(1)
	enumerate(t, src, ec)
	return streamingReader(t, src, ec.Assigned[0]), topic
}

// TestSkippedRecordsAreCounted: with format_error_handle_way = skip, the records that do not
// parse are counted as the reader's failed rows; with fail there are none to count, the read
// fails.
func TestSkippedRecordsAreCounted(t *testing.T) {
	addr := testBroker(t)
	r, _ := earliestReader(t, addr, "format_error_handle_way = skip",
		kafkatest.RecordJSON(0), `{"id": "not a number"}`, `{"id":`, kafkatest.RecordJSON(3), `not json`, kafkatest.RecordJSON(5))
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

// TestRecordsBehind: a reader tells, per partition, how many records it has yet to read, as
// of the partition's last fetch; it counts down as the reader reads.
func TestRecordsBehind(t *testing.T) {
	addr := testBroker(t)
	var vals []string
	for i := 0; i < 50; i++ {
		vals = append(vals, kafkatest.RecordJSON(i))
	}
	r, topic := earliestReader(t, addr, "", vals...)
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
	produce(t, addr, topic, 0, kafkatest.RecordJSON(50), kafkatest.RecordJSON(51))
	readUntil(t, r, 1)
	if n := lr.RecordsBehind()[key]; n > 1 {
		t.Fatalf("one of two new records read: lag %d", n)
	}
}
