//go:build !noembed

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/devserver/devservertest"
	"github.com/strait-dev/strait/internal/nettest"
)

func TestProbeTemporal(t *testing.T) {
	srv := devservertest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := probeTemporal(ctx, srv.Address()); err != nil {
		t.Errorf("probe of the embedded server: %v", err)
	}
	closed := nettest.ClosedAddr(t)
	sctx, scancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer scancel()
	if err := probeTemporal(sctx, closed); err == nil || !strings.Contains(err.Error(), "Temporal at "+closed) {
		t.Errorf("probe of a closed port: %v, want an error naming it", err)
	}
}
