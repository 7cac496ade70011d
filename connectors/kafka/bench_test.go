package kafka

import (
	"context"
	"fmt"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// benchType is the row of the benchmarks: about 100 bytes as JSON.
var benchType = &types.RowType{
	Names: []string{"id", "name", "city", "score", "active", "note"},
	Types: []types.DataType{types.Of(types.BigInt), types.Of(types.String), types.Of(types.String),
		types.Of(types.Double), types.Of(types.Boolean), types.Of(types.String)},
}

func benchFields(i int64) []row.Value {
	return []row.Value{row.BigIntValue(i), row.StringValue("name-0001234"), row.StringValue("Lisbon"),
		row.DoubleValue(12.5), row.BoolValue(i%2 == 0), row.StringValue("benchmark row")}
}

// benchDecode decodes one record b.N times into batches of 1024 rows, as a reader does.
func benchDecode(b *testing.B, dec decoder, rec []byte) {
	out := row.NewBatch(1024)
	defer out.Release()
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if out.Full() {
			out.Reset()
		}
		if _, err := dec.decode(rec, "t", out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, format := range []string{formatJSON, formatText, formatAvro, "debezium_json"} {
		b.Run(format, func(b *testing.B) {
			enc, err := newEncoder(format, ",", benchType)
			if err != nil {
				b.Fatal(err)
			}
			rec, err := enc.encode(nil, row.Insert, benchFields(1234567))
			if err != nil {
				b.Fatal(err)
			}
			dec, err := newDecoder(format, ",", benchType, false)
			if err != nil {
				b.Fatal(err)
			}
			benchDecode(b, dec, rec)
		})
	}
}

// BenchmarkSinkRecord: the sink's work per row before the client takes the record: its
// topic, key and value encoded into a record.
func BenchmarkSinkRecord(b *testing.B) {
	for _, format := range []string{formatJSON, formatText, formatAvro, "canal_json"} {
		b.Run(format, func(b *testing.B) {
			in := catalog.FromRowType(catalog.TablePath{Table: "t"}, benchType)
			f, _, _ := connector.LookupSink("Kafka")
			s, err := f(&connector.SinkContext{Context: context.Background(), Job: connector.Job{ID: 1},
				Options: pluginOptionsAt(b, "bootstrap.servers = b\ntopic = out\npartition_key_fields = [id]\nformat = "+format, "sink[0] Kafka"),
				Inputs:  []*catalog.Table{in}})
			if err != nil {
				b.Fatal(err)
			}
			sink := s.(*Sink)
			r := &row.Row{Kind: row.Insert, Table: in.ID(), Fields: benchFields(1234567)}
			tc := sink.codecOf(r.Table)
			b.ReportAllocs()
			for b.Loop() {
				rec := sink.newRecord()
				if err := sink.record(tc, r, rec); err != nil {
					b.Fatal(err)
				}
				sink.recycle(rec)
			}
		})
	}
}

// BenchmarkCopy reads b.N JSON records of one partition with the source's reader and writes
// them with an AT_LEAST_ONCE writer, as a fused Kafka → Kafka job does (run with
// -cpuprofile to see where a row's time goes).
func BenchmarkCopy(b *testing.B) {
	addr := testBroker(b)
	in, out := newTopic(b, addr, 1), newTopic(b, addr, 1)
	var vals []string
	for i := range b.N {
		rec, _ := (&jsonEncoder{rt: benchType}).encode(nil, row.Insert, benchFields(int64(i)))
		vals = append(vals, string(rec))
		if len(vals) == 10000 || i == b.N-1 {
			produce(b, addr, in, 0, vals...)
			vals = vals[:0]
		}
	}
	src := mustSource(b, connector.Batch, 1, fmt.Sprintf(`bootstrap.servers = %q
topic = %q
start_mode = earliest
commit_on_checkpoint = false
schema = { fields { id = bigint, name = string, city = string, score = double, active = boolean, note = string } }`, addr, in))
	in2 := catalog.FromRowType(catalog.TablePath{Table: "t"}, benchType)
	f, _, _ := connector.LookupSink("Kafka")
	s, err := f(&connector.SinkContext{Context: context.Background(), Job: connector.Job{ID: 1, Mode: connector.Batch},
		Options: pluginOptionsAt(b, fmt.Sprintf("bootstrap.servers = %q\ntopic = %q\nsemantics = AT_LEAST_ONCE", addr, out), "sink[0] Kafka"),
		Inputs:  []*catalog.Table{in2}})
	if err != nil {
		b.Fatal(err)
	}
	w := mustWriter(b, s, 0, 1, nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	err = conntest.ReadAll(ctx, src, connector.Job{ID: 1, Mode: connector.Batch}, 1, 1024, func(_ int, batch *row.Batch) error {
		for i := range batch.Rows {
			batch.Rows[i].Table = in2.ID()
		}
		return w.Write(ctx, batch)
	})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.PrepareCommit(ctx, 1); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if err := w.Close(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRead reads b.N JSON records of one partition with the source's reader into
// batches, as the Kafka → Console job does.
func BenchmarkRead(b *testing.B) {
	addr := testBroker(b)
	in := newTopic(b, addr, 1)
	var vals []string
	for i := range b.N {
		rec, _ := (&jsonEncoder{rt: benchType}).encode(nil, row.Insert, benchFields(int64(i)))
		vals = append(vals, string(rec))
		if len(vals) == 10000 || i == b.N-1 {
			produce(b, addr, in, 0, vals...)
			vals = vals[:0]
		}
	}
	src := mustSource(b, connector.Batch, 1, fmt.Sprintf(`bootstrap.servers = %q
topic = %q
start_mode = earliest
commit_on_checkpoint = false
schema = { fields { id = bigint, name = string, city = string, score = double, active = boolean, note = string } }`, addr, in))
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	err := conntest.ReadAll(context.Background(), src, connector.Job{ID: 1, Mode: connector.Batch}, 1, 1024, func(_ int, batch *row.Batch) error {
		n += batch.Len()
		return nil
	})
	if err != nil || n != b.N {
		b.Fatalf("%d rows read, want %d: %v", n, b.N, err)
	}
}
