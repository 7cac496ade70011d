package taskrunner

import (
	"bufio"
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/contract"
)

// LoadEvery is how often a runner reports its CPU and memory use to the resource manager,
// the input of the SYSTEM_LOAD strategy: often enough to steer allocations, rarely enough
// that the reports are a small part of the manager's history.
const LoadEvery = 30 * time.Second

// ReportLoad measures the machine's CPU and memory use every interval and hands it to send
// until ctx ends. A runner out of touch with the control plane skips its reports; a report
// that fails is logged and the next one goes out as usual.
func (r *Runner) ReportLoad(ctx context.Context, every time.Duration, send func(context.Context, contract.Load) error) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var cpu cpuSampler
	cpu.sample()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if !r.InTouch() {
			continue
		}
		load := contract.Load{CPU: cpu.sample(), Memory: memoryUse(), At: time.Now()}
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if err := send(sctx, load); err != nil {
			r.log.Debug("load report not delivered", "error", err)
		}
		cancel()
	}
}

// cpuSampler measures the machine's CPU use between two samples of /proc/stat.
type cpuSampler struct{ idle, total uint64 }

// sample is the fraction of CPU time spent busy since the previous sample (0 for the
// first, or where /proc/stat cannot be read).
func (s *cpuSampler) sample() float64 {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0
	}
	defer f.Close()
	idle, total, ok := cpuTimes(f)
	if !ok {
		return 0
	}
	dt, di := total-s.total, idle-s.idle
	first := s.total == 0
	s.total, s.idle = total, idle
	if first || dt == 0 {
		return 0
	}
	return 1 - float64(di)/float64(dt)
}

// cpuTimes reads the idle (idle and iowait) and total jiffies of the first line of a
// /proc/stat.
func cpuTimes(r io.Reader) (idle, total uint64, ok bool) {
	sc := bufio.NewScanner(r)
	if !sc.Scan() {
		return 0, 0, false
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 5 || fields[0] != "cpu" {
		return 0, 0, false
	}
	for i, v := range fields[1:] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		total += n
		if i == 3 || i == 4 { // idle, iowait
			idle += n
		}
	}
	return idle, total, true
}

// memoryUse is the fraction of the machine's memory in use, from /proc/meminfo.
func memoryUse() float64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	return memoryFraction(f)
}

// memoryFraction is 1 - MemAvailable/MemTotal of a /proc/meminfo; 0 without a total.
func memoryFraction(r io.Reader) float64 {
	var total, avail float64
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		v, err := strconv.ParseFloat(fields[1], 64)
		if err != nil {
			continue
		}
		switch fields[0] {
		case "MemTotal:":
			total = v
		case "MemAvailable:":
			avail = v
		}
	}
	if total == 0 {
		return 0
	}
	return 1 - avail/total
}
