package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The fused pipeline: FakeSource → Console (log.print.data = false) of five columns on one
// core, its job overhead, the cost of checkpoints, and the cost of a Sql transform.

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

// fusedBench runs the fused job, a one-row job, and the fused job with checkpoints every
// second (on the local store, and in S3 when a test server is named).
func fusedBench(bin, dir string, rows, procs int) {
	job := filepath.Join(dir, "fused.conf")
	if err := os.WriteFile(job, []byte(fmt.Sprintf(fusedJob, rows)), 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("fused FakeSource -> Console, %d rows, 5 columns, GOMAXPROCS=%d\n", rows, procs)
	res := runJob(bin, job, procs)
	fmt.Printf("  job time        %.2f s (submit to end %.2f s, process %.2f s)\n", res.jobSecs, res.submitToEnd, res.wall)
	fmt.Printf("  throughput      %.2f M rows/s\n", float64(rows)/res.jobSecs/1e6)
	fmt.Printf("  peak RSS        %d MB (whole process: embedded Temporal server, worker and runner)\n", res.maxRSSKB/1024)

	// job overhead: a one-row job, submit to end, with the server already up in the same process
	small := filepath.Join(dir, "small.conf")
	if err := os.WriteFile(small, []byte(fmt.Sprintf(fusedJob, 1)), 0o644); err != nil {
		fail(err)
	}
	r2 := runJob(bin, small, procs)
	fmt.Printf("one-row job: submit to end %.3f s (the embedded server was already up), peak RSS %d MB\n", r2.submitToEnd, r2.maxRSSKB/1024)
	fmt.Printf("data path memory (peak RSS of the %d-row job minus the one-row job's): %d MB\n", rows, (res.maxRSSKB-r2.maxRSSKB)/1024)
	checkpointCost(bin, dir, job, rows, procs)
}

var ckptCostRuns = flag.Int("checkpoint-cost-runs", 3, "runs of each job in the checkpoint cost comparison, taken in turn, the median taken")

// checkpointCost measures what a checkpoint every second costs the fused job: the job
// without checkpoints, with them on the local store and in S3 (when a test server is named),
// taken in turn so that the machine's drift touches each alike. It compares the medians of
// the job's time and of the whole process's CPU time (which other processes on the machine
// touch less), and, in S3, tells the CPU time the S3 server (SeaweedFS, on the same cores)
// spent during each run.
func checkpointCost(bin, dir, plain string, rows, procs int) {
	withCkpt := filepath.Join(dir, "fused-ckpt.conf")
	text := strings.Replace(fmt.Sprintf(fusedJob, rows), `parallelism = 1`, "parallelism = 1\n  checkpoint.interval = 1000", 1)
	if err := os.WriteFile(withCkpt, []byte(text), 0o644); err != nil {
		fail(err)
	}
	cfg, where := s3Config(dir)
	var none, local, inS3 []result
	var server []float64
	for range *ckptCostRuns {
		none = append(none, runJob(bin, plain, procs))
		local = append(local, runJob(bin, withCkpt, procs))
		if cfg != "" {
			before := processCPU("weed")
			inS3 = append(inS3, runJob(bin, withCkpt, procs, "--engine-config", cfg))
			server = append(server, processCPU("weed")-before)
		}
	}
	fmt.Printf("a checkpoint every 1 s, %d rows, GOMAXPROCS=%d (median of %d runs each, taken in turn):\n", rows, procs, len(none))
	results.add(checkpointCompared("checkpoint every 1 s, local store", rows, local, none, ""))
	if cfg == "" {
		fmt.Println("  in S3: not measured (STRAIT_TEST_S3 is not set; make bench starts SeaweedFS)")
		return
	}
	results.add(checkpointCompared("checkpoint every 1 s, S3", rows, inS3, none,
		fmt.Sprintf("%s; the S3 server's CPU %.2f s a run", where, median(server))))
}

// checkpointCompared is the comparison of the job with checkpoints (runs) and without (none):
// the share of the throughput kept by the medians of the job's time, and the process's CPU
// time beside.
func checkpointCompared(name string, rows int, runs, none []result, note string) comparison {
	cpu := fmt.Sprintf("process CPU %.2f s, without %.2f s (%+.1f %%)", medianOf(runs, cpuOf), medianOf(none, cpuOf),
		100*(medianOf(runs, cpuOf)/medianOf(none, cpuOf)-1))
	if note != "" {
		cpu = note + "; " + cpu
	}
	return comparison{Section: "fused", Name: name, Rows: rows, Secs: medianOf(runs, jobOf), Anchor: "no checkpoints",
		AnchorSecs: medianOf(none, jobOf), Target: "> 0.95", Runs: len(runs), Note: cpu}
}

func jobOf(r result) float64 { return r.jobSecs }
func cpuOf(r result) float64 { return r.cpuSecs }

func medianOf(rs []result, f func(result) float64) float64 {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = f(r)
	}
	return median(xs)
}

// sqlQuery is the Sql transform sqlCost puts into the fused job: a WHERE on two columns
// (about 45 % of FakeSource's rows pass) and three computed projections.
const sqlQuery = "select id, name, age * 2 as a2, score + 1.5 as s, upper(name) as un from fake where age > 10 and id % 2 = 0"

// sqlCost measures what a Sql transform costs the fused job: the job with and without it,
// three runs of each taken in turn, medians compared (rows/s counted at the source).
func sqlCost(bin, dir string, rows, procs int) {
	plain := filepath.Join(dir, "sql-plain.conf")
	withSQL := filepath.Join(dir, "sql.conf")
	text := strings.Replace(fmt.Sprintf(fusedJob, rows), "schema = {", "int.min = 1\n    int.max = 100\n    schema = {", 1)
	sqlText := strings.Replace(text, "sink {", `transform {
  Sql {
    plugin_input = "fake"
    plugin_output = "sql"
    query = "`+sqlQuery+`"
  }
}
sink {`, 1)
	sqlText = strings.Replace(sqlText, `plugin_input = "fake"
    log.print.data`, `plugin_input = "sql"
    log.print.data`, 1)
	for _, f := range []struct{ path, text string }{{plain, text}, {withSQL, sqlText}} {
		if err := os.WriteFile(f.path, []byte(f.text), 0o644); err != nil {
			fail(err)
		}
	}
	var a, b []float64
	for range 3 {
		a = append(a, runJob(bin, plain, procs).jobSecs)
		b = append(b, runJob(bin, withSQL, procs).jobSecs)
	}
	ma, mb := median(a), median(b)
	fmt.Printf("fused FakeSource -> Sql -> Console, %d rows, GOMAXPROCS=%d (median of 3 runs each):\n", rows, procs)
	fmt.Printf("  query           %s\n", sqlQuery)
	fmt.Printf("  without Sql     %.2f M rows/s\n", float64(rows)/ma/1e6)
	fmt.Printf("  with Sql        %.2f M rows/s (%.1f %% of the throughput without; the transform costs %.1f %%)\n",
		float64(rows)/mb/1e6, 100*ma/mb, 100-100*ma/mb)
}
