package taskrunner_test

import (
	"context"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// listening is an unbounded source whose reader records the completed checkpoints it is
// told of.
type listening struct{}

var notified = make(chan int64, 16)

func (listening) Boundedness() connector.Boundedness { return connector.Unbounded }
func (listening) Tables() []*catalog.Table {
	return []*catalog.Table{catalog.FromRowType(catalog.TablePath{Table: "l"}, &types.RowType{Names: []string{"id"}, Types: []types.DataType{types.Of(types.Int)}})}
}
func (listening) CreateEnumerator(connector.EnumeratorContext, []byte) (connector.Enumerator, error) {
	return listeningEnum{}, nil
}
func (listening) CreateReader(connector.ReaderContext) (connector.Reader, error) {
	return &listeningReader{}, nil
}

type listeningEnum struct{}

func (listeningEnum) Open(context.Context) error                 { return nil }
func (listeningEnum) Run(context.Context) error                  { return nil }
func (listeningEnum) RegisterReader(int) error                   { return nil }
func (listeningEnum) HandleSplitRequest(int) error               { return nil }
func (listeningEnum) AddSplitsBack([]connector.Split, int) error { return nil }
func (listeningEnum) Snapshot(int64) ([]byte, error)             { return nil, nil }
func (listeningEnum) Close() error                               { return nil }

type listeningReader struct{}

func (*listeningReader) Open(context.Context) error  { return nil }
func (*listeningReader) AddSplits([]connector.Split) {}
func (*listeningReader) NoMoreSplits()               {}
func (*listeningReader) PollNext(ctx context.Context, _ *row.Batch) (bool, error) {
	time.Sleep(time.Millisecond)
	return false, nil
}
func (*listeningReader) SnapshotState(int64) ([]connector.Split, error) { return nil, nil }
func (*listeningReader) Close() error                                   { return nil }
func (*listeningReader) NotifyCheckpointComplete(_ context.Context, id int64) error {
	notified <- id
	return nil
}

type noOptions struct{}

func init() {
	connector.RegisterSource("ListeningSource", "A source whose reader listens for completed checkpoints.", func(*connector.SourceContext, *noOptions) (connector.Source, error) {
		return listening{}, nil
	})
}

// TestCheckpointCompleteReachesTheReader: the completed checkpoint a trigger carries is
// told to a listening source reader before it takes the new checkpoint, once each.
func TestCheckpointCompleteReachesTheReader(t *testing.T) {
	d := firstPipeline(t, `
env { job.mode = STREAMING }
source { ListeningSource {} }
sink { Console { log.print.data = false } }`, connector.Job{ID: 1})
	store := tempStore(t)
	r, _ := storeRunner(t, "t", store, 1)
	if err := r.Deploy(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(r.Tasks()) == 0 || r.Tasks()[0].State != contract.TaskRunning {
		if time.Now().After(deadline) {
			t.Fatal("the task never ran")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, tr := range []contract.TriggerRequest{
		{CheckpointID: 1},
		{CheckpointID: 2, Completed: 1},
		{CheckpointID: 3, Completed: 1}, // nothing new
		{CheckpointID: 4, Completed: 3},
	} {
		tr.JobID, tr.Pipeline, tr.Epoch = 1, 1, 1
		if err := r.Trigger(tr); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var got []int64
	for len(got) < 2 {
		select {
		case id := <-notified:
			got = append(got, id)
		case <-time.After(10 * time.Second):
			t.Fatalf("told of %v", got)
		}
	}
	select {
	case id := <-notified:
		t.Fatalf("told again of %d after %v", id, got)
	case <-time.After(200 * time.Millisecond):
	}
	if got[0] != 1 || got[1] != 3 {
		t.Fatalf("told of %v, want [1 3]", got)
	}
}
