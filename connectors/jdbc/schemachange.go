package jdbc

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/types"
)

// Schema changes (SeaTunnel's applySchemaChange of the Jdbc sink).
//
// A writer that receives a change of its input table's columns first settles every row
// before it: it sends what it buffers, waits for it, and commits the open transaction
// (with is_exactly_once too, and the transactions of earlier checkpoints it prepared: an
// ALTER TABLE cannot run inside a transaction that wrote to the table, nor beside one that
// holds its locks while it waits for its commit). It then alters the target as the change
// says, a column change the target shows applied already (a column to add that is there,
// one to drop that is not, one to rename that has its new name) being skipped, so a change
// passed on again after a restore, or by another writer of the same table, is applied
// once. Last it rebuilds its statements and column lists for the new columns. The writer's
// state keeps its input table as the changes left it, so a restored writer writes the rows
// after its checkpoint with the columns they have; it leaves out a column its target no
// longer has (dropped or renamed by a change applied after the checkpoint, before the
// failure), until the change, passed on again, drops it from its input too.
//
// The statements are the driver's (pg_schemachange.go, mysql_schemachange.go). MySQL and
// MariaDB get one ALTER TABLE per change (ADD, DROP, MODIFY and CHANGE COLUMN,
// FIRST and AFTER kept), with the column's MySQL type and default as the source wrote them
// when the source is MySQL. PostgreSQL gets one transaction of ADD COLUMN, DROP COLUMN,
// RENAME COLUMN and ALTER COLUMN TYPE / SET NOT NULL / SET DEFAULT; it places no column, and
// a NOT NULL column is added nullable unless its default fills the existing rows.

// withInput returns a copy of the config that writes input table in: its columns, field_ide
// applied, and its key, whose columns renames (old name to new) follow. A restored writer's
// config writes only the columns its target has (have, by lower-case name).
func (c *sinkConfig) withInput(in *catalog.Table, renames map[string]string, have map[string]bool) (*sinkConfig, error) {
	n := *c
	n.input = in
	n.columns, n.fields = nil, nil
	for i, col := range in.Columns {
		name := applyIde(col.Name, c.ide)
		if c.restored && have != nil && !have[strings.ToLower(name)] {
			slog.Warn("Jdbc leaves out a column its table no longer has (a schema change applied before the restore, to be passed on again)",
				"plugin", c.where, "table", c.target.String(), "column", name)
			continue
		}
		n.columns = append(n.columns, name)
		n.fields = append(n.fields, i)
	}
	n.pk, n.pkNames = nil, nil
	for _, name := range c.pkNames {
		if to, ok := renames[strings.ToLower(name)]; ok {
			name = to
		}
		i := connector.ColumnIndexFold(in, name)
		if i < 0 && in.PrimaryKey != nil && len(in.PrimaryKey.Columns) == len(c.pkNames) {
			// a restored input, whose key has the names of its checkpoint
			i = connector.ColumnIndexFold(in, in.PrimaryKey.Columns[len(n.pk)])
		}
		j := indexOf(n.fields, i)
		if i < 0 || j < 0 {
			return nil, fmt.Errorf("key column %q is not among the columns written", name)
		}
		n.pk = append(n.pk, j)
		n.pkNames = append(n.pkNames, in.Columns[i].Name)
	}
	return &n, nil
}

// positions is 0, 1, ..., n-1.
func positions(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// evolve checks that the sink can follow the change and returns the input table after it,
// with the renames it makes.
func (c *sinkConfig) evolve(ch *connector.SchemaChange) (*catalog.Table, map[string]string, error) {
	if c.mode == modeQuery {
		return nil, nil, fmt.Errorf("a sink with a query cannot follow a schema change of %s: the query names its own columns", ch)
	}
	if ch.Table != c.input.ID() {
		return nil, nil, fmt.Errorf("a schema change of table %s reached the writer of table %s", ch.Table, c.input.ID())
	}
	in, err := ch.Apply(c.input)
	if err != nil {
		return nil, nil, err
	}
	renames := map[string]string{}
	for _, cc := range ch.Columns {
		if cc.Op == connector.ChangeColumn {
			renames[strings.ToLower(cc.Name)] = cc.Column.Name
		}
	}
	return in, renames, nil
}

// restore returns the config of a writer restored from states: the input table the states
// keep (a writer that applied schema changes before the checkpoint) or else the planned
// one, written where the target has its columns; the config as it is for a writer that
// starts afresh.
func (c *sinkConfig) restore(ctx context.Context, states [][]byte, columns func(context.Context) (map[string]bool, error)) (*sinkConfig, error) {
	if len(states) == 0 || c.mode == modeQuery {
		return c, nil
	}
	in, err := connector.RestoredInput(c.input, states)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.where, err)
	}
	evolved := in != nil
	if in == nil {
		in = c.input
	}
	have, err := columns(ctx)
	if err != nil {
		return nil, err
	}
	r := *c
	r.restored, r.evolved = true, evolved
	out, err := r.withInput(in, nil, have)
	if err != nil {
		return nil, fmt.Errorf("%s: table %s: restoring a writer: %w", c.where, c.target, err)
	}
	return out, nil
}

// inputState is the state of a writer without prepared transactions: its input table.
func (c *sinkConfig) inputState(checkpointID int64) ([]byte, error) {
	in := c.snapshotInput()
	if in == nil {
		return nil, nil
	}
	return json.Marshal(writerState{NextCheckpoint: checkpointID + 1, Input: in})
}

// snapshotInput is the input table a writer's state keeps: the one its statements write,
// once a schema change made it differ from the planned one (nil before: a restore plans
// the input again from the source as it is then, as SeaTunnel's does).
func (c *sinkConfig) snapshotInput() *catalog.Table {
	if c.mode == modeQuery || !c.evolved {
		return nil
	}
	return c.input
}

// ---- the statements of a change ----

// columnAlter is one column change as the target's dialect writes it.
type columnAlter struct {
	cc       connector.ColumnChange
	name     string // the column's name in the target (field_ide applied)
	old      string // CHANGE: the old name in the target
	typ      string
	dflt     string // the default as the target's SQL writes it, "" for none
	nullable bool
}

// targetName is a column name in the target.
func (c *sinkConfig) targetName(name string) string { return applyIde(name, c.ide) }

// numberRe is a numeric literal.
var numberRe = regexp.MustCompile(`^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$`)

// nowRe are the defaults that mean the time of the insert.
var nowRe = regexp.MustCompile(`(?i)^(current_timestamp|now|localtimestamp|localtime)\s*(\(\s*\d*\s*\))?$`)

// plainDefault is a default another database reads too: a number, a string (quoted by
// quote) or the current time; "" for any other expression.
func plainDefault(cc connector.ColumnChange, quote func(string) string) string {
	d := strings.TrimSpace(cc.Default)
	switch {
	case d == "":
		return ""
	case numberRe.MatchString(d):
		if cc.Column.Type.Kind == types.Boolean {
			if strings.Trim(d, "+-0.") == "" {
				return "false"
			}
			return "true"
		}
		return d
	case len(d) >= 2 && d[0] == '\'' && d[len(d)-1] == '\'':
		if s, ok := cc.Column.DefaultValue.(string); ok {
			return quote(s)
		}
	case nowRe.MatchString(d):
		return "CURRENT_TIMESTAMP"
	}
	return ""
}

// alterTarget alters the table as the change says, unless it shows it applied; it returns
// the table's columns after it. A writer of the same table that applied it meanwhile (the
// server refuses a column added, dropped or renamed twice) leaves the table as the change
// says, so the change is worked out once more against the table as it is then.
func (w *txWriter) alterTarget(ctx context.Context, ch *connector.SchemaChange) (map[string]bool, error) {
	for attempt := 0; ; attempt++ {
		have, err := w.s.targetColumns(ctx)
		if err != nil {
			return nil, err
		}
		stmts, err := w.s.alterStatements(ctx, ch, have)
		if err != nil {
			return nil, connector.Permanent(fmt.Errorf("%s: table %s: %w", w.cfg.where, w.cfg.target, err))
		}
		if err = w.s.execAlter(ctx, stmts); err == nil {
			return have, nil
		}
		if attempt == 0 && w.s.raced(err) {
			continue
		}
		return nil, err
	}
}

// nameRows is a result of names (pgx.Rows, *sql.Rows).
type nameRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// columnNames reads a result of column names into a set of lower-case names.
func (c *sinkConfig) columnNames(rows nameRows) (map[string]bool, error) {
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("%s: table %s: read its columns: %w", c.where, c.target, err)
		}
		have[strings.ToLower(name)] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: table %s: read its columns: %w", c.where, c.target, err)
	}
	return have, nil
}

// StateTable is the input table a writer's state names (multitable.TableState): a job of
// one table restored with more gives the state to its table's writer.
func (s *Sink) StateTable(state []byte) (string, bool) {
	var st writerState
	if err := json.Unmarshal(state, &st); err != nil || st.Input == nil {
		return "", false
	}
	return st.Input.ID(), true
}
