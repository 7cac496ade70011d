package gateway

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The live numbers of the dashboard are the runners' own Prometheus series: the gateway reads
// /metrics of every runner that hosts a job's tasks (the address each registered with),
// keeps the job's per-task series, and takes rates from successive reads. Nothing on the data
// path pays for it; a runner's numbers are as fresh as the read.

// scrapeTTL is how long one read of a runner's /metrics serves every request; scrapeTimeout
// bounds one read.
const (
	scrapeTTL     = time.Second
	scrapeTimeout = 2 * time.Second
)

// rateWindow: rates are taken against the oldest kept sample at least rateMin older than the
// newest, over at most rateWindow.
const (
	rateMin    = time.Second
	rateWindow = 10 * time.Second
)

// taskSample is one task's series on one runner.
type taskSample struct {
	runner                        string
	pipeline                      int
	task                          string // g<group>-<subtask>
	rowsIn, rowsWritten, rowsRead float64
	bytesRead, bytesWritten       float64
	busy, backPressured, queued   float64
	source, sink                  bool
}

// taskSeries are the per-task series the dashboard reads, by name.
var taskSeries = map[string]func(*taskSample, float64){
	"strait_task_rows_in_total":               func(s *taskSample, v float64) { s.rowsIn = v },
	"strait_task_rows_out_total":              func(s *taskSample, v float64) { s.rowsWritten = v },
	"strait_source_rows_read_total":           func(s *taskSample, v float64) { s.rowsRead, s.source = v, true },
	"strait_source_bytes_read_total":          func(s *taskSample, v float64) { s.bytesRead, s.source = v, true },
	"strait_sink_bytes_written_total":         func(s *taskSample, v float64) { s.bytesWritten, s.sink = v, true },
	"strait_sink_rows_written_total":          func(s *taskSample, v float64) { s.sink = true },
	"strait_task_busy_seconds_total":          func(s *taskSample, v float64) { s.busy = v },
	"strait_task_backpressured_seconds_total": func(s *taskSample, v float64) { s.backPressured = v },
	"strait_exchange_queue_depth":             func(s *taskSample, v float64) { s.queued = v },
}

// runnerRead is one read of a runner process's /metrics: its tasks by job.
type runnerRead struct {
	at    time.Time
	tasks map[int64][]taskSample
	err   error
}

// scraper reads runners' /metrics, at most once per scrapeTTL each.
type scraper struct {
	http *http.Client

	mu    sync.Mutex
	reads map[string]*runnerRead // by address
	busy  map[string]chan struct{}
}

func newScraper() *scraper {
	return &scraper{http: &http.Client{Timeout: scrapeTimeout}, reads: map[string]*runnerRead{}, busy: map[string]chan struct{}{}}
}

// job reads the runners at addrs (at once, each within scrapeTimeout) and returns the job's
// task samples, with the reads that failed.
func (s *scraper) job(ctx context.Context, addrs []string, job int64) ([]taskSample, []error) {
	out := make([]*runnerRead, len(addrs))
	var wg sync.WaitGroup
	for i, a := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = s.read(ctx, a)
		}()
	}
	wg.Wait()
	var samples []taskSample
	var errs []error
	for _, r := range out {
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		samples = append(samples, r.tasks[job]...)
	}
	return samples, errs
}

// read returns a fresh read of the runner at addr, reading it again when the last is older
// than scrapeTTL; concurrent callers share one read.
func (s *scraper) read(ctx context.Context, addr string) *runnerRead {
	for {
		s.mu.Lock()
		if r := s.reads[addr]; r != nil && time.Since(r.at) < scrapeTTL {
			s.mu.Unlock()
			return r
		}
		if wait, ok := s.busy[addr]; ok {
			s.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return &runnerRead{err: fmt.Errorf("runner metrics %s: %w", addr, ctx.Err())}
			}
		}
		done := make(chan struct{})
		s.busy[addr] = done
		if len(s.reads) > cacheLimit {
			clear(s.reads)
		}
		s.mu.Unlock()
		r := s.fetch(ctx, addr)
		s.mu.Lock()
		s.reads[addr] = r
		delete(s.busy, addr)
		close(done)
		s.mu.Unlock()
		return r
	}
}

func (s *scraper) fetch(ctx context.Context, addr string) *runnerRead {
	r := &runnerRead{at: time.Now(), tasks: map[int64][]taskSample{}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		r.err = fmt.Errorf("runner metrics %s: %w", addr, err)
		return r
	}
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	resp, err := s.http.Do(req)
	if err != nil {
		r.err = fmt.Errorf("runner metrics %s: %w", addr, err)
		return r
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		r.err = fmt.Errorf("runner metrics %s: %s", addr, resp.Status)
		return r
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		r.err = fmt.Errorf("runner metrics %s: %w", addr, err)
		return r
	}
	r.tasks = tasksOf(fams)
	return r
}

// tasksOf gathers the per-task series of a /metrics read by job, in task order.
func tasksOf(fams map[string]*dto.MetricFamily) map[int64][]taskSample {
	type key struct {
		job      int64
		runner   string
		pipeline int
		task     string
	}
	byTask := map[key]*taskSample{}
	for name, set := range taskSeries {
		f := fams[name]
		if f == nil {
			continue
		}
		for _, m := range f.GetMetric() {
			var k key
			var err error
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "job":
					k.job, err = strconv.ParseInt(l.GetValue(), 10, 64)
				case "pipeline":
					k.pipeline, err = strconv.Atoi(l.GetValue())
				case "runner":
					k.runner = l.GetValue()
				case "task":
					k.task = l.GetValue()
				}
				if err != nil {
					break
				}
			}
			if err != nil || k.task == "" {
				continue
			}
			s := byTask[k]
			if s == nil {
				s = &taskSample{runner: k.runner, pipeline: k.pipeline, task: k.task}
				byTask[k] = s
			}
			v := m.GetCounter().GetValue()
			if m.GetGauge() != nil {
				v = m.GetGauge().GetValue()
			} else if m.GetUntyped() != nil {
				v = m.GetUntyped().GetValue()
			}
			set(s, v)
		}
	}
	out := map[int64][]taskSample{}
	for k, s := range byTask {
		out[k.job] = append(out[k.job], *s)
	}
	for _, ss := range out {
		sort.Slice(ss, func(i, j int) bool {
			if ss[i].pipeline != ss[j].pipeline {
				return ss[i].pipeline < ss[j].pipeline
			}
			if ss[i].task != ss[j].task {
				return ss[i].task < ss[j].task
			}
			return ss[i].runner < ss[j].runner
		})
	}
	return out
}

// totals are a task group's cumulative numbers at one time.
type totals struct {
	rowsIn, rowsWritten, rowsRead, bytesRead, bytesWritten, busy, backPressured float64
}

func (t *totals) add(s taskSample) {
	t.rowsIn += s.rowsIn
	t.rowsWritten += s.rowsWritten
	t.rowsRead += s.rowsRead
	t.bytesRead += s.bytesRead
	t.bytesWritten += s.bytesWritten
	t.busy += s.busy
	t.backPressured += s.backPressured
}

// groupKey names a task group of a job.
type groupKey struct {
	pipeline, group int
}

// jobSample is a job's task groups' totals at one time.
type jobSample struct {
	at     time.Time
	groups map[groupKey]totals
}

// rates keeps each job's recent samples, to take rates from.
type rates struct {
	mu   sync.Mutex
	jobs map[int64][]jobSample
}

func newRates() *rates { return &rates{jobs: map[int64][]jobSample{}} }

// observe adds a sample of a job and returns the one to take rates against (nil while none
// is old enough).
func (r *rates) observe(job int64, s jobSample) *jobSample {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.jobs) > cacheLimit {
		clear(r.jobs)
	}
	kept := r.jobs[job][:0:0]
	for _, old := range r.jobs[job] {
		if s.at.Sub(old.at) <= rateWindow && old.at.Before(s.at) {
			kept = append(kept, old)
		}
	}
	var base *jobSample
	for i := range kept {
		if s.at.Sub(kept[i].at) >= rateMin {
			base = &kept[i]
			break
		}
	}
	if n := len(kept); n == 0 || s.at.Sub(kept[n-1].at) >= rateMin/4 {
		kept = append(kept, s)
	}
	r.jobs[job] = kept
	if base == nil {
		return nil
	}
	b := *base
	return &b
}
