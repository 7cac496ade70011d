package taskrunner_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/taskrunner"
)

const streamingJob = `
env { job.mode = STREAMING }
source { FakeSource { row.num = 10, schema = { fields { id = int } } } }
sink { Console { log.print.data = false } }`

// fencedWithin waits for the deployment's task to fail because its runner fenced itself.
func fencedWithin(t *testing.T, c *collect, d time.Duration) contract.TaskStatus {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for _, s := range c.final() {
			if s.State.Terminal() {
				if s.State != contract.TaskFailed || !strings.Contains(s.Error, taskrunner.ErrFenced.Error()) {
					t.Fatalf("task ended %s: %s", s.State, s.Error)
				}
				return s
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the task still runs %s later", d)
	return contract.TaskStatus{}
}

// A runner that cannot reach Temporal fences itself once out of touch past its bound (a
// part of the lease), not before: its task fails, so its pipeline fails over.
func TestRunnerFencesItselfWhenCutOff(t *testing.T) {
	c, r := deploy(t, streamingJob)
	defer r.Close()
	r.SetLease(2 * time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := time.Now()
	go r.KeepLease(ctx, func(context.Context) error { return errors.New("connection refused") },
		func(context.Context) (bool, error) { return true, nil }, func(context.Context) error { return nil })
	fencedWithin(t, c, 20*time.Second)
	if since := time.Since(started); since < 1200*time.Millisecond {
		t.Fatalf("fenced after %s, before its bound of 0.6 of the lease", since)
	}
	if r.InTouch() || !r.Fenced() {
		t.Fatal("a fenced runner says it may write")
	}
}

// A runner that was stalled past its lease (stopped, starved) fences itself at once when it
// runs again, though its first health check succeeds; once it has registered again it may
// write again.
func TestStalledRunnerFencesBeforeItsFirstCheck(t *testing.T) {
	c, r := deploy(t, streamingJob)
	defer r.Close()
	r.SetLease(time.Second)
	time.Sleep(1500 * time.Millisecond) // the stall: no contact, nothing watching
	if r.InTouch() {
		t.Fatal("a runner silent past its lease says it may write")
	}
	var registered atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.KeepLease(ctx, func(context.Context) error { return nil },
		func(context.Context) (bool, error) { return false, nil },
		func(context.Context) error { registered.Add(1); return nil })
	fencedWithin(t, c, 5*time.Second)
	deadline := time.Now().Add(5 * time.Second)
	for registered.Load() == 0 || !r.InTouch() {
		if time.Now().After(deadline) {
			t.Fatal("the fenced runner did not register again once Temporal answered")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A runner in touch whose lease ended asks the resource manager; one declared lost fences
// itself and registers again, one still held alive keeps its tasks.
func TestRunnerDeclaredLostFencesAndRegistersAgain(t *testing.T) {
	for _, alive := range []bool{true, false} {
		c, r := deploy(t, streamingJob)
		r.SetLease(10 * time.Second)
		var asked, registered atomic.Int32
		ctx, cancel := context.WithCancel(context.Background())
		go r.KeepLease(ctx, func(context.Context) error { return nil },
			func(context.Context) (bool, error) { asked.Add(1); return alive, nil },
			func(context.Context) error { registered.Add(1); return nil })
		r.LeaseEnded()
		deadline := time.Now().Add(5 * time.Second)
		for asked.Load() == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if asked.Load() == 0 {
			t.Fatal("the runner did not ask the resource manager after its lease ended")
		}
		if alive {
			time.Sleep(1500 * time.Millisecond) // a tick or so: nothing may happen
			for _, s := range c.final() {
				if s.State.Terminal() {
					t.Fatalf("a runner held alive stopped its task: %s %s", s.State, s.Error)
				}
			}
			if registered.Load() != 0 {
				t.Fatal("a runner held alive registered again")
			}
		} else {
			fencedWithin(t, c, 5*time.Second)
			for registered.Load() == 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if registered.Load() == 0 || !r.InTouch() {
				t.Fatal("a runner declared lost did not register again")
			}
		}
		cancel()
		r.Close()
	}
}
