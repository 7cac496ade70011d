package conntest

import (
	"context"
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
	build, _, ok := connector.LookupSink(plugin)
	if !ok {
		t.Fatalf("the %s sink is not registered", plugin)
	}
	return build(&connector.SinkContext{Context: context.Background(), Options: Options(t, block, "sink[0] "+plugin),
		Job: connector.Job{ID: 7}, Inputs: inputs})
}

// BuildSource builds the registered source plugin from its block, for a job of id 7 in mode
// with parallelism p, as the planner does.
func BuildSource(t testing.TB, plugin, block string, mode connector.JobMode, p int) (connector.Source, error) {
	t.Helper()
	build, _, ok := connector.LookupSource(plugin)
	if !ok {
		t.Fatalf("the %s source is not registered", plugin)
	}
	return build(&connector.SourceContext{Context: context.Background(), Options: Options(t, block, "source[0] "+plugin),
		Job: connector.Job{ID: 7, Mode: mode}, Parallelism: p})
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

// AllRows reads a bounded source to its end with p readers and returns every reader's rows,
// reader 0's first; a failure or a minute without the end fails the test.
func AllRows(t testing.TB, src connector.Source, p int) []row.Row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	per, err := Rows(ctx, src, p)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var all []row.Row
	for _, rs := range per {
		all = append(all, rs...)
	}
	return all
}
