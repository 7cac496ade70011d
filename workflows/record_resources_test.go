//go:build record

package workflows

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// TestRecordResourceManagerHistories records, on the embedded Temporal server, runs of the
// resource manager that end by continuing as new, and writes them to testdata for
// TestReplayRecordedHistories:
//
//	go test -tags record -count=1 -run TestRecordResourceManagerHistories ./workflows/
//
// The test plays the runners: it registers them by signal, holds their leases with a lease
// activity that heartbeats until it is canceled, and asks for slots by update.
func TestRecordResourceManagerHistories(t *testing.T) {
	c := recordServer(t)
	rr := &rmRecorder{t: t, c: c}
	for _, queue := range []string{contract.JobsQueue, contract.RunnerQueue("r1"), contract.RunnerQueue("r2")} {
		w := rr.startWorker(queue, queue == contract.JobsQueue)
		t.Cleanup(w.Stop)
	}
	for _, s := range rmScenarios {
		t.Run(s.name, func(t *testing.T) { rr.record(t, s) })
	}
}

// rmScenario is one recorded run: what the test does to the resource manager, and how many
// events the run takes in before it continues as new (the tunable
// ResourceEventsBeforeContinue).
type rmScenario struct {
	name   string
	events int
	play   func(t *testing.T, rr *rmRecorder, wid string)
}

// rmScenarios are the resource manager's recorded runs.
var rmScenarios = []rmScenario{
	// two runners register, a pipeline takes slots of the tagged one, a load report, the
	// slots go back, a runner registers again: the sixth event continues the run as new
	{name: "resources", events: 6, play: func(t *testing.T, rr *rmRecorder, wid string) {
		rr.register(t, contract.RunnerInfo{ID: "r1", TaskQueue: contract.RunnerQueue("r1"), Slots: 2, Tags: map[string]string{"zone": "a"}})
		rr.register(t, contract.RunnerInfo{ID: "r2", TaskQueue: contract.RunnerQueue("r2"), Slots: 2})
		a := rr.allocate(t, contract.AllocateRequest{Owner: "strait-job-1-p1#1", Groups: []contract.GroupNeed{{Group: 1, Slots: 2}},
			TagFilter: map[string]string{"zone": "a"}})
		if len(a.Grants) != 1 || a.Grants[0].RunnerID != "r1" {
			t.Fatalf("the zone=a slots went to %+v", a.Grants)
		}
		rr.signal(t, contract.RunnerLoadSignal, contract.RunnerLoad{RunnerID: "r2", Load: contract.Load{CPU: 0.5, Memory: 0.25}})
		rr.signal(t, contract.ReleaseSlotsSignal, contract.ReleaseRequest{Owner: "strait-job-1-p1#1"})
		rr.register(t, contract.RunnerInfo{ID: "r1", TaskQueue: contract.RunnerQueue("r1"), Slots: 2, Tags: map[string]string{"zone": "a"}})
	}},
	// two runners of zone a register; an update-tags update naming no runner it knows is
	// refused (no event), one moves r2 to zone b, a pipeline asking for zone b gets r2, its
	// slots go back, r2 registers again with its flags and keeps zone b: the sixth event
	// continues the run as new, and the next run still has r2 in zone b
	{name: "resources_tags", events: 6, play: func(t *testing.T, rr *rmRecorder, wid string) {
		zoneA := map[string]string{"zone": "a"}
		rr.register(t, contract.RunnerInfo{ID: "r1", TaskQueue: contract.RunnerQueue("r1"), Slots: 2, Tags: zoneA})
		rr.register(t, contract.RunnerInfo{ID: "r2", TaskQueue: contract.RunnerQueue("r2"), Slots: 2, Tags: zoneA})
		if err := rr.tryUpdate(contract.UpdateTagsUpdate, contract.UpdateTagsRequest{RunnerID: "r9", Tags: zoneA}, nil); err == nil {
			t.Fatal("an update of runner r9, which never registered, was taken")
		}
		var res contract.UpdateTagsResult
		rr.update(t, contract.UpdateTagsUpdate, contract.UpdateTagsRequest{RunnerID: "r2", Tags: map[string]string{"zone": "b"}}, &res)
		if res.RunnerID != "r2" || res.Tags["zone"] != "b" || res.FlagTags["zone"] != "a" {
			t.Fatalf("update-tags answered %+v", res)
		}
		a := rr.allocate(t, contract.AllocateRequest{Owner: "strait-job-2-p1#1", Groups: []contract.GroupNeed{{Group: 1, Slots: 1}},
			TagFilter: map[string]string{"zone": "b"}})
		if len(a.Grants) != 1 || a.Grants[0].RunnerID != "r2" {
			t.Fatalf("the zone=b slot went to %+v", a.Grants)
		}
		rr.signal(t, contract.ReleaseSlotsSignal, contract.ReleaseRequest{Owner: "strait-job-2-p1#1"})
		rr.register(t, contract.RunnerInfo{ID: "r2", TaskQueue: contract.RunnerQueue("r2"), Slots: 2, Tags: zoneA})
		rr.afterContinue = func(t *testing.T) {
			cs := rr.cluster(t)
			for _, r := range cs.Runners {
				if r.ID == "r2" && (r.Tags["zone"] != "b" || !r.TagsUpdated) {
					t.Fatalf("the next run has r2 with tags %v (updated %v), want zone b kept", r.Tags, r.TagsUpdated)
				}
			}
		}
	}},
}

// rmRecorder runs the resource manager's worker and the runners' lease activities.
type rmRecorder struct {
	t *testing.T
	c client.Client
	// afterContinue checks the run the recorded one continued as
	afterContinue func(t *testing.T)
	// events is the recorded scenario's ResourceEventsBeforeContinue, which the manager
	// starts with
	events int
}

func (rr *rmRecorder) startWorker(queue string, jobs bool) worker.Worker {
	w := worker.New(rr.c, queue, worker.Options{})
	if jobs {
		w.RegisterWorkflowWithOptions(ResourceManagerWorkflow, workflow.RegisterOptions{Name: contract.ResourceManagerWorkflowName})
	} else {
		w.RegisterActivityWithOptions(holdLease, activity.RegisterOptions{Name: contract.RunnerLeaseActivity})
	}
	if err := w.Start(); err != nil {
		rr.t.Fatal(err)
	}
	return w
}

// record plays a scenario on a fresh resource manager, waits for the run to continue as new
// and writes its history.
func (rr *rmRecorder) record(t *testing.T, s rmScenario) {
	rr.events = s.events
	wid := contract.ResourceManagerID
	_ = rr.c.TerminateWorkflow(context.Background(), wid, "", "the next recording starts") // the last scenario's next run
	s.play(t, rr, wid)
	run := rr.firstRun(t, wid)
	end := closedEvent(t, rr.c, wid, run)
	if end.GetWorkflowExecutionContinuedAsNewEventAttributes() == nil {
		t.Fatalf("the run ended with %s, want continue-as-new", end.GetEventType())
	}
	rr.write(t, s.name, wid, run)
	if rr.afterContinue != nil {
		rr.afterContinue(t)
		rr.afterContinue = nil
	}
}

// cluster asks the resource manager's current run for its runners.
func (rr *rmRecorder) cluster(t *testing.T) contract.ClusterStatus {
	t.Helper()
	v, err := rr.c.QueryWorkflow(context.Background(), contract.ResourceManagerID, "", contract.ClusterQuery)
	var cs contract.ClusterStatus
	if err == nil {
		err = v.Get(&cs)
	}
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// register sends the register-runner signal, starting the resource manager when it does not
// run, as runners do.
func (rr *rmRecorder) register(t *testing.T, info contract.RunnerInfo) {
	t.Helper()
	info.Started = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err := rr.c.SignalWithStartWorkflow(context.Background(), contract.ResourceManagerID, contract.RegisterRunnerSignal, info,
		client.StartWorkflowOptions{ID: contract.ResourceManagerID, TaskQueue: contract.JobsQueue},
		contract.ResourceManagerWorkflowName, contract.ResourceState{Tunables: contract.Tunables{ResourceEventsBeforeContinue: rr.events}})
	if err != nil {
		t.Fatal(err)
	}
}

func (rr *rmRecorder) signal(t *testing.T, name string, arg any) {
	t.Helper()
	if err := rr.c.SignalWorkflow(context.Background(), contract.ResourceManagerID, "", name, arg); err != nil {
		t.Fatal(err)
	}
}

// update runs an update to its end and decodes its result into out.
func (rr *rmRecorder) update(t *testing.T, name string, arg, out any) {
	t.Helper()
	if err := rr.tryUpdate(name, arg, out); err != nil {
		t.Fatal(err)
	}
}

// tryUpdate runs an update to its end and decodes its result into out (when not nil).
func (rr *rmRecorder) tryUpdate(name string, arg, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := rr.c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: contract.ResourceManagerID, UpdateName: name,
		Args: []any{arg}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err != nil {
		return err
	}
	return h.Get(ctx, out)
}

func (rr *rmRecorder) allocate(t *testing.T, req contract.AllocateRequest) contract.Allocation {
	t.Helper()
	var a contract.Allocation
	rr.update(t, contract.AllocateUpdate, req, &a)
	return a
}

// firstRun is the run id of the run the scenario started: the first of the workflow id's
// runs that are recorded after the previous scenario's.
func (rr *rmRecorder) firstRun(t *testing.T, wid string) string {
	t.Helper()
	d, err := rr.c.DescribeWorkflowExecution(context.Background(), wid, "")
	if err != nil {
		t.Fatal(err)
	}
	if first := d.GetWorkflowExecutionInfo().GetFirstRunId(); first != "" {
		return first
	}
	return d.GetWorkflowExecutionInfo().GetExecution().GetRunId()
}

// write replays a run's history and writes it to testdata as <name>_history.json.
func (rr *rmRecorder) write(t *testing.T, name, wid, runID string) {
	t.Helper()
	writeHistory(t, rr.c, name, wid, runID, ResourceManagerWorkflow, contract.ResourceManagerWorkflowName)
}
