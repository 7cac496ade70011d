package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testCert writes a self-signed certificate for 127.0.0.1 and its key, and returns their
// files and a pool that trusts the certificate.
func testCert(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "strait gateway test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "gateway.crt"), filepath.Join(dir, "gateway.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// secCall sends a request with an optional bearer token and returns the status, the
// Retry-After header and the body.
func secCall(t *testing.T, c *http.Client, method, url, token, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// wantRefusal checks a refusal's status and SeaTunnel's error shape.
func wantRefusal(t *testing.T, what string, code int, b []byte, status int, msg string) {
	t.Helper()
	var e struct{ Status, Message string }
	if code != status || json.Unmarshal(b, &e) != nil || e.Status != "fail" || !strings.Contains(e.Message, msg) {
		t.Fatalf("%s: got %d %s, want %d with %q", what, code, b, status, msg)
	}
}

// startGatewayProc starts `strait gateway` against Temporal at addr and waits for its
// banner.
func startGatewayProc(t *testing.T, name, addr string, args ...string) *proc {
	t.Helper()
	p := start(t, name, append([]string{"gateway", "--address", addr}, args...)...)
	eventually(t, 30*time.Second, name+" serves", func() bool { return strings.Contains(p.output(), "Gateway: ") })
	return p
}

// TestGatewaySecurity drives `strait gateway` with bearer tokens over TLS, its body limit
// and its rate limit, against `strait dev`.
func TestGatewaySecurity(t *testing.T) {
	port := freePort(t)
	temporal := fmt.Sprintf("127.0.0.1:%d", port)
	dev := start(t, "dev", "dev", "--headless", "--port", strconv.Itoa(port), "--gateway", "", "--slots", "4", "--checkpoint-dir", t.TempDir())
	eventually(t, 60*time.Second, "Temporal serves", func() bool { return strings.Contains(dev.output(), "Temporal server: ") })

	certFile, keyFile, pool := testCert(t)
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("# operators\nsecret-rw\n\n# dashboards\nro:secret-ro\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gwPort := freePort(t)
	gw := fmt.Sprintf("https://127.0.0.1:%d", gwPort)
	p := startGatewayProc(t, "gateway", temporal, "--listen", fmt.Sprintf("127.0.0.1:%d", gwPort), "--tokens-file", tokens,
		"--tls-cert", certFile, "--tls-key", keyFile, "--max-body", "65536")
	if !strings.Contains(p.output(), "Gateway: "+gw+" ") || !strings.Contains(p.output(), "bearer tokens") {
		t.Fatalf("the banner does not name https and tokens:\n%s", p.output())
	}
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}

	t.Run("a request without a token is refused, one with it served", func(t *testing.T) {
		code, h, b := secCall(t, c, "GET", gw+"/overview", "", "")
		wantRefusal(t, "no token", code, b, 401, "authentication required")
		if !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
			t.Fatalf("WWW-Authenticate %q", h.Get("WWW-Authenticate"))
		}
		code, _, b = secCall(t, c, "GET", gw+"/overview", "not-a-token", "")
		wantRefusal(t, "a bad token", code, b, 401, "not valid")
		eventually(t, 60*time.Second, "the overview with a token counts the runner", func() bool {
			code, _, b := secCall(t, c, "GET", gw+"/overview", "secret-rw", "")
			var o map[string]string
			return code == 200 && json.Unmarshal(b, &o) == nil && o["workers"] == "1"
		})
	})

	t.Run("a read-only token reads and may not submit", func(t *testing.T) {
		body := `{"env": {"job.mode": "BATCH"}, "source": [{"plugin_name": "FakeSource", "row.num": 3, "schema": {"fields": {"id": "bigint"}}}],
  "sink": [{"plugin_name": "Assert", "rules": {"row_rules": [{"rule_type": "MIN_ROW", "rule_value": 3}]}}]}`
		code, _, b := secCall(t, c, "POST", gw+"/submit-job?jobName=secure", "secret-ro", body)
		wantRefusal(t, "read-only submit", code, b, 403, "read-only")
		code, _, b = secCall(t, c, "POST", gw+"/submit-job?jobName=secure", "secret-rw", body)
		var sub struct{ JobID, JobName string }
		if code != 200 || json.Unmarshal(b, &sub) != nil || sub.JobName != "secure" {
			t.Fatalf("submit: %d %s", code, b)
		}
		eventually(t, 2*time.Minute, "the job finishes, read with the read-only token", func() bool {
			code, _, b := secCall(t, c, "GET", gw+"/job-info/"+sub.JobID, "secret-ro", "")
			var j gwJob
			return code == 200 && json.Unmarshal(b, &j) == nil && j.JobStatus == "FINISHED"
		})
	})

	t.Run("a rewritten token file applies to the next request", func(t *testing.T) {
		if err := os.WriteFile(tokens, []byte("rotated\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(time.Minute)
		if err := os.Chtimes(tokens, later, later); err != nil {
			t.Fatal(err)
		}
		code, _, b := secCall(t, c, "GET", gw+"/running-jobs", "secret-rw", "")
		wantRefusal(t, "the old token", code, b, 401, "not valid")
		if code, _, b := secCall(t, c, "GET", gw+"/running-jobs", "rotated", ""); code != 200 {
			t.Fatalf("the new token: %d %s", code, b)
		}
	})

	t.Run("TLS below 1.2 and plain HTTP are refused", func(t *testing.T) {
		old := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS11}}}
		if resp, err := old.Get(gw + "/overview"); err == nil {
			resp.Body.Close()
			t.Fatal("a TLS 1.1 client was served")
		}
		untrusted := &http.Client{Timeout: 10 * time.Second}
		if resp, err := untrusted.Get(gw + "/overview"); err == nil {
			resp.Body.Close()
			t.Fatal("a client that does not trust the certificate was served")
		}
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/overview", gwPort))
		if err == nil {
			defer resp.Body.Close()
			if resp.StatusCode == 200 {
				t.Fatal("plain HTTP was served")
			}
		}
	})

	t.Run("a body past the limit answers 413 naming it", func(t *testing.T) {
		big := `{"env": {"job.mode": "BATCH"}, "pad": "` + strings.Repeat("x", 70000) + `"}`
		code, _, b := secCall(t, c, "POST", gw+"/submit-job", "rotated", big)
		wantRefusal(t, "a large body", code, b, 413, "limit of 65536 bytes")
	})

	t.Run("a client past its rate gets 429 with Retry-After", func(t *testing.T) {
		rlPort := freePort(t)
		rl := fmt.Sprintf("http://127.0.0.1:%d", rlPort)
		startGatewayProc(t, "gateway-rate", temporal, "--listen", fmt.Sprintf("127.0.0.1:%d", rlPort), "--rate-limit", "0.05", "--rate-burst", "3")
		for i := range 3 {
			if code, _, b := secCall(t, http.DefaultClient, "GET", rl+"/job-info/1", "", ""); code != 200 {
				t.Fatalf("request %d of the burst: %d %s", i, code, b)
			}
		}
		code, h, b := secCall(t, http.DefaultClient, "GET", rl+"/job-info/1", "", "")
		wantRefusal(t, "past the burst", code, b, 429, "too many requests")
		if s, err := strconv.Atoi(h.Get("Retry-After")); err != nil || s < 1 || s > 20 {
			t.Fatalf("Retry-After %q, want 1..20 s (one request every 20 s)", h.Get("Retry-After"))
		}
	})
}
