package activities

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/strait-dev/strait/contract"
)

// CommitCheckpoint commits every sink of a checkpoint in one activity. A sink whose commit
// can never succeed (here a commit info it cannot read) fails the activity without retry even
// when another sink's commit is fine; sinks that commit fine alone let it succeed.
func TestCommitCheckpointFailsWithoutRetryWhenOneSinkCannotCommit(t *testing.T) {
	dir := t.TempDir()
	conf := fmt.Sprintf(`env { job.mode = "BATCH", parallelism = 1 }
source { FakeSource { plugin_output = "fake", row.num = 1, schema = { fields { id = bigint } } } }
sink {
  LocalFile { plugin_input = "fake", path = %q, tmp_path = %q, file_format_type = json }
  LocalFile { plugin_input = "fake", path = %q, tmp_path = %q, file_format_type = json }
}`, filepath.Join(dir, "a"), filepath.Join(dir, "a-tmp"), filepath.Join(dir, "b"), filepath.Join(dir, "b-tmp"))
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	a := &Coordinator{}
	env.RegisterActivityWithOptions(a.PlanJob, activity.RegisterOptions{Name: contract.PlanJobActivity})
	env.RegisterActivityWithOptions(a.CommitCheckpoint, activity.RegisterOptions{Name: contract.CommitCheckpointActivity})
	v, err := env.ExecuteActivity(contract.PlanJobActivity, contract.PlanInput{JobID: 9, Source: contract.ConfigSource{File: "two-sinks.conf", Text: conf}})
	if err != nil {
		t.Fatal(err)
	}
	var plan contract.Plan
	if err := v.Get(&plan); err != nil {
		t.Fatal(err)
	}
	var sinks []*contract.Vertex
	for _, vx := range plan.Vertices {
		if vx.Kind == contract.SinkVertex {
			sinks = append(sinks, vx)
		}
	}
	if len(sinks) != 2 {
		t.Fatalf("%d sinks planned, want 2", len(sinks))
	}
	commit := func(infos ...[][]byte) error {
		in := contract.CommitCheckpointInput{Job: plan.Job, CheckpointID: 1}
		for i, vx := range sinks {
			in.Sinks = append(in.Sinks, contract.SinkCommit{Vertex: vx, Infos: infos[i]})
		}
		_, err := env.ExecuteActivity(contract.CommitCheckpointActivity, in)
		return err
	}
	if err := commit(nil, nil); err != nil {
		t.Fatalf("sinks with nothing to commit: %v", err)
	}
	err = commit(nil, [][]byte{[]byte("not a commit info")})
	var ae *temporal.ApplicationError
	if err == nil || !errors.As(err, &ae) || !ae.NonRetryable() || ae.Type() != contract.CommitFailedType {
		t.Fatalf("one sink's unreadable info: %v, want a non-retryable %s", err, contract.CommitFailedType)
	}
}
