package worker

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
)

// heartbeats is the jobs worker's activity interceptor: an activity scheduled with a
// heartbeat timeout heartbeats a third of that timeout apart for as long as it runs. When
// the worker running it dies, Temporal then retries the activity elsewhere once the
// heartbeat timeout passes rather than its start-to-close timeout (minutes for a sink's
// commit, which may be long but only ever runs while its worker lives).
type heartbeats struct {
	interceptor.WorkerInterceptorBase
}

func (*heartbeats) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	i := &heartbeating{}
	i.Next = next
	return i
}

type heartbeating struct {
	interceptor.ActivityInboundInterceptorBase
}

func (h *heartbeating) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	every := activity.GetInfo(ctx).HeartbeatTimeout / 3
	if every <= 0 {
		return h.Next.ExecuteActivity(ctx, in)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return h.Next.ExecuteActivity(ctx, in)
}
