package file

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

// seatunnelDir holds the data files of SeaTunnel's LocalFile end-to-end suite, kept unchanged;
// e2e/localfile_suite_test.go runs the suite's configs on them through the strait binary.
const seatunnelDir = "../localfile/testdata/seatunnel"

// The core's tests build its source and sink through the registry under LocalFile's name,
// as the planner builds them; connectors/localfile registers them so for real.
func init() {
	Register("LocalFile", "the file core's source", "the file core's sink", NewSource, NewSink)
}

// newTestSink builds the sink through the registry, as the planner does; with one input
// table it is that table's *Sink.
func newTestSink(t testing.TB, src string, inputs ...*catalog.Table) (*Sink, error) {
	t.Helper()
	build, _, ok := connector.LookupSink("LocalFile")
	if !ok {
		t.Fatal("the LocalFile sink is not registered")
	}
	s, err := build(&connector.SinkContext{Options: conntest.Options(t, src, "sink[0] LocalFile"), Job: connector.Job{ID: 7}, Inputs: inputs})
	if err != nil {
		return nil, err
	}
	one, ok := s.(*Sink)
	if !ok {
		t.Fatalf("the sink of %d input tables is a %T, not one table's *Sink", len(inputs), s)
	}
	return one, nil
}

// newTableSink calls the factory of one table's sink, which the registered sink calls for
// each input table, on the options as they are.
func newTableSink(t testing.TB, src string, inputs ...*catalog.Table) (connector.Sink, error) {
	t.Helper()
	o := conntest.Options(t, src, "sink[0] LocalFile")
	c, err := config.Decode[SinkConfig](o)
	if err != nil {
		return nil, err
	}
	return NewSink(&connector.SinkContext{Options: o, Job: connector.Job{ID: 7}, Inputs: inputs}, c)
}

func mustSink(t testing.TB, src string, inputs ...*catalog.Table) *Sink {
	t.Helper()
	s, err := newTestSink(t, src, inputs...)
	if err != nil {
		t.Fatalf("NewSink: %v", err)
	}
	return s
}

func newTestSource(t testing.TB, src string) (*Source, error) {
	t.Helper()
	o := conntest.Options(t, src, "source[0] LocalFile")
	out, _ := o.String("result_table_name", "")
	build, _, ok := connector.LookupSource("LocalFile")
	if !ok {
		t.Fatal("the LocalFile source is not registered")
	}
	s, err := build(&connector.SourceContext{Options: o, Job: connector.Job{ID: 7, Mode: connector.Batch}, Parallelism: 1, OutputName: out})
	if err != nil {
		return nil, err
	}
	return s.(*Source), nil
}

func mustSource(t testing.TB, src string) *Source {
	t.Helper()
	s, err := newTestSource(t, src)
	if err != nil {
		t.Fatalf("NewSource: %v", err)
	}
	return s
}

// quote writes s as a HOCON string literal.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789ABCDEF"[r>>4])
			b.WriteByte("0123456789ABCDEF"[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func ts(s string) row.Value {
	t, err := time.Parse("2006-01-02T15:04:05.999999999", s)
	if err != nil {
		panic(err)
	}
	return row.TimestampOf(t)
}

func date(s string) row.Value {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return row.DateOf(t)
}

// files lists the regular files under dir, relative and sorted, with their contents.
func files(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return out
}

func names(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func readRows(t testing.TB, s *Source, p int) []row.Row {
	t.Helper()
	return conntest.AllRows(t, s, p)
}

func readErr(t testing.TB, s *Source) error {
	t.Helper()
	_, err := conntest.Rows(context.Background(), s, 1)
	return err
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
}

func render(r row.Row) string {
	parts := make([]string, len(r.Fields))
	for i, v := range r.Fields {
		if v.IsNull() {
			parts[i] = "<null>"
		} else {
			parts[i] = v.String()
		}
	}
	return strings.Join(parts, "|")
}

// Shorthands of the shared connector test helpers.
var (
	table   = conntest.Table
	batchOf = conntest.BatchOf
	dec     = conntest.Dec
)

// writeAll writes the batches with one writer, prepares checkpoint 1 and commits it.
func writeAll(t testing.TB, s *Sink, batches ...*row.Batch) { conntest.WriteCommit(t, s, batches...) }

// writeTo writes the batches with a sink of tbl whose path is dir and whose other options
// are conf, and commits them.
func writeTo(t testing.TB, dir, conf string, tbl *catalog.Table, batches ...*row.Batch) {
	t.Helper()
	writeAll(t, mustSink(t, sinkConf(dir, conf), tbl), batches...)
}
