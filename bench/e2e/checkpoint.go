package main

import (
	"bufio"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
)

// The checkpoint round trip: a job with checkpoint.interval = 100 on the node `strait run`
// composes (embedded server, worker, runner in one process: bench/probe), its checkpoints
// read back from the pipeline workflow's history, step by step.

var ckptSecs = flag.Int("checkpoint-secs", 8, "seconds the checkpoint round-trip job runs")

// ckptJob reads little and slowly (rows in splits of 2, a split every 8 ms), so the
// measure is the control plane's, into a transactional LocalFile sink whose committer runs
// at every checkpoint.
const ckptJob = `env { job.mode = "BATCH", parallelism = 1, checkpoint.interval = 100 }
source { FakeSource { plugin_output = "fake", row.num = %d, split.num = %d, split.read-interval = 8,
  schema = { fields { id = bigint, name = string } } } }
sink { LocalFile { plugin_input = "fake", path = %q, tmp_path = %q, file_format_type = json } }
`

func checkpointBench(dir string) {
	splits := *ckptSecs * 1000 / 8
	job := filepath.Join(dir, "ckpt.conf")
	writeFile(job, fmt.Sprintf(ckptJob, 2*splits, splits, filepath.Join(dir, "ckpt-out"), filepath.Join(dir, "ckpt-tmp")))
	out := runProbe("checkpoint", 2, filepath.Join(dir, "ckpt-probe"), job)
	fmt.Printf("checkpoint round trip, checkpoint.interval = 100, on strait run's node (medians over the job's checkpoints):\n")
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "ckpt ")
		if !ok {
			continue
		}
		// ckpt <n> <median ms> <p90 ms> <step>
		var n int
		var med, p90 float64
		if _, err := fmt.Sscanf(v, "%d %f %f", &n, &med, &p90); err != nil {
			continue
		}
		step := strings.SplitN(v, " ", 4)[3]
		c := comparison{Section: "checkpoint", Name: step, Secs: med / 1e3, Runs: n, Note: fmt.Sprintf("p90 %.1f ms", p90)}
		if strings.HasPrefix(step, "history events") {
			c = comparison{Section: "checkpoint", Name: step, Value: med, Runs: n, Note: fmt.Sprintf("p90 %.0f", p90)}
		}
		if strings.HasPrefix(step, "round trip") {
			c.Target = "< 0.100 s"
		}
		results.add(c)
	}
}
