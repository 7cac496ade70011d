package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"
)

// The Iceberg and Http sinks beside the libraries alone doing the same work:
//
//	Iceberg: FakeSource → Iceberg (a Hadoop catalog in a local folder, Parquet, one snapshot
//	  at the end of the batch job) against iceberg-go's own Table.Append of the same number of
//	  rows of the same six columns, built as Arrow records of 1,024 rows;
//	Http: FakeSource → Http (a POST of each row as a JSON object, as SeaTunnel's sink does) to
//	  a server in this process that reads and counts the bodies, against a net/http loop
//	  POSTing the same documents one after another on a kept-alive connection.

func lakeBench(bin, dir string, procs int) {
	rows := *sinkRows
	if rows <= 0 {
		return
	}
	fmt.Printf("Iceberg and Http sinks against the libraries alone, %d rows of 6 fields, GOMAXPROCS=%d, median of 3 runs:\n", rows, procs)
	job := func(sink string) float64 {
		f := filepath.Join(dir, fmt.Sprintf("lake-%d.conf", time.Now().UnixNano()))
		writeFile(f, fmt.Sprintf(`env { job.mode = BATCH, parallelism = 1 }
source { FakeSource { plugin_output = "t", row.num = %d, string.length = 12, %s } }
sink { %s }
`, rows, kafkaSchema, sink))
		return runJob(bin, f, procs).jobSecs
	}
	measure := func(name, anchor string, bare, strait func() float64, note string) {
		var b, s []float64
		for range 3 {
			b = append(b, bare())
			s = append(s, strait())
		}
		results.add(comparison{Section: "sinks", Name: name, Rows: rows, Secs: median(s), Anchor: anchor,
			AnchorSecs: median(b), Runs: 3, Note: note})
	}

	n := 0
	warehouse := func() string {
		n++
		w := filepath.Join(dir, fmt.Sprintf("warehouse-%d", n))
		if err := os.MkdirAll(w, 0o755); err != nil {
			fail(err)
		}
		return w
	}
	measure("FakeSource -> Iceberg (Hadoop catalog, local)", "iceberg-go Table.Append",
		func() float64 { w := warehouse(); defer os.RemoveAll(w); return bareIceberg(w, rows, procs) },
		func() float64 {
			w := warehouse()
			defer os.RemoveAll(w)
			return job(fmt.Sprintf(`Iceberg { plugin_input = "t", catalog_name = bench, namespace = bench, table = rows,
  iceberg.catalog.config = { type = hadoop, warehouse = %q } }`, "file://"+w))
		}, "job time, the rows generated too; one snapshot")

	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err == nil {
			got.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	counted := func(f func() float64) func() float64 {
		return func() float64 {
			got.Store(0)
			secs := f()
			if got.Load() != int64(rows) {
				fail(fmt.Errorf("http: the server took %d requests, want %d", got.Load(), rows))
			}
			return secs
		}
	}
	measure("FakeSource -> Http (a POST a row)", "net/http POST loop",
		counted(func() float64 { return barePosts(srv.URL, rows, procs) }),
		counted(func() float64 {
			return job(fmt.Sprintf(`Http { plugin_input = "t", url = %q }`, srv.URL))
		}), "job time, the rows generated too")
}

// bareIceberg creates a table of the six columns in a Hadoop catalog in warehouse and appends
// rows rows to it in one snapshot, from Arrow records of 1,024 rows.
func bareIceberg(warehouse string, rows, procs int) float64 {
	ctx := context.Background()
	cat, err := hadoop.NewCatalog("bench", "file://"+warehouse, iceberg.Properties{})
	if err != nil {
		fail(err)
	}
	if err := cat.CreateNamespace(ctx, table.Identifier{"bench"}, nil); err != nil {
		fail(err)
	}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "city", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 4, Name: "score", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 5, Name: "active", Type: iceberg.PrimitiveTypes.Bool},
		iceberg.NestedField{ID: 6, Name: "note", Type: iceberg.PrimitiveTypes.String})
	tbl, err := cat.CreateTable(ctx, table.Identifier{"bench", "rows"}, sc)
	if err != nil {
		fail(err)
	}
	as := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "active", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	return onCores(procs, func() error {
		var recs []arrow.RecordBatch
		b := array.NewRecordBuilder(memory.DefaultAllocator, as)
		defer b.Release()
		for i := 0; i < rows; {
			for end := min(i+1024, rows); i < end; i++ {
				b.Field(0).(*array.Int64Builder).Append(int64(i))
				b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("name-%07d", i))
				b.Field(2).(*array.StringBuilder).Append("Lisbon")
				b.Field(3).(*array.Float64Builder).Append(float64(i%1000) + 0.5)
				b.Field(4).(*array.BooleanBuilder).Append(i%2 == 0)
				b.Field(5).(*array.StringBuilder).Append("benchmark row")
			}
			recs = append(recs, b.NewRecordBatch())
		}
		rdr, err := array.NewRecordReader(as, recs)
		if err != nil {
			return err
		}
		defer rdr.Release()
		_, err = tbl.Append(ctx, rdr, nil)
		for _, r := range recs {
			r.Release()
		}
		return err
	})
}

// barePosts POSTs rows JSON documents to url one after another.
func barePosts(url string, rows, procs int) float64 {
	var doc []byte
	return onCores(procs, func() error {
		for i := range rows {
			doc = kafkaRecord(doc[:0], i)
			resp, err := http.Post(url, "application/json", strings.NewReader(string(doc)))
			if err != nil {
				return err
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("POST %s: %s", url, resp.Status)
			}
		}
		return nil
	})
}
