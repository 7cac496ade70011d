package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"go.temporal.io/api/serviceerror"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/jobclient"
	"github.com/strait-dev/strait/planner"
)

// submitParams are submit-job's query parameters, or a submit-jobs element's params.
type submitParams struct {
	jobID   int64 // 0: a new one
	name    string
	restore bool
}

// SubmitResponse answers submit-job (and is one element of submit-jobs' answer).
type SubmitResponse struct {
	JobID   string `json:"jobId"`
	JobName string `json:"jobName"`
}

// parseSubmitParams reads jobId, jobName and isStartWithSavePoint; get returns "" for a
// missing parameter.
func parseSubmitParams(get func(string) string) (submitParams, error) {
	var p submitParams
	if s := strings.TrimSpace(get("jobId")); s != "" {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			return p, badRequest("jobId %q is not a job id (a positive number)", s)
		}
		p.jobID = id
	}
	p.name = get("jobName")
	// as SeaTunnel reads it: "true" in any case is true, anything else false
	p.restore = strings.EqualFold(strings.TrimSpace(get("isStartWithSavePoint")), "true")
	if p.restore && p.jobID == 0 {
		return p, badRequest("Please provide jobId when start with save point.")
	}
	return p, nil
}

// readBody reads a request body, refusing an empty one (400) or one past the gateway's
// limit (413, naming it).
func (g *gateway) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > g.maxBody {
		return nil, tooLargeBody(g.maxBody)
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLargeBody(mbe.Limit)
		}
		return nil, fmt.Errorf("read request body: %w", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, badRequest("Request body is empty.")
	}
	return b, nil
}

// readJSONBody is readBody for a body that must be JSON: one that is not is refused (400),
// naming the line and column.
func (g *gateway) readJSONBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := g.readBody(w, r)
	if err != nil {
		return nil, err
	}
	if err := checkJSON(body, "request.json"); err != nil {
		return nil, err
	}
	return body, nil
}

// tooLargeBody is the 413 of a body past the limit.
func tooLargeBody(limit int64) error {
	return &httpError{status: http.StatusRequestEntityTooLarge,
		msg: fmt.Sprintf("Request body is larger than the gateway's limit of %d bytes (%s; strait gateway --max-body). "+
			"A job config is its job workflow's input, and Temporal takes at most 2 MiB per payload by default (limit.blobSize.error).", limit, unit(uint64(limit)))}
}

// checkJSON refuses a body that is not JSON, naming the line and column.
func checkJSON(b []byte, file string) error {
	var v any
	err := json.Unmarshal(b, &v)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(b, se.Offset-1) // Offset counts the bad byte
		return badRequest("Invalid JSON format in request body: %s:%d:%d: %v", file, line, col, err)
	}
	return badRequest("Invalid JSON format in request body: %v", err)
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(b []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(b)))
	line, col := 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// check plans a config as `strait job submit` does, within the request and planner.Timeout
// (a plugin that reads a database's schema does so under that deadline); a bad config is a
// 400 naming the place.
func check(ctx context.Context, src contract.ConfigSource) (*contract.Plan, error) {
	ctx, cancel := context.WithTimeout(ctx, planner.Timeout)
	defer cancel()
	plan, err := planner.PlanContext(ctx, src, connector.Job{})
	if err != nil {
		if planner.IsConfigError(err) {
			return nil, badRequest("config error: %v", err)
		}
		return nil, fmt.Errorf("plan the job: %w", err)
	}
	return plan, nil
}

// start submits (or restores) a checked job and returns its id; it does not wait for it.
func (g *gateway) start(ctx context.Context, src contract.ConfigSource, plan *contract.Plan, p submitParams) (int64, error) {
	id, _, err := jobclient.Start(ctx, g.c, jobclient.StartRequest{JobID: p.jobID, Source: src, Name: plan.Job.Name, Restore: p.restore})
	if err != nil {
		var started *serviceerror.WorkflowExecutionAlreadyStarted
		if errors.As(err, &started) {
			return 0, badRequest("job %d is already running; stop it first or submit under another jobId", id)
		}
		var large *jobclient.ConfigTooLargeError
		if errors.As(err, &large) {
			return 0, &httpError{status: http.StatusRequestEntityTooLarge, msg: err.Error()}
		}
		return 0, err
	}
	for _, w := range plan.Warnings {
		g.log.Warn("gateway: job config warning", "job", id, "warning", w)
	}
	g.log.Info("gateway: job submitted", "job", id, "name", plan.Job.Name, "restore", p.restore)
	return id, nil
}

func (g *gateway) submitJob(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	p, err := parseSubmitParams(q.Get)
	if err != nil {
		return err
	}
	file := "request.json"
	switch f := strings.ToLower(strings.TrimSpace(q.Get("format"))); f {
	case "", "json":
	case "hocon", "conf":
		file = "request.conf"
	default:
		return badRequest("format %q: expected json or hocon", q.Get("format"))
	}
	body, err := g.readBody(w, r)
	if err != nil {
		return err
	}
	if file == "request.json" {
		if err := checkJSON(body, file); err != nil {
			return err
		}
	}
	src := contract.ConfigSource{File: file, Text: string(body), Name: p.name}
	plan, err := check(r.Context(), src)
	if err != nil {
		return err
	}
	id, err := g.start(r.Context(), src, plan, p)
	if err != nil {
		return err
	}
	return ok(w, SubmitResponse{JobID: strconv.FormatInt(id, 10), JobName: plan.Job.Name})
}

// submitJobs takes an array of JSON job configs, each with optional "params": every config
// is checked before any job is submitted.
func (g *gateway) submitJobs(w http.ResponseWriter, r *http.Request) error {
	body, err := g.readJSONBody(w, r)
	if err != nil {
		return err
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(body, &elems); err != nil {
		return badRequest("Invalid JSON format in request body: expected an array of job configs")
	}
	type job struct {
		src  contract.ConfigSource
		plan *contract.Plan
		p    submitParams
	}
	jobs := make([]job, 0, len(elems))
	for i, e := range elems {
		cfg, params, err := splitParams(e)
		if err != nil {
			return badRequest("job[%d]: %v", i, err)
		}
		p, err := parseSubmitParams(func(k string) string { return params[k] })
		if err != nil {
			return badRequest("job[%d]: %v", i, err)
		}
		src := contract.ConfigSource{File: fmt.Sprintf("request.json[%d]", i), Text: string(cfg), Name: p.name}
		plan, err := check(r.Context(), src)
		if err != nil {
			return badRequest("job[%d]: %v", i, err)
		}
		jobs = append(jobs, job{src: src, plan: plan, p: p})
	}
	out := make([]SubmitResponse, 0, len(jobs))
	for i, j := range jobs {
		id, err := g.start(r.Context(), j.src, j.plan, j.p)
		if err != nil {
			var done []string
			for _, s := range out {
				done = append(done, s.JobID)
			}
			if len(done) > 0 {
				err = fmt.Errorf("job[%d]: %w (jobs submitted before it: %s)", i, err, strings.Join(done, ", "))
			} else {
				err = fmt.Errorf("job[%d]: %w", i, err)
			}
			var he *httpError
			if errors.As(err, &he) {
				return &httpError{status: he.status, msg: err.Error()}
			}
			return err
		}
		out = append(out, SubmitResponse{JobID: strconv.FormatInt(id, 10), JobName: j.plan.Job.Name})
	}
	return ok(w, out)
}

// splitParams takes "params" out of a JSON job config, keeping the rest byte for byte (the
// order of schema fields matters).
func splitParams(raw json.RawMessage) (json.RawMessage, map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("a job config is a JSON object")
	}
	var out bytes.Buffer
	out.WriteByte('{')
	params := map[string]string{}
	first := true
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("read job config: %w", err)
		}
		key, _ := kt.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, nil, fmt.Errorf("read job config: %w", err)
		}
		if key == "params" {
			var m map[string]any
			pd := json.NewDecoder(bytes.NewReader(val))
			pd.UseNumber() // a jobId keeps all its digits
			if err := pd.Decode(&m); err != nil {
				return nil, nil, errors.New("params must be an object of jobId, jobName and isStartWithSavePoint")
			}
			for k, v := range m {
				switch v := v.(type) {
				case string:
					params[k] = v
				case nil:
				default:
					params[k] = strings.Trim(string(mustJSON(v)), `"`)
				}
			}
			continue
		}
		if !first {
			out.WriteByte(',')
		}
		first = false
		out.Write(mustJSON(key))
		out.WriteByte(':')
		out.Write(val)
	}
	out.WriteByte('}')
	return out.Bytes(), params, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`""`)
	}
	return b
}
