package kafka

import (
	"testing"

	"github.com/strait-dev/strait/row"
)

// The json and change formats read a record into a batch's row, and the sink writes a row into
// a record, with no allocation per record: a string's text goes to an arena chunk many
// records share, the change formats' envelopes to scratch storage the next record reuses, and
// the sink's records come from a pool. This counts allocations (not time): one that appears
// per record fails here, and BenchmarkDecode and BenchmarkSinkRecord show its cost.
var allocFreeFormats = []string{formatJSON, "debezium_json", "canal_json", "maxwell_json", "ogg_json"}

func TestDecodeAllocatesNothingPerRecord(t *testing.T) {
	for _, format := range allocFreeFormats {
		t.Run(format, func(t *testing.T) {
			rec := benchRecord(t, format)
			dec := mustDecoder(t, format, benchType)
			out := row.NewBatch(1024)
			defer out.Release()
			decode := func() {
				if out.Full() {
					out.Reset()
				}
				if _, err := dec.decode(rec, "t", out); err != nil {
					t.Fatal(err)
				}
			}
			for range 2048 { // the arena and the batch's rows made once
				decode()
			}
			if n := testing.AllocsPerRun(4096, decode); n > 0 {
				t.Errorf("%s: %.0f allocations a record, want none", format, n)
			}
		})
	}
}

func TestSinkRecordAllocatesNothingPerRow(t *testing.T) {
	for _, format := range allocFreeFormats {
		t.Run(format, func(t *testing.T) {
			sink, r, tc := benchRecordSink(t, format)
			write := func() {
				rec := sink.newRecord()
				if err := sink.record(tc, r, rec); err != nil {
					t.Fatal(err)
				}
				sink.recycle(rec)
			}
			for range 64 {
				write()
			}
			if n := testing.AllocsPerRun(4096, write); n > 0 {
				t.Errorf("%s: %.0f allocations a row, want none", format, n)
			}
		})
	}
}
