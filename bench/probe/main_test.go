package main

import (
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/strait-dev/strait/contract"
)

// events builds a history from (milliseconds, event) pairs, numbering the events.
type events struct {
	base time.Time
	list []*historypb.HistoryEvent
}

func (e *events) add(ms int, typ enumspb.EventType, set func(*historypb.HistoryEvent)) int64 {
	ev := &historypb.HistoryEvent{EventId: int64(len(e.list) + 1), EventType: typ,
		EventTime: timestamppb.New(e.base.Add(time.Duration(ms) * time.Millisecond))}
	if set != nil {
		set(ev)
	}
	e.list = append(e.list, ev)
	return ev.EventId
}

func (e *events) scheduled(ms int, activity string) int64 {
	return e.add(ms, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, func(ev *historypb.HistoryEvent) {
		ev.Attributes = &historypb.HistoryEvent_ActivityTaskScheduledEventAttributes{ActivityTaskScheduledEventAttributes: &historypb.ActivityTaskScheduledEventAttributes{
			ActivityType: &commonpb.ActivityType{Name: activity}}}
	})
}

func (e *events) started(ms int, id int64) {
	e.add(ms, enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED, func(ev *historypb.HistoryEvent) {
		ev.Attributes = &historypb.HistoryEvent_ActivityTaskStartedEventAttributes{ActivityTaskStartedEventAttributes: &historypb.ActivityTaskStartedEventAttributes{ScheduledEventId: id}}
	})
}

func (e *events) completed(ms int, id int64) {
	e.add(ms, enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, func(ev *historypb.HistoryEvent) {
		ev.Attributes = &historypb.HistoryEvent_ActivityTaskCompletedEventAttributes{ActivityTaskCompletedEventAttributes: &historypb.ActivityTaskCompletedEventAttributes{ScheduledEventId: id}}
	})
}

func (e *events) signal(ms int, name string) {
	e.add(ms, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, func(ev *historypb.HistoryEvent) {
		ev.Attributes = &historypb.HistoryEvent_WorkflowExecutionSignaledEventAttributes{WorkflowExecutionSignaledEventAttributes: &historypb.WorkflowExecutionSignaledEventAttributes{SignalName: name}}
	})
}

func (e *events) activity(at, start, end int, name string) {
	id := e.scheduled(at, name)
	e.started(start, id)
	e.completed(end, id)
}

// checkpoint adds one checkpoint starting at ms: trigger, ack, the manifest (an activity when
// persistActivity, else a marker), the commit.
func (e *events) checkpoint(ms int, persistActivity bool) {
	e.activity(ms, ms+3, ms+7, contract.TriggerCheckpointActivity)
	e.signal(ms+20, contract.TaskReportSignal)
	commitAt := ms + 30
	if persistActivity {
		e.activity(ms+26, ms+27, ms+33, contract.PersistCheckpointActivity)
		commitAt = ms + 40
	} else {
		e.add(ms+29, enumspb.EVENT_TYPE_MARKER_RECORDED, nil)
	}
	e.activity(commitAt, commitAt+1, commitAt+6, contract.CommitActivity)
}

func TestCheckpointSteps(t *testing.T) {
	step := func(name string) int {
		for i, s := range ckptSteps {
			if s == name {
				return i
			}
		}
		t.Fatalf("no step %q", name)
		return -1
	}
	for _, tc := range []struct {
		name            string
		persistActivity bool
		want            map[string]float64
		persistSteps    int
	}{
		{"manifest by a local activity", false, map[string]float64{
			"trigger: scheduled to started (runner's queue)":                         3,
			"trigger: started to completed":                                          4,
			"trigger completed to the ack signal (barrier, snapshot, state written)": 13,
			"ack signal to commit scheduled (workflow tasks, manifest written)":      10,
			"commit: started to completed":                                           5,
			"round trip: trigger scheduled to completed":                             36,
			"completed to the next trigger (interval timer)":                         964,
			eventsStep: 8,
		}, 0},
		{"manifest by an activity", true, map[string]float64{
			"ack signal to commit scheduled (workflow tasks, manifest written)": 20,
			"  of which ack signal to persist scheduled (workflow task)":        6,
			"  of which persist: started to completed (manifest written)":       6,
			"round trip: trigger scheduled to completed":                        46,
			eventsStep: 10,
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &events{base: time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC)}
			for i := range 3 { // the last one is the bounded job's final checkpoint: not counted
				e.checkpoint(i*1000, tc.persistActivity)
			}
			steps := checkpointSteps(e.list)
			for name, want := range tc.want {
				got := steps[step(name)]
				if len(got) != 2 || got[0] != want || got[1] != want {
					t.Errorf("%s: %v, want two of %v", name, got, want)
				}
			}
			if n := len(steps[step("  of which persist: scheduled to started")]); n != 2*tc.persistSteps {
				t.Errorf("persist steps measured %d times, want %d", n, 2*tc.persistSteps)
			}
		})
	}
}

// The scale probe's window holds the checkpoints triggered in it that completed before the
// next trigger, each timed from its trigger to its last step, and counts their events.
func TestWindowCheckpoints(t *testing.T) {
	base := time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC)
	e := &events{base: base}
	e.checkpoint(0, true)     // before the window
	e.checkpoint(1000, true)  // 46 ms
	e.checkpoint(2000, false) // 36 ms
	// triggered in the window, never acknowledged before the next trigger
	e.activity(3000, 3003, 3007, contract.TriggerCheckpointActivity)
	e.add(3500, enumspb.EVENT_TYPE_TIMER_STARTED, nil)
	e.checkpoint(4000, false) // after the window
	e.checkpoint(5000, false)
	trips, cost := windowCheckpoints(e.list, base.Add(time.Second), base.Add(4*time.Second))
	if len(trips) != 2 || trips[0] != 46 || trips[1] != 36 {
		t.Fatalf("round trips %v, want [46 36]", trips)
	}
	// 10 and 8 events; 3 and 2 activities; one marker (the manifest by a local activity)
	want := ckptCost{checkpoints: 2, signals: 2, activities: 5, markers: 1, events: 18}
	if cost != want {
		t.Fatalf("cost %+v, want %+v", cost, want)
	}
}
