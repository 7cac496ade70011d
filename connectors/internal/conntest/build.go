package conntest

import (
	"context"
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

// Options reads a plugin block written in HOCON, as the planner hands it to the plugin;
// where names the block in errors (`sink[0] Redis`).
func Options(t testing.TB, block, where string) *config.Options {
	t.Helper()
	root, err := hocon.Parse([]byte(block), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatalf("parse %q: %v", block, err)
	}
	return config.New(root, where)
}

// Table is a table of id (`db.t`) with nullable columns given as name, type pairs
// ("id", "bigint", "name", "string").
func Table(id string, cols ...string) *catalog.Table {
	t := &catalog.Table{}
	t.Path, _ = catalog.ParsePath(id, false)
	for i := 0; i+1 < len(cols); i += 2 {
		t.Columns = append(t.Columns, catalog.Column{Name: cols[i], Type: types.MustParse(cols[i+1]), Nullable: true})
	}
	return t
}

// BuildSink builds the registered sink plugin from its block, for a job of id 7 writing
// inputs, as the planner does.
func BuildSink(t testing.TB, plugin, block string, inputs ...*catalog.Table) (connector.Sink, error) {
	t.Helper()
	s, _, err := BuildSinkIn(t, plugin, block, connector.SinkContext{Job: connector.Job{ID: 7}, Inputs: inputs})
	return s, err
}

// BuildSource builds the registered source plugin from its block, for a job of id 7 in mode
// with parallelism p, as the planner does.
func BuildSource(t testing.TB, plugin, block string, mode connector.JobMode, p int) (connector.Source, error) {
	t.Helper()
	s, _, err := BuildSourceIn(t, plugin, block, connector.SourceContext{Job: connector.Job{ID: 7, Mode: mode}, Parallelism: p})
	return s, err
}

// Write runs a sink as the runner does for one subtask of job 7: its setup (save modes) when
// it has one, a writer, and a checkpoint's PrepareCommit after each batch. A sink with a
// committer is not committed: its tests commit what they want.
func Write(t testing.TB, s connector.Sink, batches ...*row.Batch) error {
	t.Helper()
	ctx := context.Background()
	if su, ok := s.(connector.SinkSetup); ok {
		if err := su.Setup(ctx); err != nil {
			return err
		}
	}
	w, err := s.CreateWriter(connector.WriterContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: 7}, Epoch: 1}, nil)
	if err != nil {
		return err
	}
	defer w.Close(ctx)
	for i, b := range batches {
		if err := w.Write(ctx, b); err != nil {
			return err
		}
		if _, err := w.PrepareCommit(ctx, int64(i+1)); err != nil {
			return err
		}
	}
	return nil
}

// ReaderRows reads a bounded source to its end with p readers and returns each reader's
// rows; a failure or a minute without the end fails the test.
func ReaderRows(t testing.TB, src connector.Source, p int) [][]row.Row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	per, err := Rows(ctx, src, p)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return per
}

// AllRows reads a bounded source to its end with p readers and returns every reader's rows,
// reader 0's first; a failure or a minute without the end fails the test.
func AllRows(t testing.TB, src connector.Source, p int) []row.Row {
	t.Helper()
	return Flatten(ReaderRows(t, src, p))
}

// Flatten is the rows of every reader, reader 0's first.
func Flatten(per [][]row.Row) []row.Row {
	var all []row.Row
	for _, rs := range per {
		all = append(all, rs...)
	}
	return all
}

// BuildSourceIn builds the registered source plugin from its block with the rest of sc as
// given (a nil Context is the background one), and returns the options it was built from.
func BuildSourceIn(t testing.TB, plugin, block string, sc connector.SourceContext) (connector.Source, *config.Options, error) {
	t.Helper()
	build, _, ok := connector.LookupSource(plugin)
	sc.Context, sc.Options = buildContext(t, ok, "source", plugin, block, sc.Context)
	return buildWith(build, &sc, sc.Options)
}

// BuildSinkIn builds the registered sink plugin from its block with the rest of sc as given
// (a nil Context is the background one), and returns the options it was built from.
func BuildSinkIn(t testing.TB, plugin, block string, sc connector.SinkContext) (connector.Sink, *config.Options, error) {
	t.Helper()
	build, _, ok := connector.LookupSink(plugin)
	sc.Context, sc.Options = buildContext(t, ok, "sink", plugin, block, sc.Context)
	return buildWith(build, &sc, sc.Options)
}

// buildWith calls build on the plugin's context c and returns what it built with the
// options o of c.
func buildWith[C, P any](build func(*C) (P, error), c *C, o *config.Options) (P, *config.Options, error) {
	p, err := build(c)
	return p, o, err
}

// buildContext is the context and the options a plugin of kind is built with: ctx, or the
// background context when it is nil, and block read as the planner reads it. A plugin not
// registered (registered false) fails the test.
func buildContext(t testing.TB, registered bool, kind, plugin, block string, ctx context.Context) (context.Context, *config.Options) {
	t.Helper()
	if !registered {
		t.Fatalf("the %s %s is not registered", plugin, kind)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return ctx, Options(t, block, kind+"[0] "+plugin)
}

// Unknown lists the options of o that the spec of the plugin of kind ("source" or "sink")
// does not know, leaving out the names in known.
func Unknown(t testing.TB, kind, plugin string, o *config.Options, known ...string) []string {
	t.Helper()
	p, ok := connector.LookupPlugin(kind, plugin)
	if !ok {
		t.Fatalf("the %s %s is not registered", plugin, kind)
	}
	return p.Spec.Unknown(o, known...)
}

// WarningsWithPrefixes checks that got holds one warning for each of want, in order, each
// beginning with its want.
func WarningsWithPrefixes(t testing.TB, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("warnings\n%q\nwant\n%q", got, want)
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("warning\n%s\nwant\n%s", got[i], want[i])
		}
	}
}

// Deadline is the background context, with a deadline d from now when d > 0, cancelled
// when the test ends.
func Deadline(t testing.TB, d time.Duration) context.Context {
	if d <= 0 {
		return context.Background()
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// Warnings checks that got is want, warning for warning.
func Warnings(t testing.TB, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n%q\nwant\n%q", got, want)
	}
}

// MustSource is BuildSource's source; an error building it fails the test.
func MustSource(t testing.TB, plugin, block string, mode connector.JobMode, p int) connector.Source {
	t.Helper()
	s, err := BuildSource(t, plugin, block, mode, p)
	if err != nil {
		t.Fatalf("%s source: %v", plugin, err)
	}
	return s
}

// PermanentErr checks that err, of the case what, is a permanent error holding want.
func PermanentErr(t testing.TB, what string, err error, want string) {
	t.Helper()
	if err == nil || !connector.IsPermanent(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: %v, want a permanent error holding %q", what, err, want)
	}
}
