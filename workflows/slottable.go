package workflows

import (
	"fmt"
	"sort"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/strait-dev/strait/contract"
)

// slotTable is the resource manager's state with what it does to it: registering runners,
// allocating and releasing slots. It is plain data and plain functions, deterministic:
// the workflow around it records the changes.
type slotTable struct{ *contract.ResourceState }

// register records a runner, or a runner that came back: it runs nothing of its previous
// life, so all its slots are free.
func (st slotTable) register(info contract.RunnerInfo) *contract.RunnerSlots {
	r, ok := st.Runners[info.ID]
	if !ok {
		r = &contract.RunnerSlots{}
		st.Runners[info.ID] = r
	}
	r.Info, r.Owners, r.State, r.LostReason = info, make([]string, info.Slots), contract.RunnerStateAlive, ""
	r.Generation++
	return r
}

func (st slotTable) release(owner string) {
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

// ownersOn lists, sorted, the allocations holding slots on a runner.
func (st slotTable) ownersOn(r *contract.RunnerSlots) []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range r.Owners {
		if o != "" && !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	sort.Strings(out)
	return out
}

func (st slotTable) runnerIDs() []string {
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

func (st slotTable) next() uint64 {
	// xorshift64*: deterministic, so replays pick the same runner
	x := st.Rand
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	st.Rand = x
	return x * 0x2545F4914F6CDD1D
}

// allocate places each task group of a pipeline on one alive runner whose tags match the
// filter and that has the slots, chosen by the strategy: RANDOM (default), SLOT_RATIO (the
// largest share of free slots) or SYSTEM_LOAD (the lowest reported CPU and memory use, each
// slot already given in this allocation counted as 10 % more load). Either every group is
// placed or nothing is.
func (st slotTable) allocate(req contract.AllocateRequest, aliveOnly bool) (*contract.Allocation, error) {
	if a, ok := st.Allocations[req.Owner]; ok {
		if !aliveOnly || st.holds(a) {
			return &a, nil // the same request again
		}
		// an owner's earlier grant on a runner lost or registered anew since: never hand
		// out slots of a runner that is not alive
		st.release(req.Owner)
	}
	groups := append([]contract.GroupNeed(nil), req.Groups...)
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].Slots > groups[j].Slots })
	free := map[string]int{}
	given := map[string]int{}
	var matching []*contract.RunnerSlots
	for _, id := range st.runnerIDs() {
		r := st.Runners[id]
		if r.State == contract.RunnerStateAlive && matches(r.Info.Tags, req.TagFilter) {
			matching = append(matching, r)
			free[id] = r.Free()
		}
	}
	placed := map[int]*contract.RunnerSlots{}
	for _, g := range groups {
		var candidates []*contract.RunnerSlots
		for _, r := range matching {
			if free[r.Info.ID] >= g.Slots {
				candidates = append(candidates, r)
			}
		}
		if len(candidates) == 0 {
			return nil, temporal.NewNonRetryableApplicationError(st.noResourceMessage(req, g, matching), contract.NoEnoughResource, nil)
		}
		pick := st.choose(req.Strategy, candidates, free, given)
		placed[g.Group] = pick
		free[pick.Info.ID] -= g.Slots
		given[pick.Info.ID] += g.Slots
	}
	a := contract.Allocation{Owner: req.Owner}
	for _, g := range req.Groups { // grants in the request's group order
		r := placed[g.Group]
		grant := contract.SlotGrant{Group: g.Group, RunnerID: r.Info.ID, TaskQueue: r.Info.TaskQueue, Address: r.Info.Address}
		for i, o := range r.Owners {
			if o == "" && len(grant.Slots) < g.Slots {
				r.Owners[i] = req.Owner
				grant.Slots = append(grant.Slots, i)
			}
		}
		a.Grants = append(a.Grants, grant)
	}
	st.Allocations[req.Owner] = a
	return &a, nil
}

// holds reports whether every slot of an allocation is still the owner's on an alive runner.
func (st slotTable) holds(a contract.Allocation) bool {
	for _, g := range a.Grants {
		r, ok := st.Runners[g.RunnerID]
		if !ok || r.State != contract.RunnerStateAlive {
			return false
		}
		for _, slot := range g.Slots {
			if slot >= len(r.Owners) || r.Owners[slot] != a.Owner {
				return false
			}
		}
	}
	return true
}

func (st slotTable) choose(strategy string, candidates []*contract.RunnerSlots, free, given map[string]int) *contract.RunnerSlots {
	switch strategy {
	case "SLOT_RATIO":
		var pick *contract.RunnerSlots
		best := -1.0
		for _, r := range candidates {
			ratio := float64(free[r.Info.ID]) / float64(max(r.Info.Slots, 1))
			if ratio > best {
				best, pick = ratio, r
			}
		}
		return pick
	case "SYSTEM_LOAD":
		var pick *contract.RunnerSlots
		best := 1e18
		for _, r := range candidates {
			load := 0.5 // unknown load counts as half busy
			if r.Load != nil {
				load = (r.Load.CPU + r.Load.Memory) / 2
			}
			load += 0.1 * float64(given[r.Info.ID])
			if load < best {
				best, pick = load, r
			}
		}
		return pick
	}
	return candidates[st.next()%uint64(len(candidates))]
}

// noResourceMessage says what the pipeline needs and what the cluster has, counted before
// the allocation began: group g is the one that found no runner.
func (st slotTable) noResourceMessage(req contract.AllocateRequest, g contract.GroupNeed, matching []*contract.RunnerSlots) string {
	var b strings.Builder
	fmt.Fprintf(&b, "not enough resources: the pipeline needs %d slots (%s)", req.Total(), describeGroups(req.Groups))
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
		fmt.Fprintf(&b, " on runners with tags %s", strings.Join(pairs, ", "))
	}
	alive := 0
	for _, r := range st.Runners {
		if r.State == contract.RunnerStateAlive {
			alive++
		}
	}
	switch {
	case alive == 0:
		b.WriteString("; no runner is registered and alive")
		return b.String()
	case len(matching) == 0:
		fmt.Fprintf(&b, "; none of the %d alive runners matches the tag filter", alive)
		return b.String()
	}
	total, largest := 0, 0
	seen := make([]string, len(matching))
	for i, r := range matching {
		f := r.Free()
		total += f
		largest = max(largest, f)
		seen[i] = fmt.Sprintf("%s %d of %d free", r.Info.ID, f, r.Info.Slots)
	}
	fmt.Fprintf(&b, "; the cluster has %d free on %d matching runners (%s)", total, len(matching), strings.Join(seen, ", "))
	switch {
	case g.Slots > largest:
		fmt.Fprintf(&b, ": task group %d needs %d slots on one runner and no runner has that many free", g.Group, g.Slots)
	case req.Total() <= total:
		fmt.Fprintf(&b, ": the free slots are spread so that task group %d (%d slots) fits on no runner once the others are placed", g.Group, g.Slots)
	}
	return b.String()
}

// describeGroups summarises the slots each task group needs: "3 task groups of 1 slot",
// or "task groups of 2, 1 and 1 slots".
func describeGroups(groups []contract.GroupNeed) string {
	if len(groups) == 0 {
		return "no task group"
	}
	same := true
	for _, g := range groups[1:] {
		same = same && g.Slots == groups[0].Slots
	}
	unit := func(n int) string {
		if n == 1 {
			return "slot"
		}
		return "slots"
	}
	if same {
		if len(groups) == 1 {
			return fmt.Sprintf("1 task group of %d %s", groups[0].Slots, unit(groups[0].Slots))
		}
		return fmt.Sprintf("%d task groups of %d %s", len(groups), groups[0].Slots, unit(groups[0].Slots))
	}
	sizes := make([]string, len(groups))
	for i, g := range groups {
		sizes[i] = fmt.Sprint(g.Slots)
	}
	return fmt.Sprintf("task groups of %s and %s slots", strings.Join(sizes[:len(sizes)-1], ", "), sizes[len(sizes)-1])
}

func (st slotTable) view() *contract.ClusterStatus {
	cs := &contract.ClusterStatus{}
	for _, id := range st.runnerIDs() {
		r := st.Runners[id]
		cs.Runners = append(cs.Runners, contract.RunnerView{RunnerInfo: r.Info, State: r.State, Free: r.Free(), Owner: r.Owners, Load: r.Load})
	}
	return cs
}
