package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

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
	id := submitJob(bin, addr, filepath.Join(dir, "slow-sink.conf"), slowSinkJob)
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

// submitJob writes the job config text to file f, submits it to the cluster at addr and
// returns the job's id.
func submitJob(bin, addr, f, text string) string {
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		fail(err)
	}
	out, err := exec.Command(bin, "job", "submit", "--address", addr, f).Output()
	if err != nil {
		fail(fmt.Errorf("submit: %v", err))
	}
	return strings.TrimSpace(string(out))
}

func clusterJob(bin, addr, dir, text string) float64 {
	id := submitJob(bin, addr, filepath.Join(dir, fmt.Sprintf("cluster-%d.conf", time.Now().UnixNano())), text)
	if out, err := exec.Command(bin, "job", "wait", "--address", addr, id).CombinedOutput(); err != nil {
		fail(fmt.Errorf("job %s: %v\n%s", id, err, out))
	}
	out, err := exec.Command(bin, "job", "status", "--json", "--address", addr, id).Output()
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
