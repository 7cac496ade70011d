package file

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/row"
)

// fuzzFormat feeds arbitrary files to a record format's reader: it reads rows or returns an
// error, never panics.
func fuzzFormat(f *testing.F, fileFormat, schema string) {
	tbl, vals := allTypes()
	dir := f.TempDir()
	s := mustSink(f, sinkConf(dir, "file_format_type = "+fileFormat), tbl)
	writeAll(f, s, batchOf(tbl, parquetValues(vals), parquetValues(vals)))
	for name, content := range files(f, filepath.Join(dir, "out")) {
		_ = name
		f.Add([]byte(content))
	}
	src := mustSource(f, srcConf(filepath.Join(dir, "out"), "file_format_type = "+fileFormat+"\n"+schema+schemaOf(tbl)))
	f.Fuzz(func(t *testing.T, data []byte) {
		rr, err := src.cfg.records.Open(bytes.NewReader(data), int64(len(data)), "fuzz", format.Split{})
		if err != nil {
			return
		}
		defer rr.Close()
		for i := 0; i < 100; i++ {
			b := row.NewBatch(16)
			done, err := rr.Next(context.Background(), b)
			b.Release()
			if err != nil || done {
				return
			}
		}
	})
}

func FuzzParquetRead(f *testing.F) { fuzzFormat(f, "parquet", "") }

func FuzzExcelRead(f *testing.F) { fuzzFormat(f, "excel", "skip_header_row_number = 1\n") }
