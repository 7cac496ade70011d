package http

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
	"net/url"
	"strings"
	"time"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connectors/internal/sourcekit"
)

// client sends requests with SeaTunnel's retry rules: a request is tried up to attempts
// times in all, waiting multiplier times the next Fibonacci number (at most max) between
// tries. A try fails when the request cannot be sent or the server answers 429 or 5xx
// (SeaTunnel retries I/O errors only; an overloaded server is worth another try too).
type client struct {
	http       *nethttp.Client
	attempts   int
	multiplier time.Duration
	max        time.Duration
}

// check says what is wrong with the request options, naming the option: an empty url, or
// retry and timeout settings a client cannot be made with.
func (c *RequestConfig) check(o *config.Options) error {
	if strings.TrimSpace(c.URL) == "" {
		return o.Errorf("url", "must not be empty")
	}
	if _, err := newClient(c); err != nil {
		key, _, _ := strings.Cut(err.Error(), " ")
		return o.Errorf(key, "%v", err)
	}
	return nil
}

func newClient(c *RequestConfig) (*client, error) {
	switch {
	case c.RetryMultiplierMS < 0:
		return nil, errors.New("retry_backoff_multiplier_ms must not be negative")
	case c.RetryMaxMS < 0:
		return nil, errors.New("retry_backoff_max_ms must not be negative")
	case c.ConnectTimeoutMS <= 0:
		return nil, errors.New("connect_timeout_ms must be positive")
	case c.SocketTimeoutMS <= 0:
		return nil, errors.New("socket_timeout_ms must be positive")
	}
	connect := time.Duration(c.ConnectTimeoutMS) * time.Millisecond
	socket := time.Duration(c.SocketTimeoutMS) * time.Millisecond
	tr := &nethttp.Transport{
		// HTTP_PROXY and the like are honoured, as most HTTP clients do
		Proxy:                 nethttp.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   connect,
		ResponseHeaderTimeout: socket,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
	}
	return &client{
		http:       &nethttp.Client{Transport: tr, Timeout: connect + socket},
		attempts:   max(int(c.Retry), 1),
		multiplier: time.Duration(c.RetryMultiplierMS) * time.Millisecond,
		max:        time.Duration(c.RetryMaxMS) * time.Millisecond,
	}, nil
}

// request is one request to send, possibly several times.
type request struct {
	method  string
	url     string
	headers map[string]string
	body    []byte
	// contentType is set when there is a body
	contentType string
}

// StatusError is an answer the server gave with a status that is not a success.
type StatusError struct {
	Method, URL string
	Status      int
	Body        string // the start of the answer's body
	Attempts    int
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s %s: the server answered %d %s", e.Method, e.URL, e.Status, nethttp.StatusText(e.Status))
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (%d attempts)", e.Attempts)
	}
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// retryable reports whether a status is worth another try.
func retryable(status int) bool {
	return status == nethttp.StatusTooManyRequests || status >= 500
}

// ok is SeaTunnel's range of successful answers.
func ok(status int) bool { return status >= 200 && status <= 207 }

// do sends req until it succeeds or the tries are used up, and returns the body of the
// successful answer.
func (c *client) do(ctx context.Context, req *request) ([]byte, error) {
	var last error
	prev, cur := time.Duration(0), time.Duration(1) // Fibonacci numbers
	for attempt := 1; ; attempt++ {
		body, status, err := c.once(ctx, req)
		switch {
		case err == nil && ok(status):
			return body, nil
		case err == nil:
			last = &StatusError{Method: req.method, URL: req.url, Status: status, Body: excerpt(body), Attempts: attempt}
			if !retryable(status) {
				return nil, last
			}
		case ctx.Err() != nil:
			return nil, ctx.Err()
		default:
			last = fmt.Errorf("%s %s: %w", req.method, req.url, unwrapURLError(err))
			if attempt > 1 {
				last = fmt.Errorf("%w (%d attempts)", last, attempt)
			}
		}
		if attempt >= c.attempts {
			return nil, last
		}
		wait := min(c.multiplier*cur, c.max)
		prev, cur = cur, prev+cur
		if wait > 0 {
			if err := sourcekit.Sleep(ctx, wait); err != nil {
				return nil, err
			}
		}
	}
}

func (c *client) once(ctx context.Context, req *request) ([]byte, int, error) {
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(req.body)
	}
	hr, err := nethttp.NewRequestWithContext(ctx, req.method, req.url, body)
	if err != nil {
		return nil, 0, err
	}
	if req.contentType != "" {
		hr.Header.Set("Content-Type", req.contentType)
	}
	for k, v := range req.headers {
		hr.Header.Set(k, v)
	}
	resp, err := c.http.Do(hr)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, err
	}
	return b, resp.StatusCode, nil
}

func (c *client) close() { c.http.CloseIdleConnections() }

// unwrapURLError drops net/http's "Get \"url\":" prefix: the caller names the request.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// excerpt is the start of a body, for an error message.
func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 512 {
		s = s[:512] + "..."
	}
	return s
}

// withParams adds params to the query string of u.
func withParams(u string, params map[string]string) (string, error) {
	if len(params) == 0 {
		return u, nil
	}
	pu, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	q := pu.Query()
	for k, v := range params {
		q.Set(k, v)
	}
	pu.RawQuery = q.Encode()
	return pu.String(), nil
}

// formBody encodes params as a form.
func formBody(params map[string]string) []byte {
	q := url.Values{}
	for k, v := range params {
		q.Set(k, v)
	}
	return []byte(q.Encode())
}
