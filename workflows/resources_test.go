package workflows

import (
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

func newState(runners ...contract.RunnerInfo) *ResourceState {
	st := &ResourceState{Runners: map[string]*RunnerSlots{}, Allocations: map[string]contract.Allocation{}, Rand: 1}
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
	a, err := st.allocate(contract.AllocateRequest{Owner: "p1", Slots: 3})
	if err != nil || a.Grants[0].RunnerID != "b" || len(a.Grants[0].Slots) != 3 {
		t.Fatalf("%+v %v", a, err)
	}
	// the same owner asking again gets the same answer
	again, err := st.allocate(contract.AllocateRequest{Owner: "p1", Slots: 3})
	if err != nil || again.Grants[0].RunnerID != "b" || st.Runners["b"].Free() != 1 {
		t.Fatalf("%+v %v free %d", again, err, st.Runners["b"].Free())
	}
	_, err = st.allocate(contract.AllocateRequest{Owner: "p2", Slots: 2, TagFilter: map[string]string{"zone": "db-zone"}})
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != NoEnoughResource || !strings.Contains(ae.Message(), "zone=db-zone") ||
		!strings.Contains(ae.Message(), "b (1 of 4 free)") {
		t.Fatalf("%v", err)
	}
	_, err = st.allocate(contract.AllocateRequest{Owner: "p3", Slots: 1, TagFilter: map[string]string{"zone": "nowhere"}})
	if err == nil || !strings.Contains(err.Error(), "none of the 2 runners matches") {
		t.Fatalf("%v", err)
	}
	st.release("p1")
	if st.Runners["b"].Free() != 4 {
		t.Fatal("slots not released")
	}
	if _, err := newState().allocate(contract.AllocateRequest{Owner: "x", Slots: 1}); err == nil || !strings.Contains(err.Error(), "no runner is registered") {
		t.Fatalf("%v", err)
	}
}

func TestSlotRatioPrefersTheEmptiestRunner(t *testing.T) {
	st := newState(contract.RunnerInfo{ID: "a", Slots: 4}, contract.RunnerInfo{ID: "b", Slots: 4})
	if _, err := st.allocate(contract.AllocateRequest{Owner: "p1", Slots: 2, Strategy: "SLOT_RATIO"}); err != nil {
		t.Fatal(err)
	}
	a, err := st.allocate(contract.AllocateRequest{Owner: "p2", Slots: 1, Strategy: "SLOT_RATIO"})
	if err != nil || a.Grants[0].RunnerID != "b" {
		t.Fatalf("%+v %v", a, err)
	}
}

func TestResourceManagerContinuesAsNewWithItsState(t *testing.T) {
	old := eventsBeforeContinue
	eventsBeforeContinue = 3
	defer func() { eventsBeforeContinue = old }()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(ResourceManagerWorkflow, workflow.RegisterOptions{Name: contract.ResourceManagerWorkflowName})
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(contract.RegisterRunnerSignal, contract.RunnerInfo{ID: "a", Slots: 2})
		env.SignalWorkflow(contract.RegisterRunnerSignal, contract.RunnerInfo{ID: "b", Slots: 2})
	}, 0)
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(contract.AllocateUpdate, "u1", &updateCallbacks{t: t}, contract.AllocateRequest{Owner: "p1", Slots: 2})
	}, 1)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(contract.RegisterRunnerSignal, contract.RunnerInfo{ID: "c", Slots: 1})
	}, 2)
	env.ExecuteWorkflow(contract.ResourceManagerWorkflowName, ResourceState{})
	err := env.GetWorkflowError()
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		t.Fatalf("want continue-as-new, got %v", err)
	}
	var next ResourceState
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	if len(next.Runners) != 3 || next.Runners["a"].Free()+next.Runners["b"].Free() != 2 || len(next.Allocations) != 1 {
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
