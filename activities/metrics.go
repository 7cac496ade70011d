package activities

import (
	"context"
	"strconv"

	"go.temporal.io/sdk/activity"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/metrics"
)

// recordCheckpoint counts a completed checkpoint and when it completed, through the
// worker's metrics handler (nothing outside an activity, as in tests calling it directly).
func recordCheckpoint(ctx context.Context, m contract.Manifest) {
	if !activity.IsActivity(ctx) {
		return
	}
	h := activity.GetMetricsHandler(ctx).WithTags(map[string]string{
		"job": strconv.FormatInt(m.Job, 10), "pipeline": strconv.Itoa(m.Pipeline)})
	h.Counter(metrics.CheckpointsCompleted).Inc(1)
	h.Gauge(metrics.CheckpointLastCompleted).Update(float64(m.Completed.UnixMilli()) / 1000)
}
