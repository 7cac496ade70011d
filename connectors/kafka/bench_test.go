package kafka

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

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

// benchRecord is the insert of the row benchFields(1234567) encoded in format.
func benchRecord(t testing.TB, format string) []byte {
	t.Helper()
	rec, err := mustEncoder(t, format, benchType).encode(nil, row.Insert, benchFields(1234567))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func BenchmarkDecode(b *testing.B) {
	for _, format := range []string{formatJSON, formatText, formatAvro, "debezium_json"} {
		b.Run(format, func(b *testing.B) {
			benchDecode(b, mustDecoder(b, format, benchType), benchRecord(b, format))
		})
	}
}

// benchRecordSink is a sink of benchType's table writing format, offline, with a row of
// benchFields and the sink's codec of its table.
func benchRecordSink(t testing.TB, format string) (*Sink, *row.Row, *tableCodec) {
	t.Helper()
	in := catalog.FromRowType(catalog.TablePath{Table: "t"}, benchType)
	s, _, err := conntest.BuildSinkIn(t, "Kafka", "bootstrap.servers = b\ntopic = out\npartition_key_fields = [id]\nformat = "+format,
		connector.SinkContext{Job: connector.Job{ID: 1}, Inputs: []*catalog.Table{in}})
	if err != nil {
		t.Fatal(err)
	}
	sink := s.(*Sink)
	r := &row.Row{Kind: row.Insert, Table: in.ID(), Fields: benchFields(1234567)}
	return sink, r, sink.codecOf(r.Table)
}

// BenchmarkSinkRecord: the sink's work per row before the client takes the record: its
// topic, key and value encoded into a record.
func BenchmarkSinkRecord(b *testing.B) {
	for _, format := range []string{formatJSON, formatText, formatAvro, "canal_json"} {
		b.Run(format, func(b *testing.B) {
			sink, r, tc := benchRecordSink(b, format)
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

// The benchmarks below pair each connector path with franz-go doing the same broker work
// alone, with the connector's own client settings, so the difference is the connector's cost:
//
//	BenchmarkRead  / BenchmarkBareConsume: read n records of one partition from its start;
//	               the reader also decodes each JSON value into a row of a batch.
//	BenchmarkWrite / BenchmarkBareProduce: send n rows and wait for their acknowledgement;
//	               the writer also encodes each row into a JSON value.
//	BenchmarkCopy  / BenchmarkBareCopy:    both, as a fused Kafka → Kafka job does; the bare
//	               loop hands each record's bytes on unchanged.
//
// Run with -cpuprofile to see where a row's time goes.

// benchInput fills a topic of one partition with n JSON records of benchType.
func benchInput(b *testing.B, addr string, n int) string {
	in := newTopic(b, addr, 1)
	var vals []string
	for i := range n {
		rec, _ := newJSONEncoder(benchType).encode(nil, row.Insert, benchFields(int64(i)))
		vals = append(vals, string(rec))
		if len(vals) == 10000 || i == n-1 {
			produce(b, addr, in, 0, vals...)
			vals = vals[:0]
		}
	}
	return in
}

// benchSource is the Kafka source reading topic in from its start in BATCH mode.
func benchSource(b *testing.B, addr, in string) *Source {
	return mustSource(b, connector.Batch, 1, fmt.Sprintf(`bootstrap.servers = %q
topic = %q
start_mode = earliest
commit_on_checkpoint = false
schema = { fields { id = bigint, name = string, city = string, score = double, active = boolean, note = string } }`, addr, in)).(*Source)
}

// benchSink is an AT_LEAST_ONCE Kafka sink writing benchType's rows to topic out.
func benchSink(b *testing.B, addr, out string) (*Sink, *catalog.Table) {
	in := catalog.FromRowType(catalog.TablePath{Table: "t"}, benchType)
	f, _, _ := connector.LookupSink("Kafka")
	s, err := f(&connector.SinkContext{Context: context.Background(), Job: connector.Job{ID: 1, Mode: connector.Batch},
		Options: conntest.Options(b, fmt.Sprintf("bootstrap.servers = %q\ntopic = %q\nsemantics = AT_LEAST_ONCE", addr, out), "sink[0] Kafka"),
		Inputs:  []*catalog.Table{in}})
	if err != nil {
		b.Fatal(err)
	}
	return s.(*Sink), in
}

// bareConsumer is a franz-go client with the source reader's settings, reading partition 0
// of topic from its start.
func bareConsumer(b *testing.B, src *Source, topic string) *kgo.Client {
	opts := append([]kgo.Opt{kgo.KeepControlRecords()}, src.client.opts...)
	opts = append(opts, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(0)}}))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cl.Close)
	return cl
}

// bareProducer is the sink's own producer: its client, settings and promise.
func bareProducer(b *testing.B, s *Sink) *producer {
	p, err := newProducer(s)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.cl.Close)
	return p
}

// pollAll polls cl until n records were seen, calling each for every record.
func pollAll(b *testing.B, cl *kgo.Client, n int, each func(*kgo.Record)) {
	ctx := context.Background()
	for seen := 0; seen < n; {
		fs := cl.PollFetches(ctx)
		if err := fetchError(fs); err != nil {
			b.Fatal(err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			seen++
			each(r)
		})
	}
}

func BenchmarkCopy(b *testing.B) {
	addr := testBroker(b)
	in, out := benchInput(b, addr, b.N), newTopic(b, addr, 1)
	src := benchSource(b, addr, in)
	s, table := benchSink(b, addr, out)
	w := mustWriter(b, s, 0, 1, nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	err := conntest.ReadAll(ctx, src, connector.Job{ID: 1, Mode: connector.Batch}, 1, 1024, func(_ int, batch *row.Batch) error {
		for i := range batch.Rows {
			batch.Rows[i].Table = table.ID()
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

func BenchmarkBareCopy(b *testing.B) {
	addr := testBroker(b)
	in, out := benchInput(b, addr, b.N), newTopic(b, addr, 1)
	s, _ := benchSink(b, addr, out)
	p := bareProducer(b, s)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cl := bareConsumer(b, benchSource(b, addr, in), in)
	pollAll(b, cl, b.N, func(r *kgo.Record) {
		rec := s.newRecord()
		rec.Topic, rec.Value = out, append(rec.Value, r.Value...)
		p.cl.Produce(ctx, rec, p.promise)
	})
	if err := p.flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// benchStart writes b.N records to a new topic and returns a source of BATCH mode reading
// them and the topic, with the timer reset.
func benchStart(b *testing.B) (*Source, string) {
	b.Helper()
	addr := testBroker(b)
	in := benchInput(b, addr, b.N)
	src := benchSource(b, addr, in)
	b.ReportAllocs()
	b.ResetTimer()
	return src, in
}

// BenchmarkRead reads b.N JSON records of one partition with the source's reader into
// batches, as the Kafka → Console job does.
func BenchmarkRead(b *testing.B) {
	src, _ := benchStart(b)
	n := 0
	err := conntest.ReadAll(context.Background(), src, connector.Job{ID: 1, Mode: connector.Batch}, 1, 1024, func(_ int, batch *row.Batch) error {
		n += batch.Len()
		return nil
	})
	if err != nil || n != b.N {
		b.Fatalf("%d rows read, want %d: %v", n, b.N, err)
	}
}

func BenchmarkBareConsume(b *testing.B) {
	src, in := benchStart(b)
	bytes := 0
	pollAll(b, bareConsumer(b, src, in), b.N, func(r *kgo.Record) { bytes += len(r.Value) })
	if bytes == 0 {
		b.Fatal("no bytes read")
	}
}

// BenchmarkWrite writes b.N rows in batches of 1024 with an AT_LEAST_ONCE writer and waits
// for them, as a job's sink does at its checkpoint.
func BenchmarkWrite(b *testing.B) {
	addr := testBroker(b)
	s, table := benchSink(b, addr, newTopic(b, addr, 1))
	w := mustWriter(b, s, 0, 1, nil)
	defer func() { _ = w.Close(context.Background()) }()
	batch := row.NewBatch(1024)
	defer batch.Release()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	fields := benchFields(0)
	for i := 0; i < b.N; {
		batch.Reset()
		for ; i < b.N && !batch.Full(); i++ {
			fields[0] = row.BigIntValue(int64(i))
			batch.AddRow(&row.Row{Kind: row.Insert, Table: table.ID(), Fields: fields})
		}
		if err := w.Write(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.PrepareCommit(ctx, 1); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkBareProduce(b *testing.B) {
	addr := testBroker(b)
	out := newTopic(b, addr, 1)
	s, _ := benchSink(b, addr, out)
	p := bareProducer(b, s)
	val, _ := newJSONEncoder(benchType).encode(nil, row.Insert, benchFields(1234567))
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rec := s.newRecord()
		rec.Topic, rec.Value = out, append(rec.Value, val...)
		p.cl.Produce(ctx, rec, p.promise)
	}
	if err := p.flush(ctx); err != nil {
		b.Fatal(err)
	}
}
