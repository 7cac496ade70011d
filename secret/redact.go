package secret

import (
	"strings"
	"sync"
)

// A process remembers the secret values it opened for the plugins it builds, so that a
// message it sends out (a task's error, on its way into the pipeline's history and the
// job's status) never carries one: a driver's error may quote a connection string or a
// header with a password in it.

// minRedacted is the shortest value searched for in messages: a shorter one cannot be told
// apart from the words around it, and masking it would garble messages.
const minRedacted = 6

// maxRemembered bounds the values a long-running process keeps (the most recent win).
const maxRemembered = 4096

var revealed = struct {
	sync.Mutex
	order []string
	set   map[string]bool
}{set: map[string]bool{}}

// rememberSecret records a secret value opened in this process and, for a URL, the
// password of its user info and the values of its parameters named like secrets, which a
// driver may quote apart from the URL.
func rememberSecret(v string) {
	remember(v)
	for _, p := range urlSecrets(v) {
		remember(p)
	}
}

// urlSecrets are the password of a URL's user info and the values of its parameters named
// like secrets.
func urlSecrets(u string) []string {
	var out []string
	if m := urlUserinfo.FindStringSubmatch(u); m != nil && m[2] != "" {
		out = append(out, m[2])
	}
	for _, m := range urlParam.FindAllStringSubmatch(u, -1) {
		if Sensitive(m[2]) && m[3] != "" {
			out = append(out, m[3])
		}
	}
	return out
}

// rememberConfig records the secret values of a job config opened in this process (the
// worker plans it, and a factory may log or fail while it is built).
func rememberConfig(text, file string, vars map[string]string) {
	root, err := parse(text, file, vars)
	if err != nil {
		return // a config that does not parse fails its plan before any plugin is built
	}
	for _, l := range configLeaves(root) {
		rememberSecret(l.v.Str)
	}
}

// remember records a value opened in this process.
func remember(v string) {
	if len(v) < minRedacted {
		return
	}
	revealed.Lock()
	defer revealed.Unlock()
	if revealed.set[v] {
		return
	}
	if len(revealed.order) == maxRemembered {
		delete(revealed.set, revealed.order[0])
		revealed.order = revealed.order[1:]
	}
	revealed.order = append(revealed.order, v)
	revealed.set[v] = true
}

// Redact masks in msg every secret value this process opened (of 6 characters or more).
func Redact(msg string) string {
	revealed.Lock()
	defer revealed.Unlock()
	for _, v := range revealed.order {
		if strings.Contains(msg, v) {
			msg = strings.ReplaceAll(msg, v, Mask)
		}
	}
	return msg
}
