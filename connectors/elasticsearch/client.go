package elasticsearch

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// The connector speaks Elasticsearch's REST API over plain HTTP: the bulk API to write, search
// (with scroll where the server keeps one) to read, index creation, mappings and
// delete-by-query for the save modes. Those are the same in Elasticsearch 7 and 8 and
// OpenSearch; the official clients check which product answers and refuse the others, so
// they are not used.

// ConnOptions are how the connector reaches the cluster, as SeaTunnel names them.
type ConnOptions struct {
	Hosts                 []string `opt:"hosts,required" doc:"the cluster's HTTP addresses: host:port (http), or URLs with a scheme and, for an API served under a path, that path (https://es:9200, http://zinc:4080/es); requests go to the first that answers"`
	Username              string   `opt:"username" doc:"the user of HTTP basic authentication (X-Pack's)"`
	Password              string   `opt:"password,secret" doc:"the user's password"`
	TLSVerifyCertificate  bool     `opt:"tls_verify_certificate" default:"true" doc:"check the server's certificate against the trust store (or the system's roots)"`
	TLSVerifyHostname     bool     `opt:"tls_verify_hostname" fallback:"tls_verify_hostnames" default:"true" doc:"check that the certificate names the host"`
	TLSTruststorePath     string   `opt:"tls_truststore_path" doc:"a PEM file of the certificate authorities to trust (a JKS store is not read: convert it to PEM)"`
	TLSTruststorePassword string   `opt:"tls_truststore_password,secret,noeffect" doc:"the trust store's password; a PEM file has none"`
	TLSKeystorePath       string   `opt:"tls_keystore_path" doc:"a PEM file holding the client's certificate and private key, for mutual TLS"`
	TLSKeystorePassword   string   `opt:"tls_keystore_password,secret,noeffect" doc:"the key store's password; an encrypted PEM key is not read"`
}

// client sends requests to the first host that answers.
type client struct {
	hosts []*url.URL
	user  string
	pass  string
	http  *http.Client
	next  atomic.Int32 // the host tried first
}

// requestTimeout bounds one request; a bulk of max_batch_size documents or a search page
// takes far less.
const requestTimeout = 2 * time.Minute

func newClient(o *ConnOptions) (*client, error) {
	if len(o.Hosts) == 0 {
		return nil, errors.New("hosts: give at least one host:port")
	}
	c := &client{user: o.Username, pass: o.Password}
	for _, h := range o.Hosts {
		h = strings.TrimSpace(h)
		if !strings.Contains(h, "://") {
			h = "http://" + h
		}
		u, err := url.Parse(h)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("hosts: %q is not host:port or a URL", h)
		}
		if u.User != nil {
			if c.user == "" {
				c.user = u.User.Username()
				c.pass, _ = u.User.Password()
			}
			u.User = nil
		}
		u.Path = strings.TrimRight(u.Path, "/")
		c.hosts = append(c.hosts, u)
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: !o.TLSVerifyCertificate || !o.TLSVerifyHostname} //nolint:gosec // the user's choice, SeaTunnel's options
	if o.TLSVerifyCertificate && !o.TLSVerifyHostname {
		// the chain is checked, the name is not
		roots, err := rootsOf(o.TLSTruststorePath)
		if err != nil {
			return nil, err
		}
		tc.VerifyConnection = func(cs tls.ConnectionState) error {
			opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
			for _, ic := range cs.PeerCertificates[1:] {
				opts.Intermediates.AddCert(ic)
			}
			_, err := cs.PeerCertificates[0].Verify(opts)
			return err
		}
	} else if o.TLSTruststorePath != "" {
		roots, err := rootsOf(o.TLSTruststorePath)
		if err != nil {
			return nil, err
		}
		tc.RootCAs = roots
	}
	if o.TLSKeystorePath != "" {
		pem, err := os.ReadFile(o.TLSKeystorePath)
		if err != nil {
			return nil, fmt.Errorf("tls_keystore_path: %w", err)
		}
		cert, err := tls.X509KeyPair(pem, pem)
		if err != nil {
			return nil, fmt.Errorf("tls_keystore_path: %s holds no PEM certificate and key: %w", o.TLSKeystorePath, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tc
	tr.MaxIdleConnsPerHost = 4
	c.http = &http.Client{Transport: tr, Timeout: requestTimeout}
	return c, nil
}

func rootsOf(path string) (*x509.CertPool, error) {
	if path == "" {
		return x509.SystemCertPool()
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tls_truststore_path: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("tls_truststore_path: %s holds no PEM certificate", path)
	}
	return pool, nil
}

// statusError is an answer other than 2xx.
type statusError struct {
	method, path string
	status       int
	body         string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.method, e.path, e.status, e.body)
}

// do sends a request with a JSON (or NDJSON) body and decodes a JSON answer into out (when
// not nil). Hosts are tried in turn while they cannot be reached.
func (c *client) do(ctx context.Context, method, path string, body []byte, contentType string, out any) error {
	return c.send(ctx, func(h *url.URL) string { return h.String() + path }, method, path, body, contentType, out)
}

// send is do with the URL of each host made by at.
func (c *client) send(ctx context.Context, at func(*url.URL) string, method, path string, body []byte, contentType string, out any) error {
	var last error
	n := len(c.hosts)
	first := int(c.next.Load())
	for i := 0; i < n; i++ {
		h := c.hosts[(first+i)%n]
		req, err := http.NewRequestWithContext(ctx, method, at(h), bytes.NewReader(body))
		if err != nil {
			return err
		}
		if body != nil {
			req.Header.Set("Content-Type", contentType)
		}
		req.Header.Set("Accept", "application/json")
		if c.user != "" {
			req.SetBasicAuth(c.user, c.pass)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			last = fmt.Errorf("%s %s%s: %w", method, h.Redacted(), path, err)
			if ctx.Err() != nil {
				return last
			}
			continue
		}
		c.next.Store(int32((first + i) % n))
		b, err := io.ReadAll(io.LimitReader(resp.Body, 512<<20))
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		if resp.StatusCode/100 != 2 {
			msg := strings.TrimSpace(string(b))
			if len(msg) > 512 {
				msg = msg[:512] + "…"
			}
			return &statusError{method: method, path: path, status: resp.StatusCode, body: msg}
		}
		if out == nil {
			return nil
		}
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: the answer is not JSON: %w", method, path, err)
		}
		return nil
	}
	return last
}

func (c *client) json(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	return c.do(ctx, method, path, body, "application/json", out)
}

// isZinc reports whether the server is ZincSearch (it names itself zinc), whose index
// mappings differ from Elasticsearch's.
func (c *client) isZinc(ctx context.Context) (bool, error) {
	var info struct {
		Name string `json:"name"`
	}
	if err := c.json(ctx, http.MethodGet, "/", nil, &info); err != nil {
		return false, err
	}
	return info.Name == "zinc", nil
}

// deleteIndex deletes an index. ZincSearch's Elasticsearch API has no such request (it
// answers 404): there the index is deleted with its own API, /api/index/<name>, which it
// serves beside /es.
func (c *client) deleteIndex(ctx context.Context, index string) error {
	err := c.do(ctx, http.MethodDelete, indexPath(index), nil, "", nil)
	var se *statusError
	if !errors.As(err, &se) || se.status != http.StatusNotFound {
		return err
	}
	if zinc, zerr := c.isZinc(ctx); zerr != nil || !zinc {
		return err
	}
	path := "/api/index" + indexPath(index)
	return c.send(ctx, func(h *url.URL) string {
		u := *h
		u.Path = strings.TrimSuffix(u.Path, "/es")
		return u.String() + path
	}, http.MethodDelete, path, nil, "", nil)
}

// indexPath is an index's path segment.
func indexPath(index string) string { return "/" + url.PathEscape(index) }

// exists reports whether an index exists.
func (c *client) exists(ctx context.Context, index string) (bool, error) {
	err := c.do(ctx, http.MethodHead, indexPath(index), nil, "", nil)
	var se *statusError
	if errors.As(err, &se) && se.status == http.StatusNotFound {
		return false, nil
	}
	return err == nil, err
}

// count is the number of documents an index holds (a search of no hits: servers without
// _count answer it too).
func (c *client) count(ctx context.Context, index string) (int64, error) {
	var r struct {
		Hits struct {
			Total json.RawMessage `json:"total"`
		} `json:"hits"`
	}
	q := map[string]any{"size": 0, "query": map[string]any{"match_all": map[string]any{}}, "track_total_hits": true}
	if err := c.json(ctx, http.MethodPost, indexPath(index)+"/_search", q, &r); err != nil {
		return 0, err
	}
	return totalOf(r.Hits.Total), nil
}

// totalOf reads hits.total: {"value": n} (7 and later) or n (6).
func totalOf(raw json.RawMessage) int64 {
	var n int64
	if json.Unmarshal(raw, &n) == nil {
		return n
	}
	var v struct {
		Value int64 `json:"value"`
	}
	_ = json.Unmarshal(raw, &v)
	return v.Value
}
