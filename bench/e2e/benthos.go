package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strait-dev/strait/bench/internal/records"
)

// The Go peer: Benthos v4 (its open-source core, run by bench/benthos, a module of its own)
// doing the jobs Strait does, on the same input, beside the bare loop of each, in the same
// run and on the same cores. Three jobs:
//
//	generate → drop: FakeSource → Console (log.print.data = false) against Benthos's generate
//	  input (a Bloblang mapping of the same six fields, batches of 1,000) → drop, and a Go
//	  loop making the same random values;
//	file → mapping → file: LocalFile json → FieldMapper → LocalFile json against Benthos's file
//	  input (lines) → mapping → file output (lines), and the encoding/json loop with the same
//	  mapping (bench/anchors jsonmap);
//	Kafka → mapping → Kafka: the Kafka source → FieldMapper → the Kafka sink (AT_LEAST_ONCE)
//	  against Benthos with a franz-go input and output (bench/benthos) → mapping, and a
//	  franz-go loop decoding each record with encoding/json, mapping and encoding it.
//
// The mapping (bench/internal/records) keeps id, renames name to full_name, keeps city and
// score and drops active and note. Each side's time excludes its start-up: Strait's is the
// job time its runner reports, Benthos's the stream's run, the loops' their loop. The runs
// alternate (loop, Strait, Benthos) and the medians are compared. Every output is counted.

var (
	benthosRows = flag.Int("benthos-rows", 2_000_000, "records for the Benthos comparison (0 skips it)")
	benthosRuns = flag.Int("benthos-runs", 3, "runs of each side of the Benthos comparison, the median taken")
	benthosBin  = flag.String("benthos", "", "the Benthos runner (default: bench-benthos beside the strait binary)")
)

// benthosBench runs the three jobs; the Kafka one against the broker STRAIT_TEST_KAFKA names.
func benthosBench(bin, dir string, procs int) {
	rows := *benthosRows
	if rows <= 0 {
		return
	}
	fmt.Printf("Benthos v4 beside Strait and the bare loops, %d records, GOMAXPROCS=%d, median of %d runs:\n", rows, procs, *benthosRuns)
	type side func() (secs float64, rssMB int64)
	// three runs each side in turn; medians and the peak RSS of all
	compare := func(name, anchor string, bare, strait, benthos side, note string) {
		var b, s, p []float64
		var bRSS, sRSS, pRSS int64
		for range *benthosRuns {
			t, r := bare()
			b, bRSS = append(b, t), max(bRSS, r)
			t, r = strait()
			s, sRSS = append(s, t), max(sRSS, r)
			t, r = benthos()
			p, pRSS = append(p, t), max(pRSS, r)
		}
		results.add(comparison{Section: "benthos", Name: name, Rows: rows, Secs: median(s), PeakRSSMB: sRSS,
			Anchor: anchor, AnchorSecs: median(b), AnchorPeakRSSMB: bRSS, Runs: *benthosRuns, Note: note})
		results.add(comparison{Section: "benthos", Name: name + " vs Benthos", Rows: rows, Secs: median(s), PeakRSSMB: sRSS,
			Anchor: "Benthos v4.60.0", AnchorSecs: median(p), AnchorPeakRSSMB: pRSS, Runs: *benthosRuns, Target: ">= 3", Note: note})
	}
	wrap := func(f func() float64) side { return func() (float64, int64) { return f(), 0 } }
	strait := func(text string) side {
		return func() (float64, int64) {
			job := filepath.Join(dir, fmt.Sprintf("benthos-cmp-%d.conf", time.Now().UnixNano()))
			writeFile(job, text)
			r := runJob(bin, job, procs)
			return r.jobSecs, r.maxRSSKB / 1024
		}
	}
	benthos := func(yaml string, check func()) side {
		return func() (float64, int64) {
			secs, rss := runBenthos(dir, yaml, procs)
			check()
			return secs, rss
		}
	}

	// generate → drop
	compare("generate -> drop", "Go loop of the same random values",
		func() (float64, int64) { return runAnchor("generate", procs, fmt.Sprint(rows)) },
		strait(fmt.Sprintf(`env { job.mode = BATCH, parallelism = 1 }
source { FakeSource { plugin_output = "t", row.num = %d, string.length = 12, %s } }
sink { Console { plugin_input = "t", log.print.data = false } }
`, rows, kafkaSchema)),
		benthos(fmt.Sprintf(`input:
  generate:
    count: %d
    interval: ""
    batch_size: 1000
    mapping: |
      root.id = counter()
      root.name = nanoid(12)
      root.city = nanoid(12)
      root.score = random_int(max: 1000000) / 1000
      root.active = random_int(max: 1) == 1
      root.note = nanoid(12)
output:
  drop: {}
`, rows), func() {}), "job time; nothing written")

	// file → mapping → file
	in := filepath.Join(dir, "benthos-in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		fail(err)
	}
	input := filepath.Join(in, "data.json")
	writeJSONLines(input, rows)
	out := filepath.Join(dir, "benthos-out")
	compare("LocalFile json -> FieldMapper -> json", "Go encoding/json loop with the mapping",
		func() (float64, int64) {
			secs, rss := runAnchor("jsonmap", procs, input, filepath.Join(dir, "anchor-map.json"))
			countLines(filepath.Join(dir, "anchor-map.json"), rows)
			return secs, rss
		},
		func() (float64, int64) {
			os.RemoveAll(out)
			job := filepath.Join(dir, "benthos-file.conf")
			writeFile(job, fmt.Sprintf(`env { job.mode = BATCH, parallelism = 1 }
source { LocalFile { path = %q, file_format_type = json, plugin_output = "t", %s } }
transform { %s }
sink { LocalFile { plugin_input = "m", path = %q, tmp_path = %q, file_format_type = json } }
`, in, kafkaSchema, records.FieldMapper, out, filepath.Join(dir, "tmp")))
			r := runJob(bin, job, procs)
			countLines(out, rows)
			return r.jobSecs, r.maxRSSKB / 1024
		},
		benthos(fmt.Sprintf(`input:
  file:
    paths: [ %q ]
    scanner:
      lines: {}
pipeline:
  processors:
    - mapping: |
%s
output:
  file:
    path: %q
    codec: lines
`, input, indent(records.Bloblang, 8), filepath.Join(dir, "benthos-map.json")),
			func() {
				// the file output appends: each run counts its lines and leaves no file
				countLines(filepath.Join(dir, "benthos-map.json"), rows)
				os.Remove(filepath.Join(dir, "benthos-map.json"))
			}),
		"job time")

	addr, tp, ok := brokerTopics("  Kafka -> mapping -> Kafka", "benthos")
	if !ok {
		return
	}
	defer tp.close()
	adm, topic := tp.adm, tp.create
	src := topic("in")
	bareProduce(addr, src, rows, procs)
	// every run writes to a topic of its own and counts what it holds after
	var dst string
	fresh := func() string { dst = topic(fmt.Sprintf("out%d", time.Now().UnixNano())); return dst }
	counted := func(secs float64, rss int64) (float64, int64) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ends, err := adm.ListEndOffsets(ctx, dst)
		if err != nil {
			fail(fmt.Errorf("end offsets of %s: %w", dst, err))
		}
		if o, ok := ends.Lookup(dst, 0); !ok || o.Offset != int64(rows) {
			fail(fmt.Errorf("topic %s holds %d records, want %d", dst, o.Offset, rows))
		}
		return secs, rss
	}
	compare("Kafka -> FieldMapper -> Kafka (AT_LEAST_ONCE)", "franz-go loop, encoding/json decode, map, encode",
		func() (float64, int64) {
			return counted(wrap(func() float64 { return bareMapCopy(addr, src, fresh(), rows, procs) })())
		},
		func() (float64, int64) {
			t := fresh()
			return counted(strait(fmt.Sprintf(`env { job.mode = BATCH, parallelism = 1 }
source { Kafka { plugin_output = "t", bootstrap.servers = %q, topic = %q, start_mode = earliest, commit_on_checkpoint = false, %s } }
transform { %s }
sink { Kafka { plugin_input = "m", bootstrap.servers = %q, topic = %q, semantics = AT_LEAST_ONCE } }
`, addr, src, kafkaSchema, records.FieldMapper, addr, t))())
		},
		func() (float64, int64) {
			t := fresh()
			return counted(runBenthos(dir, fmt.Sprintf(`input:
  strait_bench_kafka_input:
    seed_brokers: %q
    topic: %q
    count: %d
pipeline:
  processors:
    - mapping: |
%s
output:
  strait_bench_kafka_output:
    seed_brokers: %q
    topic: %q
`, addr, src, rows, indent(records.Bloblang, 8), addr, t), procs))
		}, "job time")
}

// bareMapCopy is bareCopy decoding each record with encoding/json, mapping it and encoding it.
func bareMapCopy(addr, in, out string, rows, procs int) float64 {
	var line records.Line
	return bareCopyWith(addr, in, out, rows, procs, func(v []byte) ([]byte, error) {
		line = records.Line{}
		if err := json.Unmarshal(v, &line); err != nil {
			return nil, err
		}
		return json.Marshal(records.Map(&line))
	})
}

// runBenthos runs a Benthos stream config on procs cores and returns the stream's time and
// the process's peak RSS.
func runBenthos(dir, yaml string, procs int) (secs float64, rssMB int64) {
	conf := filepath.Join(dir, fmt.Sprintf("benthos-%d.yaml", time.Now().UnixNano()))
	writeFile(conf, yaml)
	return runTimed(beside(*benthosBin, "bench-benthos"), "benthos-secs ", procs, conf)
}

// countLines fails the run unless the file, or the files of the folder, hold want lines.
func countLines(path string, want int) {
	files := []string{path}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		files, _ = filepath.Glob(filepath.Join(path, "*"))
	}
	n := 0
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			fail(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			n++
		}
		fh.Close()
	}
	if n != want {
		fail(fmt.Errorf("%s: %d lines, want %d", path, n, want))
	}
}

// indent puts n spaces before each line of text, for a block in YAML.
func indent(text string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(text, "\n", "\n"+pad)
}
