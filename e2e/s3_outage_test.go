package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strait-dev/strait/contract"
)

// cutProxy forwards TCP connections to a backend until it is cut: then every connection,
// open or new, is closed at once, as when a network between a host and its store breaks.
type cutProxy struct {
	lis     net.Listener
	backend string
	mu      sync.Mutex
	cut     bool
	conns   []net.Conn
}

func newCutProxy(t *testing.T, backend string) *cutProxy {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{lis: lis, backend: backend}
	t.Cleanup(func() { lis.Close(); p.setCut(true) })
	go p.serve()
	return p
}

func (p *cutProxy) addr() string { return p.lis.Addr().String() }

func (p *cutProxy) serve() {
	for {
		c, err := p.lis.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns = append(p.conns, c)
		p.mu.Unlock()
		go p.forward(c)
	}
}

func (p *cutProxy) forward(c net.Conn) {
	defer c.Close()
	b, err := net.Dial("tcp", p.backend)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, b)
	p.mu.Unlock()
	defer b.Close()
	pipe(c, b)
}

// setCut cuts the link (closing every connection) or mends it.
func (p *cutProxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if cut {
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
	}
}

// pipelineFailure is the cause of the first pipeline's latest restart ("" before any).
func pipelineFailure(t *testing.T, addr, id string) string {
	t.Helper()
	code, out := run(t, "job", "status", id, "--json", "--address", addr)
	if code != 0 {
		t.Fatalf("job status %s: exit %d\n%s", id, code, out)
	}
	var st contract.JobStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("job status: %v\n%s", err, out)
	}
	if len(st.Pipelines) == 0 {
		return ""
	}
	return st.Pipelines[0].LastFailure
}

// TestS3OutageFailsCheckpoints: when the checkpoint store cannot be reached, checkpoints
// cannot be stored; the runner declines each once its state upload has failed, so each is
// aborted within seconds (not at its minute's timeout) and counted against
// checkpoint.tolerable-failures; none is half-written (a checkpoint in the bucket has its
// manifest and every blob it names), and once the failures pass the tolerance the pipeline
// restarts from its latest checkpoint, which it cannot read: the job fails naming the store
// and the object.
func TestS3OutageFailsCheckpoints(t *testing.T) {
	t.Parallel()
	store := s3Server(t)
	link := newCutProxy(t, strings.TrimPrefix(strings.TrimPrefix(store.endpoint, "http://"), "https://"))
	through := *store
	through.endpoint = "http://" + link.addr()
	prefix := fmt.Sprintf("s3-outage-%d", time.Now().UnixNano())
	cfg := through.straitYAML(t, prefix)

	addr := startTemporal(t)
	startIn(t, "worker", t.TempDir(), "worker", "--address", addr, "--engine-config", cfg)
	startIn(t, "runner", t.TempDir(), "runner", "--address", addr, "--id", "outage-runner", "--slots", "2", "--engine-config", cfg)
	eventually(t, 60*time.Second, "the runner registered", func() bool { return clusterStatus(t, addr)["outage-runner"].State == "ALIVE" })

	id := submit(t, addr, writeJob(t, `
env { parallelism = 1, job.mode = STREAMING, checkpoint.interval = 1000, checkpoint.timeout = 60000, checkpoint.tolerable-failures = 2 }
source { FakeSource { row.num = 100000000, split.read-interval = 100, split.num = 100, schema = { fields { id = bigint } } } }
sink { Console { log.print.data = false } }`))
	eventually(t, 90*time.Second, "two checkpoints completed in the bucket", func() bool { return len(store.completed(t, prefix, id)) >= 2 })
	link.setCut(true)
	cutAt := time.Now()
	before := store.completed(t, prefix, id)

	// three declined checkpoints (past a tolerance of two) restart the pipeline, each declined
	// once its upload's retries are spent; three that expired would take three minutes
	var cause string
	eventually(t, 3*time.Minute, "the pipeline restarted once its checkpoints could not be stored", func() bool {
		cause = pipelineFailure(t, addr, id)
		return cause != "" || jobStatus(t, addr, id).State == "FAILED"
	})
	restartedAfter := time.Since(cutAt)
	if !strings.Contains(cause, "declined by runner outage-runner") || !strings.Contains(cause, "state not written: checkpoint store s3://"+e2eBucket+"/"+prefix+"/") {
		t.Errorf("the pipeline restarted because of %q, want a checkpoint declined by the runner, naming the store", cause)
	}
	if restartedAfter > time.Minute {
		t.Errorf("the pipeline restarted %s after the store went away: its checkpoints were not declined, they expired", restartedAfter.Round(time.Second))
	}

	eventually(t, 3*time.Minute, "the job failed once its checkpoints could not be stored", func() bool {
		return jobStatus(t, addr, id).State == "FAILED"
	})
	st := jobStatus(t, addr, id)
	// past the tolerance the pipeline restarts from its latest checkpoint, which cannot be
	// read either: the job fails naming the store and the object
	if !strings.Contains(st.Error, "checkpoint store s3://"+e2eBucket+"/"+prefix+"/") {
		t.Errorf("the job failed with %q, want the checkpoint store and the object named", st.Error)
	}
	// three failures (past a tolerance of two), each at most its timeout after the one before
	if took := time.Since(cutAt); took < 8*time.Second {
		t.Errorf("the job failed %s after the store went away: the tolerance of two failed checkpoints was not kept", took.Round(time.Second))
	}
	after := store.completed(t, prefix, id)
	if len(after) > len(before)+1 { // one may have been on its way when the link was cut
		t.Errorf("checkpoints %v completed while the store could not be reached (before the cut: %v)", after, before)
	}
	// nothing half-written: every checkpoint with a manifest has every state blob it names
	have := map[string]bool{}
	for _, k := range store.keys(t, prefix) {
		have[k] = true
	}
	for _, k := range store.keys(t, prefix) {
		if !strings.HasSuffix(k, "/manifest.json") {
			continue
		}
		var m contract.Manifest
		if err := json.Unmarshal([]byte(store.object(t, prefix+"/"+k)), &m); err != nil {
			t.Fatalf("manifest %s: %v", k, err)
		}
		if len(m.Tasks) == 0 {
			t.Errorf("manifest %s names no task state", k)
		}
		for _, task := range m.Tasks {
			if !have[task.Key] {
				t.Errorf("manifest %s names %s, which is not in the bucket", k, task.Key)
			}
		}
	}
	t.Logf("the pipeline restarted %s after the store went away (%s); the job failed %s after: %s",
		restartedAfter.Round(time.Second), cause, time.Since(cutAt).Round(time.Second), st.Error)
}
