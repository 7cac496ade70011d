package assert

import (
	"errors"
	"fmt"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// ruleType is an Assert rule_type.
type ruleType uint8

const (
	ruleNone ruleType = iota
	ruleNull
	ruleNotNull
	ruleMin
	ruleMax
	ruleMinLength
	ruleMaxLength
	ruleMaxRow
	ruleMinRow
)

var ruleNames = [...]string{"null", "NULL", "NOT_NULL", "MIN", "MAX", "MIN_LENGTH", "MAX_LENGTH", "MAX_ROW", "MIN_ROW"}

func (r ruleType) String() string { return ruleNames[r] }

// valueRule is one entry of field_value or row_rules.
type valueRule struct {
	typ      ruleType
	value    float64
	hasValue bool
	equalsTo *hocon.Value
	opts     *config.Options
}

// String renders the rule as SeaTunnel's AssertRule does.
func (v *valueRule) String() string {
	var b strings.Builder
	b.WriteString("AssertFieldRule.AssertRule(ruleType=")
	b.WriteString(v.typ.String())
	b.WriteString(", ruleValue=")
	if v.hasValue {
		b.WriteString(javaDouble(v.value))
	} else {
		b.WriteString("null")
	}
	b.WriteString(", equalTo=")
	if v.equalsTo == nil || v.equalsTo.Kind == hocon.Null {
		b.WriteString("null")
	} else {
		b.WriteString(javaConfig(v.equalsTo))
	}
	b.WriteByte(')')
	return b.String()
}

// fieldRule is one entry of field_rules.
type fieldRule struct {
	name   string
	typ    types.DataType
	values []valueRule
	opts   *config.Options
}

// String renders the rule as SeaTunnel's AssertFieldRule does.
func (f *fieldRule) String() string {
	var b strings.Builder
	b.WriteString("AssertFieldRule(fieldName=")
	b.WriteString(f.name)
	b.WriteString(", fieldType=")
	b.WriteString(javaType(f.typ))
	b.WriteString(", fieldRules=[")
	for i := range f.values {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.values[i].String())
	}
	b.WriteString("])")
	return b.String()
}

// tableRules are the rules of one table: the whole `rules` block, or one tables_configs entry.
type tableRules struct {
	path          string // table_path; "" for the rules of every input table
	rowRules      []valueRule
	hasRowRules   bool
	fieldRules    []fieldRule
	hasFieldRules bool
	catalog       *catalogRule
	opts          *config.Options
}

var ruleByName = map[string]ruleType{
	"NULL": ruleNull, "NOT_NULL": ruleNotNull, "MIN": ruleMin, "MAX": ruleMax,
	"MIN_LENGTH": ruleMinLength, "MAX_LENGTH": ruleMaxLength, "MAX_ROW": ruleMaxRow, "MIN_ROW": ruleMinRow,
}

func parseTableRules(c *TableRules, path string) (*tableRules, error) {
	tr := &tableRules{path: path, opts: c.At}
	if c.RowRules != nil {
		tr.hasRowRules = true
		for i := range c.RowRules {
			r := &c.RowRules[i]
			vr, err := parseValueRule(r.At, r.Type, r.Value, nil, true)
			if err != nil {
				return nil, err
			}
			tr.rowRules = append(tr.rowRules, vr)
		}
	}
	if c.FieldRules != nil {
		tr.hasFieldRules = true
		for i := range c.FieldRules {
			fr, err := parseFieldRule(&c.FieldRules[i])
			if err != nil {
				return nil, err
			}
			tr.fieldRules = append(tr.fieldRules, fr)
		}
	}
	if c.At.Has("catalog_table_rule") {
		var err error
		if tr.catalog, err = parseCatalogRule(&c.Catalog); err != nil {
			return nil, err
		}
	}
	return tr, nil
}

// parseValueRule checks one entry of row_rules or field_value: a rule type of its kind,
// with the rule_value it needs.
func parseValueRule(o *config.Options, name string, value *float64, equalsTo *hocon.Value, rowRule bool) (valueRule, error) {
	vr := valueRule{opts: o, equalsTo: equalsTo}
	if name != "" {
		t, ok := ruleByName[strings.ToUpper(strings.TrimSpace(name))]
		if !ok {
			return vr, o.Errorf("rule_type", "unknown rule type %q; expected NULL, NOT_NULL, MIN, MAX, MIN_LENGTH or MAX_LENGTH in field_value, MIN_ROW or MAX_ROW in row_rules", name)
		}
		vr.typ = t
	}
	switch {
	case rowRule && vr.typ == ruleNone:
		return vr, o.Errorf("rule_type", "option is required in row_rules (MIN_ROW or MAX_ROW)")
	case !rowRule && (vr.typ == ruleMinRow || vr.typ == ruleMaxRow):
		return vr, o.Errorf("rule_type", "%s is a row rule; put it in row_rules", vr.typ)
	}
	if value != nil {
		vr.value, vr.hasValue = *value, true
	}
	switch vr.typ {
	case ruleMin, ruleMax, ruleMinLength, ruleMaxLength, ruleMinRow, ruleMaxRow:
		if !vr.hasValue {
			return vr, o.Errorf("rule_value", "option is required for rule_type %s", vr.typ)
		}
	}
	return vr, nil
}

func parseFieldRule(c *FieldRule) (fieldRule, error) {
	o := c.At
	fr := fieldRule{name: c.Name, opts: o}
	tv := c.Type
	if tv == nil {
		// `field_type = null` unquoted: SeaTunnel users quote it, accept both
		if v := o.Raw().Lookup("field_type"); v != nil && v.Kind == hocon.Null {
			tv = v
		} else {
			return fr, o.Errorf("field_type", "option is required (Assert checks every value's type first)")
		}
	}
	var err error
	switch tv.Kind {
	case hocon.Null:
		fr.typ = types.Of(types.Null)
	case hocon.String:
		fr.typ, err = types.Parse(tv.Str)
	case hocon.Object:
		fr.typ, err = catalog.TypeOf(tv)
	default:
		return fr, o.Errorf("field_type", "expected a type (a name such as int, or an object of row fields), found %s", tv.Kind)
	}
	if err != nil {
		var pe *types.ParseError
		if errors.As(err, &pe) && pe.Offset <= 0 && tv.Kind == hocon.String {
			return fr, o.Errorf("field_type", "%s", pe.Msg)
		}
		return fr, o.Errorf("field_type", "%v", err)
	}
	for i := range c.Values {
		v := &c.Values[i]
		vr, err := parseValueRule(v.At, v.Type, v.Value, v.EqualsTo, false)
		if err != nil {
			return fr, err
		}
		fr.values = append(fr.values, vr)
	}
	return fr, nil
}

// ---- field rules compiled for a table ----

// compiledField is a field rule bound to a column of one table, its equals_to values
// converted to the column's type, decimals keeping the literal's own digits and scale.
type compiledField struct {
	rule     *fieldRule
	index    int
	eq       []row.Value // per value rule; meaningful where hasEq
	hasEq    []bool
	column   types.DataType
	decimals bool // the column holds decimals, whose scales equals_to compares too
}

// equal compares a value with an equals_to literal as SeaTunnel does: deeply, decimals by
// value and scale (BigDecimal.equals).
func (cf *compiledField) equal(v, eq row.Value) bool {
	return row.Equal(v, eq) && (!cf.decimals || sameScales(v, eq))
}

type compiled struct {
	table  *catalog.Table
	fields []compiledField
}

func compile(tr *tableRules, t *catalog.Table) (*compiled, error) {
	c := &compiled{table: t}
	if tr == nil {
		return c, nil
	}
	conv := literal.Converter{}
	for i := range tr.fieldRules {
		fr := &tr.fieldRules[i]
		idx := t.ColumnIndex(fr.name)
		if idx < 0 {
			names := make([]string, len(t.Columns))
			for j, col := range t.Columns {
				names[j] = col.Name
			}
			return nil, fr.opts.Errorf("field_name", "unknown field %q in table %s (fields: %s)", fr.name, t.ID(), strings.Join(names, ", "))
		}
		cf := compiledField{rule: fr, index: idx, column: t.Columns[idx].Type,
			eq: make([]row.Value, len(fr.values)), hasEq: make([]bool, len(fr.values))}
		cf.decimals = hasDecimal(cf.column)
		for j := range fr.values {
			vr := &fr.values[j]
			if vr.equalsTo == nil {
				continue
			}
			v, err := conv.Convert(vr.equalsTo, cf.column)
			if err != nil {
				return nil, literalError(vr.opts, "equals_to", fmt.Errorf("as %s of field %s: %w", cf.column, fr.name, err))
			}
			if cf.decimals {
				var ok bool
				if v, ok = exactDecimals(vr.equalsTo, cf.column, v); !ok {
					return nil, vr.opts.Errorf("equals_to", "as %s of field %s: %s holds a decimal that is not a number", cf.column, fr.name, javaConfig(vr.equalsTo))
				}
			}
			cf.eq[j], cf.hasEq[j] = v, true
		}
		c.fields = append(c.fields, cf)
	}
	return c, nil
}

// literalError turns a literal conversion error into a config error pointing at the part of
// the literal that failed.
func literalError(o *config.Options, key string, err error) error {
	ce, ok := o.Errorf(key, "%v", err).(*config.Error)
	if !ok {
		return err
	}
	var le *literal.Error
	if errors.As(err, &le) && le.Pos.Line > 0 {
		ce.Pos = le.Pos
	}
	return ce
}

// failure explains why a value broke a field rule.
type failure struct {
	field *compiledField
	value row.Value
	rule  *valueRule // nil for the type check
	eq    bool       // the equals_to part failed
	scale bool       // only a decimal's scale told the value and equals_to apart
}

// check runs the field rules on a row and returns the first failure.
func (c *compiled) check(r *row.Row) *failure {
	for i := range c.fields {
		cf := &c.fields[i]
		if cf.index >= len(r.Fields) {
			return &failure{field: cf}
		}
		v := r.Fields[cf.index]
		if !typeMatches(v, cf.rule.typ) {
			return &failure{field: cf, value: v}
		}
		for j := range cf.rule.values {
			vr := &cf.rule.values[j]
			if vr.typ != ruleNone && !passes(v, vr) {
				return &failure{field: cf, value: v, rule: vr}
			}
			if cf.hasEq[j] && !v.IsNull() && !cf.equal(v, cf.eq[j]) {
				return &failure{field: cf, value: v, rule: vr, eq: true, scale: row.Equal(v, cf.eq[j])}
			}
		}
	}
	return nil
}

// typeMatches is SeaTunnel's type check: a null passes only the null type; otherwise the
// value's type must be exactly the declared one, element by element for arrays, maps and
// rows; a decimal needs the declared scale and at most the declared precision.
func typeMatches(v row.Value, t types.DataType) bool {
	if v.T == types.Null {
		return t.Kind == types.Null
	}
	if v.T != t.Kind {
		return false
	}
	switch t.Kind {
	case types.Decimal:
		u := v.Unscaled()
		if u == nil || v.DecimalScale() != t.Scale {
			return false
		}
		digits := len(u.String())
		if u.Sign() < 0 {
			digits--
		}
		return digits <= t.Precision
	case types.Array:
		for _, e := range v.Elems() {
			if !typeMatches(e, *t.Elem) {
				return false
			}
		}
	case types.Map:
		m := v.Map()
		if m == nil {
			return false
		}
		for i := range m.Keys {
			if !typeMatches(m.Keys[i], *t.Key) || !typeMatches(m.Vals[i], *t.Elem) {
				return false
			}
		}
	case types.Row:
		f := v.Fields()
		if len(f) != t.Row.Len() {
			return false
		}
		for i := range f {
			if !typeMatches(f[i], t.Row.Types[i]) {
				return false
			}
		}
	}
	return true
}

// passes checks one rule_type on a value.
func passes(v row.Value, vr *valueRule) bool {
	switch vr.typ {
	case ruleNull:
		return v.IsNull()
	case ruleNotNull:
		return !v.IsNull()
	case ruleMin, ruleMax:
		if !v.T.IsNumeric() {
			return false
		}
		f, _ := v.AsFloat64()
		if vr.typ == ruleMin {
			return f >= vr.value
		}
		return f <= vr.value
	case ruleMinLength:
		return float64(javaLength(v)) >= vr.value
	case ruleMaxLength:
		return float64(javaLength(v)) <= vr.value
	}
	return false
}

// describe says which field broke which rule, for the error after SeaTunnel's message.
func (f *failure) describe() string {
	name := f.field.rule.name
	val := string(appendJava(nil, f.value))
	switch {
	case f.rule == nil && f.value.T == types.Null && f.field.rule.typ.Kind != types.Null:
		return fmt.Sprintf("field %s is null, which only field_type \"null\" accepts", name)
	case f.rule == nil:
		return fmt.Sprintf("field %s = %s is a %s, not field_type %s", name, val, valueType(f.value), f.field.rule.typ)
	case f.eq && f.scale:
		return fmt.Sprintf("field %s = %s is not equal to equals_to %s: a decimal equals only a literal written with its scale, as SeaTunnel's BigDecimal.equals compares (an unquoted number is read as a Java double first)", name, val, javaConfig(f.rule.equalsTo))
	case f.eq:
		return fmt.Sprintf("field %s = %s is not equal to equals_to %s", name, val, javaConfig(f.rule.equalsTo))
	case f.rule.typ == ruleNull || f.rule.typ == ruleNotNull:
		return fmt.Sprintf("field %s = %s breaks rule_type %s", name, val, f.rule.typ)
	case (f.rule.typ == ruleMin || f.rule.typ == ruleMax) && !f.value.T.IsNumeric():
		return fmt.Sprintf("field %s = %s is not a number, so it breaks rule_type %s", name, val, f.rule.typ)
	}
	return fmt.Sprintf("field %s = %s breaks rule_type %s with rule_value %s", name, val, f.rule.typ, javaDouble(f.rule.value))
}

// valueType names the runtime type of a value, for messages.
func valueType(v row.Value) string {
	switch v.T {
	case types.Decimal:
		u := v.Unscaled()
		if u == nil {
			return "decimal"
		}
		digits := len(strings.TrimPrefix(u.String(), "-"))
		return fmt.Sprintf("decimal(%d, %d)", max(digits, v.DecimalScale()), v.DecimalScale())
	}
	return v.T.String()
}
