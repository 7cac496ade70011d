package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// How many STREAMING jobs with a checkpoint every second one Temporal cluster carries here:
// the cluster of scripts/temporal-cluster.sh (Temporal's own server on PostgreSQL, two
// frontends, two history services, matching and the internal worker, each on a host of its
// own), two Strait workers and three runners on hosts of their own; bench/probe's scale
// probe doubles the jobs until the checkpoints' p99 passes a second, and reads what each
// checkpoint cost Temporal from the pipelines' histories.

var (
	scaleMost   = flag.Int("scale-jobs", 128, "most concurrent jobs the scale benchmark starts")
	scaleWindow = flag.Int("scale-window", 20, "seconds each step of the scale benchmark measures")
)

// scaleJob is one job of the benchmark: a FakeSource row every 100 ms for nine minutes into
// a transactional LocalFile sink, so every checkpoint (one a second) prepares and commits a
// transaction; one task, one slot. The rows are few: the measure is the control plane's.
const scaleJob = `env { job.mode = "STREAMING", parallelism = 1, checkpoint.interval = 1000 }
source { FakeSource { plugin_output = "fake", row.num = 5400, split.num = 5400, split.read-interval = 100,
  schema = { fields { id = bigint, name = string } } } }
sink { LocalFile { plugin_input = "fake", path = "%s/out", tmp_path = "%s/tmp", file_format_type = json } }
`

func scaleBench(bin, dir string) {
	if os.Geteuid() != 0 {
		fmt.Println("scale: skipped, the cluster's hosts are network namespaces and need root")
		return
	}
	script, err := filepath.Abs("scripts/temporal-cluster.sh")
	if err != nil {
		fail(err)
	}
	probe, err := filepath.Abs("bin/bench-probe")
	if err != nil {
		fail(err)
	}
	absBin, err := filepath.Abs(bin)
	if err != nil {
		fail(err)
	}
	if out, err := exec.Command(script, "up").CombinedOutput(); err != nil {
		fail(fmt.Errorf("%s up: %v\n%s", script, err, out))
	}
	defer func() {
		if out, err := exec.Command(script, "down").CombinedOutput(); err != nil {
			fmt.Printf("scale: %s down: %v\n%s", script, err, out)
		}
	}()
	const temporal = "dns:///temporal-frontend:7233"
	var started []*exec.Cmd
	start := func(host string, args ...string) {
		cmd := exec.Command(script, append([]string{"exec", host, absBin}, args...)...)
		home := filepath.Join(dir, "scale-"+host)
		if err := os.MkdirAll(home, 0o755); err != nil {
			fail(err)
		}
		cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS=", "TMPDIR="+home)
		cmd.Stdout, cmd.Stderr = nil, nil
		if err := cmd.Start(); err != nil {
			fail(err)
		}
		started = append(started, cmd)
	}
	defer func() {
		for _, c := range started {
			_ = c.Process.Signal(syscall.SIGTERM)
			_ = c.Wait()
		}
	}()
	hosts := map[string]string{}
	out, err := exec.Command(script, "hosts").Output()
	if err != nil {
		fail(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			hosts[f[0]] = f[1]
		}
	}
	// checkpoints in the data host's S3, as on hosts that share no folder
	cfg := filepath.Join(dir, "scale-strait.yaml")
	writeFile(cfg, fmt.Sprintf(`checkpoint:
  storage:
    type: s3
    bucket: strait-test
    prefix: scale-%d
    endpoint: http://%s:8333
    path-style: true
    credentials:
      provider: static
      access-key: strait-test
      secret-key: strait-test-secret
`, time.Now().UnixNano(), hosts["data"]))
	for _, h := range []string{"strait-1", "strait-2"} {
		start(h, "worker", "--address", temporal, "--config", cfg)
	}
	for i, h := range []string{"strait-1", "strait-2", "strait-3"} {
		start(h, "runner", "--address", temporal, "--id", fmt.Sprintf("scale-%d", i+1), "--slots", fmt.Sprint(*scaleMost),
			"--listen", hosts[h]+":7070", "--config", cfg)
	}
	// the three runners registered
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		st, _ := exec.Command(script, "exec", "client", absBin, "cluster", "status", "--json", "--address", temporal).Output()
		if strings.Count(string(st), `"ALIVE"`) == 3 {
			break
		}
		if time.Now().After(deadline) {
			fail(fmt.Errorf("scale: the runners did not register within 2 minutes: %s", st))
		}
	}
	job := filepath.Join(dir, "scale.conf")
	sinkDir, err := filepath.Abs(filepath.Join(dir, "scale-sink"))
	if err != nil {
		fail(err)
	}
	writeFile(job, fmt.Sprintf(scaleJob, sinkDir, sinkDir))
	cmd := exec.Command(script, "exec", "client", probe, "scale", temporal, job, fmt.Sprint(*scaleMost), fmt.Sprint(*scaleWindow))
	cmd.Stderr = os.Stderr
	res, err := cmd.Output()
	if err != nil {
		fail(fmt.Errorf("scale probe: %v\n%s", err, res))
	}
	fmt.Printf("concurrent STREAMING jobs with checkpoint.interval = 1000 on the multi-host Temporal cluster (%d s windows):\n", *scaleWindow)
	fmt.Printf("  %5s %6s %8s %8s %8s | per checkpoint: %5s %5s %5s %5s %5s %5s\n", "jobs", "ckpts", "p50 ms", "p99 ms", "max ms",
		"wft", "sig", "act", "timer", "mark", "events")
	carried := 0
	sc := bufio.NewScanner(strings.NewReader(string(res)))
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "scale ")
		if !ok {
			continue
		}
		var jobs, n int
		var p50, p99, most, wft, sig, act, timer, mark, events float64
		if _, err := fmt.Sscanf(v, "%d %d %f %f %f %f %f %f %f %f %f", &jobs, &n, &p50, &p99, &most, &wft, &sig, &act, &timer, &mark, &events); err != nil {
			continue
		}
		fmt.Printf("  %5d %6d %8.1f %8.1f %8.1f | %21.2f %5.2f %5.2f %5.2f %5.2f %6.2f\n", jobs, n, p50, p99, most, wft, sig, act, timer, mark, events)
		if p99 <= 1000 {
			carried = jobs
		}
		// Temporal Cloud's actions: signals, activities, timers, and the local activities
		// of a workflow task (markers)
		actions := sig + act + timer + mark
		results.add(comparison{Section: "scale", Name: fmt.Sprintf("%d jobs: checkpoint p99", jobs), Secs: p99 / 1e3, Runs: n,
			Target: "< 1 s", Note: fmt.Sprintf("p50 %.0f ms; per checkpoint %.1f workflow tasks, %.1f signals, %.1f activities, %.1f timers, %.1f markers (%.1f actions), %.1f events",
				p50, wft, sig, act, timer, mark, actions, events)})
	}
	results.add(comparison{Section: "scale", Name: "concurrent jobs with p99 under 1 s", Value: float64(carried), Runs: 1,
		Note: "doubling steps; the last step at or under 1 s"})
	fmt.Printf("  carried with p99 under 1 s: %d jobs\n", carried)
}
