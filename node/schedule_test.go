package node_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/jobclient"
)

// TestSchedule: a schedule runs its job as jobs of their own (strait-job-<id>, each with a
// fresh id) that finish like submitted ones; listing shows the schedule; a trigger runs it at
// once; deleting it stops further runs; names and specs are checked.
func TestSchedule(t *testing.T) {
	n := cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	src := contract.ConfigSource{File: "job.conf", Text: `
env { parallelism = 1, job.mode = BATCH }
source { SeqSource { rows = 50 } }
sink { KeepSink {} }`}
	name := "every-hour"
	if err := jobclient.CreateSchedule(ctx, n.Client, name, src, "scheduled", jobclient.ScheduleSpec{Every: time.Hour, Cron: []string{"0 2 * * *"}}); err != nil {
		t.Fatal(err)
	}
	if err := jobclient.CreateSchedule(ctx, n.Client, name, src, "scheduled", jobclient.ScheduleSpec{Every: time.Hour}); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Fatalf("second create: %v", err)
	}
	list, err := jobclient.ListSchedules(ctx, n.Client)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range list {
		if s.Name == name {
			found = true
			if s.Spec != "cron 0 2 * * *; every 1h0m0s" || s.JobName != "scheduled" || len(s.Next) == 0 {
				t.Errorf("listed as %+v", s)
			}
		}
	}
	if !found {
		t.Fatalf("schedule not listed: %+v", list)
	}
	// run it now, twice (a second apart: a schedule names its runs by the second): two
	// jobs, each its own id, each finished
	before := time.Now()
	var last time.Time
	for i := range 2 {
		for i > 0 && time.Now().Unix() <= last.Unix() {
			time.Sleep(10 * time.Millisecond) // until the clock's next second
		}
		if err := jobclient.TriggerSchedule(ctx, n.Client, name); err != nil {
			t.Fatal(err)
		}
		last = time.Now()
	}
	var ids []int64
	deadline := time.Now().Add(20 * time.Second)
	for len(ids) < 2 {
		if time.Now().After(deadline) {
			all, _ := jobclient.List(ctx, n.Client, "default", "")
			t.Fatalf("scheduled jobs did not finish: %v; jobs: %+v", ids, all)
		}
		time.Sleep(200 * time.Millisecond)
		jobs, err := jobclient.List(ctx, n.Client, "default", string(contract.JobFinished))
		if err != nil {
			t.Fatal(err)
		}
		ids = ids[:0]
		for _, j := range jobs {
			if j.Name == "scheduled" && j.Started.After(before.Add(-time.Second)) {
				ids = append(ids, j.JobID)
			}
		}
	}
	if ids[0] == ids[1] {
		t.Fatalf("two runs share job id %d", ids[0])
	}
	for _, id := range ids {
		st, err := jobclient.Status(ctx, n.Client, id)
		if err != nil {
			t.Fatal(err)
		}
		if st.State != contract.JobFinished || st.Counters.RowsWritten != 50 {
			t.Fatalf("job %d: %s, %+v", id, st.State, st.Counters)
		}
	}
	// the launcher's history replays (and is recorded with the others)
	resp, err := n.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default",
		Query: fmt.Sprintf("WorkflowType = '%s'", contract.ScheduledJobWorkflowName)})
	if err != nil || len(resp.GetExecutions()) == 0 {
		t.Fatalf("launcher runs: %v %v", resp, err)
	}
	replayAndRecord(t, n, "scheduled", resp.GetExecutions()[0].GetExecution().GetWorkflowId())
	if err := jobclient.DeleteSchedule(ctx, n.Client, name); err != nil {
		t.Fatal(err)
	}
	if err := jobclient.DeleteSchedule(ctx, n.Client, name); err == nil || !strings.Contains(err.Error(), "no schedule every-hour") {
		t.Fatalf("second delete: %v", err)
	}
	for _, c := range []struct {
		name string
		spec jobclient.ScheduleSpec
		want string
	}{
		{"bad name!", jobclient.ScheduleSpec{Every: time.Hour}, "use letters"},
		{"no-spec", jobclient.ScheduleSpec{}, "give a cron expression or an interval"},
		{"too-fast", jobclient.ScheduleSpec{Every: time.Millisecond}, "a second or more"},
	} {
		if err := jobclient.CreateSchedule(ctx, n.Client, c.name, src, "x", c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
