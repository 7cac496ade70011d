package iceberg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// Schema changes: with iceberg.table.schema-evolution-enabled, a writer follows a change of
// its input's columns (MySQL-CDC's DDL) as SeaTunnel's Iceberg sink does, by evolving the
// table's schema (without it, a change fails the job, naming the option):
// an added column is added (optional, whatever the source's NOT NULL: Iceberg adds no
// required column to a table with rows), a dropped one deleted, a renamed one renamed, and
// a modified one's type promoted where Iceberg allows it (int to long, float to double, a
// wider decimal); a change Iceberg does not allow fails the job, naming it. FIRST and AFTER
// move the column as they say when the column they name is in the table.
//
// The rows before the change stay as they were written: appended rows buffered are written
// as data files of the table's schema before the change, which Iceberg reads by field id
// under the new one; in upsert mode each key's last change is kept, its fields moved to the
// new columns, and written at the checkpoint. Every writer of the sink alters the table
// when it receives the change, and one that finds it altered already (by another writer, or
// before a restore) changes nothing. The writer's state keeps the input's columns after the
// changes, so a restored writer reads the rows after its checkpoint with the right ones.

// writerState is a writer's checkpoint state.
type writerState struct {
	// Input is the input table as the writer has it after the schema changes it followed.
	Input *catalog.Table `json:"input,omitempty"`
}

// restoredInput is the input table a restored writer's state keeps, or the plan's.
func (s *Sink) restoredInput(states [][]byte) (*catalog.Table, error) {
	in, err := connector.RestoredInput(s.input, states)
	if err != nil {
		return nil, connector.Permanent(s.errorf("%v", err))
	}
	if in == nil {
		in = s.input
	}
	return in, nil
}

// PrepareSchemaChange writes the appended rows before the change as data files, so that
// no writer holds rows of the old columns while another alters the table.
func (w *writer) PrepareSchemaChange(ctx context.Context, _ *connector.SchemaChange) error {
	if w.rb == nil || w.s.cfg.UpsertMode {
		return nil
	}
	return w.flush(ctx)
}

// ApplySchemaChange evolves the table's schema as the change says and goes on with the
// input's new columns.
func (w *writer) ApplySchemaChange(ctx context.Context, ch *connector.SchemaChange) error {
	s := w.s
	if !s.cfg.SchemaEvolution {
		return connector.Permanent(s.errorf("the input's columns changed (%s): the sink follows a schema change with iceberg.table.schema-evolution-enabled = true", ch))
	}
	if ch.Table != w.input.ID() {
		return connector.Permanent(s.errorf("a schema change of table %s reached the writer of table %s", ch.Table, w.input.ID()))
	}
	in, err := ch.Apply(w.input)
	if err != nil {
		return connector.Permanent(s.errorf("%v", err))
	}
	if w.rb != nil && !s.cfg.UpsertMode {
		if err := w.flush(ctx); err != nil {
			return err
		}
	}
	if err := s.alterTable(ctx, ch); err != nil {
		return err
	}
	moved := movedColumns(w.input, in, ch)
	w.input, w.evolved = in, true
	if w.rb == nil {
		return nil // not open yet: it opens with the new columns
	}
	// reopen on the evolved table, keeping the data files written and, in upsert mode,
	// each key's change with its fields in the new columns
	changes, order, pending := w.changes, w.order, w.pending
	w.rb.Release()
	w.rb, w.tbl = nil, nil
	w.keys, w.keyIDs, w.parts, w.delSc, w.delPos = nil, nil, nil, nil, nil
	if err := w.open(ctx); err != nil {
		return err
	}
	w.pending = pending
	if s.cfg.UpsertMode {
		for _, c := range changes {
			if c.fields != nil {
				c.fields = moveFields(c.fields, moved)
			}
		}
		w.changes, w.order = changes, order
	}
	slog.Info("Iceberg sink: the writer follows a schema change", "plugin", s.where, "table", s.cfg.tableName(), "writer", w.id, "change", ch.String())
	return nil
}

// movedColumns says, for each column of the input after a change, which column of the
// input before it holds its values: its own, a renamed one's, or -1 for a column added.
func movedColumns(before, after *catalog.Table, ch *connector.SchemaChange) []int {
	from := make([]int, len(after.Columns))
	for i, c := range after.Columns {
		name := c.Name
		for _, cc := range ch.Columns {
			if cc.Op == connector.ChangeColumn && strings.EqualFold(cc.Column.Name, c.Name) {
				name = cc.Name
			}
		}
		from[i] = connector.ColumnIndexFold(before, name)
		for _, cc := range ch.Columns {
			if cc.Op == connector.AddColumn && strings.EqualFold(cc.Column.Name, c.Name) {
				from[i] = -1 // added, maybe where a dropped column of the same name was
			}
		}
	}
	return from
}

// moveFields is a row's fields in the columns after a change.
func moveFields(fields []row.Value, from []int) []row.Value {
	out := make([]row.Value, len(from))
	for i, j := range from {
		if j >= 0 && j < len(fields) {
			out[i] = fields[j]
		} else {
			out[i] = row.NullValue()
		}
	}
	return out
}

// alterAttempts bounds a writer's tries to alter the table. A conflict is another commit
// to the table between the writer's load and its own, mostly another writer's of the same
// change, which the next load finds made: two tries are the rule, a busy table needs more.
const alterAttempts = 10

// alterTable evolves the table's schema as the change says, unless it has already. Writers
// of the same sink alter it at about the same time: one whose commit conflicts with
// another's loads the table again and finds what is left to do.
func (s *Sink) alterTable(ctx context.Context, ch *connector.SchemaChange) error {
	for attempt := 1; ; attempt++ {
		_, tbl, err := s.loadTable(ctx)
		if err != nil {
			return err
		}
		tx := tbl.NewTransaction()
		u := tx.UpdateSchema(s.cfg.CaseSensitive, false)
		n, err := s.schemaUpdates(u, tbl, ch)
		if err != nil {
			return connector.Permanent(s.errorf("schema change of %s: %v", ch, err))
		}
		if n == 0 {
			return nil
		}
		if err := u.Commit(); err != nil {
			return connector.Permanent(s.errorf("schema change of %s: %v", ch, err))
		}
		if _, err := tx.Commit(ctx); err != nil {
			if isConflict(err) && attempt < alterAttempts {
				continue
			}
			return s.errorf("schema change of %s: commit the schema: %v", ch, err)
		}
		slog.Info("Iceberg sink: table schema changed", "plugin", s.where, "table", s.cfg.tableName(), "change", ch.String())
		return nil
	}
}

// schemaUpdates adds to u the updates of the change that the table's schema does not have
// yet, and counts them.
func (s *Sink) schemaUpdates(u *table.UpdateSchema, tbl *table.Table, ch *connector.SchemaChange) (int, error) {
	sc := tbl.Schema()
	find := func(name string) (ice.NestedField, bool) {
		if s.cfg.CaseSensitive {
			return sc.FindFieldByName(name)
		}
		return sc.FindFieldByNameCaseInsensitive(name)
	}
	partitionSource := func(id int) bool {
		spec := tbl.Spec()
		for _, pf := range spec.Fields() {
			if pf.SourceID() == id {
				return true
			}
		}
		return false
	}
	// position is a column's place among the table's top-level fields, -1 when not there
	position := func(name string) int {
		for i, f := range sc.Fields() {
			if f.Name == name || !s.cfg.CaseSensitive && strings.EqualFold(f.Name, name) {
				return i
			}
		}
		return -1
	}
	n := 0
	for _, cc := range ch.Columns {
		name := cc.Column.Name
		var typ ice.Type // the column's type after the change; a drop has none
		if cc.Op != connector.DropColumn {
			var err error
			if typ, err = icebergType(cc.Column.Type, new(int)); err != nil {
				return 0, fmt.Errorf("column %s: %v", name, err)
			}
		}
		did := 0
		path := []string{name} // the column as the update names it
		switch cc.Op {
		case connector.AddColumn:
			if _, ok := find(name); ok {
				continue // added already
			}
			u.AddColumn(path, typ, cc.Column.Comment, false, nil)
			did++
		case connector.DropColumn:
			if f, ok := find(cc.Name); ok {
				u.DeleteColumn([]string{f.Name})
				did++
			}
		case connector.ChangeColumn, connector.ModifyColumn:
			old := name
			if cc.Op == connector.ChangeColumn {
				old = cc.Name
			}
			f, ok := find(old)
			if !ok {
				if _, renamed := find(name); renamed && cc.Op == connector.ChangeColumn {
					continue // renamed already
				}
				return 0, fmt.Errorf("the table has no column %s", old)
			}
			path = []string{f.Name}
			if !f.Type.Equals(typ) {
				if partitionSource(f.ID) {
					return 0, fmt.Errorf("column %s: the table is partitioned by it, and its type stays %s", f.Name, f.Type)
				}
				u.UpdateColumn(path, table.ColumnUpdate{FieldType: ice.Optional[ice.Type]{Valid: true, Val: typ}})
				did++
			}
			if f.Name != name {
				u.RenameColumn(path, name)
				did++
			}
		default:
			return 0, errors.New("unknown column change " + string(cc.Op))
		}
		// FIRST and AFTER, unless the column is there already
		at := position(path[0])
		switch {
		case cc.First && (did > 0 || at != 0):
			u.MoveFirst(path)
			did++
		case cc.After != "":
			if after := position(cc.After); after >= 0 && (did > 0 || at != after+1) {
				u.MoveAfter(path, []string{sc.Fields()[after].Name})
				did++
			}
		}
		n += did
	}
	return n, nil
}
