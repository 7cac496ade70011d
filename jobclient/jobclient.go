// Package jobclient is the client side of a job: submit it as a JobWorkflow, show its
// progress, wait for its end and print SeaTunnel's job summary.
package jobclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/secret"
)

// NewJobID returns a fresh job number: milliseconds since the epoch and three random digits,
// as SeaTunnel's REST clients expect a number.
func NewJobID() int64 { return contract.JobNumber(time.Now(), rand.Int64N(1000)) }

// StartRequest says which job to start: a new one (JobID 0 takes a fresh number), or, with
// Restore, a job run again under its id from its latest savepoint or checkpoint.
type StartRequest struct {
	JobID   int64
	Source  contract.ConfigSource
	Name    string // the job's name as its plan has it
	Restore bool
	// Tunables are the workflows' timings and history bounds for this job; zero fields are
	// the defaults (tests shorten them).
	Tunables contract.Tunables
}

// Start submits or restores a job and returns its id and its run.
func Start(ctx context.Context, c client.Client, req StartRequest) (int64, client.WorkflowRun, error) {
	if req.Restore && req.JobID <= 0 {
		return 0, nil, errors.New("restore a job: give the id of the job to restore")
	}
	id := req.JobID
	if id == 0 {
		id = NewJobID()
	}
	run, err := submit(ctx, c, id, req.Source, req.Name, req.Restore, req.Tunables)
	return id, run, err
}

// Submit starts the job's workflow and returns its run.
func Submit(ctx context.Context, c client.Client, jobID int64, src contract.ConfigSource, name string) (client.WorkflowRun, error) {
	return submit(ctx, c, jobID, src, name, false, contract.Tunables{})
}

// Restore starts a job again under its id, every pipeline from its latest savepoint or
// checkpoint.
func Restore(ctx context.Context, c client.Client, jobID int64, src contract.ConfigSource, name string) (client.WorkflowRun, error) {
	return submit(ctx, c, jobID, src, name, true, contract.Tunables{})
}

// Savepoint asks a running job to take a savepoint and stop; Wait then returns
// SAVEPOINT_DONE.
func Savepoint(ctx context.Context, c client.Client, jobID int64) (client.WorkflowRun, error) {
	wid, err := WorkflowID(ctx, c, jobID)
	if err != nil {
		return nil, err
	}
	if err := c.SignalWorkflow(ctx, wid, "", contract.SavepointSignal, nil); err != nil {
		return nil, fmt.Errorf("savepoint of job %d: %w", jobID, err)
	}
	return c.GetWorkflow(ctx, wid, ""), nil
}

func submit(ctx context.Context, c client.Client, jobID int64, src contract.ConfigSource, name string, restore bool, tunables contract.Tunables) (client.WorkflowRun, error) {
	in := contract.JobInput{JobID: jobID, Config: src.Text, File: src.File, Vars: src.Vars, Name: src.Name, Submitted: time.Now(),
		Restore: restore, Tunables: tunables}
	if err := sealInput(&in); err != nil {
		return nil, fmt.Errorf("submit job %d: %w", jobID, err)
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       contract.JobWorkflowID(jobID),
		TaskQueue:                contract.JobsQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:            fmt.Sprintf("job %d: %s", jobID, name),
		TypedSearchAttributes: temporal.NewSearchAttributes(
			contract.JobNameKey.ValueSet(name),
			contract.JobStateKey.ValueSet(string(contract.JobCreated)),
		),
	}, contract.JobWorkflowName, in)
	if err != nil {
		if tooLarge(err) {
			return nil, &ConfigTooLargeError{JobID: jobID, File: src.File, Size: len(src.Text), Err: err}
		}
		return nil, fmt.Errorf("submit job %d: %w", jobID, err)
	}
	return run, nil
}

// sealInput seals the secrets of a job's config under the process's key: the workflow input
// then shows them masked, and the workers and runners open them.
func sealInput(in *contract.JobInput) error {
	k, err := secret.Current()
	if err != nil {
		return fmt.Errorf("seal the job config's secrets: %w", err)
	}
	return secret.SealInput(k, in)
}

// ConfigTooLargeError is a job whose config Temporal refused as too large a workflow input.
type ConfigTooLargeError struct {
	JobID int64
	File  string
	Size  int
	Err   error
}

func (e *ConfigTooLargeError) Error() string {
	return fmt.Sprintf("submit job %d: the job config %s is %.1f MiB, and its text is the job workflow's input, which Temporal refused as too large "+
		"(a payload is at most 2 MiB by default, the server's limit.blobSize.error, and a request at most 4 MiB, its gRPC message limit); "+
		"shorten the config (comments and whitespace count) or raise the server's limits: %v",
		e.JobID, e.File, float64(e.Size)/(1<<20), e.Err)
}

func (e *ConfigTooLargeError) Unwrap() error { return e.Err }

// tooLarge reports Temporal's refusals of an oversized request or payload.
func tooLarge(err error) bool {
	var re *serviceerror.ResourceExhausted
	var ia *serviceerror.InvalidArgument
	switch {
	case errors.As(err, &re):
		return strings.Contains(re.Error(), "larger than max")
	case errors.As(err, &ia):
		return strings.Contains(ia.Error(), "size exceeds limit") || strings.Contains(ia.Error(), "too large")
	}
	s := err.Error()
	return strings.Contains(s, "ResourceExhausted") && strings.Contains(s, "larger than max")
}

// Wait waits for the job to end and returns its final status, whatever the outcome.
func Wait(ctx context.Context, run client.WorkflowRun) (*contract.JobStatus, error) {
	var st contract.JobStatus
	err := run.Get(ctx, &st)
	if err == nil {
		return &st, nil
	}
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) && ae.HasDetails() {
		if derr := ae.Details(&st); derr == nil {
			if st.Error == "" {
				st.Error = ae.Message()
			}
			return &st, nil
		}
	}
	var ce *temporal.CanceledError
	if errors.As(err, &ce) {
		if ce.HasDetails() && ce.Details(&st) == nil {
			st.State = contract.JobCanceled
			return &st, nil
		}
		return &contract.JobStatus{State: contract.JobCanceled}, nil
	}
	var te *temporal.TerminatedError
	if errors.As(err, &te) {
		return &contract.JobStatus{State: contract.JobCanceled, Error: "the job's workflow was terminated"}, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, err
}

// ExitCode is SeaTunnel's: 0 when the job finished (or stopped with a savepoint), 1
// otherwise.
func ExitCode(st *contract.JobStatus) int {
	if st != nil && (st.State == contract.JobFinished || st.State == contract.JobSavepointDone) {
		return 0
	}
	return 1
}

// PrintSummary prints SeaTunnel's job statistics block.
func PrintSummary(w io.Writer, st *contract.JobStatus) {
	const layout = "2006-01-02 15:04:05"
	end := st.Finished
	if end.IsZero() {
		end = time.Now()
	}
	secs := int64(end.Sub(st.Started).Round(time.Second) / time.Second)
	line := "***********************************************"
	fmt.Fprintln(w, line)
	fmt.Fprintln(w, "           Job Statistic Information")
	fmt.Fprintln(w, line)
	row := func(k string, v any) { fmt.Fprintf(w, "%-26s: %20v\n", k, v) }
	row("Job Id", st.JobID)
	row("Job Name", st.Name)
	row("Job State", st.State)
	row("Start Time", st.Started.Local().Format(layout))
	row("End Time", end.Local().Format(layout))
	row("Total Time(s)", secs)
	row("Total Read Count", st.Counters.RowsRead)
	row("Total Write Count", st.Counters.RowsWritten)
	row("Total Failed Count", st.Counters.RowsFailed)
	fmt.Fprintln(w, line)
}

// Progress draws a live line (rows read and written, rows/s, elapsed) from a counters
// source until ctx ends; it is meant for a terminal.
func Progress(ctx context.Context, w io.Writer, counters func() contract.Counters) {
	start := time.Now()
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	var lastRows int64
	lastAt := start
	rate := 0.0
	for {
		select {
		case <-ctx.Done():
			fmt.Fprint(w, "\r\033[K")
			return
		case now := <-t.C:
			c := counters()
			if dt := now.Sub(lastAt).Seconds(); dt > 0 {
				rate = float64(c.RowsRead-lastRows) / dt
			}
			lastRows, lastAt = c.RowsRead, now
			fmt.Fprintf(w, "\r\033[Krows read %d  written %d  %s rows/s  elapsed %s",
				c.RowsRead, c.RowsWritten, human(rate), now.Sub(start).Round(time.Second))
		}
	}
}

func human(f float64) string {
	switch {
	case f >= 1e6:
		return fmt.Sprintf("%.2fM", f/1e6)
	case f >= 1e3:
		return fmt.Sprintf("%.1fk", f/1e3)
	}
	return fmt.Sprintf("%.0f", f)
}
