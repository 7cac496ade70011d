// Package httpmock serves MockServer expectations (the mockserver-config.json files of
// SeaTunnel's end-to-end suites) from an httptest server, for tests of HTTP connectors. An
// expectation matches a request by method, path, query parameters, headers and body (JSON,
// compared as values, or form parameters); the first that matches answers with its status,
// headers and body, a JSON body written as MockServer writes it (Jackson's pretty printer).
// A request nothing matches gets 404, as from MockServer. Every request is recorded.
package httpmock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"strings"
	"sync"

	"github.com/strait-dev/strait/config/hocon"
)

// Expectation is one MockServer expectation.
type Expectation struct {
	Request  Request  `json:"httpRequest"`
	Response Response `json:"httpResponse"`
}

// Request is what an expectation matches.
type Request struct {
	Method  string              `json:"method"`
	Path    string              `json:"path"`
	Query   map[string][]string `json:"-"`
	RawQ    map[string]any      `json:"queryStringParameters"`
	Headers map[string][]string `json:"headers"`
	Body    *Body               `json:"body"`
	Secure  bool                `json:"secure"`
}

// Body is a body matcher: JSON (Json holds the value) or PARAMETERS (form fields).
type Body struct {
	Type       string          `json:"type"`
	JSON       json.RawMessage `json:"json"`
	Parameters map[string]any  `json:"parameters"`
	MatchType  string          `json:"matchType"`
}

// Response is an expectation's answer.
type Response struct {
	Status  int               `json:"statusCode"`
	Headers map[string]string `json:"headers"`
	Body    json.RawMessage   `json:"body"`
}

// Recorded is a request the server received.
type Recorded struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
	Matched             bool
}

// Server is a running mock server.
type Server struct {
	*httptest.Server
	exps []Expectation
	mu   sync.Mutex
	reqs []Recorded
	// Override, when set, answers before the expectations; it returns false to pass.
	Override func(w http.ResponseWriter, r *http.Request, body []byte) bool
}

// Load reads a MockServer initialization file (a leading // comment line allowed).
func Load(path string) ([]Expectation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			lines = append(lines, l)
		}
	}
	var exps []Expectation
	if err := json.Unmarshal([]byte(strings.Join(lines, "\n")), &exps); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	for i := range exps {
		q := map[string][]string{}
		for k, v := range exps[i].Request.RawQ {
			switch v := v.(type) {
			case string:
				q[k] = []string{v}
			case []any:
				for _, e := range v {
					q[k] = append(q[k], fmt.Sprint(e))
				}
			}
		}
		exps[i].Request.Query = q
	}
	return exps, nil
}

// Start serves the expectations.
func Start(exps []Expectation) *Server {
	s := &Server{exps: exps}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Requests returns the requests received so far with the given method and path.
func (s *Server) Requests(method, path string) []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Recorded
	for _, r := range s.reqs {
		if r.Method == method && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := Recorded{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	defer func() {
		s.mu.Lock()
		s.reqs = append(s.reqs, rec)
		s.mu.Unlock()
	}()
	if s.Override != nil && s.Override(w, r, body) {
		rec.Matched = true
		return
	}
	for i := range s.exps {
		e := &s.exps[i]
		if e.Request.Secure || !matches(&e.Request, r, body) {
			continue
		}
		rec.Matched = true
		for k, v := range e.Response.Headers {
			w.Header().Set(k, v)
		}
		status := e.Response.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		w.Write(responseBody(e.Response.Body))
		return
	}
	w.WriteHeader(http.StatusNotFound)
}

func matches(e *Request, r *http.Request, body []byte) bool {
	if e.Method != "" && !strings.EqualFold(e.Method, r.Method) || e.Path != "" && e.Path != r.URL.Path {
		return false
	}
	q := r.URL.Query()
	for k, vs := range e.Query {
		for _, v := range vs {
			if !contains(q[k], v) {
				return false
			}
		}
	}
	for k, vs := range e.Headers {
		for _, v := range vs {
			if !contains(r.Header.Values(k), v) {
				return false
			}
		}
	}
	if e.Body == nil {
		return true
	}
	switch e.Body.Type {
	case "JSON":
		return sameJSON(e.Body.JSON, body)
	case "PARAMETERS":
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return false
		}
		for k, v := range e.Body.Parameters {
			if !contains(form[k], fmt.Sprint(v)) {
				return false
			}
		}
		return true
	}
	return false
}

func contains(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// sameJSON compares the expected JSON with a request body as values; the body is read
// leniently (unquoted names and the like), as MockServer's matcher reads it.
func sameJSON(want json.RawMessage, got []byte) bool {
	// HOCON reads JSON and its lenient forms (unquoted names, single values)
	v, err := hocon.Parse(got, hocon.Options{File: "request body"})
	if err != nil {
		return false
	}
	doc, err := v.MarshalJSON()
	if err != nil {
		return false
	}
	var a, b any
	if json.Unmarshal(want, &a) != nil || json.Unmarshal(doc, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// responseBody is a body as MockServer sends it: a string as it is, other JSON values
// pretty-printed the way Jackson's default pretty printer writes them.
func responseBody(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []byte(s)
	}
	return JacksonPretty(raw)
}

// JacksonPretty writes a JSON text as Jackson's DefaultPrettyPrinter does: object members
// one per line, indented two spaces, as "name" : value; array elements on one line,
// separated by ", ", within "[ " and " ]". Numbers keep their text; member order is kept.
func JacksonPretty(raw []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var buf bytes.Buffer
	if err := pretty(dec, &buf, 0); err != nil {
		return raw
	}
	return buf.Bytes()
}

// prettyItems writes the items of the object or array whose opening the decoder has read: open,
// each item as item writes it with sep between them, and end; an empty one is empty.
func prettyItems(dec *json.Decoder, buf *bytes.Buffer, empty, open, sep, end string, item func() error) error {
	if !dec.More() {
		dec.Token()
		buf.WriteString(empty)
		return nil
	}
	buf.WriteString(open)
	for first := true; dec.More(); first = false {
		if !first {
			buf.WriteString(sep)
		}
		if err := item(); err != nil {
			return err
		}
	}
	dec.Token()
	buf.WriteString(end)
	return nil
}

func pretty(dec *json.Decoder, buf *bytes.Buffer, level int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return prettyItems(dec, buf, "{ }", "{", ",", "\n"+strings.Repeat("  ", level)+"}", func() error {
				k, _ := dec.Token()
				buf.WriteString("\n" + strings.Repeat("  ", level+1))
				kb, _ := json.Marshal(k)
				buf.Write(kb)
				buf.WriteString(" : ")
				return pretty(dec, buf, level+1)
			})
		}
		return prettyItems(dec, buf, "[ ]", "[ ", ", ", " ]", func() error { return pretty(dec, buf, level) })
	case json.Number:
		buf.WriteString(t.String())
	case nil:
		buf.WriteString("null")
	default:
		b, _ := json.Marshal(t)
		buf.Write(b)
	}
	return nil
}
