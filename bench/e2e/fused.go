package main

import (
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
	// the cost of checkpointing: the same fused job with a checkpoint every second
	withCkpt := filepath.Join(dir, "fused-ckpt.conf")
	text := strings.Replace(fmt.Sprintf(fusedJob, rows), `parallelism = 1`, "parallelism = 1\n  checkpoint.interval = 1000", 1)
	if err := os.WriteFile(withCkpt, []byte(text), 0o644); err != nil {
		fail(err)
	}
	rc := runJob(bin, withCkpt, procs)
	fmt.Printf("  with a checkpoint every 1 s: %.2f M rows/s (%.1f %% of the throughput without)\n",
		float64(rows)/rc.jobSecs/1e6, 100*res.jobSecs/rc.jobSecs)
	if cfg, where := s3Config(dir); cfg != "" {
		rs := runJob(bin, withCkpt, procs, "--engine-config", cfg)
		fmt.Printf("  with a checkpoint every 1 s in S3 (%s): %.2f M rows/s (%.1f %% of the throughput without; target over 95 %%)\n",
			where, float64(rows)/rs.jobSecs/1e6, 100*res.jobSecs/rs.jobSecs)
	} else {
		fmt.Println("  with a checkpoint every 1 s in S3: not measured (STRAIT_TEST_S3 is not set; make bench starts SeaweedFS)")
	}
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
