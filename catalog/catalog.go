// Package catalog describes tables as SeaTunnel's CatalogTable does: a path, columns with
// types, a primary key and constraint keys. Sources declare the tables they produce,
// transforms derive theirs, sinks check what they receive.
package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strait-dev/strait/types"
)

// TablePath is database.schema.table; any part may be empty.
type TablePath struct {
	Database string `json:"database,omitempty"`
	Schema   string `json:"schema,omitempty"`
	Table    string `json:"table,omitempty"`
}

// ParsePath reads "db.schema.table", "db.table" (or "schema.table" when schemaFirst) and
// "table".
func ParsePath(s string, schemaFirst bool) (TablePath, error) {
	parts := strings.Split(s, ".")
	switch len(parts) {
	case 1:
		return TablePath{Table: parts[0]}, nil
	case 2:
		if schemaFirst {
			return TablePath{Schema: parts[0], Table: parts[1]}, nil
		}
		return TablePath{Database: parts[0], Table: parts[1]}, nil
	case 3:
		return TablePath{Database: parts[0], Schema: parts[1], Table: parts[2]}, nil
	}
	return TablePath{}, fmt.Errorf("table path %q has more than three parts", s)
}

// String is the full name: the non-empty parts joined by dots.
func (p TablePath) String() string {
	parts := make([]string, 0, 3)
	for _, s := range []string{p.Database, p.Schema, p.Table} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ".")
}

// Column is one column of a table.
type Column struct {
	Name         string         `json:"name"`
	Type         types.DataType `json:"type"`
	Nullable     bool           `json:"nullable"`
	Length       int64          `json:"length,omitempty"`
	Scale        int            `json:"scale,omitempty"`
	DefaultValue any            `json:"defaultValue,omitempty"`
	Comment      string         `json:"comment,omitempty"`
	// SourceType is the column's type as the source's database names it (SeaTunnel's
	// sourceType), "" when unknown: a sink of the same database may create the column so.
	SourceType string `json:"sourceType,omitempty"`
}

// PrimaryKey names a primary key and its columns.
type PrimaryKey struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
}

// ConstraintKey is an index or unique key.
type ConstraintKey struct {
	Name    string          `json:"name"`
	Type    string          `json:"type"` // INDEX_KEY, UNIQUE_KEY
	Columns []ConstraintCol `json:"columns"`
}

// ConstraintCol is a column of a constraint key with its sort order.
type ConstraintCol struct {
	Name string `json:"name"`
	Sort string `json:"sort,omitempty"` // ASC, DESC
}

// Table is a table's identity and schema.
type Table struct {
	Catalog        string          `json:"catalog,omitempty"`
	Path           TablePath       `json:"path"`
	Columns        []Column        `json:"columns"`
	PrimaryKey     *PrimaryKey     `json:"primaryKey,omitempty"`
	ConstraintKeys []ConstraintKey `json:"constraintKeys,omitempty"`
	Comment        string          `json:"comment,omitempty"`
}

// ID is the table id rows of this table carry: the full path.
func (t *Table) ID() string { return t.Path.String() }

// RowType returns the columns as a row type.
func (t *Table) RowType() *types.RowType {
	rt := &types.RowType{Names: make([]string, len(t.Columns)), Types: make([]types.DataType, len(t.Columns))}
	for i, c := range t.Columns {
		rt.Names[i] = c.Name
		rt.Types[i] = c.Type
	}
	return rt
}

// ColumnIndex returns the position of the column with exactly this name, or -1.
func (t *Table) ColumnIndex(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// KeepPresentKeys drops the primary key and the constraint keys that name a column the
// table does not have (a projection or a query that leaves it out).
func (t *Table) KeepPresentKeys() {
	if t.PrimaryKey != nil {
		for _, c := range t.PrimaryKey.Columns {
			if t.ColumnIndex(c) < 0 {
				t.PrimaryKey = nil
				break
			}
		}
	}
	kept := t.ConstraintKeys[:0]
	for _, k := range t.ConstraintKeys {
		ok := true
		for _, c := range k.Columns {
			if t.ColumnIndex(c.Name) < 0 {
				ok = false
			}
		}
		if ok {
			kept = append(kept, k)
		}
	}
	t.ConstraintKeys = kept
}

// Copy returns a copy whose columns and keys may be changed freely.
func (t *Table) Copy() *Table {
	c := *t
	c.Columns = append([]Column(nil), t.Columns...)
	if t.PrimaryKey != nil {
		pk := *t.PrimaryKey
		pk.Columns = append([]string(nil), pk.Columns...)
		c.PrimaryKey = &pk
	}
	c.ConstraintKeys = append([]ConstraintKey(nil), t.ConstraintKeys...)
	for i := range c.ConstraintKeys {
		c.ConstraintKeys[i].Columns = slices.Clone(c.ConstraintKeys[i].Columns)
	}
	return &c
}

// FromRowType builds a table from a path and a row type, every column nullable.
func FromRowType(path TablePath, rt *types.RowType) *Table {
	t := &Table{Path: path, Columns: make([]Column, rt.Len())}
	for i := range rt.Names {
		t.Columns[i] = Column{Name: rt.Names[i], Type: rt.Types[i], Nullable: true}
	}
	return t
}
