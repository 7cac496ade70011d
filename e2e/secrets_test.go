package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"google.golang.org/protobuf/proto"
)

// TestSecretsNeverShown runs a cluster whose worker and runner share a secret key (one from
// a file, one from STRAIT_SECRET_KEY) and submits a job with a Jdbc password and an S3
// secret key. The job runs (SeaweedFS checks the S3 signature, so the runner had the real
// key), while the workflow histories Temporal keeps (the input the Web UI shows, the plan,
// the deployments), `strait job status`, `strait plan` and the processes' logs hold
// neither secret.
func TestSecretsNeverShown(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	s3s := s3Server(t)
	pg := postgres(t)
	suffix := randomHex(t, 6)
	jdbcPassword := "Jdbc-Pw-" + suffix
	schema := "secrets_" + suffix
	pgExec(t, pg, fmt.Sprintf(`CREATE SCHEMA %[1]s;
CREATE TABLE %[1]s.src (id int PRIMARY KEY, name text);
CREATE TABLE %[1]s.dst (id int PRIMARY KEY, name text);
INSERT INTO %[1]s.src VALUES (1, 'a'), (2, 'b'), (3, 'c');`, schema))
	t.Cleanup(func() { _, _ = pg.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE") })

	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	keyText := base64.StdEncoding.EncodeToString(key)
	keyFile := writeFile(t, "secret.key", keyText+"\n")
	keyEnv := []string{"STRAIT_SECRET_KEY=" + keyText}

	addr := startTemporal(t)
	ckpt := t.TempDir()
	worker := start(t, "worker", "worker", "--address", addr, "--checkpoint-dir", ckpt, "--secret-key-file", keyFile)
	runner := startEnv(t, "runner", keyEnv, "runner", "--address", addr, "--id", "sec1", "--slots", "4",
		"--listen", "127.0.0.1:0", "--checkpoint-dir", ckpt)
	eventually(t, 90*time.Second, "runner sec1 alive", func() bool { return clusterStatus(t, addr)["sec1"].State == "ALIVE" })

	jdbcURL := pgJdbcURL(t)
	conf := fmt.Sprintf(`env { job.mode = BATCH, job.name = "secrets" }
source {
  Jdbc {
    url = "%[1]s"
    driver = "org.postgresql.Driver"
    user = "%[2]s"
    password = "%[3]s"
    query = "select id, name from %[4]s.src"
    plugin_output = "rows"
  }
}
sink {
  Jdbc {
    plugin_input = "rows"
    url = "%[1]s"
    driver = "org.postgresql.Driver"
    user = "%[2]s"
    password = "%[3]s"
    query = "insert into %[4]s.dst (id, name) values (?, ?)"
  }
  S3File {
    plugin_input = "rows"
    bucket = "s3a://%[5]s"
    fs.s3a.endpoint = "%[6]s"
    fs.s3a.aws.credentials.provider = "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider"
    access_key = "%[7]s"
    secret_key = "%[8]s"
    path = "/%[4]s/sink"
    tmp_path = "/%[4]s/tmp"
    file_format_type = json
  }
}
`, jdbcURL.url, jdbcURL.user, jdbcPassword, schema, e2eBucket, s3s.endpoint, s3s.key, s3s.secret)
	job := writeJob(t, conf)
	secrets := []string{jdbcPassword, s3s.secret}

	// strait plan shows the secrets masked
	code, out := run(t, "plan", job)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, `"password":"******"`) || !strings.Contains(out, `"secret_key":"******"`) {
		t.Fatalf("strait plan does not show the secrets masked:\n%s", out)
	}
	noSecret(t, "strait plan", out, secrets)

	const id = "7409"
	code, out = runEnv(t, keyEnv, "job", "submit", "--address", addr, "--job-id", id, job)
	if code != 0 {
		t.Fatalf("submit: exit %d\n%s", code, out)
	}
	var jv jobView
	eventually(t, 3*time.Minute, "the job finished", func() bool {
		jv = jobStatus(t, addr, id)
		if jv.State == "FAILED" || jv.State == "CANCELED" {
			t.Fatalf("job %s: %s: %s", id, jv.State, jv.Error)
		}
		return jv.State == "FINISHED"
	})
	_, status := run(t, "job", "status", id, "--json", "--address", addr)
	noSecret(t, "strait job status", status, secrets)

	// the job ran with the real secrets: the rows are in PostgreSQL and in the bucket
	var n int
	if err := pg.QueryRow(context.Background(), "select count(*) from "+schema+".dst").Scan(&n); err != nil || n != 3 {
		t.Fatalf("rows copied to %s.dst: %d, %v", schema, n, err)
	}
	if keys := s3s.keys(t, schema+"/sink"); len(keys) == 0 {
		t.Fatalf("no files written to s3://%s/%s/sink", e2eBucket, schema)
	}

	// what Temporal keeps holds no secret: the job's input shows the config masked and
	// sealed, the plan and the deployments hold the secrets sealed
	hc, err := client.Dial(client.Options{HostPort: addr, Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		t.Fatalf("Temporal client: %v", err)
	}
	defer hc.Close()
	jobEvents := history(t, hc, "strait-job-"+id)
	var in struct {
		Config string `json:"config"`
		Sealed string `json:"sealed"`
	}
	first := jobEvents[0].GetWorkflowExecutionStartedEventAttributes()
	if first == nil || len(first.GetInput().GetPayloads()) == 0 {
		t.Fatalf("the job's first event is not its start: %v", jobEvents[0])
	}
	if err := json.Unmarshal(first.GetInput().GetPayloads()[0].GetData(), &in); err != nil {
		t.Fatalf("the job's input: %v", err)
	}
	if !strings.Contains(in.Config, `password = "******"`) || !strings.Contains(in.Config, `secret_key = "******"`) ||
		!strings.Contains(in.Config, `query = "select id, name from `+schema+`.src"`) || !strings.HasPrefix(in.Sealed, "strait-sealed:v1:") {
		t.Fatalf("the job's input as the Web UI shows it:\n%s\nsealed %q", in.Config, in.Sealed)
	}
	for _, wid := range []string{"strait-job-" + id, "strait-job-" + id + "-p1"} {
		events := jobEvents
		if wid != "strait-job-"+id {
			events = history(t, hc, wid)
		}
		sealed := false
		for _, ev := range events {
			b, err := proto.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range secrets {
				if bytes.Contains(b, []byte(s)) {
					t.Fatalf("the history of %s shows a secret in event %d (%s)", wid, ev.GetEventId(), ev.GetEventType())
				}
			}
			sealed = sealed || bytes.Contains(b, []byte("strait-sealed:v1:"))
		}
		if !sealed {
			t.Fatalf("the history of %s carries no sealed secret: the job could not have run", wid)
		}
	}
	noSecret(t, "the worker's log", worker.output(), secrets)
	noSecret(t, "the runner's log", runner.output(), secrets)
}

// pgConn is the test database's JDBC url, without credentials, and its user.
type pgConn struct{ url, user string }

func pgJdbcURL(t *testing.T) pgConn {
	t.Helper()
	cfg, err := pgx.ParseConfig(os.Getenv("STRAIT_TEST_POSTGRES"))
	if err != nil {
		t.Fatalf("STRAIT_TEST_POSTGRES: %v", err)
	}
	return pgConn{url: fmt.Sprintf("jdbc:postgresql://%s:%d/%s", cfg.Host, cfg.Port, cfg.Database), user: cfg.User}
}

func history(t *testing.T, c client.Client, wid string) []*historypb.HistoryEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	it := c.GetWorkflowHistory(ctx, wid, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var out []*historypb.HistoryEvent
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatalf("history of %s: %v", wid, err)
		}
		out = append(out, ev)
	}
	if len(out) == 0 {
		t.Fatalf("history of %s is empty", wid)
	}
	return out
}

func noSecret(t *testing.T, what, text string, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Fatalf("%s shows a secret:\n%s", what, tail(text, 40))
		}
	}
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// runEnv is run with env added to the test's environment.
func runEnv(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	return runCmd(t, []string{strait}, env, args...)
}
