package taskrunner

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// The runner's lease: the resource manager declares a runner lost when its lease activity
// has not heartbeated for the lease timeout, and gives its slots away. A runner must
// therefore stop writing before that can happen, whatever the cause of the silence: Temporal
// unreachable, a network cut, or the process itself stalled (stopped, swapped out, starved
// of CPU). It counts time from its last proof of contact with Temporal, on the monotonic
// clock, so a stall shows as time passed even though no check failed.
//
// A runner fences itself once it has been out of touch for fenceAfter: a part of the lease
// that leaves room for the heartbeat interval (a quarter of the lease) and for scheduling,
// so it stops before the resource manager can have declared it lost. Tasks ask before they
// make anything durable (a prepared transaction, a staged file), so a runner waking from a
// stall never writes on the strength of a lease that has run out.

// ErrFenced is the failure of tasks stopped because their runner was out of touch with
// Temporal for too long.
var ErrFenced = errors.New("runner fenced")

// fenceShare is the part of the lease a runner may be out of touch before it fences itself.
const fenceShare = 0.6

// lease tracks a runner's contact with the control plane.
type lease struct {
	origin  time.Time    // monotonic reference
	last    atomic.Int64 // nanoseconds after origin of the last contact
	timeout atomic.Int64 // the lease, nanoseconds (0: no lease, never fence)
	lost    atomic.Bool  // fenced and not yet registered again
}

func newLease() *lease { return &lease{origin: time.Now()} }

func (l *lease) touch(now time.Time) { l.last.Store(int64(now.Sub(l.origin))) }

// silence is how long the runner has been out of touch at now.
func (l *lease) silence(now time.Time) time.Duration {
	return now.Sub(l.origin) - time.Duration(l.last.Load())
}

func (l *lease) fenceAfter() time.Duration {
	return time.Duration(float64(l.timeout.Load()) * fenceShare)
}

// inTouch reports whether the runner may still write at now.
func (l *lease) inTouch(now time.Time) bool {
	if l.timeout.Load() == 0 {
		return true
	}
	return !l.lost.Load() && l.silence(now) <= l.fenceAfter()
}

// SetLease sets the lease the resource manager holds the runner to and counts the runner in
// touch from now. Without a lease (0) a runner never fences itself.
func (r *Runner) SetLease(timeout time.Duration) {
	r.lease.touch(time.Now())
	r.lease.timeout.Store(int64(timeout))
}

// Contact records a proof that the control plane hears the runner: a successful health
// check or call.
func (r *Runner) Contact() { r.lease.touch(time.Now()) }

// InTouch reports whether the runner's lease lets it write: it has heard from the control
// plane within its fencing bound and has not been fenced since it last registered.
func (r *Runner) InTouch() bool { return r.lease.inTouch(time.Now()) }

// checkLease is the tasks' guard before they make anything durable.
func (r *Runner) checkLease() error {
	now := time.Now()
	if r.lease.inTouch(now) {
		return nil
	}
	return fmt.Errorf("%w: out of touch with Temporal for %s, past %s of its %s lease, so its slots may be given away",
		ErrFenced, r.lease.silence(now).Round(100*time.Millisecond), r.lease.fenceAfter().Round(100*time.Millisecond),
		time.Duration(r.lease.timeout.Load()))
}

// Fenced reports whether the runner fenced itself and has not been registered again.
func (r *Runner) Fenced() bool { return r.lease.lost.Load() }

// Registered records that the resource manager took the runner's registration: it runs
// nothing of an earlier life and may write again.
func (r *Runner) Registered() {
	r.lease.touch(time.Now())
	r.lease.lost.Store(false)
}

// HealthCheck asks whether the control plane answers.
type HealthCheck func(ctx context.Context) error

// Membership asks the resource manager whether it holds the runner alive.
type Membership func(ctx context.Context) (alive bool, err error)

// verifyEvery is how often a runner in touch asks the resource manager whether it still
// holds it alive: a runner declared lost while it was cut off learns so at the latest then.
const verifyEvery = 30 * time.Second

// KeepLease watches the runner's contact with the control plane until ctx ends. Every
// second it runs check; before the answer is known, a runner out of touch past its fencing
// bound fences itself (stops every task, which fail), so one waking from a stall stops
// first. A runner in touch asks the resource manager whether it holds it alive whenever its
// lease activity ended (LeaseEnded) and every verifyEvery; one that is not held alive
// fences itself. A fenced runner registers again through register as soon as the control
// plane answers.
func (r *Runner) KeepLease(ctx context.Context, check HealthCheck, member Membership, register func(ctx context.Context) error) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	verify := false
	lastVerified := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.leaseEnded:
			verify = true
		case <-tick.C:
		}
		now := time.Now()
		if !r.lease.inTouch(now) && !r.lease.lost.Load() {
			r.fence(fmt.Sprintf("out of touch with Temporal for %s", r.lease.silence(now).Round(100*time.Millisecond)))
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := check(cctx)
		cancel()
		if err != nil {
			continue
		}
		if !r.lease.lost.Load() {
			r.lease.touch(time.Now())
			if !verify && time.Since(lastVerified) < verifyEvery {
				continue
			}
			mctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			alive, err := member(mctx)
			cancel()
			if err != nil {
				continue // asked again at the next tick
			}
			verify, lastVerified = false, time.Now()
			if alive {
				continue
			}
			r.fence("the resource manager declared it lost")
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err = register(rctx)
		cancel()
		if err != nil {
			r.log.Warn("registering again after fencing failed; trying again", "error", err)
			continue
		}
		r.Registered()
		r.log.Warn("registered again after fencing")
	}
}

// LeaseEnded tells the runner that a lease activity of its ended while it lives: the
// resource manager may have declared it lost (or only moved to a new run, which leases the
// runner anew), so the runner asks it.
func (r *Runner) LeaseEnded() {
	select {
	case r.leaseEnded <- struct{}{}:
	default:
	}
}

// fence stops every task of the runner: each pipeline's first task fails with ErrFenced, so
// its pipeline fails over, and the runner counts as lost until it registers again.
func (r *Runner) fence(reason string) {
	r.lease.lost.Store(true)
	err := fmt.Errorf("%w: %s", ErrFenced, reason)
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, ex := range r.execs {
		r.log.Error("fencing: stopping tasks", "job", k.job, "pipeline", k.pipeline, "epoch", k.epoch, "reason", reason)
		ex.failAll(err)
	}
}
