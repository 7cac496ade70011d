package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/jobclient"
)

// scaleProbe starts STREAMING jobs on a running cluster, doubling their number, and after
// each step reads every job's checkpoints of a window back from its pipeline's history:
//
//	probe scale <temporal address> <job.conf> <most jobs> <window seconds>
//
// It prints a line a step, "scale <jobs> <checkpoints> <p50 ms> <p99 ms> <max ms>
// <workflow tasks> <signals> <activities> <timers> <markers> <events>" (the last six per
// checkpoint), and stops after the step whose p99 passes a second. The jobs are cancelled
// at the end.
func scaleProbe(args []string) error {
	if len(args) != 4 {
		return fmt.Errorf("want the Temporal address, the job's config, the most jobs and the window in seconds")
	}
	most, err := strconv.Atoi(args[2])
	if err != nil || most < 1 {
		return fmt.Errorf("most jobs %q: want a positive number", args[2])
	}
	secs, err := strconv.Atoi(args[3])
	if err != nil || secs < 1 {
		return fmt.Errorf("window %q: want a positive number of seconds", args[3])
	}
	text, err := os.ReadFile(args[1])
	if err != nil {
		return err
	}
	quiet := sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	c, err := client.Dial(client.Options{HostPort: args[0], Namespace: "default", Logger: quiet})
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()
	var jobs []int64
	defer func() {
		for _, id := range jobs {
			if err := jobclient.Cancel(ctx, c, id); err != nil {
				fmt.Fprintf(os.Stderr, "probe: cancel job %d: %v\n", id, err)
			}
		}
	}()
	for n := 1; n <= most; n *= 2 {
		for len(jobs) < n {
			id, _, err := jobclient.Start(ctx, c, jobclient.StartRequest{Source: contract.ConfigSource{File: args[1], Text: string(text)}})
			if err != nil {
				return fmt.Errorf("start job %d: %w", len(jobs)+1, err)
			}
			jobs = append(jobs, id)
		}
		// the new jobs placed and checkpointing before the window opens
		time.Sleep(10 * time.Second)
		from := time.Now()
		time.Sleep(time.Duration(secs) * time.Second)
		to := time.Now()
		var trips []float64
		var cost ckptCost
		for _, id := range jobs {
			events, err := history(ctx, c, contract.PipelineWorkflowID(id, 1))
			if err != nil {
				return err
			}
			t, k := windowCheckpoints(events, from, to)
			trips = append(trips, t...)
			cost.add(k)
		}
		if len(trips) == 0 {
			return fmt.Errorf("%d jobs: no checkpoint completed in %d s", n, secs)
		}
		sort.Float64s(trips)
		per := func(v int) float64 { return float64(v) / float64(cost.checkpoints) }
		p99 := trips[min(len(trips)-1, len(trips)*99/100)]
		fmt.Printf("scale %d %d %.1f %.1f %.1f %.2f %.2f %.2f %.2f %.2f %.2f\n", n, len(trips), trips[len(trips)/2], p99,
			trips[len(trips)-1], per(cost.workflowTasks), per(cost.signals), per(cost.activities), per(cost.timers),
			per(cost.markers), per(cost.events))
		if p99 > 1000 {
			break
		}
	}
	return nil
}

// ckptCost counts the history events of checkpoints by kind.
type ckptCost struct {
	checkpoints, workflowTasks, signals, activities, timers, markers, events int
}

func (c *ckptCost) add(o ckptCost) {
	c.checkpoints += o.checkpoints
	c.workflowTasks += o.workflowTasks
	c.signals += o.signals
	c.activities += o.activities
	c.timers += o.timers
	c.markers += o.markers
	c.events += o.events
}

// windowCheckpoints returns the round trips (trigger scheduled to the checkpoint's last
// activity completed, in ms) of the checkpoints triggered in [from, to) that completed before
// the next one was triggered, and what their events were, from each trigger to the next.
func windowCheckpoints(events []*historypb.HistoryEvent, from, to time.Time) ([]float64, ckptCost) {
	var triggers []int // index of each checkpoint's trigger
	kind := map[int64]string{}
	for i, e := range events {
		if e.GetEventType() == enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED {
			a := e.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
			kind[e.GetEventId()] = a
			if a == contract.TriggerCheckpointActivity {
				triggers = append(triggers, i)
			}
		}
	}
	var trips []float64
	var cost ckptCost
	for k := 0; k+1 < len(triggers); k++ {
		start, end := triggers[k], triggers[k+1]
		at := events[start].GetEventTime().AsTime()
		if at.Before(from) || !at.Before(to) {
			continue
		}
		var one ckptCost
		var done time.Time
		acked := false
		for _, e := range events[start:end] {
			one.events++
			switch e.GetEventType() {
			case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
				one.workflowTasks++
			case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
				one.signals++
				if e.GetWorkflowExecutionSignaledEventAttributes().GetSignalName() == contract.TaskReportSignal {
					acked = true
				}
			case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
				one.activities++
			case enumspb.EVENT_TYPE_TIMER_STARTED:
				one.timers++
			case enumspb.EVENT_TYPE_MARKER_RECORDED:
				one.markers++
				if acked {
					done = e.GetEventTime().AsTime()
				}
			case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
				switch kind[e.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()] {
				case contract.PersistCheckpointActivity, contract.CommitActivity, contract.CommitCheckpointActivity:
					done = e.GetEventTime().AsTime()
				}
			}
		}
		if !acked || done.IsZero() {
			continue // did not complete before the next trigger
		}
		one.checkpoints = 1
		cost.add(one)
		trips = append(trips, float64(done.Sub(at).Microseconds())/1e3)
	}
	return trips, cost
}
