package e2e

import (
	"context"
	"crypto/tls"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/strait-dev/strait/exchange"
	"github.com/strait-dev/strait/exchange/exchangetest"
	"github.com/strait-dev/strait/internal/testcert"
)

var exchangeAt = regexp.MustCompile(`exchange at (\S+) \(mTLS\)`)

// TestExchangeMTLS runs two runners whose data exchange is mTLS, with certificates of one
// CA: a job whose exchange crosses them delivers every row once; clients without a
// certificate of the CA are refused at a runner's exchange address, and a runner without a
// certificate cannot exchange with one that has one.
func TestExchangeMTLS(t *testing.T) {
	t.Parallel() // a cluster of its own processes, mostly waiting
	addr := startTemporal(t)
	ckpt := t.TempDir()
	start(t, "worker", "worker", "--address", addr, "--checkpoint-dir", ckpt)
	ca := testcert.New(t, t.TempDir(), "127.0.0.1")
	runner := func(id string, mtls bool) *proc {
		args := []string{"runner", "--address", addr, "--id", id, "--slots", "2", "--listen", "127.0.0.1:0", "--checkpoint-dir", ckpt}
		if mtls {
			cert, key := ca.Peer(t, id, "127.0.0.1")
			args = append(args, "--exchange-tls-cert", cert, "--exchange-tls-key", key, "--exchange-tls-ca", ca.CA)
		}
		return start(t, id, args...)
	}
	m1, m2 := runner("m1", true), runner("m2", true)
	eventually(t, 60*time.Second, "two runners registered", func() bool {
		cs := clusterStatus(t, addr)
		return cs["m1"].State == "ALIVE" && cs["m2"].State == "ALIVE"
	})
	m1Addr := exchangeAt.FindStringSubmatch(m1.output())
	if m1Addr == nil || !exchangeAt.MatchString(m2.output()) {
		t.Fatalf("the runners' banners do not say their exchange is mTLS:\n%s\n%s", m1.output(), m2.output())
	}

	t.Run("a partial set of mTLS flags fails at start naming the missing one", func(t *testing.T) {
		cert, key := ca.Peer(t, "partial", "127.0.0.1")
		for _, tc := range []struct {
			env  []string
			args []string
			want string
		}{
			{nil, []string{"--exchange-tls-cert", cert, "--exchange-tls-ca", ca.CA}, "--exchange-tls-key"},
			{nil, []string{"--exchange-tls-cert", cert, "--exchange-tls-key", key}, "--exchange-tls-ca"},
			{[]string{"STRAIT_EXCHANGE_TLS_KEY=" + key, "STRAIT_EXCHANGE_TLS_CA=" + ca.CA}, nil, "--exchange-tls-cert"},
		} {
			p := startEnv(t, "partial", tc.env, append([]string{"runner", "--address", addr, "--id", "partial"}, tc.args...)...)
			err := p.cmd.Wait()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != 2 || !strings.Contains(p.output(), tc.want) {
				t.Fatalf("%v %v: %v, want exit 2 naming %s\n%s", tc.env, tc.args, err, tc.want, p.output())
			}
		}
	})

	t.Run("hash exchange across mTLS runners delivers every row once", func(t *testing.T) {
		hashExchangeOnce(t, addr, 2, 2000, m1, m2)
	})

	t.Run("clients without a certificate of the CA are refused at the exchange address", func(t *testing.T) {
		other := testcert.New(t, t.TempDir(), "127.0.0.1")
		otherCert, otherKey := other.Peer(t, "intruder", "127.0.0.1")
		intruder, err := tls.LoadX509KeyPair(otherCert, otherKey)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name  string
			creds credentials.TransportCredentials
			log   string // what m1 logs of the refusal
		}{
			{"plain gRPC", insecure.NewCredentials(), "first record does not look like a TLS handshake"},
			{"TLS without a certificate", credentials.NewTLS(&tls.Config{RootCAs: ca.Pool}), "client didn't provide a certificate"},
			{"a certificate of another CA", credentials.NewTLS(&tls.Config{RootCAs: ca.Pool, Certificates: []tls.Certificate{intruder}}),
				"certificate signed by unknown authority"},
		} {
			if err := exchangetest.Transfer(t, m1Addr[1], tc.creds); err == nil {
				t.Fatalf("%s: the exchange served a stream", tc.name)
			}
			eventually(t, 10*time.Second, tc.name+": m1 logs the refusal", func() bool {
				return strings.Contains(m1.output(), "exchange: refused a connection") && strings.Contains(m1.output(), tc.log)
			})
		}
		// a certificate of the CA opens a channel (no consumer waits for it: it is aborted)
		cert, key := ca.Peer(t, "test-client", "127.0.0.1")
		tl, err := exchange.NewTLS(exchange.TLSFiles{Cert: cert, Key: key, CA: ca.CA}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := exchange.NewClient(nil, exchange.WithTLS(tl), exchange.WithConnectTimeout(10*time.Second))
		defer c.Close()
		ctx, cancel := context.WithCancel(context.Background())
		snd, err := c.Open(ctx, m1Addr[1], exchange.Key{Job: 1 << 40})
		if err != nil {
			t.Fatalf("a client with a certificate of the CA: %v", err)
		}
		cancel()
		_ = snd.Close(ctx)
	})

	t.Run("a runner without a certificate cannot exchange with an mTLS runner", func(t *testing.T) {
		m2.kill(t)
		eventually(t, 30*time.Second, "m2 declared lost", func() bool { return clusterStatus(t, addr)["m2"].State == "LOST" })
		runner("p3", false)
		eventually(t, 60*time.Second, "p3 registered", func() bool { return clusterStatus(t, addr)["p3"].State == "ALIVE" })
		// placement picks the source's runner: jobs run until each direction was tried
		seen := map[string]bool{}
		refused := func() int { return strings.Count(m1.output(), "exchange: refused a connection") }
		for i := 0; i < 6 && len(seen) < 2; i++ {
			before := refused()
			source, sink, out := failAcross(t, addr)
			t.Logf("source on %s, sink on %s: %s", source, sink, lastLine(out))
			switch {
			case source == "m1" && sink == "p3":
				// the mTLS runner dials the plain one: its handshake fails and says why
				if !strings.Contains(out, "TLS handshake with") || !strings.Contains(out, "serves the exchange in plain gRPC") {
					t.Fatalf("the failure does not name the TLS handshake:\n%s", out)
				}
			case source == "p3" && sink == "m1":
				// the plain runner dials the mTLS one, which refuses it and says why
				if !strings.Contains(out, "the peer may require TLS") {
					t.Fatalf("the failure does not say the peer may require TLS:\n%s", out)
				}
				eventually(t, 10*time.Second, "m1 logs the refusal of p3", func() bool { return refused() > before })
			default:
				t.Fatalf("source on %s, sink on %s: the job did not cross m1 and p3", source, sink)
			}
			seen[source] = true
		}
		if len(seen) < 2 {
			t.Fatalf("every job's source ran on %v: one direction was never tried", seen)
		}
	})
}

// failAcross runs a job whose exchange crosses two runners that cannot connect, without
// retries: it must fail at the exchange. It returns where the source and the sink ran and
// what job wait said.
func failAcross(t *testing.T, addr string) (source, sink, out string) {
	t.Helper()
	id := submit(t, addr, writeJob(t, `
env { parallelism = 2, job.mode = BATCH, job.retry.times = 0 }
source { FakeSource { plugin_output = "fake", row.num = 100, schema = { fields { id = bigint, name = string } } } }
sink { Console { plugin_input = "fake", partition_by = [id] } }`))
	code, out := run(t, "job", "wait", "--address", addr, id)
	if code != 1 || !strings.Contains(out, "FAILED") || !strings.Contains(out, "exchange") {
		t.Fatalf("job wait: exit %d, want 1 with the job FAILED at the exchange\n%s", code, out)
	}
	source, sink = groupRunners(t, addr, id)
	return source, sink, out
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// groupRunners are the runners of a job's source (task group 1) and sink (group 2).
func groupRunners(t *testing.T, addr, id string) (source, sink string) {
	t.Helper()
	jv := jobStatus(t, addr, id)
	if len(jv.Pipelines) == 0 {
		t.Fatalf("job %s has no pipeline: %+v", id, jv)
	}
	for _, task := range jv.Pipelines[0].Tasks {
		switch task.Task.Group {
		case 1:
			source = task.Runner
		case 2:
			sink = task.Runner
		}
	}
	return source, sink
}
