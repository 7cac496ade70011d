package main

import (
	"bufio"
	"flag"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Start-up: the whole process of `strait run` of a one-row job, wall clock, and what it
// spends its time on. The phases come from two places: `strait run` itself (STRAIT_TIMINGS
// prints config, node, submit and wait), and a process of this program that composes the
// same node as `strait run` does (node.Module) with a logger of fx's events, which times
// every constructor (the embedded server, the client's dial, the checkpoint store, the
// runners) and every start hook (search attributes and the jobs worker, the runner's worker
// and its registration).

const oneRowJob = `env { job.mode = "BATCH", parallelism = 1 }
source { FakeSource { plugin_output = "fake", row.num = 1, schema = { fields { id = bigint, name = string } } } }
sink { Console { plugin_input = "fake", log.print.data = false } }
`

var startupRuns = flag.Int("startup-runs", 5, "runs of the one-row job for the start-up measure, the median taken")

func startupBench(bin, dir string) {
	job := filepath.Join(dir, "one-row.conf")
	writeFile(job, oneRowJob)
	fmt.Printf("start-up: strait run of a one-row job, whole process (median of %d runs):\n", *startupRuns)
	var walls []float64
	phases := map[string][]float64{}
	var rss int64
	for range *startupRuns {
		r := runJob(bin, job, 2)
		walls, rss = append(walls, r.wall), max(rss, r.maxRSSKB/1024)
		for k, v := range r.phases {
			phases[k] = append(phases[k], v)
		}
		inside := 0.0
		for _, v := range r.phases {
			inside += v
		}
		phases["outside run (exec, runtime and package init, exit)"] = append(phases["outside run (exec, runtime and package init, exit)"], r.wall-inside)
	}
	results.add(comparison{Section: "startup", Name: "strait run, one-row job, wall", Secs: median(walls), PeakRSSMB: rss, Target: "< 0.5 s", Runs: len(walls)})
	for _, k := range sortedKeys(phases) {
		results.add(comparison{Section: "startup", Name: "  phase: " + k, Secs: median(phases[k]), Runs: len(phases[k]), Note: "strait run's STRAIT_TIMINGS"})
	}
	// the node's parts, timed by fx in a process of their own
	parts := map[string][]float64{}
	for range *startupRuns {
		for k, v := range startupParts(dir) {
			parts[k] = append(parts[k], v)
		}
	}
	for _, k := range sortedKeys(parts) {
		results.add(comparison{Section: "startup", Name: "  node: " + k, Secs: median(parts[k]), Runs: len(parts[k]), Note: "node.Module timed by fx, a process of its own"})
	}
}

// startupParts runs the "phases" probe on the one-row job and reads its "phase <name> <secs>" lines.
func startupParts(dir string) map[string]float64 {
	job := filepath.Join(dir, "one-row.conf")
	out := runProbe("phases", 2, filepath.Join(dir, "ckpt-phases"), job)
	parts := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "phase "); ok {
			i := strings.LastIndexByte(v, ' ')
			var s float64
			fmt.Sscan(v[i+1:], &s)
			parts[v[:i]] = s
		}
	}
	return parts
}

func sortedKeys(m map[string][]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
