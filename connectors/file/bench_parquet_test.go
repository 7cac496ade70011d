package file

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strait-dev/strait/connectors/internal/conntest"
	pqfile "github.com/strait-dev/strait/connectors/internal/format/parquet"

	"github.com/parquet-go/parquet-go"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// benchRecord is benchTable's row for the bare loops.
type benchRecord struct {
	ID     int64   `json:"id" parquet:"id"`
	Name   string  `json:"name" parquet:"name"`
	Age    int32   `json:"age" parquet:"age"`
	Score  float64 `json:"score" parquet:"score"`
	Active bool    `json:"active" parquet:"active"`
	City   string  `json:"city" parquet:"city"`
}

func BenchmarkParquetSink(b *testing.B) { benchSink(b, "parquet") }

func BenchmarkParquetSource(b *testing.B) { benchSource(b, "parquet") }

// BenchmarkParquetJob is `make bench`'s comparison, on one core: 2 M rows json -> parquet
// and parquet -> json through LocalFile's source and sink, against a bare loop doing the
// same with the same libraries (encoding/json and parquet-go's generic reader and writer),
// and the peak heap of reading a large parquet file. Set STRAIT_PARQUET_JOB_BENCH=1 to run
// it; STRAIT_PARQUET_BENCH_MB sets the large file's size (default 256).
func BenchmarkParquetJob(b *testing.B) {
	if os.Getenv("STRAIT_PARQUET_JOB_BENCH") == "" {
		b.Skip("run by make bench (STRAIT_PARQUET_JOB_BENCH=1)")
	}
	const rows = 2_000_000
	dir := b.TempDir()
	jsonDir := benchFile(b, "json", rows)
	tbl := benchTable()
	ctx := context.Background()

	// json -> parquet
	start := time.Now()
	pqOut := filepath.Join(dir, "pq")
	copyJob(b, ctx, mustSource(b, srcConf(jsonDir, "file_format_type = json\n"+benchSchema)), mustSink(b, sinkConf(pqOut, "file_format_type = parquet"), tbl))
	straitToPQ := time.Since(start)
	start = time.Now()
	bareJSONToParquet(b, jsonDir, filepath.Join(dir, "bare.parquet"))
	bareToPQ := time.Since(start)

	// parquet -> json
	start = time.Now()
	copyJob(b, ctx, mustSource(b, srcConf(filepath.Join(pqOut, "out"), "file_format_type = parquet")), mustSink(b, sinkConf(filepath.Join(dir, "js"), "file_format_type = json"), tbl))
	straitToJSON := time.Since(start)
	start = time.Now()
	bareParquetToJSON(b, filepath.Join(dir, "bare.parquet"), filepath.Join(dir, "bare.json"))
	bareToJSON := time.Since(start)

	report := func(what string, strait, bare time.Duration) {
		s, l := rows/strait.Seconds(), rows/bare.Seconds()
		fmt.Printf("%s: strait %.0f rows/s, bare loop %.0f rows/s, ratio %.0f%%\n", what, s, l, 100*s/l)
		b.ReportMetric(100*s/l, what+"-%")
	}
	report("json->parquet", straitToPQ, bareToPQ)
	report("parquet->json", straitToJSON, bareToJSON)

	mb := 256
	if s := os.Getenv("STRAIT_PARQUET_BENCH_MB"); s != "" {
		mb, _ = strconv.Atoi(s)
	}
	size, peak, groups := peakReadingLargeFile(b, filepath.Join(dir, "large"), int64(mb)<<20)
	fmt.Printf("reading a %d MiB parquet file (%d row groups of up to %d MiB of data): peak heap %d MiB\n", size>>20, groups, pqfile.RowGroupBytes>>20, peak>>20)
	b.ReportMetric(float64(peak>>20), "peak-heap-MiB")
}

// copyJob runs a one-reader LocalFile job: every row of src into snk, committed.
func copyJob(b *testing.B, ctx context.Context, src *Source, snk *Sink) {
	r := readerOfAll(b, ctx, src)
	w, err := snk.CreateWriter(connector.WriterContext{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	batch := row.NewBatch(row.DefaultBatchSize)
	for done := false; !done; {
		batch.Reset()
		done = conntest.Poll(ctx, b, r, batch)
		if err := w.Write(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	r.Close()
	info, err := w.PrepareCommit(ctx, 1)
	if err != nil {
		b.Fatal(err)
	}
	w.Close(ctx)
	if err := conntest.Commit(b, snk, 1, info); err != nil {
		b.Fatal(err)
	}
}

func bareJSONToParquet(b *testing.B, jsonDir, out string) {
	f, err := os.Create(out)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := parquet.NewGenericWriter[benchRecord](f)
	buf := make([]benchRecord, 0, row.DefaultBatchSize)
	for name := range fileSizes(b, jsonDir) {
		in, err := os.Open(filepath.Join(jsonDir, name))
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var r benchRecord
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				b.Fatal(err)
			}
			if buf = append(buf, r); len(buf) == cap(buf) {
				if _, err := w.Write(buf); err != nil {
					b.Fatal(err)
				}
				buf = buf[:0]
			}
		}
		in.Close()
	}
	if _, err := w.Write(buf); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

func bareParquetToJSON(b *testing.B, in, out string) {
	f, err := os.Open(in)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	o, err := os.Create(out)
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	bw := bufio.NewWriterSize(o, writeBufferSize)
	r := parquet.NewGenericReader[benchRecord](f)
	buf := make([]benchRecord, row.DefaultBatchSize)
	var line []byte
	for {
		n, err := r.Read(buf)
		for i := 0; i < n; i++ {
			line, _ = json.Marshal(&buf[i])
			bw.Write(line)
			bw.WriteByte('\n')
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	bw.Flush()
}

// peakReadingLargeFile writes a parquet file of about size bytes with the sink and reads it
// with the source, sampling the live heap; the peak is bounded by a row group, not the file.
func peakReadingLargeFile(b *testing.B, dir string, size int64) (fileSize, peak int64, groups int) {
	tbl := benchTable()
	// one file: batch_size would roll to a new file every million rows, short of size
	s := mustSink(b, sinkConf(dir, "file_format_type = parquet\nbatch_size = 1000000000"), tbl)
	ctx := context.Background()
	w, _ := s.CreateWriter(connector.WriterContext{}, nil)
	batch := benchBatch(tbl, row.DefaultBatchSize)
	for written := int64(0); ; written += int64(batch.Len()) {
		if err := w.Write(ctx, batch); err != nil {
			b.Fatal(err)
		}
		if of := w.(*writer).single; of != nil && written%(1<<16) == 0 {
			if st, err := os.Stat(of.staged); err == nil && st.Size() >= size {
				break
			}
		}
	}
	info, err := w.PrepareCommit(ctx, 1)
	if err != nil {
		b.Fatal(err)
	}
	w.Close(ctx)
	c, _ := s.CreateCommitter()
	if err := c.Commit(ctx, connector.CommitRequest{CheckpointID: 1, Final: true, Infos: [][]byte{info}}); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for name := range fileSizes(b, out) {
		st, _ := os.Stat(filepath.Join(out, name))
		fileSize += st.Size()
		f, _ := os.Open(filepath.Join(out, name))
		n, err := pqfile.RowGroups(f, st.Size())
		if err != nil {
			b.Fatal(err)
		}
		groups += n
		f.Close()
	}
	runtime.GC()
	runtime.GC() // and the writer's pooled buffers, which the first collection only moves aside
	var stop atomic.Bool
	var max atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for !stop.Load() {
			metrics.Read(sample)
			if v := int64(sample[0].Value.Uint64()); v > max.Load() {
				max.Store(v)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	src := mustSource(b, srcConf(out, "file_format_type = parquet"))
	r := readerOfAll(b, ctx, src)
	rb := row.NewBatch(row.DefaultBatchSize)
	for done := false; !done; {
		rb.Reset()
		done = conntest.Poll(ctx, b, r, rb)
	}
	r.Close()
	stop.Store(true)
	<-done
	return fileSize, max.Load(), groups
}

// fileSizes lists the files under dir without reading them.
func fileSizes(b *testing.B, dir string) map[string]int64 {
	out := map[string]int64{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && !e.IsDir() {
			out[e.Name()] = info.Size()
		}
	}
	return out
}
