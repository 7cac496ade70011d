package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// Current details are what the Temporal Web UI shows of a running workflow ("Current
// Details"), read through the workflow's metadata query: they cost no history event and
// change nothing a replay decides, so the workflows keep them current at every step.

// showDetails sets the job's current details: its state, counts and pipelines.
func (j *jobRun) showDetails(ctx workflow.Context) {
	workflow.SetCurrentDetails(ctx, jobDetails(j.status, workflow.Now(ctx)))
}

func jobDetails(st *contract.JobStatus, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Job %d** %s: **%s**", st.JobID, st.Name, st.State)
	if st.Mode != "" {
		fmt.Fprintf(&b, " (%s)", st.Mode)
	}
	fmt.Fprintf(&b, ", %s\n\n", elapsed(st.Started, st.Finished, now))
	if st.Error != "" {
		fmt.Fprintf(&b, "Error: %s\n\n", st.Error)
	}
	if len(st.Pipelines) == 0 {
		return b.String()
	}
	b.WriteString("| pipeline | state | rows read | rows written | restarts | workflow |\n|---|---|---|---|---|---|\n")
	for _, p := range st.Pipelines {
		fmt.Fprintf(&b, "| %d | %s | %d | %d | %d | %s |\n", p.ID, p.State, p.Counters.RowsRead, p.Counters.RowsWritten,
			p.Restarts, contract.PipelineWorkflowID(st.JobID, p.ID))
	}
	b.WriteString("\nCounts as of each pipeline's latest checkpoint, as it last reported them; its own page (Current Details) has its tasks and rate.\n")
	return b.String()
}

// showDetails sets the pipeline's current details: state, counts as of the latest
// checkpoint, rate, checkpoints, runners and tasks.
func (pr *pipelineRun) showDetails(ctx workflow.Context) {
	workflow.SetCurrentDetails(ctx, pipelineDetails(pr.snapshot(), pr.cp, workflow.GetInfo(ctx).WorkflowStartTime, workflow.Now(ctx)))
}

func pipelineDetails(s *contract.PipelineStatus, cp *coordinator, started, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Pipeline %d**: **%s**, %s\n\n", s.ID, s.State, elapsed(started, time.Time{}, now))
	fmt.Fprintf(&b, "- rows read **%d**, written **%d**", s.Counters.RowsRead, s.Counters.RowsWritten)
	if s.Counters.RowsFailed > 0 {
		fmt.Fprintf(&b, ", failed %d", s.Counters.RowsFailed)
	}
	if secs := now.Sub(started).Seconds(); secs >= 1 && s.Counters.RowsRead > 0 {
		fmt.Fprintf(&b, " (%.0f rows/s on average)", float64(s.Counters.RowsRead)/secs)
	}
	b.WriteString("\n")
	if cp != nil {
		switch {
		case cp.completed > 0:
			fmt.Fprintf(&b, "- checkpoint %d completed", cp.completed)
			if !cp.completedAt.IsZero() {
				fmt.Fprintf(&b, " %s ago", now.Sub(cp.completedAt).Round(time.Second))
			}
			b.WriteString("\n")
		case cp.interval > 0:
			fmt.Fprintf(&b, "- no checkpoint completed yet (every %s)\n", cp.interval)
		}
	}
	if s.RestoredFrom > 0 {
		fmt.Fprintf(&b, "- restored from checkpoint %d\n", s.RestoredFrom)
	}
	if s.Restarts > 0 {
		fmt.Fprintf(&b, "- restarts %d, last failure: %s\n", s.Restarts, s.LastFailure)
	}
	if len(s.Runners) > 0 {
		fmt.Fprintf(&b, "- runners: %s\n", strings.Join(s.Runners, ", "))
	}
	if len(s.Tasks) > 0 {
		b.WriteString("\n| task | runner | state | read | written |\n|---|---|---|---|---|\n")
		for _, t := range s.Tasks {
			fmt.Fprintf(&b, "| %d/%d | %s | %s | %d | %d |\n", t.Task.Group, t.Task.Subtask, t.Runner, t.State,
				t.Counters.RowsRead, t.Counters.RowsWritten)
		}
	}
	return b.String()
}

func elapsed(start, end, now time.Time) string {
	if start.IsZero() {
		return "not started"
	}
	if end.IsZero() {
		// the details are as fresh as the workflow's last step: say when it started, and the
		// age as of that step
		return fmt.Sprintf("started %s UTC (%s before this update)", start.UTC().Format("2006-01-02 15:04:05"),
			now.Sub(start).Round(time.Second))
	}
	return "ran for " + end.Sub(start).Round(time.Second).String()
}
