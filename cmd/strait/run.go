package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/jobclient"
	"github.com/strait-dev/strait/node"
)

func runCmd(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var vars multi
	fs.Var(&vars, "i", "variable key=value (repeatable)")
	name := fs.String("n", "", "job name (overrides env.job.name)")
	address := fs.String("address", envOr("TEMPORAL_ADDRESS", ""), "Temporal frontend host:port; empty starts an embedded server")
	namespace := fs.String("namespace", envOr("TEMPORAL_NAMESPACE", "default"), "Temporal namespace")
	slots := fs.Int("slots", 4, "slots of the local runner (embedded mode)")
	jobID := fs.Int64("job-id", 0, "job id (default: a new one)")
	restore := fs.Int64("restore", 0, "restore this job id from its latest savepoint or checkpoint")
	ckptDir := fs.String("checkpoint-dir", "", "checkpoint store root (default <tmp>/strait/checkpoints)")
	engineCfg := engineFlag(fs)
	verbose := fs.Bool("v", false, "log what the engine does")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprintln(os.Stderr, "strait run: give one job config")
		return 2
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)

	// the config is checked before anything starts
	src, plan, code := loadJob(pos[0], vars, *name)
	if plan == nil {
		return code
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	eng, ok := loadEngine(*engineCfg)
	if !ok {
		return 2
	}
	cfg := node.Config{Address: *address, Namespace: *namespace, Logger: log, CheckpointDir: *ckptDir, Engine: eng}
	if *address == "" {
		cfg.Worker = true
		cfg.Runners = []node.RunnerSpec{{ID: "local", Slots: *slots}}
	}
	n, shutdown, err := node.New(ctx, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = shutdown(sctx)
	}()

	req := jobclient.StartRequest{JobID: *jobID, Source: src, Name: plan.Job.Name}
	if *restore > 0 {
		req.JobID, req.Restore = *restore, true
	}
	submitted := time.Now()
	id, run, err := jobclient.Start(ctx, n.Client, req)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return submitExit(err)
	}
	fmt.Fprintf(os.Stderr, "strait: job %d submitted (workflow %s)\n", id, run.GetID())

	progressCtx, stopProgress := context.WithCancel(context.Background())
	progressDone := make(chan struct{})
	if n.Runner != nil && isTerminal(os.Stderr) {
		go func() {
			defer close(progressDone)
			jobclient.Progress(progressCtx, os.Stderr, func() contract.Counters { return n.Runner.JobCounters(id) })
		}()
	} else {
		close(progressDone)
	}
	// Ctrl-C cancels the job cleanly and still waits for its end.
	go func() {
		<-ctx.Done()
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = n.Client.CancelWorkflow(cctx, run.GetID(), "")
	}()
	st, err := jobclient.Wait(context.Background(), run)
	stopProgress()
	<-progressDone
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: job %d: %v\n", id, err)
		return 1
	}
	if os.Getenv("STRAIT_TIMINGS") != "" {
		// for benchmarks: the job's own duration and the client's submit-to-end time
		fmt.Fprintf(os.Stderr, "strait: timings: job %.3fs submit-to-end %.3fs\n",
			st.Finished.Sub(st.Started).Seconds(), time.Since(submitted).Seconds())
	}
	if st.JobID == 0 {
		st.JobID = id
	}
	return finish(st)
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
