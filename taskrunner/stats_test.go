package taskrunner

import (
	"testing"
	"time"

	"github.com/strait-dev/strait/contract"
)

func TestLedgerForgetsEndedPipelines(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	task := contract.TaskID{Group: 1}
	ended := TaskMetrics{TaskInfo: TaskInfo{Job: 1, Pipeline: 1, Epoch: 1, Task: task, Counters: contract.Counters{RowsRead: 10}}}
	tests := []struct {
		name    string
		after   time.Duration
		running bool
		want    int64 // rows read of the task; -1: not exported
	}{
		{"just ended", time.Second, false, 10},
		{"within the retention", RetainEnded - time.Second, false, 10},
		{"past the retention", RetainEnded + time.Second, false, -1},
		{"past the retention but deployed again", RetainEnded + time.Second, true, 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLedger()
			l.retire([]TaskMetrics{ended}, t0)
			var live []TaskMetrics
			if tt.running {
				live = []TaskMetrics{{TaskInfo: TaskInfo{Job: 1, Pipeline: 1, Epoch: 2, Task: task, Counters: contract.Counters{RowsRead: 5}}}}
			}
			got := l.merge(live, t0.Add(tt.after))
			switch {
			case tt.want < 0 && len(got) != 0:
				t.Fatalf("exported %+v", got)
			case tt.want >= 0 && (len(got) != 1 || got[0].Counters.RowsRead != tt.want):
				t.Fatalf("exported %+v, want rows read %d", got, tt.want)
			case tt.want >= 0 && got[0].Ended == tt.running:
				t.Fatalf("ended %v, want %v", got[0].Ended, !tt.running)
			}
		})
	}
}
