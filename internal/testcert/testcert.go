// Package testcert makes a throwaway certificate authority and the server and client
// certificates it signs, as PEM files, for tests of TLS and mTLS.
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// Set is a CA and a server and a client certificate it signed, written under Dir.
type Set struct {
	Dir string
	// CA is the authority's certificate; ServerCert/ServerKey carry the hosts given to New;
	// ClientCert/ClientKey are a client's, for mTLS.
	CA, ServerCert, ServerKey, ClientCert, ClientKey string
	// Pool holds CA.
	Pool *x509.CertPool

	caCert *x509.Certificate
	caKey  *ecdsa.PrivateKey
	// issued numbers the certificates, so that parallel tests issuing under one name do
	// not write each other's files
	issued atomic.Int64
}

// New makes a set under dir whose server certificate is valid for hosts (names or IPs).
func New(t testing.TB, dir string, hosts ...string) *Set {
	t.Helper()
	s := &Set{Dir: dir, Pool: x509.NewCertPool()}
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          serial(t),
		Subject:               pkix.Name{CommonName: "strait test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	s.caCert, err = x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	s.caKey = key
	s.Pool.AddCert(s.caCert)
	s.CA = s.write(t, "ca.pem", "CERTIFICATE", der)
	s.ServerCert, s.ServerKey = s.Issue(t, "server", x509.ExtKeyUsageServerAuth, hosts...)
	s.ClientCert, s.ClientKey = s.Issue(t, "client", x509.ExtKeyUsageClientAuth)
	return s
}

// Issue signs a certificate named name for usage (and hosts) and returns its files.
func (s *Set) Issue(t testing.TB, name string, usage x509.ExtKeyUsage, hosts ...string) (cert, key string) {
	t.Helper()
	return s.issue(t, name, []x509.ExtKeyUsage{usage}, hosts)
}

// Peer signs a certificate named name for hosts that serves both sides of a connection
// (server and client authentication), as one runner's certificate does on the data
// exchange, and returns its files.
func (s *Set) Peer(t testing.TB, name string, hosts ...string) (cert, key string) {
	t.Helper()
	return s.issue(t, name, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, hosts)
}

func (s *Set) issue(t testing.TB, name string, usages []x509.ExtKeyUsage, hosts []string) (cert, key string) {
	t.Helper()
	k := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: serial(t),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  usages,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, s.caCert, &k.PublicKey, s.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	file := fmt.Sprintf("%s-%d", name, s.issued.Add(1))
	return s.write(t, file+".pem", "CERTIFICATE", der), s.write(t, file+"-key.pem", "EC PRIVATE KEY", kd)
}

// ServerTLS is a server configuration presenting the server certificate; with
// requireClient, a client must present a certificate the CA signed.
func (s *Set) ServerTLS(t testing.TB, requireClient bool) *tls.Config {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(s.ServerCert, s.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	c := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	if requireClient {
		c.ClientAuth, c.ClientCAs = tls.RequireAndVerifyClientCert, s.Pool
	}
	return c
}

func (s *Set) write(t testing.TB, name, kind string, der []byte) string {
	t.Helper()
	p := filepath.Join(s.Dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func serial(t testing.TB) *big.Int {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
