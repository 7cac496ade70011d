//go:build !noembed

package devserver

import (
	"strings"
	"testing"

	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

// TestFatalLogger: while the server starts, Fatal panics in the caller (derived loggers
// too), so a listener the server cannot open is an error of Start rather than a nil
// listener served in a goroutine; once started, Fatal no longer panics.
func TestFatalLogger(t *testing.T) {
	l := newFatalLogger(log.NewNoopLogger())
	derived := l.With(tag.Service("worker"))
	fatal := func(lg log.Logger) (msg string) {
		defer func() {
			if r := recover(); r != nil {
				msg = r.(fatalStart).msg
			}
		}()
		lg.Fatal("Failed to start gRPC listener", tag.Address("127.0.0.1:1"))
		return ""
	}
	if got := fatal(derived); !strings.Contains(got, "Failed to start gRPC listener") || !strings.Contains(got, "127.0.0.1:1") {
		t.Fatalf("while starting: %q", got)
	}
	l.started()
	if got := fatal(derived); got != "" {
		t.Fatalf("after start: panicked %q", got)
	}
}
