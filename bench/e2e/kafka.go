package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The Kafka comparison: Strait's jobs against a bare franz-go loop moving the same records
// through the same broker in the same run, on the same number of cores, printed side by side
// as a ratio. The records are JSON objects of about 100 bytes on a topic of one partition.
//
// What each side does, so the ratio compares like with like:
//
//	FakeSource → Kafka: the job generates rows, encodes each as JSON and produces it; the bare
//	  loop formats the same JSON text and produces it. Both wait for every acknowledgement.
//	Kafka → Console: the job fetches the partition from its start to the end offset seen at
//	  start, decodes each JSON value into a typed row and hands the rows to a sink that
//	  discards them; the bare loop fetches the same records and counts them.
//	Kafka → Kafka: the job fetches, checks each record against the schema and produces it;
//	  the bare loop fetches and produces each record's bytes unchanged. The input is in the
//	  json sink's own form, so the job passes each record on as it was read once checked; the
//	  last comparison reads records with spaces in them, which the job decodes into fields and
//	  encodes again. Both wait for every acknowledgement at the end; the AT_LEAST_ONCE job
//	  also flushes at its checkpoints, the EXACTLY_ONCE job writes in a transaction per
//	  checkpoint (every 5 s), which the bare loop does not: its target is lower for that (70 %
//	  against 80 %).
//
// Both sides' producers have the Kafka sink's settings (producerOpts) and both consumers the
// source's (consumerOpts): the same linger, batch size, compression, acks, idempotence and
// fetch sizes. A job's time is the one its runner reports (planning and start-up excluded).
// Each measurement alternates the bare loop and the job, run by run, so load that comes and
// goes on the machine falls on both; the medians of the runs are compared.

// producerOpts are the Kafka sink's producer settings when its kafka.config sets none:
// franz-go's defaults, spelt out so the bare loop cannot drift from the sink (linger 10 ms,
// batches up to Kafka's 1000012 bytes, snappy, acks from all in-sync replicas, idempotent,
// at most 50000 records buffered, the sticky key partitioner).
func producerOpts(addr, topic string) []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic), kgo.AllowAutoTopicCreation(),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)),
		kgo.ProducerLinger(10 * time.Millisecond), kgo.ProducerBatchMaxBytes(1000012),
		kgo.ProducerBatchCompression(kgo.SnappyCompression(), kgo.NoCompression()),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.MaxBufferedRecords(50000),
	}
}

// consumerOpts are the Kafka source's consumer settings: franz-go's default fetch sizes,
// control records kept (the reader steps over them itself), and the partition assigned
// directly at offset 0 as the source's enumerator assigns splits, without a group.
func consumerOpts(addr, topic string) []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(addr), kgo.KeepControlRecords(),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(0)}}),
	}
}

// kafkaRecord is the i-th record of the input topic, in the form the json sink writes its
// row (the schema's fields in order, no white space), so a Kafka → Kafka job passes it on as
// it was read.
func kafkaRecord(buf []byte, i int) []byte {
	return fmt.Appendf(buf, `{"id":%d,"name":"name-%07d","city":"Lisbon","score":%d.5,"active":%t,"note":"benchmark row"}`,
		i, i, i%1000, i%2 == 0)
}

// kafkaRecordSpaced is the same record with a space after each colon and comma, as many
// producers write JSON: the job reads it into fields and writes it again from them.
func kafkaRecordSpaced(buf []byte, i int) []byte {
	return fmt.Appendf(buf, `{"id": %d, "name": "name-%07d", "city": "Lisbon", "score": %d.5, "active": %t, "note": "benchmark row"}`,
		i, i, i%1000, i%2 == 0)
}

const kafkaSchema = `schema = { fields { id = bigint, name = string, city = string, score = double, active = boolean, note = string } }`

// kafkaFakeJob writes FakeSource's rows of the same schema to a topic.
const kafkaFakeJob = `env { job.mode = BATCH, parallelism = 1 }
source { FakeSource { plugin_output = "fake", row.num = %d, string.length = 12, ` + kafkaSchema + ` } }
sink { Kafka { plugin_input = "fake", bootstrap.servers = %q, topic = %q, semantics = AT_LEAST_ONCE } }
`

// kafkaReadJob reads a topic to its end and discards the rows.
const kafkaReadJob = `env { job.mode = BATCH, parallelism = 1 }
source { Kafka { plugin_output = "in", bootstrap.servers = %q, topic = %q, start_mode = earliest, commit_on_checkpoint = false,
  ` + kafkaSchema + ` } }
sink { Console { plugin_input = "in", log.print.data = false } }
`

// kafkaCopyJob copies a topic to another; %s is the sink's semantics and %s the env's extra.
const kafkaCopyJob = `env { job.mode = BATCH, parallelism = 1 %s }
source { Kafka { plugin_output = "in", bootstrap.servers = %q, topic = %q, start_mode = earliest, commit_on_checkpoint = false,
  ` + kafkaSchema + ` } }
sink { Kafka { plugin_input = "in", bootstrap.servers = %q, topic = %q, semantics = %s } }
`

var (
	kafkaRows = flag.Int("kafka-rows", 5_000_000, "records for the Kafka comparison (0 skips it)")
	kafkaRuns = flag.Int("kafka-runs", 3, "runs of each Kafka measurement, the median taken")
)

// kafkaBench runs the comparison against the broker STRAIT_TEST_KAFKA names.
func kafkaBench(bin, dir string, procs int) {
	rows := *kafkaRows
	if rows <= 0 {
		return
	}
	addr, tp, ok := brokerTopics("Kafka", "bench")
	if !ok {
		return
	}
	defer tp.close()
	adm, topic := tp.adm, tp.create

	fmt.Printf("Kafka (broker %s, one partition, %d JSON records of ~100 bytes, GOMAXPROCS=%d, median of %d runs; "+
		"Strait's job time against a bare franz-go loop of the same records):\n", addr, rows, procs, *kafkaRuns)
	in := topic("in")
	bareProduce(addr, in, rows, procs) // the inputs, written once
	spaced := topic("in_spaced")
	bareProduceOf(addr, spaced, rows, procs, kafkaRecordSpaced)
	// each run writes to a topic of its own, deleted after it
	once := func(f func(out string) float64) float64 {
		out := topic(fmt.Sprintf("out%d", time.Now().UnixNano()))
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			_, _ = adm.DeleteTopics(ctx, out)
			cancel()
		}()
		return f(out)
	}
	// pair runs the bare loop and the job alternately and returns their medians
	pair := func(bare, job func(out string) float64) (float64, float64) {
		var b, j []float64
		for range *kafkaRuns {
			b = append(b, once(bare))
			j = append(j, once(job))
		}
		return median(b), median(j)
	}
	produceSecs, fakeSecs := pair(
		func(out string) float64 { return bareProduce(addr, out, rows, procs) },
		func(out string) float64 { return kafkaJob(bin, dir, fmt.Sprintf(kafkaFakeJob, rows, addr, out), procs) })
	printRatio("FakeSource -> Kafka (AT_LEAST_ONCE)", "bare produce loop", rows, fakeSecs, produceSecs)

	consumeSecs, readSecs := pair(
		func(string) float64 { return bareConsume(addr, in, rows, procs) },
		func(string) float64 { return kafkaJob(bin, dir, fmt.Sprintf(kafkaReadJob, addr, in), procs) })
	printRatio("Kafka -> discarding sink", "bare consume loop", rows, readSecs, consumeSecs)

	for _, c := range []struct{ what, extra, from, semantics string }{
		{"Kafka -> Kafka (AT_LEAST_ONCE)", "", in, "AT_LEAST_ONCE"},
		{"Kafka -> Kafka (EXACTLY_ONCE, checkpoint every 5 s)", ", checkpoint.interval = 5000", in, "EXACTLY_ONCE"},
		// the records not in the sink's form: every one read into fields and written from them
		{"Kafka -> Kafka (AT_LEAST_ONCE), records re-encoded", "", spaced, "AT_LEAST_ONCE"},
	} {
		loopSecs, jobSecs := pair(
			func(out string) float64 { return bareCopy(addr, c.from, out, rows, procs) },
			func(out string) float64 {
				return kafkaJob(bin, dir, fmt.Sprintf(kafkaCopyJob, c.extra, addr, c.from, addr, out, c.semantics), procs)
			})
		printRatio(c.what, "bare consume-produce loop", rows, jobSecs, loopSecs)
	}
}

func printRatio(what, against string, rows int, secs, bare float64) {
	fmt.Printf("  %-52s %7.0f k rows/s | %-26s %7.0f k rows/s | %5.1f %%\n",
		what, float64(rows)/secs/1e3, against, float64(rows)/bare/1e3, 100*bare/secs)
}

func kafkaJob(bin, dir, text string, procs int) float64 {
	f := filepath.Join(dir, fmt.Sprintf("kafka-%d.conf", time.Now().UnixNano()))
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		fail(err)
	}
	return runJob(bin, f, procs).jobSecs
}

// onCores runs f with GOMAXPROCS set to procs, as the jobs run, and returns its seconds.
func onCores(procs int, f func() error) float64 {
	old := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(old)
	start := time.Now()
	if err := f(); err != nil {
		fail(err)
	}
	return time.Since(start).Seconds()
}

// bareProduce writes the records to topic with one client, acknowledged at the end.
func bareProduce(addr, topic string, rows, procs int) float64 {
	return bareProduceOf(addr, topic, rows, procs, kafkaRecord)
}

// brokerTopics is the address of the test broker STRAIT_TEST_KAFKA names and the topics of
// a measurement there, named after name; without a broker it says that what is not
// measured.
func brokerTopics(what, name string) (string, *topics, bool) {
	addr := os.Getenv("STRAIT_TEST_KAFKA")
	if addr == "" {
		fmt.Printf("%s: not measured (STRAIT_TEST_KAFKA is not set; scripts/kafka.sh start runs the test broker)\n", what)
		return "", nil, false
	}
	return addr, newTopics(addr, name), true
}

// firstErr keeps the first error its produce promise is handed.
type firstErr struct{ err error }

func (f *firstErr) promise(_ *kgo.Record, err error) {
	if err != nil && f.err == nil {
		f.err = err
	}
}

// bareProduceOf is bareProduce of the records record formats.
func bareProduceOf(addr, topic string, rows, procs int, record func([]byte, int) []byte) float64 {
	return onCores(procs, func() error {
		cl, err := kgo.NewClient(producerOpts(addr, topic)...)
		if err != nil {
			return err
		}
		defer cl.Close()
		var first firstErr
		ctx := context.Background()
		for i := range rows {
			cl.Produce(ctx, &kgo.Record{Value: record(nil, i)}, first.promise)
		}
		if err := cl.Flush(ctx); err != nil {
			return err
		}
		return first.err
	})
}

// bareConsume reads rows records of topic from its start.
func bareConsume(addr, topic string, rows, procs int) float64 {
	return onCores(procs, func() error {
		cl, err := kgo.NewClient(consumerOpts(addr, topic)...)
		if err != nil {
			return err
		}
		defer cl.Close()
		for n := 0; n < rows; {
			fs := cl.PollFetches(context.Background())
			if errs := fs.Errors(); len(errs) > 0 {
				return errs[0].Err
			}
			n += fs.NumRecords()
		}
		return nil
	})
}

// bareCopy reads rows records of in and writes them to out with one client each.
func bareCopy(addr, in, out string, rows, procs int) float64 {
	return bareCopyWith(addr, in, out, rows, procs, nil)
}

// bareCopyWith is bareCopy with each record's value made anew by conv (nil: as it was read).
func bareCopyWith(addr, in, out string, rows, procs int, conv func([]byte) ([]byte, error)) float64 {
	return onCores(procs, func() error {
		src, err := kgo.NewClient(consumerOpts(addr, in)...)
		if err != nil {
			return err
		}
		defer src.Close()
		dst, err := kgo.NewClient(producerOpts(addr, out)...)
		if err != nil {
			return err
		}
		defer dst.Close()
		var first firstErr
		ctx := context.Background()
		for n := 0; n < rows; {
			fs := src.PollFetches(ctx)
			if errs := fs.Errors(); len(errs) > 0 {
				return errs[0].Err
			}
			for it := fs.RecordIter(); !it.Done(); {
				r := it.Next()
				n++
				v := r.Value
				if conv != nil {
					if v, err = conv(v); err != nil {
						return fmt.Errorf("record %d: %w", r.Offset, err)
					}
				}
				dst.Produce(ctx, &kgo.Record{Key: r.Key, Value: v}, first.promise)
			}
		}
		if err := dst.Flush(ctx); err != nil {
			return err
		}
		return first.err
	})
}

// topics creates the benchmark's topics (one partition each) under a prefix of its run, and
// deletes them all at the end.
type topics struct {
	cl     *kgo.Client
	adm    *kadm.Client
	prefix string
	made   []string
}

func newTopics(addr, name string) *topics {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		fail(err)
	}
	return &topics{cl: cl, adm: kadm.NewClient(cl), prefix: fmt.Sprintf("%s_%d", name, time.Now().UnixNano())}
}

// create makes the topic prefix_name and returns its name.
func (tp *topics) create(name string) string {
	t := tp.prefix + "_" + name
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := tp.adm.CreateTopic(ctx, 1, 1, nil, t); err != nil {
		fail(fmt.Errorf("create topic %s: %w", t, err))
	}
	tp.made = append(tp.made, t)
	return t
}

// close deletes every topic made and closes the client.
func (tp *topics) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = tp.adm.DeleteTopics(ctx, tp.made...)
	tp.cl.Close()
}
