package file

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

// benchTable has rows of about 100 bytes in JSON:
// {"id":1000042,"name":"user_1000042","age":42,"score":1042.5,"active":true,"city":"Amsterdam"}
func benchTable() *catalog.Table {
	return table("bench", "id", "bigint", "name", "string", "age", "int", "score", "double", "active", "boolean", "city", "string")
}

const benchSchema = "schema { fields { id = bigint, name = string, age = int, score = double, active = boolean, city = string } }"

func benchBatch(tbl *catalog.Table, n int) *row.Batch {
	b := row.NewBatch(n)
	for i := 0; i < n; i++ {
		id := int64(1_000_000 + i)
		r := b.Add(row.Insert, tbl.ID(), 6)
		r.Fields[0] = row.BigIntValue(id)
		r.Fields[1] = row.StringValue("user_" + strconv.FormatInt(id, 10))
		r.Fields[2] = row.IntValue(int32(i % 100))
		r.Fields[3] = row.DoubleValue(float64(i%1000) + 1000.5)
		r.Fields[4] = row.BoolValue(i%2 == 0)
		r.Fields[5] = row.StringValue("Amsterdam")
	}
	return b
}

func benchSink(b *testing.B, format string) {
	dir := b.TempDir()
	tbl := benchTable()
	s := mustSink(b, sinkConf(dir, "file_format_type = "+format), tbl)
	batch := benchBatch(tbl, row.DefaultBatchSize)
	ctx := context.Background()
	w, err := s.CreateWriter(connector.WriterContext{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; {
		part := batch
		if left := b.N - n; left < batch.Len() {
			part = row.NewBatch(left)
			part.Rows = append(part.Rows, batch.Rows[:left]...)
		}
		if err := w.Write(ctx, part); err != nil {
			b.Fatal(err)
		}
		n += part.Len()
	}
	info, err := w.PrepareCommit(ctx, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	var size int64
	ci := decodeInfo(b, info)
	for _, m := range ci.Moves {
		if st, err := os.Stat(m.From); err == nil {
			size += st.Size()
		}
	}
	b.ReportMetric(float64(size)/float64(b.N), "bytes/row")
	w.Close(ctx)
	c, _ := s.CreateCommitter()
	c.Abort(ctx, [][]byte{info})
}

func BenchmarkJSONSink(b *testing.B) { benchSink(b, "json") }
func BenchmarkTextSink(b *testing.B) { benchSink(b, "text") }

// benchFile writes rows rows with the sink and returns the folder holding them.
func benchFile(b *testing.B, format string, rows int) string {
	dir := b.TempDir()
	tbl := benchTable()
	s := mustSink(b, sinkConf(dir, "file_format_type = "+format), tbl)
	batch := benchBatch(tbl, row.DefaultBatchSize)
	var batches []*row.Batch
	for n := 0; n < rows; n += batch.Len() {
		batches = append(batches, batch)
	}
	writeAll(b, s, batches...)
	return filepath.Join(dir, "out")
}

func benchSource(b *testing.B, format string) {
	const fileRows = 200 * row.DefaultBatchSize
	dir := benchFile(b, format, fileRows)
	src := mustSource(b, srcConf(dir, "file_format_type = "+format+"\n"+benchSchema))
	ctx := context.Background()
	batch := row.NewBatch(row.DefaultBatchSize)
	b.ReportAllocs()
	b.ResetTimer()
	read := readRepeatedly(b, ctx, src, batch, func(*row.Batch) {})
	b.StopTimer()
	b.ReportMetric(float64(read)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkJSONSource(b *testing.B) { benchSource(b, "json") }
func BenchmarkTextSource(b *testing.B) { benchSource(b, "text") }

// BenchmarkJSONToJSON is a LocalFile json -> LocalFile json job on one goroutine.
func BenchmarkJSONToJSON(b *testing.B) {
	const fileRows = 200 * row.DefaultBatchSize
	dir := benchFile(b, "json", fileRows)
	src := mustSource(b, srcConf(dir, "file_format_type = json\n"+benchSchema))
	out := b.TempDir()
	s := mustSink(b, sinkConf(out, "file_format_type = json"), src.Tables()[0])
	ctx := context.Background()
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	batch := row.NewBatch(row.DefaultBatchSize)
	b.ReportAllocs()
	b.ResetTimer()
	read := readRepeatedly(b, ctx, src, batch, func(batch *row.Batch) {
		if err := w.Write(ctx, batch); err != nil {
			b.Fatal(err)
		}
	})
	info, err := w.PrepareCommit(ctx, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(read)/b.Elapsed().Seconds(), "rows/s")
	w.Close(ctx)
	c, _ := s.CreateCommitter()
	c.Abort(ctx, [][]byte{info})
}

// readRepeatedly reads src from its start again and again, into batch, until b.N rows are
// read, handing each batch read to each; it returns the rows read.
func readRepeatedly(b *testing.B, ctx context.Context, src *Source, batch *row.Batch, each func(*row.Batch)) int {
	b.Helper()
	read := 0
	for read < b.N {
		r := readerOfAll(b, ctx, src)
		for read < b.N {
			batch.Reset()
			done := conntest.Poll(ctx, b, r, batch)
			each(batch)
			read += batch.Len()
			if done {
				break
			}
		}
		r.Close()
	}
	return read
}

// readerOfAll is a reader of every split of src, planned by an enumerator of one reader.
func readerOfAll(t testing.TB, ctx context.Context, src *Source) connector.Reader {
	t.Helper()
	ec := connNoopEnum()
	conntest.RunEnumerator(ctx, t, src, ec, nil)
	return conntest.OpenReader(t, src, connector.ReaderContext{}, ec.splits)
}

// noopEnum collects the splits of one reader.
type noopEnum struct{ splits []connector.Split }

func connNoopEnum() *noopEnum                          { return &noopEnum{} }
func (e *noopEnum) Parallelism() int                   { return 1 }
func (e *noopEnum) RegisteredReaders() []int           { return []int{0} }
func (e *noopEnum) Assign(_ int, s ...connector.Split) { e.splits = append(e.splits, s...) }
func (e *noopEnum) SignalNoMoreSplits(int)             {}
