package assert

import (
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
)

// Config is the Assert sink's options.
type Config struct {
	Rules Rules `opt:"rules,required" doc:"what the rows must satisfy: row_rules, field_rules and catalog_table_rule for every input table, table-names, or tables_configs with rules per table"`
}

// Rules is the rules block.
type Rules struct {
	TableRules
	TableNames    []string      `opt:"table-names" doc:"the table ids the sink must receive rows of, checked when the job ends: exactly these, in any order"`
	TablesConfigs []TableConfig `opt:"tables_configs" doc:"rules per table, each entry naming its table in table_path; the rules beside it are then not read"`
}

// TableRules are the rules of one table, or of every input table.
type TableRules struct {
	RowRules   []RowRule   `opt:"row_rules" doc:"bounds on the number of rows: MAX_ROW checked at every checkpoint, MIN_ROW when the job ends"`
	FieldRules []FieldRule `opt:"field_rules" doc:"checks of every row's fields as it is written"`
	Catalog    CatalogRule `opt:"catalog_table_rule" doc:"what the input table's schema must be, checked when the job is planned"`

	At *config.Options `opt:"."`
}

// TableConfig is one entry of tables_configs.
type TableConfig struct {
	TablePath string `opt:"table_path,required" doc:"the table id the entry's rules apply to (database.schema.table as the source names it)"`
	TableRules
}

// RowRule is one entry of row_rules.
type RowRule struct {
	Type  string   `opt:"rule_type" doc:"MIN_ROW or MAX_ROW"`
	Value *float64 `opt:"rule_value" doc:"the bound"`

	At *config.Options `opt:"."`
}

// FieldRule is one entry of field_rules.
type FieldRule struct {
	Name   string       `opt:"field_name,required" doc:"the field checked"`
	Type   *hocon.Value `opt:"field_type" doc:"the exact type every value must have (int, \"decimal(10, 2)\", \"array<int>\", an object of row fields, or \"null\"); required"`
	Values []ValueRule  `opt:"field_value" doc:"checks of the value, each a rule_type and its rule_value, or equals_to"`

	At *config.Options `opt:"."`
}

// ValueRule is one entry of field_value.
type ValueRule struct {
	Type     string       `opt:"rule_type" doc:"NULL, NOT_NULL, MIN, MAX (numbers), MIN_LENGTH or MAX_LENGTH (of a string, or the elements of an array or map)"`
	Value    *float64     `opt:"rule_value" doc:"the bound of MIN, MAX, MIN_LENGTH and MAX_LENGTH"`
	EqualsTo *hocon.Value `opt:"equals_to" doc:"the value a non-null value must equal, written as in FakeSource's rows; compared deeply, decimals with their scale"`

	At *config.Options `opt:"."`
}

// CatalogRule is catalog_table_rule.
type CatalogRule struct {
	PrimaryKey  PrimaryKeyRule      `opt:"primary_key_rule" doc:"the table's primary key"`
	Constraints []ConstraintKeyRule `opt:"constraint_key_rule" doc:"the table's constraint keys, in any order; an empty list requires that it has some"`
	Columns     []ColumnRule        `opt:"column_rule" doc:"the table's columns, in any order; an empty list requires that it has some"`
	Identifier  IdentifierRule      `opt:"table_identifier_rule" doc:"the table's catalog and name"`

	At *config.Options `opt:"."`
}

// PrimaryKeyRule is primary_key_rule.
type PrimaryKeyRule struct {
	Name    *string  `opt:"primary_key_name" doc:"the key's name"`
	Columns []string `opt:"primary_key_columns" doc:"the key's columns, in any order"`
}

// ConstraintKeyRule is one entry of constraint_key_rule.
type ConstraintKeyRule struct {
	Name    string             `opt:"constraint_key_name" doc:"the key's name"`
	Type    string             `opt:"constraint_key_type,required" enum:"INDEX_KEY,UNIQUE_KEY,FOREIGN_KEY,VECTOR_INDEX_KEY" doc:"the kind of key"`
	Columns []ConstraintColumn `opt:"constraint_key_columns" doc:"the key's columns, in order"`
}

// ConstraintColumn is one entry of constraint_key_columns.
type ConstraintColumn struct {
	Name string `opt:"constraint_key_column_name,required" doc:"the column"`
	Sort string `opt:"constraint_key_sort_type" default:"ASC" enum:"ASC,DESC" doc:"its order in the key"`
}

// ColumnRule is one entry of column_rule.
type ColumnRule struct {
	Name     string       `opt:"name,required" doc:"the column's name"`
	Type     *hocon.Value `opt:"type,required" doc:"its type, as field_type is written"`
	Length   int64        `opt:"column_length" default:"0" doc:"its length"`
	Nullable bool         `opt:"nullable" default:"true" doc:"whether it may hold nulls"`
	Default  *hocon.Value `opt:"default_value" doc:"its default value"`
	Comment  string       `opt:"comment" doc:"its comment"`

	At *config.Options `opt:"."`
}

// IdentifierRule is table_identifier_rule.
type IdentifierRule struct {
	Catalog string `opt:"catalog_name,required" doc:"the table's catalog (FakeSource's tables are in catalog FakeSource)"`
	Table   string `opt:"table,required" doc:"the table's path, database.schema.table"`

	At *config.Options `opt:"."`
}
