package jobclient

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/strait-dev/strait/contract"
)

// Status returns a job's status: the job workflow's own answer, with each running
// pipeline's live tasks and counters filled in from the pipeline workflows.
func Status(ctx context.Context, c client.Client, jobID int64) (*contract.JobStatus, error) {
	wid, err := WorkflowID(ctx, c, jobID)
	if err != nil {
		return nil, err
	}
	desc, err := c.DescribeWorkflowExecution(ctx, wid, "")
	if err != nil {
		return nil, fmt.Errorf("job %d: %w", jobID, err)
	}
	if desc.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		run := c.GetWorkflow(ctx, wid, "")
		return Wait(ctx, run)
	}
	v, err := c.QueryWorkflow(ctx, wid, "", contract.StatusQuery)
	if err != nil {
		return nil, fmt.Errorf("job %d: status: %w", jobID, err)
	}
	var st contract.JobStatus
	if err := v.Get(&st); err != nil {
		return nil, err
	}
	st.Counters = contract.Counters{}
	for i := range st.Pipelines {
		p := &st.Pipelines[i]
		if !p.State.Terminal() {
			if pv, err := c.QueryWorkflow(ctx, contract.PipelineWorkflowID(jobID, p.ID), "", contract.StatusQuery); err == nil {
				var ps contract.PipelineStatus
				if pv.Get(&ps) == nil {
					*p = ps
				}
			}
		}
		st.Counters.Add(p.Counters)
	}
	return &st, nil
}

// JobSummary is one line of a job listing.
type JobSummary struct {
	JobID int64 `json:"jobId"`
	// WorkflowID is the job workflow's id (strait-job-<id>, or one of Temporal's choosing).
	WorkflowID string            `json:"workflowId"`
	Name       string            `json:"jobName"`
	State      contract.JobState `json:"jobStatus"`
	Started    time.Time         `json:"createTime"`
	Closed     time.Time         `json:"finishTime,omitempty"`
}

// List lists jobs, newest first, optionally only those in one state. A job whose workflow
// closed without recording its end (terminated, timed out) reads as that close means, not
// as the state its search attribute was left at.
func List(ctx context.Context, c client.Client, namespace string, state string) ([]JobSummary, error) {
	want := contract.JobState(strings.ToUpper(state))
	q := fmt.Sprintf("WorkflowType = '%s'", contract.JobWorkflowName)
	switch {
	case want == "":
	case want.Terminal():
		// a closed run: the state it recorded, or the one its close means (filtered below)
		q += " AND ExecutionStatus != 'Running'"
	default:
		q += fmt.Sprintf(" AND %s = '%s' AND ExecutionStatus = 'Running'", contract.SAJobState, want)
	}
	var out []JobSummary
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: namespace, Query: q, NextPageToken: token})
		if err != nil {
			return nil, fmt.Errorf("list jobs: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			if s := SummaryOf(e); want == "" || s.State == want {
				out = append(out, s)
			}
		}
		token = resp.GetNextPageToken()
		if len(token) == 0 {
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return out, nil
}

// SummaryOf is the summary of one job workflow execution as visibility lists it: the job id
// (its StraitJobId search attribute, else derived from the workflow id), name, and the state
// StateOf gives.
func SummaryOf(e *workflowpb.WorkflowExecutionInfo) JobSummary {
	wid := e.GetExecution().GetWorkflowId()
	s := JobSummary{JobID: contract.JobIDFor(contract.JobInput{}, wid), WorkflowID: wid, Started: e.GetStartTime().AsTime()}
	if e.GetCloseTime() != nil {
		s.Closed = e.GetCloseTime().AsTime()
	}
	dc := converter.GetDefaultDataConverter()
	sa := e.GetSearchAttributes().GetIndexedFields()
	if p, ok := sa[contract.SAJobID]; ok {
		var id int64
		if dc.FromPayload(p, &id) == nil && id > 0 {
			s.JobID = id
		}
	}
	if p, ok := sa[contract.SAJobName]; ok {
		_ = dc.FromPayload(p, &s.Name)
	}
	var recorded string
	if p, ok := sa[contract.SAJobState]; ok {
		_ = dc.FromPayload(p, &recorded)
	}
	s.State = StateOf(contract.JobState(recorded), e.GetStatus())
	return s
}

// StateOf is a job's state from what its workflow recorded and how its execution stands:
// the recorded state while it runs and when it recorded its end; for a run that closed
// without recording it, the state the close means (terminated or canceled: CANCELED;
// failed or timed out: FAILED; completed: FINISHED).
func StateOf(recorded contract.JobState, status enumspb.WorkflowExecutionStatus) contract.JobState {
	switch status {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED:
		if recorded == "" {
			return contract.JobCreated
		}
		return recorded
	}
	if recorded.Terminal() {
		return recorded
	}
	switch status {
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return contract.JobFinished
	case enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
		return contract.JobFailed
	}
	return contract.JobCanceled // terminated, canceled, continued as new and then closed
}

// Cancel cancels a job; it ends CANCELED once its pipelines stopped their tasks.
func Cancel(ctx context.Context, c client.Client, jobID int64) error {
	wid, err := WorkflowID(ctx, c, jobID)
	if err != nil {
		return err
	}
	if err := c.CancelWorkflow(ctx, wid, ""); err != nil {
		return fmt.Errorf("cancel job %d: %w", jobID, err)
	}
	return nil
}

// PrintStatus prints a job's status for people: state, pipelines and where each task runs.
func PrintStatus(w io.Writer, st *contract.JobStatus) {
	fmt.Fprintf(w, "Job %d %q: %s", st.JobID, st.Name, st.State)
	if st.Mode != "" {
		fmt.Fprintf(w, " (%s)", st.Mode)
	}
	fmt.Fprintln(w)
	if st.Error != "" {
		fmt.Fprintf(w, "  error: %s\n", st.Error)
	}
	fmt.Fprintf(w, "  rows read %d, written %d, failed %d\n", st.Counters.RowsRead, st.Counters.RowsWritten, st.Counters.RowsFailed)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, p := range st.Pipelines {
		fmt.Fprintf(tw, "  pipeline %d\t%s\trunners %s\trows read %d\twritten %d\n", p.ID, p.State, strings.Join(p.Runners, ","), p.Counters.RowsRead, p.Counters.RowsWritten)
		for _, t := range p.Tasks {
			fmt.Fprintf(tw, "    task %s\t%s\trunner %s\tread %d\twritten %d\t%s\n", t.Task, t.State, t.Runner, t.Counters.RowsRead, t.Counters.RowsWritten, t.Error)
		}
		if p.Error != "" {
			fmt.Fprintf(tw, "    error: %s\n", p.Error)
		}
	}
	tw.Flush()
}
