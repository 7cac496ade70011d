package node

import (
	"context"

	"go.temporal.io/sdk/client"

	"github.com/strait-dev/strait/activities"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/jobclient"
	"github.com/strait-dev/strait/taskrunner"
)

// monitor wires a runner to the control plane for as long as ctx lasts: its load reports
// (taskrunner.ReportLoad) and its lease (taskrunner.KeepLease: self-fencing when out of
// touch with Temporal, registering again once declared lost).
func monitor(ctx context.Context, c client.Client, r *taskrunner.Runner) {
	go r.ReportLoad(ctx, taskrunner.LoadEvery, func(ctx context.Context, l contract.Load) error {
		return activities.ReportLoad(ctx, c, r.ID(), l)
	})
	r.KeepLease(ctx,
		func(ctx context.Context) error {
			_, err := c.CheckHealth(ctx, &client.CheckHealthRequest{})
			return err
		},
		func(ctx context.Context) (bool, error) { return jobclient.RunnerAlive(ctx, c, r.ID()) },
		func(ctx context.Context) error { return activities.RegisterRunner(ctx, c, r.Info()) })
}
