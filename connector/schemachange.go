package connector

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/strait-dev/strait/catalog"
)

// ---- schema changes ----
//
// A source that follows its tables' DDL (MySQL-CDC with schema-changes.enabled) passes a
// change of a table's columns on in the record stream, in order with the rows: the rows
// before it have the table's old columns, the rows after it the new ones. The engine hands
// a change through the chain as it hands a batch: each transform says what it makes of it
// (SchemaChangeTransform), the sink's writer applies it to its target (SchemaChangeApplier)
// after writing every row before it, and an exchange between runners carries it in order
// with the batches. A chain whose transform or sink cannot follow a change fails, naming
// the plugin and the statement, rather than write rows of a shape it does not know.

// ColumnOp is what a column change does, as SeaTunnel's AlterTableColumnEvents name it.
type ColumnOp string

// The column changes.
const (
	AddColumn    ColumnOp = "ADD"    // AlterTableAddColumnEvent
	DropColumn   ColumnOp = "DROP"   // AlterTableDropColumnEvent
	ModifyColumn ColumnOp = "MODIFY" // AlterTableModifyColumnEvent: a column's definition
	ChangeColumn ColumnOp = "CHANGE" // AlterTableChangeColumnEvent: a column renamed (and redefined)
)

// ColumnChange is one change of a table's columns.
type ColumnChange struct {
	Op ColumnOp `json:"op"`
	// Name is the column dropped (DROP) or renamed (CHANGE: its old name).
	Name string `json:"name,omitempty"`
	// Column is the column as it is after the change (ADD, MODIFY, CHANGE). Its SourceType
	// is the type as the source's database writes it.
	Column catalog.Column `json:"column"`
	// Default is the column's default as the source's SQL writes it ('yy', 1,
	// CURRENT_TIMESTAMP), "" when it has none: a sink of the same database may use it as it
	// is.
	Default string `json:"default,omitempty"`
	// First and After place the column (ADD, MODIFY, CHANGE): first in the table, or after
	// the column After names; neither leaves an added column last and a changed one where
	// it was.
	First bool   `json:"first,omitempty"`
	After string `json:"after,omitempty"`
}

// SchemaChange is a change of one table's columns, SeaTunnel's AlterTableColumnsEvent: one
// statement's column changes, in the order the statement makes them.
type SchemaChange struct {
	// ID tells this change from every other of the job's: a task that receives it twice
	// (through two paths) follows it once.
	ID string `json:"id"`
	// Table is the id of the table the rows carry.
	Table string `json:"table"`
	// Dialect is the database kind of the source (MySQL): a sink of the same kind may
	// create columns by their SourceType and Default.
	Dialect string `json:"dialect,omitempty"`
	// Statement is the DDL the change comes from, for logs and errors.
	Statement string         `json:"statement,omitempty"`
	Columns   []ColumnChange `json:"columns"`
}

// String is the change as logs show it: the table and the statement.
func (c *SchemaChange) String() string {
	if c.Statement != "" {
		return fmt.Sprintf("table %s: %s", c.Table, c.Statement)
	}
	parts := make([]string, len(c.Columns))
	for i, cc := range c.Columns {
		parts[i] = cc.String()
	}
	return fmt.Sprintf("table %s: %s", c.Table, strings.Join(parts, ", "))
}

// String is one column change as SQL would write it, without its type's details.
func (cc ColumnChange) String() string {
	s := string(cc.Op) + " COLUMN "
	switch cc.Op {
	case DropColumn:
		return s + cc.Name
	case ChangeColumn:
		s += cc.Name + " " + cc.Column.Name
	default:
		s += cc.Column.Name
	}
	s += " " + cc.Column.Type.String()
	switch {
	case cc.First:
		s += " FIRST"
	case cc.After != "":
		s += " AFTER " + cc.After
	}
	return s
}

// Apply returns a copy of t with the change's columns changed, its primary key and
// constraint keys following renamed columns. Column names match as MySQL's do, in any case.
// It fails, naming the column, when a change does not fit the table (a column added twice,
// a column that is not there) or drops a column of the primary key.
func (c *SchemaChange) Apply(t *catalog.Table) (*catalog.Table, error) {
	out := t.Copy()
	for _, cc := range c.Columns {
		if err := applyColumn(out, cc); err != nil {
			return nil, fmt.Errorf("table %s: %s: %w", t.ID(), cc, err)
		}
	}
	return out, nil
}

// ColumnIndexFold is the position of the column named name in any case, or -1.
func ColumnIndexFold(t *catalog.Table, name string) int {
	if i := t.ColumnIndex(name); i >= 0 {
		return i
	}
	for i, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

func applyColumn(t *catalog.Table, cc ColumnChange) error {
	switch cc.Op {
	case AddColumn:
		if ColumnIndexFold(t, cc.Column.Name) >= 0 {
			return fmt.Errorf("column %q exists", cc.Column.Name)
		}
		return placeColumn(t, -1, cc)
	case DropColumn:
		i := ColumnIndexFold(t, cc.Name)
		if i < 0 {
			return fmt.Errorf("no column %q", cc.Name)
		}
		if inKey(t, t.Columns[i].Name) {
			return fmt.Errorf("column %q is part of the primary key", cc.Name)
		}
		dropFromKeys(t, t.Columns[i].Name)
		t.Columns = append(t.Columns[:i], t.Columns[i+1:]...)
		return nil
	case ModifyColumn, ChangeColumn:
		old := cc.Column.Name
		if cc.Op == ChangeColumn {
			old = cc.Name
		}
		i := ColumnIndexFold(t, old)
		if i < 0 {
			return fmt.Errorf("no column %q", old)
		}
		if j := ColumnIndexFold(t, cc.Column.Name); j >= 0 && j != i {
			return fmt.Errorf("column %q exists", cc.Column.Name)
		}
		renameInKeys(t, t.Columns[i].Name, cc.Column.Name)
		return placeColumn(t, i, cc)
	}
	return fmt.Errorf("unknown column change %q", cc.Op)
}

// placeColumn puts cc.Column in place of column at (-1: a new one), moved where cc says.
func placeColumn(t *catalog.Table, at int, cc ColumnChange) error {
	cols := t.Columns
	if at >= 0 {
		if !cc.First && cc.After == "" {
			cols[at] = cc.Column
			return nil
		}
		cols = append(cols[:at:at], cols[at+1:]...)
	}
	pos := len(cols)
	switch {
	case cc.First:
		pos = 0
	case cc.After != "":
		j := -1
		for k, c := range cols {
			if strings.EqualFold(c.Name, cc.After) {
				j = k
				break
			}
		}
		if j < 0 {
			return fmt.Errorf("no column %q to place it after", cc.After)
		}
		pos = j + 1
	}
	out := make([]catalog.Column, 0, len(cols)+1)
	out = append(out, cols[:pos]...)
	out = append(out, cc.Column)
	t.Columns = append(out, cols[pos:]...)
	return nil
}

func inKey(t *catalog.Table, name string) bool {
	if t.PrimaryKey == nil {
		return false
	}
	for _, c := range t.PrimaryKey.Columns {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}

// dropFromKeys removes a dropped column from the constraint keys; a key left without
// columns goes too (as the database drops it).
func dropFromKeys(t *catalog.Table, name string) {
	kept := t.ConstraintKeys[:0]
	for _, k := range t.ConstraintKeys {
		var cols []catalog.ConstraintCol
		for _, c := range k.Columns {
			if !strings.EqualFold(c.Name, name) {
				cols = append(cols, c)
			}
		}
		if len(cols) > 0 {
			k.Columns = cols
			kept = append(kept, k)
		}
	}
	t.ConstraintKeys = kept
}

func renameInKeys(t *catalog.Table, from, to string) {
	if from == to {
		return
	}
	if t.PrimaryKey != nil {
		for i, c := range t.PrimaryKey.Columns {
			if strings.EqualFold(c, from) {
				t.PrimaryKey.Columns[i] = to
			}
		}
	}
	for i := range t.ConstraintKeys {
		cols := append([]catalog.ConstraintCol(nil), t.ConstraintKeys[i].Columns...)
		for j := range cols {
			if strings.EqualFold(cols[j].Name, from) {
				cols[j].Name = to
			}
		}
		t.ConstraintKeys[i].Columns = cols
	}
}

// SchemaChangeReader is a reader whose rows may be followed by changes of their tables'
// columns. After each PollNext the engine takes the changes that follow the rows that call
// returned (a reader stops filling a batch at a change), in order, and passes them on
// after those rows. The reader's next SnapshotState already stands after them: it records
// the tables as they are after the changes, so a restore neither misses a change nor
// passes it on again.
type SchemaChangeReader interface {
	// SchemaChanges returns the changes since the last call, oldest first.
	SchemaChanges() []*SchemaChange
	// Tables are the tables as the reader reads them before its first poll: a restored
	// reader's are those of its checkpoint, which may be older than the ones the job was
	// planned with (the database's of now). The engine routes the reader's rows by them.
	Tables() []*catalog.Table
}

// SchemaChangeTransform is a transform that can follow a change of an input table's
// columns. It gets the change after every row before it and returns the change of its
// output table (the change itself for a transform that passes columns through, another for
// one that maps them, nil when its output does not change). A transform that is not one
// fails the job at the first change it receives.
type SchemaChangeTransform interface {
	ApplySchemaChange(ctx context.Context, c *SchemaChange) (*SchemaChange, error)
}

// SchemaChangeApplier is a writer that applies changes of its input tables' columns to its
// target (Jdbc's ALTER TABLE, Console's printing). The engine calls it after every row
// before the change was handed to Write; the rows written after it have the new columns.
// A writer applies a change it finds applied already (a restore passes the changes after
// its checkpoint on again, some of which a writer may have applied before the failure) as
// a no-op. A writer that is not one fails the job at the first change it receives.
type SchemaChangeApplier interface {
	ApplySchemaChange(ctx context.Context, c *SchemaChange) error
}

// SchemaChangePreparer is a SchemaChangeApplier whose rows before a change must all be in its
// target before any writer of the table applies it (a Jdbc writer flushes and commits
// them: a column dropped while another writer still holds rows of it would fail those
// rows). When every writer of a sink receives every change (its input is hashed or spread
// over them, not forwarded), the engine calls PrepareSchemaChange on each, waits until all
// of them prepared, and only then applies the change on each.
type SchemaChangePreparer interface {
	PrepareSchemaChange(ctx context.Context, c *SchemaChange) error
}

// RestoredInput is the input table that the states of a restored writer keep under
// "input" for the planned table: the table as the schema changes the writer followed
// before the checkpoint left it, which the rows after the checkpoint have. Nil when no
// state keeps one (the writer followed no change). A state that is not JSON is an error.
func RestoredInput(planned *catalog.Table, states [][]byte) (*catalog.Table, error) {
	var in *catalog.Table
	for _, raw := range states {
		if len(raw) == 0 {
			continue
		}
		var st struct {
			Input *catalog.Table `json:"input"`
		}
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, fmt.Errorf("bad writer state: %v", err)
		}
		if st.Input != nil && st.Input.ID() == planned.ID() {
			in = st.Input
		}
	}
	return in, nil
}
