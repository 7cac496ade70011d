package workflows

import (
	"fmt"
	"sort"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// RunnerSlots is the resource manager's view of one runner.
type RunnerSlots struct {
	Info contract.RunnerInfo `json:"info"`
	// Owners holds, per slot, the allocation owning it ("" when free).
	Owners []string `json:"owners"`
}

// Free counts the runner's free slots.
func (r *RunnerSlots) Free() int {
	n := 0
	for _, o := range r.Owners {
		if o == "" {
			n++
		}
	}
	return n
}

// ResourceState is the resource manager's whole state; it is also the input a new run
// continues with.
type ResourceState struct {
	Runners map[string]*RunnerSlots `json:"runners"`
	// Allocations by owner, so a retried request gets the same answer.
	Allocations map[string]contract.Allocation `json:"allocations"`
	// Rand drives the RANDOM strategy deterministically.
	Rand uint64 `json:"rand"`
}

// ClusterStatus answers the cluster query.
type ClusterStatus struct {
	Runners []RunnerView `json:"runners"`
}

// RunnerView is one runner in a cluster status.
type RunnerView struct {
	contract.RunnerInfo
	State string         `json:"state"`
	Free  int            `json:"free"`
	Owner []string       `json:"owners"`
	Load  *contract.Load `json:"load,omitempty"`
}

// LoadText renders the runner's last load report.
func (v RunnerView) LoadText() string {
	if v.Load == nil {
		return "-"
	}
	return fmt.Sprintf("cpu %.0f%% mem %.0f%%", v.Load.CPU*100, v.Load.Memory*100)
}

// eventsBeforeContinue bounds one run's history: after this many signals and updates the
// workflow continues as new, well before Temporal's limits (10,000 signals, 51,200 events).
var eventsBeforeContinue = 1000

// ResourceManagerWorkflow is the singleton slot table: runners register by signal, slots
// are allocated through an update (called from an activity) and released by signal.
func ResourceManagerWorkflow(ctx workflow.Context, st ResourceState) error {
	if st.Runners == nil {
		st.Runners = map[string]*RunnerSlots{}
	}
	if st.Allocations == nil {
		st.Allocations = map[string]contract.Allocation{}
	}
	if st.Rand == 0 {
		st.Rand = 0x9E3779B97F4A7C15
	}
	events := 0
	if err := workflow.SetQueryHandler(ctx, contract.ClusterQuery, func() (*ClusterStatus, error) {
		return st.view(), nil
	}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, contract.AllocateUpdate,
		func(ctx workflow.Context, req contract.AllocateRequest) (*contract.Allocation, error) {
			events++
			return st.allocate(req)
		},
		workflow.UpdateHandlerOptions{Validator: func(req contract.AllocateRequest) error {
			if req.Owner == "" || req.Slots <= 0 {
				return fmt.Errorf("an allocation needs an owner and at least one slot")
			}
			return nil
		}},
	); err != nil {
		return err
	}
	register := workflow.GetSignalChannel(ctx, contract.RegisterRunnerSignal)
	release := workflow.GetSignalChannel(ctx, contract.ReleaseSlotsSignal)
	onRegister := func(c workflow.ReceiveChannel, _ bool) {
		var info contract.RunnerInfo
		c.Receive(ctx, &info)
		events++
		st.register(info)
	}
	onRelease := func(c workflow.ReceiveChannel, _ bool) {
		var req contract.ReleaseRequest
		c.Receive(ctx, &req)
		events++
		st.release(req.Owner)
	}
	for {
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(register, onRegister)
		sel.AddReceive(release, onRelease)
		sel.Select(ctx)
		if events >= eventsBeforeContinue || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			// let running updates finish, take in every signal already delivered, then go on
			// in a new run with the same state
			_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
			for {
				ok := false
				var info contract.RunnerInfo
				if register.ReceiveAsync(&info) {
					st.register(info)
					ok = true
				}
				var req contract.ReleaseRequest
				if release.ReceiveAsync(&req) {
					st.release(req.Owner)
					ok = true
				}
				if !ok {
					break
				}
			}
			return workflow.NewContinueAsNewError(ctx, contract.ResourceManagerWorkflowName, st)
		}
	}
}

func (st *ResourceState) register(info contract.RunnerInfo) {
	if r, ok := st.Runners[info.ID]; ok {
		// a restarted runner: it runs nothing of its previous life, so its slots are free;
		// the owners of those slots learn it from their tasks' reports
		owners := make([]string, info.Slots)
		r.Info, r.Owners = info, owners
		return
	}
	st.Runners[info.ID] = &RunnerSlots{Info: info, Owners: make([]string, info.Slots)}
}

func (st *ResourceState) release(owner string) {
	delete(st.Allocations, owner)
	for _, id := range st.runnerIDs() {
		r := st.Runners[id]
		for i, o := range r.Owners {
			if o == owner {
				r.Owners[i] = ""
			}
		}
	}
}

func (st *ResourceState) runnerIDs() []string {
	ids := make([]string, 0, len(st.Runners))
	for id := range st.Runners {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func matches(tags, filter map[string]string) bool {
	for k, v := range filter {
		if tags[k] != v {
			return false
		}
	}
	return true
}

func (st *ResourceState) next() uint64 {
	// xorshift64*: deterministic, so replays pick the same runner
	x := st.Rand
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	st.Rand = x
	return x * 0x2545F4914F6CDD1D
}

// allocate grants a pipeline its slots on one runner whose tags match the filter, chosen by
// the strategy. A pipeline stays on one runner until exchanges cross runners.
func (st *ResourceState) allocate(req contract.AllocateRequest) (*contract.Allocation, error) {
	if a, ok := st.Allocations[req.Owner]; ok {
		return &a, nil
	}
	var candidates []*RunnerSlots
	var seen []string
	for _, id := range st.runnerIDs() {
		r := st.Runners[id]
		if !matches(r.Info.Tags, req.TagFilter) {
			continue
		}
		seen = append(seen, fmt.Sprintf("%s (%d of %d free)", id, r.Free(), r.Info.Slots))
		if r.Free() >= req.Slots {
			candidates = append(candidates, r)
		}
	}
	if len(candidates) == 0 {
		return nil, temporal.NewNonRetryableApplicationError(noResourceMessage(req, seen, len(st.Runners)), NoEnoughResource, nil)
	}
	var pick *RunnerSlots
	switch req.Strategy {
	case "SLOT_RATIO", "SYSTEM_LOAD":
		best := -1.0
		for _, r := range candidates {
			ratio := float64(r.Free()) / float64(max(r.Info.Slots, 1))
			if ratio > best {
				best, pick = ratio, r
			}
		}
	default:
		pick = candidates[st.next()%uint64(len(candidates))]
	}
	grant := contract.SlotGrant{RunnerID: pick.Info.ID, TaskQueue: pick.Info.TaskQueue}
	for i, o := range pick.Owners {
		if o == "" && len(grant.Slots) < req.Slots {
			pick.Owners[i] = req.Owner
			grant.Slots = append(grant.Slots, i)
		}
	}
	a := contract.Allocation{Owner: req.Owner, Grants: []contract.SlotGrant{grant}}
	st.Allocations[req.Owner] = a
	return &a, nil
}

func noResourceMessage(req contract.AllocateRequest, seen []string, total int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "not enough resources: the pipeline needs %d slots on one runner", req.Slots)
	if len(req.TagFilter) > 0 {
		keys := make([]string, 0, len(req.TagFilter))
		for k := range req.TagFilter {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		pairs := make([]string, len(keys))
		for i, k := range keys {
			pairs[i] = k + "=" + req.TagFilter[k]
		}
		fmt.Fprintf(&b, " with tags %s", strings.Join(pairs, ", "))
	}
	switch {
	case total == 0:
		b.WriteString("; no runner is registered")
	case len(seen) == 0:
		fmt.Fprintf(&b, "; none of the %d runners matches the tag filter", total)
	default:
		fmt.Fprintf(&b, "; matching runners: %s", strings.Join(seen, ", "))
	}
	return b.String()
}

func (st *ResourceState) view() *ClusterStatus {
	cs := &ClusterStatus{}
	for _, id := range st.runnerIDs() {
		r := st.Runners[id]
		cs.Runners = append(cs.Runners, RunnerView{RunnerInfo: r.Info, State: "ALIVE", Free: r.Free(), Owner: r.Owners})
	}
	return cs
}
