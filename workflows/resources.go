package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// ResourceManagerWorkflow is the singleton slot table: runners register by signal and keep
// a lease alive by activity heartbeats (kept outside history), slots are allocated through
// an update (called from an activity) and released by signal. A runner whose lease lapses
// is declared lost and every pipeline holding its slots is told. Past the tunable
// ResourceEventsBeforeContinue events the manager continues as new with its whole state.
func ResourceManagerWorkflow(ctx workflow.Context, in contract.ResourceState) error {
	rm := newResourceManager(ctx, in)
	if err := workflow.SetQueryHandler(ctx, contract.ClusterQuery, rm.onCluster); err != nil {
		return err
	}
	rm.resumeLeases(ctx)
	if err := workflow.SetUpdateHandlerWithOptions(ctx, contract.AllocateUpdate,
		func(uctx workflow.Context, req contract.AllocateRequest) (*contract.Allocation, error) {
			return rm.onAllocate(ctx, uctx, req)
		},
		workflow.UpdateHandlerOptions{Validator: validateAllocation},
	); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, contract.UpdateTagsUpdate,
		func(uctx workflow.Context, req contract.UpdateTagsRequest) (*contract.UpdateTagsResult, error) {
			return rm.onUpdateTags(ctx, req)
		},
		workflow.UpdateHandlerOptions{Validator: rm.validateTags},
	); err != nil {
		return err
	}
	for {
		woke := rm.selector(ctx)
		woke.Select(ctx)
		if rm.byUpdate {
			rm.byUpdate = false
			// runs recorded before counted an update's events only at the next signal
			if workflow.GetVersion(ctx, "update-wakes-loop", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
				continue
			}
		}
		if rm.events >= rm.st.Tunables.Effective().ResourceEventsBeforeContinue || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			return rm.continueAsNew(ctx)
		}
	}
}

// resourceManager is the state of one resource manager run.
type resourceManager struct {
	st slotTable
	// events counts what this run took in: signals, updates and lease ends.
	events                  int
	register, release, load workflow.ReceiveChannel
	// leaseEnds carries the ends of the leases this run started.
	leaseEnds workflow.Channel
	// updated wakes the main loop after an update: one that took in the signals delivered
	// with it (drain) may be the last event before continue-as-new. byUpdate says the loop
	// woke for it.
	updated  workflow.Channel
	byUpdate bool
}

// leaseEnd is how a runner's lease activity ended.
type leaseEnd struct {
	RunnerID   string
	Generation int
	Err        string
	Canceled   bool
}

func newResourceManager(ctx workflow.Context, in contract.ResourceState) *resourceManager {
	st := slotTable{&in}
	if st.Runners == nil {
		st.Runners = map[string]*contract.RunnerSlots{}
	}
	if st.Allocations == nil {
		st.Allocations = map[string]contract.Allocation{}
	}
	if st.Rand == 0 {
		st.Rand = 0x9E3779B97F4A7C15
	}
	if st.LeaseTimeout <= 0 {
		st.LeaseTimeout = contract.DefaultLeaseTimeout
	}
	return &resourceManager{
		st:        st,
		register:  workflow.GetSignalChannel(ctx, contract.RegisterRunnerSignal),
		release:   workflow.GetSignalChannel(ctx, contract.ReleaseSlotsSignal),
		load:      workflow.GetSignalChannel(ctx, contract.RunnerLoadSignal),
		leaseEnds: workflow.NewChannel(ctx),
		updated:   workflow.NewBufferedChannel(ctx, 1),
	}
}

// onCluster answers the cluster query: the runners, and for those whose tags update-tags
// set, the tags they registered with.
func (rm *resourceManager) onCluster() (*contract.ClusterStatus, error) {
	cs := rm.st.view()
	for i := range cs.Runners {
		if u, ok := rm.st.TagUpdates[cs.Runners[i].ID]; ok {
			cs.Runners[i].TagsUpdated, cs.Runners[i].FlagTags = true, u.Flags
		}
	}
	return cs, nil
}

// resumeLeases takes over the leases of the runners the previous run knew alive.
func (rm *resourceManager) resumeLeases(ctx workflow.Context) {
	for _, id := range rm.st.runnerIDs() {
		if r := rm.st.Runners[id]; r.State == contract.RunnerStateAlive {
			rm.startLease(ctx, r)
		}
	}
}

// leaseHeartbeatShare is the part of the lease a lease attempt may go without a heartbeat;
// the rest is the time a second attempt has to be taken up by the runner.
const leaseHeartbeatShare = 0.6

// startLease runs a runner's lease activity on its queue; its end arrives on leaseEnds.
//
// A lease attempt whose heartbeats stop is followed by a second one on the runner's queue,
// which a live runner takes up at once: heartbeats also stop while Temporal moves the
// resource manager's history shard to another history host (seconds), and the runners then
// keep their slots instead of every one being declared lost and every pipeline restarting.
// A dead runner takes up nothing: it is declared lost when the second attempt's
// schedule-to-start timeout passes, within the lease of its last heartbeat as before (60 %
// of it without a heartbeat, 40 % for the second attempt to start). Histories from before ran
// one attempt with the whole lease as its heartbeat timeout.
func (rm *resourceManager) startLease(ctx workflow.Context, r *contract.RunnerSlots) {
	in := contract.LeaseInput{RunnerID: r.Info.ID, Generation: r.Generation}
	heartbeat, toStart := rm.st.LeaseTimeout, rm.st.LeaseTimeout
	retry := &temporal.RetryPolicy{MaximumAttempts: 1}
	if workflow.GetVersion(ctx, "lease-second-attempt", workflow.DefaultVersion, 1) == 1 {
		heartbeat = time.Duration(float64(rm.st.LeaseTimeout) * leaseHeartbeatShare)
		toStart = rm.st.LeaseTimeout - heartbeat
		retry = &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, MaximumAttempts: 2}
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              r.Info.TaskQueue,
		ScheduleToStartTimeout: toStart,
		StartToCloseTimeout:    10 * 365 * 24 * time.Hour,
		HeartbeatTimeout:       heartbeat,
		RetryPolicy:            retry,
		Summary:                "lease of runner " + r.Info.ID,
	})
	workflow.Go(ctx, func(gctx workflow.Context) {
		err := workflow.ExecuteActivity(actx, contract.RunnerLeaseActivity, in).Get(gctx, nil)
		end := leaseEnd{RunnerID: in.RunnerID, Generation: in.Generation}
		if err != nil {
			end.Err = causeOf(err)
			end.Canceled = temporal.IsCanceledError(err)
		}
		rm.leaseEnds.Send(gctx, end)
	})
}

// selector waits for the next signal or lease end, each with its handler.
func (rm *resourceManager) selector(ctx workflow.Context) workflow.Selector {
	sel := workflow.NewSelector(ctx)
	onReceive(ctx, sel, rm.register, func(info contract.RunnerInfo) { rm.onRegister(ctx, info) })
	onReceive(ctx, sel, rm.release, rm.onRelease)
	onReceive(ctx, sel, rm.load, rm.onLoad)
	onReceive(ctx, sel, rm.leaseEnds, func(end leaseEnd) { rm.onLeaseEnd(ctx, end) })
	sel.AddReceive(rm.updated, func(c workflow.ReceiveChannel, _ bool) {
		c.Receive(ctx, nil)
		rm.byUpdate = true
	})
	return sel
}

// drain applies every signal already delivered. An update can run before the main loop
// has taken in signals that arrived with it (a runner's registration and the first
// allocation in one workflow task), so the update handler drains first; continue-as-new
// drains last.
func (rm *resourceManager) drain(ctx workflow.Context) {
	for {
		got := false
		var info contract.RunnerInfo
		if rm.register.ReceiveAsync(&info) {
			rm.onRegister(ctx, info)
			got = true
		}
		var req contract.ReleaseRequest
		if rm.release.ReceiveAsync(&req) {
			rm.onRelease(req)
			got = true
		}
		var l contract.RunnerLoad
		if rm.load.ReceiveAsync(&l) {
			rm.onLoad(l)
			got = true
		}
		if !got {
			return
		}
	}
}

// continueAsNew lets running updates finish, takes in every signal already delivered,
// then goes on in a new run with the same state (it restarts the leases).
func (rm *resourceManager) continueAsNew(ctx workflow.Context) error {
	_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	rm.drain(ctx)
	return workflow.NewContinueAsNewError(ctx, contract.ResourceManagerWorkflowName, *rm.st.ResourceState)
}

// onRegister handles the register-runner signal. A runner that registers while its slots
// are held (it restarted, or fenced itself, before its lease ran out) runs nothing of its
// earlier life: the pipelines that held them are told it was lost, as a lapsed lease would
// tell them.
func (rm *resourceManager) onRegister(ctx workflow.Context, info contract.RunnerInfo) {
	rm.events++
	if r, ok := rm.st.Runners[info.ID]; ok && len(rm.st.ownersOn(r)) > 0 &&
		workflow.GetVersion(ctx, "register-tells-owners", workflow.DefaultVersion, 1) == 1 {
		rm.tellOwners(ctx, r, "it registered again (restarted or fenced) while holding the pipeline's slots")
	}
	rm.startLease(ctx, rm.st.register(rm.st.withUpdatedTags(info)))
}

// onRelease handles the release-slots signal.
func (rm *resourceManager) onRelease(req contract.ReleaseRequest) {
	rm.events++
	rm.st.release(req.Owner)
}

// onLoad handles the runner-load signal.
func (rm *resourceManager) onLoad(l contract.RunnerLoad) {
	rm.events++
	if r, ok := rm.st.Runners[l.RunnerID]; ok {
		r.Load = &l.Load
	}
}

// onLeaseEnd handles a lease that ended: a runner that stopped cleanly leaves, one whose
// heartbeats stopped is lost and its pipelines are told.
func (rm *resourceManager) onLeaseEnd(ctx workflow.Context, end leaseEnd) {
	rm.events++
	r, ok := rm.st.Runners[end.RunnerID]
	if !ok || r.Generation != end.Generation || end.Canceled {
		return // an older registration's lease, or one this run gave up
	}
	if end.Err == "" {
		delete(rm.st.Runners, end.RunnerID)
		return
	}
	r.State, r.LostReason = contract.RunnerStateLost, end.Err
	rm.tellOwners(ctx, r, "no heartbeat within the lease ("+rm.st.LeaseTimeout.String()+")")
}

// onAllocate handles the allocate-slots update, after taking in the signals delivered with
// it.
func (rm *resourceManager) onAllocate(ctx, uctx workflow.Context, req contract.AllocateRequest) (*contract.Allocation, error) {
	rm.drain(ctx)
	rm.events++
	// histories recorded before handed an owner's cached grant back unchecked
	fresh := workflow.GetVersion(uctx, "allocate-alive-only", workflow.DefaultVersion, 1) == 1
	defer rm.updated.SendAsync(struct{}{})
	return rm.st.allocate(req, fresh)
}

// validateAllocation refuses an allocate-slots update that asks for nothing.
func validateAllocation(req contract.AllocateRequest) error {
	if req.Owner == "" || req.Total() <= 0 {
		return fmt.Errorf("an allocation needs an owner and at least one slot")
	}
	return nil
}

// tellOwners signals runner-lost to every pipeline holding slots on r. A delivery that
// fails means the pipeline is gone already.
func (rm *resourceManager) tellOwners(ctx workflow.Context, r *contract.RunnerSlots, reason string) {
	for _, owner := range rm.st.ownersOn(r) {
		wf, _, _ := strings.Cut(owner, "#")
		workflow.SignalExternalWorkflow(ctx, wf, "", contract.RunnerLostSignal, contract.RunnerLost{
			RunnerID: r.Info.ID, Reason: reason})
	}
}

// onUpdateTags handles the update-tags update, after taking in the signals delivered with it:
// the runner's tags are replaced, so the allocations after it filter on the new ones. It
// issues no command: it changes the slot table alone.
func (rm *resourceManager) onUpdateTags(ctx workflow.Context, req contract.UpdateTagsRequest) (*contract.UpdateTagsResult, error) {
	rm.drain(ctx)
	rm.events++
	defer rm.updated.SendAsync(struct{}{})
	id, err := rm.st.tagsTarget(req.RunnerID)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), contract.NoSuchRunner, nil)
	}
	flags := rm.st.setTags(id, req.Tags)
	return &contract.UpdateTagsResult{RunnerID: id, Tags: rm.st.Runners[id].Info.Tags, FlagTags: flags}, nil
}

// validateTags refuses an update-tags update with an empty tag name, or one that names no
// runner the manager knows (or none when it knows not exactly one alive runner).
func (rm *resourceManager) validateTags(req contract.UpdateTagsRequest) error {
	for k := range req.Tags {
		if k == "" {
			return fmt.Errorf("a tag needs a name")
		}
	}
	_, err := rm.st.tagsTarget(req.RunnerID)
	return err
}

// tagsTarget is the runner an update-tags update is for: the one it names, or when it names
// none the only alive runner.
func (st slotTable) tagsTarget(id string) (string, error) {
	ids := st.runnerIDs()
	if id != "" {
		if _, ok := st.Runners[id]; !ok {
			return "", fmt.Errorf("no runner %q is registered (runners: %s)", id, listOrNone(ids))
		}
		return id, nil
	}
	var alive []string
	for _, rid := range ids {
		if st.Runners[rid].State == contract.RunnerStateAlive {
			alive = append(alive, rid)
		}
	}
	if len(alive) != 1 {
		return "", fmt.Errorf("%d runners are alive (%s): name the one whose tags to update", len(alive), listOrNone(alive))
	}
	return alive[0], nil
}

func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// setTags replaces runner id's tags (none clears them) and returns the tags it registered
// with. Tags equal to those drop the update: the runner's flags are its tags again.
func (st slotTable) setTags(id string, tags map[string]string) map[string]string {
	r := st.Runners[id]
	flags := r.Info.Tags
	if u, ok := st.TagUpdates[id]; ok {
		flags = u.Flags
	}
	tags = cloneTags(tags)
	r.Info.Tags = tags
	if sameTags(tags, flags) {
		delete(st.TagUpdates, id)
		return flags
	}
	if st.TagUpdates == nil {
		st.TagUpdates = map[string]contract.TagsUpdate{}
	}
	st.TagUpdates[id] = contract.TagsUpdate{Tags: tags, Flags: flags}
	return flags
}

// withUpdatedTags is a registration with the tags update-tags set for the runner when it
// registers with the flags it had then; a registration with other flags drops the update,
// its flags win.
func (st slotTable) withUpdatedTags(info contract.RunnerInfo) contract.RunnerInfo {
	u, ok := st.TagUpdates[info.ID]
	if !ok {
		return info
	}
	if !sameTags(info.Tags, u.Flags) {
		delete(st.TagUpdates, info.ID)
		return info
	}
	info.Tags = cloneTags(u.Tags)
	return info
}

// cloneTags copies tags; no tags are nil.
func cloneTags(tags map[string]string) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	out := make(map[string]string, len(tags))
	for k, v := range tags {
		out[k] = v
	}
	return out
}

func sameTags(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
