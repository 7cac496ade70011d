package node

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/strait-dev/strait/activities"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/jobclient"
	"github.com/strait-dev/strait/taskrunner"
)

// monitor keeps the runner's lease (taskrunner.KeepLease: self-fencing when out of touch
// with Temporal, registering again once declared lost) and every loadEvery reports its CPU
// and memory use, the input of the SYSTEM_LOAD strategy.
func monitor(ctx context.Context, c client.Client, r *taskrunner.Runner, info contract.RunnerInfo, log *slog.Logger, loadEvery time.Duration) {
	go reportLoad(ctx, c, r, log, loadEvery)
	r.KeepLease(ctx,
		func(ctx context.Context) error {
			_, err := c.CheckHealth(ctx, &client.CheckHealthRequest{})
			return err
		},
		func(ctx context.Context) (bool, error) { return jobclient.RunnerAlive(ctx, c, r.ID()) },
		func(ctx context.Context) error { return activities.RegisterRunner(ctx, c, info) })
}

func reportLoad(ctx context.Context, c client.Client, r *taskrunner.Runner, log *slog.Logger, every time.Duration) {
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
		if err := c.SignalWorkflow(sctx, contract.ResourceManagerID, "", contract.RunnerLoadSignal,
			contract.RunnerLoad{RunnerID: r.ID(), Load: load}); err != nil {
			log.Debug("load report not delivered", "error", err)
		}
		cancel()
	}
}

// cpuSampler measures the machine's CPU use between two samples from /proc/stat.
type cpuSampler struct{ idle, total uint64 }

func (s *cpuSampler) sample() float64 {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 5 || fields[0] != "cpu" {
		return 0
	}
	var total, idle uint64
	for i, v := range fields[1:] {
		n, _ := strconv.ParseUint(v, 10, 64)
		total += n
		if i == 3 || i == 4 { // idle, iowait
			idle += n
		}
	}
	dt, di := total-s.total, idle-s.idle
	first := s.total == 0
	s.total, s.idle = total, idle
	if first || dt == 0 {
		return 0
	}
	return 1 - float64(di)/float64(dt)
}

// memoryUse is the fraction of the machine's memory in use, from /proc/meminfo.
func memoryUse() float64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	var total, avail float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		v, _ := strconv.ParseFloat(fields[1], 64)
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
