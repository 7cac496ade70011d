package node

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/strait-dev/strait/connector"
	_ "github.com/strait-dev/strait/connectors/all"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/planner"
	"github.com/strait-dev/strait/taskrunner"
)

// unreachable is a Temporal client whose server never answers.
type unreachable struct{ client.Client }

func (unreachable) CheckHealth(context.Context, *client.CheckHealthRequest) (*client.CheckHealthResponse, error) {
	return nil, errors.New("connection refused")
}

// reports keeps what a runner reports.
type reports struct{ ch chan contract.TaskReport }

func (r reports) Report(_ context.Context, _ string, rep contract.TaskReport) error {
	r.ch <- rep
	return nil
}

// TestRunnerFencesItselfWhenCutOff: a runner that cannot reach Temporal for longer than its
// lease stops its own tasks, since its slots may already be given to another runner.
func TestRunnerFencesItselfWhenCutOff(t *testing.T) {
	plan, err := planner.Plan(planner.Source{File: "job.conf", Text: `
env { job.mode = STREAMING }
source { FakeSource { row.num = 10, schema = { fields { id = int } } } }
sink { Console { log.print.data = false } }`}, connector.Job{ID: 9})
	if err != nil {
		t.Fatal(err)
	}
	rep := reports{ch: make(chan contract.TaskReport, 16)}
	r := taskrunner.New(taskrunner.Config{ID: "cut-off", Slots: 1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, rep)
	defer r.Close()
	p := plan.Pipelines[0]
	if err := r.Deploy(context.Background(), contract.Deployment{Job: plan.Job, Pipeline: p, Vertices: plan.Vertices, Epoch: 1,
		WorkflowID: "w", Tasks: []contract.TaskID{{Group: 1}}, Env: plan.Env}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := time.Now()
	go monitor(ctx, unreachable{}, r, slog.New(slog.NewTextHandler(io.Discard, nil)), 2*time.Second, time.Hour)
	deadline := time.After(20 * time.Second)
	for {
		select {
		case got := <-rep.ch:
			for _, s := range got.Tasks {
				if s.State == contract.TaskCanceled {
					if since := time.Since(started); since < 2*time.Second {
						t.Fatalf("fenced after %s, before the lease ran out", since)
					}
					return
				}
				if s.State.Terminal() {
					t.Fatalf("task ended %s", s.State)
				}
			}
		case <-deadline:
			t.Fatal("the runner kept its tasks running while cut off from Temporal")
		}
	}
}
