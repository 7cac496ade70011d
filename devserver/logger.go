//go:build !noembed

package devserver

import (
	"fmt"
	"strings"
	"sync/atomic"

	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

// fatalLogger keeps the server's Fatal from ending or corrupting the process. Temporal calls
// Fatal where it cannot go on (a listener it could not open) and expects the process to
// exit; a no-op logger would let it go on with a nil listener and crash in a goroutine.
// While the server is being built and started (starting is set) Fatal panics in the caller's
// goroutine, where startOnce recovers it as an error; after that it is logged as an error.
type fatalLogger struct {
	log.Logger
	starting *atomic.Bool
}

// fatalStart is the panic fatalLogger raises while the server starts.
type fatalStart struct{ msg string }

func (f fatalStart) Error() string { return f.msg }

func newFatalLogger(inner log.Logger) *fatalLogger {
	s := &atomic.Bool{}
	s.Store(true)
	return &fatalLogger{Logger: inner, starting: s}
}

// started makes Fatal log from now on.
func (l *fatalLogger) started() { l.starting.Store(false) }

func (l *fatalLogger) Fatal(msg string, tags ...tag.Tag) {
	if l.starting.Load() {
		panic(fatalStart{describe(msg, tags)})
	}
	l.Logger.Error(msg, tags...)
}

func (l *fatalLogger) With(tags ...tag.Tag) log.Logger {
	return &fatalLogger{Logger: log.With(l.Logger, tags...), starting: l.starting}
}

func (l *fatalLogger) Skip(extra int) log.Logger {
	if s, ok := l.Logger.(log.SkipLogger); ok {
		return &fatalLogger{Logger: s.Skip(extra), starting: l.starting}
	}
	return l
}

// describe renders a message and its tags as one line.
func describe(msg string, tags []tag.Tag) string {
	var b strings.Builder
	b.WriteString(msg)
	for _, t := range tags {
		fmt.Fprintf(&b, " %s=%v", t.Key(), t.Value())
	}
	return b.String()
}
