package exchange

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// TLSFiles names the PEM files of a runner's exchange mTLS. One certificate serves both
// sides of the exchange: the server presents it to the runners that connect, the client to
// the runners it connects to, so it needs both the server and the client extended key usage
// (or none). CA holds the certificates a peer's certificate must chain to, on both sides.
type TLSFiles struct {
	Cert, Key, CA string
	// ServerName is the name a peer's server certificate must carry; empty means the host
	// of the address the peer advertises.
	ServerName string
}

// Enabled reports whether any file is named: the exchange then runs over mTLS.
func (f TLSFiles) Enabled() bool { return f.Cert != "" || f.Key != "" || f.CA != "" }

// Missing names the first of cert, key and CA that is not given ("" when all are).
func (f TLSFiles) Missing() string {
	switch {
	case f.Cert == "":
		return "cert"
	case f.Key == "":
		return "key"
	case f.CA == "":
		return "ca"
	}
	return ""
}

// TLS is a runner's exchange mTLS material. It is read from its files at NewTLS and read
// again, at the next connection made or accepted, after any of them changed: renewed
// certificates take effect without a restart (connections already open keep theirs). A
// change that does not load (a certificate written before its key) keeps the material in
// use and is tried again at the next connection.
type TLS struct {
	files TLSFiles
	log   *slog.Logger

	mu      sync.Mutex
	stamps  [3]fileStamp
	cert    *tls.Certificate
	pool    *x509.CertPool
	loadErr string // the last failed reload's error, logged once
}

type fileStamp struct {
	mod  time.Time
	size int64
}

// NewTLS reads files; every one of cert, key and CA is required.
func NewTLS(files TLSFiles, log *slog.Logger) (*TLS, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if m := files.Missing(); m != "" {
		return nil, fmt.Errorf("exchange TLS: no %s file given (a certificate, its key and a CA are all needed)", m)
	}
	t := &TLS{files: files, log: log}
	stamps, err := t.stat()
	if err != nil {
		return nil, err
	}
	cert, pool, err := load(files)
	if err != nil {
		return nil, err
	}
	t.stamps, t.cert, t.pool = stamps, cert, pool
	return t, nil
}

func (t *TLS) paths() [3]string { return [3]string{t.files.Cert, t.files.Key, t.files.CA} }

func (t *TLS) stat() ([3]fileStamp, error) {
	var out [3]fileStamp
	for i, p := range t.paths() {
		fi, err := os.Stat(p)
		if err != nil {
			return out, fmt.Errorf("exchange TLS: %w", err)
		}
		out[i] = fileStamp{mod: fi.ModTime(), size: fi.Size()}
	}
	return out, nil
}

// load reads and checks a certificate, its key and a CA.
func load(f TLSFiles) (*tls.Certificate, *x509.CertPool, error) {
	pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return nil, nil, fmt.Errorf("exchange TLS: certificate %s with key %s: %w", f.Cert, f.Key, err)
	}
	if err := checkUsage(pair.Leaf); err != nil {
		return nil, nil, fmt.Errorf("exchange TLS: certificate %s: %w", f.Cert, err)
	}
	pem, err := os.ReadFile(f.CA)
	if err != nil {
		return nil, nil, fmt.Errorf("exchange TLS: CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, nil, fmt.Errorf("exchange TLS: CA %s: no PEM certificate in it", f.CA)
	}
	return &pair, pool, nil
}

// checkUsage refuses a certificate that cannot serve both sides of the exchange.
func checkUsage(leaf *x509.Certificate) error {
	if leaf == nil || len(leaf.ExtKeyUsage) == 0 || slices.Contains(leaf.ExtKeyUsage, x509.ExtKeyUsageAny) {
		return nil
	}
	for _, u := range []struct {
		usage x509.ExtKeyUsage
		side  string
	}{{x509.ExtKeyUsageServerAuth, "serverAuth"}, {x509.ExtKeyUsageClientAuth, "clientAuth"}} {
		if !slices.Contains(leaf.ExtKeyUsage, u.usage) {
			return fmt.Errorf("its extended key usage lacks %s: a runner's certificate serves both sides of the exchange (serverAuth and clientAuth)", u.side)
		}
	}
	return nil
}

// current returns the material, read again first if a file changed since it was read.
func (t *TLS) current() (*tls.Certificate, *x509.CertPool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	stamps, err := t.stat()
	if err == nil && stamps == t.stamps {
		return t.cert, t.pool
	}
	if err == nil {
		var cert *tls.Certificate
		var pool *x509.CertPool
		if cert, pool, err = load(t.files); err == nil {
			t.stamps, t.cert, t.pool, t.loadErr = stamps, cert, pool, ""
			t.log.Info("exchange TLS: certificates read again", "cert", t.files.Cert, "ca", t.files.CA)
			return t.cert, t.pool
		}
	}
	if msg := err.Error(); msg != t.loadErr {
		t.loadErr = msg
		t.log.Error("exchange TLS: changed files do not load; the certificates read before stay in use", "error", err)
	}
	return t.cert, t.pool
}

// ServerConfig is the configuration of an exchange server: it presents the certificate and
// requires a client certificate the CA signed.
func (t *TLS) ServerConfig() *tls.Config {
	cert, pool := t.current()
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{*cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
	}
}

// ClientConfig is the configuration of an exchange client: it presents the certificate and
// verifies the server's against the CA, for TLSFiles.ServerName when set.
func (t *TLS) ClientConfig() *tls.Config {
	cert, pool := t.current()
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{*cert},
		RootCAs:      pool,
		ServerName:   t.files.ServerName,
	}
}

// tlsCredentials are gRPC transport credentials that build each handshake's configuration from
// the material current at that time.
type tlsCredentials struct {
	t   *TLS
	log *slog.Logger
}

// transportCredentials is mTLS with t, else none: plain gRPC, for trusted networks.
func transportCredentials(t *TLS, log *slog.Logger) credentials.TransportCredentials {
	if t == nil {
		return insecure.NewCredentials()
	}
	return &tlsCredentials{t: t, log: log}
}

func (c *tlsCredentials) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	name := authority // gRPC takes the server name from what it is given as authority
	if c.t.files.ServerName != "" {
		name = c.t.files.ServerName
	}
	conn, info, err := credentials.NewTLS(c.t.ClientConfig()).ClientHandshake(ctx, name, raw)
	if err == nil {
		conn, err = confirm(ctx, conn, info)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("exchange: TLS handshake with %s failed%s: %w", authority, hint(err), err)
	}
	return conn, info, nil
}

// confirm waits, after a TLS 1.3 handshake, for the server's first bytes (gRPC's server
// speaks first). In TLS 1.3 the client's handshake ends before the server checked the
// client's certificate, so a refusal comes as an alert after it: read here, it fails the
// handshake with the server's reason rather than the connection later with a broken pipe.
// The bytes read are handed to gRPC first.
func confirm(ctx context.Context, conn net.Conn, info credentials.AuthInfo) (net.Conn, error) {
	if ti, ok := info.(credentials.TLSInfo); !ok || ti.State.Version != tls.VersionTLS13 {
		return conn, nil
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultConnectTimeout)
	}
	if err := conn.SetReadDeadline(deadline); err != nil {
		return nil, err
	}
	buf := make([]byte, 1)
	n, err := conn.Read(buf)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("the peer refused this runner's certificate or closed the connection: %w", err)
	}
	if err := conn.SetReadDeadline(time.Time{}); err != nil {
		return nil, err
	}
	return &replayConn{Conn: conn, pending: buf[:n]}, nil
}

// replayConn returns bytes already read before reading on.
type replayConn struct {
	net.Conn
	pending []byte
}

func (c *replayConn) Read(b []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(b, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

func (c *tlsCredentials) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := credentials.NewTLS(c.t.ServerConfig()).ServerHandshake(raw)
	if err != nil {
		// a bare connect-and-close (a port probe) is no refusal worth a warning
		if !errors.Is(err, io.EOF) {
			c.log.Warn("exchange: refused a connection: TLS handshake failed (a runner without mTLS, or a certificate the CA did not sign)",
				"from", raw.RemoteAddr().String(), "error", err)
		}
		return nil, nil, fmt.Errorf("exchange: TLS handshake with %s failed: %w", raw.RemoteAddr(), err)
	}
	return conn, info, nil
}

// hint says what a handshake that failed this way usually means.
func hint(err error) string {
	var rec tls.RecordHeaderError
	switch {
	case errors.As(err, &rec):
		return " (the peer answered without TLS: it serves the exchange in plain gRPC)"
	case errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
		return " (the peer closed the connection: it may serve the exchange without TLS)"
	}
	return ""
}

func (c *tlsCredentials) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "tls", SecurityVersion: "1.2"}
}

func (c *tlsCredentials) Clone() credentials.TransportCredentials {
	return &tlsCredentials{t: c.t, log: c.log}
}

// OverrideServerName is not supported: the server name is TLSFiles.ServerName.
func (c *tlsCredentials) OverrideServerName(string) error {
	return errors.New("exchange TLS: the server name is set by TLSFiles.ServerName")
}

// WithTLS runs a Server or a Client over mTLS with t's certificates.
func WithTLS(t *TLS) Option {
	return func(o *options) { o.tls = t }
}
