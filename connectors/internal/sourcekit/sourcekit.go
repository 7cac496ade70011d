// Package sourcekit holds the small pieces most sources write alike: their boundedness
// from the job's mode, their tables listed from their own configurations, and a wait cut
// short when its context ends (a reader's poll between reads, a client between tries).
package sourcekit

import (
	"context"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
)

// Boundedness is Unbounded in a STREAMING job and Bounded in a BATCH one: a source that
// reads until it is stopped when streaming and to an end seen at the start otherwise.
func Boundedness(mode connector.JobMode) connector.Boundedness {
	if mode == connector.Streaming {
		return connector.Unbounded
	}
	return connector.Bounded
}

// Tables lists the table of each of items, in their order.
func Tables[T any](items []T, table func(T) *catalog.Table) []*catalog.Table {
	out := make([]*catalog.Table, len(items))
	for i, it := range items {
		out[i] = table(it)
	}
	return out
}

// Sleep waits d, or until ctx ends, and returns ctx's error then. A d of zero or less
// does not wait.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
