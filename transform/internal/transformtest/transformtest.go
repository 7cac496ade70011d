// Package transformtest helps the transforms' tests: it builds transforms from HOCON text or
// from SeaTunnel e2e job files, makes FakeSource-like rows for a schema, runs batches through
// a chain of transforms and checks the Assert sink's rules of a job file on the result.
package transformtest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// Parse reads HOCON text as a job file is read.
func Parse(t testing.TB, text string) *hocon.Value {
	t.Helper()
	v, err := hocon.Parse([]byte(text), hocon.Options{File: "test.conf", ListSections: []string{"source", "transform", "sink"}})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return v
}

// E2EDir finds the SeaTunnel e2e job files (shared/seatunnel-e2e beside the repository, or
// $STRAIT_E2E_DIR); it skips the test when they are not there.
func E2EDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("STRAIT_E2E_DIR"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Skip("no working directory")
	}
	for {
		for _, c := range []string{filepath.Join(dir, "shared", "seatunnel-e2e"), filepath.Join(dir, "..", "shared", "seatunnel-e2e")} {
			if st, err := os.Stat(c); err == nil && st.IsDir() {
				return c
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("SeaTunnel e2e job files not found (set STRAIT_E2E_DIR)")
		}
		dir = parent
	}
}

// LoadJob parses an e2e job file given relative to the e2e directory.
func LoadJob(t testing.TB, rel string) *hocon.Value {
	t.Helper()
	path := filepath.Join(E2EDir(t), rel)
	v, err := hocon.ParseFile(path, hocon.Options{ListSections: []string{"source", "transform", "sink"}})
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return v
}

// Table builds a table from `name = type` pairs in HOCON, e.g. `id = int, name = string`.
func Table(t testing.TB, fields string) *catalog.Table {
	t.Helper()
	v := Parse(t, "schema { fields { "+fields+" } }")
	tab, err := catalog.ParseSchema(config.New(v, "test"), "schema", "default.default.default")
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	return tab
}

// Options wraps HOCON option text as a plugin's options.
func Options(t testing.TB, text string) *config.Options {
	t.Helper()
	return config.New(Parse(t, text), "transform[0] Test")
}

// Build creates the transform plugin name with the options text on the input tables.
func Build(t testing.TB, name, text string, inputs ...*catalog.Table) (connector.Transform, error) {
	t.Helper()
	f, _, ok := connector.LookupTransform(name)
	if !ok {
		t.Fatalf("transform %s is not registered", name)
	}
	return f(&connector.TransformContext{Options: Options(t, text), Inputs: inputs})
}

// MustBuild is Build failing the test on error.
func MustBuild(t testing.TB, name, text string, inputs ...*catalog.Table) connector.Transform {
	t.Helper()
	tr, err := Build(t, name, text, inputs...)
	if err != nil {
		t.Fatalf("build %s: %v", name, err)
	}
	return tr
}

// Batch makes a batch of rows of the table; each row is given as its values.
func Batch(table string, kind row.Kind, rows ...[]row.Value) *row.Batch {
	b := row.NewBatch(len(rows) + 1)
	for _, vals := range rows {
		r := b.Add(kind, table, len(vals))
		copy(r.Fields, vals)
	}
	return b
}

// Run passes a batch through the transforms and returns a deep copy of the rows that come
// out, releasing the batch.
func Run(t testing.TB, in *row.Batch, trs ...connector.Transform) ([]row.Row, error) {
	t.Helper()
	b := in
	for _, tr := range trs {
		out, err := tr.Process(context.Background(), b)
		if err != nil {
			return nil, err
		}
		b = out
	}
	rows := make([]row.Row, len(b.Rows))
	for i := range b.Rows {
		rows[i] = b.Rows[i].Clone()
	}
	b.Release()
	return rows, nil
}

// Job is an e2e job file read for testing its transforms.
type Job struct {
	Root        *hocon.Value
	Source      *catalog.Table
	SourceOpts  *config.Options
	Transforms  []connector.Transform
	Names       []string
	Output      *catalog.Table
	OutputTable string // the name the sink reads
}

// common options every plugin may carry, read by the planner.
var common = []string{"source_table_name", "result_table_name", "plugin_input", "plugin_output", "parallelism"}

// BuildJob reads the FakeSource schema of a job file and builds its transform chain (each
// transform reading the previous one's result, as the files here do). It fails the test on
// errors and when a transform leaves an option unread.
func BuildJob(t testing.TB, root *hocon.Value) *Job {
	t.Helper()
	j := &Job{Root: root}
	src := root.Get("source")
	if src == nil || len(src.Fields) == 0 {
		t.Fatal("the job has no source")
	}
	f := src.Fields[0]
	if f.Key != "FakeSource" {
		t.Fatalf("the job's source is %s, not FakeSource", f.Key)
	}
	j.SourceOpts = config.New(f.Value, "source[0] FakeSource")
	name := stringOpt(j.SourceOpts, "result_table_name")
	tab, err := catalog.ParseSchema(j.SourceOpts, "schema", "")
	if err != nil {
		t.Fatalf("source schema: %v", err)
	}
	j.Source = tab
	cur, curName := tab, name
	for i, tf := range root.Get("transform").Fields {
		opts := config.New(tf.Value, fmt.Sprintf("transform[%d] %s", i, tf.Key))
		in := stringOpt(opts, "source_table_name")
		if in != "" && curName != "" && in != curName {
			t.Fatalf("transform[%d] reads %q, but the chain is at %q", i, in, curName)
		}
		opts.MarkUsed(common...)
		factory, _, ok := connector.LookupTransform(tf.Key)
		if !ok {
			t.Fatalf("transform %s is not registered", tf.Key)
		}
		tr, err := factory(&connector.TransformContext{Options: opts, Inputs: []*catalog.Table{cur}})
		if err != nil {
			t.Fatalf("transform[%d] %s: %v", i, tf.Key, err)
		}
		if u := opts.Unused(); len(u) > 0 {
			t.Errorf("transform[%d] %s left options unread: %v", i, tf.Key, u)
		}
		j.Transforms = append(j.Transforms, tr)
		j.Names = append(j.Names, tf.Key)
		cur = tr.Outputs()[0]
		curName = stringOpt(opts, "result_table_name")
	}
	j.Output, j.OutputTable = cur, curName
	return j
}

func stringOpt(o *config.Options, key string) string {
	s, _ := o.String(key, "")
	return s
}

// RowNum is the source's row.num (default 5).
func (j *Job) RowNum() int {
	n, _ := j.SourceOpts.Int("row.num", 5)
	return int(n)
}

// Fake makes n rows of the source table as FakeSource does by default (random values in the
// ranges of the options int.min, int.max, string.length...), in batches of size.
func (j *Job) Fake(n, size int, seed uint64) []*row.Batch {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g := gen{o: j.SourceOpts, rng: rng}
	var out []*row.Batch
	for n > 0 {
		k := min(n, size)
		b := row.NewBatch(size)
		for i := 0; i < k; i++ {
			r := b.Add(row.Insert, j.Source.ID(), len(j.Source.Columns))
			for c, col := range j.Source.Columns {
				r.Fields[c] = g.value(col.Type)
			}
		}
		out = append(out, b)
		n -= k
	}
	return out
}

type gen struct {
	o   *config.Options
	rng *rand.Rand
}

func (g gen) intOpt(key string, def int64) int64 {
	n, err := g.o.Int(key, def)
	if err != nil {
		return def
	}
	return n
}

func (g gen) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + g.rng.Int64N(hi-lo+1)
}

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

func (g gen) value(t types.DataType) row.Value {
	switch t.Kind {
	case types.String:
		n := g.intOpt("string.length", 5)
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[g.rng.IntN(len(letters))]
		}
		return row.StringValue(string(b))
	case types.Boolean:
		return row.BoolValue(g.rng.IntN(2) == 1)
	case types.TinyInt:
		return row.TinyIntValue(int8(g.between(g.intOpt("tinyint.min", 0), g.intOpt("tinyint.max", math.MaxInt8))))
	case types.SmallInt:
		return row.SmallIntValue(int16(g.between(g.intOpt("smallint.min", 0), g.intOpt("smallint.max", math.MaxInt16))))
	case types.Int:
		return row.IntValue(int32(g.between(g.intOpt("int.min", 0), g.intOpt("int.max", math.MaxInt32))))
	case types.BigInt:
		return row.BigIntValue(g.between(g.intOpt("bigint.min", 0), g.intOpt("bigint.max", math.MaxInt64-1)))
	case types.Float:
		return row.FloatValue(g.rng.Float32() * 100)
	case types.Double:
		return row.DoubleValue(g.rng.Float64() * 100)
	case types.Decimal:
		v, _ := row.ParseDecimal(fmt.Sprintf("%d.%d", g.rng.IntN(1000), g.rng.IntN(100)), t.Precision, t.Scale)
		return v
	case types.Bytes:
		b := make([]byte, g.intOpt("bytes.length", 5))
		for i := range b {
			b[i] = byte(g.rng.IntN(256))
		}
		return row.BytesValue(b)
	case types.Date:
		return row.DateValue(int64(g.rng.IntN(20000)))
	case types.Time:
		return row.TimeValue(g.rng.Int64N(int64(24 * time.Hour)))
	case types.Timestamp:
		return row.TimestampValue(g.rng.Int64N(int64(50*365*24*time.Hour)) / int64(time.Second) * int64(time.Second))
	case types.Array:
		n := int(g.intOpt("array.size", 5))
		e := make([]row.Value, n)
		for i := range e {
			e[i] = g.value(*t.Elem)
		}
		return row.ArrayValue(e)
	case types.Map:
		n := int(g.intOpt("map.size", 5))
		m := &row.MapValue{}
		for i := 0; i < n; i++ {
			m.Keys = append(m.Keys, g.value(*t.Key))
			m.Vals = append(m.Vals, g.value(*t.Elem))
		}
		return row.MapOfValues(m)
	case types.Row:
		f := make([]row.Value, t.Row.Len())
		for i, ft := range t.Row.Types {
			f[i] = g.value(ft)
		}
		return row.RowValue(f)
	}
	return row.NullValue()
}

// RunJob makes the source's rows, runs them through the chain and returns the output rows.
func (j *Job) RunJob(t testing.TB, batchSize int, seed uint64) []row.Row {
	t.Helper()
	var all []row.Row
	for _, b := range j.Fake(j.RowNum(), batchSize, seed) {
		rows, err := Run(t, b, j.Transforms...)
		if err != nil {
			t.Fatalf("process: %v", err)
		}
		all = append(all, rows...)
	}
	return all
}

// CheckAssert evaluates the rules of the job's Assert sink on the output rows: row_rules
// (MIN_ROW, MAX_ROW) and field_rules (the field exists with field_type; NOT_NULL, NULL, MIN,
// MAX, MIN_LENGTH, MAX_LENGTH, equals_to). It returns the failures.
func (j *Job) CheckAssert(rows []row.Row) []string {
	var fails []string
	sink := j.Root.Get("sink")
	for _, f := range sink.Fields {
		if f.Key != "Assert" {
			continue
		}
		rules := f.Value.Lookup("rules")
		if rules == nil {
			continue
		}
		if rr := rules.Get("row_rules"); rr != nil {
			for _, r := range rr.Elems {
				typ, val := str(r.Get("rule_type")), num(r.Get("rule_value"))
				switch typ {
				case "MIN_ROW":
					if float64(len(rows)) < val {
						fails = append(fails, fmt.Sprintf("MIN_ROW %v: got %d rows", val, len(rows)))
					}
				case "MAX_ROW":
					if float64(len(rows)) > val {
						fails = append(fails, fmt.Sprintf("MAX_ROW %v: got %d rows", val, len(rows)))
					}
				}
			}
		}
		fr := rules.Get("field_rules")
		if fr == nil {
			continue
		}
		for _, r := range fr.Elems {
			var name string
			if v := r.Get("field_name"); v != nil {
				name = v.Str
			}
			idx := j.Output.ColumnIndex(name)
			if idx < 0 {
				fails = append(fails, fmt.Sprintf("field %s is not in the output %v", name, j.Output.RowType()))
				continue
			}
			if ft := r.Get("field_type"); ft != nil {
				want, err := catalog.TypeOf(ft)
				if err != nil {
					fails = append(fails, fmt.Sprintf("field %s: bad field_type: %v", name, err))
				} else if got := j.Output.Columns[idx].Type; !got.Equal(want) {
					fails = append(fails, fmt.Sprintf("field %s: type %s, want %s", name, got, want))
				}
			}
			fv := r.Get("field_value")
			if fv == nil {
				continue
			}
			for _, rule := range fv.Elems {
				fails = append(fails, checkValues(name, idx, rule, rows)...)
			}
		}
	}
	return fails
}

func checkValues(name string, idx int, rule *hocon.Value, rows []row.Row) []string {
	typ, val := str(rule.Get("rule_type")), num(rule.Get("rule_value"))
	eq := rule.Get("equals_to")
	for _, r := range rows {
		v := r.Fields[idx]
		bad := ""
		switch typ {
		case "NOT_NULL":
			if v.IsNull() {
				bad = "is null"
			}
		case "NULL":
			if !v.IsNull() {
				bad = "is not null"
			}
		case "MIN", "MAX":
			f, ok := v.AsFloat64()
			if v.IsNull() {
				continue
			}
			if !ok || typ == "MIN" && f < val || typ == "MAX" && f > val {
				bad = fmt.Sprintf("%s violates %s %v", v, typ, val)
			}
		case "MIN_LENGTH", "MAX_LENGTH":
			if v.IsNull() {
				continue
			}
			n := float64(len([]rune(v.String())))
			if typ == "MIN_LENGTH" && n < val || typ == "MAX_LENGTH" && n > val {
				bad = fmt.Sprintf("%q violates %s %v", v.String(), typ, val)
			}
		}
		if eq != nil && bad == "" && !v.IsNull() && !equalsTo(v, eq) {
			bad = fmt.Sprintf("%s is not equal to %s", v, eq.Str)
		}
		if bad != "" {
			return []string{fmt.Sprintf("field %s: %s", name, bad)}
		}
	}
	return nil
}

func equalsTo(v row.Value, want *hocon.Value) bool {
	w := want.Str
	if want.Kind == hocon.Bool {
		w = fmt.Sprint(want.Bool)
	}
	if f, ok := v.AsFloat64(); ok && want.Kind == hocon.Number {
		var g float64
		fmt.Sscan(w, &g)
		return math.Abs(f-g) < 1e-6
	}
	return strings.EqualFold(v.String(), w)
}

func str(v *hocon.Value) string {
	if v == nil {
		return ""
	}
	return strings.ToUpper(v.Str)
}

func num(v *hocon.Value) float64 {
	if v == nil {
		return 0
	}
	var f float64
	fmt.Sscan(v.Str, &f)
	return f
}

// BenchRows measures process on batches of 1024 rows made by gen (making the batches is not
// timed) and reports rows/s.
func BenchRows(b *testing.B, table string, process func(context.Context, *row.Batch) (*row.Batch, error), gen func(i int) []row.Value) {
	BenchRowsKind(b, table, process, nil, gen)
}

// BenchRowsKind is BenchRows with the kind of row i given by kind.
func BenchRowsKind(b *testing.B, table string, process func(context.Context, *row.Batch) (*row.Batch, error), kind func(i int) row.Kind, gen func(i int) []row.Value) {
	const n = row.DefaultBatchSize
	tmpl := make([][]row.Value, n)
	for i := range tmpl {
		tmpl[i] = gen(i)
	}
	ctx := context.Background()
	rows := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		in := row.NewBatch(n)
		for i := range tmpl {
			k := row.Insert
			if kind != nil {
				k = kind(i)
			}
			r := in.Add(k, table, len(tmpl[i]))
			copy(r.Fields, tmpl[i])
		}
		b.StartTimer()
		out, err := process(ctx, in)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
		rows += n
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(rows, 1)), "ns/row")
}
