package contract

import "time"

// DefaultLeaseTimeout is how long a silent runner keeps its slots: the resource manager
// declares it lost about this long after it dies, and a runner fences itself well inside
// it.
const DefaultLeaseTimeout = 10 * time.Second

// RunnerInfo is the register-runner signal: what a runner tells the resource manager when
// it registers.
type RunnerInfo struct {
	ID        string            `json:"id"`
	TaskQueue string            `json:"taskQueue"`
	Slots     int               `json:"slots"`
	Tags      map[string]string `json:"tags,omitempty"`
	Address   string            `json:"address,omitempty"`
	Started   time.Time         `json:"started"`
	// MetricsAddress is where the runner's process serves Prometheus /metrics (host:port),
	// which the gateway's dashboard reads the tasks' live numbers from.
	MetricsAddress string `json:"metricsAddress,omitempty"`
}

// Load is a runner's resource use as it reports it: fractions of CPU and memory in use.
type Load struct {
	CPU    float64   `json:"cpu"`
	Memory float64   `json:"memory"`
	At     time.Time `json:"at"`
}

// RunnerLoad is the runner-load signal: a runner's occasional load report.
type RunnerLoad struct {
	RunnerID string `json:"runnerId"`
	Load     Load   `json:"load"`
}

// LeaseInput starts a runner's lease.
type LeaseInput struct {
	RunnerID   string `json:"runnerId"`
	Generation int    `json:"generation"`
}

// RunnerLost is the runner-lost signal: a runner holding a pipeline's slots is gone.
type RunnerLost struct {
	RunnerID string `json:"runnerId"`
	Reason   string `json:"reason"`
}

// AllocateRequest is the allocate-slots update: slots for one pipeline deployment. Each
// task group's instances go to one runner; different groups may land on different runners.
type AllocateRequest struct {
	Owner     string            `json:"owner"` // the pipeline workflow id and epoch
	Groups    []GroupNeed       `json:"groups"`
	TagFilter map[string]string `json:"tagFilter,omitempty"`
	Strategy  string            `json:"strategy,omitempty"`
}

// GroupNeed is one task group's slot need.
type GroupNeed struct {
	Group int `json:"group"`
	Slots int `json:"slots"`
}

// Total is the number of slots the request needs.
func (r AllocateRequest) Total() int {
	n := 0
	for _, g := range r.Groups {
		n += g.Slots
	}
	return n
}

// Allocation is the answer to an AllocateRequest.
type Allocation struct {
	Owner  string      `json:"owner"`
	Grants []SlotGrant `json:"grants"`
}

// SlotGrant is the slots granted to one task group on one runner.
type SlotGrant struct {
	Group     int    `json:"group"`
	RunnerID  string `json:"runnerId"`
	TaskQueue string `json:"taskQueue"`
	Address   string `json:"address,omitempty"` // the runner's exchange address
	Slots     []int  `json:"slots"`
}

// UpdateTagsUpdate is the update that replaces a runner's tags in the resource manager's
// view (SeaTunnel's POST /update-tags): the slot requests after it filter on the new ones.
// NoSuchRunner is the type of its error when it names no runner the manager knows, or none
// when the manager knows not exactly one alive.
const (
	UpdateTagsUpdate = "update-tags"
	NoSuchRunner     = "NoSuchRunner"
)

// UpdateTagsRequest is the update-tags update: the runner whose tags are replaced ("" names
// the only runner the resource manager knows) and its tags from now on (none clears them).
type UpdateTagsRequest struct {
	RunnerID string            `json:"runnerId,omitempty"`
	Tags     map[string]string `json:"tags"`
}

// UpdateTagsResult answers an UpdateTagsRequest: the runner whose tags were replaced, its
// tags now and the tags it registered with (its --tag flags).
type UpdateTagsResult struct {
	RunnerID string            `json:"runnerId"`
	Tags     map[string]string `json:"tags,omitempty"`
	FlagTags map[string]string `json:"flagTags,omitempty"`
}

// ReleaseRequest is the release-slots signal: an owner's slots go back.
type ReleaseRequest struct {
	Owner string `json:"owner"`
}

// ResourceState is the resource manager's whole state: its input, and what each new run
// continues with.
type ResourceState struct {
	Runners map[string]*RunnerSlots `json:"runners"`
	// Allocations by owner, so a retried request gets the same answer.
	Allocations map[string]Allocation `json:"allocations"`
	// Rand drives the RANDOM strategy deterministically.
	Rand uint64 `json:"rand"`
	// LeaseTimeout is how long a runner may go without a heartbeat before it is lost.
	LeaseTimeout time.Duration `json:"leaseTimeout"`
	// TagUpdates are the tags update-tags set, by runner id. They are a runner's tags, across
	// its restarts, for as long as it registers with the flags it had when they were set; a
	// registration with other flags drops them.
	TagUpdates map[string]TagsUpdate `json:"tagUpdates,omitempty"`
	// Tunables bound the manager's runs (ResourceEventsBeforeContinue); zero fields are the
	// defaults.
	Tunables Tunables `json:"tunables,omitzero"`
}

// RunnerSlots is the resource manager's view of one runner.
type RunnerSlots struct {
	Info RunnerInfo `json:"info"`
	// Owners holds, per slot, the allocation owning it ("" when free).
	Owners []string    `json:"owners"`
	State  RunnerState `json:"state"`
	// Generation numbers the runner's registrations; a lease of an older one is stale.
	Generation int    `json:"generation"`
	Load       *Load  `json:"load,omitempty"`
	LostReason string `json:"lostReason,omitempty"`
}

// TagsUpdate is a runner's tags as update-tags set them, and the tags the runner had
// registered with then (its --tag flags).
type TagsUpdate struct {
	Tags  map[string]string `json:"tags,omitempty"`
	Flags map[string]string `json:"flags,omitempty"`
}

// Free counts the runner's free slots; a lost runner has none.
func (r *RunnerSlots) Free() int {
	if r.State == RunnerStateLost {
		return 0
	}
	n := 0
	for _, o := range r.Owners {
		if o == "" {
			n++
		}
	}
	return n
}

// ClusterStatus answers the resource manager's cluster query.
type ClusterStatus struct {
	Runners []RunnerView `json:"runners"`
}

// RunnerView is one runner in a cluster status.
type RunnerView struct {
	RunnerInfo
	State RunnerState `json:"state"`
	Free  int         `json:"free"`
	// Owner holds, per slot, the allocation owning it ("" when free).
	Owner []string `json:"owners"`
	Load  *Load    `json:"load,omitempty"`
	// TagsUpdated says the tags were set by update-tags; FlagTags are then the ones it
	// registered with.
	TagsUpdated bool              `json:"tagsUpdated,omitempty"`
	FlagTags    map[string]string `json:"flagTags,omitempty"`
}
