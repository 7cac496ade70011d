package taskrunner

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/strait-dev/strait/contract"
)

// Collector exposes a runner's slots, tasks and per-task counters to Prometheus. It reads
// the runner's state when scraped, so the data path pays nothing for metrics.
type Collector struct {
	r *Runner

	slots, slotsUsed, tasks, rowsIn, rowsOut, queued, inFlight *prometheus.Desc
}

// NewCollector makes the collector of a runner.
func NewCollector(r *Runner) *Collector {
	l := []string{"runner", "job", "pipeline", "task"}
	return &Collector{
		r:         r,
		slots:     prometheus.NewDesc("strait_runner_slots", "Slots the runner offers.", []string{"runner"}, nil),
		slotsUsed: prometheus.NewDesc("strait_runner_slots_used", "Slots running a task now.", []string{"runner"}, nil),
		tasks:     prometheus.NewDesc("strait_runner_tasks", "Tasks hosted, by state.", []string{"runner", "state"}, nil),
		rowsIn:    prometheus.NewDesc("strait_task_rows_in_total", "Rows a task read from its source or input.", l, nil),
		rowsOut:   prometheus.NewDesc("strait_task_rows_out_total", "Rows a task's sink wrote.", l, nil),
		queued:    prometheus.NewDesc("strait_exchange_queue_depth", "Batches waiting in a task's input queue.", l, nil),
		inFlight:  prometheus.NewDesc("strait_runner_batches_in_flight", "Batches queued between the runner's tasks.", []string{"runner"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.slots, c.slotsUsed, c.tasks, c.rowsIn, c.rowsOut, c.queued, c.inFlight} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	id := c.r.ID()
	tasks := c.r.Tasks()
	byState := map[contract.TaskState]int{}
	used, inFlight := 0, 0
	for _, t := range tasks {
		byState[t.State]++
		if !t.State.Terminal() {
			used++
		}
		inFlight += t.Queued
		labels := []string{id, fmt.Sprint(t.Job), fmt.Sprint(t.Pipeline), t.Task.String()}
		ch <- prometheus.MustNewConstMetric(c.rowsIn, prometheus.CounterValue, float64(t.Counters.RowsRead+t.Counters.RowsReceived), labels...)
		ch <- prometheus.MustNewConstMetric(c.rowsOut, prometheus.CounterValue, float64(t.Counters.RowsWritten), labels...)
		ch <- prometheus.MustNewConstMetric(c.queued, prometheus.GaugeValue, float64(t.Queued), labels...)
	}
	ch <- prometheus.MustNewConstMetric(c.slots, prometheus.GaugeValue, float64(c.r.Slots()), id)
	ch <- prometheus.MustNewConstMetric(c.slotsUsed, prometheus.GaugeValue, float64(used), id)
	ch <- prometheus.MustNewConstMetric(c.inFlight, prometheus.GaugeValue, float64(inFlight), id)
	for _, s := range []contract.TaskState{contract.TaskCreated, contract.TaskInit, contract.TaskReadyStart, contract.TaskStarting,
		contract.TaskRunning, contract.TaskPrepareClose, contract.TaskClosed, contract.TaskCanceling, contract.TaskCanceled, contract.TaskFailed} {
		ch <- prometheus.MustNewConstMetric(c.tasks, prometheus.GaugeValue, float64(byState[s]), id, string(s))
	}
}
