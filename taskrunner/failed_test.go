package taskrunner_test

import (
	"context"
	"io"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/console"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/taskrunner"
	"github.com/strait-dev/strait/types"
)

// parsingSource reads its records, numbers written as text, into rows of one bigint column,
// and skips the records that are not numbers, counting them, as a source that tolerates bad
// records does.
type parsingSource struct{ records []string }

type parsingOptions struct {
	Records []string `opt:"records" doc:"the records, numbers as text"`
}

var idTable = catalog.FromRowType(catalog.TablePath{Table: "ids"}, &types.RowType{Names: []string{"id"}, Types: []types.DataType{types.Of(types.BigInt)}})

func (parsingSource) Boundedness() connector.Boundedness { return connector.Bounded }
func (parsingSource) Tables() []*catalog.Table           { return []*catalog.Table{idTable} }
func (parsingSource) CreateEnumerator(connector.EnumeratorContext, []byte) (connector.Enumerator, error) {
	return listeningEnum{}, nil
}
func (s parsingSource) CreateReader(connector.ReaderContext) (connector.Reader, error) {
	return &parsingReader{records: s.records}, nil
}

type parsingReader struct {
	records []string
	skipped atomic.Int64
}

func (*parsingReader) Open(context.Context) error  { return nil }
func (*parsingReader) AddSplits([]connector.Split) {}
func (*parsingReader) NoMoreSplits()               {}
func (r *parsingReader) PollNext(_ context.Context, out *row.Batch) (bool, error) {
	for len(r.records) > 0 && len(out.Rows) < out.Cap() {
		n, err := strconv.ParseInt(r.records[0], 10, 64)
		r.records = r.records[1:]
		if err != nil {
			r.skipped.Add(1)
			continue
		}
		out.Add(row.Insert, "", 1).Fields[0] = row.BigIntValue(n)
	}
	return len(r.records) == 0, nil
}
func (*parsingReader) SnapshotState(int64) ([]connector.Split, error) { return nil, nil }
func (*parsingReader) Close() error                                   { return nil }
func (r *parsingReader) RowsFailed() int64                            { return r.skipped.Load() }

func init() {
	connector.RegisterSource("ParsingSource", "Rows of the records that are numbers; the others skipped and counted.",
		func(_ *connector.SourceContext, o *parsingOptions) (connector.Source, error) {
			return parsingSource{records: o.Records}, nil
		})
}

// The records a source skipped are the task's failed rows: in the counters its reports
// carry to the pipeline, and in strait_source_rows_failed_total, which goes on from its last
// value when the pipeline is deployed again.
func TestFailedRowsAreCounted(t *testing.T) {
	console.SetOutput(io.Discard)
	const job = `
env { parallelism = 1 }
source { ParsingSource { plugin_output = "ids", records = ["1", "x", "2", "", "3", "4.5", "-1", "5"] } }
sink { Console { plugin_input = "ids" } }`
	c := &collect{}
	r := taskrunner.New(taskrunner.Config{ID: "r1", Slots: 2, BatchSize: 2}, c)
	defer r.Close()
	deployEpoch(t, r, c, job, 1)
	var final contract.Counters
	for _, s := range c.final() {
		final.Add(s.Counters)
	}
	// x, "" and 4.5 are no numbers
	if final.RowsRead != 5 || final.RowsWritten != 5 || final.RowsFailed != 3 {
		t.Fatalf("counters reported %+v, want 5 read, 5 written and 3 failed", final)
	}
	got := scrape(t, r)
	if ms := got["strait_source_rows_failed_total"]; len(ms) != 1 || labelNames(ms[0]) != "job,pipeline,runner,task" || value(ms[0]) != 3 {
		t.Fatalf("strait_source_rows_failed_total %v, want one series of the source task at 3", ms)
	}
	deployEpoch(t, r, c, job, 2)
	if n := sum(scrape(t, r)["strait_source_rows_failed_total"]); n != 6 {
		t.Fatalf("after a second deployment strait_source_rows_failed_total %v, want 6", n)
	}
}
