package fake

import (
	"fmt"
	"math"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// catalogName is the catalog of the tables FakeSource declares, as SeaTunnel names it.
const catalogName = "FakeSource"

// tableConfig is one table FakeSource produces: its schema and how to fill it.
type tableConfig struct {
	table        *catalog.Table
	id           string
	rowNum       int
	splitNum     int
	readInterval int64 // milliseconds

	// rows, when set, replace random generation: every split emits all of them.
	rows    []fixedRow
	hasRows bool

	gen    genConfig
	colGen []columnSpec // per column of table
}

// fixedRow is one entry of `rows`, kept as written and converted when a reader starts (so
// CURRENT_DATE and friends read the clock of the run, not of the plan).
type fixedRow struct {
	kind   row.Kind
	fields *hocon.Value
	opts   *config.Options
}

// columnSpec is what the `columns` schema form says about generating one column.
type columnSpec struct {
	length    int64 // columnLength when given and positive, else 0 (use string.length)
	scale     int   // columnScale
	hasScale  bool
	def       *hocon.Value // defaultValue
	defOption *config.Options
}

// genConfig holds the value generation options.
type genConfig struct {
	stringLength, bytesLength, arraySize, mapSize int

	tinyintMin, tinyintMax   int64
	smallintMin, smallintMax int64
	intMin, intMax           int64
	bigintMin, bigintMax     int64
	floatMin, floatMax       float64
	doubleMin, doubleMax     float64

	stringTemplate   []string
	tinyintTemplate  []int64
	smallintTemplate []int64
	intTemplate      []int64
	bigintTemplate   []int64
	floatTemplate    []float64
	doubleTemplate   []float64

	yearTemplate, monthTemplate, dayTemplate     []int64
	hourTemplate, minuteTemplate, secondTemplate []int64
}

type numRange struct {
	prefix   string
	lo, hi   int64 // SeaTunnel's defaults, which are also the allowed bounds
	min, max *int64
	tmpl     *[]int64
}

// parseSource reads FakeSource's options: either `tables_configs` (each entry a complete
// FakeSource config) or the options of one table; `table-names` clones a table under
// several names.
func parseSource(opts *config.Options, outputName string) ([]*tableConfig, error) {
	opts.MarkUsed("plugin_output", "result_table_name", "parallelism", "plugin_name")
	var tables []*tableConfig
	if opts.Has("tables_configs") {
		entries, err := opts.ObjectList("tables_configs")
		if err != nil {
			return nil, err
		}
		if len(entries) == 0 {
			return nil, opts.Errorf("tables_configs", "needs at least one table config")
		}
		for _, e := range entries {
			name, err := e.String("plugin_output", "")
			if err != nil {
				return nil, err
			}
			if name == "" {
				if name, err = e.String("result_table_name", ""); err != nil {
					return nil, err
				}
			}
			ts, err := parseTables(e, name)
			if err != nil {
				return nil, err
			}
			tables = append(tables, ts...)
		}
	} else {
		ts, err := parseTables(opts, outputName)
		if err != nil {
			return nil, err
		}
		tables = ts
	}
	seen := map[string]bool{}
	var ids []string
	for _, t := range tables {
		ids = append(ids, t.id)
	}
	for _, t := range tables {
		if seen[t.id] {
			return nil, opts.Errorf("", "table names %v must be unique", ids)
		}
		seen[t.id] = true
	}
	return tables, nil
}

// parseTables reads one table config; with `table-names` it yields one table per name.
func parseTables(opts *config.Options, defaultPath string) ([]*tableConfig, error) {
	if !opts.Has("schema") {
		return nil, opts.Errorf("schema", "option is required (or use tables_configs)")
	}
	table, err := catalog.ParseSchema(opts, "schema", defaultPath)
	if err != nil {
		return nil, err
	}
	table.Catalog = catalogName
	tc := &tableConfig{table: table, id: table.ID()}

	rowNum, err := opts.Int("row.num", 5)
	if err != nil {
		return nil, err
	}
	if rowNum < 0 || rowNum > math.MaxInt32 {
		return nil, opts.Errorf("row.num", "must be between 0 and %d, got %d", math.MaxInt32, rowNum)
	}
	tc.rowNum = int(rowNum)
	splitNum, err := opts.Int("split.num", 1)
	if err != nil {
		return nil, err
	}
	if splitNum < 1 || splitNum > math.MaxInt32 {
		return nil, opts.Errorf("split.num", "must be at least 1, got %d", splitNum)
	}
	tc.splitNum = int(splitNum)
	if tc.readInterval, err = opts.Int("split.read-interval", 1); err != nil {
		return nil, err
	}
	if tc.readInterval < 0 {
		return nil, opts.Errorf("split.read-interval", "must not be negative, got %d", tc.readInterval)
	}
	if err := parseGen(opts, &tc.gen); err != nil {
		return nil, err
	}
	if tc.colGen, err = parseColumnSpecs(opts, table); err != nil {
		return nil, err
	}
	if opts.Has("rows") {
		if err := parseRows(opts, tc); err != nil {
			return nil, err
		}
	}

	names, err := opts.StringList("table-names")
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return []*tableConfig{tc}, nil
	}
	schemaFirst := false
	if so, _ := opts.Object("schema"); so != nil {
		schemaFirst, _ = so.Bool("schema_first", false)
	}
	out := make([]*tableConfig, 0, len(names))
	for i, n := range names {
		p, err := catalog.ParsePath(n, schemaFirst)
		if err != nil {
			return nil, opts.Errorf(fmt.Sprintf("table-names[%d]", i), "%v", err)
		}
		c := *tc
		c.table = tc.table.Copy()
		c.table.Path = p
		c.id = c.table.ID()
		out = append(out, &c)
	}
	return out, nil
}

func parseRows(opts *config.Options, tc *tableConfig) error {
	entries, err := opts.ObjectList("rows")
	if err != nil {
		return err
	}
	tc.hasRows = true
	tc.rows = make([]fixedRow, 0, len(entries))
	rt := tc.table.RowType()
	conv := literal.Converter{}
	for _, e := range entries {
		kind := row.Insert
		ks, err := e.String("kind", "")
		if err != nil {
			return err
		}
		if ks != "" {
			k, ok := row.ParseKind(strings.TrimSpace(ks))
			if !ok {
				return e.Errorf("kind", "unknown row kind %q; expected INSERT, UPDATE_BEFORE, UPDATE_AFTER or DELETE", ks)
			}
			kind = k
		}
		fv := e.Get("fields")
		if fv == nil || fv.Kind == hocon.Null {
			return e.Errorf("fields", "option is required")
		}
		if _, err := conv.ConvertFields(fv, rt); err != nil {
			return literalError(e, "fields", err)
		}
		tc.rows = append(tc.rows, fixedRow{kind: kind, fields: fv, opts: e})
	}
	return nil
}

// literalError turns a literal conversion error into a config error at the literal's part.
func literalError(opts *config.Options, key string, err error) error {
	ce, ok := opts.Errorf(key, "%v", err).(*config.Error)
	if !ok {
		return err
	}
	if le, ok := err.(*literal.Error); ok {
		if le.Path != "" {
			if le.Path[0] == '[' || le.Path[0] == '{' {
				ce.Path += le.Path
			} else {
				ce.Path += "." + le.Path
			}
		}
		ce.Msg = le.Msg
		if le.Pos.Line > 0 {
			ce.Pos = le.Pos
		}
	}
	return ce
}

// parseColumnSpecs reads, for the `columns` schema form, each column's columnLength,
// columnScale and defaultValue as written.
func parseColumnSpecs(opts *config.Options, table *catalog.Table) ([]columnSpec, error) {
	specs := make([]columnSpec, len(table.Columns))
	so, err := opts.Object("schema")
	if err != nil || so == nil || !so.Has("columns") {
		return specs, err
	}
	cols, err := so.ObjectList("columns")
	if err != nil {
		return nil, err
	}
	if len(cols) != len(specs) {
		return specs, nil
	}
	for i, c := range cols {
		s := &specs[i]
		if l, err := c.Int("columnLength", 0); err == nil && l > 0 {
			s.length = l
		}
		if c.Has("columnScale") {
			sc, err := c.Int("columnScale", 0)
			if err != nil {
				return nil, err
			}
			s.scale, s.hasScale = int(sc), true
		}
		if dv := c.Get("defaultValue"); dv != nil && dv.Kind != hocon.Null {
			s.def, s.defOption = dv, c
			// check it converts now, so a bad default is a config error
			if _, err := defaultValue(dv, table.Columns[i].Type); err != nil {
				return nil, literalError(c, "defaultValue", err)
			}
		}
	}
	return specs, nil
}

func parseGen(opts *config.Options, g *genConfig) error {
	sizes := []struct {
		key string
		dst *int
	}{
		{"string.length", &g.stringLength},
		{"bytes.length", &g.bytesLength},
		{"array.size", &g.arraySize},
		{"map.size", &g.mapSize},
	}
	for _, s := range sizes {
		n, err := opts.Int(s.key, 5)
		if err != nil {
			return err
		}
		if n < 0 || n > 1<<24 {
			return opts.Errorf(s.key, "must be between 0 and %d, got %d", 1<<24, n)
		}
		*s.dst = int(n)
	}

	ints := []numRange{
		{prefix: "tinyint", lo: 0, hi: math.MaxInt8, min: &g.tinyintMin, max: &g.tinyintMax, tmpl: &g.tinyintTemplate},
		{prefix: "smallint", lo: 0, hi: math.MaxInt16, min: &g.smallintMin, max: &g.smallintMax, tmpl: &g.smallintTemplate},
		{prefix: "int", lo: 0, hi: math.MaxInt32, min: &g.intMin, max: &g.intMax, tmpl: &g.intTemplate},
		{prefix: "bigint", lo: 0, hi: math.MaxInt64, min: &g.bigintMin, max: &g.bigintMax, tmpl: &g.bigintTemplate},
	}
	typeRange := map[string][2]int64{
		"tinyint": {math.MinInt8, math.MaxInt8}, "smallint": {math.MinInt16, math.MaxInt16},
		"int": {math.MinInt32, math.MaxInt32}, "bigint": {math.MinInt64, math.MaxInt64},
	}
	for _, r := range ints {
		lo, err := opts.Int(r.prefix+".min", r.lo)
		if err != nil {
			return err
		}
		hi, err := opts.Int(r.prefix+".max", r.hi)
		if err != nil {
			return err
		}
		// SeaTunnel accepts only values between its defaults: 0 and the type's maximum.
		for _, b := range []struct {
			key string
			v   int64
		}{{r.prefix + ".min", lo}, {r.prefix + ".max", hi}} {
			if b.v < r.lo || b.v > r.hi {
				return opts.Errorf(b.key, "should be >= %d and <= %d, got %d", r.lo, r.hi, b.v)
			}
		}
		if lo > hi {
			return opts.Errorf(r.prefix+".min", "%d is greater than %s.max %d", lo, r.prefix, hi)
		}
		*r.min, *r.max = lo, hi
		tr := typeRange[r.prefix]
		if *r.tmpl, err = intList(opts, r.prefix+".template", tr[0], tr[1]); err != nil {
			return err
		}
		if err := checkMode(opts, r.prefix, len(*r.tmpl) > 0); err != nil {
			return err
		}
	}

	floats := []struct {
		prefix string
		hi     float64
		min    *float64
		max    *float64
		tmpl   *[]float64
	}{
		{"float", math.MaxFloat32, &g.floatMin, &g.floatMax, &g.floatTemplate},
		{"double", math.MaxFloat64, &g.doubleMin, &g.doubleMax, &g.doubleTemplate},
	}
	for _, r := range floats {
		lo, err := opts.Float(r.prefix+".min", 0)
		if err != nil {
			return err
		}
		hi, err := opts.Float(r.prefix+".max", r.hi)
		if err != nil {
			return err
		}
		for _, b := range []struct {
			key string
			v   float64
		}{{r.prefix + ".min", lo}, {r.prefix + ".max", hi}} {
			if !(b.v >= 0 && b.v <= r.hi) {
				return opts.Errorf(b.key, "should be >= 0 and <= %g, got %g", r.hi, b.v)
			}
		}
		if lo > hi {
			return opts.Errorf(r.prefix+".min", "%g is greater than %s.max %g", lo, r.prefix, hi)
		}
		*r.min, *r.max = lo, hi
		if *r.tmpl, err = floatList(opts, r.prefix+".template", r.prefix == "float"); err != nil {
			return err
		}
		if err := checkMode(opts, r.prefix, len(*r.tmpl) > 0); err != nil {
			return err
		}
	}

	var err error
	if g.stringTemplate, err = opts.StringList("string.template"); err != nil {
		return err
	}
	if err := checkMode(opts, "string", len(g.stringTemplate) > 0); err != nil {
		return err
	}

	dt := []struct {
		key    string
		lo, hi int64
		dst    *[]int64
	}{
		{"date.year.template", 1, 9999, &g.yearTemplate},
		{"date.month.template", 1, 12, &g.monthTemplate},
		{"date.day.template", 1, 31, &g.dayTemplate},
		{"time.hour.template", 0, 23, &g.hourTemplate},
		{"time.minute.template", 0, 59, &g.minuteTemplate},
		{"time.second.template", 0, 59, &g.secondTemplate},
	}
	for _, d := range dt {
		if *d.dst, err = intList(opts, d.key, d.lo, d.hi); err != nil {
			return err
		}
	}
	// vector types are not supported by Strait; their options are accepted and unused.
	opts.MarkUsed("vector.dimension", "binary.vector.dimension", "vector.float.min", "vector.float.max")
	return nil
}

// checkMode reads <prefix>.fake.mode. As in SeaTunnel, a configured template always wins
// and the mode only demands that `template` comes with a template list.
func checkMode(opts *config.Options, prefix string, hasTemplate bool) error {
	mode, err := opts.Enum(prefix+".fake.mode", "range", "range", "template")
	if err != nil {
		return err
	}
	if mode == "template" && !hasTemplate {
		return opts.Errorf(prefix+".fake.mode", "is template, but %s.template is not set", prefix)
	}
	return nil
}

func intList(opts *config.Options, key string, lo, hi int64) ([]int64, error) {
	ss, err := opts.StringList(key)
	if err != nil || len(ss) == 0 {
		return nil, err
	}
	out := make([]int64, len(ss))
	for i, s := range ss {
		n, err := literal.ParseInteger(s, lo, hi)
		if err != nil {
			return nil, opts.Errorf(key, "element %d: expected an integer between %d and %d, got %q", i, lo, hi, s)
		}
		out[i] = n
	}
	return out, nil
}

func floatList(opts *config.Options, key string, f32 bool) ([]float64, error) {
	ss, err := opts.StringList(key)
	if err != nil || len(ss) == 0 {
		return nil, err
	}
	out := make([]float64, len(ss))
	for i, s := range ss {
		v := &hocon.Value{Kind: hocon.String, Str: s}
		typ := types.Of(types.Double)
		if f32 {
			typ = types.Of(types.Float)
		}
		val, err := literal.Convert(v, typ)
		if err != nil {
			return nil, opts.Errorf(key, "element %d: %v", i, err)
		}
		f, _ := val.AsFloat64()
		out[i] = f
	}
	return out, nil
}
