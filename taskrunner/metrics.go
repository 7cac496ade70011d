package taskrunner

import (
	"sort"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/strait-dev/strait/contract"
)

// Collector exposes a runner's slots, tasks and per-task numbers to Prometheus. It reads the
// runner's state when scraped, so the data path pays nothing for metrics beyond the counts
// it keeps per batch. A task's counters outlive it: they keep their last value for
// RetainEnded after its pipeline ended here, and a redeployed task counts on from them.
type Collector struct {
	r *Runner

	slots, slotsUsed, tasks, inFlight, restarts *prometheus.Desc
	rowsIn, rowsOut, queued                     *prometheus.Desc
	srcRows, srcBytes, srcFailed                *prometheus.Desc
	sinkRows, sinkBytes                         *prometheus.Desc
	tblRowsRead, tblBytesRead                   *prometheus.Desc
	tblRowsWritten, tblBytesWritten             *prometheus.Desc
	busy, backPressured                         *prometheus.Desc
	ckptBytes, ckptDuration                     *prometheus.Desc
	lagRecords, lagBytes                        *prometheus.Desc
	ckptInterval, ckptFailed                    *prometheus.Desc
	pipeCkptDuration, pipeCkptBytes             *prometheus.Desc
}

// TaskLabels are the labels of every per-task series.
var TaskLabels = []string{"runner", "job", "pipeline", "task"}

// NewCollector makes the collector of a runner.
func NewCollector(r *Runner) *Collector {
	l := TaskLabels
	lt := append(append([]string(nil), l...), "table")
	lp := append(append([]string(nil), l...), "partition")
	pl := []string{"runner", "job", "pipeline"}
	d := prometheus.NewDesc
	return &Collector{
		r:         r,
		slots:     d("strait_runner_slots", "Slots the runner offers.", []string{"runner"}, nil),
		slotsUsed: d("strait_runner_slots_used", "Slots running a task now.", []string{"runner"}, nil),
		tasks:     d("strait_runner_tasks", "Tasks hosted, by state.", []string{"runner", "state"}, nil),
		inFlight:  d("strait_runner_batches_in_flight", "Batches queued between the runner's tasks.", []string{"runner"}, nil),
		restarts: d("strait_pipeline_restarts", "Times the pipeline was restarted after a failure, as of its newest deployment here.",
			pl, nil),
		rowsIn:          d("strait_task_rows_in_total", "Rows a task read from its source or took from upstream tasks.", l, nil),
		rowsOut:         d("strait_task_rows_out_total", "Rows a task's sink wrote.", l, nil),
		queued:          d("strait_exchange_queue_depth", "Batches waiting in a task's input queue.", l, nil),
		srcRows:         d("strait_source_rows_read_total", "Rows a source task read.", l, nil),
		srcBytes:        d("strait_source_bytes_read_total", "Bytes of the rows a source task read.", l, nil),
		srcFailed:       d("strait_source_rows_failed_total", "Records a source task could not read and skipped.", l, nil),
		sinkRows:        d("strait_sink_rows_written_total", "Rows a sink task wrote.", l, nil),
		sinkBytes:       d("strait_sink_bytes_written_total", "Bytes of the rows a sink task wrote.", l, nil),
		tblRowsRead:     d("strait_table_rows_read_total", "Rows of a table a source task read.", lt, nil),
		tblBytesRead:    d("strait_table_bytes_read_total", "Bytes of the rows of a table a source task read.", lt, nil),
		tblRowsWritten:  d("strait_table_rows_written_total", "Rows of a table a sink task wrote.", lt, nil),
		tblBytesWritten: d("strait_table_bytes_written_total", "Bytes of the rows of a table a sink task wrote.", lt, nil),
		busy:            d("strait_task_busy_seconds_total", "Time a task spent reading and processing batches.", l, nil),
		backPressured: d("strait_task_backpressured_seconds_total",
			"Time a task spent waiting to hand batches to a full downstream (its consumer's queue or the exchange).", l, nil),
		ckptBytes: d("strait_task_checkpoint_size_bytes", "Size of the state a task wrote for its last checkpoint.", l, nil),
		ckptDuration: d("strait_task_checkpoint_duration_seconds",
			"Time from a task taking its last checkpoint's barrier to its state being written.", l, nil),
		lagRecords: d("strait_source_lag_records", "Records between what a source task read and the end of a partition it reads.", lp, nil),
		lagBytes:   d("strait_source_lag_bytes", "Bytes of the change log a source task has yet to read.", l, nil),
		ckptInterval: d("strait_checkpoint_interval_seconds", "The pipeline's checkpoint interval (checkpoint.interval).",
			pl, nil),
		ckptFailed: d("strait_checkpoints_failed_total", "Checkpoints of the pipeline triggered here that did not complete.",
			pl, nil),
		pipeCkptDuration: d("strait_checkpoint_duration_seconds",
			"Time from the pipeline's last checkpoint reaching this runner to every task here acknowledging it.", pl, nil),
		pipeCkptBytes: d("strait_checkpoint_size_bytes", "State the pipeline's tasks here wrote for their last checkpoint.", pl, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.slots, c.slotsUsed, c.tasks, c.inFlight, c.restarts, c.rowsIn, c.rowsOut, c.queued,
		c.srcRows, c.srcBytes, c.srcFailed, c.sinkRows, c.sinkBytes, c.tblRowsRead, c.tblBytesRead, c.tblRowsWritten, c.tblBytesWritten,
		c.busy, c.backPressured, c.ckptBytes, c.ckptDuration, c.lagRecords, c.lagBytes,
		c.ckptInterval, c.ckptFailed, c.pipeCkptDuration, c.pipeCkptBytes} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	id := c.r.ID()
	byState := map[contract.TaskState]int{}
	used, inFlight := 0, 0
	epochs := map[pipelineKey]int{}
	sizes := map[pipelineKey]int64{}
	for _, t := range c.r.TaskMetrics() {
		if !t.Ended {
			byState[t.State]++
			if !t.State.Terminal() {
				used++
			}
			inFlight += t.Queued
		}
		pk := pipelineKey{t.Job, t.Pipeline}
		epochs[pk] = max(epochs[pk], t.Epoch)
		sizes[pk] += t.CheckpointBytes
		c.collectTask(ch, id, t)
	}
	ch <- prometheus.MustNewConstMetric(c.slots, prometheus.GaugeValue, float64(c.r.Slots()), id)
	ch <- prometheus.MustNewConstMetric(c.slotsUsed, prometheus.GaugeValue, float64(used), id)
	ch <- prometheus.MustNewConstMetric(c.inFlight, prometheus.GaugeValue, float64(inFlight), id)
	for _, s := range []contract.TaskState{contract.TaskCreated, contract.TaskInit, contract.TaskReadyStart, contract.TaskStarting,
		contract.TaskRunning, contract.TaskPrepareClose, contract.TaskClosed, contract.TaskCanceling, contract.TaskCanceled, contract.TaskFailed} {
		ch <- prometheus.MustNewConstMetric(c.tasks, prometheus.GaugeValue, float64(byState[s]), id, string(s))
	}
	for pk, epoch := range epochs {
		// a pipeline's first deployment is epoch 1; each failover deploys the next
		ch <- prometheus.MustNewConstMetric(c.restarts, prometheus.GaugeValue, float64(max(epoch-1, 0)), id,
			strconv.FormatInt(pk.job, 10), strconv.Itoa(pk.pipeline))
	}
	for _, p := range c.r.PipelineMetrics() {
		l := []string{id, strconv.FormatInt(p.Job, 10), strconv.Itoa(p.Pipeline)}
		ch <- prometheus.MustNewConstMetric(c.ckptFailed, prometheus.CounterValue, float64(p.Failed), l...)
		if p.Interval > 0 {
			ch <- prometheus.MustNewConstMetric(c.ckptInterval, prometheus.GaugeValue, p.Interval.Seconds(), l...)
		}
		if p.LastDuration > 0 {
			ch <- prometheus.MustNewConstMetric(c.pipeCkptDuration, prometheus.GaugeValue, p.LastDuration.Seconds(), l...)
			ch <- prometheus.MustNewConstMetric(c.pipeCkptBytes, prometheus.GaugeValue, float64(sizes[pipelineKey{p.Job, p.Pipeline}]), l...)
		}
	}
}

func (c *Collector) collectTask(ch chan<- prometheus.Metric, runner string, t TaskMetrics) {
	l := []string{runner, strconv.FormatInt(t.Job, 10), strconv.Itoa(t.Pipeline), t.Task.String()}
	counter := func(d *prometheus.Desc, v float64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, append(l[:4:4], extra...)...)
	}
	gauge := func(d *prometheus.Desc, v float64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append(l[:4:4], extra...)...)
	}
	n := t.Counters
	counter(c.rowsIn, float64(n.RowsRead+n.RowsReceived))
	counter(c.rowsOut, float64(n.RowsWritten))
	gauge(c.queued, float64(t.Queued))
	counter(c.busy, t.Busy.Seconds())
	counter(c.backPressured, t.BackPressured.Seconds())
	if t.Source {
		counter(c.srcRows, float64(n.RowsRead))
		counter(c.srcBytes, float64(n.BytesRead))
		counter(c.srcFailed, float64(n.RowsFailed))
	}
	if t.Sink {
		counter(c.sinkRows, float64(n.RowsWritten))
		counter(c.sinkBytes, float64(n.BytesWritten))
	}
	for _, table := range sortedTables(n.Tables) {
		tc := n.Tables[table]
		if t.Source {
			counter(c.tblRowsRead, float64(tc.RowsRead), table)
			counter(c.tblBytesRead, float64(tc.BytesRead), table)
		}
		if t.Sink {
			counter(c.tblRowsWritten, float64(tc.RowsWritten), table)
			counter(c.tblBytesWritten, float64(tc.BytesWritten), table)
		}
	}
	if t.CheckpointDuration > 0 {
		gauge(c.ckptBytes, float64(t.CheckpointBytes))
		gauge(c.ckptDuration, t.CheckpointDuration.Seconds())
	}
	for _, p := range sortedTables(t.RecordsBehind) {
		gauge(c.lagRecords, float64(t.RecordsBehind[p]), p)
	}
	if t.BytesBehind >= 0 {
		gauge(c.lagBytes, float64(t.BytesBehind))
	}
}

func sortedTables[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
