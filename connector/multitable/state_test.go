package multitable

import (
	"strings"
	"testing"

	"github.com/strait-dev/strait/connector"
)

// stateSink's writers record the states they are restored from; its states name a table
// as "table:<id>".
type stateSink struct{ got *[][]byte }

func (s stateSink) CreateWriter(_ connector.WriterContext, states [][]byte) (connector.Writer, error) {
	*s.got = append(*s.got, states...)
	return plainWriter{}, nil
}
func (stateSink) CreateCommitter() (connector.Committer, error) { return nil, nil }
func (stateSink) StateTable(state []byte) (string, bool) {
	return strings.CutPrefix(string(state), "table:")
}

// The state of a one-table sink goes to the table it names when the job is restored with
// more tables; a state that names none of them fails as a state of another shape does.
func TestSingleTableStateRestored(t *testing.T) {
	var users, orders [][]byte
	s := &Sink{ids: []string{"db.users", "db.orders"},
		sinks: map[string]connector.Sink{"db.users": stateSink{&users}, "db.orders": stateSink{&orders}}}
	if _, err := s.CreateWriter(connector.WriterContext{}, [][]byte{[]byte("table:db.orders")}); err != nil {
		t.Fatal(err)
	}
	if len(users) != 0 || len(orders) != 1 || string(orders[0]) != "table:db.orders" {
		t.Fatalf("users got %q, orders %q", users, orders)
	}
	if _, err := s.CreateWriter(connector.WriterContext{}, [][]byte{[]byte("table:db.other")}); err == nil || !strings.Contains(err.Error(), "multi-table state") {
		t.Fatalf("a state of no table of the sink: %v", err)
	}
}
