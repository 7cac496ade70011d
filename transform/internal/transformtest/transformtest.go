// Package transformtest helps the transforms' tests: it builds the registered transforms from
// HOCON text or from the repository's SeaTunnel e2e job files, and runs explicit batches
// through them. Whole jobs (sources, transforms, sinks) run through the strait binary in
// e2e/, never here.
package transformtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
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

// seaTunnelDir is where the repository keeps SeaTunnel's end-to-end job configs.
const seaTunnelDir = "testdata/seatunnel-e2e"

// seaTunnelFile is the path of a SeaTunnel e2e job file given relative to the repository's
// testdata/seatunnel-e2e, found by walking up from the package directory to go.mod. A
// missing file fails the test.
func seaTunnelFile(t testing.TB, rel string) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("SeaTunnel job file %s: %v", rel, err)
		return ""
	}
	path := filepath.Join(root, seaTunnelDir, filepath.FromSlash(rel))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("SeaTunnel job file %s: %v", rel, err)
		return ""
	}
	return path
}

// repoRoot is the nearest directory at or above the working directory holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// LoadJob parses a SeaTunnel e2e job file given relative to the repository's
// testdata/seatunnel-e2e (e.g. "transform/copy_transform.conf"); a missing file fails the test.
func LoadJob(t testing.TB, rel string) *hocon.Value {
	t.Helper()
	return LoadJobVars(t, rel, nil)
}

// LoadJobVars is LoadJob with the -i variables of a strait run.
func LoadJobVars(t testing.TB, rel string, vars map[string]string) *hocon.Value {
	t.Helper()
	path := seaTunnelFile(t, rel)
	v, err := hocon.ParseFile(path, hocon.Options{Vars: vars, ListSections: []string{"source", "transform", "sink"}})
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

// BuildJobFile is BuildJob of the job file rel (as LoadJob finds it), checking that its
// output row type prints as want.
func BuildJobFile(t testing.TB, rel, want string) *Job {
	t.Helper()
	j := BuildJob(t, LoadJob(t, rel))
	if got := j.Output.RowType().String(); got != want {
		t.Fatalf("%s: output\n got %s\nwant %s", rel, got, want)
	}
	return j
}

// Unshared checks that the arrays a and b do not share their elements: writing to a's first
// element leaves b's as it was.
func Unshared(t testing.TB, a, b row.Value) {
	t.Helper()
	want := b.Elems()[0]
	a.Elems()[0] = row.StringValue("changed")
	if got := b.Elems()[0]; !row.Equal(got, want) {
		t.Fatalf("the arrays share their elements: %v, was %v", got, want)
	}
}

// CRow is the value of the c_row column of SeaTunnel's test jobs, {c_row = {c_int = int}},
// holding n.
func CRow(n int32) row.Value {
	return row.RowValue([]row.Value{row.RowValue([]row.Value{row.IntValue(n)})})
}

func stringOpt(o *config.Options, key string) string {
	s, _ := o.String(key, "")
	return s
}

// An ErrorCase is a transform's options and a text the error building it must hold. It
// names an unnamed struct type, so that tables of cases are written as {opts, msg} pairs.
type ErrorCase = struct{ Opts, Msg string }

// BuildErrors builds the transform name on the input tables with each case's options and
// checks that it fails with the case's message.
func BuildErrors(t *testing.T, name string, tab *catalog.Table, cases []ErrorCase) {
	t.Helper()
	for _, c := range cases {
		_, err := Build(t, name, c.Opts, tab)
		if err == nil || !strings.Contains(err.Error(), c.Msg) {
			t.Errorf("%q: error %v, want %q", c.Opts, err, c.Msg)
		}
	}
}

// ProcessFirst runs the batch in through tr and checks whether the output is in itself
// (same), and the kind and the fields (as fmt.Sprint prints them) of its first row; errors
// start with what (the case's options).
func ProcessFirst(t testing.TB, what string, tr connector.Transform, in *row.Batch, same bool, kind row.Kind, first string) {
	t.Helper()
	res, err := tr.Process(t.Context(), in)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if (res == in) != same {
		t.Errorf("%s: batch reused %v, want %v", what, res == in, same)
	}
	if s := fmt.Sprint(res.Rows[0].Fields); s != first || res.Rows[0].Kind != kind {
		t.Errorf("%s: row %s %s, want %s %s", what, res.Rows[0].Kind, s, kind, first)
	}
	res.Release()
}

// RunRows runs the batch through the transforms and checks the fields of the rows that
// come out, each as fmt.Sprint prints them.
func RunRows(t testing.TB, in *row.Batch, trs []connector.Transform, want ...string) {
	t.Helper()
	rows, err := Run(t, in, trs...)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i := range want {
		if got := fmt.Sprint(rows[i].Fields); got != want[i] {
			t.Errorf("row %d = %s, want %s", i, got, want[i])
		}
	}
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
