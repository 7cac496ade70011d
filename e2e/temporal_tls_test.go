package e2e

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strait-dev/strait/internal/testcert"
)

// tlsFront serves TLS on a port of its own and forwards what it decrypts to backend, the
// way a TLS-terminating front of a Temporal cluster does (a load balancer, or Temporal
// Cloud's). With requireClient, a client must present a certificate the CA signed.
func tlsFront(t *testing.T, backend string, cfg *tls.Config) string {
	t.Helper()
	cfg = cfg.Clone()
	cfg.NextProtos = []string{"h2"} // gRPC over TLS negotiates HTTP/2
	lis, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { lis.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				forward(c, backend)
			}()
		}
	}()
	return lis.Addr().String()
}

func forward(c net.Conn, backend string) {
	defer c.Close()
	if err := c.(*tls.Conn).Handshake(); err != nil {
		return
	}
	b, err := net.Dial("tcp", backend)
	if err != nil {
		return
	}
	defer b.Close()
	pipe(c, b)
}

// pipe copies between two connections both ways until either side ends.
func pipe(a, b net.Conn) {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(b, a); done <- struct{}{} }()
	go func() { _, _ = io.Copy(a, b); done <- struct{}{} }()
	<-done
}

// Every process of a cluster reaches a Temporal that takes only mTLS, from flags, from
// Temporal's environment variables or from a profile of its client config file; one
// without a client certificate is refused.
func TestTemporalMTLS(t *testing.T) {
	t.Parallel()
	certs := testcert.New(t, t.TempDir(), "temporal.test")
	plain := startTemporal(t)
	addr := tlsFront(t, plain, certs.ServerTLS(t, true))
	env := []string{"TEMPORAL_ADDRESS=" + addr, "TEMPORAL_TLS_SERVER_NAME=temporal.test",
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH=" + certs.CA,
		"TEMPORAL_TLS_CLIENT_CERT_PATH=" + certs.ClientCert, "TEMPORAL_TLS_CLIENT_KEY_PATH=" + certs.ClientKey}
	startEnv(t, "worker", env, "worker")
	// the runner takes the older CLI's names
	startEnv(t, "runner", []string{"TEMPORAL_ADDRESS=" + addr, "TEMPORAL_TLS_SERVER_NAME=temporal.test",
		"TEMPORAL_TLS_CA=" + certs.CA, "TEMPORAL_TLS_CERT=" + certs.ClientCert, "TEMPORAL_TLS_KEY=" + certs.ClientKey},
		"runner", "--id", "tls-runner", "--slots", "2", "--listen", "127.0.0.1:0")

	flags := []string{"--address", addr, "--tls-server-name", "temporal.test", "--tls-ca-path", certs.CA,
		"--tls-cert-path", certs.ClientCert, "--tls-key-path", certs.ClientKey}
	eventually(t, 60*time.Second, "the runner registered through TLS", func() bool {
		code, out := run(t, append([]string{"cluster", "status", "-o", "json"}, flags...)...)
		return code == 0 && strings.Contains(out, `"tls-runner"`) && strings.Contains(out, `"ALIVE"`)
	})

	job := writeJob(t, `
env { parallelism = 1, job.mode = BATCH }
source { FakeSource { row.num = 25, schema = { fields { id = bigint } } } }
sink { Assert { rules { row_rules = [ { rule_type = MAX_ROW, rule_value = 25 }, { rule_type = MIN_ROW, rule_value = 25 } ] } } }`)
	t.Run("strait run -m cluster with the flags", func(t *testing.T) {
		code, out := run(t, append([]string{"run", "-m", "cluster", "-c", job}, flags...)...)
		if code != 0 || !strings.Contains(out, "Total Read Count") {
			t.Fatalf("exit %d\n%s", code, out)
		}
	})
	t.Run("a profile of the client config file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "temporal.toml")
		toml := fmt.Sprintf(`[profile.secure]
address = %q
[profile.secure.tls]
server_name = "temporal.test"
server_ca_cert_path = %q
client_cert_path = %q
client_key_path = %q
`, addr, certs.CA, certs.ClientCert, certs.ClientKey)
		if err := os.WriteFile(file, []byte(toml), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out := run(t, "job", "list", "-o", "json", "--config-file", file, "--profile", "secure")
		if code != 0 || !strings.HasPrefix(strings.TrimSpace(out), "[") {
			t.Fatalf("exit %d\n%s", code, out)
		}
	})
	t.Run("no client certificate is refused", func(t *testing.T) {
		code, out := run(t, "job", "list", "--address", addr, "--tls-server-name", "temporal.test", "--tls-ca-path", certs.CA)
		if code == 0 {
			t.Fatalf("listed without a client certificate:\n%s", out)
		}
	})
	t.Run("a server certificate of another CA is refused", func(t *testing.T) {
		other := testcert.New(t, t.TempDir(), "temporal.test")
		code, out := run(t, "job", "list", "--address", addr, "--tls-server-name", "temporal.test", "--tls-ca-path", other.CA,
			"--tls-cert-path", certs.ClientCert, "--tls-key-path", certs.ClientKey)
		if code == 0 || !strings.Contains(out, "certificate") {
			t.Fatalf("exit %d, want a certificate error:\n%s", code, out)
		}
	})
}
