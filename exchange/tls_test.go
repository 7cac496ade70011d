package exchange

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/strait-dev/strait/exchange/exchangetest"
	"github.com/strait-dev/strait/internal/testcert"
)

// logBuffer is a slog destination a test reads while servers write to it.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// peerTLS makes a runner's certificate of ca, for hosts, and loads it with ca's CA file.
func peerTLS(t *testing.T, ca *testcert.Set, name string, hosts ...string) *TLS {
	t.Helper()
	cert, key := ca.Peer(t, name, hosts...)
	return loadTLS(t, TLSFiles{Cert: cert, Key: key, CA: ca.CA})
}

func loadTLS(t *testing.T, f TLSFiles) *TLS {
	t.Helper()
	tl, err := NewTLS(f, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// startTLSServer starts an mTLS server with tl whose log (its own and tl's) the test reads.
func startTLSServer(t *testing.T, tl *TLS) (*Server, string, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	tl.log = log
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(log, WithTLS(tl))
	go s.Serve(lis)
	t.Cleanup(s.Stop)
	return s, lis.Addr().String(), logs
}

// roundTrip sends one batch and End over a channel from c to the server at addr.
func roundTrip(t *testing.T, s *Server, c *Client, addr string) error {
	t.Helper()
	q := newQueue(4)
	defer accept(s, 0, q)()
	ctx := context.Background()
	snd, err := c.Open(ctx, addr, key(0, 0))
	if err != nil {
		return err
	}
	b := seqBatch(0, 0, 10, "x")
	defer b.Release()
	if err := snd.Send(ctx, b); err != nil {
		return err
	}
	if err := snd.Close(ctx); err != nil {
		return err
	}
	if r := q.next(t, 10*time.Second); r.m.Batch == nil || len(r.m.Batch.Rows) != 10 {
		t.Fatalf("first message %+v, want a batch of 10 rows", r.m)
	}
	if r := q.next(t, 10*time.Second); !r.m.End {
		t.Fatalf("second message %+v, want End", r.m)
	}
	return nil
}

// TestMTLSAcceptsAPeerOfTheCA: two runners' certificates of one CA carry a channel, checked
// by host and by a service name.
func TestMTLSAcceptsAPeerOfTheCA(t *testing.T) {
	ca := testcert.New(t, t.TempDir(), "127.0.0.1")
	t.Run("by host", func(t *testing.T) {
		s, addr, _ := startTLSServer(t, peerTLS(t, ca, "runner-a", "127.0.0.1"))
		if err := roundTrip(t, s, newClient(t, WithTLS(peerTLS(t, ca, "runner-b", "127.0.0.1"))), addr); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("by service name", func(t *testing.T) {
		s, addr, _ := startTLSServer(t, peerTLS(t, ca, "svc-a", "exchange.strait.internal"))
		cert, key := ca.Peer(t, "svc-b", "exchange.strait.internal")
		c := newClient(t, WithTLS(loadTLS(t, TLSFiles{Cert: cert, Key: key, CA: ca.CA, ServerName: "exchange.strait.internal"})))
		if err := roundTrip(t, s, c, addr); err != nil {
			t.Fatal(err)
		}
	})
}

// TestMTLSRefuses: a server with mTLS refuses a client without a certificate, one of
// another CA and a plain one, and a client refuses a server it cannot verify; each failure
// names why.
func TestMTLSRefuses(t *testing.T) {
	ca := testcert.New(t, t.TempDir(), "127.0.0.1")
	other := testcert.New(t, t.TempDir(), "127.0.0.1")
	otherCert, otherKey := other.Peer(t, "intruder", "127.0.0.1")
	for _, tc := range []struct {
		name string
		// dial returns the failure of opening a channel to the server at addr
		dial func(t *testing.T, addr string) error
		// client is what the error the client gets says; server what the server logs
		client, server string
	}{
		{
			name: "a client without a certificate",
			dial: func(t *testing.T, addr string) error {
				return exchangetest.Transfer(t, addr, credentials.NewTLS(&tls.Config{RootCAs: ca.Pool, MinVersion: tls.VersionTLS12}))
			},
			// a client outside Strait may see the refusal's alert or only the closed connection
			client: "Unavailable", server: "client didn't provide a certificate",
		},
		{
			name: "a client certificate of another CA",
			dial: func(t *testing.T, addr string) error {
				c := newClient(t, WithConnectTimeout(3*time.Second),
					WithTLS(loadTLS(t, TLSFiles{Cert: otherCert, Key: otherKey, CA: ca.CA})))
				_, err := c.Open(context.Background(), addr, key(0, 0))
				return err
			},
			client: "unknown certificate authority", server: "certificate signed by unknown authority",
		},
		{
			name: "a plain client",
			dial: func(t *testing.T, addr string) error {
				return exchangetest.Transfer(t, addr, insecure.NewCredentials())
			},
			client: "Unavailable", server: "first record does not look like a TLS handshake",
		},
		{
			name: "a plain runner",
			dial: func(t *testing.T, addr string) error {
				_, err := newClient(t, WithConnectTimeout(3*time.Second)).Open(context.Background(), addr, key(0, 0))
				return err
			},
			client: "the peer may require TLS", server: "first record does not look like a TLS handshake",
		},
		{
			name: "a server certificate of another CA",
			dial: func(t *testing.T, addr string) error {
				c := newClient(t, WithConnectTimeout(3*time.Second), WithTLS(peerTLS(t, other, "b", "127.0.0.1")))
				_, err := c.Open(context.Background(), addr, key(0, 0))
				return err
			},
			client: "certificate signed by unknown authority", server: "bad certificate",
		},
		{
			name: "a server certificate for another name",
			dial: func(t *testing.T, addr string) error {
				cert, key := ca.Peer(t, "b", "127.0.0.1")
				c := newClient(t, WithConnectTimeout(3*time.Second),
					WithTLS(loadTLS(t, TLSFiles{Cert: cert, Key: key, CA: ca.CA, ServerName: "elsewhere.example"})))
				_, err := c.Open(context.Background(), addr, Key{Job: 7, Pipeline: 1, Epoch: 2, Edge: 3})
				return err
			},
			client: "wanted to match elsewhere.example", server: "bad certificate",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, addr, logs := startTLSServer(t, peerTLS(t, ca, "runner-a", "127.0.0.1"))
			err := tc.dial(t, addr)
			if err == nil || !strings.Contains(err.Error(), tc.client) {
				t.Fatalf("client error %v, want one saying %q", err, tc.client)
			}
			eventually(t, 5*time.Second, func() bool {
				l := logs.String()
				return strings.Contains(l, "exchange: refused a connection") && strings.Contains(l, tc.server)
			}, func() string { return "server log:\n" + logs.String() + "\nwant a refusal saying " + tc.server })
		})
	}
}

// TestMTLSClientToAPlainServer: a runner with mTLS dialing one without it names why it
// cannot connect.
func TestMTLSClientToAPlainServer(t *testing.T) {
	ca := testcert.New(t, t.TempDir(), "127.0.0.1")
	_, lis := startServer(t)
	c := newClient(t, WithConnectTimeout(2*time.Second), WithTLS(peerTLS(t, ca, "b", "127.0.0.1")))
	_, err := c.Open(context.Background(), lis.Addr().String(), key(0, 0))
	if err == nil || !strings.Contains(err.Error(), "TLS handshake with") || !strings.Contains(err.Error(), "serves the exchange in plain gRPC") {
		t.Fatalf("error %v, want one naming a peer without TLS", err)
	}
}

// TestTestCAScript: the certificates scripts/test-ca.sh makes carry a channel between two
// runners, one checked by its IP address, the other by its DNS name.
func TestTestCAScript(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command("bash", "../scripts/test-ca.sh", dir, "127.0.0.1", "runner-b.example").CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/test-ca.sh: %v\n%s", err, out)
	}
	files := func(host, serverName string) TLSFiles {
		return TLSFiles{Cert: filepath.Join(dir, host+".pem"), Key: filepath.Join(dir, host+"-key.pem"),
			CA: filepath.Join(dir, "ca.pem"), ServerName: serverName}
	}
	s, addr, _ := startTLSServer(t, loadTLS(t, files("127.0.0.1", "")))
	if err := roundTrip(t, s, newClient(t, WithTLS(loadTLS(t, files("runner-b.example", "")))), addr); err != nil {
		t.Fatalf("runner-b.example to 127.0.0.1: %v", err)
	}
	s, addr, _ = startTLSServer(t, loadTLS(t, files("runner-b.example", "")))
	if err := roundTrip(t, s, newClient(t, WithTLS(loadTLS(t, files("127.0.0.1", "runner-b.example")))), addr); err != nil {
		t.Fatalf("127.0.0.1 to runner-b.example: %v", err)
	}
}

func eventually(t *testing.T, within time.Duration, cond func() bool, what func() string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestNewTLSErrors: what a runner's mTLS files lack is named at start.
func TestNewTLSErrors(t *testing.T) {
	ca := testcert.New(t, t.TempDir(), "127.0.0.1")
	cert, key := ca.Peer(t, "runner", "127.0.0.1")
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		files TLSFiles
		want  string
	}{
		{"no key", TLSFiles{Cert: cert, CA: ca.CA}, "no key file given"},
		{"no CA", TLSFiles{Cert: cert, Key: key}, "no ca file given"},
		{"no certificate", TLSFiles{Key: key, CA: ca.CA}, "no cert file given"},
		{"a missing file", TLSFiles{Cert: cert, Key: key, CA: filepath.Join(t.TempDir(), "absent.pem")}, "absent.pem: no such file"},
		{"a CA without a certificate", TLSFiles{Cert: cert, Key: key, CA: notPEM}, "no PEM certificate in it"},
		{"a key of another certificate", TLSFiles{Cert: cert, Key: ca.ServerKey, CA: ca.CA}, "private key does not match public key"},
		{"a server-only certificate", TLSFiles{Cert: ca.ServerCert, Key: ca.ServerKey, CA: ca.CA}, "lacks clientAuth"},
		{"a client-only certificate", TLSFiles{Cert: ca.ClientCert, Key: ca.ClientKey, CA: ca.CA}, "lacks serverAuth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewTLS(tc.files, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "exchange TLS: ") {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestMTLSReload: a server whose files are rewritten with another CA's certificates takes
// them at its next connection; files that do not load leave the ones in use.
func TestMTLSReload(t *testing.T) {
	ca := testcert.New(t, t.TempDir(), "127.0.0.1")
	next := testcert.New(t, t.TempDir(), "127.0.0.1")
	dir := t.TempDir()
	files := TLSFiles{Cert: filepath.Join(dir, "runner.pem"), Key: filepath.Join(dir, "runner-key.pem"), CA: filepath.Join(dir, "ca.pem")}
	install := func(set *testcert.Set, which ...string) {
		cert, key := set.Peer(t, "runner", "127.0.0.1")
		from := map[string]string{files.Cert: cert, files.Key: key, files.CA: set.CA}
		for _, to := range which {
			b, err := os.ReadFile(from[to])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(to, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	install(ca, files.Cert, files.Key, files.CA)
	tl := loadTLS(t, files)
	s, addr, logs := startTLSServer(t, tl)
	// each client its own connection, so each is a new handshake
	oldClient := func() *Client {
		return newClient(t, WithConnectTimeout(3*time.Second), WithTLS(peerTLS(t, ca, "b", "127.0.0.1")))
	}
	newClientOfNext := func() *Client {
		return newClient(t, WithConnectTimeout(3*time.Second), WithTLS(peerTLS(t, next, "b", "127.0.0.1")))
	}
	if err := roundTrip(t, s, oldClient(), addr); err != nil {
		t.Fatal(err)
	}
	// a certificate written before its key does not load: the old pair stays in use
	install(next, files.Cert)
	if err := roundTrip(t, s, oldClient(), addr); err != nil {
		t.Fatalf("with a half-written pair: %v", err)
	}
	if !strings.Contains(logs.String(), "do not load") {
		t.Fatalf("no error logged for files that do not load:\n%s", logs.String())
	}
	install(next, files.Cert, files.Key, files.CA)
	if err := roundTrip(t, s, newClientOfNext(), addr); err != nil {
		t.Fatalf("after the files were rewritten: %v", err)
	}
	if _, err := oldClient().Open(context.Background(), addr, key(0, 0)); err == nil || !strings.Contains(err.Error(), "unknown authority") {
		t.Fatalf("a client of the old CA after the reload: %v", err)
	}
}

// TestCheckUsage: a certificate without extended key usages, or with both, serves both sides.
func TestCheckUsage(t *testing.T) {
	for _, tc := range []struct {
		usages []x509.ExtKeyUsage
		ok     bool
	}{
		{nil, true},
		{[]x509.ExtKeyUsage{x509.ExtKeyUsageAny}, true},
		{[]x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}, true},
		{[]x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, false},
		{[]x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, false},
	} {
		if err := checkUsage(&x509.Certificate{ExtKeyUsage: tc.usages}); (err == nil) != tc.ok {
			t.Errorf("usages %v: error %v", tc.usages, err)
		}
	}
}
