//go:build record

package workflows

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/strait-dev/strait/devserver/devservertest"
)

// recordServer starts an embedded Temporal server for a recording and returns a client of
// it; both are closed when the test ends.
func recordServer(t *testing.T) client.Client { return devservertest.Client(t) }

// closedEvent waits for a run's close event and returns it.
func closedEvent(t *testing.T, c client.Client, wid, runID string) *historypb.HistoryEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	it := c.GetWorkflowHistory(ctx, wid, runID, true, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	t.Fatalf("run %s of %s did not close", runID, wid)
	return nil
}

// writeHistory replays a run's history against wf, registered under wfName, and writes it to
// testdata as <name>_history.json.
func writeHistory(t *testing.T, c client.Client, name, wid, runID string, wf any, wfName string) {
	t.Helper()
	it := c.GetWorkflowHistory(context.Background(), wid, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	rep := worker.NewWorkflowReplayer() // the input carries the tunables it was recorded with
	rep.RegisterWorkflowWithOptions(wf, workflow.RegisterOptions{Name: wfName})
	if err := rep.ReplayWorkflowHistory(nil, h); err != nil {
		t.Fatalf("replay %s: %v", name, err)
	}
	b, err := protojson.MarshalOptions{Indent: "  "}.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", name+"_history.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
