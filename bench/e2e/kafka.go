package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The Kafka comparison: Strait's jobs against a bare franz-go loop moving the same records
// through the same broker in the same run, on the same number of cores, printed side by side
// as a ratio. The records are JSON objects of about 100 bytes on a topic of one partition.

// kafkaRecord is the i-th record of the input topic.
func kafkaRecord(buf []byte, i int) []byte {
	return fmt.Appendf(buf, `{"id":%d,"name":"name-%07d","city":"Lisbon","score":%d.5,"active":%t,"note":"benchmark row"}`,
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
	kafkaRows = flag.Int("kafka-rows", 2_000_000, "records for the Kafka comparison (0 skips it)")
	kafkaRuns = flag.Int("kafka-runs", 3, "runs of each Kafka measurement, the median taken")
)

// kafkaBench runs the comparison against the broker STRAIT_TEST_KAFKA names.
func kafkaBench(bin, dir string, procs int) {
	rows := *kafkaRows
	if rows <= 0 {
		return
	}
	addr := os.Getenv("STRAIT_TEST_KAFKA")
	if addr == "" {
		fmt.Println("Kafka: not measured (STRAIT_TEST_KAFKA is not set; scripts/kafka.sh start runs the test broker)")
		return
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		fail(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	run := fmt.Sprintf("bench_%d", time.Now().UnixNano())
	topic := func(name string) string {
		t := run + "_" + name
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, t); err != nil {
			fail(fmt.Errorf("create topic %s: %w", t, err))
		}
		return t
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		topics, _ := adm.ListTopics(ctx)
		var mine []string
		for _, t := range topics.Names() {
			if strings.HasPrefix(t, run) {
				mine = append(mine, t)
			}
		}
		_, _ = adm.DeleteTopics(ctx, mine...)
	}()

	fmt.Printf("Kafka (broker %s, one partition, %d JSON records of ~100 bytes, GOMAXPROCS=%d, median of %d runs; "+
		"Strait's job time against a bare franz-go loop of the same records):\n", addr, rows, procs, *kafkaRuns)
	in := topic("in")
	bareProduce(addr, in, rows, procs) // the input, written once
	// each measurement writes to a topic of its own, deleted after it
	measure := func(f func(out string) float64) float64 {
		var secs []float64
		for range *kafkaRuns {
			out := topic(fmt.Sprintf("out%d", time.Now().UnixNano()))
			secs = append(secs, f(out))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			_, _ = adm.DeleteTopics(ctx, out)
			cancel()
		}
		return median(secs)
	}
	produceSecs := measure(func(out string) float64 { return bareProduce(addr, out, rows, procs) })
	fakeSecs := measure(func(out string) float64 { return kafkaJob(bin, dir, fmt.Sprintf(kafkaFakeJob, rows, addr, out), procs) })
	printRatio("FakeSource -> Kafka (AT_LEAST_ONCE)", "bare produce loop", rows, fakeSecs, produceSecs)

	consumeSecs := measure(func(string) float64 { return bareConsume(addr, in, rows, procs) })
	readSecs := measure(func(string) float64 { return kafkaJob(bin, dir, fmt.Sprintf(kafkaReadJob, addr, in), procs) })
	printRatio("Kafka -> discarding sink", "bare consume loop", rows, readSecs, consumeSecs)

	loopSecs := measure(func(out string) float64 { return bareCopy(addr, in, out, rows, procs) })
	alo := measure(func(out string) float64 {
		return kafkaJob(bin, dir, fmt.Sprintf(kafkaCopyJob, "", addr, in, addr, out, "AT_LEAST_ONCE"), procs)
	})
	printRatio("Kafka -> Kafka (AT_LEAST_ONCE)", "bare consume-produce loop", rows, alo, loopSecs)
	eo := measure(func(out string) float64 {
		return kafkaJob(bin, dir, fmt.Sprintf(kafkaCopyJob, ", checkpoint.interval = 5000", addr, in, addr, out, "EXACTLY_ONCE"), procs)
	})
	printRatio("Kafka -> Kafka (EXACTLY_ONCE, checkpoint every 5 s)", "bare consume-produce loop", rows, eo, loopSecs)
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
	return onCores(procs, func() error {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic))
		if err != nil {
			return err
		}
		defer cl.Close()
		var first error
		promise := func(_ *kgo.Record, err error) {
			if err != nil && first == nil {
				first = err
			}
		}
		ctx := context.Background()
		for i := range rows {
			cl.Produce(ctx, &kgo.Record{Value: kafkaRecord(nil, i)}, promise)
		}
		if err := cl.Flush(ctx); err != nil {
			return err
		}
		return first
	})
}

// bareConsume reads rows records of topic from its start.
func bareConsume(addr, topic string, rows, procs int) float64 {
	return onCores(procs, func() error {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
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
	return onCores(procs, func() error {
		src, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(in), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		if err != nil {
			return err
		}
		defer src.Close()
		dst, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(out))
		if err != nil {
			return err
		}
		defer dst.Close()
		var first error
		promise := func(_ *kgo.Record, err error) {
			if err != nil && first == nil {
				first = err
			}
		}
		ctx := context.Background()
		for n := 0; n < rows; {
			fs := src.PollFetches(ctx)
			if errs := fs.Errors(); len(errs) > 0 {
				return errs[0].Err
			}
			fs.EachRecord(func(r *kgo.Record) {
				n++
				dst.Produce(ctx, &kgo.Record{Key: r.Key, Value: r.Value}, promise)
			})
		}
		if err := dst.Flush(ctx); err != nil {
			return err
		}
		return first
	})
}
