// Command e2e measures whole jobs through the strait binary: a fused FakeSource → Console
// (log.print.data = false) job of 20 million rows with five columns, on one core, reporting
// rows/s from the job's own start and end and the process's peak RSS.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/strait-dev/strait/internal/freeport"
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
	hopRows := flag.Int("hop-rows", 10_000_000, "rows for the exchange-hop comparison (0 skips it)")
	fileRows := flag.Int("file-rows", 2_000_000, "JSON lines for the LocalFile benchmarks (0 skips them)")
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
	fmt.Printf("data path memory (peak RSS of the %d-row job minus the one-row job's): %d MB\n", *rows, (res.maxRSSKB-r2.maxRSSKB)/1024)
	// the cost of checkpointing: the same fused job with a checkpoint every second
	withCkpt := filepath.Join(dir, "fused-ckpt.conf")
	text := strings.Replace(fmt.Sprintf(fusedJob, *rows), `parallelism = 1`, "parallelism = 1\n  checkpoint.interval = 1000", 1)
	if err := os.WriteFile(withCkpt, []byte(text), 0o644); err != nil {
		fail(err)
	}
	rc := runJob(*bin, withCkpt, *procs)
	fmt.Printf("  with a checkpoint every 1 s: %.2f M rows/s (%.1f %% of the throughput without)\n",
		float64(*rows)/rc.jobSecs/1e6, 100*res.jobSecs/rc.jobSecs)
	if cfg, where := s3Config(dir); cfg != "" {
		rs := runJob(*bin, withCkpt, *procs, "--engine-config", cfg)
		fmt.Printf("  with a checkpoint every 1 s in S3 (%s): %.2f M rows/s (%.1f %% of the throughput without; target over 95 %%)\n",
			where, float64(*rows)/rs.jobSecs/1e6, 100*res.jobSecs/rs.jobSecs)
	} else {
		fmt.Println("  with a checkpoint every 1 s in S3: not measured (STRAIT_TEST_S3 is not set; make bench starts SeaweedFS)")
	}
	sqlCost(*bin, dir, *rows, *procs)
	if *fileRows > 0 {
		fileJobs(*bin, dir, *fileRows, *procs)
	}
	if *hopRows > 0 {
		exchangeHop(*bin, dir, *hopRows, *procs)
	}
	kafkaBench(*bin, dir, *procs)
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

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

const fileJob = `env { job.mode = "BATCH", parallelism = 1 }
source { LocalFile { path = "%s", file_format_type = json, plugin_output = "t",
  schema = { fields { id = bigint, name = string, city = string, score = double, active = boolean, note = string } } } }
%s
sink { LocalFile { path = "%s", tmp_path = "%s", file_format_type = json } }
`

// fileJobs measures LocalFile json → LocalFile json (transactional), and the same with a Sql
// transform between, on JSON lines of about 100 bytes made here.
func fileJobs(bin, dir string, rows, procs int) {
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		fail(err)
	}
	f, err := os.Create(filepath.Join(in, "data.json"))
	if err != nil {
		fail(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 0; i < rows; i++ {
		fmt.Fprintf(w, `{"id":%d,"name":"name-%07d","city":"Lisbon","score":%d.5,"active":%t,"note":"benchmark row"}`+"\n", i, i, i%1000, i%2 == 0)
	}
	if err := w.Flush(); err != nil {
		fail(err)
	}
	f.Close()
	fmt.Printf("LocalFile json, %d lines of ~100 bytes, GOMAXPROCS=%d:\n", rows, procs)
	for _, c := range []struct{ name, transform string }{
		{"json -> json (transactional)", ""},
		{"json -> Sql -> json", `transform { Sql { plugin_input = "t", plugin_output = "u", query = "select *, 'even' as tag from t where id % 2 = 0" } }`},
	} {
		out := filepath.Join(dir, "out-"+fmt.Sprint(time.Now().UnixNano()))
		job := filepath.Join(dir, "file.conf")
		sinkInput := ""
		if c.transform != "" {
			sinkInput = "u"
		}
		text := fmt.Sprintf(fileJob, in, c.transform, out, filepath.Join(dir, "tmp"))
		if sinkInput != "" {
			text = strings.Replace(text, `file_format_type = json } }
`, `file_format_type = json, plugin_input = "u" } }
`, 1)
		}
		if err := os.WriteFile(job, []byte(text), 0o644); err != nil {
			fail(err)
		}
		r := runJob(bin, job, procs)
		fmt.Printf("  %-30s %.0f k rows/s (job %.2f s)\n", c.name, float64(rows)/r.jobSecs/1e3, r.jobSecs)
	}
}

const hopJob = `env { job.mode = "BATCH", parallelism = 1 }
source { FakeSource { plugin_output = "fake", row.num = %d,
  schema = { fields { id = bigint, name = string, age = int, score = double, created = timestamp } } } }
sink { Console { plugin_input = "fake", log.print.data = false %s } }
`

// exchangeHop runs, on a cluster of separate processes (Temporal, a worker and two runners
// with one slot each), the same job fused and with its sink behind a hash exchange, so the
// two task groups land on different runners and every row crosses loopback gRPC.
func exchangeHop(bin, dir string, rows, procs int) {
	port := freePort()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	env := append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", procs), "TEMPORAL_ADDRESS=")
	var started []*exec.Cmd
	startProc := func(args ...string) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			fail(err)
		}
		started = append(started, cmd)
	}
	defer func() {
		for i := len(started) - 1; i >= 0; i-- {
			_ = started[i].Process.Signal(syscall.SIGTERM)
			_ = started[i].Wait()
		}
	}()
	startProc("dev", "--only-temporal", "--headless", "--port", fmt.Sprint(port))
	waitTCP(addr)
	startProc("worker", "--address", addr)
	runnerBin := bin
	if nb := filepath.Join(filepath.Dir(bin), "strait-noembed"); fileExists(nb) {
		runnerBin = nb // a production runner carries no Temporal server
	}
	for _, id := range []string{"bench-a", "bench-b"} {
		cmd := exec.Command(runnerBin, "runner", "--address", addr, "--id", id, "--slots", "1", "--listen", "127.0.0.1:0")
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			fail(err)
		}
		started = append(started, cmd)
	}
	time.Sleep(3 * time.Second) // registration
	// each measure is the median of three runs taken in turn: the machine's speed moves
	// between runs
	var fusedT, hopT []float64
	for i := range 3 {
		fusedT = append(fusedT, clusterJob(bin, addr, dir, fmt.Sprintf(hopJob, rows, "")))
		if i == 0 {
			var peak int64
			for _, c := range started[len(started)-2:] {
				peak = max(peak, hwmKB(c.Process.Pid))
			}
			fmt.Printf("runner process (%s) peak RSS after the fused %d-row job: %d MB\n", filepath.Base(runnerBin), rows, peak/1024)
		}
		hopT = append(hopT, clusterJob(bin, addr, dir, fmt.Sprintf(hopJob, rows, `, partition_by = [id]`)))
	}
	fused, hop := median(fusedT), median(hopT)
	fmt.Printf("cluster of processes, %d rows, GOMAXPROCS=%d per process (median of 3 runs each):\n", rows, procs)
	fmt.Printf("  fused on one runner     %.2f M rows/s\n", float64(rows)/fused/1e6)
	fmt.Printf("  one exchange hop (gRPC) %.2f M rows/s (%.0f %% of fused)\n", float64(rows)/hop/1e6, 100*fused/hop)
	// the checkpoint cost on a job long enough to take several checkpoints
	long := 4 * rows
	var plainT, ckptT []float64
	for range 3 {
		plainT = append(plainT, clusterJob(bin, addr, dir, fmt.Sprintf(hopJob, long, "")))
		ckptT = append(ckptT, clusterJob(bin, addr, dir, strings.Replace(fmt.Sprintf(hopJob, long, ""), `parallelism = 1`, `parallelism = 1, checkpoint.interval = 1000`, 1)))
	}
	plain, ckpt := median(plainT), median(ckptT)
	fmt.Printf("  fused, %d rows          %.2f M rows/s; with a checkpoint every 1 s %.2f M rows/s (%.1f %% of the throughput without)\n",
		long, float64(long)/plain/1e6, float64(long)/ckpt/1e6, 100*plain/ckpt)
	slowSink(bin, addr, dir, started[len(started)-2:])
}

// slowSinkJob's source could emit 10 M rows of 200-byte strings in seconds; its sink, behind
// the exchange on the other runner, takes one row a millisecond.
const slowSinkJob = `
env { parallelism = 1 }
source { FakeSource { plugin_output = "fake", row.num = 10000000, schema = { fields { id = bigint, name = string, pad = string } }, string.length = 200 } }
sink { Console { plugin_input = "fake", partition_by = [id], log.print.data = false, log.print.delay.ms = 1 } }
`

// slowSink runs slowSinkJob for 8 s and prints the runners' peak RSS: backpressure bounds what
// is in flight by the exchange's window and queues (target: under 300 MB a runner).
func slowSink(bin, addr, dir string, runners []*exec.Cmd) {
	f := filepath.Join(dir, "slow-sink.conf")
	if err := os.WriteFile(f, []byte(slowSinkJob), 0o644); err != nil {
		fail(err)
	}
	out, err := exec.Command(bin, "job", "submit", "--address", addr, f).Output()
	if err != nil {
		fail(fmt.Errorf("submit: %v", err))
	}
	id := strings.TrimSpace(string(out))
	time.Sleep(8 * time.Second) // the measured span
	var peak int64
	for _, c := range runners {
		peak = max(peak, hwmKB(c.Process.Pid))
	}
	if out, err := exec.Command(bin, "job", "cancel", "--address", addr, id).CombinedOutput(); err != nil {
		fail(fmt.Errorf("cancel %s: %v\n%s", id, err, out))
	}
	fmt.Printf("  slow sink behind the exchange for 8 s: runner peak RSS %d MB (target under 300 MB)\n", peak/1024)
}

func clusterJob(bin, addr, dir, text string) float64 {
	f := filepath.Join(dir, fmt.Sprintf("cluster-%d.conf", time.Now().UnixNano()))
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		fail(err)
	}
	out, err := exec.Command(bin, "job", "submit", "--address", addr, f).Output()
	if err != nil {
		fail(fmt.Errorf("submit: %v", err))
	}
	id := strings.TrimSpace(string(out))
	if out, err := exec.Command(bin, "job", "wait", "--address", addr, id).CombinedOutput(); err != nil {
		fail(fmt.Errorf("job %s: %v\n%s", id, err, out))
	}
	out, err = exec.Command(bin, "job", "status", "--json", "--address", addr, id).Output()
	if err != nil {
		fail(err)
	}
	var st struct {
		Started  time.Time `json:"started"`
		Finished time.Time `json:"finished"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		fail(err)
	}
	return st.Finished.Sub(st.Started).Seconds()
}

func freePort() int {
	p, err := freeport.Pick("127.0.0.1")
	if err != nil {
		fail(err)
	}
	return p
}

func waitTCP(addr string) {
	for i := 0; i < 600; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	fail(fmt.Errorf("nothing listens on %s", addr))
}

type result struct {
	wall, jobSecs, submitToEnd float64
	maxRSSKB                   int64
}

// s3Config writes an engine config that keeps checkpoints in the test S3 server
// (STRAIT_TEST_S3 and its identity, the bucket scripts/s3.sh creates), under a prefix of
// this run; "" without a server.
func s3Config(dir string) (path, where string) {
	endpoint := os.Getenv("STRAIT_TEST_S3")
	if endpoint == "" {
		return "", ""
	}
	prefix := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	text := fmt.Sprintf(`checkpoint:
  storage:
    type: s3
    bucket: strait-test
    prefix: %s
    endpoint: %s
    credentials:
      access-key: %s
      secret-key: %s
`, prefix, endpoint, os.Getenv("STRAIT_TEST_S3_ACCESS_KEY"), os.Getenv("STRAIT_TEST_S3_SECRET_KEY"))
	path = filepath.Join(dir, "strait-s3.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		fail(err)
	}
	return path, endpoint + "/strait-test/" + prefix
}

func runJob(bin, job string, procs int, args ...string) result {
	cmd := exec.Command(bin, append(append([]string{"run"}, args...), job)...)
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

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// hwmKB is a process's peak resident set size, from /proc.
func hwmKB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var n int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &n)
			return n
		}
	}
	return 0
}
