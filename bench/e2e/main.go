// Command e2e measures whole jobs through the strait binary: a fused FakeSource → Console
// (log.print.data = false) job of 20 million rows with five columns, on one core, reporting
// rows/s from the job's own start and end and the process's peak RSS.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

const fusedJob = `env {
  job.name = "bench_fused"
  job.mode = "BATCH"
  parallelism = 1
}
source {
  FakeSource {
    plugin_output = "fake"
    row.num = %d
    schema = {
      fields {
        id = bigint
        name = string
        age = int
        score = double
        created = timestamp
      }
    }
  }
}
sink {
  Console {
    plugin_input = "fake"
    log.print.data = false
  }
}
`

func main() {
	bin := flag.String("strait", "bin/strait", "the strait binary")
	rows := flag.Int("rows", 20_000_000, "rows to generate")
	procs := flag.Int("procs", 1, "GOMAXPROCS for the job (1 = one core)")
	flag.Parse()
	dir, err := os.MkdirTemp("", "strait-bench")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	job := filepath.Join(dir, "fused.conf")
	if err := os.WriteFile(job, []byte(fmt.Sprintf(fusedJob, *rows)), 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("fused FakeSource -> Console, %d rows, 5 columns, GOMAXPROCS=%d\n", *rows, *procs)
	res := runJob(*bin, job, *procs)
	fmt.Printf("  job time        %.2f s (submit to end %.2f s, process %.2f s)\n", res.jobSecs, res.submitToEnd, res.wall)
	fmt.Printf("  throughput      %.2f M rows/s\n", float64(*rows)/res.jobSecs/1e6)
	fmt.Printf("  peak RSS        %d MB (whole process: embedded Temporal server, worker and runner)\n", res.maxRSSKB/1024)

	// job overhead: a one-row job, submit to end, with the server already up in the same process
	small := filepath.Join(dir, "small.conf")
	if err := os.WriteFile(small, []byte(fmt.Sprintf(fusedJob, 1)), 0o644); err != nil {
		fail(err)
	}
	r2 := runJob(*bin, small, *procs)
	fmt.Printf("one-row job: submit to end %.3f s (the embedded server was already up), peak RSS %d MB\n", r2.submitToEnd, r2.maxRSSKB/1024)
	fmt.Printf("data path memory (peak RSS of the 20 M row job minus the one-row job's): %d MB\n", (res.maxRSSKB-r2.maxRSSKB)/1024)
}

type result struct {
	wall, jobSecs, submitToEnd float64
	maxRSSKB                   int64
}

func runJob(bin, job string, procs int) result {
	cmd := exec.Command(bin, "run", job)
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", procs), "TEMPORAL_ADDRESS=", "STRAIT_TIMINGS=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		fail(fmt.Errorf("%v\n%s", err, out.String()))
	}
	r := result{wall: time.Since(start).Seconds()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSSKB = ru.Maxrss
	}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "strait: timings: "); ok {
			fmt.Sscanf(v, "job %fs submit-to-end %fs", &r.jobSecs, &r.submitToEnd)
		}
	}
	if r.jobSecs == 0 {
		fail(fmt.Errorf("no timings in the output:\n%s", out.String()))
	}
	return r
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}
