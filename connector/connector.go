// Package connector is Strait's plugin API: sources (an enumerator that hands out splits and
// parallel readers whose split state can be snapshotted and restored), sinks (writers that
// prepare a commit per checkpoint and a committer that commits idempotently, anywhere) and
// transforms. Plugins register under their SeaTunnel names, matched case-insensitively.
//
// Nothing here knows about Temporal or the network: the task runner drives these interfaces,
// and the control plane only ever sees splits, state blobs and commit infos as bytes.
package connector

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/jobinfo"
	"github.com/strait-dev/strait/row"
)

// JobMode is SeaTunnel's env.job.mode.
type JobMode = jobinfo.Mode

// The job modes.
const (
	Batch     = jobinfo.Batch
	Streaming = jobinfo.Streaming
)

// Job is what a plugin may know about the job it runs in.
type Job = jobinfo.Job

// Boundedness says whether a source ends by itself.
type Boundedness int

// Bounded sources end; unbounded ones run until stopped.
const (
	Bounded Boundedness = iota
	Unbounded
)

// Split is a unit of source work. Data is the connector's own encoding of what the split
// covers and how far it has been read; it travels in checkpoints and across processes.
type Split struct {
	ID   string          `json:"id"`
	Data json.RawMessage `json:"data,omitempty"`
}

// ---- sources ----

// SourceContext is what a source factory receives.
type SourceContext struct {
	// Context is the planning deadline. A factory that reaches out while it is built (a
	// database's columns, a connection check) does so within it, and gives up when it is
	// done. The planner sets it from its caller; it is never nil.
	Context     context.Context
	Options     *config.Options
	Job         Job
	Parallelism int
	// OutputName is the dataset name the source produces (plugin_output), if any.
	OutputName string
	// Planned are the tables the job was planned with, when the source is built where the
	// job runs; nil while the job is planned. A source that learns its tables' columns from
	// a database as it is built may find them changed since (an ALTER between the planning
	// and the start), which the rest of the job, planned with the old ones, would not follow.
	Planned []*catalog.Table
}

// Source is a configured source plugin.
type Source interface {
	Boundedness() Boundedness
	// Tables are the tables whose rows the source emits (several for multi-table sources).
	Tables() []*catalog.Table
	// CreateEnumerator makes the split enumerator; state is its snapshot when restoring.
	CreateEnumerator(ctx EnumeratorContext, state []byte) (Enumerator, error)
	// CreateReader makes the reader of one parallel subtask.
	CreateReader(ctx ReaderContext) (Reader, error)
}

// EnumeratorContext lets an enumerator hand splits to readers.
type EnumeratorContext interface {
	Parallelism() int
	// RegisteredReaders lists the subtasks that have registered so far.
	RegisteredReaders() []int
	Assign(reader int, splits ...Split)
	SignalNoMoreSplits(reader int)
}

// Enumerator discovers splits and assigns them to readers. Its methods are called from one
// goroutine.
type Enumerator interface {
	Open(ctx context.Context) error
	// Run does the initial discovery and assignment.
	Run(ctx context.Context) error
	RegisterReader(reader int) error
	HandleSplitRequest(reader int) error
	// AddSplitsBack returns splits of a failed reader for reassignment.
	AddSplitsBack(splits []Split, reader int) error
	Snapshot(checkpointID int64) ([]byte, error)
	Close() error
}

// ReaderContext is what one reader subtask knows of its place.
type ReaderContext struct {
	Index       int
	Parallelism int
	Job         Job
	// RequestSplit asks the enumerator for more splits (for pull-style sources).
	RequestSplit func()
}

// Reader reads the splits assigned to one subtask.
type Reader interface {
	Open(ctx context.Context) error
	AddSplits(splits []Split)
	// NoMoreSplits says no split will be added any more.
	NoMoreSplits()
	// PollNext appends rows to out (up to out.Cap()) and returns promptly; done reports
	// that every split is read and no more will come. A reader with nothing to emit yet
	// returns no rows and done=false; it may wait a little, honouring ctx.
	PollNext(ctx context.Context, out *row.Batch) (done bool, err error)
	// SnapshotState returns the unfinished splits with their progress.
	SnapshotState(checkpointID int64) ([]Split, error)
	Close() error
}

// CheckpointListener is a reader that wants to know which checkpoints completed: a change
// data capture reader may then let its database drop the log it will never read again.
// The engine tells it, from the reader's goroutine, before the reader takes a later
// checkpoint; ids only grow, and one may be skipped when a newer one is known already.
type CheckpointListener interface {
	NotifyCheckpointComplete(ctx context.Context, checkpointID int64) error
}

// ---- sinks ----

// SinkContext is what a sink factory receives.
type SinkContext struct {
	// Context is the planning deadline. A factory that reaches out while it is built (a
	// database's columns, a connection check) does so within it, and gives up when it is
	// done. The planner sets it from its caller; it is never nil.
	Context context.Context
	Options *config.Options
	Job     Job
	// Inputs are the tables the sink receives rows of.
	Inputs []*catalog.Table
}

// Sink is a configured sink plugin.
type Sink interface {
	// CreateWriter makes the writer of one parallel subtask; states are its snapshots when
	// restoring.
	CreateWriter(ctx WriterContext, states [][]byte) (Writer, error)
	// CreateCommitter makes the committer, or returns nil when the sink has no commit phase.
	CreateCommitter() (Committer, error)
}

// SinkSetup is a sink that prepares its target before the job first runs: SeaTunnel's save
// modes (create the table, recreate it, delete its rows). The engine calls Setup once per
// job, after planning and before any writer exists; never when the job is restored from a
// checkpoint or savepoint. It may be called again after a failure of the call itself, so
// it must be safe to repeat.
type SinkSetup interface {
	Setup(ctx context.Context) error
}

// WriterContext is what one writer subtask knows of its place.
type WriterContext struct {
	Index       int
	Parallelism int
	Job         Job
	// Epoch is the pipeline's attempt (1, then one more per failover): transactions named
	// with it never collide with those of an attempt that was given up.
	Epoch int
}

// Writer writes rows of one subtask.
type Writer interface {
	Write(ctx context.Context, b *row.Batch) error
	// PrepareCommit flushes and returns the commit info of everything written since the last
	// checkpoint (nil when there is nothing to commit). checkpointID is the checkpoint being
	// taken; the final one of a bounded job too.
	PrepareCommit(ctx context.Context, checkpointID int64) ([]byte, error)
	SnapshotState(checkpointID int64) ([]byte, error)
	// Close ends the writer, releasing what it holds.
	Close(ctx context.Context) error
}

// Committer makes prepared writes visible. It runs once per checkpoint with every writer's
// commit info, from wherever the control plane runs it, and must be idempotent: it may be
// called again with the same infos after a failure.
type Committer interface {
	Commit(ctx context.Context, req CommitRequest) error
	// Abort discards prepared writes that will never be committed.
	Abort(ctx context.Context, infos [][]byte) error
}

// CommitRequest carries the commit infos of one checkpoint: every writer's PrepareCommit
// result for it (nil infos left out), in subtask order.
type CommitRequest struct {
	CheckpointID int64
	// Final marks the last checkpoint of a bounded job: nothing is written after it.
	Final bool
	Infos [][]byte
}

// DecodeInfos decodes the commit infos a committer is given (a request's, or those it
// aborts) with decode, in order, passing over empty ones (a writer that prepared nothing);
// the first that does not decode is the error.
func DecodeInfos[T any](infos [][]byte, decode func([]byte) (T, error)) ([]T, error) {
	out := make([]T, 0, len(infos))
	for _, raw := range infos {
		if len(raw) == 0 {
			continue
		}
		v, err := decode(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// ---- transforms ----

// TransformContext is what a transform factory receives.
type TransformContext struct {
	// Context is the planning deadline. A factory that reaches out while it is built (a
	// database's columns, a connection check) does so within it, and gives up when it is
	// done. The planner sets it from its caller; it is never nil.
	Context context.Context
	Options *config.Options
	Job     Job
	// Inputs are the tables the transform receives rows of (one unless it unions).
	Inputs []*catalog.Table
}

// Transform reshapes batches. It is created per parallel subtask and called from one
// goroutine.
type Transform interface {
	// Outputs are the tables of the rows it emits, one per input table in the same order.
	Outputs() []*catalog.Table
	Open(ctx context.Context) error
	// Process takes ownership of in and returns the batch to pass on: in itself, changed in
	// place, or a new batch (then it releases in). It may return an empty batch.
	Process(ctx context.Context, in *row.Batch) (*row.Batch, error)
	Close() error
}

// PermanentError marks a failure that trying again cannot fix (a broken data check, a
// rejected config); the engine fails at once instead of retrying.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent wraps err as a PermanentError.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// IsPermanent reports whether err, or an error it wraps, is permanent.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}
