package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/strait-dev/strait/contract"
)

// JobsName is the gauge of jobs by state; RunnersName the gauge of runners by state, as the
// resource manager sees them.
const (
	JobsName    = "strait_jobs"
	RunnersName = "strait_runners"
)

// JobsCacheFor is how long the counts of jobs by state are reused between scrapes.
const JobsCacheFor = 15 * time.Second

// Jobs is a collector of the namespace's jobs by state, counted in Temporal's visibility
// when scraped (at most once per JobsCacheFor). A running job counts in the state it
// recorded; a closed one in its recorded end, or the one its close means when it recorded
// none (a terminated workflow counts CANCELED), as job listings show it.
type Jobs struct {
	c         sdkclient.Client
	namespace string
	log       *slog.Logger
	now       func() time.Time

	mu      sync.Mutex
	counts  map[contract.JobState]int64
	runners map[contract.RunnerState]int64
	at      time.Time

	desc, runnersDesc *prometheus.Desc
}

// NewJobs makes the collector of a namespace's jobs.
func NewJobs(c sdkclient.Client, namespace string, log *slog.Logger) *Jobs {
	if log == nil {
		log = slog.Default()
	}
	return &Jobs{c: c, namespace: namespace, log: log, now: time.Now,
		desc: prometheus.NewDesc(JobsName, "Jobs by state, as Temporal's visibility lists them.", []string{"state"}, nil),
		runnersDesc: prometheus.NewDesc(RunnersName, "Runners by state (ALIVE, LOST), as the resource manager sees them.",
			[]string{"state"}, nil)}
}

// runningStates are the states a job records while its workflow runs.
var runningStates = []contract.JobState{contract.JobCreated, contract.JobInitializing, contract.JobPending, contract.JobScheduled,
	contract.JobRunning, contract.JobFailing, contract.JobDoingSavepoint, contract.JobCanceling}

// endStates are the states a job records when it ends.
var endStates = []contract.JobState{contract.JobFinished, contract.JobFailed, contract.JobCanceled, contract.JobSavepointDone}

// jobQueries are the visibility queries whose counts add up to each state.
func jobQueries() map[contract.JobState][]string {
	base := fmt.Sprintf("WorkflowType = '%s'", contract.JobWorkflowName)
	q := map[contract.JobState][]string{}
	for _, s := range runningStates {
		q[s] = append(q[s], fmt.Sprintf("%s AND ExecutionStatus = 'Running' AND %s = '%s'", base, contract.SAJobState, s))
	}
	for _, s := range endStates {
		q[s] = append(q[s], fmt.Sprintf("%s AND ExecutionStatus != 'Running' AND %s = '%s'", base, contract.SAJobState, s))
	}
	// closed without recording an end
	unended := fmt.Sprintf("%s AND %s NOT IN ('%s', '%s', '%s', '%s')", base, contract.SAJobState,
		endStates[0], endStates[1], endStates[2], endStates[3])
	q[contract.JobFailed] = append(q[contract.JobFailed], unended+" AND ExecutionStatus IN ('Failed', 'TimedOut')")
	q[contract.JobCanceled] = append(q[contract.JobCanceled], unended+" AND ExecutionStatus IN ('Terminated', 'Canceled')")
	q[contract.JobFinished] = append(q[contract.JobFinished], unended+" AND ExecutionStatus = 'Completed'")
	return q
}

// Describe implements prometheus.Collector.
func (j *Jobs) Describe(ch chan<- *prometheus.Desc) {
	ch <- j.desc
	ch <- j.runnersDesc
}

// Collect implements prometheus.Collector. When visibility cannot be read, the last counts
// are exported again (none before the first success).
func (j *Jobs) Collect(ch chan<- prometheus.Metric) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.counts == nil || j.now().Sub(j.at) >= JobsCacheFor {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		counts, err := j.count(ctx)
		var runners map[contract.RunnerState]int64
		if err == nil {
			runners, err = j.countRunners(ctx)
		}
		cancel()
		if err != nil {
			j.log.Warn("jobs and runners by state not counted", "metric", JobsName, "error", err)
		} else {
			j.counts, j.runners, j.at = counts, runners, j.now()
		}
	}
	if j.counts == nil {
		return
	}
	for _, s := range []contract.RunnerState{contract.RunnerStateAlive, contract.RunnerStateLost} {
		ch <- prometheus.MustNewConstMetric(j.runnersDesc, prometheus.GaugeValue, float64(j.runners[s]), string(s))
	}
	for _, s := range append(append([]contract.JobState(nil), runningStates...), endStates...) {
		ch <- prometheus.MustNewConstMetric(j.desc, prometheus.GaugeValue, float64(j.counts[s]), string(s))
	}
}

func (j *Jobs) count(ctx context.Context) (map[contract.JobState]int64, error) {
	out := map[contract.JobState]int64{}
	for s, qs := range jobQueries() {
		for _, q := range qs {
			resp, err := j.c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: j.namespace, Query: q})
			if err != nil {
				return nil, fmt.Errorf("count %s jobs: %w", s, err)
			}
			out[s] += resp.GetCount()
		}
	}
	return out, nil
}

// countRunners asks the resource manager for its runners; without one (no runner ever
// registered) there are none.
func (j *Jobs) countRunners(ctx context.Context) (map[contract.RunnerState]int64, error) {
	out := map[contract.RunnerState]int64{}
	v, err := j.c.QueryWorkflow(ctx, contract.ResourceManagerID, "", contract.ClusterQuery)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("query the resource manager's runners: %w", err)
	}
	var st contract.ClusterStatus
	if err := v.Get(&st); err != nil {
		return nil, fmt.Errorf("read the resource manager's runners: %w", err)
	}
	for _, r := range st.Runners {
		out[r.State]++
	}
	return out, nil
}
