package multitable

import (
	"context"
	"fmt"

	"github.com/strait-dev/strait/connector"
)

// ApplySchemaChange hands a change of a table's columns to that table's writer. A sink
// whose table's writer takes no schema changes fails, naming the table.
func (w *writer) ApplySchemaChange(ctx context.Context, c *connector.SchemaChange) error {
	sub, err := w.sub(c.Table)
	if err != nil {
		return fmt.Errorf("schema change: %w", err)
	}
	sa, ok := sub.(connector.SchemaChangeApplier)
	if !ok {
		return connector.Permanent(fmt.Errorf("table %s: the sink cannot follow a schema change of %s", c.Table, c))
	}
	if err := sa.ApplySchemaChange(ctx, c); err != nil {
		return fmt.Errorf("table %s: %w", c.Table, err)
	}
	return nil
}

// PrepareSchemaChange prepares the writer of the change's table, when it prepares.
func (w *writer) PrepareSchemaChange(ctx context.Context, c *connector.SchemaChange) error {
	sub, err := w.sub(c.Table)
	if err != nil {
		return fmt.Errorf("schema change: %w", err)
	}
	if sp, ok := sub.(connector.SchemaChangePreparer); ok {
		if err := sp.PrepareSchemaChange(ctx, c); err != nil {
			return fmt.Errorf("table %s: %w", c.Table, err)
		}
	}
	return nil
}
