package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/server/api/adminservice/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// clusterScript sets up and drives the multi-host cluster: Temporal's own server on
// PostgreSQL, each service a process on a host (network namespace) of its own.
const clusterScript = "../scripts/temporal-cluster.sh"

// prodCluster is the cluster of scripts/temporal-cluster.sh with Strait's workers and
// runners on its hosts strait-1..3, each with a folder of its own and its checkpoints in
// the data host's S3.
type prodCluster struct {
	temporal string            // what every Strait process is given as the Temporal address
	addr     map[string]string // host → address
	data     string            // the data host's address: PostgreSQL, Kafka, S3
	config   string            // strait.yaml: checkpoints in S3
	s3       *testS3
	pg       *pgx.Conn
	kafka    string
	adm      *kadm.Client

	mu    sync.Mutex
	procs map[string][]*proc // host → its Strait processes
	homes map[string]string  // host → its folder
}

func clusterCmd(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, clusterScript, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", clusterScript, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func upProductionCluster(t *testing.T) *prodCluster {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("the multi-host cluster needs root: its hosts are network namespaces")
	}
	clusterCmd(t, "up")
	c := &prodCluster{addr: map[string]string{}, procs: map[string][]*proc{}, homes: map[string]string{}}
	sc := bufio.NewScanner(strings.NewReader(clusterCmd(t, "hosts")))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 {
			c.addr[f[0]] = f[1]
		}
	}
	for _, kv := range strings.Split(strings.TrimSpace(clusterCmd(t, "env")), "\n") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "STRAIT_CLUSTER_TEMPORAL":
			c.temporal = v
		case "STRAIT_CLUSTER_DATA":
			c.data = v
		}
	}
	if c.temporal == "" || c.data == "" || c.addr["strait-1"] == "" {
		t.Fatalf("the cluster script named no Temporal address, data host or Strait hosts")
	}
	c.s3 = newTestS3(t, "http://"+c.data+":8333", "strait-test", "strait-test-secret")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, "postgres://test:test@"+c.data+":5432/test?sslmode=disable")
	if err != nil {
		t.Fatalf("the data host's PostgreSQL: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	c.pg = conn
	c.kafka = c.data + ":9092"
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.kafka))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	c.adm = kadm.NewClient(cl)
	prefix := fmt.Sprintf("cluster-checkpoints-%d", time.Now().UnixNano())
	c.config = c.s3.straitYAML(t, prefix)
	return c
}

// home is the host's own folder, its TMPDIR: nothing is shared between hosts but the network.
func (c *prodCluster) home(t *testing.T, host string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.homes[host] == "" {
		c.homes[host] = t.TempDir()
	}
	return c.homes[host]
}

// start runs a strait process on a host.
func (c *prodCluster) start(t *testing.T, host, name string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(clusterScript, append([]string{"exec", host, strait}, args...)...)
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS=", "TMPDIR="+c.home(t, host))
	p := startCmd(t, host+"/"+name, cmd)
	c.mu.Lock()
	c.procs[host] = append(c.procs[host], p)
	c.mu.Unlock()
	return p
}

func (c *prodCluster) worker(t *testing.T, host string) *proc {
	return c.start(t, host, "worker", "worker", "--address", c.temporal, "--config", c.config)
}

func (c *prodCluster) runner(t *testing.T, host, id string) *proc {
	return c.start(t, host, id, "runner", "--address", c.temporal, "--id", id, "--slots", "8",
		"--listen", c.addr[host]+":7070", "--config", c.config)
}

// cli runs the strait CLI on the client host.
func (c *prodCluster) cli(t *testing.T, args ...string) (int, string) {
	t.Helper()
	return runCmd(t, []string{clusterScript, "exec", "client", strait}, nil, append(args, "--address", c.temporal)...)
}

// killHost kills every process of a host with SIGKILL.
func (c *prodCluster) killHost(t *testing.T, host string) {
	t.Helper()
	clusterCmd(t, "kill", host)
	c.mu.Lock()
	victims := c.procs[host]
	c.procs[host] = nil
	c.mu.Unlock()
	for _, p := range victims {
		_ = p.cmd.Wait()
	}
}

// killProc kills one Strait process with SIGKILL.
func (c *prodCluster) killProc(t *testing.T, host string, p *proc) {
	t.Helper()
	p.kill(t)
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := c.procs[host][:0]
	for _, q := range c.procs[host] {
		if q != p {
			kept = append(kept, q)
		}
	}
	c.procs[host] = kept
}

func (c *prodCluster) status(t *testing.T, id string) jobView {
	t.Helper()
	code, out := c.cli(t, "job", "status", id, "--json")
	if code != 0 {
		return jobView{}
	}
	var jv jobView
	if err := json.Unmarshal([]byte(out), &jv); err != nil {
		return jobView{}
	}
	return jv
}

// historyHost is the host of the history service that owns the shard of a workflow, asked
// of a frontend through Temporal's admin API.
func (c *prodCluster) historyHost(t *testing.T, workflowID string) string {
	t.Helper()
	conn, err := grpc.NewClient(c.addr["frontend-2"]+":7233", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := adminservice.NewAdminServiceClient(conn).DescribeMutableState(ctx, &adminservice.DescribeMutableStateRequest{
		Namespace: "default", Execution: &commonpb.WorkflowExecution{WorkflowId: workflowID}})
	if err != nil {
		t.Fatalf("describe %s: %v", workflowID, err)
	}
	ip, _, _ := strings.Cut(resp.GetHistoryAddr(), ":")
	for host, a := range c.addr {
		if a == ip && strings.HasPrefix(host, "history-") {
			t.Logf("workflow %s: shard %s on %s", workflowID, resp.GetShardId(), host)
			return host
		}
	}
	t.Fatalf("workflow %s: its history service %s is no host of the cluster", workflowID, resp.GetHistoryAddr())
	return ""
}

// clusterJob is one job of the test: its deterministic input topic, its three exactly-once
// sinks (Jdbc PostgreSQL, Kafka, S3File), and what the input holds.
type clusterJob struct {
	name      string
	in, out   string // Kafka topics
	table     string // Jdbc sink table
	s3prefix  string // S3File sink folder
	produced  atomic.Int64
	id        string
	streaming bool
}

func (c *prodCluster) newJob(t *testing.T, name string, streaming bool) *clusterJob {
	t.Helper()
	stamp := time.Now().UnixNano()
	j := &clusterJob{name: name, streaming: streaming,
		in: kafkaTopic(t, c.adm, "cluster_"+name+"_in", 2), out: kafkaTopic(t, c.adm, "cluster_"+name+"_out", 2),
		table: fmt.Sprintf("cluster_%s_%d", name, stamp), s3prefix: fmt.Sprintf("cluster-%s-%d", name, stamp)}
	if _, err := c.pg.Exec(context.Background(), fmt.Sprintf("CREATE TABLE public.%s (id bigint PRIMARY KEY, name text)", j.table)); err != nil {
		t.Fatal(err)
	}
	return j
}

func clusterRecord(i int64) string { return fmt.Sprintf(`{"id":%d,"name":"row %d"}`, i, i) }

// produce writes the next n records of the job's input, ids in order.
func (c *prodCluster) produce(t *testing.T, prod *kgo.Client, j *clusterJob, n int) error {
	recs := make([]*kgo.Record, 0, n)
	first := j.produced.Load() + 1
	for i := first; i < first+int64(n); i++ {
		recs = append(recs, &kgo.Record{Topic: j.in, Key: []byte(strconv.FormatInt(i, 10)), Value: []byte(clusterRecord(i))})
	}
	if err := prod.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		return err
	}
	j.produced.Add(int64(n))
	return nil
}

func (c *prodCluster) jobConfig(t *testing.T, j *clusterJob) string {
	mode, limit := "BATCH", ", read_limit.rows_per_second = 20"
	if j.streaming {
		mode, limit = "STREAMING", ""
	}
	return writeJob(t, fmt.Sprintf(`
env { job.name = "cluster-%[1]s", job.mode = %[2]s, parallelism = 2, checkpoint.interval = 1000,
  job.retry.times = 30, job.retry.interval.seconds = 1 %[3]s }
source { Kafka { plugin_output = "in", bootstrap.servers = %[4]q, topic = %[5]q, start_mode = earliest,
  consumer.group = %[5]q, schema = { fields { id = bigint, name = string } } } }
sink {
  Jdbc { plugin_input = "in", url = "jdbc:postgresql://%[6]s:5432/test", driver = "org.postgresql.Driver",
    user = test, password = test, generate_sink_sql = true, database = test, table = "public.%[7]s",
    primary_keys = [id], is_exactly_once = true, xa_data_source_class_name = "org.postgresql.xa.PGXADataSource" }
  Kafka { plugin_input = "in", bootstrap.servers = %[4]q, topic = %[8]q, semantics = EXACTLY_ONCE,
    transaction_prefix = %[8]q, partition_key_fields = [id] }
  S3File { plugin_input = "in", bucket = "s3a://%[9]s", fs.s3a.endpoint = "%[10]s",
    fs.s3a.aws.credentials.provider = "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
    access_key = "%[11]s", secret_key = "%[12]s", path = "/%[13]s/sink", tmp_path = "/%[13]s/tmp",
    file_format_type = json }
}`, j.name, mode, limit, c.kafka, j.in, c.data, j.table, j.out, e2eBucket, c.s3.endpoint, c.s3.key, c.s3.secret, j.s3prefix))
}

func (c *prodCluster) submit(t *testing.T, j *clusterJob) {
	t.Helper()
	code, out := c.cli(t, "job", "submit", c.jobConfig(t, j))
	if code != 0 {
		t.Fatalf("submit %s: exit %d\n%s", j.name, code, out)
	}
	f := strings.Fields(strings.TrimSpace(out))
	j.id = f[len(f)-1]
}

// committedJdbc counts the rows of the job's Jdbc sink: committed rows, since it is
// exactly-once.
func (c *prodCluster) committedJdbc(t *testing.T, j *clusterJob) int64 {
	t.Helper()
	var n int64
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.pg.QueryRow(ctx, "SELECT count(*) FROM public."+j.table).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", j.table, err)
	}
	return n
}

// checkExact compares every sink of the job, record by record, with the input's n records,
// and checks that nothing is left prepared, staged or open.
func (c *prodCluster) checkExact(t *testing.T, j *clusterJob, n int64) {
	t.Helper()
	want := map[int64]bool{}
	for i := int64(1); i <= n; i++ {
		want[i] = true
	}
	compare := func(sink string, got map[int64]int, names map[int64]string) {
		for i := int64(1); i <= n; i++ {
			if got[i] != 1 {
				t.Errorf("%s %s: record %d written %d times", j.name, sink, i, got[i])
			}
			if name, ok := names[i]; ok && name != fmt.Sprintf("row %d", i) {
				t.Errorf("%s %s: record %d has name %q", j.name, sink, i, name)
			}
		}
		for i := range got {
			if !want[i] {
				t.Errorf("%s %s: record %d was never in the input", j.name, sink, i)
			}
		}
	}

	rows, err := c.pg.Query(context.Background(), "SELECT id, name FROM public."+j.table)
	if err != nil {
		t.Fatal(err)
	}
	ids, names := map[int64]int{}, map[int64]string{}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			t.Fatal(err)
		}
		ids[id]++
		names[id] = name
	}
	rows.Close()
	compare("Jdbc", ids, names)

	ids = map[int64]int{}
	for _, v := range committedValues(t, c.kafka, c.adm, j.out) {
		var id int64
		if _, err := fmt.Sscanf(v, `{"id":%d,`, &id); err != nil || v != clusterRecord(id) {
			t.Errorf("%s Kafka: record %q is not an input record", j.name, v)
			continue
		}
		ids[id]++
	}
	compare("Kafka", ids, nil)

	sink := s3FileSink(c.s3, j.s3prefix)
	compare("S3File", sink.ids(t, ""), nil)
	if left := sink.left(t, "", j.id); len(left) > 0 {
		t.Errorf("%s S3File: staged files left: %v", j.name, left)
	}
	var prepared []string
	prows, err := c.pg.Query(context.Background(), "SELECT gid FROM pg_prepared_xacts WHERE starts_with(gid, $1)", "strait-"+j.id+"-")
	if err != nil {
		t.Fatal(err)
	}
	prepared, err = pgx.CollectRows(prows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(prepared) > 0 {
		t.Errorf("%s Jdbc: transactions left prepared: %v", j.name, prepared)
	}
	if open := openTxns(t, c.adm, j.out); len(open) > 0 {
		t.Errorf("%s Kafka: transactions left open: %v", j.name, open)
	}
}

// fault is one disruption of the test: what it kills, and what brings the victim back.
type fault struct {
	name    string
	kill    func(t *testing.T) // SIGKILL
	restart func(t *testing.T) // the victim started again
	// restartFirst restarts the victim at once (a service with no second instance);
	// otherwise the job must recover while the victim is down, and it is restarted after
	restartFirst bool
}

// TestProductionCluster runs Strait on Temporal deployed as users deploy it: Temporal's own
// server on PostgreSQL with two frontends, two history services (4 shards), a matching and
// an internal worker service, each a process on a host of its own, and two Strait workers
// and three runners on three more hosts, with no shared folder (checkpoints in S3) and the
// data exchange crossing hosts. A BATCH and a STREAMING job, each from a Kafka topic of
// deterministic records into three exactly-once sinks (Jdbc PostgreSQL, Kafka, S3File), run
// while each of these is killed with SIGKILL in turn and started again: a history service, a
// frontend, the matching service, Temporal's PostgreSQL, a worker, the runner of the
// streaming job's first task, and a whole host (its worker and runner). The time from each
// kill until every record produced before it is committed is printed. At the end every sink
// holds every input record exactly once, compared record by record, and nothing is left
// prepared, staged or open.
func TestProductionCluster(t *testing.T) {
	c := upProductionCluster(t)
	c.worker(t, "strait-1")
	c.worker(t, "strait-2")
	runners := map[string]string{"cr1": "strait-1", "cr2": "strait-2", "cr3": "strait-3"}
	runnerProc := map[string]*proc{}
	for id, host := range runners {
		runnerProc[id] = c.runner(t, host, id)
	}
	eventually(t, 2*time.Minute, "three runners registered", func() bool {
		code, out := c.cli(t, "cluster", "status", "--json")
		return code == 0 && strings.Count(out, `"ALIVE"`) == 3
	})

	prod, err := kgo.NewClient(kgo.SeedBrokers(c.kafka), kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()

	batch := c.newJob(t, "batch", false)
	if err := c.produce(t, prod, batch, 3000); err != nil {
		t.Fatal(err)
	}
	stream := c.newJob(t, "stream", true)
	if err := c.produce(t, prod, stream, 200); err != nil {
		t.Fatal(err)
	}
	c.submit(t, stream)
	c.submit(t, batch)
	t.Logf("jobs: streaming %s, batch %s", stream.id, batch.id)

	// the streaming job's input keeps coming, 50 records a second, until the faults are over
	stop := make(chan struct{})
	produced := make(chan error, 1)
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				produced <- nil
				return
			case <-tick.C:
				if err := c.produce(t, prod, stream, 5); err != nil {
					produced <- err
					return
				}
			}
		}
	}()

	// caughtUp says whether every record produced by then is committed to the Jdbc sink
	caughtUp := func(upTo int64) bool { return c.committedJdbc(t, stream) >= upTo }
	eventually(t, 3*time.Minute, "the streaming job commits its first records", func() bool { return caughtUp(200) })

	restartRunner := func(id string) func(t *testing.T) {
		return func(t *testing.T) { runnerProc[id] = c.runner(t, runners[id], id) }
	}
	var victimRunner, victimHistory, victimHost string
	faults := []fault{
		{name: "history service of the streaming pipeline", kill: func(t *testing.T) {
			victimHistory = c.historyHost(t, "strait-job-"+stream.id+"-p1")
			clusterCmd(t, "kill", victimHistory)
		}, restart: func(t *testing.T) { clusterCmd(t, "start", victimHistory) }},
		{name: "frontend-1", kill: func(t *testing.T) { clusterCmd(t, "kill", "frontend-1") },
			restart: func(t *testing.T) { clusterCmd(t, "start", "frontend-1") }},
		{name: "matching-1", restartFirst: true, kill: func(t *testing.T) { clusterCmd(t, "kill", "matching-1") },
			restart: func(t *testing.T) { clusterCmd(t, "start", "matching-1") }},
		{name: "Temporal's PostgreSQL", restartFirst: true, kill: func(t *testing.T) { clusterCmd(t, "kill", "temporal-db") },
			restart: func(t *testing.T) { clusterCmd(t, "start", "temporal-db") }},
		{name: "worker on strait-1", kill: func(t *testing.T) {
			c.mu.Lock()
			var w *proc
			for _, p := range c.procs["strait-1"] {
				if strings.HasSuffix(p.name, "/worker") {
					w = p
				}
			}
			c.mu.Unlock()
			c.killProc(t, "strait-1", w)
		}, restart: func(t *testing.T) { c.worker(t, "strait-1") }},
		{name: "runner of the streaming job", kill: func(t *testing.T) {
			jv := c.status(t, stream.id)
			if len(jv.Pipelines) == 0 || len(jv.Pipelines[0].Tasks) == 0 {
				t.Fatalf("streaming job %s: no tasks in its status", stream.id)
			}
			victimRunner = jv.Pipelines[0].Tasks[0].Runner
			if _, ok := runners[victimRunner]; !ok {
				t.Fatalf("streaming job %s runs on %q, not a runner of the test", stream.id, victimRunner)
			}
			c.killProc(t, runners[victimRunner], runnerProc[victimRunner])
		}, restart: func(t *testing.T) { restartRunner(victimRunner)(t) }},
		{name: "a host of the streaming job (its worker and runner)", kill: func(t *testing.T) {
			// a host running a task of the streaming job, one with a worker beside its
			// runner where it can (strait-3 has a runner only); the job may run wholly on
			// the runner restarted last
			victimHost = ""
			jv := c.status(t, stream.id)
			for _, p := range jv.Pipelines {
				for _, task := range p.Tasks {
					if h := runners[task.Runner]; h != "" && (victimHost == "" || h != "strait-3") {
						victimHost = h
					}
				}
			}
			if victimHost == "" {
				t.Fatalf("streaming job %s: no task on a runner of the test: %+v", stream.id, jv.Pipelines)
			}
			t.Logf("killing host %s", victimHost)
			c.killHost(t, victimHost)
		}, restart: func(t *testing.T) {
			if victimHost != "strait-3" {
				c.worker(t, victimHost)
			}
			for id, h := range runners {
				if h == victimHost {
					restartRunner(id)(t)
				}
			}
		}},
	}

	type recovery struct {
		fault string
		took  time.Duration
	}
	var report []recovery
	for _, f := range faults {
		// a checkpoint has committed since the last fault: the job is running normally
		mark := stream.produced.Load()
		eventually(t, 3*time.Minute, "the streaming job running before "+f.name+" is killed", func() bool { return caughtUp(mark) })
		upTo := stream.produced.Load()
		killed := time.Now()
		f.kill(t)
		if f.restartFirst {
			f.restart(t)
		}
		eventually(t, 5*time.Minute, "every record produced before "+f.name+" was killed committed", func() bool { return caughtUp(upTo) })
		took := time.Since(killed)
		t.Logf("%s killed: every record produced before the kill committed %s later", f.name, took.Round(100*time.Millisecond))
		report = append(report, recovery{f.name, took})
		if !f.restartFirst {
			f.restart(t)
		}
	}

	close(stop)
	if err := <-produced; err != nil {
		t.Fatalf("producing the streaming input: %v", err)
	}
	n := stream.produced.Load()
	eventually(t, 5*time.Minute, "every streaming record committed to every sink", func() bool {
		return caughtUp(n) && len(committedValues(t, c.kafka, c.adm, stream.out)) >= int(n) &&
			len(s3FileSink(c.s3, stream.s3prefix).ids(t, "")) >= int(n)
	})
	if code, out := c.cli(t, "job", "cancel", stream.id); code != 0 {
		t.Fatalf("cancel %s: exit %d\n%s", stream.id, code, out)
	}
	eventually(t, 3*time.Minute, "the streaming job canceled", func() bool { return c.status(t, stream.id).State == "CANCELED" })
	if code, out := c.cli(t, "job", "wait", batch.id); code != 0 {
		t.Fatalf("batch job %s: exit %d\n%s", batch.id, code, out)
	}
	c.checkExact(t, stream, n)
	c.checkExact(t, batch, batch.produced.Load())

	var b strings.Builder
	fmt.Fprintf(&b, "recovery after SIGKILL (until every record produced before the kill is committed), %d records streamed, %d batch:\n",
		n, batch.produced.Load())
	for _, r := range report {
		fmt.Fprintf(&b, "  %-44s %6.1f s\n", r.fault, r.took.Seconds())
	}
	for _, j := range []*clusterJob{stream, batch} {
		var st statusCounts
		if _, out := c.cli(t, "job", "status", j.id, "--json"); json.Unmarshal([]byte(out), &st) == nil {
			for i, p := range st.Pipelines {
				fmt.Fprintf(&b, "%s job, pipeline %d: %d restarts, the last after %q\n", j.name, i+1, p.Restarts, p.LastFailure)
			}
		}
	}
	t.Log(b.String())
	if path := os.Getenv("STRAIT_CLUSTER_REPORT"); path != "" {
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Errorf("report: %v", err)
		}
	}
}
