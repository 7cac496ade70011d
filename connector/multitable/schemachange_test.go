package multitable

import (
	"context"
	"strings"
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// changeWriter records the schema changes it is given.
type changeWriter struct {
	plainWriter
	got []string
}

func (w *changeWriter) ApplySchemaChange(_ context.Context, c *connector.SchemaChange) error {
	w.got = append(w.got, c.Table)
	return nil
}

// plainWriter takes no schema changes.
type plainWriter struct{}

func (plainWriter) Write(context.Context, *row.Batch) error              { return nil }
func (plainWriter) PrepareCommit(context.Context, int64) ([]byte, error) { return nil, nil }
func (plainWriter) SnapshotState(int64) ([]byte, error)                  { return nil, nil }
func (plainWriter) Close(context.Context) error                          { return nil }

// A change goes to its table's writer alone; a table whose writer takes none, or one the
// sink does not write, fails naming it.
func TestSchemaChangeToItsTable(t *testing.T) {
	users, orders := &changeWriter{}, &changeWriter{}
	w := &writer{s: &Sink{ids: []string{"db.users", "db.orders", "db.plain"}},
		subs: map[string]connector.Writer{"db.users": users, "db.orders": orders, "db.plain": plainWriter{}}}
	if err := w.ApplySchemaChange(t.Context(), &connector.SchemaChange{Table: "db.orders"}); err != nil {
		t.Fatal(err)
	}
	if len(users.got) != 0 || len(orders.got) != 1 {
		t.Fatalf("users got %v, orders %v", users.got, orders.got)
	}
	err := w.ApplySchemaChange(t.Context(), &connector.SchemaChange{Table: "db.plain", Statement: "ALTER TABLE plain ADD c INT"})
	if err == nil || !connector.IsPermanent(err) || !strings.Contains(err.Error(), "table db.plain: the sink cannot follow a schema change of table db.plain: ALTER TABLE plain ADD c INT") {
		t.Fatalf("a writer without schema changes: %v", err)
	}
	if err := w.ApplySchemaChange(t.Context(), &connector.SchemaChange{Table: "db.nope"}); err == nil || !strings.Contains(err.Error(), "db.nope") {
		t.Fatalf("a table the sink does not write: %v", err)
	}
}
