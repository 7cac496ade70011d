package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Anchors are the bare Go programs of bench/anchors; probes the in-process measurements of
// bench/probe. make bench builds both beside strait. They run as processes of their own, and
// this program stays small: a child's peak RSS as the kernel reports it is at least its
// parent's (the parent's memory counts until the exec).

var (
	anchorsBin = flag.String("anchors", "", "the anchors binary (default: bench-anchors beside the strait binary)")
	probeBin   = flag.String("probe", "", "the probe binary (default: bench-probe beside the strait binary)")
)

// beside is path, or else name in the strait binary's folder.
func beside(path, name string) string {
	if path != "" {
		return path
	}
	return filepath.Join(filepath.Dir(*bin), name)
}

// runAnchor runs an anchor as a process on procs cores and returns its time (as it measured
// it, start-up excluded) and its peak RSS.
func runAnchor(name string, procs int, args ...string) (secs float64, rssMB int64) {
	return runTimed(beside(*anchorsBin, "bench-anchors"), "anchor-secs ", procs, append([]string{name}, args...)...)
}

// runTimed runs a program that prints its own time after prefix, on procs cores, and returns
// that time and the process's peak RSS.
func runTimed(path, prefix string, procs int, args ...string) (secs float64, rssMB int64) {
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", procs))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		fail(fmt.Errorf("%s %s: %v\n%s", path, strings.Join(args, " "), err, out.String()))
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			fmt.Sscan(v, &secs)
		}
	}
	if secs == 0 {
		fail(fmt.Errorf("%s %s: no time in its output:\n%s", path, strings.Join(args, " "), out.String()))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rssMB = ru.Maxrss / 1024
	}
	return secs, rssMB
}

// runProbe runs a probe in a process of its own and returns its output.
func runProbe(name string, procs int, args ...string) string {
	path := beside(*probeBin, "bench-probe")
	cmd := exec.Command(path, append([]string{name}, args...)...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", procs), "TEMPORAL_ADDRESS=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		fail(fmt.Errorf("probe %s (%s): %v\n%s", name, path, err, out.String()))
	}
	return out.String()
}
