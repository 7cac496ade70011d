package assert

import (
	"fmt"
	"sort"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
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

func parseCatalogRule(c *CatalogRule) (*catalogRule, error) {
	o := c.At
	cr := &catalogRule{opts: o}
	if o.Has("primary_key_rule") {
		r := &pkRule{columns: c.PrimaryKey.Columns}
		if c.PrimaryKey.Name != nil {
			r.name, r.hasName = *c.PrimaryKey.Name, true
		}
		cr.pk, cr.pkOpts = r, o
	}
	if c.Constraints != nil {
		cr.hasConstraints, cr.constraintsOpts = true, o
		for _, kr := range c.Constraints {
			k := catalog.ConstraintKey{Name: kr.Name, Type: kr.Type}
			for _, col := range kr.Columns {
				k.Columns = append(k.Columns, catalog.ConstraintCol{Name: col.Name, Sort: col.Sort})
			}
			cr.constraints = append(cr.constraints, k)
		}
	}
	if c.Columns != nil {
		cr.hasColumns, cr.columnsOpts = true, o
		for _, cc := range c.Columns {
			col := catalog.Column{Name: cc.Name, Length: cc.Length, Nullable: cc.Nullable, Comment: cc.Comment}
			var err error
			if col.Type, err = catalog.TypeOf(cc.Type); err != nil {
				return nil, cc.At.Errorf("type", "%v", err)
			}
			if cc.Default != nil {
				col.DefaultValue = cc.Default.Interface()
			}
			cr.columns = append(cr.columns, col)
		}
	}
	if o.Has("table_identifier_rule") {
		t := &catalog.Table{Catalog: c.Identifier.Catalog}
		var err error
		if t.Path, err = catalog.ParsePath(c.Identifier.Table, false); err != nil {
			return nil, c.Identifier.At.Errorf("table", "%v", err)
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
