package taskrunner_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// staggered is a bounded source of two readers: reader 0 ends at once, before any
// checkpoint; reader 1 emits "before", waits until it has taken part in a checkpoint, then
// emits "after" and ends. A checkpoint triggered between the two ends can never complete on
// the runner: reader 0's task is gone and never acknowledges it.
type staggered struct{}

// staggeredSnapshots counts the checkpoints reader 1 took part in.
var staggeredSnapshots atomic.Int64

func (staggered) Boundedness() connector.Boundedness { return connector.Bounded }
func (staggered) Tables() []*catalog.Table {
	return []*catalog.Table{catalog.FromRowType(catalog.TablePath{Table: "s"},
		&types.RowType{Names: []string{"word"}, Types: []types.DataType{types.Of(types.String)}})}
}
func (staggered) CreateEnumerator(connector.EnumeratorContext, []byte) (connector.Enumerator, error) {
	return listeningEnum{}, nil
}
func (staggered) CreateReader(ctx connector.ReaderContext) (connector.Reader, error) {
	return &staggeredReader{index: ctx.Index}, nil
}

type staggeredReader struct {
	index   int
	emitted int
}

func (*staggeredReader) Open(context.Context) error  { return nil }
func (*staggeredReader) AddSplits([]connector.Split) {}
func (*staggeredReader) NoMoreSplits()               {}
func (r *staggeredReader) PollNext(ctx context.Context, out *row.Batch) (bool, error) {
	if r.index == 0 {
		return true, nil
	}
	switch {
	case r.emitted == 0:
		out.Add(row.Insert, "s", 1).Fields[0] = row.StringValue("before")
		r.emitted++
	case r.emitted == 1 && staggeredSnapshots.Load() > 0:
		out.Add(row.Insert, "s", 1).Fields[0] = row.StringValue("after")
		r.emitted++
	case r.emitted == 2:
		return true, nil
	default:
		time.Sleep(time.Millisecond)
	}
	return false, nil
}
func (r *staggeredReader) SnapshotState(int64) ([]connector.Split, error) {
	if r.index == 1 {
		staggeredSnapshots.Add(1)
	}
	return nil, nil
}
func (*staggeredReader) Close() error { return nil }

func init() {
	connector.RegisterSource("StaggeredSource", "Two readers: one ends at once, one after a checkpoint.", func(*connector.SourceContext, *noOptions) (connector.Source, error) {
		return staggered{}, nil
	})
}

// TestPreparedCommitOfAnUnacknowledgedCheckpointReachesTheFinalCommit: a sink's writer
// prepares its transaction at a checkpoint that never completes (another task on the runner
// ended before the barrier, so the runner never acknowledges it), then goes on to a final
// transaction. The task's closing status hands both to the final commit; the real LocalFile
// committer then publishes every row. Before, the prepared transaction was dropped and its
// rows never appeared, though the job finished with every row counted as written.
func TestPreparedCommitOfAnUnacknowledgedCheckpointReachesTheFinalCommit(t *testing.T) {
	staggeredSnapshots.Store(0)
	out, staging := t.TempDir(), t.TempDir()
	d := firstPipeline(t, `
env { job.mode = BATCH, parallelism = 2 }
source { StaggeredSource {} }
sink { LocalFile { path = "`+out+`", tmp_path = "`+staging+`", file_format_type = text } }`, connector.Job{ID: 1})
	store := tempStore(t)
	g := fusedPair(t, d.Pipeline)
	r, c := pairRunner(t, store)
	if err := r.Deploy(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	eventually(t, "subtask 0 closed and subtask 1 running", func() bool {
		f := c.final()
		return f[contract.TaskID{Group: g, Subtask: 0}].State == contract.TaskClosed &&
			f[contract.TaskID{Group: g, Subtask: 1}].State == contract.TaskRunning
	})
	if err := r.Trigger(contract.TriggerRequest{JobID: 1, Pipeline: d.Pipeline.ID, Epoch: 1, CheckpointID: 1}); err != nil {
		t.Fatal(err)
	}
	wait(t, c)

	c.mu.Lock()
	for _, rep := range c.reports {
		if rep.Checkpoint != nil {
			t.Errorf("checkpoint %d acknowledged, though subtask 0 never took part", rep.Checkpoint.ID)
		}
	}
	c.mu.Unlock()
	closing := c.final()[contract.TaskID{Group: g, Subtask: 1}]
	if closing.State != contract.TaskClosed || len(closing.Commits) != 2 {
		t.Fatalf("subtask 1 closed %s with %d commit infos, want the checkpoint's and the final one: %+v",
			closing.State, len(closing.Commits), infoTexts(closing.Commits))
	}
	for i, want := range []string{"_1_1\"", "_1_2\""} { // T_<job>_<uuid>_<subtask>_<checkpoint>
		var info struct {
			TransactionID string `json:"transaction_id"`
		}
		if err := json.Unmarshal(closing.Commits[i].Info, &info); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(`"`+info.TransactionID+`"`, want) {
			t.Errorf("commit info %d is transaction %s, want one ending %s", i, info.TransactionID, strings.Trim(want, `"`))
		}
	}

	// the final commit, as the pipeline workflow runs it, with the real committer
	committer, err := sinkOf(t, d).CreateCommitter()
	if err != nil || committer == nil {
		t.Fatalf("committer %v, %v", committer, err)
	}
	var infos [][]byte
	for _, s := range c.final() {
		for _, ci := range s.Commits {
			infos = append(infos, ci.Info)
		}
	}
	if err := committer.Commit(context.Background(), connector.CommitRequest{CheckpointID: 2, Infos: infos}); err != nil {
		t.Fatal(err)
	}
	var words []string
	files, _ := filepath.Glob(filepath.Join(out, "*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		words = append(words, strings.Fields(string(b))...)
	}
	if strings.Join(words, ",") != "before,after" && strings.Join(words, ",") != "after,before" {
		t.Fatalf("published rows %v, want before and after", words)
	}
}

// eventually waits for cond, failing the test after ten seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func infoTexts(cs []contract.CommitInfo) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c.Info)
	}
	return out
}
