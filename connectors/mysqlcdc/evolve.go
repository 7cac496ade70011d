package mysqlcdc

import (
	"fmt"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/mysqlcdc/ddl"
)

// Schema evolution (schema-changes.enabled): an ALTER TABLE of a captured table in the log
// changes the table the source decodes the later row events with, and becomes a
// connector.SchemaChange passed on after the rows before it. The log split's state keeps
// every captured table as it is at the split's position, so a restore decodes the events
// after the position with the columns they were written with, and passes on every change
// after it, once.

// dialectMySQL is the source dialect a change names: a MySQL sink may create its columns by
// their MySQL types.
const dialectMySQL = "MySQL"

// evolveTable follows an ALTER TABLE of table t: it updates t and returns the change to pass on,
// or nil when the statement changes nothing of the rows the engine sees (an index, a table
// option; any statement with format compatible_debezium_json, whose rows keep their three
// fields). id names the change.
func (s *Source) evolveTable(t *cdcTable, a *ddl.Alter, stmt, id string) (*connector.SchemaChange, error) {
	if a.Charset != "" {
		t.charset = a.Charset
	}
	work := t.table.Copy()
	decoded := map[string]column{} // the new or renamed columns' decodings, by lower-case name
	change := &connector.SchemaChange{ID: id, Table: t.id, Dialect: dialectMySQL, Statement: stmt}
	for _, cl := range a.Clauses {
		cc, dec, skip, err := s.columnChange(t, work, cl)
		if err != nil {
			return nil, err
		}
		if skip {
			continue
		}
		next, err := (&connector.SchemaChange{Table: t.id, Columns: []connector.ColumnChange{cc}}).Apply(work)
		if err != nil {
			return nil, fmt.Errorf("the table's columns in the log are not those the source knows (was the log read from before they changed?): %w", err)
		}
		work = next
		if cc.Op != connector.DropColumn {
			decoded[strings.ToLower(cc.Column.Name)] = dec
		}
		change.Columns = append(change.Columns, cc)
	}
	if len(change.Columns) == 0 {
		return nil, nil
	}
	cols := make([]column, len(work.Columns))
	for i, c := range work.Columns {
		dec, ok := decoded[strings.ToLower(c.Name)]
		if !ok {
			j := columnIndex(t.cols, c.Name)
			if j < 0 {
				return nil, fmt.Errorf("column %q has no decoding", c.Name) // Apply keeps every other column
			}
			dec = t.cols[j]
		}
		cols[i] = dec
	}
	t.setColumns(work, cols)
	if t.dbz != nil {
		t.dbz = newDebeziumTable(t, s.dbz, s.loc)
		return nil, nil
	}
	return change, nil
}

// columnChange turns one clause into the change of a column of work (the table as the
// clauses before it left it) and the new column's decoding; skip says a clause of MariaDB's
// IF [NOT] EXISTS does not apply.
func (s *Source) columnChange(t *cdcTable, work *catalog.Table, cl ddl.Clause) (cc connector.ColumnChange, dec column, skip bool, err error) {
	exists := func(name string) bool { return connector.ColumnIndexFold(work, name) >= 0 }
	switch cl.Op {
	case ddl.Add:
		if cl.IfExists && exists(cl.Column.Name) {
			return cc, dec, true, nil
		}
	case ddl.Drop, ddl.Rename:
		if cl.IfExists && !exists(cl.Name) {
			return cc, dec, true, nil
		}
	case ddl.Modify:
		if cl.IfExists && !exists(cl.Column.Name) {
			return cc, dec, true, nil
		}
	case ddl.Change:
		if cl.IfExists && !exists(cl.Name) {
			return cc, dec, true, nil
		}
	}
	switch cl.Op {
	case ddl.Drop:
		name := cl.Name
		if i := connector.ColumnIndexFold(work, name); i >= 0 {
			name = work.Columns[i].Name
		}
		return connector.ColumnChange{Op: connector.DropColumn, Name: name}, dec, false, nil
	case ddl.Rename:
		i := connector.ColumnIndexFold(work, cl.Name)
		if i < 0 {
			return cc, dec, false, fmt.Errorf("RENAME COLUMN %s: no column %q", cl.Name, cl.Name)
		}
		j := columnIndex(t.cols, work.Columns[i].Name)
		if j < 0 {
			// a column added by an earlier clause of the statement: MySQL refuses that
			return cc, dec, false, fmt.Errorf("RENAME COLUMN %s: the column is not one the table had", cl.Name)
		}
		dec = t.cols[j]
		dec.name = cl.NewName
		col := work.Columns[i]
		col.Name = cl.NewName
		return connector.ColumnChange{Op: connector.ChangeColumn, Name: work.Columns[i].Name, Column: col}, dec, false, nil
	}
	def := cl.Column
	charset := ""
	if isText(def.DataType) {
		if charset = def.Charset; charset == "" {
			charset = t.charset
		}
	}
	if dec, err = columnOf(def.Name, def.DataType, def.ColumnType, def.Precision, def.Scale, charset); err != nil {
		return cc, dec, false, fmt.Errorf("column %q: %v", def.Name, err)
	}
	if isTemporal(def.DataType) && def.Length > 0 {
		dec.frac = def.Length
	}
	col := catalog.Column{Name: def.Name, Type: dec.typ, Nullable: def.Nullable, Scale: dec.typ.Scale, Comment: def.Comment,
		SourceType: def.ColumnType, DefaultValue: defaultValue(def.Default)}
	if isText(def.DataType) && def.Length > 0 {
		col.Length = int64(def.Length)
	}
	cc = connector.ColumnChange{Column: col, Default: def.Default, First: cl.First, After: cl.After}
	switch cl.Op {
	case ddl.Add:
		cc.Op = connector.AddColumn
	case ddl.Modify:
		cc.Op = connector.ModifyColumn
	default:
		cc.Op, cc.Name = connector.ChangeColumn, cl.Name
		if i := connector.ColumnIndexFold(work, cl.Name); i >= 0 {
			cc.Name = work.Columns[i].Name
		}
	}
	return cc, dec, false, nil
}

func isText(dataType string) bool {
	switch dataType {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set":
		return true
	}
	return false
}

func isTemporal(dataType string) bool {
	return dataType == "datetime" || dataType == "timestamp" || dataType == "time"
}

// defaultValue is a default's value: a string literal's text, any other default as written.
func defaultValue(sql string) any {
	if sql == "" {
		return nil
	}
	if len(sql) >= 2 && sql[0] == '\'' && sql[len(sql)-1] == '\'' {
		return strings.ReplaceAll(sql[1:len(sql)-1], "''", "'")
	}
	return sql
}

// columnIndex is the position of the decoding of the column named name (in any case), or
// -1.
func columnIndex(cols []column, name string) int {
	for i := range cols {
		if cols[i].name == name {
			return i
		}
	}
	for i := range cols {
		if strings.EqualFold(cols[i].name, name) {
			return i
		}
	}
	return -1
}

// setColumns makes the table's columns tbl's, decoded by cols: its SELECT, its key's
// positions and its split column follow.
func (t *cdcTable) setColumns(tbl *catalog.Table, cols []column) {
	t.table, t.cols = tbl, cols
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = quoteIdent(c.name)
	}
	t.sql = "SELECT " + strings.Join(sel, ", ") + " FROM " + quoteIdent(t.name.db) + "." + quoteIdent(t.name.table)
	t.keyIdx, t.key, t.keyCol = nil, "", -1
	if tbl.PrimaryKey == nil {
		return
	}
	for _, c := range tbl.PrimaryKey.Columns {
		t.keyIdx = append(t.keyIdx, tbl.ColumnIndex(c))
	}
	if j := t.keyIdx[0]; j >= 0 && cols[j].typ.Kind.IsInteger() && cols[j].dec != decUint64 {
		t.key, t.keyCol = cols[j].name, j
	}
}

// ---- the tables in the log split's state ----

// storedTable is a captured table as the log split keeps it: its catalog table and how
// each column is decoded.
type storedTable struct {
	ID      string         `json:"id"`
	Table   *catalog.Table `json:"table"`
	Columns []storedColumn `json:"columns"`
	Charset string         `json:"charset,omitempty"`
}

// storedColumn is what a column's decoding is made of (columnOf's arguments).
type storedColumn struct {
	DataType   string `json:"data_type"`
	ColumnType string `json:"column_type"`
	Precision  int    `json:"precision,omitempty"`
	Scale      int    `json:"scale,omitempty"`
	Charset    string `json:"charset,omitempty"`
	Frac       int    `json:"frac,omitempty"`
}

// storedTables are the captured tables as they are now, for the log split's state; nil
// unless the source follows schema changes (without them, the tables never change).
func (s *Source) storedTables() []storedTable {
	if !s.evolve {
		return nil
	}
	out := make([]storedTable, len(s.tables))
	for i, t := range s.tables {
		st := storedTable{ID: t.id, Table: t.table, Charset: t.charset, Columns: make([]storedColumn, len(t.cols))}
		for j, c := range t.cols {
			st.Columns[j] = storedColumn{DataType: c.dataTyp, ColumnType: c.colTyp, Precision: c.prec, Scale: c.scale, Charset: c.charset, Frac: c.frac}
		}
		out[i] = st
	}
	return out
}

// restoreTables makes the captured tables those of a restored log split: the columns the
// log at the split's position was written with, which may be older than the server's.
func (s *Source) restoreTables(stored []storedTable) error {
	for _, st := range stored {
		t := s.byID[st.ID]
		if t == nil || st.Table == nil {
			continue // a table no longer captured
		}
		if len(st.Columns) != len(st.Table.Columns) {
			return fmt.Errorf("%s: the restored state of table %s has %d columns and %d decodings", s.where, st.ID, len(st.Table.Columns), len(st.Columns))
		}
		cols := make([]column, len(st.Columns))
		for i, sc := range st.Columns {
			c, err := columnOf(st.Table.Columns[i].Name, sc.DataType, sc.ColumnType, sc.Precision, sc.Scale, sc.Charset)
			if err != nil {
				return fmt.Errorf("%s: the restored state of table %s: column %q: %v", s.where, st.ID, st.Table.Columns[i].Name, err)
			}
			c.frac = sc.Frac
			cols[i] = c
		}
		t.charset = st.Charset
		t.setColumns(st.Table, cols)
		if t.dbz != nil {
			t.dbz = newDebeziumTable(t, s.dbz, s.loc)
		}
	}
	return nil
}
