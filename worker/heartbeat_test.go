package worker

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/testsuite"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// An activity scheduled with a heartbeat timeout, which records no heartbeat of its own and
// runs for several times that timeout, heartbeats through the jobs worker's interceptor and
// completes; without the interceptor it times out.
func TestHeartbeatsKeepALongActivityAlive(t *testing.T) {
	for _, c := range []struct {
		name        string
		intercepted bool
	}{{"intercepted", true}, {"bare", false}} {
		t.Run(c.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := s.NewTestWorkflowEnvironment()
			if c.intercepted {
				env.SetWorkerOptions(sdkworker.Options{Interceptors: []interceptor.WorkerInterceptor{&heartbeats{}}})
			}
			var beats atomic.Int32
			env.SetOnActivityHeartbeatListener(func(*activity.Info, converter.EncodedValues) { beats.Add(1) })
			env.RegisterActivityWithOptions(func(ctx context.Context) error {
				select {
				case <-time.After(700 * time.Millisecond): // a commit that takes a while
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}, activity.RegisterOptions{Name: "slow"})
			env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
				actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
					HeartbeatTimeout: 200 * time.Millisecond})
				return workflow.ExecuteActivity(actx, "slow").Get(ctx, nil)
			}, workflow.RegisterOptions{Name: "wf"})
			env.ExecuteWorkflow("wf")
			err := env.GetWorkflowError()
			if c.intercepted && (err != nil || beats.Load() < 2) {
				t.Fatalf("error %v after %d heartbeats, want success after several", err, beats.Load())
			}
			if !c.intercepted && err == nil {
				t.Fatal("the activity completed without heartbeats: the test shows nothing")
			}
		})
	}
}
