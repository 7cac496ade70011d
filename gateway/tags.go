package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/strait-dev/strait/contract"
)

// tagsDone is SeaTunnel's answer to an update of a node's tags.
var tagsDone = struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}{"success", "update node tags done."}

// updateTags answers /update-tags: the body, a JSON object, becomes the tags of a runner in
// the resource manager's view (an empty object clears them), so the slot requests after it
// filter on them. SeaTunnel changes the node the request reaches; the gateway runs no
// tasks, so the runner is named by the query parameter runner, or is the only alive one.
func (g *gateway) updateTags(w http.ResponseWriter, r *http.Request) error {
	body, err := g.readBody(w, r)
	if err != nil {
		return err
	}
	var raw map[string]any
	if err := decodeJSON(body, &raw); err != nil || raw == nil {
		return badRequest("Invalid JSON format in request body.")
	}
	tags, err := tagValues(raw)
	if err != nil {
		return err
	}
	res, err := g.setTags(r.Context(), contract.UpdateTagsRequest{RunnerID: r.URL.Query().Get("runner"), Tags: tags})
	if err != nil {
		return err
	}
	g.log.Info("gateway: runner tags updated", "runner", res.RunnerID, "tags", res.Tags, "flags", res.FlagTags)
	return ok(w, tagsDone)
}

// tagValues are a tag object's values as text, as SeaTunnel writes them: strings as they
// are, null as "", numbers and booleans as written, objects and arrays as JSON.
func tagValues(raw map[string]any) (map[string]string, error) {
	tags := make(map[string]string, len(raw))
	for k, v := range raw {
		switch x := v.(type) {
		case nil:
			tags[k] = ""
		case string:
			tags[k] = x
		case json.Number:
			tags[k] = x.String()
		default:
			b, err := json.Marshal(x)
			if err != nil {
				return nil, badRequest("update-tags: tag %q: %v", k, err)
			}
			tags[k] = string(b)
		}
	}
	return tags, nil
}

// setTags asks the resource manager to replace a runner's tags and waits for its answer.
// A request it refuses (no such runner, none named among several) is the client's error.
func (g *gateway) setTags(ctx context.Context, req contract.UpdateTagsRequest) (*contract.UpdateTagsResult, error) {
	h, err := g.c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: contract.ResourceManagerID,
		UpdateName: contract.UpdateTagsUpdate, Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted})
	var res contract.UpdateTagsResult
	if err == nil {
		err = h.Get(ctx, &res)
	}
	var nf *serviceerror.NotFound
	var ae *temporal.ApplicationError
	switch {
	case err == nil:
		return &res, nil
	case errors.As(err, &nf):
		return nil, badRequest("update-tags: no runner is registered")
	case errors.As(err, &ae):
		return nil, badRequest("update-tags: %s", ae.Message())
	}
	return nil, fmt.Errorf("update-tags: %w", err)
}
