package transformtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	_ "github.com/strait-dev/strait/connectors/assert" // the Assert sink
	_ "github.com/strait-dev/strait/connectors/fake"   // FakeSource
	"github.com/strait-dev/strait/row"
)

type enumContext struct {
	assigned []connector.Split
	noMore   bool
}

func (c *enumContext) Parallelism() int         { return 1 }
func (c *enumContext) RegisteredReaders() []int { return []int{0} }
func (c *enumContext) Assign(_ int, s ...connector.Split) {
	c.assigned = append(c.assigned, s...)
}
func (c *enumContext) SignalNoMoreSplits(int) { c.noMore = true }

// RunWithConnectors runs a BATCH job file as the engine would with parallelism 1: its first
// source (the real FakeSource), the transform chain built by BuildJob, and its first sink
// (the real Assert sink, whose rules fail the run). It returns the number of rows the sink
// received, and the first error of the source, a transform or the sink.
func RunWithConnectors(t testing.TB, root *hocon.Value) (int, error) {
	t.Helper()
	ctx := context.Background()
	j := BuildJob(t, root)
	job := connector.Job{ID: 1, Name: "transformtest", Mode: connector.Batch}

	sf := root.Get("source").Fields[0]
	srcFactory, _, ok := connector.LookupSource(sf.Key)
	if !ok {
		t.Fatalf("source %s is not registered", sf.Key)
	}
	srcOpts := config.New(sf.Value, "source[0] "+sf.Key)
	src, err := srcFactory(&connector.SourceContext{Options: srcOpts, Job: job, Parallelism: 1, OutputName: stringOpt(srcOpts, "result_table_name")})
	if err != nil {
		return 0, err
	}
	if got := src.Tables(); len(got) != 1 || !got[0].RowType().Equal(j.Source.RowType()) {
		return 0, fmt.Errorf("FakeSource's table %v differs from the schema read by ParseSchema %v", got[0].RowType(), j.Source.RowType())
	}
	// the transforms are built on the source's own table (same columns, its id)
	j = rebuild(t, root, src.Tables()[0])

	kf := root.Get("sink").Fields[0]
	sinkFactory, _, ok := connector.LookupSink(kf.Key)
	if !ok {
		t.Fatalf("sink %s is not registered", kf.Key)
	}
	sk, err := sinkFactory(&connector.SinkContext{Options: config.New(kf.Value, "sink[0] "+kf.Key), Job: job, Inputs: []*catalog.Table{j.Output}})
	if err != nil {
		return 0, err
	}
	w, err := sk.CreateWriter(connector.WriterContext{Index: 0, Parallelism: 1, Job: job}, nil)
	if err != nil {
		return 0, err
	}

	ec := &enumContext{}
	en, err := src.CreateEnumerator(ec, nil)
	if err != nil {
		return 0, err
	}
	if err := en.Open(ctx); err != nil {
		return 0, err
	}
	if err := en.Run(ctx); err != nil {
		return 0, err
	}
	if err := en.RegisterReader(0); err != nil {
		return 0, err
	}
	rd, err := src.CreateReader(connector.ReaderContext{Index: 0, Parallelism: 1, Job: job})
	if err != nil {
		return 0, err
	}
	if err := rd.Open(ctx); err != nil {
		return 0, err
	}
	rd.AddSplits(ec.assigned)
	if ec.noMore {
		rd.NoMoreSplits()
	}
	n := 0
	for {
		b := row.NewBatch(row.DefaultBatchSize)
		done, err := rd.PollNext(ctx, b)
		if err != nil {
			return n, err
		}
		for _, tr := range j.Transforms {
			if b, err = tr.Process(ctx, b); err != nil {
				return n, err
			}
		}
		n += b.Len()
		if b.Len() > 0 {
			if err := w.Write(ctx, b); err != nil {
				return n, err
			}
		}
		b.Release()
		if done {
			break
		}
	}
	if err := rd.Close(); err != nil {
		return n, err
	}
	if err := en.Close(); err != nil {
		return n, err
	}
	info, err := w.PrepareCommit(ctx, 1)
	if err != nil {
		return n, err
	}
	if err := w.Close(ctx); err != nil {
		return n, err
	}
	c, err := sk.CreateCommitter()
	if err != nil || c == nil {
		return n, err
	}
	var infos [][]byte
	if info != nil {
		infos = append(infos, info)
	}
	return n, c.Commit(ctx, connector.CommitRequest{CheckpointID: 1, Final: true, Infos: infos})
}

// rebuild builds the job's transform chain again on the given source table.
func rebuild(t testing.TB, root *hocon.Value, src *catalog.Table) *Job {
	t.Helper()
	j := &Job{Root: root, Source: src}
	cur := src
	for i, tf := range root.Get("transform").Fields {
		opts := config.New(tf.Value, fmt.Sprintf("transform[%d] %s", i, tf.Key))
		opts.MarkUsed(common...)
		factory, _, _ := connector.LookupTransform(tf.Key)
		tr, err := factory(&connector.TransformContext{Options: opts, Inputs: []*catalog.Table{cur}})
		if err != nil {
			t.Fatalf("transform[%d] %s: %v", i, tf.Key, err)
		}
		j.Transforms = append(j.Transforms, tr)
		cur = tr.Outputs()[0]
	}
	j.Output = cur
	return j
}
