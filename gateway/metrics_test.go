package gateway

import (
	"testing"
	"time"

	"github.com/strait-dev/strait/contract"
)

// job-info's SourceFailedCount is the records the job's sources skipped: the job's sum, or
// its pipelines' when the status carries none.
func TestSourceFailedCount(t *testing.T) {
	cases := []struct {
		name string
		st   contract.JobStatus
		want string
	}{
		{"the job's sum", contract.JobStatus{Counters: contract.Counters{RowsRead: 10, RowsWritten: 7, RowsFailed: 3}}, "3"},
		{"the pipelines' sum", contract.JobStatus{Pipelines: []contract.PipelineStatus{
			{ID: 1, Counters: contract.Counters{RowsRead: 4, RowsFailed: 1}},
			{ID: 2, Counters: contract.Counters{RowsRead: 6, RowsFailed: 2}},
		}}, "3"},
		{"none skipped", contract.JobStatus{Counters: contract.Counters{RowsRead: 10, RowsWritten: 10}}, "0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := metricsOf(&c.st, nil, time.Second).SourceFailedCount; got != c.want {
				t.Fatalf("SourceFailedCount %q, want %q", got, c.want)
			}
		})
	}
}
