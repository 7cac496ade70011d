package sourcekit

import (
	"context"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
)

func TestBoundedness(t *testing.T) {
	if got := Boundedness(connector.Streaming); got != connector.Unbounded {
		t.Errorf("streaming: %v", got)
	}
	if got := Boundedness(connector.Batch); got != connector.Bounded {
		t.Errorf("batch: %v", got)
	}
}

func TestTables(t *testing.T) {
	a, b := &catalog.Table{}, &catalog.Table{}
	got := Tables([]*catalog.Table{a, b}, func(t *catalog.Table) *catalog.Table { return t })
	if len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("tables %v", got)
	}
}

// Sleep waits its time, returns at once without one, and ends early with its context.
func TestSleep(t *testing.T) {
	start := time.Now()
	if err := Sleep(context.Background(), 5*time.Millisecond); err != nil || time.Since(start) < 5*time.Millisecond {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, 0); err != context.Canceled {
		t.Fatalf("no wait on an ended context: %v", err)
	}
	if err := Sleep(ctx, time.Hour); err != context.Canceled {
		t.Fatalf("an ended context: %v", err)
	}
}
