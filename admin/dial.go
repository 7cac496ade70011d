package admin

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"
)

// Dial connects to Temporal, trying again with a growing pause (up to 5 s) while the
// server does not answer yet, until ctx ends: a set-up started beside its Temporal server
// waits for it.
func Dial(ctx context.Context, opts client.Options) (client.Client, error) {
	pause := 200 * time.Millisecond
	for {
		c, err := client.DialContext(ctx, opts)
		if err == nil {
			return c, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("connect to Temporal at %s: %w", opts.HostPort, err)
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}
