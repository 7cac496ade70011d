package jdbc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
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
// MySQL and MariaDB get one ALTER TABLE per change (ADD, DROP, MODIFY and CHANGE COLUMN,
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

// restoredInput is the input table a restored writer's state keeps, when it keeps one of
// the planned input's table; nil when none.
func restoredInput(c *sinkConfig, states [][]byte) (*catalog.Table, error) {
	var in *catalog.Table
	for _, raw := range states {
		if len(raw) == 0 {
			continue
		}
		var st writerState
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, fmt.Errorf("bad writer state: %v", err)
		}
		if st.Input != nil && st.Input.ID() == c.input.ID() {
			in = st.Input
		}
	}
	return in, nil
}

// restore returns the config of a writer restored from states: the input table the states
// keep (a writer that applied schema changes before the checkpoint) or else the planned
// one, written where the target has its columns; the config as it is for a writer that
// starts afresh.
func (c *sinkConfig) restore(ctx context.Context, states [][]byte, columns func(context.Context) (map[string]bool, error)) (*sinkConfig, error) {
	if len(states) == 0 || c.mode == modeQuery {
		return c, nil
	}
	in, err := restoredInput(c, states)
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

// mysqlAlter is the ALTER TABLE of a change on MySQL, given the target's columns (by lower-case
// name, updated as the clauses go); "" when the target shows it applied.
func (c *sinkConfig) mysqlAlter(ch *connector.SchemaChange, have map[string]bool) (string, error) {
	var clauses []string
	for _, cc := range ch.Columns {
		a := columnAlter{cc: cc, name: c.targetName(cc.Column.Name), old: c.targetName(cc.Name), nullable: cc.Column.Nullable}
		switch cc.Op {
		case connector.DropColumn:
			if !have[strings.ToLower(a.old)] {
				continue
			}
			delete(have, strings.ToLower(a.old))
			clauses = append(clauses, "DROP COLUMN "+mysqlQuote(a.old))
			continue
		case connector.AddColumn:
			if have[strings.ToLower(a.name)] {
				continue
			}
		case connector.ChangeColumn:
			if !have[strings.ToLower(a.old)] && have[strings.ToLower(a.name)] {
				a.cc.Op = connector.ModifyColumn // renamed already: its definition still applies
			}
		}
		var err error
		if a.typ, a.dflt, err = mysqlColumnDef(ch, cc); err != nil {
			return "", fmt.Errorf("column %s: %w", cc.Column.Name, err)
		}
		clauses = append(clauses, a.mysqlClause(have, c))
		if a.cc.Op == connector.ChangeColumn {
			delete(have, strings.ToLower(a.old))
		}
		have[strings.ToLower(a.name)] = true
	}
	if len(clauses) == 0 {
		return "", nil
	}
	return "ALTER TABLE " + c.mysqlTarget() + " " + strings.Join(clauses, ", "), nil
}

func (a columnAlter) mysqlClause(have map[string]bool, c *sinkConfig) string {
	var b strings.Builder
	switch a.cc.Op {
	case connector.AddColumn:
		b.WriteString("ADD COLUMN " + mysqlQuote(a.name))
	case connector.ModifyColumn:
		b.WriteString("MODIFY COLUMN " + mysqlQuote(a.name))
	default:
		b.WriteString("CHANGE COLUMN " + mysqlQuote(a.old) + " " + mysqlQuote(a.name))
	}
	b.WriteString(" " + a.typ)
	if a.nullable {
		b.WriteString(" NULL")
	} else {
		b.WriteString(" NOT NULL")
	}
	if a.dflt != "" {
		b.WriteString(" DEFAULT " + a.dflt)
	}
	if a.cc.Column.Comment != "" {
		b.WriteString(" COMMENT " + mysqlString(a.cc.Column.Comment))
	}
	switch after := c.targetName(a.cc.After); {
	case a.cc.First:
		b.WriteString(" FIRST")
	case a.cc.After != "" && have[strings.ToLower(after)]:
		b.WriteString(" AFTER " + mysqlQuote(after))
	}
	return b.String()
}

// mysqlColumnDef is a changed column's MySQL type and default: those the source wrote when
// it is MySQL, else its type's and a plain default's.
func mysqlColumnDef(ch *connector.SchemaChange, cc connector.ColumnChange) (typ, dflt string, err error) {
	if ch.Dialect == dialectMySQL && cc.Column.SourceType != "" {
		return cc.Column.SourceType, cc.Default, nil
	}
	if typ, err = (mysqlDialect{}).columnType(cc.Column); err != nil {
		return "", "", err
	}
	return typ, plainDefault(cc, mysqlString), nil
}

func mysqlString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s) + "'"
}

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

// pgAlter is the statements of a change on PostgreSQL, given the target's columns; none
// when the target shows it applied. typeOf is the PostgreSQL type a column is created as.
func (c *sinkConfig) pgAlter(ch *connector.SchemaChange, have map[string]bool, typeOf func(catalog.Column) (string, error)) ([]string, error) {
	t := c.target.Quoted()
	var out []string
	for _, cc := range ch.Columns {
		name, old := c.targetName(cc.Column.Name), c.targetName(cc.Name)
		q := pgwire.QuoteIdent(name)
		switch cc.Op {
		case connector.DropColumn:
			if have[strings.ToLower(old)] {
				delete(have, strings.ToLower(old))
				out = append(out, fmt.Sprintf("ALTER TABLE %s DROP COLUMN IF EXISTS %s", t, pgwire.QuoteIdent(old)))
			}
			continue
		case connector.AddColumn:
			if have[strings.ToLower(name)] {
				continue
			}
		}
		typ, err := typeOf(cc.Column)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", cc.Column.Name, err)
		}
		dflt := plainDefault(cc, quoteLiteral)
		switch cc.Op {
		case connector.AddColumn:
			s := fmt.Sprintf("ALTER TABLE %s ADD COLUMN IF NOT EXISTS %s %s", t, q, typ)
			if dflt != "" {
				s += " DEFAULT " + dflt
			}
			if !cc.Column.Nullable && dflt != "" {
				s += " NOT NULL"
			}
			out = append(out, s)
			have[strings.ToLower(name)] = true
			continue
		case connector.ChangeColumn:
			if old != name && have[strings.ToLower(old)] {
				out = append(out, fmt.Sprintf("ALTER TABLE %s RENAME COLUMN %s TO %s", t, pgwire.QuoteIdent(old), q))
				delete(have, strings.ToLower(old))
				have[strings.ToLower(name)] = true
			}
		}
		parts := []string{fmt.Sprintf("ALTER COLUMN %s TYPE %s USING %s::%s", q, typ, q, typ)}
		if cc.Column.Nullable {
			parts = append(parts, fmt.Sprintf("ALTER COLUMN %s DROP NOT NULL", q))
		} else {
			parts = append(parts, fmt.Sprintf("ALTER COLUMN %s SET NOT NULL", q))
		}
		if dflt != "" {
			parts = append(parts, fmt.Sprintf("ALTER COLUMN %s SET DEFAULT %s", q, dflt))
		} else {
			parts = append(parts, fmt.Sprintf("ALTER COLUMN %s DROP DEFAULT", q))
		}
		out = append(out, fmt.Sprintf("ALTER TABLE %s %s", t, strings.Join(parts, ", ")))
	}
	return out, nil
}

// ---- PostgreSQL ----

func (w *writer) alterTarget(ctx context.Context, ch *connector.SchemaChange) (map[string]bool, error) {
	return w.applyChange(ctx, ch)
}

func (w *writer) rebuild(ctx context.Context) error { return w.reprepare(ctx) }

// applyChange alters the table as the change says, unless it shows it applied; it returns
// the table's columns after it. A writer of the same table that applied it meanwhile (the
// server refuses a column added or renamed twice) leaves the table as the change says.
func (w *writer) applyChange(ctx context.Context, ch *connector.SchemaChange) (map[string]bool, error) {
	for attempt := 0; ; attempt++ {
		have, err := w.targetColumns(ctx)
		if err != nil {
			return nil, err
		}
		stmts, err := w.cfg.pgAlter(ch, have, func(col catalog.Column) (string, error) { return columnType(ctx, w.conn, col) })
		if err != nil {
			return nil, connector.Permanent(fmt.Errorf("%s: table %s: %w", w.cfg.where, w.cfg.target, err))
		}
		err = w.alter(ctx, stmts)
		if err == nil {
			return have, nil
		}
		var pe *pgconn.PgError
		if attempt == 0 && errors.As(err, &pe) && (pe.Code == "42701" || pe.Code == "42703") {
			continue // duplicate_column, undefined_column: another writer was first
		}
		return nil, err
	}
}

// targetColumns are the columns the table has, by lower-case name.
func (w *writer) targetColumns(ctx context.Context) (map[string]bool, error) {
	return pgTargetColumns(ctx, w.conn, w.cfg)
}

func pgTargetColumns(ctx context.Context, conn *pgx.Conn, c *sinkConfig) (map[string]bool, error) {
	rows, err := conn.Query(ctx, "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped", c.target.Quoted())
	if err != nil {
		return nil, fmt.Errorf("%s: table %s: read its columns: %w", c.where, c.target, err)
	}
	defer rows.Close()
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

// alter runs a change's statements in one transaction.
func (w *writer) alter(ctx context.Context, stmts []string) error {
	if len(stmts) == 0 {
		return nil
	}
	tx, err := w.conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("%s: table %s: %w", w.cfg.where, w.cfg.target, err)
	}
	for _, s := range stmts {
		slog.Info("Jdbc applies a schema change", "plugin", w.cfg.where, "statement", s)
		if _, err := tx.Exec(ctx, s); err != nil {
			_ = tx.Rollback(ctx)
			err = fmt.Errorf("%s: table %s: %s: %w", w.cfg.where, w.cfg.target, s, err)
			if refused(err) {
				return connector.Permanent(err)
			}
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("%s: table %s: commit the schema change: %w", w.cfg.where, w.cfg.target, err)
	}
	return nil
}

// reprepare drops the writer's statements and prepares those of its new columns.
func (w *writer) reprepare(ctx context.Context) error {
	if err := w.conn.DeallocateAll(ctx); err != nil {
		return err
	}
	w.main, w.insert, w.update, w.delete, w.bulkUpsert, w.bulkDelete, w.copy = nil, nil, nil, nil, nil, nil, ""
	if err := w.prepare(ctx); err != nil {
		return err
	}
	w.resetBuf()
	return nil
}

// ---- MySQL ----

func (w *myWriter) alterTarget(ctx context.Context, ch *connector.SchemaChange) (map[string]bool, error) {
	return w.alter(ctx, ch)
}

func (w *myWriter) rebuild(ctx context.Context) error { return w.prepare(ctx) }

// alter runs the change's ALTER TABLE, unless the table shows it applied; it returns the
// table's columns after it. A writer of the same table that applied it meanwhile (the
// server refuses a column added or dropped twice) leaves the table as the change says.
func (w *myWriter) alter(ctx context.Context, ch *connector.SchemaChange) (map[string]bool, error) {
	for attempt := 0; ; attempt++ {
		have, err := w.targetColumns(ctx)
		if err != nil {
			return nil, err
		}
		stmt, err := w.cfg.mysqlAlter(ch, have)
		if err != nil {
			return nil, connector.Permanent(fmt.Errorf("%s: table %s: %w", w.cfg.where, w.cfg.target, err))
		}
		if stmt == "" {
			return w.targetColumns(ctx)
		}
		slog.Info("Jdbc applies a schema change", "plugin", w.cfg.where, "statement", stmt)
		_, err = w.conn.ExecContext(ctx, stmt)
		if err == nil {
			return have, nil
		}
		if attempt == 0 && mysqlRaced(err) {
			continue
		}
		err = fmt.Errorf("%s: table %s: %s: %w", w.cfg.where, w.cfg.target, stmt, err)
		if mysqlRefused(err) {
			return nil, connector.Permanent(err)
		}
		return nil, err
	}
}

// mysqlRaced reports the errors of a column added, dropped or renamed by someone else
// meanwhile: ER_DUP_FIELDNAME, ER_CANT_DROP_FIELD_OR_KEY and ER_BAD_FIELD_ERROR.
func mysqlRaced(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1060 || me.Number == 1091 || me.Number == 1054)
}

// targetColumns are the columns the table has, by lower-case name.
func (w *myWriter) targetColumns(ctx context.Context) (map[string]bool, error) {
	rows, err := w.conn.QueryContext(ctx, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", w.cfg.target.Schema, w.cfg.target.Table)
	if err != nil {
		return nil, fmt.Errorf("%s: table %s: read its columns: %w", w.cfg.where, w.cfg.target, err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("%s: table %s: read its columns: %w", w.cfg.where, w.cfg.target, err)
		}
		have[strings.ToLower(name)] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: table %s: read its columns: %w", w.cfg.where, w.cfg.target, err)
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
