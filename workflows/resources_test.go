package workflows

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

func newState(runners ...contract.RunnerInfo) slotTable {
	st := slotTable{&contract.ResourceState{Runners: map[string]*contract.RunnerSlots{}, Allocations: map[string]contract.Allocation{}, Rand: 1}}
	for _, r := range runners {
		st.register(r)
	}
	return st
}

func TestAllocateHonoursTagsAndCapacity(t *testing.T) {
	st := newState(
		contract.RunnerInfo{ID: "a", Slots: 2, TaskQueue: "qa"},
		contract.RunnerInfo{ID: "b", Slots: 4, TaskQueue: "qb", Tags: map[string]string{"zone": "db-zone"}},
	)
	a, err := st.allocate(contract.AllocateRequest{Owner: "p1", Groups: []contract.GroupNeed{{Group: 1, Slots: 3}}}, true)
	if err != nil || a.Grants[0].RunnerID != "b" || len(a.Grants[0].Slots) != 3 {
		t.Fatalf("%+v %v", a, err)
	}
	// the same owner asking again gets the same answer
	again, err := st.allocate(contract.AllocateRequest{Owner: "p1", Groups: []contract.GroupNeed{{Group: 1, Slots: 3}}}, true)
	if err != nil || again.Grants[0].RunnerID != "b" || st.Runners["b"].Free() != 1 {
		t.Fatalf("%+v %v free %d", again, err, st.Runners["b"].Free())
	}
	_, err = st.allocate(contract.AllocateRequest{Owner: "p2", Groups: []contract.GroupNeed{{Group: 1, Slots: 2}}, TagFilter: map[string]string{"zone": "db-zone"}}, true)
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != contract.NoEnoughResource || !strings.Contains(ae.Message(), "zone=db-zone") ||
		!strings.Contains(ae.Message(), "b 1 of 4 free") {
		t.Fatalf("%v", err)
	}
	_, err = st.allocate(contract.AllocateRequest{Owner: "p3", Groups: []contract.GroupNeed{{Group: 1, Slots: 1}}, TagFilter: map[string]string{"zone": "nowhere"}}, true)
	if err == nil || !strings.Contains(err.Error(), "none of the 2 alive runners matches") {
		t.Fatalf("%v", err)
	}
	st.release("p1")
	if st.Runners["b"].Free() != 4 {
		t.Fatal("slots not released")
	}
	if _, err := newState().allocate(contract.AllocateRequest{Owner: "x", Groups: []contract.GroupNeed{{Group: 1, Slots: 1}}}, true); err == nil || !strings.Contains(err.Error(), "no runner is registered and alive") {
		t.Fatalf("%v", err)
	}
}

// The refusal says what the pipeline needs and what the cluster had before the allocation
// began, not the state halfway through placing the groups.
func TestNoResourceMessage(t *testing.T) {
	ones := func(n int) []contract.GroupNeed {
		g := make([]contract.GroupNeed, n)
		for i := range g {
			g[i] = contract.GroupNeed{Group: i + 1, Slots: 1}
		}
		return g
	}
	cases := []struct {
		name   string
		groups []contract.GroupNeed
		want   []string
		reject []string
	}{
		{"more slots than the cluster has", ones(5),
			[]string{"the pipeline needs 5 slots (5 task groups of 1 slot)", "the cluster has 4 free on 2 matching runners (a 2 of 2 free, b 2 of 2 free)"},
			[]string{"0 of 2 free", "on one runner"}},
		{"one group larger than any runner", []contract.GroupNeed{{Group: 1, Slots: 3}},
			[]string{"the pipeline needs 3 slots (1 task group of 3 slots)", "4 free on 2 matching runners", "task group 1 needs 3 slots on one runner and no runner has that many free"},
			nil},
		{"task groups of different sizes", []contract.GroupNeed{{Group: 1, Slots: 2}, {Group: 2, Slots: 1}, {Group: 3, Slots: 1}, {Group: 4, Slots: 2}},
			[]string{"the pipeline needs 6 slots (task groups of 2, 1, 1 and 2 slots)"},
			nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := newState(contract.RunnerInfo{ID: "a", Slots: 2}, contract.RunnerInfo{ID: "b", Slots: 2})
			_, err := st.allocate(contract.AllocateRequest{Owner: "p", Groups: c.groups}, true)
			var ae *temporal.ApplicationError
			if !errors.As(err, &ae) || ae.Type() != contract.NoEnoughResource {
				t.Fatalf("want contract.NoEnoughResource, got %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(ae.Message(), w) {
					t.Errorf("message %q lacks %q", ae.Message(), w)
				}
			}
			for _, r := range c.reject {
				if strings.Contains(ae.Message(), r) {
					t.Errorf("message %q has %q", ae.Message(), r)
				}
			}
			if st.Runners["a"].Free() != 2 || st.Runners["b"].Free() != 2 {
				t.Fatal("a refused allocation took slots")
			}
		})
	}
	// 6 slots free and 6 needed, but three groups of 2 do not fit on two runners of 3
	st := newState(contract.RunnerInfo{ID: "a", Slots: 3}, contract.RunnerInfo{ID: "b", Slots: 3})
	_, err := st.allocate(contract.AllocateRequest{Owner: "p", Groups: []contract.GroupNeed{{Group: 1, Slots: 2}, {Group: 2, Slots: 2}, {Group: 3, Slots: 2}}}, true)
	if err == nil || !strings.Contains(err.Error(), "needs 6 slots (3 task groups of 2 slots)") || !strings.Contains(err.Error(), "the cluster has 6 free") ||
		!strings.Contains(err.Error(), "fits on no runner once the others are placed") {
		t.Fatalf("%v", err)
	}
}

func TestSlotRatioPrefersTheEmptiestRunner(t *testing.T) {
	st := newState(contract.RunnerInfo{ID: "a", Slots: 4}, contract.RunnerInfo{ID: "b", Slots: 4})
	if _, err := st.allocate(contract.AllocateRequest{Owner: "p1", Groups: []contract.GroupNeed{{Group: 1, Slots: 2}}, Strategy: "SLOT_RATIO"}, true); err != nil {
		t.Fatal(err)
	}
	a, err := st.allocate(contract.AllocateRequest{Owner: "p2", Groups: []contract.GroupNeed{{Group: 1, Slots: 1}}, Strategy: "SLOT_RATIO"}, true)
	if err != nil || a.Grants[0].RunnerID != "b" {
		t.Fatalf("%+v %v", a, err)
	}
}

func TestResourceManagerContinuesAsNewWithItsState(t *testing.T) {
	bound := 4 // two registrations, the allocation, the third registration
	env := newResourceEnv(time.Minute, holdLease)
	registerRunners(env, contract.RunnerInfo{ID: "a", Slots: 2}, contract.RunnerInfo{ID: "b", Slots: 2})
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(contract.AllocateUpdate, "u1", &updateCallbacks{t: t}, contract.AllocateRequest{Owner: "p1", Groups: []contract.GroupNeed{{Group: 1, Slots: 2}}})
	}, 1)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(contract.RegisterRunnerSignal, contract.RunnerInfo{ID: "c", Slots: 1})
	}, 2)
	env.ExecuteWorkflow(contract.ResourceManagerWorkflowName, boundedResources(bound))
	err := env.GetWorkflowError()
	next := continuedResources(t, err)
	if len(next.Runners) != 3 || next.Runners["a"].Free()+next.Runners["b"].Free() != 2 || len(next.Allocations) != 1 || next.Runners["c"].Generation != 1 {
		t.Fatalf("carried state %+v", next)
	}
}

type updateCallbacks struct{ t *testing.T }

func (u *updateCallbacks) Accept()          {}
func (u *updateCallbacks) Reject(err error) { u.t.Errorf("update rejected: %v", err) }
func (u *updateCallbacks) Complete(success any, err error) {
	if err != nil {
		u.t.Errorf("update failed: %v", err)
	}
}

// An owner asking again gets its grant back only while every slot of it is still its own on
// an alive runner; a grant on a lost runner, or one that registered anew, is replaced.
func TestAllocationNeverNamesADeadRunner(t *testing.T) {
	st := newState(contract.RunnerInfo{ID: "a", Slots: 1})
	req := contract.AllocateRequest{Owner: "job-p1#1", Groups: []contract.GroupNeed{{Group: 1, Slots: 1}}}
	first, err := st.allocate(req, true)
	if err != nil || first.Grants[0].RunnerID != "a" {
		t.Fatalf("%+v %v", first, err)
	}
	again, err := st.allocate(req, true)
	if err != nil || again.Grants[0].RunnerID != "a" {
		t.Fatalf("the same request again: %+v %v", again, err)
	}
	st.Runners["a"].State = contract.RunnerStateLost
	st.register(contract.RunnerInfo{ID: "b", Slots: 1})
	moved, err := st.allocate(req, true)
	if err != nil || moved.Grants[0].RunnerID != "b" {
		t.Fatalf("after runner a was lost: %+v %v", moved, err)
	}
	// b registers anew (a restart): its slots are free and the old grant is gone
	st.register(contract.RunnerInfo{ID: "b", Slots: 1})
	if _, err := st.allocate(req, true); err != nil || st.Runners["b"].Free() != 0 {
		t.Fatalf("after b registered again: %v, %d free", err, st.Runners["b"].Free())
	}
	// histories recorded before the check still replay the old answer
	st.Runners["b"].State = contract.RunnerStateLost
	if old, err := st.allocate(req, false); err != nil || old.Grants[0].RunnerID != "b" {
		t.Fatalf("unversioned: %+v %v", old, err)
	}
}

func TestGroupsMaySpreadOverRunners(t *testing.T) {
	st := newState(contract.RunnerInfo{ID: "a", Slots: 3, Address: "a:1"}, contract.RunnerInfo{ID: "b", Slots: 3, Address: "b:1"})
	a, err := st.allocate(contract.AllocateRequest{Owner: "p", Strategy: "SLOT_RATIO",
		Groups: []contract.GroupNeed{{Group: 1, Slots: 3}, {Group: 2, Slots: 3}}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Grants) != 2 || a.Grants[0].Group != 1 || a.Grants[0].RunnerID == a.Grants[1].RunnerID || a.Grants[1].Address == "" {
		t.Fatalf("%+v", a.Grants)
	}
	// all or nothing: a pipeline that cannot be placed takes no slot
	_, err = st.allocate(contract.AllocateRequest{Owner: "q", Groups: []contract.GroupNeed{{Group: 1, Slots: 1}}}, true)
	if err == nil || st.Runners["a"].Free()+st.Runners["b"].Free() != 0 {
		t.Fatalf("%v", err)
	}
}

func TestLostRunnerHasNoFreeSlots(t *testing.T) {
	st := newState(contract.RunnerInfo{ID: "a", Slots: 2})
	st.Runners["a"].State = contract.RunnerStateLost
	if _, err := st.allocate(contract.AllocateRequest{Owner: "p", Groups: []contract.GroupNeed{{Group: 1, Slots: 1}}}, true); err == nil {
		t.Fatal("a lost runner got work")
	}
	r := st.register(contract.RunnerInfo{ID: "a", Slots: 2})
	if r.State != contract.RunnerStateAlive || r.Generation != 2 || r.Free() != 2 {
		t.Fatalf("%+v", r)
	}
}

func TestSystemLoadPrefersTheIdlestRunner(t *testing.T) {
	st := newState(contract.RunnerInfo{ID: "a", Slots: 4}, contract.RunnerInfo{ID: "b", Slots: 4})
	st.Runners["a"].Load = &contract.Load{CPU: 0.9, Memory: 0.5}
	st.Runners["b"].Load = &contract.Load{CPU: 0.1, Memory: 0.2}
	a, err := st.allocate(contract.AllocateRequest{Owner: "p", Strategy: "SYSTEM_LOAD", Groups: []contract.GroupNeed{{Group: 1, Slots: 1}}}, true)
	if err != nil || a.Grants[0].RunnerID != "b" {
		t.Fatalf("%+v %v", a, err)
	}
}

// An allocation that brings the run to its event bound continues it as new at once; before,
// the run waited for a signal after it, and one that never came left it running past its
// bound.
func TestResourceManagerContinuesAsNewAfterAnUpdate(t *testing.T) {
	bound := 3 // two registrations and the allocation
	env := newResourceEnv(30*time.Second, holdLease)
	registerRunners(env, contract.RunnerInfo{ID: "a", Slots: 2}, contract.RunnerInfo{ID: "b", Slots: 2})
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(contract.AllocateUpdate, "u1", &updateCallbacks{t: t}, contract.AllocateRequest{Owner: "p1", Groups: []contract.GroupNeed{{Group: 1, Slots: 2}}})
	}, 1)
	env.ExecuteWorkflow(contract.ResourceManagerWorkflowName, boundedResources(bound))
	next := continuedResources(t, env.GetWorkflowError())
	if len(next.Runners) != 2 || len(next.Allocations) != 1 {
		t.Fatalf("carried state %+v", next)
	}
}

// Tags set by update-tags stand for a runner's --tag flags while it registers with those
// flags (a restart, a registration after fencing, a clean stop and a start); a registration
// with other flags drops them, and tags equal to the flags are no update at all.
func TestTagUpdatesAndRegistrations(t *testing.T) {
	a := contract.RunnerInfo{ID: "a", Slots: 1, Tags: map[string]string{"zone": "a"}}
	cases := []struct {
		name      string
		steps     func(st slotTable)
		wantTags  map[string]string
		wantFlags map[string]string // nil: no update kept
	}{
		{"an update replaces the tags", func(st slotTable) {
			st.setTags("a", map[string]string{"zone": "b", "team": "x"})
		}, map[string]string{"zone": "b", "team": "x"}, map[string]string{"zone": "a"}},
		{"an empty update clears them", func(st slotTable) {
			st.setTags("a", map[string]string{})
		}, nil, map[string]string{"zone": "a"}},
		{"a registration with the same flags keeps the update", func(st slotTable) {
			st.setTags("a", map[string]string{"zone": "b"})
			st.register(st.withUpdatedTags(a))
		}, map[string]string{"zone": "b"}, map[string]string{"zone": "a"}},
		{"a runner that left and came back with its flags keeps it", func(st slotTable) {
			st.setTags("a", map[string]string{"zone": "b"})
			delete(st.Runners, "a") // a clean stop
			st.register(st.withUpdatedTags(a))
		}, map[string]string{"zone": "b"}, map[string]string{"zone": "a"}},
		{"a registration with other flags drops it", func(st slotTable) {
			st.setTags("a", map[string]string{"zone": "b"})
			st.register(st.withUpdatedTags(contract.RunnerInfo{ID: "a", Slots: 1, Tags: map[string]string{"zone": "c"}}))
		}, map[string]string{"zone": "c"}, nil},
		{"a second update keeps the flags of the first", func(st slotTable) {
			st.setTags("a", map[string]string{"zone": "b"})
			st.setTags("a", map[string]string{"zone": "c"})
		}, map[string]string{"zone": "c"}, map[string]string{"zone": "a"}},
		{"tags equal to the flags end the update", func(st slotTable) {
			st.setTags("a", map[string]string{"zone": "b"})
			st.setTags("a", map[string]string{"zone": "a"})
		}, map[string]string{"zone": "a"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := newState(a)
			c.steps(st)
			if got := st.Runners["a"].Info.Tags; !sameTags(got, c.wantTags) {
				t.Errorf("tags %v, want %v", got, c.wantTags)
			}
			u, kept := st.TagUpdates["a"]
			if kept != (c.wantFlags != nil) || (kept && !sameTags(u.Flags, c.wantFlags)) {
				t.Errorf("update kept %v %+v, want flags %v", kept, u, c.wantFlags)
			}
			// allocations filter on the tags the runner has now
			_, err := st.allocate(contract.AllocateRequest{Owner: "p", Groups: []contract.GroupNeed{{Group: 1, Slots: 1}}, TagFilter: c.wantTags}, true)
			if err != nil {
				t.Errorf("an allocation filtering on %v: %v", c.wantTags, err)
			}
		})
	}
}

// Which runner an update-tags update is for: the one it names, else the only alive one.
func TestTagsTarget(t *testing.T) {
	one := newState(contract.RunnerInfo{ID: "a", Slots: 1})
	two := newState(contract.RunnerInfo{ID: "a", Slots: 1}, contract.RunnerInfo{ID: "b", Slots: 1})
	lostB := newState(contract.RunnerInfo{ID: "a", Slots: 1}, contract.RunnerInfo{ID: "b", Slots: 1})
	lostB.Runners["b"].State = contract.RunnerStateLost
	cases := []struct {
		name  string
		st    slotTable
		id    string
		want  string
		error string
	}{
		{"the only runner", one, "", "a", ""},
		{"a named runner", two, "b", "b", ""},
		{"a named lost runner", lostB, "b", "b", ""},
		{"the only alive runner", lostB, "", "a", ""},
		{"two alive runners", two, "", "", "2 runners are alive (a, b): name the one"},
		{"an unknown runner", two, "c", "", `no runner "c" is registered (runners: a, b)`},
		{"no runner", newState(), "", "", "0 runners are alive (none)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.st.tagsTarget(c.id)
			if c.error != "" {
				if err == nil || !strings.Contains(err.Error(), c.error) {
					t.Fatalf("tagsTarget(%q) = %q, %v; want an error with %q", c.id, got, err, c.error)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("tagsTarget(%q) = %q, %v; want %q", c.id, got, err, c.want)
			}
		})
	}
}

// rejections records the updates a test's workflow refused and the results it gave.
type rejections struct {
	rejected error
	result   any
	failed   error
}

func (r *rejections) Accept()          {}
func (r *rejections) Reject(err error) { r.rejected = err }
func (r *rejections) Complete(success any, err error) {
	r.result, r.failed = success, err
}

// The update-tags update replaces a runner's tags in the running resource manager: the
// cluster query shows them beside the flags', the next allocation filters on them, the next
// run keeps them, and an update that names no runner it knows is refused without a trace.
func TestResourceManagerUpdatesTags(t *testing.T) {
	bound := 4 // two registrations, the tags, the allocation
	env := newResourceEnv(time.Minute, holdLease)
	zoneA := map[string]string{"zone": "a"}
	registerRunners(env, contract.RunnerInfo{ID: "a", Slots: 2, Tags: zoneA}, contract.RunnerInfo{ID: "b", Slots: 2, Tags: zoneA})
	refused := map[string]*rejections{}
	for name, req := range map[string]contract.UpdateTagsRequest{
		"no runner named of two": {Tags: map[string]string{"zone": "b"}},
		"an unknown runner":      {RunnerID: "c", Tags: map[string]string{"zone": "b"}},
		"an empty tag name":      {RunnerID: "b", Tags: map[string]string{"": "b"}},
	} {
		r := &rejections{}
		refused[name] = r
		env.RegisterDelayedCallback(func() { env.UpdateWorkflow(contract.UpdateTagsUpdate, name, r, req) }, 1)
	}
	tagged := &rejections{}
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(contract.UpdateTagsUpdate, "u-b", tagged, contract.UpdateTagsRequest{RunnerID: "b", Tags: map[string]string{"zone": "b", "team": "x"}})
	}, 2)
	var cs contract.ClusterStatus
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(contract.ClusterQuery)
		if err == nil {
			err = v.Get(&cs)
		}
		if err != nil {
			t.Error(err)
		}
	}, 3)
	var grant *contract.Allocation
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(contract.AllocateUpdate, "alloc", &allocated{t: t, into: &grant},
			contract.AllocateRequest{Owner: "p1", Groups: []contract.GroupNeed{{Group: 1, Slots: 1}}, TagFilter: map[string]string{"zone": "b"}})
	}, 4)
	env.ExecuteWorkflow(contract.ResourceManagerWorkflowName, boundedResources(bound))
	next := continuedResources(t, env.GetWorkflowError())
	if u := next.TagUpdates["b"]; next.Runners["b"].Info.Tags["zone"] != "b" || u.Tags["team"] != "x" || u.Flags["zone"] != "a" {
		t.Fatalf("the next run's state: runner b %+v, updates %+v", next.Runners["b"].Info, next.TagUpdates)
	}

	for name, r := range refused {
		if r.rejected == nil {
			t.Errorf("%s: not refused (result %v, error %v)", name, r.result, r.failed)
		}
	}
	res, ok := tagged.result.(*contract.UpdateTagsResult)
	if tagged.rejected != nil || tagged.failed != nil || !ok || res.RunnerID != "b" ||
		!sameTags(res.Tags, map[string]string{"zone": "b", "team": "x"}) || !sameTags(res.FlagTags, map[string]string{"zone": "a"}) {
		t.Fatalf("update-tags of b: %+v, %v, %v", tagged.result, tagged.rejected, tagged.failed)
	}
	if grant == nil || len(grant.Grants) != 1 || grant.Grants[0].RunnerID != "b" {
		t.Fatalf("the zone=b slot: %+v", grant)
	}
	var b *contract.RunnerView
	for i := range cs.Runners {
		if cs.Runners[i].ID == "b" {
			b = &cs.Runners[i]
		}
	}
	if b == nil || !b.TagsUpdated || b.Tags["zone"] != "b" || b.FlagTags["zone"] != "a" || cs.Runners[0].TagsUpdated {
		t.Fatalf("cluster status %+v", cs.Runners)
	}
}

// allocated keeps an allocation's answer.
type allocated struct {
	t    *testing.T
	into **contract.Allocation
}

func (a *allocated) Accept()          {}
func (a *allocated) Reject(err error) { a.t.Errorf("allocation rejected: %v", err) }
func (a *allocated) Complete(success any, err error) {
	if err != nil {
		a.t.Errorf("allocation failed: %v", err)
		return
	}
	*a.into, _ = success.(*contract.Allocation)
}

// A lease attempt that fails (its heartbeats stopped while Temporal moved the resource
// manager's shard) is followed by a second on the runner's queue; a runner that takes it up
// stays alive with its slots, where before it was declared lost at once. A runner whose
// second attempt fails too is lost.
func TestResourceManagerLeaseSurvivesOneLapse(t *testing.T) {
	for _, c := range []struct {
		name      string
		failures  int // attempts that fail before one holds
		wantState contract.RunnerState
	}{
		{"one lapse", 1, contract.RunnerStateAlive},
		{"two lapses", 2, contract.RunnerStateLost},
	} {
		t.Run(c.name, func(t *testing.T) {
			bound := 2 // the registration, then a lease lost or a second registration
			env := newResourceEnv(time.Minute, func(ctx context.Context, in contract.LeaseInput) error {
				if int(activity.GetInfo(ctx).Attempt) <= c.failures {
					return errors.New("no heartbeat within the timeout")
				}
				return holdLease(ctx, in)
			})
			registerRunners(env, contract.RunnerInfo{ID: "a", Slots: 2})
			// once an attempt holds, a second runner registers, which ends the run
			env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
				if int(info.Attempt) > c.failures && info.ActivityType.Name == contract.RunnerLeaseActivity {
					env.RegisterDelayedCallback(func() {
						env.SignalWorkflow(contract.RegisterRunnerSignal, contract.RunnerInfo{ID: "b", Slots: 1})
					}, 0)
				}
			})
			env.ExecuteWorkflow(contract.ResourceManagerWorkflowName, boundedResources(bound))
			next := continuedResources(t, env.GetWorkflowError())
			if r := next.Runners["a"]; r == nil || r.State != c.wantState {
				t.Fatalf("runner a %+v, want %s", r, c.wantState)
			}
		})
	}
}

// boundedResources is the input of a resource manager whose runs continue as new after
// bound events.
func boundedResources(bound int) contract.ResourceState {
	return contract.ResourceState{Tunables: contract.Tunables{ResourceEventsBeforeContinue: bound}}
}

// continuedResources is the state a resource manager run that ended with err handed to the
// next run; the run must have continued as new.
func continuedResources(t *testing.T, err error) contract.ResourceState {
	t.Helper()
	return continuedInput[contract.ResourceState](t, err)
}

// newResourceEnv is a test environment of the resource manager that waits timeout of wall
// time at most (the default 3 s is short on a loaded machine) and runs lease as the runner
// lease activity.
func newResourceEnv(timeout time.Duration, lease func(context.Context, contract.LeaseInput) error) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(timeout)
	env.RegisterWorkflowWithOptions(ResourceManagerWorkflow, workflow.RegisterOptions{Name: contract.ResourceManagerWorkflowName})
	env.RegisterActivityWithOptions(lease, activity.RegisterOptions{Name: contract.RunnerLeaseActivity})
	return env
}

// holdLease is a live runner's lease: it heartbeats until it is canceled. The test
// environment times heartbeats by the wall clock, so a lease that never heartbeat would
// expire after its heartbeat timeout (6 s) of real time on a loaded machine and end the
// run early with a lost runner.
func holdLease(ctx context.Context, in contract.LeaseInput) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		activity.RecordHeartbeat(ctx, in.Generation)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// registerRunners has the runners register with the resource manager as it starts.
func registerRunners(env *testsuite.TestWorkflowEnvironment, runners ...contract.RunnerInfo) {
	env.RegisterDelayedCallback(func() {
		for _, r := range runners {
			env.SignalWorkflow(contract.RegisterRunnerSignal, r)
		}
	}, 0)
}
