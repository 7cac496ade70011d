package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"go.temporal.io/api/serviceerror"

	"github.com/strait-dev/strait/jobclient"
)

// StopResponse answers stop-job (and is one element of stop-jobs' answer).
type StopResponse struct {
	JobID int64 `json:"jobId"`
}

type stopRequest struct {
	jobID     int64
	savepoint bool
}

// parseStop reads {"jobId": <long>, "isStopWithSavePoint": false}; the id may also be a
// string, as SeaTunnel accepts it.
func parseStop(m map[string]any) (stopRequest, error) {
	var s stopRequest
	raw, ok := m["jobId"]
	if !ok || raw == nil {
		return s, badRequest("jobId cannot be empty.")
	}
	text := ""
	switch v := raw.(type) {
	case json.Number:
		text = v.String()
	case string:
		text = strings.TrimSpace(v)
	default:
		return s, badRequest("jobId %v is not a job id (a positive number)", raw)
	}
	id, err := strconv.ParseInt(text, 10, 64)
	if err != nil || id <= 0 {
		return s, badRequest("jobId %q is not a job id (a positive number)", text)
	}
	s.jobID = id
	switch v := m["isStopWithSavePoint"].(type) {
	case bool:
		s.savepoint = v
	case string:
		s.savepoint = strings.EqualFold(strings.TrimSpace(v), "true")
	}
	return s, nil
}

func decodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	return nil
}

// stop cancels a job, or asks it for a savepoint and a stop; it does not wait for the end.
// Cancelling a job that is not running does nothing, as in SeaTunnel; a savepoint of a job
// that is not running is refused.
func (g *gateway) stop(ctx context.Context, s stopRequest) error {
	var nf *serviceerror.NotFound
	if s.savepoint {
		if _, err := jobclient.Savepoint(ctx, g.c, s.jobID); err != nil {
			if errors.As(err, &nf) {
				return badRequest("The job with id '%d' not running, save point failed", s.jobID)
			}
			return err
		}
		g.log.Info("gateway: savepoint requested", "job", s.jobID)
		return nil
	}
	if err := jobclient.Cancel(ctx, g.c, s.jobID); err != nil {
		if errors.As(err, &nf) {
			g.log.Info("gateway: stop of a job that is not running", "job", s.jobID)
			return nil
		}
		return err
	}
	g.log.Info("gateway: cancel requested", "job", s.jobID)
	return nil
}

func (g *gateway) stopJob(w http.ResponseWriter, r *http.Request) error {
	body, err := g.readBody(w, r)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := decodeJSON(body, &m); err != nil {
		return badRequest("Invalid JSON format in request body.")
	}
	s, err := parseStop(m)
	if err != nil {
		return err
	}
	if err := g.stop(r.Context(), s); err != nil {
		return err
	}
	return ok(w, StopResponse{JobID: s.jobID})
}

// stopJobs checks every element before stopping any job.
func (g *gateway) stopJobs(w http.ResponseWriter, r *http.Request) error {
	body, err := g.readBody(w, r)
	if err != nil {
		return err
	}
	var list []map[string]any
	if err := decodeJSON(body, &list); err != nil {
		return badRequest("Invalid JSON format in request body: expected an array of {jobId, isStopWithSavePoint}")
	}
	reqs := make([]stopRequest, 0, len(list))
	for i, m := range list {
		s, err := parseStop(m)
		if err != nil {
			return badRequest("job[%d]: %v", i, err)
		}
		reqs = append(reqs, s)
	}
	out := make([]StopResponse, 0, len(reqs))
	for i, s := range reqs {
		if err := g.stop(r.Context(), s); err != nil {
			err = fmt.Errorf("job[%d]: %w", i, err)
			var he *httpError
			if errors.As(err, &he) {
				return &httpError{status: he.status, msg: err.Error()}
			}
			return err
		}
		out = append(out, StopResponse{JobID: s.jobID})
	}
	return ok(w, out)
}
