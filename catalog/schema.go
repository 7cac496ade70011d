package catalog

import (
	"fmt"
	"strings"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/types"
)

// ParseSchema reads a connector's `schema` option in the forms SeaTunnel's
// ReadonlyConfigParser accepts: `schema { fields { name = type ... } }` (ordered) or
// `schema { columns = [{name, type, nullable, columnLength, columnScale, defaultValue,
// comment}] }`, either with primaryKey {name, columnNames} and constraintKeys [...], plus
// `table`, `schema_first` and `comment`. A schema with neither fields nor columns (`schema
// {}`, `schema { table = "db.t" }`) declares a table without columns, as in SeaTunnel;
// one with both is an error. The schema, and its fields, columns, primaryKey,
// constraintKeys and constraintColumns, may also be strings holding JSON, which SeaTunnel
// reads as their value. defaultPath names the table when the schema does not (SeaTunnel
// falls back to the plugin_output name, then default.default.default).
func ParseSchema(opts *config.Options, key string, defaultPath string) (*Table, error) {
	expanded, err := expandJSON(opts, key)
	if err != nil {
		return nil, err
	}
	defer opts.MarkUsedFrom(expanded)
	so, err := expanded.Object(key)
	if err != nil {
		return nil, err
	}
	if so == nil {
		return nil, opts.Errorf(key, "option is required")
	}
	expandedSchema, err := expandJSON(so, "fields", "columns", "primaryKey", "constraintKeys")
	if err != nil {
		return nil, err
	}
	defer so.MarkUsedFrom(expandedSchema)
	return parseSchemaObject(expandedSchema, defaultPath)
}

func parseSchemaObject(so *config.Options, defaultPath string) (*Table, error) {
	t := &Table{}
	schemaFirst, err := so.Bool("schema_first", false)
	if err != nil {
		return nil, err
	}
	name, err := so.String("table", "")
	if err != nil {
		return nil, err
	}
	if name == "" {
		name = defaultPath
	}
	if name == "" {
		name = "default.default.default"
	}
	if t.Path, err = ParsePath(name, schemaFirst); err != nil {
		return nil, so.Errorf("table", "%v", err)
	}
	if t.Comment, err = so.String("comment", ""); err != nil {
		return nil, err
	}
	switch {
	case so.Has("columns") && so.Has("fields"):
		return nil, so.Errorf("fields", "a schema has either `fields` or `columns`, not both")
	case so.Has("columns"):
		cols, err := so.ObjectList("columns")
		if err != nil {
			return nil, err
		}
		for i, c := range cols {
			col, err := parseColumn(c)
			if err != nil {
				return nil, err
			}
			if t.ColumnIndex(col.Name) >= 0 {
				return nil, so.Errorf(fmt.Sprintf("columns[%d].name", i), "duplicate column %q", col.Name)
			}
			t.Columns = append(t.Columns, col)
		}
	case so.Has("fields"):
		fv := so.Get("fields")
		if fv.Kind != hocon.Object {
			return nil, so.Errorf("fields", "expected an object of name = type, found %s", fv.Kind)
		}
		for _, f := range fv.Fields {
			if strings.TrimSpace(f.Key) == "" {
				return nil, so.Errorf("fields", "a field has an empty name")
			}
			dt, err := TypeOf(f.Value)
			if err != nil {
				return nil, so.Errorf("fields."+quoteKey(f.Key), "%v", err)
			}
			if t.ColumnIndex(f.Key) >= 0 {
				return nil, so.Errorf("fields."+quoteKey(f.Key), "duplicate column %q", f.Key)
			}
			t.Columns = append(t.Columns, Column{Name: f.Key, Type: dt, Nullable: true})
		}
	}
	if err := parseKeys(so, t); err != nil {
		return nil, err
	}
	return t, nil
}

// parseKeys reads the primary key and the constraint keys of a schema.
func parseKeys(so *config.Options, t *Table) error {
	pk, err := so.Object("primaryKey")
	if err != nil {
		return err
	}
	if pk != nil {
		if t.PrimaryKey, err = parsePrimaryKey(pk, t); err != nil {
			return err
		}
	}
	cks, err := so.ObjectList("constraintKeys")
	if err != nil {
		return err
	}
	for _, ck := range cks {
		k, err := parseConstraintKey(ck)
		if err != nil {
			return err
		}
		t.ConstraintKeys = append(t.ConstraintKeys, k)
	}
	return nil
}

func parsePrimaryKey(pk *config.Options, t *Table) (*PrimaryKey, error) {
	expanded, err := expandJSON(pk, "columnNames")
	if err != nil {
		return nil, err
	}
	defer pk.MarkUsedFrom(expanded)
	p := &PrimaryKey{}
	if p.Name, err = expanded.String("name", ""); err != nil {
		return nil, err
	}
	if p.Columns, err = expanded.StringList("columnNames"); err != nil {
		return nil, err
	}
	if len(p.Columns) == 0 {
		if p.Columns, err = expanded.StringList("columns"); err != nil {
			return nil, err
		}
	}
	for _, c := range p.Columns {
		if t.ColumnIndex(c) < 0 {
			return nil, expanded.Errorf("columnNames", "unknown column %q", c)
		}
	}
	return p, nil
}

func parseConstraintKey(ck *config.Options) (ConstraintKey, error) {
	k := ConstraintKey{}
	expanded, err := expandJSON(ck, "constraintColumns")
	if err != nil {
		return k, err
	}
	defer ck.MarkUsedFrom(expanded)
	if k.Name, err = expanded.String("constraintName", ""); err != nil {
		return k, err
	}
	if k.Type, err = expanded.Enum("constraintType", "INDEX_KEY", "INDEX_KEY", "UNIQUE_KEY", "KEY"); err != nil {
		return k, err
	}
	cols, err := expanded.ObjectList("constraintColumns")
	if err != nil {
		return k, err
	}
	for _, c := range cols {
		cc := ConstraintCol{}
		if cc.Name, err = c.RequiredString("columnName"); err != nil {
			return k, err
		}
		if cc.Sort, err = c.Enum("sortType", "ASC", "ASC", "DESC"); err != nil {
			return k, err
		}
		k.Columns = append(k.Columns, cc)
	}
	return k, nil
}

func quoteKey(k string) string {
	for i := 0; i < len(k); i++ {
		if k[i] == '.' || k[i] == ' ' {
			return fmt.Sprintf("%q", k)
		}
	}
	return k
}

func parseColumn(c *config.Options) (Column, error) {
	col := Column{Nullable: true}
	var err error
	if col.Name, err = c.RequiredString("name"); err != nil {
		return col, err
	}
	if strings.TrimSpace(col.Name) == "" {
		return col, c.Errorf("name", "a column has an empty name")
	}
	tv := c.Get("type")
	if tv == nil {
		return col, c.Errorf("type", "option is required")
	}
	if col.Type, err = TypeOf(tv); err != nil {
		return col, c.Errorf("type", "%v", err)
	}
	if col.Nullable, err = c.Bool("nullable", true); err != nil {
		return col, err
	}
	if col.Length, err = c.Int("columnLength", 0); err != nil {
		return col, err
	}
	scale, err := c.Int("columnScale", 0)
	if err != nil {
		return col, err
	}
	col.Scale = int(scale)
	if dv := c.Get("defaultValue"); dv != nil && dv.Kind != hocon.Null {
		col.DefaultValue = dv.Interface()
	}
	if col.Comment, err = c.String("comment", ""); err != nil {
		return col, err
	}
	return col, nil
}

// TypeOf reads a type written as a string (`"decimal(30, 8)"`, `int`) or as an object of
// nested fields (`{ c_int = int, c_string = string }`).
func TypeOf(v *hocon.Value) (types.DataType, error) {
	switch v.Kind {
	case hocon.String:
		return types.Parse(v.Str)
	case hocon.Null:
		// `c = null` unquoted: HOCON null; SeaTunnel users quote it, accept both.
		return types.Of(types.Null), nil
	case hocon.Object:
		rt := &types.RowType{}
		for _, f := range v.Fields {
			t, err := TypeOf(f.Value)
			if err != nil {
				return types.DataType{}, fmt.Errorf("%s: %w", f.Key, err)
			}
			rt.Names = append(rt.Names, f.Key)
			rt.Types = append(rt.Types, t)
		}
		return types.RowOf(rt), nil
	}
	return types.DataType{}, fmt.Errorf("expected a type, found %s", v.Kind)
}
