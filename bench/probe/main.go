// Command probe measures, in a process of its own, what make bench cannot see from outside
// strait run: it composes the node `strait run` starts in local mode (node.Module: the
// embedded one-job server, a worker, a runner) and
//
//	probe phases <checkpoint dir> <job.conf>       times every constructor and start hook of
//	                                               the node (fx's events), then the job's steps
//	probe checkpoint <checkpoint dir> <job.conf>   runs a job with checkpoints and prints each
//	                                               step of its checkpoints, read back from the
//	                                               pipeline workflow's history
//	probe scale <address> <job.conf> <most> <secs> starts STREAMING jobs on a running cluster,
//	                                               doubling their number, and prints each
//	                                               step's checkpoint latency and what a
//	                                               checkpoint costs Temporal
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"github.com/strait-dev/strait/bench/internal/subcmd"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/jobclient"
	"github.com/strait-dev/strait/node"
	"github.com/strait-dev/strait/planner"
	"github.com/strait-dev/strait/secret"
	"github.com/strait-dev/strait/worker"

	_ "github.com/strait-dev/strait/connectors/all"
	_ "github.com/strait-dev/strait/transform/all"
)

var probes = map[string]func(args []string) error{
	"phases":     phasesProbe,
	"checkpoint": checkpointProbe,
	"scale":      scaleProbe,
}

func main() {
	f := subcmd.Lookup("probe", "probe", "phases, checkpoint or scale", probes)
	if err := f(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "probe %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// jobConfig reads the job config of a probe whose args are the checkpoint folder and the
// config's file.
func jobConfig(args []string) ([]byte, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("want the checkpoint folder and the job's config")
	}
	return os.ReadFile(args[1])
}

// phasesProbe composes the local node as `strait run` does, times its parts, then runs the
// job on it.
func phasesProbe(args []string) error {
	text, err := jobConfig(args)
	if err != nil {
		return err
	}
	ctx := context.Background()
	timer := &fxTimer{}
	began := time.Now()
	n, _, err := startNode(ctx, args[0], fx.WithLogger(func() fxevent.Logger { return timer }))
	if err != nil {
		return err
	}
	started := time.Now()
	for _, p := range timer.parts {
		fmt.Printf("phase %s %.6f\n", p.name, p.secs)
	}
	fmt.Printf("phase node total %.6f\n", started.Sub(began).Seconds())
	if err := startWorkerParts(ctx, n); err != nil {
		return err
	}
	started = time.Now()
	src := contract.ConfigSource{File: args[1], Text: string(text)}
	if _, err := planner.PlanContext(ctx, src, connector.Job{}); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	fmt.Printf("phase plan (client side) %.6f\n", time.Since(started).Seconds())
	submitted := time.Now()
	_, run, err := jobclient.Start(ctx, n.Client, jobclient.StartRequest{Source: src})
	if err != nil {
		return err
	}
	fmt.Printf("phase submit %.6f\n", time.Since(submitted).Seconds())
	waited := time.Now()
	st, err := jobclient.Wait(ctx, run)
	if err != nil {
		return err
	}
	fmt.Printf("phase job: submit to running (plan activity, allocate, deploy) %.6f\n", st.Started.Sub(submitted).Seconds())
	fmt.Printf("phase job: running to finished %.6f\n", st.Finished.Sub(st.Started).Seconds())
	fmt.Printf("phase job: finished to client %.6f\n", time.Since(waited).Seconds()-st.Finished.Sub(waited).Seconds())
	return nil
}

// startWorkerParts times again, once the node is up, the two things the worker's start hook
// does: make sure of the search attributes (a list, as they exist by now) and start a jobs
// worker (a second one on the same queue, stopped at once). Warm numbers: what each costs
// beside the other, not their first run.
func startWorkerParts(ctx context.Context, n *node.Node) error {
	t := time.Now()
	if err := worker.EnsureSearchAttributes(ctx, n.Client, "default"); err != nil {
		return err
	}
	fmt.Printf("phase again: search attributes (listed, all present) %.6f\n", time.Since(t).Seconds())
	t = time.Now()
	w := worker.NewJobsWorker(n.Client, slog.Default(), nil, nil)
	if err := w.Start(); err != nil {
		return err
	}
	fmt.Printf("phase again: a jobs worker built and started %.6f\n", time.Since(t).Seconds())
	w.Stop()
	return nil
}

// startNode composes the node of `strait run` in local mode: an embedded one-job server, a
// worker and a runner, checkpoints in dir.
func startNode(ctx context.Context, dir string, opts ...fx.Option) (*node.Node, func(context.Context) error, error) {
	k, err := secret.NewKey()
	if err != nil {
		return nil, nil, err
	}
	secret.Use(k)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := node.Config{Logger: log, CheckpointDir: dir, Worker: true, Runners: []node.RunnerSpec{{ID: "local"}}}
	cfg.Embedded.OneJob = true
	var n *node.Node
	app := fx.New(append([]fx.Option{node.Module(cfg), fx.Populate(&n), fx.StartTimeout(2 * time.Minute)}, opts...)...)
	if err := app.Err(); err != nil {
		return nil, nil, err
	}
	if err := app.Start(ctx); err != nil {
		return nil, nil, err
	}
	return n, app.Stop, nil
}

// fxTimer keeps how long each constructor and start hook of the node took.
type fxTimer struct {
	parts []struct {
		name string
		secs float64
	}
}

func (t *fxTimer) LogEvent(e fxevent.Event) {
	switch e := e.(type) {
	case *fxevent.Run:
		t.add("construct "+shortName(e.Name), e.Runtime)
	case *fxevent.OnStartExecuted:
		t.add("start hook of "+shortName(e.CallerName), e.Runtime)
	}
}

func (t *fxTimer) add(name string, d time.Duration) {
	if d < 100*time.Microsecond {
		return // not worth a line
	}
	t.parts = append(t.parts, struct {
		name string
		secs float64
	}{name, d.Seconds()})
}

// shortName drops the package path of a function's name.
func shortName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSuffix(s, "()")
}

// ckptSteps are the steps of a checkpoint, in order, as the probe prints them. The manifest
// is written by the PersistCheckpoint activity, or by a local activity inside the workflow
// task the last acknowledgement starts (then the persist steps have no events of their own
// and "ack signal to commit scheduled" holds them).
var ckptSteps = []string{
	"trigger: scheduled to started (runner's queue)",
	"trigger: started to completed",
	"trigger completed to the ack signal (barrier, snapshot, state written)",
	"ack signal to commit scheduled (workflow tasks, manifest written)",
	"  of which ack signal to persist scheduled (workflow task)",
	"  of which persist: scheduled to started",
	"  of which persist: started to completed (manifest written)",
	"  of which persist completed to commit scheduled (workflow task)",
	"commit: scheduled to started",
	"commit: started to completed",
	"round trip: trigger scheduled to completed",
	"completed to the next trigger (interval timer)",
	eventsStep,
}

// eventsStep counts a checkpoint's history events, from its trigger to the next one's: what
// it costs the server and the workflow's history budget.
const eventsStep = "history events per checkpoint (count, not ms)"

// checkpointProbe runs a job with checkpoints on a local node and prints the steps of its
// checkpoints: "ckpt <count> <median ms> <p90 ms> <step>".
func checkpointProbe(args []string) error {
	text, err := jobConfig(args)
	if err != nil {
		return err
	}
	ctx := context.Background()
	n, _, err := startNode(ctx, args[0])
	if err != nil {
		return err
	}
	id, run, err := jobclient.Start(ctx, n.Client, jobclient.StartRequest{Source: contract.ConfigSource{File: args[1], Text: string(text)}})
	if err != nil {
		return err
	}
	if _, err := jobclient.Wait(ctx, run); err != nil {
		return err
	}
	events, err := history(ctx, n.Client, contract.PipelineWorkflowID(id, 1))
	if err != nil {
		return err
	}
	steps := checkpointSteps(events)
	for i, name := range ckptSteps {
		ms := steps[i]
		if len(ms) == 0 {
			continue
		}
		sort.Float64s(ms)
		fmt.Printf("ckpt %d %.1f %.1f %s\n", len(ms), ms[len(ms)/2], ms[len(ms)*9/10], name)
	}
	return nil
}

func history(ctx context.Context, c client.Client, id string) ([]*historypb.HistoryEvent, error) {
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var out []*historypb.HistoryEvent
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("history of %s: %w", id, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// ckptTimes are the events of one checkpoint.
type ckptTimes struct {
	trigger, triggerStarted, triggerDone, ack, persist, persistStarted, persistDone time.Time
	commit, commitStarted, commitDone                                               time.Time
	// first is the index of its first event
	first int
}

// activity records that an activity of type a started (or, done, completed) at at; a commit
// keeps the start of its first attempt.
func (c *ckptTimes) activity(a string, at time.Time, done bool) {
	var started, completed *time.Time
	switch a {
	case contract.TriggerCheckpointActivity:
		started, completed = &c.triggerStarted, &c.triggerDone
	case contract.PersistCheckpointActivity:
		started, completed = &c.persistStarted, &c.persistDone
	case contract.CommitActivity, contract.CommitCheckpointActivity:
		if !done && !c.commitStarted.IsZero() {
			return // the first attempt's start stays
		}
		started, completed = &c.commitStarted, &c.commitDone
	default:
		return
	}
	if done {
		*completed = at
	} else {
		*started = at
	}
}

// checkpointSteps walks a pipeline's history, one checkpoint at a time (a checkpoint starts
// at a TriggerCheckpoint activity), and returns the milliseconds of each step of ckptSteps.
func checkpointSteps(events []*historypb.HistoryEvent) [][]float64 {
	kind := map[int64]string{} // scheduled event id → activity type
	var all []*ckptTimes
	var cur *ckptTimes
	for n, e := range events {
		at := e.GetEventTime().AsTime()
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			a := e.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
			kind[e.GetEventId()] = a
			switch {
			case a == contract.TriggerCheckpointActivity:
				cur = &ckptTimes{trigger: at, first: n}
				all = append(all, cur)
			case a == contract.PersistCheckpointActivity && cur != nil && !cur.ack.IsZero():
				cur.persist = at
			case isCommit(a) && cur != nil && !cur.ack.IsZero() && cur.commit.IsZero():
				cur.commit = at
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			if cur != nil {
				cur.activity(kind[e.GetActivityTaskStartedEventAttributes().GetScheduledEventId()], at, false)
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			if cur != nil {
				cur.activity(kind[e.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()], at, true)
			}
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
			if cur != nil && cur.ack.IsZero() && !cur.triggerStarted.IsZero() &&
				e.GetWorkflowExecutionSignaledEventAttributes().GetSignalName() == contract.TaskReportSignal {
				cur.ack = at
			}
		}
	}
	steps := make([][]float64, len(ckptSteps))
	ms := func(a, b time.Time) float64 { return float64(b.Sub(a).Microseconds()) / 1e3 }
	for i, c := range all {
		if c.commitDone.IsZero() || i+1 == len(all) {
			continue // the final checkpoint of the bounded job, or one that did not complete
		}
		vs := []float64{ms(c.trigger, c.triggerStarted), ms(c.triggerStarted, c.triggerDone), ms(c.triggerDone, c.ack),
			ms(c.ack, c.commit), -1, -1, -1, -1, ms(c.commit, c.commitStarted), ms(c.commitStarted, c.commitDone),
			ms(c.trigger, c.commitDone), ms(c.commitDone, all[i+1].trigger), float64(all[i+1].first - c.first)}
		if !c.persistDone.IsZero() {
			vs[4], vs[5], vs[6], vs[7] = ms(c.ack, c.persist), ms(c.persist, c.persistStarted), ms(c.persistStarted, c.persistDone), ms(c.persistDone, c.commit)
		}
		for k, v := range vs {
			if v >= 0 {
				steps[k] = append(steps[k], v)
			}
		}
	}
	return steps
}

// isCommit reports whether an activity commits sinks: one a checkpoint, or one a sink in
// histories from before.
func isCommit(activity string) bool {
	return activity == contract.CommitCheckpointActivity || activity == contract.CommitActivity
}
