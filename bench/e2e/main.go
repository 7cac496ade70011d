// Command e2e measures whole jobs through the strait binary, each beside an anchor built
// and run in the same run where one exists (a bare Go program doing the same work), and
// prints every comparison as a ratio with rows/s and peak RSS. The results also go to
// <out>/results-<date>.json and .md, which docs/performance.md quotes.
//
// The comparisons, one file each: fused.go (FakeSource → Console, checkpoints, Sql),
// json.go (LocalFile json → json against a Go encoding/json loop), cluster.go (an exchange
// hop across runner processes, a slow sink), kafka.go (Kafka against franz-go loops), pg.go
// (PostgreSQL → PostgreSQL against pgx CopyFrom, and partitioned reads), startup.go (start-up
// of strait run and its phases), checkpoint.go (the checkpoint round trip) and mysql.go
// (MySQL → PostgreSQL and MySQL → MySQL against go-sql-driver loops), s3file.go (S3File json →
// json beside LocalFile's).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/strait-dev/strait/internal/freeport"
)

var (
	bin      = flag.String("strait", "bin/strait", "the strait binary")
	rows     = flag.Int("rows", 20_000_000, "rows to generate")
	procs    = flag.Int("procs", 1, "GOMAXPROCS for the job (1 = one core)")
	hopRows  = flag.Int("hop-rows", 10_000_000, "rows for the exchange-hop comparison (0 skips it)")
	fileRows = flag.Int("file-rows", 2_000_000, "JSON lines for the LocalFile benchmarks (0 skips them)")
	only     = flag.String("only", "", "comma-separated sections to run (fused, sql, files, cluster, kafka, pg, mysql, s3file, startup, checkpoint, scale, benthos, sinks); all when empty")
	outDir   = flag.String("out", "bin/bench", "the folder the results files go to")
)

func main() {
	flag.Parse()
	dir, err := os.MkdirTemp("", "strait-bench")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	coldBinary(*bin)
	results.start(*outDir, *procs)
	fmt.Printf("load average %s (the machine is shared; ratios within this run are what count)\n", results.LoadBefore)
	sections := []struct {
		name string
		run  func()
	}{
		{"startup", func() { startupBench(*bin, dir) }},
		{"checkpoint", func() { checkpointBench(dir) }},
		{"pg", func() { pgBench(*bin, dir, *procs) }},
		{"fused", func() { fusedBench(*bin, dir, *rows, *procs) }},
		{"sql", func() { sqlCost(*bin, dir, *rows, *procs) }},
		{"files", func() {
			if *fileRows > 0 {
				fileJobs(*bin, dir, *fileRows, *procs)
			}
		}},
		{"cluster", func() {
			if *hopRows > 0 {
				exchangeHop(*bin, dir, *hopRows, *procs)
			}
		}},
		{"kafka", func() { kafkaBench(*bin, dir, *procs) }},
		{"mysql", func() { mysqlBench(*bin, dir, *procs) }},
		{"scale", func() { scaleBench(*bin, dir) }},
		{"benthos", func() { benthosBench(*bin, dir, *procs) }},
		{"sinks", func() { sinkBench(*bin, dir, *procs); lakeBench(*bin, dir, *procs) }},
		{"s3file", func() {
			if *fileRows > 0 {
				s3FileJobs(*bin, dir, *fileRows, *procs)
			}
		}},
	}
	want := map[string]bool{}
	for _, s := range strings.Split(*only, ",") {
		if s = strings.TrimSpace(s); s != "" {
			want[s] = true
		}
	}
	for _, s := range sections {
		if len(want) == 0 || want[s.name] {
			s.run()
		}
	}
	results.write()
	fmt.Printf("results: %s/results-%s.{json,md}; load average at the end %s\n", *outDir, results.stamp(), results.LoadAfter)
}

// coldBinary drops the strait binary's pages from the page cache and runs it once, so the
// runs measured map it as they would an installed binary. The pages of a binary the linker
// has just written stay cached in the large folios it wrote them in, and every fault in
// its text maps a whole folio: a one-row job's peak RSS was 190 MB on a just-built binary
// and 154–158 MB on a copy of it or the same file read back from disk.
func coldBinary(path string) {
	f, err := os.Open(path)
	if err != nil {
		fail(err)
	}
	err = f.Sync()
	if err == nil {
		err = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	}
	f.Close()
	if err != nil {
		fmt.Printf("%s stays in the page cache as it is (%v): peak RSS may read high\n", path, err)
		return
	}
	if out, err := exec.Command(path, "version").CombinedOutput(); err != nil {
		fail(fmt.Errorf("%s version: %v\n%s", path, err, out))
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
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
	// cpuSecs is the CPU time (user and system) the process spent
	cpuSecs  float64
	maxRSSKB int64
	// phases are the steps of strait run (config, node, submit, wait) in seconds
	phases map[string]float64
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
		r.cpuSecs = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "strait: timings: "); ok {
			fmt.Sscanf(v, "job %fs submit-to-end %fs", &r.jobSecs, &r.submitToEnd)
		}
		if v, ok := strings.CutPrefix(line, "strait: phases: "); ok {
			r.phases = parsePhases(v)
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

// processCPU is the CPU time (user and system, in seconds) the processes named name (their
// /proc comm) have spent so far; 0 when there is none.
func processCPU(name string) float64 {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var ticks int64
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: utime and stime are the 12th and 13th fields after comm
		open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || end < open || string(b[open+1:end]) != name {
			continue
		}
		if f := strings.Fields(string(b[end+1:])); len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			ticks += u + s
		}
	}
	return float64(ticks) / clockTicks
}

// clockTicks is Linux's USER_HZ, the unit of /proc's CPU times.
const clockTicks = 100

// parsePhases reads "config 0.012s node 0.300s ..." into seconds by name.
func parsePhases(text string) map[string]float64 {
	out := map[string]float64{}
	f := strings.Fields(text)
	for i := 0; i+1 < len(f); i += 2 {
		var s float64
		if _, err := fmt.Sscanf(f[i+1], "%fs", &s); err == nil {
			out[f[i]] = s
		}
	}
	return out
}
