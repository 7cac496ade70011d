package workflows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/strait-dev/strait/contract"
)

// wireTypes names the type each payload of a recorded history is decoded into, by where it
// travels: a workflow's input or result, an activity's input or result, a signal.
var wireTypes = map[string]func() any{
	"workflow input " + contract.JobWorkflowName:             func() any { return new(contract.JobInput) },
	"workflow result " + contract.JobWorkflowName:            func() any { return new(contract.JobStatus) },
	"workflow input " + contract.ScheduledJobWorkflowName:    func() any { return new(contract.JobInput) },
	"workflow result " + contract.ScheduledJobWorkflowName:   func() any { return new(contract.JobStatus) },
	"workflow input " + contract.PipelineWorkflowName:        func() any { return new(contract.PipelineInput) },
	"workflow result " + contract.PipelineWorkflowName:       func() any { return new(contract.PipelineStatus) },
	"activity input " + contract.PlanJobActivity:             func() any { return new(contract.PlanInput) },
	"activity result " + contract.PlanJobActivity:            func() any { return new(contract.Plan) },
	"activity input " + contract.AllocateActivity:            func() any { return new(contract.AllocateRequest) },
	"activity result " + contract.AllocateActivity:           func() any { return new(contract.Allocation) },
	"activity input " + contract.DeployActivity:              func() any { return new(contract.Deployment) },
	"activity input " + contract.TriggerCheckpointActivity:   func() any { return new(contract.TriggerRequest) },
	"activity input " + contract.PersistCheckpointActivity:   func() any { return new(contract.PersistInput) },
	"activity input " + contract.CommitActivity:              func() any { return new(contract.CommitInput) },
	"activity input " + contract.CancelTasksActivity:         func() any { return new(contract.CancelRequest) },
	"activity input " + contract.LoadCheckpointActivity:      func() any { return new(contract.LoadInput) },
	"activity result " + contract.LoadCheckpointActivity:     func() any { return new(contract.Manifest) },
	"signal " + contract.TaskReportSignal:                    func() any { return new(contract.TaskReport) },
	"signal " + contract.PipelineStateSignal:                 func() any { return new(contract.PipelineState) },
	"signal " + contract.PipelineProgressSignal:              func() any { return new(contract.PipelineProgress) },
	"activity input " + contract.DescribePipelinesActivity:   func() any { return new(contract.DescribeInput) },
	"activity result " + contract.DescribePipelinesActivity:  func() any { return new([]contract.PipelineLookup) },
	"signal " + contract.ReleaseSlotsSignal:                  func() any { return new(contract.ReleaseRequest) },
	"signal " + contract.RunnerLostSignal:                    func() any { return new(contract.RunnerLost) },
	"workflow input " + contract.ResourceManagerWorkflowName: func() any { return new(contract.ResourceState) },
	"signal " + contract.RegisterRunnerSignal:                func() any { return new(contract.RunnerInfo) },
	"signal " + contract.RunnerLoadSignal:                    func() any { return new(contract.RunnerLoad) },
	"activity input " + contract.RunnerLeaseActivity:         func() any { return new(contract.LeaseInput) },
	"update input " + contract.AllocateUpdate:                func() any { return new(contract.AllocateRequest) },
	"update result " + contract.AllocateUpdate:               func() any { return new(contract.Allocation) },
	"update input " + contract.UpdateTagsUpdate:              func() any { return new(contract.UpdateTagsRequest) },
	"update result " + contract.UpdateTagsUpdate:             func() any { return new(contract.UpdateTagsResult) },
}

// TestRecordedPayloadsKeepTheirShape decodes every payload of the recorded histories into
// the type the code now uses for it, refusing unknown fields, and encodes it again: the JSON
// must come out as it went in. A renamed or dropped field breaks running jobs even where the
// replay passes (the replayer does not compare inputs).
func TestRecordedPayloadsKeepTheirShape(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*_history.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded histories in testdata: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			seen := 0
			for _, p := range recordedPayloads(t, file) {
				seen++
				newValue, ok := wireTypes[p.where]
				if !ok {
					t.Errorf("event %d: no type known for the %s payload", p.event, p.where)
					continue
				}
				if err := sameShape(p.data, newValue()); err != nil {
					t.Errorf("event %d, %s: %v", p.event, p.where, err)
				}
			}
			if seen == 0 {
				t.Fatal("the history has no payloads")
			}
		})
	}
}

type recordedPayload struct {
	event int64
	where string
	data  []byte
}

// recordedPayloads lists a history's JSON payloads with where each travels.
func recordedPayloads(t *testing.T, file string) []recordedPayload {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []recordedPayload
	var self string
	activities := map[int64]string{} // scheduled event id -> activity name
	children := map[int64]string{}   // initiated event id -> workflow type
	updates := map[string]string{}   // update id -> update name
	add := func(e *historypb.HistoryEvent, where string, ps *commonpb.Payloads) {
		for _, p := range ps.GetPayloads() {
			if string(p.GetMetadata()["encoding"]) == "binary/null" {
				continue
			}
			out = append(out, recordedPayload{event: e.GetEventId(), where: where, data: p.GetData()})
		}
	}
	for _, e := range h.GetEvents() {
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
			a := e.GetWorkflowExecutionStartedEventAttributes()
			self = a.GetWorkflowType().GetName()
			add(e, "workflow input "+self, a.GetInput())
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
			add(e, "workflow result "+self, e.GetWorkflowExecutionCompletedEventAttributes().GetResult())
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
			add(e, "workflow input "+self, e.GetWorkflowExecutionContinuedAsNewEventAttributes().GetInput())
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			a := e.GetActivityTaskScheduledEventAttributes()
			activities[e.GetEventId()] = a.GetActivityType().GetName()
			add(e, "activity input "+a.GetActivityType().GetName(), a.GetInput())
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			a := e.GetActivityTaskCompletedEventAttributes()
			add(e, "activity result "+activities[a.GetScheduledEventId()], a.GetResult())
		case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
			a := e.GetStartChildWorkflowExecutionInitiatedEventAttributes()
			children[e.GetEventId()] = a.GetWorkflowType().GetName()
			add(e, "workflow input "+a.GetWorkflowType().GetName(), a.GetInput())
		case enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED:
			a := e.GetChildWorkflowExecutionCompletedEventAttributes()
			add(e, "workflow result "+children[a.GetInitiatedEventId()], a.GetResult())
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
			a := e.GetWorkflowExecutionSignaledEventAttributes()
			add(e, "signal "+a.GetSignalName(), a.GetInput())
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
			req := e.GetWorkflowExecutionUpdateAcceptedEventAttributes().GetAcceptedRequest()
			updates[req.GetMeta().GetUpdateId()] = req.GetInput().GetName()
			add(e, "update input "+req.GetInput().GetName(), req.GetInput().GetArgs())
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED:
			a := e.GetWorkflowExecutionUpdateCompletedEventAttributes()
			add(e, "update result "+updates[a.GetMeta().GetUpdateId()], a.GetOutcome().GetSuccess())
		case enumspb.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
			a := e.GetSignalExternalWorkflowExecutionInitiatedEventAttributes()
			add(e, "signal "+a.GetSignalName(), a.GetInput())
		}
	}
	return out
}

// sameShape decodes data into v, refusing fields v does not have, and reports whether v
// encodes to JSON that holds every recorded field with its recorded value (fields added
// since are allowed).
func sameShape(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode into %T: %w", v, err)
	}
	again, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %T: %w", v, err)
	}
	recorded, now := generic(data), generic(again)
	if err := covers(recorded, now, "$"); err != nil {
		return fmt.Errorf("%T: %w", v, err)
	}
	return nil
}

// covers reports the first place where now lacks or changes what recorded holds.
func covers(recorded, now any, path string) error {
	switch r := recorded.(type) {
	case map[string]any:
		n, ok := now.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: recorded an object, now %T", path, now)
		}
		for k, rv := range r {
			nv, ok := n[k]
			if !ok {
				return fmt.Errorf("%s.%s: recorded, now missing", path, k)
			}
			if err := covers(rv, nv, path+"."+k); err != nil {
				return err
			}
		}
		return nil
	case []any:
		n, ok := now.([]any)
		if !ok || len(n) != len(r) {
			return fmt.Errorf("%s: recorded %d elements, now %v", path, len(r), now)
		}
		for i := range r {
			if err := covers(r[i], n[i], fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	}
	if !reflect.DeepEqual(recorded, now) {
		return fmt.Errorf("%s: recorded %v, now %v", path, recorded, now)
	}
	return nil
}

func generic(data []byte) any {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err.Error()
	}
	return v
}
