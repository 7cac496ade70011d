package jobclient

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/strait-dev/strait/contract"
)

// WorkflowID is the workflow id of a job: strait-job-<id> for a job Strait started, else
// the workflow whose StraitJobId search attribute holds the id (a job started with
// `temporal workflow start` under an id of Temporal's or the user's choosing, or by a
// schedule). The newest run wins when several carry it.
func WorkflowID(ctx context.Context, c client.Client, jobID int64) (string, error) {
	wid := contract.JobWorkflowID(jobID)
	_, err := c.DescribeWorkflowExecution(ctx, wid, "")
	var nf *serviceerror.NotFound
	if err == nil || !errors.As(err, &nf) {
		return wid, nil // found, or an error the caller's own call reports in context
	}
	resp, lerr := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query:    fmt.Sprintf("WorkflowType = '%s' AND %s = %d", contract.JobWorkflowName, contract.SAJobID, jobID),
		PageSize: 1,
	})
	if lerr != nil || len(resp.GetExecutions()) == 0 {
		return "", fmt.Errorf("job %d: no such job: %w", jobID, err) // wraps the NotFound callers check for
	}
	return resp.GetExecutions()[0].GetExecution().GetWorkflowId(), nil
}
