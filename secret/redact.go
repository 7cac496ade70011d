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
