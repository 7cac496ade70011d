package assert

import (
	"fmt"
	"sort"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/types"
)

// catalogRule is catalog_table_rule: what the input table's schema must be.
type catalogRule struct {
	opts *config.Options

	pk     *pkRule
	pkOpts *config.Options

	constraints     []catalog.ConstraintKey
	hasConstraints  bool
	constraintsOpts *config.Options

	columns     []catalog.Column
	hasColumns  bool
	columnsOpts *config.Options

	ident     *catalog.Table // Catalog and Path only
	identOpts *config.Options
}

type pkRule struct {
	name    string
	hasName bool
	columns []string
}

func parseCatalogRule(o *config.Options) (*catalogRule, error) {
	cr := &catalogRule{opts: o}
	if pk, err := o.Object("primary_key_rule"); err != nil {
		return nil, err
	} else if pk != nil {
		r := &pkRule{}
		if pk.Has("primary_key_name") {
			if r.name, err = pk.String("primary_key_name", ""); err != nil {
				return nil, err
			}
			r.hasName = true
		}
		if r.columns, err = pk.StringList("primary_key_columns"); err != nil {
			return nil, err
		}
		cr.pk, cr.pkOpts = r, o
	}
	if o.Has("constraint_key_rule") {
		list, err := o.ObjectList("constraint_key_rule")
		if err != nil {
			return nil, err
		}
		cr.hasConstraints, cr.constraintsOpts = true, o
		for _, ko := range list {
			k := catalog.ConstraintKey{}
			if k.Name, err = ko.String("constraint_key_name", ""); err != nil {
				return nil, err
			}
			if !ko.Has("constraint_key_type") {
				return nil, ko.Errorf("constraint_key_type", "option is required")
			}
			if k.Type, err = ko.Enum("constraint_key_type", "", "INDEX_KEY", "UNIQUE_KEY", "FOREIGN_KEY", "VECTOR_INDEX_KEY"); err != nil {
				return nil, err
			}
			cols, err := ko.ObjectList("constraint_key_columns")
			if err != nil {
				return nil, err
			}
			for _, co := range cols {
				c := catalog.ConstraintCol{}
				if c.Name, err = co.RequiredString("constraint_key_column_name"); err != nil {
					return nil, err
				}
				if c.Sort, err = co.Enum("constraint_key_sort_type", "ASC", "ASC", "DESC"); err != nil {
					return nil, err
				}
				k.Columns = append(k.Columns, c)
			}
			cr.constraints = append(cr.constraints, k)
		}
	}
	if o.Has("column_rule") {
		list, err := o.ObjectList("column_rule")
		if err != nil {
			return nil, err
		}
		cr.hasColumns, cr.columnsOpts = true, o
		for _, co := range list {
			c := catalog.Column{}
			if c.Name, err = co.RequiredString("name"); err != nil {
				return nil, err
			}
			tv := co.Get("type")
			if tv == nil || tv.Kind == hocon.Null {
				return nil, co.Errorf("type", "option is required")
			}
			if c.Type, err = catalog.TypeOf(tv); err != nil {
				return nil, co.Errorf("type", "%v", err)
			}
			if c.Length, err = co.Int("column_length", 0); err != nil {
				return nil, err
			}
			if c.Nullable, err = co.Bool("nullable", true); err != nil {
				return nil, err
			}
			if dv := co.Get("default_value"); dv != nil && dv.Kind != hocon.Null {
				c.DefaultValue = dv.Interface()
			}
			if c.Comment, err = co.String("comment", ""); err != nil {
				return nil, err
			}
			cr.columns = append(cr.columns, c)
		}
	}
	if io, err := o.Object("table_identifier_rule"); err != nil {
		return nil, err
	} else if io != nil {
		t := &catalog.Table{}
		if t.Catalog, err = io.RequiredString("catalog_name"); err != nil {
			return nil, err
		}
		name, err := io.RequiredString("table")
		if err != nil {
			return nil, err
		}
		if t.Path, err = catalog.ParsePath(name, false); err != nil {
			return nil, io.Errorf("table", "%v", err)
		}
		cr.ident, cr.identOpts = t, o
	}
	return cr, nil
}

// check compares the table with the rule, as SeaTunnel does when the sink is created.
func (cr *catalogRule) check(t *catalog.Table) error {
	if cr.pk != nil {
		pk := t.PrimaryKey
		switch {
		case pk == nil:
			return cr.pkOpts.Errorf("primary_key_rule", "table %s: primaryKey is null", t.ID())
		case cr.pk.hasName && cr.pk.name != pk.Name:
			return cr.pkOpts.Errorf("primary_key_rule", "table %s: primaryKey: %s is not equal to %s", t.ID(), pk.Name, cr.pk.name)
		case len(cr.pk.columns) > 0 && !sameStrings(cr.pk.columns, pk.Columns):
			return cr.pkOpts.Errorf("primary_key_rule", "table %s: primaryKey columns: [%s] is not equal to [%s]", t.ID(), strings.Join(pk.Columns, ", "), strings.Join(cr.pk.columns, ", "))
		}
	}
	if cr.hasConstraints {
		switch {
		case len(t.ConstraintKeys) == 0:
			return cr.constraintsOpts.Errorf("constraint_key_rule", "table %s: constraintKeys is null", t.ID())
		case len(cr.constraints) > 0 && !sameMultiset(keyStrings(cr.constraints), keyStrings(t.ConstraintKeys)):
			return cr.constraintsOpts.Errorf("constraint_key_rule", "table %s: constraintKeys: %v is not equal to %v", t.ID(), keyStrings(t.ConstraintKeys), keyStrings(cr.constraints))
		}
	}
	if cr.hasColumns {
		switch {
		case len(t.Columns) == 0:
			return cr.columnsOpts.Errorf("column_rule", "table %s: columns is null", t.ID())
		case len(cr.columns) > 0 && !sameMultiset(columnStrings(cr.columns), columnStrings(t.Columns)):
			return cr.columnsOpts.Errorf("column_rule", "table %s: columns: %v is not equal to %v", t.ID(), columnStrings(t.Columns), columnStrings(cr.columns))
		}
	}
	if cr.ident != nil && (cr.ident.Catalog != t.Catalog || cr.ident.Path != t.Path) {
		return cr.identOpts.Errorf("table_identifier_rule", "tableIdentifier: %s.%s is not equal to %s.%s", t.Catalog, t.Path, cr.ident.Catalog, cr.ident.Path)
	}
	return nil
}

func sameStrings(a, b []string) bool { return sameMultiset(a, b) }

// sameMultiset is CollectionUtils.isEqualCollection: the same elements, as many times each,
// in any order.
func sameMultiset(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a = append([]string(nil), a...)
	b = append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func normKeyType(t string) string {
	if t == "KEY" {
		return "INDEX_KEY"
	}
	return t
}

func keyStrings(ks []catalog.ConstraintKey) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		cols := make([]string, len(k.Columns))
		for j, c := range k.Columns {
			sort := c.Sort
			if sort == "" {
				sort = "ASC"
			}
			cols[j] = c.Name + " " + sort
		}
		out[i] = fmt.Sprintf("%s %s(%s)", normKeyType(k.Type), k.Name, strings.Join(cols, ", "))
	}
	return out
}

func columnStrings(cs []catalog.Column) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		def := "null"
		if c.DefaultValue != nil {
			def = fmt.Sprint(c.DefaultValue)
		}
		out[i] = fmt.Sprintf("%s %s(length=%d, nullable=%t, default=%s, comment=%q)", c.Name, typeName(c.Type), c.Length, c.Nullable, def, c.Comment)
	}
	return out
}

func typeName(t types.DataType) string { return t.String() }
