package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/jobclient"
	"github.com/strait-dev/strait/node"
)

// runCmd runs a job as SeaTunnel's client does: on an embedded Temporal in this process
// (local) or submitted to a cluster, waiting for its end unless --async.
func runCmd(args []string) int {
	f := newRunFlags()
	if err := f.parse(args); err != nil {
		if !helpShown {
			fmt.Fprintf(os.Stderr, "strait run: %v\n", err)
		}
		return 2
	}
	if a := f.action(); a != "run" {
		return f.jobCommand(a)
	}
	if f.config == "" {
		fmt.Fprintln(os.Stderr, "strait run: give one job config (-c job.conf)")
		return 2
	}
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelInfo
	}
	log := newLogger(level)
	runPhases.last = time.Now()

	// the config is checked before anything starts
	src, plan, code := loadJob(f.config, f.vars, f.name)
	if plan == nil {
		return code
	}
	if f.check {
		fmt.Printf("config OK: %s\n", f.config)
		return 0
	}
	cfg, code := f.nodeConfig(log)
	if code != 0 {
		return code
	}
	runPhases.mark("config")
	ctx, stop, n, shutdown := startNode(cfg)
	defer stop()
	if n == nil {
		return 1
	}
	runPhases.mark("node")
	defer func() {
		if n.Embedded && ctx.Err() == nil {
			// local mode: the job has ended (committed, or canceled and cleaned up) and the
			// in-memory server holds nothing anyone reads again; the process exits now
			// rather than spend a second or more stopping it gracefully
			return
		}
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = shutdown(sctx)
	}()

	req := jobclient.StartRequest{JobID: f.jobID, Source: src, Name: plan.Job.Name}
	if f.restore > 0 {
		req.JobID, req.Restore = f.restore, true
	}
	submitted := time.Now()
	id, run, err := jobclient.Start(ctx, n.Client, req)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return submitExit(err)
	}
	runPhases.mark("submit")
	if f.async {
		fmt.Println(id)
		fmt.Fprintf(os.Stderr, "strait: job %d submitted (workflow %s); follow it with: strait job status %d\n", id, run.GetID(), id)
		return 0
	}
	fmt.Fprintf(os.Stderr, "strait: job %d submitted (workflow %s)\n", id, run.GetID())
	return f.follow(ctx, n, id, run, submitted)
}

// nodeConfig is the process this run needs: an embedded Temporal with a worker and a
// runner (local), or only a client of the cluster's Temporal.
func (f *runFlags) nodeConfig(log *slog.Logger) (node.Config, int) {
	eng, ok := loadEngine(f.engine)
	if !ok {
		return node.Config{}, 2
	}
	def := ""
	if f.master == "cluster" {
		def = defaultAddress
	}
	opts, err := f.conn.options(def)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return node.Config{}, 2
	}
	cfg := node.Config{Address: opts.HostPort, Namespace: opts.Namespace, Connection: opts, Logger: log, CheckpointDir: f.ckptDir, Engine: eng}
	if f.master == "local" {
		cfg.Address = "" // local mode runs on its own embedded server, whatever the environment names
	}
	if cfg.Address == "" {
		if f.async {
			fmt.Fprintln(os.Stderr, "strait run: --async needs a cluster (-m cluster, --address): a local job ends with this process")
			return node.Config{}, 2
		}
		cfg.Worker = true
		cfg.Runners = []node.RunnerSpec{{ID: "local", Slots: f.slots}}
		cfg.Embedded.OneJob = true
		if err := useLocalKey(); err != nil {
			fmt.Fprintf(os.Stderr, "strait run: %v\n", err)
			return node.Config{}, 2
		}
	}
	return cfg, 0
}

// follow shows the job's progress on a terminal and waits for its end; an interrupt
// cancels the job (unless --close-job=false) and still waits for it.
func (f *runFlags) follow(ctx context.Context, n *node.Node, id int64, run client.WorkflowRun, submitted time.Time) int {
	progressCtx, stopProgress := context.WithCancel(context.Background())
	progressDone := make(chan struct{})
	if isTerminal(os.Stderr) {
		go func() {
			defer close(progressDone)
			jobclient.Progress(progressCtx, os.Stderr, progressSource(n, id))
		}()
	} else {
		close(progressDone)
	}
	waitCtx, detach := context.WithCancel(context.Background())
	defer detach()
	go func() {
		<-ctx.Done()
		if !f.closeJob && !n.Embedded {
			fmt.Fprintf(os.Stderr, "\nstrait: job %d keeps running; follow it with: strait job status %d\n", id, id)
			detach()
			return
		}
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = n.Client.CancelWorkflow(cctx, run.GetID(), "")
	}()
	st, err := jobclient.Wait(waitCtx, run)
	stopProgress()
	<-progressDone
	if err != nil {
		if waitCtx.Err() != nil {
			return 0
		}
		fmt.Fprintf(os.Stderr, "strait: job %d: %v\n", id, err)
		return 1
	}
	if os.Getenv("STRAIT_TIMINGS") != "" {
		// for benchmarks: the job's own duration and the client's submit-to-end time, and
		// what each step of this command took
		fmt.Fprintf(os.Stderr, "strait: timings: job %.3fs submit-to-end %.3fs\n",
			st.Finished.Sub(st.Started).Seconds(), time.Since(submitted).Seconds())
		runPhases.mark("wait")
		fmt.Fprintf(os.Stderr, "strait: phases:%s\n", runPhases.text)
	}
	if st.JobID == 0 {
		st.JobID = id
	}
	return finish(st)
}

// runPhases times the steps of `strait run` for STRAIT_TIMINGS: the config read and
// planned, the node started (embedded server, client, worker, runner), the job submitted,
// and the wait for its end.
var runPhases phaseTimer

type phaseTimer struct {
	last time.Time
	text string
}

func (p *phaseTimer) mark(name string) {
	now := time.Now()
	p.text += fmt.Sprintf(" %s %.3fs", name, now.Sub(p.last).Seconds())
	p.last = now
}

// progressSource gives the job's live counts: from the runner in this process, or by
// asking the cluster for the job's status (at most once a second).
func progressSource(n *node.Node, id int64) func() contract.Counters {
	if n.Runner != nil {
		return func() contract.Counters { return n.Runner.JobCounters(id) }
	}
	var last contract.Counters
	var at time.Time
	return func() contract.Counters {
		if time.Since(at) < time.Second {
			return last
		}
		at = time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if st, err := jobclient.Status(ctx, n.Client, id); err == nil {
			last = st.Counters
		}
		return last
	}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
