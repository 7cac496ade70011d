package gateway

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// TokensEnv is the environment variable that carries bearer tokens (comma or white space
// separated), beside or instead of a token file.
const TokensEnv = "STRAIT_GATEWAY_TOKENS"

// readOnlyPrefix marks a token that may only read: GET and HEAD requests.
const readOnlyPrefix = "ro:"

// token is a bearer token as the gateway keeps it: its SHA-256, so every comparison is of
// equal length and runs in constant time.
type token struct {
	sum      [sha256.Size]byte
	readOnly bool
}

// Tokens are the bearer tokens the gateway accepts: those of the environment, fixed at
// start, and those of a file, read again whenever its modification time or size changes
// (checked on every request, so a rotated file applies to the next request).
type Tokens struct {
	file string
	env  []token
	log  *slog.Logger

	mu       sync.Mutex
	mod      time.Time
	size     int64
	fromFile []token
	fileErr  error // the file's last read failed: its tokens are refused until it reads again
}

// NewTokens reads the tokens of file (one per line; empty lines and lines starting with
// # are ignored) and of env (the value of STRAIT_GATEWAY_TOKENS). A token written
// "ro:<token>" may only read. Having no token at all is an error: authentication is either
// configured with tokens or not configured.
func NewTokens(file, env string, log *slog.Logger) (*Tokens, error) {
	if log == nil {
		log = slog.Default()
	}
	t := &Tokens{file: file, log: log}
	t.env = parseTokens(strings.FieldsFunc(env, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }))
	if file != "" {
		if err := t.reload(); err != nil {
			return nil, err
		}
	}
	if len(t.env) == 0 && len(t.fromFile) == 0 {
		where := TokensEnv
		if file != "" {
			where = fmt.Sprintf("the token file %s and %s", file, TokensEnv)
		}
		return nil, fmt.Errorf("gateway tokens: %s hold no token", where)
	}
	return t, nil
}

// parseTokens reads token lines: blank lines and # comments are skipped.
func parseTokens(lines []string) []token {
	var out []token
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		ro := strings.HasPrefix(l, readOnlyPrefix)
		if ro {
			l = strings.TrimSpace(strings.TrimPrefix(l, readOnlyPrefix))
			if l == "" {
				continue
			}
		}
		out = append(out, token{sum: sha256.Sum256([]byte(l)), readOnly: ro})
	}
	return out
}

// reload reads the file again when it changed since the last read.
func (t *Tokens) reload() error {
	fi, err := os.Stat(t.file)
	if err != nil {
		return t.failed(fmt.Errorf("gateway token file %s: %w", t.file, err))
	}
	if t.fileErr == nil && fi.ModTime().Equal(t.mod) && fi.Size() == t.size && t.fromFile != nil {
		return nil
	}
	b, err := os.ReadFile(t.file)
	if err != nil {
		return t.failed(fmt.Errorf("gateway token file %s: %w", t.file, err))
	}
	toks := parseTokens(strings.Split(string(b), "\n"))
	if toks == nil {
		toks = []token{}
	}
	changed := t.fromFile != nil
	t.mod, t.size, t.fromFile, t.fileErr = fi.ModTime(), fi.Size(), toks, nil
	if changed {
		t.log.Info("gateway: token file read again", "file", t.file, "tokens", len(toks))
	}
	return nil
}

// failed records a file that cannot be read: its tokens no longer count (a removed file
// revokes them); the environment's still do.
func (t *Tokens) failed(err error) error {
	if t.fileErr == nil || t.fileErr.Error() != err.Error() {
		t.log.Error("gateway: token file not readable; its tokens are refused until it is", "error", err)
	}
	t.fileErr, t.fromFile, t.mod, t.size = err, nil, time.Time{}, 0
	return err
}

// match finds the token among all of them, comparing each in constant time (every token
// is compared, whether one matched before or not).
func (t *Tokens) match(given string) (token, bool) {
	sum := sha256.Sum256([]byte(given))
	t.mu.Lock()
	if t.file != "" {
		_ = t.reload()
	}
	all := make([]token, 0, len(t.env)+len(t.fromFile))
	all = append(append(all, t.env...), t.fromFile...)
	t.mu.Unlock()
	var found token
	hit := 0
	for _, tk := range all {
		eq := subtle.ConstantTimeCompare(sum[:], tk.sum[:])
		if eq == 1 && hit == 0 {
			found = tk
		}
		hit |= eq
	}
	return found, hit == 1
}

// errNoToken answers a request without credentials.
var errNoToken = errors.New("authentication required: send the header Authorization: Bearer <token>")

// authorize checks a request's bearer token: 401 without one or with one the gateway does
// not know, 403 for a read-only token on a request that changes something.
func (t *Tokens) authorize(r *http.Request) error {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	if h == "" {
		return &httpError{status: http.StatusUnauthorized, msg: errNoToken.Error()}
	}
	scheme, given, _ := strings.Cut(h, " ")
	given = strings.TrimSpace(given)
	if !strings.EqualFold(scheme, "Bearer") || given == "" {
		return &httpError{status: http.StatusUnauthorized, msg: "authentication required: the Authorization header is not \"Bearer <token>\""}
	}
	tk, ok := t.match(given)
	if !ok {
		return &httpError{status: http.StatusUnauthorized, msg: "the bearer token is not valid"}
	}
	if tk.readOnly && r.Method != http.MethodGet && r.Method != http.MethodHead {
		return &httpError{status: http.StatusForbidden, msg: fmt.Sprintf("the token is read-only: %s %s needs a read-write token", r.Method, r.URL.Path)}
	}
	return nil
}
